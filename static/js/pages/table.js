/* The Set table page (and solitaire, the same table with one seat and a clock).
 *
 * One state object (set/table-state.js) holds all the page knows: the server's view, what the
 * player has chosen, the message and each control's error. Everything the page shows is drawn
 * from it by render(state): on the first load (from the view rendered with the page), on a
 * reload, on every pushed change and on each tick of the clock. Events only make a new state
 * (with table-state's pure functions) and call update(), which draws it.
 *
 * The page follows the game over the WebSocket; actions go over the socket, or over
 * POST .../moves when it is down. Classic rules: select three cards and they are claimed as one
 * {"type": "claim", "cards": [...]}. Declare rules: Set! (declare), then pick three cards
 * before the deadline. A table that waits (contract A's "status": "waiting") shows its waiting
 * room and a Start button to whoever may start. A practice table (the view's "practice") adds
 * "Show me" (the board's sets, one more each press, listed and the newest marked on the board),
 * a hint that highlights one more card each press, and for its host Pause/Resume
 * (Ctrl+Shift+P): while paused the server sends no card, the board gives way to a note and the
 * clock stands still. The cards' drawings and words, and the keys, are the server's.
 */

import {request, useCsrfToken} from "../lib/api.js";
import {cardRow, cells, onLayoutChange, render as drawBoard} from "../lib/board.js";
import {deck} from "../lib/cards.js";
import {mountChat} from "../lib/chat.js";
import {chooseKeyboardLayout, colorBlind, keyboardLayout} from "../lib/prefs.js";
import {renderRatedNote, renderRatings} from "../lib/ratings.js";
import {Presence} from "../lib/presence.js";
import {play, soundFor} from "../lib/sound.js";
import {renderScores} from "../lib/scores.js";
import {GameSocket, showStatus} from "../lib/socket.js";
import * as story from "../set/story.js";
import {GhostLane, raceStart} from "../set/ghost.js";
import {
  badgesOf,
  canPlay,
  chooseCard,
  controlsOf,
  gameClock,
  hintNeedsAsking,
  chooseFaceDown,
  initialState,
  isClassic,
  isFaceDown,
  memoryClaim,
  nextGameOffer,
  receiveError,
  receiveOutcome,
  receiveView,
  resultText,
  say,
  shownView,
  statusOf,
  turnText,
  waitingRoom,
  withError,
  withState,
  raceStatus,
} from "../set/table-state.js";

const cfg = JSON.parse(document.getElementById("table-config").textContent);
useCsrfToken(cfg.csrf);
const card = deck(cfg.deck);
const presence = new Presence();

// The page's one state: replaced (never changed in place) by update().
let state = initialState(JSON.parse(document.getElementById("table-view").textContent), {
  skew: cfg.server_now - Date.now(),
  computers: cfg.computers || [],
  guests: cfg.guests || [],
  bots: cfg.bots || [],
  keyboard: keyboardFor(keyboardLayout(cfg.keys.layouts)),
});

const $ = (id) => document.getElementById(id);
const el = {
  root: $("table-root"),
  board: $("board"),
  controls: $("controls"),
  turn: $("turn"),
  message: $("message"),
  leavers: $("leavers"),
  scores: $("scores"),
  scorebar: $("scorebar"),
  deckLeft: $("deck-left-side"),
  connection: $("connection"),
  gameClock: $("game-clock"),
  declare: $("declare-btn"),
  add: $("add-btn"),
  clear: $("clear-btn"),
  hint: $("hint-btn"),
  hintAsk: $("hint-ask"),
  hintYes: $("hint-yes"),
  hintNo: $("hint-no"),
  count: $("count-btn"),
  show: $("show-btn"),
  pause: $("pause-btn"),
  pausedNote: $("paused-note"),
  shownArea: $("shown-area"),
  shownSets: $("shown-sets"),
  shownCount: $("shown-count"),
  countdown: $("countdown"),
  waiting: $("waiting-room"),
  waitingText: $("waiting-text"),
  waitingNames: $("waiting-names"),
  start: $("start-btn"),
  resultPanel: $("result-panel"),
  invite: $("invite-panel"),
  rematch: $("rematch-btn"),
  rematchNote: $("rematch-note"),
  nextGame: $("next-game"),
  watchNext: $("watch-next"),
  joinNext: $("join-next"),
  resultText: $("result-text"),
  joinPanel: $("join-panel"),
  joinForm: $("join-form"),
  joinName: $("join-name"),
  copy: $("copy-btn"),
  share: $("share-url"),
  clock: $("clock"),
  raceStatus: $("race-status"),
  setsFound: $("sets-found"),
  soloDeck: $("deck-left"),
  chain: $("chain"),
  foundSets: $("found-sets"),
  lastSet: $("last-set"),
  foundCount: $("found-count"),
  resultLine: $("result-line"),
  copyResult: $("copy-result-btn"),
  layout: $("keyboard-layout"),
  log: $("timeline"),
  keyRows: $("key-rows"),
  errors: {
    join: $("join-error"),
    start: $("start-error"),
    hint: $("hint-error"),
    rematch: $("rematch-error"),
  },
};

