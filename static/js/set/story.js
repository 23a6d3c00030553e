/* The table log: the game's story as the server tells it (GET /api/games/<id>/story, and the
 * socket's {"type": "story", "entries"} frames with ?story=1), chat in the same timeline.
 *
 *   let entries = mergeEntries([], body.entries);             // the first read
 *   entries = mergeEntries(entries, message.entries);         // each pushed frame
 *   entries = mergeEntries(entries, [chatEntry(message)]);    // each pushed chat line
 *   renderStory(list, entries, {you: view.you, card, colorBlind: colorBlind()});
 *
 * An entry is {id, version, at, type, actor, text, cards: [{card, digits, code}], why: [...],
 * points} (a chat line adds name and chat). The words are the server's; this module only orders
 * entries and draws them: each set's or wrong claim's cards small, the why under a wrong claim.
 * Text is only ever set as textContent. `tellOthers` and `penalty` are the table page's older
 * news of other players' moves, kept here until the page draws the story.
 */

import {svg} from "../lib/cards.js";

/** Order two entries: by time; at the same ms moves before chat, moves by version and then by
 * their place in the move (v12 before v12.1), chat by id. */
function compare(a, b) {
  if (a.at !== b.at) return a.at - b.at;
  const chatA = a.version === null || a.version === undefined;
  const chatB = b.version === null || b.version === undefined;
  if (chatA !== chatB) return chatA ? 1 : -1;
  if (!chatA && a.version !== b.version) return a.version - b.version;
  return suffix(a.id) - suffix(b.id);
}

/** The number after an entry id's dot ("v12.3" -> 3, "v12" -> 0), or a chat id's ("c7" -> 7). */
function suffix(id) {
  const text = String(id);
  if (text.startsWith("c")) return Number(text.slice(1)) || 0;
  const dot = text.indexOf(".");
  return dot < 0 ? 0 : Number(text.slice(dot + 1)) || 0;
}

/**
 * Return the entries known with the incoming ones, each id once, in time order. An incoming
 * entry replaces a known one of the same id (once a game is over, a hint shows its card).
 */
export function mergeEntries(known, incoming) {
  const byId = new Map();
  for (const entry of [...(known || []), ...(incoming || [])]) {
    if (entry && entry.id !== undefined && entry.id !== null) byId.set(String(entry.id), entry);
  }
  return [...byId.values()].sort(compare);
}

/** Return a pushed chat message ({id, name, text, at: ISO 8601}) as a story entry ("c<id>"). */
export function chatEntry(message) {
  const at = typeof message.at === "number" ? message.at : Date.parse(message.at);
  return {
    id: `c${message.id}`,
    version: null,
    at: Number.isNaN(at) ? 0 : at,
    type: "chat",
    actor: message.name,
    text: `${message.name}: ${message.text}`,
    cards: [],
    why: [],
    points: null,
    name: message.name,
    chat: message.text,
    // The word filter's: its writer's only, who is told so (the server's words).
    ...(message.hidden ? {hidden: true, note: message.note || "Only you can see this."} : {}),
  };
}

/** Return what an entry's line shows, as plain data: its classes, time, words, cards and why.
 * Pure (tested under Node); `signature` changes whenever the line must be drawn again. */
export function entryLine(entry, {you = null, colorBlind = false} = {}) {
  const chat = entry.type === "chat";
  const classes = ["story-entry", `story-${entry.type}`];
  if (chat) classes.push("chat-line");
  if (chat && entry.hidden) classes.push("chat-hidden");
  if (you && entry.actor === you) classes.push("story-you");
  const line = {
    id: String(entry.id),
    className: classes.join(" "),
    at: entry.at,
    name: chat ? entry.name : null,
    text: chat ? entry.chat : entry.text,
    cards: (entry.cards || []).map((card) => ({text: card.card, digits: card.digits})),
    why: entry.why || [],
    note: chat && entry.hidden ? entry.note : null,
  };
  line.signature = JSON.stringify([line, colorBlind]);
  return line;
}

function timeOf(at) {
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) return "";
  return when.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
}

