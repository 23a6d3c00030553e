/* The waiting room of a Set table in words: "Waiting for players…", who starts, and the
 * countdown to the deal. Pure, tested under Node (tests/js/waiting.test.mjs); the table page
 * draws the room from its state with these (set/table-state.js waitingRoom), the Start button
 * shown to whoever may press it (the server says so: view.may_start). The countdown runs from
 * view.starts_at, on the server's clock: view.now is the server's now when the view was drawn,
 * so the skew between the two clocks is known.
 */

/** Milliseconds between the server's clock and this one (add it to Date.now()). */
export function skewOf(view, clientNow = Date.now()) {
  return typeof view.now === "number" ? view.now - clientNow : 0;
}

/** Whole seconds left before the deal (rounded up), or null when no countdown runs. */
export function secondsLeft(view, serverNow) {
  if (view.status !== "waiting" || typeof view.starts_at !== "number") return null;
  return Math.max(0, Math.ceil((view.starts_at - serverNow) / 1000));
}

/** The room's line of text: the countdown, or who it waits for. */
export function waitingText(view, serverNow) {
  const left = secondsLeft(view, serverNow);
  if (left !== null) return left > 0 ? `The cards are dealt in ${left}…` : "Dealing…";
  if (view.may_start) return "Waiting for players… Press Start when everyone is here.";
  if (view.host) return `Waiting for players… ${view.host} starts the game.`;
  return "Waiting for players…";
}