/** The keys as the chosen layout names them, at the server's places. */
function keyboardFor(layout) {
  return {codes: cfg.keys.codes, labels: cfg.keys.layouts[layout].rows, layout};
}
// A ghost race's lane: the recorded run's sets at their times (set/ghost.js).
const ghostLane =
  state.view.ghost && $("ghost-lane") ? new GhostLane($("ghost-lane"), state.view.ghost, card) : null;
let ghostResultAsked = false;

// The board's cells as last drawn, with their keys (drawing's output: what a key presses).
let shown = [];

// --- the one way the page changes -----------------------------------------------------------

/** Make `next` the page's state and draw it; `moment`: what just happened, drawn once (cards
 * dealt and taken fade, a sound plays). */
function update(next, moment = {}) {
  const before = state;
  state = next;
  render(state, moment);
  placeFocus(before, state);
}

// --- acting ----------------------------------------------------------------------------------

// Moves sent over HTTP while the socket is down go one after the other.
let queue = Promise.resolve();

function act(action, control = "board") {
  // An error the socket sends back for it goes beside the control it came from.
  if (state.acting !== control) state = withState(state, {acting: control});
  if (socket.send(action)) return Promise.resolve();
  queue = queue.then(async () => {
    const reply = await request("POST", cfg.moves_url, action);
    if (reply.ok) {
      onResult({outcome: reply.data.outcome, version: reply.data.version});
      onState({version: reply.data.version, view: reply.data.view});
    } else {
      update(receiveError(state, reply.detail, control, Date.now()));
    }
  });
  return queue;
}

function choose(text) {
  const now = Date.now();
  if (!canPlay(state)) {
    const status = statusOf(state.view);
    const why =
      status === "over"
        ? "The game is over."
        : status === "waiting"
          ? "The cards are dealt when the game starts."
          : state.view.paused
            ? "The game is paused."
            : "You are watching: join the table to play.";
    update(say(state, why, "info", now));
    return;
  }
  if (isFaceDown(state.view)) {
    // Memory: turn the card up (the server tells this browser alone what it is).
    const cell = shown.find((c) => c.card === text);
    if (!cell) return;
    const chosen = chooseFaceDown(state, cell.pos, now);
    update(chosen.state);
    if (chosen.reveal !== null) act({type: "reveal", position: chosen.reveal});
    return;
  }
  if (isClassic(state.view)) {
    const chosen = chooseCard(state, text, now);
    update(chosen.state);
    if (chosen.claim) claim(chosen.claim);
    return;
  }
  const cell = shown.find((c) => c.card === text);
  if (!cell) return;
  const declare = state.view.declare;
  if (declare.state === "up") {
    update(say(state, `${declare.declarer} is declaring: wait for your turn.`, "info", now));
    return;
  }
  if (declare.state === "none") act({type: "declare"});
  act({type: "pick", row: cell.pos[0], col: cell.pos[1]});
}

function claim(cards) {
  act({type: "claim", cards});
  // Should the answer be lost with the connection, free the cards again.
  setTimeout(() => {
    if (state.pending === cards) {
      update(say(withState(state, {pending: null}), "No answer from the server for that claim; try again.", "bad", Date.now()));
    }
  }, 5000);
}