function drawLine(doc, line, {card, colorBlind}) {
  const item = doc.createElement("li");
  item.className = line.className;
  item.dataset.entry = line.id;
  item.dataset.signature = line.signature;
  const time = doc.createElement("time");
  time.className = "story-time";
  const when = new Date(line.at);
  time.dateTime = Number.isNaN(when.getTime()) ? "" : when.toISOString();
  time.textContent = timeOf(line.at);
  item.appendChild(time);
  if (line.name !== null) {
    const name = doc.createElement("span");
    name.className = "chat-name";
    name.textContent = line.name;
    item.appendChild(name);
  }
  const text = doc.createElement("span");
  text.className = "story-text";
  text.textContent = line.text;
  item.appendChild(text);
  if (line.note) {
    const note = doc.createElement("span");
    note.className = "chat-note muted small";
    note.textContent = ` ${line.note}`;
    item.appendChild(note);
  }
  if (line.cards.length) {
    const row = doc.createElement("span");
    row.className = "story-cards";
    for (const shown of line.cards) {
      const phrase = card ? card(shown.text).phrase : shown.text;
      const one = doc.createElement("span");
      one.className = "story-card";
      one.title = phrase;
      // svg() escapes what it writes; the digits come from the server's own card table.
      one.innerHTML = svg({digits: shown.digits, phrase}, {colorBlind});
      row.appendChild(one);
    }
    item.appendChild(row);
  }
  if (line.why.length) {
    const why = doc.createElement("ul");
    why.className = "story-why";
    for (const reason of line.why) {
      const li = doc.createElement("li");
      li.textContent = reason;
      why.appendChild(li);
    }
    item.appendChild(why);
  }
  return item;
}

/**
 * Draw `entries` into the list element: one <li> per entry, in order. Idempotent: a line whose
 * entry is unchanged is kept as it is (same entries, same DOM, nothing redrawn), so the page
 * calls it with the whole story on a first load, a reload and every push. Options: `you` (the
 * viewer's seat name: their lines are marked), `card` (the page's deck: text -> {phrase}, for
 * the cards' names) and `colorBlind` (the cards' marks).
 */
export function renderStory(list, entries, {you = null, card = null, colorBlind = false} = {}) {
  const doc = list.ownerDocument;
  const drawn = new Map();
  for (const child of Array.from(list.children)) drawn.set(child.dataset.entry, child);
  const items = (entries || []).map((entry) => {
    const line = entryLine(entry, {you, colorBlind});
    const kept = drawn.get(line.id);
    if (kept && kept.dataset.signature === line.signature) return kept;
    return drawLine(doc, line, {card, colorBlind});
  });
  const children = Array.from(list.children);
  const same = items.length === children.length && items.every((item, i) => children[i] === item);
  if (!same) list.replaceChildren(...items);
  return items.length;
}

// -- the table page's older news (once static/js/set/news.js) ----------------------------

/**
 * Return sentences for what changed between `before` and `after` for other players: who found a
 * set, whose claim was wrong (a classic table locks them out; a declare table's declarer who
 * did not score), who lost points, who joined. The viewer (`after.you`) is left out: the page
 * tells them about their own moves from their results.
 */
export function tellOthers(before, after, {classic}) {
  const old = before.scores || {};
  const now = after.scores || {};
  const news = [];
  const failed = failedDeclarer(before, after, old, now);
  for (const name of Object.keys(now)) {
    if (name === after.you || old[name] === undefined) continue;
    if (name === failed) {
      news.push(`${name} did not find a set${change(old[name], now[name])}.`);
    } else if (now[name] > old[name]) news.push(`${name} found a set.`);
    else if (!classic && now[name] < old[name]) news.push(`${name} lost ${old[name] - now[name]} points.`);
  }
  if (classic) {
    const wasLocked = new Set(before.locked || []);
    for (const name of after.locked || []) {
      if (name !== after.you && !wasLocked.has(name)) {
        news.push(`${name} claimed three cards that are not a set and is locked out.`);
      }
    }
  }
  for (const name of Object.keys(now)) {
    if (old[name] === undefined && name !== after.you) news.push(`${name} joined.`);
  }
  return news;
}

/** The declarer of `before` whose turn ended without a set (a wrong pick or the time), if any. */
function failedDeclarer(before, after, old, now) {
  const declarer = before.declare && before.declare.declarer;
  if (!declarer || declarer === after.you || old[declarer] === undefined) return null;
  const still = after.declare && after.declare.declarer === declarer;
  if (still || now[declarer] > old[declarer]) return null;
  // The board is the same: no set was taken (a set found would have changed it or the score).
  return declarer;
}

function change(from, to) {
  if (to < from) return ` and lost ${from - to} points`;
  return `; the score stays at ${to}`;
}

/**
 * Say what a penalty did: `points` is the rules' penalty (-5), `delta` what the score really
 * moved (scores never go below 0), `score` the score after.
 *   penalty(-5, -5, 10) -> "−5 points: your score is 10."
 *   penalty(-5, 0, 0)   -> "−5 points, but the score stays at 0."
 */
export function penalty(points, delta, score) {
  const off = `−${Math.abs(points)} points`;
  if (delta === points) return `${off}: your score is ${score}.`;
  if (delta === 0) return `${off}, but the score stays at ${score}.`;
  return `${off}: the score goes down by ${Math.abs(delta)} to ${score}.`;
}
