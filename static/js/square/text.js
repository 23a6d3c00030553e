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

/** Return "Winner: ann." or "Winners: ann, bo." for a finished view. */
export function winnersText(view) {
  const winners = view.winner_names || [];
  return `${winners.length > 1 ? "Winners" : "Winner"}: ${winners.join(", ")}.`;
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

/** Return what a move's outcome means, for the message under the board. */
export function outcomeText(outcome, meanings) {
  const meaning = outcome.meaning || meanings[String(outcome.status)] || "";
  let text = `Status ${outcome.status} — ${meaning}.`;
  if (outcome.action && outcome.action.type === "place") {
    text += ` You closed ${plural((outcome.squares || []).length, "square", "squares")}.`;
  }
  return text;
}
