// The browser modules' pure logic, under Node's built-in test runner (`make test` runs it).
import assert from "node:assert/strict";
import {test} from "node:test";

import {cells} from "../../static/js/lib/board.js";
import {deck, escapeXml, parts, svg} from "../../static/js/lib/cards.js";
import {clock, listed, plural} from "../../static/js/lib/format.js";
import {ranked} from "../../static/js/lib/scores.js";
import {Versions, retryDelay} from "../../static/js/lib/versions.js";

test("a state older than the one shown is dropped; the same or newer is shown", () => {
  const versions = new Versions();
  assert.equal(versions.takeState(3), true);
  assert.equal(versions.takeState(2), false);
  assert.equal(versions.takeState(3), true);
  assert.equal(versions.takeState(5), true);
  assert.equal(versions.shown, 5);
});

test("a result past the state shown is a gap; one at or before it is not", () => {
  const versions = new Versions(4);
  assert.equal(versions.isGap(5), true);
  assert.equal(versions.isGap(4), false);
  assert.equal(versions.isGap(1), false);
  assert.equal(versions.isGap(undefined), false);
  versions.takeState(5);
  assert.equal(versions.isGap(5), false);
});

test("reconnection delays grow, stay jittered within half to all of a step, and are capped", () => {
  assert.equal(retryDelay(0, () => 0), 250);
  assert.equal(retryDelay(0, () => 1), 500);
  assert.equal(retryDelay(3, () => 1), 4000);
  assert.equal(retryDelay(30, () => 1), 10000);
  assert.equal(retryDelay(30, () => 0), 5000);
});

test("durations read m:ss and never go negative", () => {
  assert.equal(clock(0), "0:00");
  assert.equal(clock(61_999), "1:01");
  assert.equal(clock(600_000), "10:00");
  assert.equal(clock(-5), "0:00");
});

test("words agree with their count and lists read as English", () => {
  assert.equal(plural(1, "set", "sets"), "1 set");
  assert.equal(plural(0, "set", "sets"), "0 sets");
  assert.equal(listed(["ann"]), "ann");
  assert.equal(listed(["ann", "bob"]), "ann and bob");
  assert.equal(listed(["ann", "bob", "cy"]), "ann, bob and cy");
});

test("scores rank the most points first and break ties by name, on every page alike", () => {
  assert.deepEqual(ranked({cy: 2, bob: 5, ann: 2, dee: 0}), ["bob", "ann", "cy", "dee"]);
  assert.deepEqual(ranked({}), []);
});

