// A practice table's page state (static/js/set/table-state.js): the clock that leaves pauses
// out, the controls, the paused turn line, hints and "show me" taken from a move's outcome.
import assert from "node:assert/strict";
import {test} from "node:test";

import {
  canPlay,
  controlsOf,
  gameClock,
  initialState,
  receiveOutcome,
  turnText,
} from "../../static/js/set/table-state.js";

const practice = (extra = {}) => ({
  rules: "classic",
  status: "active",
  board: ["1111", "2222", "3333"].map((card) => ({card})),
  scores: {ann: 0},
  players: ["ann"],
  you: "ann",
  seated: true,
  over: false,
  practice: true,
  paused: false,
  may_pause: true,
  elapsed_ms: 61_000,
  now: 1_000_000,
  started_at: 0,
  ...extra,
});

test("the clock runs on from the server's elapsed time, and stands still while paused", () => {
  const running = initialState(practice(), {skew: 0});
  assert.equal(gameClock(running, 1_004_000), "1:05");
  const paused = initialState(practice({paused: true, board: []}), {skew: 0});
  assert.equal(gameClock(paused, 1_004_000), "1:01");
  assert.equal(gameClock(paused, 9_000_000), "1:01");
});

test("while paused nobody plays, and the turn line says why", () => {
  const paused = initialState(practice({paused: true, board: []}));
  assert.equal(canPlay(paused), false);
  assert.match(turnText(paused), /paused.*Ctrl\+Shift\+P/);
  const other = initialState(practice({paused: true, board: [], may_pause: false, you: "bo"}));
  assert.match(turnText(other), /until the host resumes it/);
});

test("the host has Pause (Resume while paused) and everyone Show me", () => {
  const controls = controlsOf(initialState(practice()));
  assert.deepEqual(controls.pause, {hidden: false, text: "Pause", pressed: false});
  assert.equal(controls.show.hidden, false);
  assert.equal(controlsOf(initialState(practice({paused: true}))).pause.text, "Resume");
  assert.equal(controlsOf(initialState(practice({may_pause: false}))).pause.hidden, true);
  assert.equal(controlsOf(initialState(practice({practice: undefined}))).show.hidden, true);
});

test("a hint's and a show me's outcome are drawn at once", () => {
  const state = initialState(practice());
  const hint = {card: "1111", position: 0, cards: [{card: "1111", position: 0}, {card: "2222", position: 1}]};
  const hinted = receiveOutcome(state, {action: "hint", hint, message: "2 of the 3 cards"}).state;
  assert.deepEqual(hinted.view.hint, hint);
  assert.equal(hinted.message.text, "2 of the three cards of a set are highlighted: press Hint for one more.");
  const show = {sets: [[{card: "1111"}, {card: "2222"}, {card: "3333"}]], total: 1};
  const shown = receiveOutcome(state, {action: "show", show, message: "Set 1 of 1"}).state;
  assert.deepEqual(shown.view.show, show);
  assert.equal(shown.message.text, "Set 1 of 1 is marked on the board.");
  const paused = receiveOutcome(state, {action: "pause", paused: true}).state;
  assert.equal(paused.message.text, "The game is paused.");
});
