/* The Set table page's one state, and everything the page draws from it. Pure: no DOM, no
 * clock of its own (`now` is passed in), tested under Node (tests/js/table.test.mjs).
 *
 * The page holds one state object; every change (the first view, a pushed view, a move's
 * outcome, a key, a click, a tick of the clock) makes a new state with the functions here, and
 * the page draws all of it again from the new state (view = render(state)). So a first load, a
 * reload and a pushed change are drawn by the same code.
 *
 *   state = {
 *     view,          // the server's view of the game for this viewer (as pushed)
 *     keyboard,      // {codes, labels, layout}: the keys at the server's places, as named
 *     acting,        // the control the last move came from ("board", "start", "hint"...)
 *     skew,          // the server's clock minus the browser's, in ms
 *     selection,     // card texts chosen on a classic table (not yet claimed)
 *     pending,       // the claim sent and not answered yet, or null
 *     message,       // {text, tone, until} the line under the board, or null
 *     errors,        // {join, start, hint, rematch, action}: a sentence beside its control
 *     socket,        // "connecting" | "live" | "reconnecting" | "closed"
 *     computers, guests, bots,   // seat names (badges: bots are marked BOT)
 *     judged,        // the declarer's own pick was answered (so no "time is up")
 *     hintAsk,       // a rated table asks before a hint: the question is open
 *     hintOk,        // the player said yes to an unrated game (asked once)
 *     next,          // {url, by} a new game of this table's players (a rematch push)
 *     story,         // the table log's entries (contract B), or null where the server has none
 *   }
 */

import {clock, plural} from "../lib/format.js";
import {ranked} from "../lib/scores.js";
import {penalty, tellOthers} from "./story.js";
import {secondsLeft, waitingText} from "./waiting.js";

const WORDS = {one: "set", a: "a set", many: "sets", cards: "three"};
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** Return the server's words for a claim: {one, a, many, cards}. */
export function wordsOf(view) {
  return (view && view.claim_words) || WORDS;
}

/** Return the state a page starts from: the view rendered with it, nothing chosen. */
export function initialState(
  view,
  {skew = 0, computers = [], guests = [], bots = [], socket = "connecting", keyboard = null} = {},
) {
  return {
    view,
    keyboard,
    acting: "board",
    skew,
    selection: [],
    pending: null,
    message: null,
    errors: {},
    socket,
    computers,
    guests,
    bots,
    judged: false,
    hintAsk: false,
    hintOk: false,
    next: null,
    story: null,
    // Memory: the cards this browser turned face up ([{position, card}], in order), and
    // whether they are a refused claim's, shown until the next click.
    revealed: [],
    refused: false,
  };
}

/** Return the state with `changes` (a shallow merge). */
export function withState(state, changes) {
  return {...state, ...changes};
}

/** Return the state with one control's error set (or cleared with ""). */
export function withError(state, control, text) {
  return {...state, errors: {...state.errors, [control]: text || ""}};
}

/** Return the state saying `text` under the board for a while (`now`: the browser's ms). */
export function say(state, text, tone = "", now = 0) {
  if (!text) return {...state, message: null};
  return {...state, message: {text, tone, until: now + (tone === "bad" ? 8000 : 6000)}};
}

/** The game's status in contract A's words, also for a view from before it ("active"/"over"). */
export function statusOf(view) {
  if (view.status === "waiting" || view.status === "active" || view.status === "over") {
    return view.status;
  }
  return view.over ? "over" : "active";
}

export const isClassic = (view) => view.rules !== "declare";
/** Whether the board lies face down (Memory while it is played): the server hides its cards. */
export const isFaceDown = (view) => !!view.face_down && !view.over;

/** Return the view as this browser shows it: in Memory, the cards it turned face up are
 * drawn (selected, unless a refused claim's), the others as their backs, each named by a token
 * of its place ("#5") that no card text can be. Any other view is returned as it is. */