function askHint() {
  if (hintNeedsAsking(state, cfg.rated)) {
    update(withState(withError(state, "hint", ""), {hintAsk: true}));
    return;
  }
  act({type: "hint"}, "hint");
}

// --- what the server says --------------------------------------------------------------------

function onResult(message) {
  const told = receiveOutcome(state, message.outcome, {solitaire: cfg.solitaire, now: Date.now()});
  if (told.sound) play(soundFor({outcome: message.outcome}));
  update(told.state);
  // Memory: the last card of a claim is up: claim the places.
  const positions = memoryClaim(state);
  if (positions) {
    update(withState(state, {pending: positions}));
    claimPlaces(positions);
  }
}

function claimPlaces(positions) {
  act({type: "claim", positions});
  setTimeout(() => {
    if (state.pending === positions) {
      update(say(withState(state, {pending: null, revealed: []}), "No answer from the server for that claim; try again.", "bad", Date.now()));
    }
  }, 5000);
}

function onError(message) {
  if (message.for === "chat") {
    chat?.error(message.detail);
    return;
  }
  update(receiveError(state, message.detail, state.acting, Date.now()));
}

function onState(message) {
  if (!message.view) return;
  const before = state.view;
  const got = receiveView(state, message.view, Date.now());
  const moment = {
    fresh: got.fresh,
    taken: cells(before).filter((cell) => got.taken.includes(cell.card)),
  };
  const sound = soundFor({scored: got.scored, dealt: got.fresh.length});
  if (sound) play(sound);
  update(got.state, moment);
  // Read while paused, the log's entries came without their cards: read them again.
  if (before.paused && !state.view.paused && el.log) readStory();
  const players = (before.players || []).join(",");
  if (players !== (state.view.players || []).join(",") || (state.view.over && !before.over)) {
    refreshSeats(); // who is a computer or a guest; a rated game has rated its players by now
  }
}

async function refreshSeats() {
  const reply = await request("GET", cfg.api_url);
  if (!reply.ok || !reply.data.seats) return;
  renderRatings($("seat-ratings"), reply.data.ratings);
  renderRatedNote($("rated-note"), reply.data);
  update(
    withState(state, {
      computers: reply.data.seats.filter((s) => s.is_computer).map((s) => s.name),
      guests: reply.data.seats.filter((s) => s.guest).map((s) => s.name),
      bots: reply.data.seats.filter((s) => s.bot).map((s) => s.name),
    }),
  );
}

// --- drawing: everything from the state ----------------------------------------------------

// What the cards were last drawn from: the cards are drawn again only when it changes (a chat
// line or a presence frame leaves them, and a card leaving its place, as they are).
let cardsDrawnFrom = "";

function render(s, moment = {}) {
  const view = shownView(s);
  const status = statusOf(view);
  const playing = canPlay(s);
  const faceDown = isFaceDown(s.view);
  const selected = faceDown
    ? s.refused
      ? []
      : s.revealed.map((r) => r.card)
    : isClassic(view)
      ? s.selection.concat(s.pending || [])
      : [];
  // A practice hint holds one card more each press; "show me"'s newest set is marked.
  const hint = view.hint ? (view.hint.cards ? view.hint.cards.map((c) => c.card) : view.hint.card) : null;
  const shownSets = (view.show && view.show.sets) || [];
  const marked = shownSets.length ? shownSets[shownSets.length - 1].map((c) => c.card) : [];
  const from = JSON.stringify([view.board, view.chain, view.found, view.last_set, selected, hint, marked, playing, s.keyboard.layout]);
  if (from !== cardsDrawnFrom || moment.fresh || moment.taken || moment.force) {
    cardsDrawnFrom = from;
    shown = drawBoard(el.board, view, {
      card,
      keyboard: s.keyboard,
      landscape: true,
      interactive: playing,
      fresh: moment.fresh || [],
      taken: moment.taken || [],
      selected,
      hint,
      marked,
    });
    drawModeAreas(s, playing);
  }
  el.board.hidden = status === "waiting" || !!view.paused;
  if (el.pausedNote) el.pausedNote.hidden = !view.paused || status !== "active";
  el.root.classList.toggle("is-paused", !!view.paused);
  el.root.classList.toggle("is-waiting", status === "waiting");
  el.board.classList.toggle("locked", !!view.locked_out);
  el.board.classList.toggle("waiting", !isClassic(view) && view.declare.state === "up");
  el.turn.textContent = turnText(s);
  el.turn.hidden = !el.turn.textContent; // the waiting room says it all
  el.turn.classList.toggle("alert", !!view.locked_out && status === "active");
  drawControls(s);
  drawErrors(s);
  drawScores(s);
  drawLeavers(s);
  drawResult(s);
  drawJoin(s);
  showStatus(el.connection, s.socket, {over: status === "over"});
  if (chat) chat.setWriter(!!view.seated);
  drawStory(s);
  drawMessage(s);
  drawGhost(s);
  tick(s);
}

