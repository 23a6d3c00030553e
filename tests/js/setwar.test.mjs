// The Set War page's pure logic (static/js/setwar/), under Node's built-in test runner.
import assert from "node:assert/strict";
import {test} from "node:test";

import {keyAction, speedAt, speedLabel, toggleWords} from "../../static/js/setwar/controls.js";
import {newGameRequest} from "../../static/js/setwar/form.js";
import {RoundBook, aheadOf, clampStep, pageStart} from "../../static/js/setwar/rounds.js";
import {
  describe,
  idleText,
  lineCount,
  pileWidth,
  playerBadges,
  stepLabel,
  summaryLine,
} from "../../static/js/setwar/story.js";

// The assignment's sample game, as the API sums it up (trimmed to what the page reads).
const SAMPLE = {
  id: 7,
  players: 4,
  seed: 5,
  shuffled: false,
  deck: Array.from({length: 81}, (_, i) => String(i)),
  dealt: [21, 20, 20, 20],
  rounds: 110,
  winner: 1,
  draw: false,
  final_line: "Player 1 won in 110 rounds.",
};

function roundsFrom(start, limit, total) {
  const rounds = [];
  for (let n = start + 1; n <= Math.min(total, start + limit); n++) {
    rounds.push({number: n, plays: [], taker: 0, piles: [1], set_cards: null, out: []});
  }
  return rounds;
}

/** A loader that answers like lib/api.js's request and remembers what it was asked. */
function loader(total, {failFirst = false} = {}) {
  const asked = [];
  let failures = failFirst ? 1 : 0;
  const load = async (start, limit) => {
    asked.push(start);
    if (failures > 0) {
      failures -= 1;
      return {ok: false, status: 0, data: {}, detail: "The server cannot be reached.", fields: {}};
    }
    return {ok: true, status: 200, data: {rounds: roundsFrom(start, limit, total)}, detail: ""};
  };
  return {asked, load};
}

test("the page holding round N starts at the page boundary below it; the deal needs none", () => {
  assert.equal(pageStart(0, 500), null);
  assert.equal(pageStart(1, 500), 0);
  assert.equal(pageStart(500, 500), 0);
  assert.equal(pageStart(501, 500), 500);
  assert.equal(pageStart(10000, 500), 9500);
});

test("steps stay within the game, and the round fetched ahead stops at its last", () => {
  assert.equal(clampStep(-1, 110), 0);
  assert.equal(clampStep(111, 110), 110);
  assert.equal(clampStep(40, 110), 40);
  assert.equal(aheadOf(449, 10000), 499);
  assert.equal(aheadOf(460, 10000), 510);
  assert.equal(aheadOf(100, 110), 110);
});

test("a 10000-round game fetches one page to open, the next only near its end", async () => {
  const {asked, load} = loader(10000);
  const book = new RoundBook({total: 10000, size: 500, load});
  assert.equal(await book.prefetch(0), "");
  assert.deepEqual(asked, [0]);
  assert.equal(await book.ensure(300), "");
  assert.equal(await book.prefetch(300), "");
  assert.deepEqual(asked, [0], "round 350 is on the page already held");
  assert.equal(await book.prefetch(460), "");
  assert.deepEqual(asked, [0, 500]);
  assert.equal(book.round(510).number, 510);
  assert.equal(await book.ensure(9999), "");
  assert.deepEqual(asked, [0, 500, 9500]);
});

test("a page asked for twice at once is fetched once", async () => {
  const {asked, load} = loader(110);
  const book = new RoundBook({total: 110, size: 500, load});
  await Promise.all([book.ensure(3), book.ensure(4), book.prefetch(0)]);
  assert.deepEqual(asked, [0]);
  assert.equal(book.has(0), true);
  assert.equal(book.has(110), true);
  assert.equal(book.round(0), null);
});

test("a failed page says why and is asked for again at the next step", async () => {
  const {asked, load} = loader(110, {failFirst: true});
  const book = new RoundBook({total: 110, size: 500, load});
  assert.equal(await book.ensure(1), "The server cannot be reached.");
  assert.equal(book.has(1), false);
  assert.equal(await book.ensure(2), "");
  assert.deepEqual(asked, [0, 0]);
  assert.equal(book.has(1), true);
});

test("the summary says who played, how the deck was dealt and for how long", () => {
  assert.equal(summaryLine(SAMPLE), "4 players · 81 cards as entered · 110 rounds");
  const shuffled = {...SAMPLE, players: 1, shuffled: true, seed: 7, rounds: 1};
  assert.equal(summaryLine(shuffled), "1 player · 81 cards shuffled with seed 7 · 1 round");
  assert.equal(stepLabel(0, SAMPLE), "The deal (110 rounds to play)");
  assert.equal(stepLabel(3, SAMPLE), "Round 3 of 110");
});

