/* The Set table page (and solitaire, the same table with one seat and a clock).
 *
 * The page starts from the view rendered with it (#table-view), then follows the game over the
 * WebSocket; actions go over the socket, or over POST .../moves when it is down. Classic rules:
 * select three cards and they are claimed as one {"type": "claim", "cards": [...]}. Declare
 * rules: Set! (declare), then pick three cards before the deadline; picking a card while nobody
 * declares declares first. The cards' drawings and words, and the keys, are the server's.
 */

import {request, useCsrfToken} from "../lib/api.js";
import {cardRow, cells, onLayoutChange, render} from "../lib/board.js";
import {deck} from "../lib/cards.js";
import {mountChat} from "../lib/chat.js";
import {chooseKeyboardLayout, keyboardLayout} from "../lib/prefs.js";
import {clock, plural} from "../lib/format.js";
import {renderRatings} from "../lib/ratings.js";
import {Presence} from "../lib/presence.js";
import {play, soundFor} from "../lib/sound.js";
import {ranked, renderScores} from "../lib/scores.js";
import {GameSocket, showStatus} from "../lib/socket.js";
import {penalty, tellOthers} from "../set/news.js";
import {renderWaiting} from "../set/waiting.js";

const cfg = JSON.parse(document.getElementById("table-config").textContent);
let view = JSON.parse(document.getElementById("table-view").textContent);
useCsrfToken(cfg.csrf);
const card = deck(cfg.deck);
const classic = view.rules === "classic";
// A classic table's way to play (the server's mode): how many cards a claim names, what it is.
const mode = view.mode || "normal";
const claimSize = view.claim_size || 3;
// A claim in the server's words: {one, a, many, cards} ("ultra", "an ultra", "ultras", "four").
const words = view.claim_words || {one: "set", a: "a set", many: "sets", cards: "three"};
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
// The server's clock minus ours: deadlines are the server's milliseconds.
const clockSkew = cfg.server_now - Date.now();
let selection = [];
let pending = null;
let judged = false;
let lastDeclare = view.declare ? view.declare.state : "none";
let knownPlayers = (view.players || []).join(",");
let computers = cfg.computers || [];
let guests = cfg.guests || [];
let shown = [];
let messageTimer = null;
let chain = Promise.resolve();
let fresh = [];
let taken = [];
let socketState = "connecting";
let keyboard = keyboardFor(keyboardLayout(cfg.keys.layouts));
const presence = new Presence();

const $ = (id) => document.getElementById(id);
const el = {
  board: $("board"),
  controls: $("controls"),
  turn: $("turn"),
  message: $("message"),
  scores: $("scores"),
  deckLeft: $("deck-left-side"),
  connection: $("connection"),
  declare: $("declare-btn"),
  add: $("add-btn"),
  clear: $("clear-btn"),
  hint: $("hint-btn"),
  count: $("count-btn"),
  countdown: $("countdown"),
  resultPanel: $("result-panel"),
  invite: $("invite-panel"),
  rematch: $("rematch-btn"),
  rematchNote: $("rematch-note"),
  resultText: $("result-text"),
  joinPanel: $("join-panel"),
  joinForm: $("join-form"),
  joinName: $("join-name"),
  copy: $("copy-btn"),
  share: $("share-url"),
  clock: $("clock"),
  setsFound: $("sets-found"),
  soloDeck: $("deck-left"),
  chain: $("chain"),
  foundSets: $("found-sets"),
  foundCount: $("found-count"),
  resultLine: $("result-line"),
  copyResult: $("copy-result-btn"),
};

const serverNow = () => Date.now() + clockSkew;
const seated = () => !!view.seated;
const canPlay = () => seated() && !view.over;

function say(text, tone) {
  el.message.textContent = text || "";
  el.message.className = `message${tone ? ` ${tone}` : ""}`;
  clearTimeout(messageTimer);
  if (text) {
    messageTimer = setTimeout(() => {
      el.message.textContent = "";
      el.message.className = "message";
    }, tone === "bad" ? 8000 : 6000);
  }
}

// --- acting ----------------------------------------------------------------------------------