/** A ghost race: its sets from the deal on; at the end, who was ahead at each set (the view's,
 * or the game's JSON when the view that ended it was drawn without it). */
function drawGhost(s) {
  if (!ghostLane) return;
  const start = raceStart(s.view);
  if (start != null) ghostLane.schedule(start, s.skew);
  if (statusOf(s.view) !== "over" || ghostLane.finished) return;
  if (s.view.ghost_result) {
    ghostLane.finish(s.view.ghost_result);
  } else if (!ghostResultAsked) {
    ghostResultAsked = true;
    request("GET", cfg.api_url).then((reply) => {
      if (reply.ok) ghostLane.finish(reply.data.view.ghost_result);
    });
  }
}

/** The chain beside a Set-Chain board, and a puzzle's sets found. */
function drawModeAreas(s, playing) {
  const view = s.view;
  if (el.chain) {
    const links = (view.chain || []).map((cell, i) => ({card: cell.card, row: 0, col: i}));
    drawBoard(el.chain, {board: links}, {
      card,
      flat: true,
      interactive: playing && links.length > 0,
      selected: s.selection.concat(s.pending || []),
    });
  }
  if (el.lastSet) {
    // Memory: a set leaves the board face up for everyone.
    const last = view.last_set || [];
    el.lastSet.replaceChildren(...(last.length ? [cardRow(last, card)] : []));
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
  if (el.shownSets) {
    const show = view.show;
    el.shownArea.hidden = !show || !show.sets.length;
    el.shownSets.replaceChildren(
      ...(show ? show.sets : []).map((found) => {
        const item = document.createElement("li");
        item.append(cardRow(found.map((c) => c.card), card));
        return item;
      }),
    );
    if (show) el.shownCount.textContent = `${show.sets.length} of ${show.total}`;
  }
}

function drawControls(s) {
  const view = s.view;
  const c = controlsOf(s);
  el.controls.hidden = c.hidden;
  if (el.hint) el.hint.disabled = c.hint.disabled || s.hintAsk;
  if (el.count) el.count.disabled = c.count.disabled;
  if (el.clear) el.clear.disabled = c.clear.disabled;
  if (el.declare) el.declare.disabled = c.declare.disabled;
  if (el.add) {
    el.add.disabled = c.add.disabled;
    el.add.textContent = c.add.text;
  }
  if (el.hintAsk) el.hintAsk.hidden = !s.hintAsk || c.hidden;
  if (el.show) {
    el.show.hidden = c.show.hidden;
    el.show.disabled = c.show.disabled;
  }
  if (el.pause) {
    el.pause.hidden = c.pause.hidden;
    el.pause.textContent = c.pause.text;
    el.pause.setAttribute("aria-pressed", String(c.pause.pressed));
  }
  if (el.deckLeft) el.deckLeft.textContent = String(view.deck_left);
  if (el.soloDeck) el.soloDeck.textContent = String(view.deck_left);
}

function drawErrors(s) {
  for (const [control, node] of Object.entries(el.errors)) {
    if (!node) continue;
    const text = s.errors[control] || "";
    node.textContent = text;
    node.hidden = !text;
  }
  if (el.joinName) el.joinName.setAttribute("aria-invalid", String(!!s.errors.join));
}

/** "End the game: X left": offered to a seated player of a rated table (classic or declare)
 * being played once another seat's page has been closed for the table's away time (the server
 * judges; an unrated table is refused there). */
function drawLeavers(s, now = Date.now()) {
  if (!el.leavers) return;
  const view = s.view;
  const playing = view.you && cfg.rated && statusOf(view) === "active";
  const others = (view.players || []).filter((name) => name !== view.you);
  const gone = playing ? presence.leavers(others, cfg.away_ms || 60000, now) : [];
  const shown = [...el.leavers.querySelectorAll("button")].map((b) => b.dataset.seat);
  if (JSON.stringify(shown) === JSON.stringify(gone)) return;
  el.leavers.replaceChildren(
    ...gone.map((name) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "end-left-btn";
      button.dataset.seat = name;
      button.textContent = `End the game: ${name} left`;
      button.addEventListener("click", () => act({type: "end_left", seat: name}));
      return button;
    }),
  );
  el.leavers.hidden = gone.length === 0;
}

