/* What the Set War viewer says about a game and a step of it, in words.
 *
 * `game` is the API's summary (players, seed, shuffled, deck, dealt, rounds, winner, draw,
 * final_line); `round` one entry of its round log ({number, plays: [{player, card}], taker,
 * piles, set_cards, out}), or null for the deal. Pure, tested under Node (tests/js/).
 */

import {plural} from "../lib/format.js";

function cards(count) {
  return plural(count, "card", "cards");
}

function players(count) {
  return plural(count, "player", "players");
}

function rounds(count) {
  return plural(count, "round", "rounds");
}

/** Return the game's one-line summary: players, how it was dealt, how long it lasted. */
export function summaryLine(game) {
  const deal = game.shuffled
    ? `81 cards shuffled with seed ${game.seed}`
    : `${cards(game.deck.length)} as entered`;
  return `${players(game.players)} · ${deal} · ${rounds(game.rounds)}`;
}

/** Return the label of step `step`: the deal, or "Round k of n". */
export function stepLabel(step, game) {
  return step ? `Round ${step} of ${game.rounds}` : `The deal (${rounds(game.rounds)} to play)`;
}

/** Return what happened in `round` (null: the deal), as a sentence or two. */
export function describe(round, game) {
  if (!round) {
    if (game.dealt.length === 1) return "Player 0 is dealt every card.";
    return `The cards are dealt to ${players(game.dealt.length)}. Player 0 starts.`;
  }
  const plays = round.plays;
  if (!plays.length) {
    return `Player ${round.taker} holds every card and wins without a card being played.`;
  }
  const last = plays[plays.length - 1];
  if (!round.set_cards) {
    return (
      `Player ${last.player} plays their last card without a set and is out. ` +
      `Player ${round.taker}, the only one left holding cards, takes the line ` +
      `(${cards(plays.length)}).`
    );
  }
  let text =
    `Player ${round.taker} plays ${last.card}, which makes a set with ${round.set_cards[0]} ` +
    `and ${round.set_cards[1]}, and takes the line (${cards(plays.length)}).`;
  if (round.out.length) {
    text += ` Out this round: ${round.out.map((player) => `Player ${player}`).join(", ")}.`;
  }
  if (game.draw && round.number === game.rounds) {
    text += " A set in the last allowed round: the game is a draw.";
  }
  return text;
}

/** Return the line's count as shown beside its heading ("" at the deal, when there is none). */
export function lineCount(round) {
  return round ? `(${cards(round.plays.length)})` : "";
}

/** Return "" or the sentence naming the players dealt no card (more players than cards). */
export function idleText(piles, playerCount) {
  const idle = playerCount - piles.length;
  if (idle <= 0) return "";
  const who =
    idle === 1 ? `Player ${piles.length} is` : `Players ${piles.length} to ${playerCount - 1} are`;
  return `${who} dealt no card: there are more players than cards.`;
}

/**
 * Return a player's badges at a step, each [text, kind]: the winner at the end, or who took
 * the line; who ran out this round, or was out before.
 */
export function playerBadges(player, size, round, game, over) {
  const badges = [];
  if (over && game.winner === player) badges.push(["winner", "winner"]);
  else if (round && round.taker === player) badges.push(["took the line", "taker"]);
  if (round && round.out.includes(player)) badges.push(["out this round", "out"]);
  else if (!size) badges.push(["out", "gone"]);
  return badges;
}

/** Return a pile's share of the deck as a CSS width ("37.5%"). */
export function pileWidth(size, total) {
  return `${((100 * size) / (total || 1)).toFixed(1)}%`;
}