export function shownView(state) {
  const view = state.view;
  if (!isFaceDown(view)) return view;
  const up = new Map(state.revealed.map((r) => [r.position, r.card]));
  // A hint shows its player one card, where it lies: face up for them (highlighted as hinted).
  if (view.hint && typeof view.hint.position === "number" && !up.has(view.hint.position)) {
    up.set(view.hint.position, view.hint.card);
  }
  const board = view.board.map((cell) => {
    const card = up.get(cell.position);
    return card ? {...cell, card, face_down: false} : {...cell, card: `#${cell.position}`, face_down: true};
  });
  return {...view, board};
}

/** Memory: a click on the board place `position`: return {state, reveal} where `reveal` is the
 * place to ask the server to turn up (or null). A card turned up cannot be turned down; after a
 * refused claim, the click hides the three and starts anew with the clicked place. */
export function chooseFaceDown(state, position, now = 0) {
  if (state.pending) return {state, reveal: null};
  let next = state;
  if (state.refused) next = {...state, revealed: [], refused: false, message: null};
  if (next.revealed.some((r) => r.position === position)) return {state: next, reveal: null};
  if (next.revealed.length >= (next.view.claim_size || 3)) return {state: next, reveal: null};
  return {state: next, reveal: position};
}

/** Memory: the places to claim once this browser has turned up a whole claim's cards (and no
 * claim is on its way), else null. */
export function memoryClaim(state) {
  const size = state.view.claim_size || 3;
  if (!isFaceDown(state.view) || state.pending || state.refused || state.revealed.length !== size) {
    return null;
  }
  return state.revealed.map((r) => r.position);
}
export const canPlay = (state) =>
  !!state.view.seated && statusOf(state.view) === "active" && !state.view.paused;

/** Return the card texts of a view's board, in any rule set's shape. */
export function boardCards(view) {
  const board = (view && view.board) || [];
  return board.flat().map((cell) => cell.card);
}

/**
 * Take a pushed view: return {state, fresh, taken, news, scored}: the cards just dealt, the
 * places of the cards just taken ([{card, index}] by their place in the old board), the
 * sentences telling what other players did, and whether anyone scored.
 */
export function receiveView(state, view, now = 0) {
  const before = state.view;
  const previous = boardCards(before);
  const current = boardCards(view);
  const fresh = current.filter((text) => !previous.includes(text));
  const taken = previous.filter((text) => !current.includes(text));
  const scored = Object.entries(view.scores || {}).some(
    ([name, score]) => score > ((before.scores || {})[name] ?? score),
  );
  const classic = isClassic(view);
  const news = statusOf(before) === "waiting" && statusOf(view) === "active" ? [] : tellOthers(before, view, {classic});
  // Contract A's views carry the server's now: the clock's skew follows it.
  const skew = typeof view.now === "number" && now ? view.now - now : state.skew;
  let next = {...state, view, skew};
  if (news.length) next = say(next, news.join(" "), "info", now);
  const was = before.declare ? before.declare.state : "none";
  const is = view.declare ? view.declare.state : "none";
  if (was === "my" && is !== "my" && !state.judged && !view.over) {
    const score = (view.scores || {})[view.you] || 0;
    const lost = ((before.scores || {})[view.you] || 0) - score;
    next = say(
      next,
      lost > 0
        ? `Time is up: −${lost} points, your score is ${score}.`
        : `Time is up; the score stays at ${score}.`,
      "bad",
      now,
    );
  }
  if (is === "my" && was !== "my") next.judged = false;
  if (classic) {
    const onTable = new Set([...current, ...(view.chain || []).map((c) => c.card)]);
    next.selection = state.selection.filter((text) => onTable.has(text));
  }
  // Memory: any claim by anyone turns every browser's cards face down again.
  if (state.revealed.length && (scored || view.over || (view.board || []).length !== (before.board || []).length)) {
    next.revealed = [];
    next.refused = false;
  }
  if (view.over && !before.over) next = say(next, "", "", now);
  if (view.seated && !before.seated) next = withError(next, "join", "");
  return {state: next, fresh, taken, news, scored};
}

/** Choose (or unchoose) a card on a classic table: return {state, claim} where `claim` is the
 * cards to claim now (the selection is full) or null. */