function drawScores(s) {
  const badges = (name) => badgesOf(s, name, (who) => presence.of(who, s.view));
  const empty = statusOf(s.view) === "waiting" ? "Nobody has joined yet." : undefined;
  if (el.scores) renderScores(el.scores, s.view.scores, {badges, me: s.view.you, empty});
  // The phone's line of scores: names and points only.
  if (el.scorebar) renderScores(el.scorebar, s.view.scores, {me: s.view.you, empty: ""});
  drawWaiting(s);
}

function drawWaiting(s, now = Date.now()) {
  if (!el.waiting) return;
  const room = waitingRoom(s, now);
  el.waiting.hidden = !room.waiting;
  if (!room.waiting) return;
  el.waitingText.textContent = room.text;
  el.waitingNames.textContent = room.names.length ? room.names.join(", ") : "nobody yet";
  el.start.hidden = !room.mayStart;
}

function drawResult(s) {
  const view = s.view;
  const over = statusOf(view) === "over";
  if (el.invite) el.invite.hidden = over; // nobody can join a finished game
  if (el.rematch) el.rematch.hidden = !view.seated; // its players may play it again
  const offer = nextGameOffer(s);
  if (offer && el.rematchNote) {
    el.rematchNote.hidden = false;
    el.rematchNote.textContent = offer.text;
  }
  if (el.nextGame) {
    el.nextGame.hidden = !(offer && offer.watch);
    if (offer && offer.watch) {
      el.watchNext.href = offer.watch;
      el.joinNext.href = offer.join;
    }
  }
  if (!el.resultPanel) return;
  el.resultPanel.hidden = !over;
  if (!over) return;
  const told = resultText(s, {
    solitaire: cfg.solitaire,
    started: cfg.started_ms,
    origin: window.location.origin,
    day: cfg.puzzle_day,
  });
  el.resultText.textContent = told.text;
  if (el.resultLine) el.resultLine.value = told.share;
}

function drawJoin(s) {
  if (el.joinPanel && (s.view.seated || statusOf(s.view) === "over")) el.joinPanel.hidden = true;
}

/** The table log: the whole story, each entry once, in time order (chat among the moves). */
function drawStory(s) {
  if (!s.story || !el.log) return;
  const log = el.log;
  log.classList.add("story");
  const follow = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  story.renderStory(log, s.story, {you: s.view.you, card, colorBlind: colorBlind()});
  if (follow) log.scrollTop = log.scrollHeight;
}

/** Take story entries (the first read, a pushed frame, a chat line as an entry). */
function tellStory(entries) {
  update(withState(state, {story: story.mergeEntries(state.story || [], entries)}));
}

async function readStory() {
  const reply = await request("GET", cfg.story_url);
  if (reply.ok && Array.isArray(reply.data.entries)) tellStory(reply.data.entries);
}

function drawMessage(s) {
  const m = s.message;
  el.message.textContent = m ? m.text : "";
  el.message.className = `message${m && m.tone ? ` ${m.tone}` : ""}`;
}