function act(action) {
  if (socket.send(action)) return Promise.resolve();
  // No socket: the JSON API answers with the outcome and the new view (in order, one by one).
  chain = chain.then(async () => {
    const reply = await request("POST", cfg.moves_url, action);
    if (reply.ok) {
      onResult({outcome: reply.data.outcome, version: reply.data.version});
      onState({version: reply.data.version, view: reply.data.view});
    } else {
      onError({detail: reply.detail, code: "http"});
    }
  });
  return chain;
}

function choose(text) {
  if (!canPlay()) {
    say(view.over ? "The game is over." : "You are watching: join the table to play.", "info");
    return;
  }
  if (classic) chooseClassic(text);
  else chooseDeclare(text);
}

function chooseClassic(text) {
  if (view.locked_out) {
    say("You are locked out until another player finds a set.", "bad");
    return;
  }
  if (pending) return;
  const at = selection.indexOf(text);
  if (at >= 0) selection.splice(at, 1);
  else selection.push(text);
  if (selection.length === claimSize) {
    const claim = (pending = selection.slice());
    selection = [];
    act({type: "claim", cards: claim});
    // Should the answer be lost with the connection, free the cards again.
    setTimeout(() => {
      if (pending === claim) {
        pending = null;
        say("No answer from the server for that claim; try again.", "bad");
        redraw();
      }
    }, 5000);
  }
  redraw();
}

function chooseDeclare(text) {
  const cell = shown.find((c) => c.card === text);
  if (!cell) return;
  const state = view.declare.state;
  if (state === "up") {
    say(`${view.declare.declarer} is declaring: wait for your turn.`, "info");
    return;
  }
  if (state === "none") act({type: "declare"});
  act({type: "pick", row: cell.pos[0], col: cell.pos[1]});
}

function clearSelection() {
  if (selection.length) {
    selection = [];
    redraw();
  }
}

// --- what the server says --------------------------------------------------------------------

function onResult(message) {
  const o = message.outcome || {};
  switch (o.action) {
    case "claim":
      pending = null;
      if (o.claim === "set") {
        log(`You found ${words.a}.`);
        const word = `${capital(words.one)}!`;
        say(
          `${word} ${cfg.solitaire ? "" : `You have ${plural(o.score, words.one, words.many)}.`}` +
            (o.hinted ? " (hinted)" : ""),
          "good",
        );
      } else if (o.claim === "not_set") {
        play(soundFor({outcome: o}));
        const wrong = `Not ${words.a}.`;
        log(`You claimed ${words.cards} cards that are not ${words.a}.`);
        if (o.locked_out) {
          say(`${wrong} You are locked out until another player scores.`, "bad");
        } else if (o.released && !cfg.solitaire && (view.players || []).length > 1) {
          say(`${wrong} Everyone was locked out, so everyone may play again.`, "bad");
        } else {
          say(wrong, "bad");
        }
      }
      break;
    case "pick":
      if (o.pick === "set") {
        log("You found a set.");
        judged = true;
        say(`Set! +${o.points} points.${o.hinted ? " (hinted)" : ""}`, "good");
      } else if (o.pick === "not_set") {
        log("You picked three cards that are not a set.");
        play(soundFor({outcome: o}));
        judged = true;
        say(`Not a set: ${penalty(o.points, o.delta, o.score)}`, "bad");
      } else if (o.pick === "ignored") {
        say("Only the declarer picks: press Set! first.", "info");
      }
      break;
    case "declare":
      if (o.declare === "declarer") {
        // The table's own clock, as the server set it (declare_ms is an option).
        const seconds = Math.max(1, Math.round((o.deadline - serverNow()) / 1000));
        say(`Your turn: pick three cards within ${plural(seconds, "second", "seconds")}.`, "info");
      }
      else if (o.declare === "queued") say("Someone is declaring; you are next in line.", "info");
      break;
    case "add":
      if (o.vote === "recorded") {
        say(
          o.added ? "Three more cards were added." : "You voted to add cards; waiting for the others.",
          "info",
        );
      } else if (o.vote === "repeated") {
        say("You have already voted to add cards.", "info");
      } else if (o.vote === "ignored") {
        say("The deck is empty: no more cards to add.", "info");
      }
      break;
    case "hint":
      if (o.hint) say(`One card of ${words.a} is highlighted.`, "info");
      else say(o.message || "There is no set on the board.", "info");
      break;
    case "count": {
      const where = mode === "puzzle" ? "still to find" : "on the board";
      if (o.count === 0) say(`There is no ${words.one} ${where}.`, "info");
      else if (o.count === 1) say(`There is 1 ${words.one} ${where}.`, "info");
      else say(`There are ${o.count} ${words.many} ${where}.`, "info");
      break;
    }
    default:
      break;
  }
  redraw();
}