export function chooseCard(state, text, now = 0) {
  const view = state.view;
  if (view.locked_out) {
    return {state: say(state, `You are locked out until another player finds ${wordsOf(view).a}.`, "bad", now), claim: null};
  }
  if (state.pending) return {state, claim: null};
  const selection = state.selection.includes(text)
    ? state.selection.filter((t) => t !== text)
    : [...state.selection, text];
  if (selection.length === (view.claim_size || 3)) {
    return {state: {...state, selection: [], pending: selection}, claim: selection};
  }
  return {state: {...state, selection}, claim: null};
}

/**
 * Tell what a move's outcome means to the one who moved (the message under the board; the table
 * log is the server's story): return {state, sound}, `sound` whether the wrong-claim sound plays.
 */
export function receiveOutcome(state, outcome, {solitaire = false, now = 0} = {}) {
  const o = outcome || {};
  const view = state.view;
  const words = wordsOf(view);
  let next = state;
  let sound = false;
  switch (o.action) {
    case "claim":
      next = {...next, pending: null};
      // Memory: a set scored leaves the board (its places take new cards face down), whether
      // this result comes before the state that says so or after: its places are not claimed
      // again.
      if (o.claim === "set" && isFaceDown(view)) next = {...next, revealed: [], refused: false};
      if (o.claim === "set") {
        const score = solitaire ? "" : `You have ${plural(o.score, words.one, words.many)}.`;
        next = say(next, `${capital(words.one)}! ${score}${o.hinted ? " (hinted)" : ""}`, "good", now);
      } else if (o.claim === "not_set") {
        sound = true;
        const wrong = `Not ${words.a}.${whyOf(o)}`;
        if (o.locked_out) next = say(next, `${wrong} You are locked out until another player scores.`, "bad", now);
        else if (o.released && !solitaire && (view.players || []).length > 1) {
          next = say(next, `${wrong} Everyone was locked out, so everyone may play again.`, "bad", now);
        } else next = say(next, wrong, "bad", now);
      }
      break;
    case "pick":
      if (o.pick === "set") {
        next = say({...next, judged: true}, `Set! +${o.points} points.${o.hinted ? " (hinted)" : ""}`, "good", now);
      } else if (o.pick === "not_set") {
        sound = true;
        next = say({...next, judged: true}, `Not a set: ${penalty(o.points, o.delta, o.score)}${whyOf(o)}`, "bad", now);
      } else if (o.pick === "ignored") {
        next = say(next, "Only the declarer picks: press Set! first.", "info", now);
      }
      break;
    case "declare":
      if (o.declare === "declarer") {
        const seconds = Math.max(1, Math.round((o.deadline - (now + state.skew)) / 1000));
        next = say(next, `Your turn: pick three cards within ${plural(seconds, "second", "seconds")}.`, "info", now);
      } else if (o.declare === "queued") {
        next = say(next, "Someone is declaring; you are next in line.", "info", now);
      }
      break;
    case "add":
      if (o.vote === "recorded") {
        next = say(next, o.added ? "Three more cards were added." : "You voted to add cards; waiting for the others.", "info", now);
      } else if (o.vote === "repeated") {
        next = say(next, "You have already voted to add cards.", "info", now);
      } else if (o.vote === "ignored") {
        next = say(next, "The deck is empty: no more cards to add.", "info", now);
      }
      break;
    case "hint":
      next = {...next, hintAsk: false};
      if (view.practice) {
        // A practice hint shows one card more each press: the outcome holds them all.
        next = {...next, view: {...next.view, hint: o.hint || null}};
        const lit = o.hint ? o.hint.cards.length : 0;
        const size = view.claim_size || 3;
        const text = !o.hint
          ? o.message || `There is no ${words.one} on the board.`
          : lit >= size
            ? `All ${words.cards} cards of ${words.a} are highlighted.`
            : `${lit} of the ${words.cards} cards of ${words.a} ${lit === 1 ? "is" : "are"} highlighted: press Hint for one more.`;
        next = say(next, text, "info", now);
      } else if (o.hint) next = say(next, `One card of ${words.a} is highlighted.`, "info", now);
      else next = say(next, o.message || "There is no set on the board.", "info", now);
      break;
    case "reveal":
      if (o.card && !next.revealed.some((r) => r.position === o.position)) {
        next = {...next, revealed: [...next.revealed, {position: o.position, card: o.card}]};
      }
      break;
    case "show":
      next = {...next, view: {...next.view, show: o.show || null}};
      next = say(
        next,
        o.show
          ? `${capital(words.one)} ${o.show.sets.length} of ${o.show.total} is marked on the board.`
          : o.message || `There is no ${words.one} on the board.`,
        "info",
        now,
      );
      break;
    case "pause":
    case "resume":
      next = say(next, o.paused ? "The game is paused." : "The game goes on.", "info", now);
      break;
    case "count": {
      next = say(next, countText(o.count, view), "info", now);
      break;
    }
    case "start":
      next = withError(next, "start", "");
      break;
    default:
      break;
  }
  return {state: next, sound};
}