/** What moves with the clock: the countdowns and the game clock. */
function tick(s) {
  const now = Date.now();
  const view = s.view;
  if (el.countdown) {
    const deadline = view.declare && view.declare.deadline;
    if (deadline && !view.over) {
      const left = Math.max(0, deadline - (now + s.skew));
      el.countdown.hidden = false;
      el.countdown.textContent = `${(left / 1000).toFixed(1)} s`;
      el.countdown.classList.toggle("urgent", left < 2000);
    } else {
      el.countdown.hidden = true;
    }
  }
  const time = gameClock(s, now, cfg.started_ms);
  if (el.gameClock) {
    el.gameClock.textContent = time;
    el.gameClock.parentElement.hidden = !time;
  }
  if (el.raceStatus) el.raceStatus.textContent = raceStatus(view);
  if (el.clock) {
    el.clock.textContent = time || "0:00";
    const found = view.mode === "puzzle" ? (view.found || []).length : (view.scores || {})[view.you];
    el.setsFound.textContent = String(found || 0);
  }
  if (statusOf(view) === "waiting") drawWaiting(s, now);
}

/** Focus goes where the next key goes: the board once it can be played (after joining, after
 * the deal), the next game's button at the end, the question of a rated hint while it is open. */
function placeFocus(before, after) {
  const active = document.activeElement;
  const idle = !active || active === document.body || !active.isConnected || active.closest("[hidden]");
  const was = statusOf(before.view);
  const is = statusOf(after.view);
  if (after.hintAsk && !before.hintAsk) {
    el.hintYes.focus();
  } else if (!after.hintAsk && before.hintAsk && (idle || el.hintAsk.contains(active))) {
    el.hint?.focus();
  } else if (after.errors.join && after.errors.join !== before.errors.join) {
    el.joinName?.focus();
  } else if (is === "over" && was !== "over") {
    if (idle || el.board.contains(active) || el.controls.contains(active)) {
      const next = el.rematch && !el.rematch.hidden ? el.rematch : $("replay-link");
      next?.focus();
    }
  } else if (canPlay(after) && (!canPlay(before) || was !== is)) {
    if (idle || el.waiting?.contains(active) || el.joinPanel?.contains(active)) el.board.focus();
  }
}

// --- joining ---------------------------------------------------------------------------------

async function join(name) {
  // The server checks the name and says what is wrong with it, beside the name.
  update(withError(state, "join", ""));
  const reply = await request("POST", cfg.join_url, {name});
  if (!reply.ok) {
    if (el.joinPanel) el.joinPanel.hidden = false;
    update(withError(state, "join", reply.detail));
    return;
  }
  cfg.seat = reply.data.seat.name;
  update(say(state, `You joined as ${cfg.seat}.`, "good", Date.now()));
  if (el.joinPanel) el.joinPanel.hidden = true;
  window.history.replaceState(null, "", window.location.pathname);
  // The socket knows the seat from the session when it connects: connect again.
  socket.reconnectNow();
}

// --- the log: what happens at the table, and the chat -------------------------------------------


// --- wiring ----------------------------------------------------------------------------------

const chatPanel = $("chat-panel");
const chat = chatPanel
  ? mountChat(chatPanel, {
      url: cfg.chat_url,
      canWrite: !!state.view.seated,
      // With the story, a chat line is one of its entries ("c<id>"), drawn with the others.
      onMessage: (message) => tellStory([story.chatEntry(message)]),
    })
  : null;

const socket = new GameSocket(cfg.ws_url, {
  state: onState,
  result: onResult,
  error: onError,
  chat: (message) => chat?.add(message),
  status: (socketState) => {
    // Back after a break: read what was written and told meanwhile.
    if (socketState === "live" && state.socket === "reconnecting" && el.log) readStory();
    update(withState(state, {socket: socketState}));
  },
  presence: (message) => {
    presence.update(message.here);
    render(state);
    drawLeavers(state);
  },
  // A new game of this table's players: a player plays again, a spectator may watch or join.
  story: (message) => {
    if (!Array.isArray(message.entries)) return;
    tellStory(message.entries);
    // A hint taken makes a rated game unrated for everyone: the note under the players says so.
    if (cfg.rated && message.entries.some((entry) => entry.type === "hint")) refreshSeats();
  },
  rematch: (message) => update(withState(state, {next: {url: message.url, by: message.by}})),
});

