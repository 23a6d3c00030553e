/* The live connection to a game: one socket client for every page.
 *
 *   const socket = new GameSocket("/ws/games/7/", {
 *     state(message) {...},   // {"type": "state", "version": n, "view": {...}}
 *     result(message) {...},  // {"type": "result", "outcome": {...}, "version": n}
 *     error(message) {...},   // {"type": "error", "detail": "...", "code": "..."}
 *     chat(message) {...},    // {"type": "chat", "id", "name", "text", "at"}
 *     status(state) {...},    // "connecting" | "live" | "reconnecting" | "closed"
 *   });
 *   socket.send({type: "hint"});  // false when not connected (use the HTTP API then)
 *
 * Any other frame goes to the handler named by its type (the lobby's socket, /ws/lobby/, sends
 * "lobby" and "chat" frames, and answers a sync with a "lobby" frame).
 *
 * It reconnects with a growing, jittered delay and asks for a {"type": "sync"} after a
 * reconnection; states older than the last one are dropped; when a result names a version that
 * no state has shown yet (a gap), it asks for a sync unless the state arrives first. A socket
 * closed with 1012 (Service Restart: its server is stopping, config/server.py) reconnects at
 * once, to another server or the same one restarted; should that fail (a lone server not back
 * yet), it tries again at the shortest delay for RESTART_WINDOW_MS before the delays grow.
 */

import {Versions, retryDelay} from "./versions.js";

const STATUS_WORDS = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
  over: "Game over",
};

/** Show a socket's status on a page's badge: its words, and data-state for the style. A game
 * that is `over` says so rather than "Live" (its socket still brings a late state). */
export function showStatus(badge, state, {over = false} = {}) {
  const shown = over && state === "live" ? "over" : state;
  badge.textContent = STATUS_WORDS[shown] || shown;
  badge.dataset.state = shown;
}

/** The close codes after which the socket gives up: no such game (4404), another game's seat
 * (4403). */
export const FINAL_CLOSES = new Set([4404, 4403]);
/** The close code of a server that stops (RFC 6455: Service Restart): reconnect at once. */
export const SERVICE_RESTART = 1012;

/** What a socket does once closed with `code`: "stop", reconnect "now", or "later" (after the
 * growing delay). */
export function afterClose(code) {
  if (FINAL_CLOSES.has(code)) return "stop";
  return code === SERVICE_RESTART ? "now" : "later";
}

/** How long after a 1012 the socket keeps trying at the shortest delay: a server restarting
 * alone is back within seconds. */
export const RESTART_WINDOW_MS = 15000;

/** How long a result's state may lag behind it before the page asks for a sync. */
export const GAP_WAIT_MS = 1200;

export class GameSocket {
  constructor(path, handlers = {}) {
    this.path = path;
    this.handlers = handlers;
    this.versions = new Versions();
    this.attempts = 0;
    this.everOpen = false;
    this.stopped = false;
    this.gapTimer = null;
    this.retryTimer = null;
    this.restartingUntil = 0; // after a 1012, until then: retry at the shortest delay
    this.ws = null;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.sync();
    });
    window.addEventListener("online", () => this.reconnectNow());
    this.open();
  }

  url() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + window.location.host + this.path;
  }

  emit(name, value) {
    if (this.handlers[name]) this.handlers[name](value);
  }

  open() {
    if (this.stopped) return;
    this.emit("status", this.everOpen ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      const again = this.everOpen;
      this.everOpen = true;
      this.attempts = 0;
      this.restartingUntil = 0;
      this.emit("status", "live");
      // The server sends the state on connect; a reconnection asks again in case of a race.
      if (again) this.sync();
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.receive(message);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      const next = afterClose(event.code);
      if (next === "stop") {
        this.stopped = true;
        this.emit("status", "closed");
        return;
      }
      if (next === "now") {
        this.attempts = 0;
        this.restartingUntil = Date.now() + RESTART_WINDOW_MS;
        this.open();
        return;
      }
      this.retry();
    });
  }

  retry() {
    if (this.stopped) return;
    this.emit("status", "reconnecting");
    let delay;
    if (Date.now() < this.restartingUntil) {
      delay = retryDelay(0); // a server restarting: back any moment
    } else {
      delay = retryDelay(this.attempts);
      this.attempts += 1;
    }
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  /** Drop the connection and open a new one at once (after joining, or back online). */
  reconnectNow() {
    clearTimeout(this.retryTimer);
    const ws = this.ws;
    this.ws = null;
    this.attempts = 0;
    if (ws) {
      try {
        ws.close();
      } catch {
        /* already closed */
      }
    }
    this.stopped = false;
    this.open();
  }

  receive(message) {
    if (message.type === "state") {
      if (!this.versions.takeState(message.version)) return;
      clearTimeout(this.gapTimer);
      this.emit("state", message);
    } else if (message.type === "result") {
      this.emit("result", message);
      this.expect(message.version);
    } else if (message.type === "error") {
      this.emit("error", message);
    } else if (message.type === "rematch") {
      this.emit("rematch", message); // a finished game is being played again
    } else if (typeof message.type === "string" && message.type !== "status") {
      // Any other frame goes to the handler of its type: the lobby's "lobby" and "chat".
      this.emit(message.type, message);
    }
  }

  /** A version no state has shown: the state normally follows at once; if not, sync. */
  expect(version) {
    if (!this.versions.isGap(version)) return;
    clearTimeout(this.gapTimer);
    this.gapTimer = setTimeout(() => {
      if (this.versions.isGap(version)) this.sync();
    }, GAP_WAIT_MS);
  }

  sync() {
    return this.send({type: "sync"});
  }

  isOpen() {
    return !!(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  send(data) {
    if (!this.isOpen()) return false;
    this.ws.send(JSON.stringify(data));
    return true;
  }
}