/** " Why: color: red, red, green — two alike, one different." for a wrong claim's `why`. */
function whyOf(outcome) {
  const why = outcome.why || [];
  return why.length ? ` ${why.map(capital).join("; ")}.` : "";
}

/** Return what "How many sets?" answers, in the table's words. */
export function countText(count, view) {
  const words = wordsOf(view);
  const where = view.found ? "still to find" : "on the board"; // a puzzle (of any kind) lists its found
  if (count === 0) return `There is no ${words.one} ${where}.`;
  if (count === 1) return `There is 1 ${words.one} ${where}.`;
  return `There are ${count} ${words.many} ${where}.`;
}

/**
 * Take an error the server sent for a move: return the state with the sentence where the eye
 * is: beside the control that caused it (`control`: "join", "start", "hint", "rematch"), or
 * under the board for a move on the cards.
 */
export function receiveError(state, detail, control = "", now = 0) {
  const text = detail || "That did not work.";
  let next = state.pending ? {...state, pending: null, selection: []} : state;
  // Memory: a refused claim's cards stay face up until the next click.
  if (state.pending && isFaceDown(state.view) && state.revealed.length) next = {...next, refused: true};
  if (control && control !== "board") return withError(next, control, text);
  next = say(next, text, "bad", now);
  return next;
}

/** The line above the board: whose turn, what to look for. */
export function turnText(state) {
  const view = state.view;
  const words = wordsOf(view);
  const status = statusOf(view);
  if (status === "over") return "Game over.";
  if (status === "waiting") {
    // The waiting room says the rest.
    return view.seated ? "" : "You are watching: the game has not started yet.";
  }
  if (view.paused) {
    return view.may_pause
      ? "The game is paused: the cards are hidden and the clock has stopped. Resume (Ctrl+Shift+P) to go on."
      : "The game is paused: the cards are hidden and the clock has stopped until the host resumes it.";
  }
  if (!view.seated) return "You are watching this table.";
  if (isClassic(view)) {
    if (view.locked_out) return `You are locked out until another player finds ${words.a}.`;
    if (state.pending) return `Checking your ${words.one}…`;
    const size = view.claim_size || 3;
    const chosen = state.selection.length ? ` (${state.selection.length} of ${size} selected)` : "";
    return lookFor(view, words) + chosen;
  }
  const declare = view.declare || {};
  if (declare.state === "my") return "Your turn: pick three cards!";
  if (declare.state === "up") return `${declare.declarer} is declaring…`;
  return "Press Set! (or pick a card) as soon as you see a set.";
}

function lookFor(view, words) {
  // A table played in another mode: the server words what to look for (its mode table).
  if (view.prompt) return view.prompt;
  return `Find ${words.a}: select ${words.cards} cards.`;
}

/** Return the badges of a player's row: you, computer, guest, declaring, voted, locked out, and
 * here/away (`where(name)`, for people only). */
export function badgesOf(state, name, where = () => null) {
  const view = state.view;
  const badges = [];
  if (name === view.you) badges.push("you");
  if (view.host && name === view.host && statusOf(view) === "waiting") badges.push("host");
  if (state.bots.includes(name)) badges.push("BOT");
  if (state.computers.includes(name)) badges.push("computer");
  if (state.guests.includes(name)) badges.push("guest");
  if (view.declare && view.declare.declarer === name) badges.push("declaring");
  if ((view.votes || []).includes(name)) badges.push("voted to add");
  if ((view.locked || []).includes(name)) badges.push("locked out");
  if (!state.computers.includes(name)) {
    const place = where(name);
    if (place) badges.push(place);
  }
  return badges;
}