function onError(message) {
  if (message.for === "chat") {
    if (chat) chat.error(message.detail);
    return;
  }
  if (pending) {
    pending = null;
    selection = [];
  }
  say(message.detail || "That did not work.", "bad");
  redraw();
}

const boardCards = (someView) => cells(someView).map((cell) => cell.card);

function onState(message) {
  if (!message.view) return;
  const before = view;
  view = message.view;
  const previous = boardCards(before);
  const now = boardCards(view);
  fresh = now.filter((text) => !previous.includes(text));
  taken = cells(before).filter((cell) => !now.includes(cell.card));
  const scored = Object.entries(view.scores || {}).some(
    ([name, score]) => score > ((before.scores || {})[name] ?? score),
  );
  const sound = soundFor({scored, dealt: fresh.length});
  if (sound) play(sound);
  const news = tellOthers(before, view, {classic});
  if (news.length) say(news.join(" "), "info");
  news.forEach(log);
  const state = view.declare ? view.declare.state : "none";
  if (lastDeclare === "my" && state !== "my" && !judged && !view.over) {
    const score = (view.scores || {})[view.you] || 0;
    const lost = ((before.scores || {})[view.you] || 0) - score;
    say(
      lost > 0
        ? `Time is up: −${lost} points, your score is ${score}.`
        : `Time is up; the score stays at ${score}.`,
      "bad",
    );
  }
  if (state === "my" && lastDeclare !== "my") judged = false;
  lastDeclare = state;
  if (classic) {
    const onTable = new Set([...(view.board || []), ...(view.chain || [])].map((c) => c.card));
    selection = selection.filter((text) => onTable.has(text));
  }
  const players = (view.players || []).join(",");
  if (players !== knownPlayers) {
    knownPlayers = players;
    refreshSeats();
  }
  if (view.over && !before.over) {
    say("", "");
    refreshSeats(); // a rated game has rated its players by now
  }
  redraw();
}

async function refreshSeats() {
  const reply = await request("GET", cfg.api_url);
  if (!reply.ok || !reply.data.seats) return;
  computers = reply.data.seats.filter((s) => s.is_computer).map((s) => s.name);
  guests = reply.data.seats.filter((s) => s.guest).map((s) => s.name);
  renderRatings($("seat-ratings"), reply.data.ratings);
  drawScores();
}

// --- drawing ---------------------------------------------------------------------------------

/** The keys as the chosen layout names them, at the server's places. */
function keyboardFor(layout) {
  return {codes: cfg.keys.codes, labels: cfg.keys.layouts[layout].rows, layout};
}

/** The help's rows of keys, in the chosen layout. */
function drawKeyRows() {
  const list = $("key-rows");
  if (!list) return;
  list.replaceChildren(
    ...keyboard.labels.map((row) => {
      const item = document.createElement("li");
      const kbd = document.createElement("kbd");
      kbd.textContent = [...row].join(" ");
      item.append(kbd);
      return item;
    }),
  );
}

function redraw() {
  shown = render(el.board, view, {
    card,
    keyboard,
    interactive: canPlay(),
    fresh,
    taken,
    selected: classic ? selection.concat(pending || []) : [],
    hint: view.hint ? view.hint.card : null,
  });
  fresh = []; // they fade in once, not at every redraw
  taken = [];
  drawModeAreas();
  el.board.classList.toggle("locked", !!view.locked_out);
  el.board.classList.toggle("waiting", !classic && view.declare.state === "up");
  drawTurn();
  drawControls();
  drawScores();
  drawResult();
  tick();
  drawWaiting();
}

