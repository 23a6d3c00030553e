// The socket client (static/js/lib/socket.js) under Node, with a stand-in for the browser's
// WebSocket: how it reconnects after each kind of close, and that it resyncs once back.
import assert from "node:assert/strict";
import {test} from "node:test";

import {GameSocket, RESTART_WINDOW_MS, afterClose} from "../../static/js/lib/socket.js";

class FakeWebSocket {
  static OPEN = 1;
  static made = [];

  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.listeners = {};
    FakeWebSocket.made.push(this);
  }

  addEventListener(type, listener) {
    (this.listeners[type] ||= []).push(listener);
  }

  send(data) {
    this.sent.push(JSON.parse(data));
  }

  close() {}

  /** What the server (or the network) does to the socket. */
  fire(type, event = {}) {
    this.readyState = type === "open" ? 1 : type === "close" ? 3 : this.readyState;
    for (const listener of this.listeners[type] || []) listener(event);
  }
}

globalThis.WebSocket = FakeWebSocket;
globalThis.document = {visibilityState: "visible", addEventListener() {}};
globalThis.window = {location: {protocol: "http:", host: "example.test"}, addEventListener() {}};

/** A socket on a game, open and live; the statuses it reports. */
function live() {
  FakeWebSocket.made = [];
  const statuses = [];
  const socket = new GameSocket("/ws/games/7/", {status: (state) => statuses.push(state)});
  FakeWebSocket.made[0].fire("open");
  return {socket, statuses, first: FakeWebSocket.made[0]};
}

test("a close says what comes next: 1012 reconnects now, 4404 and 4403 stop, others wait", () => {
  assert.equal(afterClose(1012), "now");
  assert.equal(afterClose(4404), "stop");
  assert.equal(afterClose(4403), "stop");
  assert.equal(afterClose(1006), "later");
  assert.equal(afterClose(1013), "later");
  assert.equal(afterClose(1000), "later");
});

test("a socket closed with 1012 reconnects at once and asks for the state again", (t) => {
  t.mock.timers.enable({apis: ["setTimeout"]});
  const {statuses, first} = live();
  first.fire("close", {code: 1012});
  assert.equal(FakeWebSocket.made.length, 2); // no delay: the new socket is already opening
  const again = FakeWebSocket.made[1];
  assert.equal(again.url, "ws://example.test/ws/games/7/");
  again.fire("open");
  assert.deepEqual(again.sent, [{type: "sync"}]); // resync: the version it missed, if any
  assert.deepEqual(statuses, ["connecting", "live", "reconnecting", "live"]);
});

test("a socket lost otherwise waits before reconnecting", (t) => {
  t.mock.timers.enable({apis: ["setTimeout"]});
  const {first} = live();
  first.fire("close", {code: 1006});
  assert.equal(FakeWebSocket.made.length, 1);
  t.mock.timers.tick(500); // retryDelay(0): at most half a second
  assert.equal(FakeWebSocket.made.length, 2);
});

test("after 1012, failed reconnections (a lone server not back yet) retry soon for a while", (t) => {
  t.mock.timers.enable({apis: ["setTimeout", "Date"]});
  const {socket, first} = live();
  socket.attempts = 5; // it had been retrying for a while before this connection
  first.fire("close", {code: 1012});
  // Refused, again and again, for the whole window: each time the shortest delay.
  const window = Date.now() + RESTART_WINDOW_MS;
  while (Date.now() < window) {
    const made = FakeWebSocket.made.length;
    FakeWebSocket.made.at(-1).fire("close", {code: 1006});
    t.mock.timers.tick(500);
    assert.equal(FakeWebSocket.made.length, made + 1);
  }
  // Then the delays grow as after any other loss: the first at most 500 ms, the next longer.
  FakeWebSocket.made.at(-1).fire("close", {code: 1006});
  t.mock.timers.tick(500);
  const made = FakeWebSocket.made.length;
  FakeWebSocket.made.at(-1).fire("close", {code: 1006});
  t.mock.timers.tick(499);
  assert.equal(FakeWebSocket.made.length, made);
  // Once back, the next 1012 starts a new window.
  t.mock.timers.tick(10_000);
  FakeWebSocket.made.at(-1).fire("open");
  FakeWebSocket.made.at(-1).fire("close", {code: 1012});
  assert.equal(FakeWebSocket.made.length, made + 2);
});

test("a socket refused for good (no such game) does not reconnect", (t) => {
  t.mock.timers.enable({apis: ["setTimeout"]});
  const {statuses, first} = live();
  first.fire("close", {code: 4404});
  t.mock.timers.tick(60_000);
  assert.equal(FakeWebSocket.made.length, 1);
  assert.equal(statuses.at(-1), "closed");
});