/** The server's now (epoch ms) from the browser's `now`. */
export const serverNow = (state, now) => now + state.skew;

/**
 * Return the game clock's text (m:ss since the deal, stopped at the end), or "" while no cards
 * are dealt. Contract A's `started_at`/`ended_at` when the view has them; else the page's
 * `started` (the game's creation) and the result's end.
 */
export function gameClock(state, now, started = null) {
  const view = state.view;
  const status = statusOf(view);
  if (status === "waiting") return "";
  if (view.practice && typeof view.elapsed_ms === "number") {
    // A practice table's time leaves its pauses out: the server's count, run on while running.
    if (view.paused || status === "over" || typeof view.now !== "number") return clock(view.elapsed_ms);
    return clock(view.elapsed_ms + Math.max(0, serverNow(state, now) - view.now));
  }
  const from = view.started_at ?? started;
  if (from === null || from === undefined) return "";
  let end = view.ended_at ?? (view.result && view.result.ended_ms);
  if (status !== "over" || end === null || end === undefined) {
    end = status === "over" && view.elapsed_ms !== undefined ? from + view.elapsed_ms : serverNow(state, now);
  }
  return clock(end - from);
}

/**
 * Return what the waiting room shows: {waiting, names, mayStart, countdown, text}; countdown is
 * the whole seconds left before the deal (from `starts_at`, on the server's clock) or null.
 */
export function waitingRoom(state, now) {
  const view = state.view;
  if (statusOf(view) !== "waiting") return {waiting: false};
  const names = view.players || Object.keys(view.scores || {});
  const at = serverNow(state, now);
  const countdown = secondsLeft(view, at);
  let text = waitingText(view, at);
  if (countdown === null && view.may_start && names.length < 2) {
    text = "Waiting for players… Invite a friend with the link, or press Start to play alone.";
  }
  return {waiting: true, names, mayStart: !!view.may_start && countdown === null, countdown, text};
}

/** What the controls show: each one's {disabled, hidden, text}. */
export function controlsOf(state) {
  const view = state.view;
  const playing = canPlay(state);
  const status = statusOf(view);
  const votes = (view.votes || []).length;
  const voted = (view.votes || []).includes(view.you);
  return {
    hidden: status !== "active" || !view.seated, // a spectator has no buttons to press
    hint: {disabled: !playing},
    count: {disabled: !playing},
    // A practice table's "show me", and its pause for its host.
    show: {hidden: !view.practice, disabled: !playing},
    pause: {
      hidden: !view.practice || !view.may_pause,
      text: view.paused ? "Resume" : "Pause",
      pressed: !!view.paused,
    },
    clear: {disabled: !playing || !state.selection.length},
    declare: {disabled: !playing || (view.declare && view.declare.state === "my")},
    add: {
      disabled: !playing || !view.deck_left || voted,
      text: "Add cards" + (votes ? ` (${votes} of ${Math.max((view.present || []).length, votes)} voted)` : ""),
    },
  };
}

/** Whether a hint must be asked about first: the table is rated (the view's `rated`, else the
 * page's) and this page has not been told yes yet. */
export function hintNeedsAsking(state, rated) {
  return !!(state.view.rated ?? rated) && !state.hintOk;
}

/** Return the game-over panel's sentence. `started`: the page's start time (ms) for older views;
 * `origin`, `day`: for the puzzle's shareable line. Returns {text, share}. */
