// Memory on the Set table page (static/js/set/table-state.js): the cards a browser turns up.
import assert from "node:assert/strict";
import {test} from "node:test";

import {back} from "../../static/js/lib/cards.js";
import {
  chooseFaceDown,
  initialState,
  memoryClaim,
  receiveError,
  receiveOutcome,
  receiveView,
  shownView,
} from "../../static/js/set/table-state.js";

const memory = (extra = {}) => ({
  rules: "classic",
  mode: "memory",
  face_down: true,
  claim_size: 3,
  board: Array.from({length: 21}, (_, i) => ({position: i, row: i % 3, col: Math.floor(i / 3), face_down: true})),
  scores: {ann: 0, ben: 0},
  players: ["ann", "ben"],
  you: "ann",
  seated: true,
  over: false,
  ...extra,
});

function turnUp(state, position, card) {
  const chosen = chooseFaceDown(state, position);
  assert.equal(chosen.reveal, position);
  return receiveOutcome(chosen.state, {action: "reveal", position, card}).state;
}

test("a face-down board shows places, and the cards this browser turned up", () => {
  let state = initialState(memory());
  assert.equal(shownView(state).board[4].card, "#4");
  assert.equal(shownView(state).board[4].face_down, true);
  state = turnUp(state, 4, "ONE/RED/SOLID/OVAL");
  assert.equal(shownView(state).board[4].card, "ONE/RED/SOLID/OVAL");
  assert.equal(shownView(state).board[4].face_down, false);
  assert.equal(shownView(state).board[5].face_down, true);
});

test("a card turned up cannot be turned down, and the third card makes the claim", () => {
  let state = initialState(memory());
  state = turnUp(state, 0, "A");
  assert.equal(chooseFaceDown(state, 0).reveal, null);
  state = turnUp(state, 1, "B");
  assert.equal(memoryClaim(state), null);
  state = turnUp(state, 2, "C");
  assert.deepEqual(memoryClaim(state), [0, 1, 2]);
});

test("a refused claim stays face up until the next click, which starts anew with its card", () => {
  let state = initialState(memory());
  for (const [p, c] of [[0, "A"], [1, "B"], [2, "C"]]) state = turnUp(state, p, c);
  state = {...state, pending: memoryClaim(state)};
  state = receiveError(state, "Not a Set");
  assert.equal(state.refused, true);
  assert.equal(state.revealed.length, 3);
  assert.equal(state.message.text, "Not a Set");
  assert.equal(memoryClaim(state), null);
  const next = chooseFaceDown(state, 1);
  assert.equal(next.reveal, 1);
  assert.deepEqual(next.state.revealed, []);
  assert.equal(next.state.refused, false);
});

test("a set scored is not claimed again when its result comes before the state", () => {
  let state = initialState(memory());
  for (const [p, c] of [[0, "A"], [1, "B"], [2, "C"]]) state = turnUp(state, p, c);
  state = {...state, pending: memoryClaim(state)};
  state = receiveOutcome(state, {action: "claim", claim: "set", score: 1}).state;
  assert.equal(memoryClaim(state), null);
  assert.deepEqual(state.revealed, []);
  assert.equal(state.message.text, "Set! You have 1 set.");
});

test("any claim by anyone turns every browser's cards down again", () => {
  let state = initialState(memory());
  state = turnUp(state, 7, "A");
  const after = receiveView(state, memory({scores: {ann: 0, ben: 1}})).state;
  assert.deepEqual(after.revealed, []);
  const quiet = receiveView(state, memory()).state;
  assert.equal(quiet.revealed.length, 1);
});

test("a finished game's board is shown as the server sends it", () => {
  const view = memory({over: true, face_down: false, board: [{position: 0, card: "X"}]});
  assert.equal(shownView(initialState(view)).board[0].card, "X");
});

test("a card's back is drawn, with its key", () => {
  const drawn = back({label: "Q"});
  assert.match(drawn, /card-back/);
  assert.match(drawn, /aria-label="a card face down"/);
  assert.match(drawn, />Q<\/text>/);
});

test("a hinted card lies face up for its player", () => {
  const state = initialState(memory({hint: {card: "TWO/RED/SOLID/OVAL", position: 6}}));
  assert.equal(shownView(state).board[6].card, "TWO/RED/SOLID/OVAL");
  assert.equal(shownView(state).board[6].face_down, false);
});
