/* What a replay says about each step: the action and its outcome in words. Pure, tested under
 * Node. `phrase(text)` names a card in the server's words. */

import {plural} from "../lib/format.js";

const STARTS = {
  set: "The cards are dealt.",
  square: "The board is empty.",
  setwar: "The cards are dealt.",
};

/** Return the sentence for a step's action. */
export function describeAction(step, kind, phrase) {
  const a = step.action || {};
  const who = step.actor || "The game";
  switch (a.type) {
    case "start":
      return STARTS[kind] || "The game begins.";
    case "place":
      return `${who} places piece ${a.piece} (permutation ${a.permutation}) at (${a.x},${a.y}).`;
    case "pass":
      return `${who} passes.`;
    case "opening":
      return `${who} opens with piece ${a.piece}.`;
    case "round":
      return `Round ${a.number}.`;
    case "join":
      return `${who} joins.`;
    case "tick":
      return "Time passes.";
    case "claim":
      return `${who} claims ${(a.cards || []).map(phrase).join(", ")}.`;
    case "declare":
      return `${who} declares.`;
    case "pick":
      return `${who} picks row ${a.row + 1}, column ${a.col + 1}.`;
    case "add":
      return `${who} votes to add cards.`;
    case "hint":
      return `${who} asks for a hint.`;
    case "count":
      return `${who} asks how many sets there are.`;
    default:
      return `${who}: ${JSON.stringify(a)}`;
  }
}

/** Return what a step's outcome did, as clauses joined by "; " ("" when nothing to say). */
export function describeOutcome(step, phrase) {
  const o = step.outcome || {};
  const parts = [];
  for (const event of o.expired || []) {
    if (event.kind === "timeout") parts.push(`${event.player} ran out of time (${event.delta})`);
    else if (event.cards) parts.push("three cards were added");
  }
  // A claim in the server's words (an ultra at an UltraSet table), a set where it says none.
  const what = (step.view && step.view.claim_words && step.view.claim_words.a) || "a set";
  if (o.claim === "set" || o.pick === "set") {
    parts.push(`${what}! +${o.points}${o.hinted ? " (hinted)" : ""}`);
  } else if (o.claim === "not_set" || o.pick === "not_set") {
    parts.push(`not ${what}${o.points ? ` (${o.points})` : ""}${o.locked_out ? ", locked out" : ""}`);
    // Why it is not one, attribute by attribute, in the server's words.
    for (const line of o.why || []) parts.push(line);
  }
  if (o.declare === "declarer") parts.push("declaring");
  if (o.declare === "queued") parts.push("in line to declare");
  if (o.added) parts.push("three cards were added");
  if (o.hint) parts.push(`shown ${phrase(o.hint.card)}`);
  // While the game is played, what a hint showed is its seat's alone (the server withholds it).
  else if ((o.withheld || []).includes("hint")) parts.push("the card shown is theirs until the end");
  if (typeof o.count === "number") parts.push(plural(o.count, "set", "sets"));
  // A Square Game placement in words (its status code stays in the API): what it closed, and
  // what the turn does next.
  if (typeof o.status === "number") {
    const squares = (o.squares || []).length;
    if (squares) parts.push(`closing ${plural(squares, "square", "squares")}`);
    if (o.status === 1) parts.push("moves again");
    if (o.status === 3) parts.push("a hand is empty: the final round begins");
  }
  if (o.dealt) parts.push(`${o.dealt} more cards dealt`);
  if (o.over) parts.push("game over");
  return parts.join("; ");
}

/** Return the cards on a view's board, either rule set's (3 rows of cells, or a flat list). */
function boardCards(view) {
  return ((view && view.board) || []).flat().filter(Boolean).map((cell) => cell.card);
}

/**
 * Return how step `i` is marked on its board (the board after the step): `own`, the cards the
 * step's move names that are still on the board (a wrong claim's, a pick's, a puzzle's set);
 * `taken`, the cards that left the board at this step (a set found), drawn beside it; `dealt`,
 * the cards that came onto the board at this step (after a set, or three added); `hint`, the
 * card a hint showed (when the server tells it).
 */
export function stepMarks(steps, i) {
  const step = steps[i] || {};
  const action = step.action || {};
  const outcome = step.outcome || {};
  const marks = {own: [], taken: [], dealt: [], hint: null};
  if (!step.view || i === 0) return marks; // the deal: every card is new
  const before = boardCards(steps[i - 1].view);
  const after = boardCards(step.view);
  let named = [];
  if (action.type === "claim") {
    named = action.cards || [];
  } else if (action.type === "pick") {
    const board = steps[i - 1].view.board || [];
    const cell = Array.isArray(board[0]) ? (board[action.row] || [])[action.col] : null;
    named = cell ? [cell.card] : [];
  }
  marks.own = named.filter((card) => after.includes(card));
  marks.taken = before.filter((card) => !after.includes(card));
  marks.dealt = after.filter((card) => !before.includes(card));
  if (outcome.hint && after.includes(outcome.hint.card)) marks.hint = outcome.hint.card;
  return marks;
}
