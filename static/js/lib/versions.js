/* Which game versions a page has shown, and when it must ask for the state again.
 *
 * Every state the server pushes carries the game's version; a result names the version its move
 * made. A state older than the one shown is stale (dropped); a result newer than the state shown
 * is a gap: its state normally follows at once, otherwise the page asks for a sync.
 * Pure logic, tested under Node (tests/js/).
 */

export class Versions {
  constructor(shown = -1) {
    this.shown = shown;
  }

  /** Tell whether a state at `version` should be shown (and remember it if so). */
  takeState(version) {
    if (typeof version !== "number") return true;
    if (version < this.shown) return false;
    this.shown = version;
    return true;
  }

  /** Tell whether a result at `version` leaves a gap: a version no state has shown yet. */
  isGap(version) {
    return typeof version === "number" && version > this.shown;
  }
}

/** Return the delay before reconnection attempt `attempts` (0, 1, ...), growing to a cap, with
 * jitter from `random` (0 to 1) so many pages do not reconnect at the same instant. */
export function retryDelay(attempts, random = Math.random, minimum = 500, maximum = 10000) {
  const full = Math.min(maximum, minimum * 2 ** attempts);
  return full / 2 + (random() * full) / 2;
}
