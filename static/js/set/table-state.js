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
export const canPlay = (state) => !!state.view.seated && statusOf(state.view) === "active";

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
      if (o.hint) next = say(next, `One card of ${words.a} is highlighted.`, "info", now);
      else next = say(next, o.message || "There is no set on the board.", "info", now);
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
  const where = view.mode === "puzzle" ? "still to find" : "on the board";
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
  if (view.mode === "ultra") {
    return `Find ${words.a}: select ${words.cards} cards, two pairs that need the same third card.`;
  }
  if (view.mode === "chain" && (view.chain || []).length) {
    return "Find a set through the chain: one card of the chain and two from the board.";
  }
  if (view.mode === "puzzle") {
    const left = view.sets_total - (view.found || []).length;
    return `Find the sets: ${plural(left, "set", "sets")} still to find.`;
  }
  return "Find a set: select three cards.";
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