/** The waiting room (a table not dealt yet): drawn from the view, Start sent over the socket. */
function drawWaiting() {
  const room = $("waiting-room");
  if (room) renderWaiting(room, view, {onStart: () => act({type: "start"})});
  // No cards yet: nothing to find, ask for or count.
  const waiting = view.status === "waiting";
  el.turn.hidden = el.board.hidden = waiting;
  if (waiting) el.controls.hidden = true;
}

/** What a player of this table's mode looks for. */
function turnText() {
  if (mode === "ultra") {
    return `Find ${words.a}: select ${words.cards} cards, two pairs that need the same third card.`;
  }
  if (mode === "chain" && (view.chain || []).length) {
    return "Find a set through the chain: one card of the chain and two from the board.";
  }
  if (mode === "puzzle") {
    const left = view.sets_total - (view.found || []).length;
    return `Find the sets: ${plural(left, "set", "sets")} still to find.`;
  }
  return "Find a set: select three cards.";
}

/** The chain beside a Set-Chain board, and a puzzle's sets found. */
function drawModeAreas() {
  if (el.chain) {
    const links = (view.chain || []).map((cell, i) => ({card: cell.card, row: 0, col: i}));
    render(el.chain, {board: links}, {
      card,
      flat: true,
      interactive: canPlay() && links.length > 0,
      selected: selection.concat(pending || []),
    });
  }
  if (el.foundSets) {
    const found = view.found || [];
    el.foundSets.replaceChildren(
      ...found.map((texts) => {
        const item = document.createElement("li");
        item.append(cardRow(texts, card));
        return item;
      }),
    );
    el.foundCount.textContent = `${found.length} of ${view.sets_total}`;
  }
}

function drawTurn() {
  let text = "";
  if (view.over) {
    text = "Game over.";
  } else if (!seated()) {
    text = "You are watching this table.";
  } else if (classic) {
    if (view.locked_out) text = "You are locked out until another player finds a set.";
    else if (pending) text = "Checking your set…";
    else {
      text =
        turnText() + (selection.length ? ` (${selection.length} of ${claimSize} selected)` : "");
    }
  } else {
    const declare = view.declare;
    if (declare.state === "my") text = "Your turn: pick three cards!";
    else if (declare.state === "up") text = `${declare.declarer} is declaring…`;
    else text = "Press Set! (or pick a card) as soon as you see a set.";
  }
  el.turn.textContent = text;
  el.turn.classList.toggle("alert", !!view.locked_out && !view.over);
}

function drawControls() {
  const playing = canPlay();
  el.controls.hidden = !!view.over;
  if (el.hint) el.hint.disabled = !playing;
  if (el.count) el.count.disabled = !playing;
  if (el.clear) el.clear.disabled = !playing || !selection.length;
  if (el.declare) el.declare.disabled = !playing || view.declare.state === "my";
  if (el.add) {
    const votes = (view.votes || []).length;
    const voted = (view.votes || []).includes(view.you);
    el.add.disabled = !playing || !view.deck_left || voted;
    el.add.textContent =
      "Add cards" +
      (votes ? ` (${votes} of ${Math.max((view.present || []).length, votes)} voted)` : "");
  }
  if (el.deckLeft) el.deckLeft.textContent = String(view.deck_left);
  if (el.soloDeck) el.soloDeck.textContent = String(view.deck_left);
  if (el.joinPanel && (seated() || view.over)) el.joinPanel.hidden = true;
  if (chat) chat.setWriter(seated());
}

function badgesOf(name) {
  const badges = [];
  if (name === view.you) badges.push("you");
  if (computers.includes(name)) badges.push("computer");
  if (guests.includes(name)) badges.push("guest");
  if (view.declare && view.declare.declarer === name) badges.push("declaring");
  if ((view.votes || []).includes(name)) badges.push("voted to add");
  if ((view.locked || []).includes(name)) badges.push("locked out");
  if (!computers.includes(name)) {
    const where = presence.of(name, view);
    if (where) badges.push(where);
  }
  return badges;
}

