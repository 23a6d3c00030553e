/* The Set War form: what it sends to POST /api/setwar/, or what it must say first.
 *
 * The server judges the player count and the cards (in sentences: "Card 3 is 'abcd': a card is
 * four digits 0-2."); the page only says what it cannot send: no count at all, a count the
 * number field could not read, or a seed that a JSON number cannot carry exactly.
 * Pure, tested under Node (tests/js/setwar.test.mjs).
 */

/**
 * Return {body} to send, or {error, field} to show instead.
 *
 * `form` is {players, playersUnreadable, cards, seed}: the fields' text, and whether the
 * number field held text that is not a number (it then reads as ""). With `withCards` the
 * cards typed are dealt; without, the 81 cards are shuffled by the seed (random if none).
 */
export function newGameRequest(form, withCards) {
  const players = String(form.players || "").trim();
  if (!players) {
    const error = form.playersUnreadable
      ? "The number of players is not a whole number: give one from 1 to 1,000,000."
      : "How many players? Give a whole number from 1 to 1,000,000.";
    return {error, field: "players"};
  }
  const body = {players};
  if (withCards) {
    body.cards = form.cards || "";
    return {body};
  }
  const seed = String(form.seed || "").trim();
  if (seed) {
    if (!/^[0-9]+$/.test(seed) || !Number.isSafeInteger(Number(seed))) {
      return {
        error: `The seed is ${JSON.stringify(seed)}: a seed is a whole number from 0 to ${Number.MAX_SAFE_INTEGER}.`,
        field: "seed",
      };
    }
    body.seed = Number(seed);
  }
  return {body};
}
