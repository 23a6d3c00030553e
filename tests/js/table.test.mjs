// The Set table page's state (static/js/set/table-state.js): pure, under Node's test runner.
import assert from "node:assert/strict";
import {test} from "node:test";

import {
  badgesOf,
  chooseCard,
  controlsOf,
  countText,
  gameClock,
  hintNeedsAsking,
  initialState,
  nextGameOffer,
  raceStatus,
  raceTime,
  receiveError,
  receiveOutcome,
  receiveView,
  resultText,
  statusOf,
  turnText,
  waitingRoom,
} from "../../static/js/set/table-state.js";

const cell = (card) => ({card});
const classic = (extra = {}) => ({
  rules: "classic",
  board: ["1111", "2222", "3333", "1231"].map(cell),
  scores: {ann: 0, ben: 0},
  players: ["ann", "ben"],
  you: "ann",
  seated: true,
  over: false,
  deck_left: 69,
  ...extra,
});

test("a first load, a reload and a pushed view make the same state from the same view", () => {
  const view = classic();
  const loaded = initialState(view);
  const pushed = receiveView(initialState(classic({board: []})), view).state;
  assert.deepEqual(turnText(loaded), turnText(pushed));
  assert.deepEqual(controlsOf(loaded), controlsOf(pushed));
  assert.equal(turnText(loaded), "Find a set: select three cards.");
});

test("a view from before contract A reads as active or over; the contract's status wins", () => {
  assert.equal(statusOf({over: false}), "active");
  assert.equal(statusOf({over: true}), "over");
  assert.equal(statusOf({status: "waiting", over: false}), "waiting");
});

test("three cards chosen make a claim; the selection empties and the claim is pending", () => {
  let state = initialState(classic());
  ({state} = chooseCard(state, "1111"));
  ({state} = chooseCard(state, "2222"));
  assert.equal(turnText(state), "Find a set: select three cards. (2 of 3 selected)");
  const {state: after, claim} = chooseCard(state, "3333");
  assert.deepEqual(claim, ["1111", "2222", "3333"]);
  assert.deepEqual(after.selection, []);
  assert.equal(turnText(after), "Checking your set…");
  // A card chosen twice is put back.
  const {state: back} = chooseCard(state, "2222");
  assert.deepEqual(back.selection, ["1111"]);
});

test("a locked-out player's choice says why and chooses nothing", () => {
  const state = initialState(classic({locked_out: true}));
  const {state: after, claim} = chooseCard(state, "1111", 1000);
  assert.equal(claim, null);
  assert.deepEqual(after.selection, []);
  assert.match(after.message.text, /locked out/);
  assert.equal(after.message.tone, "bad");
});

test("a pushed view tells the cards dealt and taken, and keeps only chosen cards still there", () => {
  let state = initialState(classic());
  ({state} = chooseCard(state, "1231"));
  const view = classic({board: ["1111", "2222", "3333", "2121"].map(cell), scores: {ann: 0, ben: 1}});
  const got = receiveView(state, view, 5000);
  assert.deepEqual(got.fresh, ["2121"]);
  assert.deepEqual(got.taken, ["1231"]);
  assert.equal(got.scored, true);
  assert.deepEqual(got.state.selection, []);
  assert.deepEqual(got.news, ["ben found a set."]);
  assert.equal(got.state.message.text, "ben found a set.");
});

test("the deal after a wait tells nobody 'joined' again", () => {
  const waiting = initialState(classic({status: "waiting", board: []}));
  const got = receiveView(waiting, classic({status: "active"}));
  assert.deepEqual(got.news, []);
});

test("a wrong claim says why, attribute by attribute, when the server sends why", () => {
  const state = initialState(classic());
  const {state: after, sound} = receiveOutcome(
    {...state, pending: ["1111", "2222", "1231"]},
    {action: "claim", claim: "not_set", locked_out: true, why: ["color: red, red, green — two alike, one different"]},
  );
  assert.equal(sound, true);
  assert.equal(after.pending, null);
  assert.equal(
    after.message.text,
    "Not a set. Color: red, red, green — two alike, one different. You are locked out until another player scores.",
  );
});