function drawScores() {
  if (el.scores) renderScores(el.scores, view.scores, {badges: badgesOf, me: view.you});
}

/** The badge: the socket's state, or "Game over" once the game has ended (not "Live"). */
function drawStatus() {
  showStatus(el.connection, socketState, {over: !!view.over});
}

function drawResult() {
  if (el.invite) el.invite.hidden = !!view.over; // nobody can join a finished game
  if (el.rematch) el.rematch.hidden = !view.seated; // its players may play it again
  if (view.over) drawStatus();
  if (!el.resultPanel) return;
  const result = view.result;
  el.resultPanel.hidden = !view.over;
  if (!view.over || !result) return;
  const scores = result.scores || {};
  let text;
  if (mode === "puzzle") {
    const time = clock(view.elapsed_ms ?? result.ended_ms - cfg.started_ms);
    const who = view.you || Object.keys(scores)[0] || "Nobody";
    const total = view.sets_total;
    text =
      Object.keys(scores).length > 1
        ? `All ${total} sets found in ${time}. Scores: ${ranked(scores).map((n) => `${n} ${scores[n]}`).join(", ")}.`
        : `${view.you ? "You" : who} found all ${total} sets in ${time}.`;
    if (el.resultLine) {
      const wrong = (view.wrong || {})[who] || 0;
      const title = cfg.puzzle_day ? `Set daily puzzle ${cfg.puzzle_day}` : "Set puzzle";
      el.resultLine.value = `${title}: ${total}/${total} sets in ${time}` +
        `${wrong ? `, ${plural(wrong, "wrong claim", "wrong claims")}` : ", no wrong claim"}` +
        `${(result.hinted || {})[who] ? " (hinted)" : ""} ${window.location.origin}${cfg.puzzle_day ? "/puzzle/" : ""}`;
    }
  } else if (cfg.solitaire) {
    const who = view.you || Object.keys(scores)[0];
    const found = scores[who] || 0;
    text =
      `${view.you ? "You" : who || "Nobody"} found ${plural(found, "set", "sets")} in ` +
      `${clock(result.ended_ms - cfg.started_ms)}.`;
  } else {
    const winners = result.winners || [];
    const parts = ranked(scores).map((name) => `${name} ${scores[name]}`);
    if (!winners.length) text = "Nobody played.";
    else if (winners.includes(view.you)) {
      const others = winners.filter((w) => w !== view.you);
      text = others.length ? `You share the win with ${others.join(", ")}!` : "You won!";
    } else {
      text = `${winners.length > 1 ? "Winners: " : "Winner: "}${winners.join(", ")}.`;
    }
    text += ` Scores: ${parts.join(", ")}.`;
  }
  el.resultText.textContent = text;
}

function tick() {
  if (el.countdown) {
    const deadline = view.declare && view.declare.deadline;
    if (deadline && !view.over) {
      const left = Math.max(0, deadline - serverNow());
      el.countdown.hidden = false;
      el.countdown.textContent = `${(left / 1000).toFixed(1)} s`;
      el.countdown.classList.toggle("urgent", left < 2000);
    } else {
      el.countdown.hidden = true;
    }
  }
  if (el.clock) {
    const end = view.over && view.result ? view.result.ended_ms : serverNow();
    const start = view.status === "waiting" ? end : (view.started_at ?? cfg.started_ms);
    el.clock.textContent = clock(end - start);
    const found = mode === "puzzle" ? (view.found || []).length : (view.scores || {})[view.you];
    el.setsFound.textContent = String(found || 0);
  }
}

// --- joining ---------------------------------------------------------------------------------

async function join(name) {
  // The server checks the name and says what is wrong with it.
  const reply = await request("POST", cfg.join_url, {name});
  if (!reply.ok) {
    say(reply.detail, "bad");
    if (el.joinName) el.joinName.focus();
    return;
  }
  cfg.seat = reply.data.seat.name;
  say(`You joined as ${cfg.seat}.`, "good");
  if (el.joinPanel) el.joinPanel.hidden = true;
  window.history.replaceState(null, "", window.location.pathname);
  // The socket knows the seat from the session when it connects: connect again.
  socket.reconnectNow();
}

