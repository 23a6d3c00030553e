// The table log's pure logic: merging the server's story entries, and drawing them (into a small
// stand-in for the DOM: Node has none).
import assert from "node:assert/strict";
import {test} from "node:test";

import {chatEntry, entryLine, mergeEntries, renderStory} from "../../static/js/set/story.js";

/** A minimal element: what renderStory uses of the DOM. */
class FakeElement {
  constructor(doc, tag) {
    this.ownerDocument = doc;
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.dataset = {};
    this.className = "";
    this.textContent = "";
    this.innerHTML = "";
    this.title = "";
    this.dateTime = "";
  }
  appendChild(child) {
    this.children.push(child);
    return child;
  }
  replaceChildren(...children) {
    this.children = children;
    this.ownerDocument.replaced += 1;
  }
}

function fakeDocument() {
  const doc = {created: 0, replaced: 0};
  doc.createElement = (tag) => {
    doc.created += 1;
    return new FakeElement(doc, tag);
  };
  return doc;
}

function text(element) {
  return [element.textContent, ...element.children.map(text)].filter(Boolean).join(" ");
}

const WRONG = {
  id: "v3",
  version: 3,
  at: 3000,
  type: "wrong",
  actor: "ann",
  text: "ann claimed three cards that are not a set. ann is locked out.",
  cards: [
    {card: "ONE/RED/SOLID/DIAMOND", digits: "0000", code: 0},
    {card: "ONE/RED/SOLID/SQUIGGLE", digits: "0001", code: 1},
    {card: "TWO/GREEN/SOLID/OVAL", digits: "1102", code: 38},
  ],
  why: ["number: one, one, two — two alike, one different", "color: red, red, green — two alike, one different"],
  points: 0,
};
const JOIN = {id: "v1", version: 1, at: 1000, type: "join", actor: "ann", text: "ann joined the table.", cards: [], why: [], points: null};
const TIMEOUT = {id: "v4", version: 4, at: 3500, type: "timeout", actor: "bob", text: "bob ran out of time.", cards: [], why: [], points: -5};
const AFTER = {id: "v4.1", version: 4, at: 4000, type: "declare", actor: "ann", text: "ann declared a set.", cards: [], why: [], points: null};
const CHAT = chatEntry({id: 7, name: "bob", text: "<b>hi</b>", at: "1970-01-01T00:00:03.000Z"});

test("a chat message becomes an entry with its story id and time", () => {
  assert.deepEqual(CHAT, {
    id: "c7",
    version: null,
    at: 3000,
    type: "chat",
    actor: "bob",
    text: "bob: <b>hi</b>",
    cards: [],
    why: [],
    points: null,
    name: "bob",
    chat: "<b>hi</b>",
  });
});

test("entries merge once each by id, in time order, moves before chat at the same ms", () => {
  const merged = mergeEntries([WRONG, JOIN], [CHAT, AFTER, TIMEOUT]);
  assert.deepEqual(merged.map((e) => e.id), ["v1", "v3", "c7", "v4", "v4.1"]);
  assert.deepEqual(mergeEntries(merged, merged), merged);
  assert.deepEqual(mergeEntries(merged, [JOIN, CHAT]).map((e) => e.id), ["v1", "v3", "c7", "v4", "v4.1"]);
  assert.deepEqual(mergeEntries(null, undefined), []);
  // The same ms: a move's entries in their order, then chat by id.
  const same = [{...AFTER, at: 1}, {...TIMEOUT, at: 1}, {...CHAT, id: "c10", at: 1}, {...CHAT, id: "c9", at: 1}];
  assert.deepEqual(mergeEntries([], same).map((e) => e.id), ["v4", "v4.1", "c9", "c10"]);
});

test("a newer entry replaces a known one: a hint shows its card once the game is over", () => {
  const hidden = {...JOIN, id: "v5", version: 5, type: "hint", text: "bob took a hint.", at: 5000};
  const shown = {...hidden, cards: [WRONG.cards[0]]};
  const merged = mergeEntries([JOIN, hidden], [shown]);
  assert.equal(merged.length, 2);
  assert.deepEqual(merged[1].cards, [WRONG.cards[0]]);
});

test("a line says the server's words, marks the viewer's own, and carries cards and why", () => {
  const line = entryLine(WRONG, {you: "ann"});
  assert.equal(line.className, "story-entry story-wrong story-you");
  assert.equal(line.text, WRONG.text);
  assert.deepEqual(line.cards.map((c) => c.digits), ["0000", "0001", "1102"]);
  assert.deepEqual(line.why, WRONG.why);
  assert.equal(entryLine(WRONG, {you: "bob"}).className, "story-entry story-wrong");
  const chat = entryLine(CHAT, {});
  assert.equal(chat.className, "story-entry story-chat chat-line");
  assert.equal(chat.name, "bob");
  assert.equal(chat.text, "<b>hi</b>");
  assert.notEqual(entryLine(WRONG, {colorBlind: true}).signature, entryLine(WRONG, {}).signature);
});