test("a card's digits give its attributes; a 3-digit card has squiggles and no border", () => {
  assert.deepEqual(parts("1201"), {number: 1, color: 2, shading: 0, shape: 1, border: null});
  assert.deepEqual(parts("000"), {number: 0, color: 0, shading: 0, shape: 1, border: null});
  assert.equal(parts("22222").border, 2);
  assert.throws(() => parts("TWO/RED"), /not a card's digits/);
  assert.throws(() => parts("0004"), /not a card's digits/);
  assert.throws(() => parts("00003"), /not a card's digits/);
  // The 4Set decks' fourth values: four symbols, orange, checkered, the hourglass.
  assert.deepEqual(parts("3333"), {number: 3, color: 3, shading: 3, shape: 3, border: null});
  assert.deepEqual(parts("333"), {number: 3, color: 3, shading: 3, shape: 1, border: null});
});

test("a card is drawn with as many symbols as its number and named by the server's phrase", () => {
  const drawn = svg({digits: "2010", phrase: "three green solid <diamonds>"});
  assert.equal(drawn.match(/<path transform/g).length, 3);
  assert.match(drawn, /aria-label="three green solid &lt;diamonds>"/);
  assert.doesNotMatch(drawn, /cb-mark/);
  const marked = svg({digits: "00012", phrase: "x"}, {colorBlind: true, label: "q"});
  assert.equal(marked.match(/cb-mark/g).length, 2);
  assert.match(marked, />q<\/text>/);
  assert.equal(escapeXml('<a href="x">&'), '&lt;a href=&quot;x&quot;>&amp;');
});

test("a 4Set card is drawn with four smaller hourglasses, checkered, in orange, with a cross", () => {
  const drawn = svg({digits: "3333", phrase: "four orange checkered hourglasses"}, {colorBlind: true});
  assert.equal(drawn.match(/<path transform/g).length, 4);
  assert.match(drawn, /scale\(0\.7\)/);
  assert.match(drawn, /d="M6 5 H94 L58 25/);
  assert.match(drawn, /fill="url\(#sc\d+c\)"/);
  assert.match(drawn, /<pattern id="sc\d+c"/);
  assert.match(drawn, /stroke="#ef9200"/);
  assert.match(drawn, /M9 3 H15 V9/);
  // A classic card defines no checkered pattern.
  assert.doesNotMatch(svg({digits: "2222", phrase: "x"}), /sc\d+c"/);
});

test("the deck lookup answers the server's table and a stand-in for an unknown text", () => {
  const card = deck({"ONE/RED/SOLID/OVAL": ["0002", "one red solid oval"]});
  assert.deepEqual(card("ONE/RED/SOLID/OVAL"), {
    text: "ONE/RED/SOLID/OVAL",
    digits: "0002",
    phrase: "one red solid oval",
  });
  assert.deepEqual(card("junk"), {text: "junk", digits: null, phrase: "junk"});
});

const KEYBOARD = {
  codes: [
    ["Digit1", "Digit2", "Digit3", "Digit4", "Digit5", "Digit6"],
    ["KeyQ", "KeyW", "KeyE", "KeyR", "KeyT", "KeyY"],
    ["KeyA", "KeyS", "KeyD", "KeyF", "KeyG", "KeyH"],
    ["KeyZ", "KeyX", "KeyC", "KeyV", "KeyB", "KeyN"],
  ],
  labels: ["123456", "qwerty", "asdfgh", "zxcvbn"],
};

test("board keys mirror the board: a row of cards on a row of keys", () => {
  const flat = {board: ["a", "b", "c", "d", "e", "f"].map((card) => ({card}))};
  const list = cells(flat, KEYBOARD);
  assert.deepEqual(
    list.map((cell) => [cell.card, cell.row, cell.col, cell.key, cell.code]),
    [
      ["a", 0, 0, "1", "Digit1"],
      ["b", 1, 0, "q", "KeyQ"],
      ["c", 2, 0, "a", "KeyA"],
      ["d", 0, 1, "2", "Digit2"],
      ["e", 1, 1, "w", "KeyW"],
      ["f", 2, 1, "s", "KeyS"],
    ],
  );
  const rows = {board: [[{card: "a"}, {card: "b", picked: true}], [{card: "c"}, {card: "d"}], [{card: "e"}, {card: "f"}]]};
  const declared = cells(rows, KEYBOARD);
  assert.deepEqual(declared.map((cell) => cell.card), ["a", "c", "e", "b", "d", "f"]);
  assert.deepEqual(declared.map((cell) => cell.key).join(""), "1qa2ws");
  assert.deepEqual(declared[3].pos, [0, 1]);
  assert.equal(declared[3].picked, true);
  assert.equal(cells({board: [{card: "a"}]}, {}).at(0).key, "");
});

test("a turned board's keys mirror it too, and rows past the fourth go on to the right", () => {
  // 18 cards: 6 columns of 3, drawn on a phone as 6 rows of 3.
  const board = {board: Array.from({length: 18}, (_, i) => ({card: `c${i}`}))};
  const list = cells(board, KEYBOARD, {narrow: true});
  const seen = (n) => list.find((cell) => cell.card === `c${n}`).key;
  // c0, c1, c2 are the first column of the board: the first row seen.
  assert.deepEqual([seen(0), seen(1), seen(2)], ["1", "2", "3"]);
  assert.deepEqual([seen(3), seen(4), seen(5)], ["q", "w", "e"]);
  assert.deepEqual([seen(9), seen(10), seen(11)], ["z", "x", "c"]);
  assert.deepEqual([seen(12), seen(13), seen(14)], ["4", "5", "6"]); // the fifth row
  assert.deepEqual([seen(15), seen(16), seen(17)], ["r", "t", "y"]);
  assert.equal(new Set(list.map((cell) => cell.code)).size, 18); // every card its own key
});

test("a layout names the same places: AZERTY's second row starts with A", () => {
  const azerty = {...KEYBOARD, labels: ["123456", "azerty", "qsdfgh", "wxcvbn"]};
  const list = cells({board: ["a", "b", "c"].map((card) => ({card}))}, azerty);
  assert.deepEqual(list.map((cell) => [cell.key, cell.code]), [["1", "Digit1"], ["a", "KeyQ"], ["q", "KeyA"]]);
});

test("a replay says each step in words, naming cards by the server's phrases", async () => {
  const {describeAction, describeOutcome} = await import(
    "../../static/js/replay/describe.js"
  );
  const phrase = (text) => `<${text}>`;
  const claim = {actor: "ann", action: {type: "claim", cards: ["A", "B", "C"]}};
  assert.equal(describeAction(claim, "set", phrase), "ann claims <A>, <B>, <C>.");
  assert.equal(describeAction({action: {type: "start"}}, "square", phrase), "The board is empty.");
  assert.equal(
    describeAction({actor: "bo", action: {type: "pick", row: 0, col: 2}}, "set", phrase),
    "bo picks row 1, column 3.",
  );
  const outcome = {outcome: {claim: "set", points: 1, hinted: true, count: 1, dealt: 3, over: true}};
  assert.equal(
    describeOutcome(outcome, phrase),
    "a set! +1 (hinted); 1 set; 3 more cards dealt; game over",
  );
  const withheld = {outcome: {action: "hint", withheld: ["hint", "message"]}};
  assert.equal(describeOutcome(withheld, phrase), "the card shown is theirs until the end");
  const shown = {outcome: {action: "hint", hint: {card: "A", position: 0}}};
  assert.equal(describeOutcome(shown, phrase), "shown <A>");
  const timeout = {outcome: {expired: [{kind: "timeout", player: "bo", delta: -5}], pick: "not_set", points: -5}};
  assert.equal(describeOutcome(timeout, phrase), "bo ran out of time (-5); not a set (-5)");
  const ultraView = {claim_words: {one: "ultra", a: "an ultra", many: "ultras", cards: "four"}};
  const ultra = {
    action: {type: "claim", cards: ["A", "B", "C", "D"]},
    outcome: {claim: "set", points: 1},
    view: ultraView,
  };
  assert.equal(describeOutcome(ultra, phrase), "an ultra! +1");
  const wrongUltra = {...ultra, outcome: {claim: "not_set", points: 0, locked_out: true}};
  assert.equal(describeOutcome(wrongUltra, phrase), "not an ultra, locked out");
  const why = ["color: red, red, green — two alike, one different"];
  const wrongSet = {outcome: {claim: "not_set", points: 0, locked_out: true, why}};
  assert.equal(
    describeOutcome(wrongSet, phrase),
    "not a set, locked out; color: red, red, green — two alike, one different",
  );
  const square = {outcome: {status: 1, squares: [[1, 1], [2, 1]], meaning: "Placement accepted"}};
  assert.equal(describeOutcome(square, phrase), "closing 2 squares; moves again");
});

test("a replay marks the cards of the step's own move, never the next one's", async () => {
  const {stepMarks} = await import("../../static/js/replay/describe.js");
  const row = (...cards) => cards.map((card) => ({card}));
  const deal = {view: {board: [row("A", "B"), row("C", "D"), row("E", "F")]}};
  const pick = {action: {type: "pick", row: 1, col: 1}, view: deal.view};
  const none = {own: [], taken: [], dealt: [], hint: null};
  assert.deepEqual(stepMarks([deal, pick], 0), none); // the deal marks nothing
  assert.deepEqual(stepMarks([deal, pick], 1), {...none, own: ["D"]});
  // A classic board (a flat list): a wrong claim stays marked; a set leaves, new cards come.
  const flat = (...cards) => ({board: cards.map((card) => ({card}))});
  const start = {view: flat("A", "B", "C", "D", "E", "F")};
  const wrong = {action: {type: "claim", cards: ["A", "B", "D"]}, view: start.view};
  const found = {action: {type: "claim", cards: ["A", "B", "C"]}, view: flat("G", "H", "I", "D", "E", "F")};
  const steps = [start, wrong, found];
  assert.deepEqual(stepMarks(steps, 1), {...none, own: ["A", "B", "D"]});
  assert.deepEqual(stepMarks(steps, 2), {...none, taken: ["A", "B", "C"], dealt: ["G", "H", "I"]});
  const hint = {action: {type: "hint"}, outcome: {hint: {card: "E"}}, view: found.view};
  assert.deepEqual(stepMarks([...steps, hint], 3), {...none, hint: "E"});
});

test("a rating line says the rating, the game's change and the rated games", async () => {
  const {ratingLine} = await import("../../static/js/lib/ratings.js");
  assert.equal(ratingLine("Zoë", {rating: 1532, games: 5, change: 32}), "Zoë: 1532 (+32), 5 rated games");
  assert.equal(ratingLine("bob", {rating: 1470, games: 1, change: -30}), "bob: 1470 (−30), 1 rated game");
  assert.equal(ratingLine("new", {rating: 1500, games: 0}), "new: 1500, 0 rated games");
});

test("a finished game's badge says it is over, not live", async () => {
  const {showStatus} = await import("../../static/js/lib/socket.js");
  const badge = {dataset: {}, textContent: ""};
  showStatus(badge, "live", {over: true});
  assert.equal(badge.textContent, "Game over");
  assert.equal(badge.dataset.state, "over");
  showStatus(badge, "reconnecting", {over: true});
  assert.equal(badge.textContent, "Reconnecting…");
  showStatus(badge, "live");
  assert.equal(badge.textContent, "Live");
});

test("the table's sounds: a wrong claim, a set found by anyone, then new cards", async () => {
  const {soundFor, SOUNDS} = await import("../../static/js/lib/sound.js");
  assert.equal(soundFor({outcome: {claim: "not_set"}}), "wrong");
  assert.equal(soundFor({outcome: {pick: "not_set"}}), "wrong");
  assert.equal(soundFor({scored: true, dealt: 3}), "set"); // the set, not the deal
  assert.equal(soundFor({dealt: 3}), "deal");
  assert.equal(soundFor({}), null);
  for (const name of ["set", "wrong", "deal"]) assert.ok(SOUNDS[name].length);
});

test("presence: a socket open is here, a socket closed is away, a program without one follows the rules", async () => {
  const {Presence} = await import("../../static/js/lib/presence.js");
  const presence = new Presence();
  const view = {present: ["bot"], away: ["idle"]};
  assert.equal(presence.of("ada", view), null);
  assert.equal(presence.of("bot", view), "here");
  assert.equal(presence.of("idle", view), "away");
  presence.update(["ada", "bob"]);
  assert.equal(presence.of("ada", view), "here");
  presence.update(["bob"]);
  assert.equal(presence.of("ada", {present: ["ada"]}), "away"); // she closed her page
  assert.equal(presence.of("bob", view), "here");
});

test("presence: a page closed for the table's away time is offered as left, and not before", async () => {
  const {Presence} = await import("../../static/js/lib/presence.js");
  const presence = new Presence();
  presence.update(["ada", "bob"], 0);
  presence.update(["ada"], 1000); // bob closed his page
  assert.deepEqual(presence.leavers(["bob"], 60000, 30000), []);
  assert.deepEqual(presence.leavers(["bob"], 60000, 61000), ["bob"]);
  presence.update(["ada", "bob"], 62000); // back: not gone any more
  assert.deepEqual(presence.leavers(["bob"], 60000, 200000), []);
  assert.deepEqual(presence.leavers(["zed"], 60000, 200000), []); // never here: the server judges
});

test("the rated note says a game created rated still rates, or why it does not", async () => {
  const {ratedNote} = await import("../../static/js/lib/ratings.js");
  assert.match(ratedNote(null), /^A rated game: it moves the accounts' ratings/);
  assert.equal(ratedNote("Hana took a hint."), "Not rated: Hana took a hint. It moves no rating.");
});