// --- the log: what happens at the table, and the chat -------------------------------------------

/** Say something in the table's log (its chat's timeline). */
function log(text) {
  if (chat) chat.note(text);
}

/** Post a chat message: over the socket (its error, if any, comes back on it), else the API. */
// --- wiring ----------------------------------------------------------------------------------

const chatPanel = $("chat-panel");
const chat = chatPanel
  ? mountChat(chatPanel, {url: cfg.chat_url, canWrite: seated()})
  : null;

const socket = new GameSocket(cfg.ws_url, {
  state: onState,
  result: onResult,
  error: onError,
  chat: (message) => chat?.add(message),
  status: (state) => {
    // Back after a break: read the chat written meanwhile.
    if (state === "live" && socketState === "reconnecting" && chat) chat.refresh();
    socketState = state;
    drawStatus();
  },
  presence: (message) => {
    presence.update(message.here);
    drawScores();
  },
  rematch: (message) => {
    if (!el.rematchNote) return;
    el.rematchNote.hidden = false;
    el.rematchNote.textContent =
      message.by && message.by !== view.you
        ? `${message.by} wants to play again: press "Play again" to join.`
        : "The new game is ready.";
  },
});

// Play again: the first to ask makes the new game, everyone who asks sits there.
el.rematch?.addEventListener("click", async () => {
  el.rematch.disabled = true;
  const reply = await request("POST", cfg.rematch_url, {});
  if (!reply.ok) {
    el.rematch.disabled = false;
    say(reply.detail, "bad");
    return;
  }
  window.location.assign(reply.data.url);
});

for (const area of [el.board, el.chain]) {
  area?.addEventListener("click", (event) => {
    const node = event.target.closest(".card");
    if (node && area.contains(node)) choose(node.dataset.card);
  });
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable)) {
    return;
  }
  if (event.key === "Escape") {
    clearSelection();
    return;
  }
  // By the key's place on the keyboard; by its name where a keyboard gives no place.
  const key = (event.key || "").toLowerCase();
  const cell = event.code
    ? shown.find((c) => c.code === event.code)
    : shown.find((c) => c.key === key);
  if (cell) {
    event.preventDefault();
    choose(cell.card);
  }
});

el.declare?.addEventListener("click", () => act({type: "declare"}));
el.add?.addEventListener("click", () => act({type: "add"}));
el.clear?.addEventListener("click", clearSelection);
el.hint?.addEventListener("click", () => act({type: "hint"}));
el.count?.addEventListener("click", () => act({type: "count"}));
el.joinForm?.addEventListener("submit", (event) => {
  event.preventDefault();
  join(el.joinName.value.trim());
});
/** Copy `input`'s text when `button` is pressed, saying `done`; where the browser cannot, select
 * it and say how (`what`: what was selected). */
function copies(button, input, done, what) {
  button?.addEventListener("click", () => {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(() => say(done, "good"), () => input.select());
    } else {
      input.select();
      say(`Press Ctrl+C (or ⌘C) to copy ${what}.`, "info");
    }
  });
}
copies(el.copyResult, el.resultLine, "Your result is copied: paste it anywhere.", "your result");
copies(el.copy, el.share, "The link is copied: send it to a friend.", "the selected link");
onLayoutChange(redraw);

// The keyboard's layout names the keys (they are pressed by their place on any keyboard).
const layoutSelect = $("keyboard-layout");
if (layoutSelect) {
  layoutSelect.value = keyboard.layout;
  layoutSelect.addEventListener("change", () => {
    chooseKeyboardLayout(layoutSelect.value);
    keyboard = keyboardFor(layoutSelect.value);
    drawKeyRows();
    redraw();
  });
}
drawKeyRows();
setInterval(tick, 100);

redraw();
if (cfg.auto_join && !seated() && !view.over) join(cfg.name);