test("an error goes beside the control that caused it; a move's error under the board", () => {
  const state = initialState(classic());
  const joined = receiveError(state, "The name 'Zoë' is taken at this game.", "join");
  assert.equal(joined.errors.join, "The name 'Zoë' is taken at this game.");
  assert.equal(joined.message, null);
  const moved = receiveError({...state, pending: ["1111"]}, "Not your turn.", "board");
  assert.equal(moved.message.text, "Not your turn.");
  assert.equal(moved.pending, null);
});

test("the game clock runs from the deal on the server's clock and stops at the end", () => {
  const started = 1_000_000;
  const active = initialState(classic({started_at: started}), {skew: 2000});
  assert.equal(gameClock(active, started + 63_000 - 2000), "1:03");
  const over = initialState(classic({started_at: started, ended_at: started + 125_000, over: true, status: "over"}));
  assert.equal(gameClock(over, started + 999_000), "2:05");
  // Before contract A: the page's start time and the result's end.
  const old = initialState(classic({over: true, result: {ended_ms: started + 5000}}));
  assert.equal(gameClock(old, started + 50_000, started), "0:05");
  // No clock while the cards are not dealt.
  assert.equal(gameClock(initialState(classic({status: "waiting"})), started), "");
});

test("the waiting room: who may start, and a countdown on the server's clock", () => {
  const view = classic({status: "waiting", board: [], host: "ann", may_start: true, starts_at: null});
  let room = waitingRoom(initialState(view), 0);
  assert.equal(room.waiting, true);
  assert.equal(room.mayStart, true);
  assert.deepEqual(room.names, ["ann", "ben"]);
  assert.match(room.text, /Press Start/);
  room = waitingRoom(initialState({...view, you: "ben", may_start: false}), 0);
  assert.equal(room.mayStart, false);
  assert.equal(room.text, "Waiting for players… ann starts the game.");
  room = waitingRoom(initialState({...view, players: ["ann"]}), 0);
  assert.match(room.text, /Invite a friend/);
  // Start pressed: 3 s to go on the server's clock (the browser's is 1 s behind).
  const counting = initialState({...view, starts_at: 10_000}, {skew: 1000});
  room = waitingRoom(counting, 6_500);
  assert.equal(room.countdown, 3);
  assert.equal(room.mayStart, false);
  assert.equal(room.text, "The cards are dealt in 3…");
  assert.equal(turnText(counting), "");
  assert.equal(turnText({...counting, view: {...counting.view, you: null, seated: false}}), "You are watching: the game has not started yet.");
  assert.equal(controlsOf(counting).hidden, true);
  assert.equal(waitingRoom(initialState(classic()), 0).waiting, false);
});

test("badges: the host while waiting, a locked-out player, BOT, and presence for people only", () => {
  const state = {
    ...initialState(classic({status: "waiting", host: "ann", locked: ["ben"]})),
    computers: ["Computer1"],
    bots: ["Computer1", "setbot"],
  };
  assert.deepEqual(badgesOf(state, "ann", () => "here"), ["you", "host", "here"]);
  assert.deepEqual(badgesOf(state, "ben"), ["locked out"]);
  assert.deepEqual(badgesOf(state, "Computer1", () => "away"), ["BOT", "computer"]);
  assert.deepEqual(badgesOf(state, "setbot", () => "here"), ["BOT", "here"]);
});

test("a rated table asks before the first hint; an unrated one does not", () => {
  const state = initialState(classic());
  assert.equal(hintNeedsAsking(state, true), true);
  assert.equal(hintNeedsAsking({...state, hintOk: true}, true), false);
  assert.equal(hintNeedsAsking(state, false), false);
  assert.equal(hintNeedsAsking(initialState(classic({rated: false})), true), false);
});

