/* The Square Game page's sentences, from a view. Pure, tested under Node (tests/js/). */

import {plural} from "../lib/format.js";

/** Return the name of `seat` (1-based) in `view`, or "seat N" while it is free. */
export function nameOf(view, seat) {
  return (view.names || [])[seat - 1] || `seat ${seat}`;
}

/** Return an engine message with each "seat N" it names followed by the player's name. */
export function withNames(view, text) {
  return String(text || "").replace(/\bseat (\d)\b/g, (all, seat) => {
    const name = (view.names || [])[Number(seat) - 1];
    return name ? `${name} (seat ${seat})` : all;
  });
}

/**
 * Return an engine message as a sentence for a person: each seat by its player's name, "you"
 * for the reader's own seat (`view.seat`), a capital and a full stop. The status codes stay in
 * the API and the game's saves; the pages say what happened.
 *
 *   "seat 1 placed piece 9/1 at (16,16), closing 2 squares; seat 1 moves again (1 move left)"
 *   -> "You placed piece 9/1 at (16,16), closing 2 squares; you move again (1 move left)."
 */
export function moveSentence(view, text) {
  const mine = view.seat;
  let out = String(text || "").trim();
  if (mine) {
    const me = (rest) => new RegExp(`\\bseat ${mine}${rest}`, "g");
    out = out
      .replace(me(" moves again"), "you move again")
      .replace(me(" emptied their hand"), "you emptied your hand")
      .replace(me(" to move\\b"), "your turn")
      .replace(me("'s\\b"), "your")
      .replace(me("\\b"), "you");
  }
  out = out
    .replace(/\bseat (\d) to move\b/g, (all, seat) => `${nameOf(view, Number(seat))}'s turn`)
    .replace(/\bseat (\d)\b/g, (all, seat) => nameOf(view, Number(seat)));
  if (!out) return "";
  if (/^your?\b/.test(out)) out = out[0].toUpperCase() + out.slice(1);
  return /[.!?]$/.test(out) ? out : `${out}.`;
}

/** Return "Winner: ann." or "Winners: ann, bo." for a finished view. */
export function winnersText(view) {
  const winners = view.winner_names || [];
  const left = (view.left || []).filter(Boolean);
  const gone = left.length ? ` ${left.join(", ")} left the game.` : "";
  return `${winners.length > 1 ? "Winners" : "Winner"}: ${winners.join(", ")}.${gone}`;
}

/** Return the line above the board: whose turn it is and what they may do. */
export function turnText(view, isComputer = () => false) {
  const opening = view.phase === "opening";
  let text;
  if (view.over) {
    text = `Game over. ${winnersText(view)}`;
  } else if (view.phase === "waiting") {
    text = `Waiting for ${plural(view.waiting_for, "more player", "more players")} to join.`;
  } else if (view.your_turn && opening) {
    const [x, y] = view.opening;
    text = `Your opening: choose any piece and any turn of it; it goes at (${x},${y}).`;
  } else if (view.your_turn) {
    const left = view.moves_left > 1 ? ` (${view.moves_left} placements left)` : "";
    text =
      `Your turn: place a piece that closes a new square${left}. ` +
      `${plural(view.legal_count, "legal placement", "legal placements")}.`;
  } else {
    const name = nameOf(view, view.to_move);
    const thinking = isComputer(name) ? " (the computer is thinking)" : "";
    text = `It is ${name}'s ${opening ? "opening" : "turn"}${thinking}.`;
  }
  if (!view.over && view.final_round !== null && view.final_round !== undefined) {
    text += ` Final round: ${plural(view.final_round, "turn", "turns")} left.`;
  }
  return text;
}

/** Return what a move's outcome did, in words (its `message`, the engine's). */
export function outcomeText(view, outcome) {
  return moveSentence(view, outcome.message);
}