test("the story is drawn entry by entry: small cards, the why under a wrong claim", () => {
  const doc = fakeDocument();
  const list = new FakeElement(doc, "ol");
  const entries = mergeEntries([], [JOIN, WRONG, CHAT]);
  renderStory(list, entries, {you: "ann", card: (t) => ({phrase: t.toLowerCase()})});
  assert.deepEqual(list.children.map((li) => li.dataset.entry), ["v1", "v3", "c7"]);
  const wrong = list.children[1];
  assert.equal(wrong.className, "story-entry story-wrong story-you");
  const [time, words, cards, why] = wrong.children;
  assert.equal(time.className, "story-time");
  assert.equal(time.dateTime, "1970-01-01T00:00:03.000Z");
  assert.equal(words.textContent, WRONG.text);
  assert.equal(cards.className, "story-cards");
  assert.equal(cards.children.length, 3);
  assert.match(cards.children[0].innerHTML, /^<svg class="set-card-svg"/);
  assert.equal(cards.children[0].title, "one/red/solid/diamond");
  assert.equal(why.tagName, "UL");
  assert.deepEqual(why.children.map((li) => li.textContent), WRONG.why);
  // Chat is text, never HTML.
  const chat = list.children[2];
  assert.equal(chat.children[1].textContent, "bob");
  assert.equal(chat.children[2].textContent, "<b>hi</b>");
  assert.equal(chat.children[2].innerHTML, "");
  assert.match(text(list), /ann joined the table\./);
});

test("drawing the same entries again changes nothing; a new entry adds one line", () => {
  const doc = fakeDocument();
  const list = new FakeElement(doc, "ol");
  const entries = mergeEntries([], [JOIN, WRONG]);
  renderStory(list, entries, {you: "ann"});
  const [first, second] = list.children;
  const created = doc.created;
  const replaced = doc.replaced;
  renderStory(list, mergeEntries(entries, [JOIN]), {you: "ann"});
  assert.equal(doc.created, created);
  assert.equal(doc.replaced, replaced);
  assert.equal(list.children[0], first);
  renderStory(list, mergeEntries(entries, [TIMEOUT]), {you: "ann"});
  assert.equal(list.children.length, 3);
  assert.equal(list.children[0], first);
  assert.equal(list.children[1], second);
  assert.equal(list.children[2].dataset.entry, "v4");
  // Another viewer marks other lines: those are drawn again.
  renderStory(list, mergeEntries(entries, [TIMEOUT]), {you: "bob"});
  assert.notEqual(list.children[0], first);
  assert.equal(list.children[2].className, "story-entry story-timeout story-you");
});

test("other players' news: sets found, points lost on declare tables, and who joined", async () => {
  const {tellOthers} = await import("../../static/js/set/story.js");
  const before = {you: "ann", scores: {ann: 0, bob: 10, cy: 5}};
  const after = {you: "ann", scores: {ann: 10, bob: 5, cy: 15, dee: 0}};
  assert.deepEqual(tellOthers(before, after, {classic: false}), [
    "bob lost 5 points.",
    "cy found a set.",
    "dee joined.",
  ]);
  assert.deepEqual(tellOthers(before, after, {classic: true}), ["cy found a set.", "dee joined."]);
});

test("others see a wrong claim: a classic lockout, a declarer who did not score", async () => {
  const {tellOthers} = await import("../../static/js/set/story.js");
  const classicBefore = {you: "ann", scores: {ann: 1, bob: 2}, locked: []};
  const classicAfter = {you: "ann", scores: {ann: 1, bob: 2}, locked: ["bob"]};
  assert.deepEqual(tellOthers(classicBefore, classicAfter, {classic: true}), [
    "bob claimed three cards that are not a set and is locked out.",
  ]);
  const up = {state: "up", declarer: "bob"};
  const none = {state: "none", declarer: null};
  const atZero = [{you: "ann", scores: {ann: 0, bob: 0}, declare: up}, {you: "ann", scores: {ann: 0, bob: 0}, declare: none}];
  assert.deepEqual(tellOthers(...atZero, {classic: false}), [
    "bob did not find a set; the score stays at 0.",
  ]);
  const lost = [{you: "ann", scores: {ann: 0, bob: 10}, declare: up}, {you: "ann", scores: {ann: 0, bob: 5}, declare: none}];
  assert.deepEqual(tellOthers(...lost, {classic: false}), [
    "bob did not find a set and lost 5 points.",
  ]);
  const found = [{you: "ann", scores: {ann: 0, bob: 0}, declare: up}, {you: "ann", scores: {ann: 0, bob: 10}, declare: none}];
  assert.deepEqual(tellOthers(...found, {classic: false}), ["bob found a set."]);
  const stillPicking = [{you: "ann", scores: {bob: 0}, declare: up}, {you: "ann", scores: {bob: 0}, declare: up}];
  assert.deepEqual(tellOthers(...stillPicking, {classic: false}), []);
});

test("a penalty says what it did to the score, which never goes below 0", async () => {
  const {penalty} = await import("../../static/js/set/story.js");
  assert.equal(penalty(-5, -5, 10), "−5 points: your score is 10.");
  assert.equal(penalty(-5, 0, 0), "−5 points, but the score stays at 0.");
  assert.equal(penalty(-5, -3, 0), "−5 points: the score goes down by 3 to 0.");
});