export function resultText(state, {solitaire = false, started = 0, origin = "", day = null} = {}) {
  const view = state.view;
  const result = view.result;
  if (!view.over || !result) return {text: "", share: ""};
  const scores = result.scores || {};
  const from = view.started_at ?? started;
  if (view.mode === "puzzle") {
    const time = clock(view.elapsed_ms ?? result.ended_ms - from);
    const who = view.you || Object.keys(scores)[0] || "Nobody";
    const total = view.sets_total;
    const text =
      Object.keys(scores).length > 1
        ? `All ${total} sets found in ${time}. Scores: ${ranked(scores).map((n) => `${n} ${scores[n]}`).join(", ")}.`
        : `${view.you ? "You" : who} found all ${total} sets in ${time}.`;
    const wrong = (view.wrong || {})[who] || 0;
    const title = day ? `Set daily puzzle ${day}` : "Set puzzle";
    const share =
      `${title}: ${total}/${total} sets in ${time}` +
      `${wrong ? `, ${plural(wrong, "wrong claim", "wrong claims")}` : ", no wrong claim"}` +
      `${(result.hinted || {})[who] ? " (hinted)" : ""} ${origin}${day ? "/puzzle/" : ""}`;
    return {text, share};
  }
  if (view.race) return raceResultText(view, origin);
  if (solitaire) {
    const who = view.you || Object.keys(scores)[0];
    const found = scores[who] || 0;
    return {
      text: `${view.you ? "You" : who || "Nobody"} found ${plural(found, "set", "sets")} in ${clock(result.ended_ms - from)}.`,
      share: "",
    };
  }
  const winners = result.winners || [];
  const parts = ranked(scores).map((name) => `${name} ${scores[name]}`);
  let text;
  if (!winners.length) text = "Nobody played.";
  else if (winners.includes(view.you)) {
    const others = winners.filter((w) => w !== view.you);
    text = others.length ? `You share the win with ${others.join(", ")}!` : "You won!";
  } else {
    text = `${winners.length > 1 ? "Winners: " : "Winner: "}${winners.join(", ")}.`;
  }
  return {text: `${text} Scores: ${parts.join(", ")}.`, share: ""};
}

/** What a `rematch` push offers: a player to play again, a spectator to watch or join. */
export function nextGameOffer(state) {
  const next = state.next;
  if (!next || !next.url) return null;
  const view = state.view;
  const by = next.by && next.by !== view.you ? next.by : null;
  if (view.seated) {
    return {
      text: by ? `${by} wants to play again: press "Play again" to join.` : "The new game is ready.",
      watch: null,
      join: null,
    };
  }
  const joinUrl = next.url + (next.url.includes("?") ? "&" : "?") + "join=1";
  return {
    text: `${by ? `${by} started` : "The players started"} a new game of this table.`,
    watch: next.url,
    join: joinUrl,
  };
}

/** Return a race's time as people read it: seconds to the hundredth, with minutes past one. */
export function raceTime(ms) {
  const hundredths = Math.max(0, Math.round(ms / 10));
  const minutes = Math.floor(hundredths / 6000);
  const seconds = ((hundredths % 6000) / 100).toFixed(2);
  return minutes ? `${minutes}:${seconds.padStart(5, "0")}` : `${seconds} s`;
}

/** Return what the head of a race's table shows: "Set-10 race: 3 of 10". */
export function raceStatus(view) {
  const race = view.race;
  if (!race) return "";
  return `Set-${race.target} race: ${race.found} of ${race.target}`;
}

/** A finished race's result in words: {text, share} (the winner by most sets, a tie going to
 * the earlier last set; the time from the deal to the N-th set). */
function raceResultText(view, origin) {
  const race = view.race;
  const result = race.result || {};
  const names = Object.keys(race.players || {});
  if (!result.finished) {
    return {text: `The cards ran out of sets after ${plural(race.found, "set", "sets")}: the race is unfinished.`, share: ""};
  }
  const time = raceTime(result.ms);
  if (names.length <= 1) {
    const who = view.you || names[0] || "Nobody";
    return {
      text: `${view.you ? "You" : who} found ${race.target} sets in ${time}.`,
      share: `Set-${race.target} race: ${race.target} sets in ${time} ${origin}/races/`,
    };
  }
  const order = result.order || names;
  const parts = order.map((name) => {
    const player = race.players[name] || {sets: 0, last_ms: null};
    return `${name} ${player.sets}${player.last_ms === null ? "" : ` (last at ${raceTime(player.last_ms)})`}`;
  });
  const winner = result.winner;
  const head = winner === view.you ? "You won the race!" : `${winner} won the race.`;
  return {
    text: `${head} ${race.target} sets in ${time}. Sets: ${parts.join(", ")}.`,
    share: "",
  };
}