// Play again: the first to ask makes the new game, everyone who asks sits there.
el.rematch?.addEventListener("click", async () => {
  el.rematch.disabled = true;
  const reply = await request("POST", cfg.rematch_url, {});
  if (!reply.ok) {
    el.rematch.disabled = false;
    update(withError(state, "rematch", reply.detail));
    return;
  }
  window.location.assign(reply.data.url);
});

for (const area of [el.board, el.chain]) {
  area?.addEventListener("click", (event) => {
    const node = event.target.closest(".card");
    if (node && area.contains(node) && !node.classList.contains("taken")) choose(node.dataset.card);
  });
}

/** Pause a running practice table, or resume a paused one (its host only: the server says). */
function togglePause() {
  act({type: state.view.paused ? "resume" : "pause"});
}

document.addEventListener("keydown", (event) => {
  // Ctrl+Shift+P pauses and resumes a practice table (its host; others are told why not).
  if (event.ctrlKey && event.shiftKey && !event.altKey && event.code === "KeyP" && state.view.practice) {
    event.preventDefault();
    if (statusOf(state.view) === "active" && state.view.seated) togglePause();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable)) {
    return;
  }
  if (event.key === "Escape") {
    if (state.hintAsk) update(withState(state, {hintAsk: false}));
    else if (state.selection.length) update(withState(state, {selection: []}));
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
el.clear?.addEventListener("click", () => update(withState(state, {selection: []})));
el.hint?.addEventListener("click", askHint);
el.hintYes?.addEventListener("click", () => {
  update(withState(state, {hintAsk: false, hintOk: true}));
  act({type: "hint"}, "hint");
});
el.hintNo?.addEventListener("click", () => update(withState(state, {hintAsk: false})));
el.count?.addEventListener("click", () => act({type: "count"}));
el.show?.addEventListener("click", () => act({type: "show"}));
el.pause?.addEventListener("click", togglePause);
el.start?.addEventListener("click", () => {
  update(withError(state, "start", ""));
  act({type: "start"}, "start");
});
el.joinForm?.addEventListener("submit", (event) => {
  event.preventDefault();
  join(el.joinName.value.trim());
});
el.joinName?.addEventListener("input", () => {
  if (state.errors.join) update(withError(state, "join", ""));
});

/** Copy `input`'s text when `button` is pressed, saying `done`; where the browser cannot, select
 * it and say how (`what`: what was selected). */
function copies(button, input, done, what) {
  button?.addEventListener("click", () => {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(
        () => update(say(state, done, "good", Date.now())),
        () => input.select(),
      );
    } else {
      input.select();
      update(say(state, `Press Ctrl+C (or ⌘C) to copy ${what}.`, "info", Date.now()));
    }
  });
}
copies(el.copyResult, el.resultLine, "Your result is copied: paste it anywhere.", "your result");
copies(el.copy, el.share, "The link is copied: send it to a friend.", "the selected link");
onLayoutChange(() => render(state, {force: true}));

/** The help's rows of keys, in the chosen layout. */
function drawKeyRows() {
  el.keyRows?.replaceChildren(
    ...state.keyboard.labels.map((row) => {
      const item = document.createElement("li");
      const kbd = document.createElement("kbd");
      kbd.textContent = [...row].join(" ");
      item.append(kbd);
      return item;
    }),
  );
}

// The keyboard's layout names the keys (they are pressed by their place on any keyboard).
if (el.layout) {
  el.layout.value = state.keyboard.layout;
  el.layout.addEventListener("change", () => {
    chooseKeyboardLayout(el.layout.value);
    update(withState(state, {keyboard: keyboardFor(el.layout.value)}));
    drawKeyRows();
  });
}
drawKeyRows();
setInterval(() => {
  // A message says its piece for a while, then goes.
  if (state.message && state.message.until <= Date.now()) update(say(state, ""));
  else tick(state);
}, 100);

// A seat whose page closed is offered as left once the table's away time has passed.
setInterval(() => drawLeavers(state), 1000);

render(state);
if (el.log) readStory();
if (cfg.auto_join && !state.view.seated && !state.view.over) join(cfg.name);
