// The waiting room's pure logic: the countdown on the server's clock, and the room's line.
import assert from "node:assert/strict";
import {test} from "node:test";

import {secondsLeft, skewOf, waitingText} from "../../static/js/set/waiting.js";

const waiting = {status: "waiting", starts_at: null, host: "ann", may_start: false, now: 10_000};

test("the skew is the server's clock minus this one", () => {
  assert.equal(skewOf({now: 10_000}, 9_000), 1_000);
  assert.equal(skewOf({}, 9_000), 0);
});

test("the countdown rounds up, stops at zero and runs only once started", () => {
  const counting = {...waiting, starts_at: 13_000};
  assert.equal(secondsLeft(counting, 10_000), 3);
  assert.equal(secondsLeft(counting, 10_001), 3);
  assert.equal(secondsLeft(counting, 12_500), 1);
  assert.equal(secondsLeft(counting, 14_000), 0);
  assert.equal(secondsLeft(waiting, 10_000), null);
  assert.equal(secondsLeft({...counting, status: "active"}, 10_000), null);
});

test("the room says who starts it, or the countdown", () => {
  assert.equal(waitingText(waiting, 10_000), "Waiting for players… ann starts the game.");
  assert.match(waitingText({...waiting, may_start: true}, 10_000), /Press Start/);
  assert.equal(waitingText({...waiting, starts_at: 12_000}, 10_000), "The cards are dealt in 2…");
  assert.equal(waitingText({...waiting, starts_at: 12_000}, 12_000), "Dealing…");
});
