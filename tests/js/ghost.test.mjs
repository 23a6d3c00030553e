// A ghost race's lane, its pure logic: when the race was dealt, and how many of the ghost's sets
// are due by a moment (the times are the server's, from the recording's move log).
import assert from "node:assert/strict";
import {test} from "node:test";

import {ghostFound, raceStart, seconds} from "../../static/js/set/ghost.js";

const ghost = {game: 3, player: "ann", sets: [{at_ms: 3100, cards: []}, {at_ms: 5100, cards: []}]};

test("a race starts at its deal: none while it waits for its Start, the countdown's end once pressed", () => {
  assert.equal(raceStart({ghost, status: "waiting", starts_at: null, started_at: 1000}), null);
  assert.equal(raceStart({ghost, status: "waiting", starts_at: 4000, started_at: 4000}), 4000);
  assert.equal(raceStart({ghost, status: "active", starts_at: 4000, started_at: 4000}), 4000);
  assert.equal(raceStart({status: "active", started_at: 4000}), 4000); // a view pushed without it
});

test("the ghost's sets are due at their recorded times since the deal", () => {
  assert.equal(ghostFound(ghost, 3099), 0);
  assert.equal(ghostFound(ghost, 3100), 1);
  assert.equal(ghostFound(ghost, 60_000), 2);
  assert.equal(seconds(3100), "3.1 s");
  assert.equal(seconds(null), "-");
});