test("the deal and each kind of round are told in words", () => {
  assert.equal(describe(null, SAMPLE), "The cards are dealt to 4 players. Player 0 starts.");
  assert.equal(describe(null, {...SAMPLE, dealt: [81]}), "Player 0 is dealt every card.");
  const won = {
    number: 4,
    plays: [
      {player: 0, card: "0000"},
      {player: 1, card: "1111"},
      {player: 2, card: "2222"},
    ],
    taker: 2,
    piles: [9, 0, 30],
    set_cards: ["0000", "1111"],
    out: [1],
  };
  assert.equal(
    describe(won, SAMPLE),
    "Player 2 plays 2222, which makes a set with 0000 and 1111, and takes the line (3 cards). " +
      "Out this round: Player 1.",
  );
  const lastAllowed = {...won, number: 110, out: []};
  assert.match(describe(lastAllowed, {...SAMPLE, draw: true}), /the game is a draw\.$/);
  const eliminated = {...won, taker: 0, set_cards: null, plays: won.plays.slice(0, 2)};
  assert.equal(
    describe(eliminated, SAMPLE),
    "Player 1 plays their last card without a set and is out. Player 0, the only one left " +
      "holding cards, takes the line (2 cards).",
  );
  const alone = {number: 1, plays: [], taker: 0, piles: [81], set_cards: null, out: []};
  assert.equal(
    describe(alone, SAMPLE),
    "Player 0 holds every card and wins without a card being played.",
  );
  assert.equal(lineCount(null), "");
  assert.equal(lineCount(won), "(3 cards)");
});

test("players dealt no card are named, one or a range", () => {
  assert.equal(idleText([1, 1], 2), "");
  assert.equal(
    idleText([1, 1], 3),
    "Player 2 is dealt no card: there are more players than cards.",
  );
  assert.equal(
    idleText([1, 1], 5),
    "Players 2 to 4 are dealt no card: there are more players than cards.",
  );
});

test("badges: the winner at the end, else who took the line; out this round, else out", () => {
  const round = {number: 110, taker: 1, out: [2]};
  assert.deepEqual(playerBadges(1, 81, round, SAMPLE, true), [["winner", "winner"]]);
  assert.deepEqual(playerBadges(1, 81, round, SAMPLE, false), [["took the line", "taker"]]);
  assert.deepEqual(playerBadges(2, 0, round, SAMPLE, true), [["out this round", "out"]]);
  assert.deepEqual(playerBadges(3, 0, round, SAMPLE, true), [["out", "gone"]]);
  assert.deepEqual(playerBadges(0, 20, null, SAMPLE, false), []);
  assert.equal(pileWidth(27, 81), "33.3%");
  assert.equal(pileWidth(0, 0), "0.0%");
});

test("the speed slider's stops read as rounds per second", () => {
  assert.equal(speedAt("0"), 0.5);
  assert.equal(speedAt(10), 100);
  assert.equal(speedAt("99"), 2);
  assert.equal(speedLabel(1), "1 round/s");
  assert.equal(speedLabel(0.5), "0.5 rounds/s");
  assert.equal(speedLabel(100), "100 rounds/s");
  assert.deepEqual(toggleWords(true, false), {text: "\u2759\u2759 Pause", label: "Pause"});
  assert.equal(toggleWords(false, true).label, "Play again");
  assert.equal(toggleWords(false, false).label, "Play");
});

test("keys play, step, go back and jump, but never while typing in the form", () => {
  const press = (key, tag = "BODY", type = undefined, extra = {}) =>
    keyAction({key, tag, type, ...extra});
  assert.equal(press(" "), "toggle");
  assert.equal(press("ArrowRight"), "step");
  assert.equal(press("ArrowLeft"), "back");
  assert.equal(press("End"), "end");
  assert.equal(press("x"), null);
  assert.equal(press("ArrowRight", "BODY", undefined, {ctrlKey: true}), null);
  assert.equal(press("ArrowRight", "TEXTAREA"), null);
  assert.equal(press(" ", "INPUT", "text"), null);
  assert.equal(press(" ", "BUTTON"), null, "Space presses the button itself");
  assert.equal(press("ArrowRight", "BUTTON"), "step");
  assert.equal(press(" ", "INPUT", "range"), "toggle");
  assert.equal(press("End", "INPUT", "range"), null, "on a slider End moves the slider");
});

test("the form sends what was typed, and says first what it cannot send", () => {
  const form = {players: " 4 ", playersUnreadable: false, cards: "0000 1111", seed: " 12 "};
  assert.deepEqual(newGameRequest(form, true), {body: {players: "4", cards: "0000 1111"}});
  assert.deepEqual(newGameRequest(form, false), {body: {players: "4", seed: 12}});
  assert.deepEqual(newGameRequest({...form, seed: ""}, false), {body: {players: "4"}});
  assert.deepEqual(newGameRequest({...form, players: ""}, true), {
    error: "How many players? Give a whole number from 1 to 1,000,000.",
    field: "players",
  });
  assert.equal(
    newGameRequest({...form, players: "", playersUnreadable: true}, true).error,
    "The number of players is not a whole number: give one from 1 to 1,000,000.",
  );
  // The server judges counts and cards; the page does not say them a second time.
  assert.deepEqual(newGameRequest({...form, players: "0", cards: "0003"}, true), {
    body: {players: "0", cards: "0003"},
  });
  for (const seed of ["-1", "1.5", "abc", "9007199254740992"]) {
    assert.equal(newGameRequest({...form, seed}, false).field, "seed", seed);
  }
  assert.deepEqual(newGameRequest({...form, seed: "9007199254740991"}, false).body, {
    players: "4",
    seed: 9007199254740991,
  });
});