test("a rematch offers a spectator to watch or join the next game, a player to play again", () => {
  const watcher = initialState(classic({you: null, seated: false, over: true}));
  const offer = nextGameOffer({...watcher, next: {url: "/play/9/?key=abc", by: "ann"}});
  assert.equal(offer.watch, "/play/9/?key=abc");
  assert.equal(offer.join, "/play/9/?key=abc&join=1");
  assert.equal(offer.text, "ann started a new game of this table.");
  const player = initialState(classic({over: true}));
  const told = nextGameOffer({...player, next: {url: "/play/9/", by: "ben"}});
  assert.equal(told.watch, null);
  assert.match(told.text, /ben wants to play again/);
  assert.equal(nextGameOffer(player), null);
});

test("the result says who won, with the scores ranked", () => {
  const view = classic({over: true, status: "over", result: {scores: {ann: 3, ben: 5}, winners: ["ben"]}});
  assert.equal(resultText(initialState(view)).text, "Winner: ben. Scores: ben 5, ann 3.");
  const won = classic({over: true, result: {scores: {ann: 5, ben: 5}, winners: ["ann", "ben"]}});
  assert.equal(resultText(initialState(won)).text, "You share the win with ben! Scores: ann 5, ben 5.");
});

test("a view that carries the server's now sets the clock's skew; one without keeps it", () => {
  const state = initialState(classic(), {skew: 500});
  assert.equal(receiveView(state, classic({now: 10_000}), 9_000).state.skew, 1000);
  assert.equal(receiveView(state, classic(), 9_000).state.skew, 500);
});

test("a race's head counts its sets, and its result says the time or who won the tie", () => {
  const race = (extra) => ({target: 10, found: 10, sets: [], elapsed_ms: 41_320, ...extra});
  const alone = classic({
    over: true,
    status: "over",
    scores: {ann: 10},
    result: {scores: {ann: 10}, winners: ["ann"]},
    race: race({players: {ann: {sets: 10, last_ms: 41_320}}, result: {finished: true, ms: 41_320, winner: "ann", order: ["ann"]}}),
  });
  assert.equal(raceStatus(alone), "Set-10 race: 10 of 10");
  const told = resultText(initialState(alone), {origin: "https://set.example"});
  assert.equal(told.text, "You found 10 sets in 41.32 s.");
  assert.equal(told.share, "Set-10 race: 10 sets in 41.32 s https://set.example/races/");
  const tie = classic({
    over: true,
    status: "over",
    you: "ben",
    result: {scores: {ann: 5, ben: 5}, winners: ["ann"]},
    race: race({
      players: {ann: {sets: 5, last_ms: 9000}, ben: {sets: 5, last_ms: 10_000}},
      result: {finished: true, ms: 10_000, winner: "ann", order: ["ann", "ben"]},
    }),
  });
  assert.equal(
    resultText(initialState(tie)).text,
    "ann won the race. 10 sets in 10.00 s. Sets: ann 5 (last at 9.00 s), ben 5 (last at 10.00 s).",
  );
  assert.equal(raceTime(83_456), "1:23.46");
  assert.equal(raceStatus(classic()), "");
});

test("a table of another mode says what to look for in the server's words, six cards a claim", () => {
  const words = {one: "ghostset", a: "a ghostset", many: "ghostsets", cards: "six"};
  const view = classic({mode: "ghostset", claim_size: 6, claim_words: words,
    prompt: "Find a ghostset: select six cards, three pairs whose third cards form a set."});
  let state = initialState(view);
  assert.equal(turnText(state), view.prompt);
  for (const card of ["1111", "2222", "3333", "1231", "1112"]) state = chooseCard(state, card).state;
  assert.equal(turnText(state), `${view.prompt} (5 of 6 selected)`);
  const {claim} = chooseCard(state, "1113");
  assert.equal(claim.length, 6);
  assert.equal(countText(2, view), "There are 2 ghostsets on the board.");
  // Any puzzle (it lists its claims found) counts those still to find.
  const puzzle = classic({mode: "deckpuzzle", found: [], claim_words: {one: "set", a: "a set", many: "sets", cards: "three"}});
  assert.equal(countText(1, puzzle), "There is 1 set still to find.");
});
