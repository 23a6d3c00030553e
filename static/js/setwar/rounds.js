/* A stored Set War game's rounds, fetched a page at a time as the viewer needs them.
 *
 * Step 0 is the deal; step k shows round k. A 10000-round draw opens at once because only the
 * page holding the step on show is fetched, and the next page a little before it is needed.
 *
 *   const book = new RoundBook({total: 110, size: 500, load: (start, limit) => request(...)});
 *   const problem = await book.ensure(7);   // "" when round 7 is here, else the reply's detail
 *   book.round(7)                           // {number, plays, taker, piles, set_cards, out}
 *
 * `load(start, limit)` answers in lib/api.js's shape ({ok, data: {rounds}, detail}).
 * Pure logic, tested under Node (tests/js/setwar.test.mjs).
 */

/** How many steps ahead of the one on show the next page is fetched. */
export const AHEAD = 50;

/** Return `step` brought within the game: 0 (the deal) to `total` (its last round). */
export function clampStep(step, total) {
  return Math.max(0, Math.min(total, step));
}

/** Return where the page holding round `step` starts (rounds skipped), or null for the deal. */
export function pageStart(step, size) {
  if (step < 1) return null;
  return Math.floor((step - 1) / size) * size;
}

/** Return the round to have at hand while `step` is on show: AHEAD further, within the game. */
export function aheadOf(step, total, ahead = AHEAD) {
  return Math.min(total, step + ahead);
}

export class RoundBook {
  constructor({total, size, load}) {
    this.total = total;
    this.size = size;
    this.load = load;
    this.rounds = new Map();
    this.pending = new Map();
  }

  /** Return round `step` if it has been fetched, else null (always null for the deal). */
  round(step) {
    return this.rounds.get(step) || null;
  }

  /** Tell whether step `step` can be shown without a fetch. */
  has(step) {
    return step === 0 || this.rounds.has(step);
  }

  /** Fetch the page starting at `start` once; resolve to "" or, on failure, the detail. */
  fetchPage(start) {
    if (!this.pending.has(start)) {
      const job = Promise.resolve(this.load(start, this.size)).then((reply) => {
        if (!reply.ok) {
          // Forget the failure, so that the next step asks again.
          this.pending.delete(start);
          return reply.detail || "The rounds could not be read.";
        }
        for (const round of (reply.data && reply.data.rounds) || []) {
          this.rounds.set(round.number, round);
        }
        return "";
      });
      this.pending.set(start, job);
    }
    return this.pending.get(start);
  }

  /** Make step `step` ready to show; resolve to "" or the detail of the failure. */
  ensure(step) {
    if (this.has(step)) return Promise.resolve("");
    return this.fetchPage(pageStart(step, this.size));
  }

  /** Fetch the page after `step`'s a little before it is needed; resolve as `ensure`. */
  prefetch(step) {
    return this.ensure(aheadOf(step, this.total));
  }
}
