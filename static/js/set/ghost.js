/* A ghost race's lane beside the board: the recorded run's sets, each shown at the moment it was
 * found in the recording, counted from this race's deal; at the end, who was ahead at each set.
 *
 * The ghost (the view's `ghost`: {game, player, sets: [{at_ms, cards}]}) is the server's, read
 * from the recording's move log; the result (the view's `ghost_result`) too. The lane never
 * claims on the player's board: the boards are the recording's only while the player takes
 * the recording's sets. Each set shown records when it was due and when it was shown
 * (performance.now(), `data-due-perf` and `data-shown-perf`; the deal's is the lane's
 * `data-start-perf`), so a test can read how close to its recorded time it landed.
 */

import {cardRow} from "../lib/board.js";

/** When the race's cards were (or will be) dealt, in the server's epoch ms; null while it waits
 * for its Start. (Any view of the race: one pushed may come without its `ghost`, which the page
 * has from its first.) */
export function raceStart(view) {
  if (!view) return null;
  if (view.status === "waiting") return view.starts_at ?? null;
  return view.started_at ?? null;
}

/** How many of the ghost's sets it had found `elapsed` ms after the deal. */
export function ghostFound(ghost, elapsed) {
  return ghost.sets.filter((set) => set.at_ms <= elapsed).length;
}

/** A time since the deal in seconds, as the result says it ("3.1 s"). */
export function seconds(ms) {
  return ms == null ? "-" : `${(ms / 1000).toFixed(1)} s`;
}

export class GhostLane {
  /** `root`: the lane's element (its #ghost-sets, #ghost-count and #ghost-result inside);
   * `card`: the page's deck. */
  constructor(root, ghost, card) {
    this.root = root;
    this.ghost = ghost;
    this.card = card;
    this.list = root.querySelector("#ghost-sets");
    this.count = root.querySelector("#ghost-count");
    this.resultList = root.querySelector("#ghost-result");
    this.summary = root.querySelector("#ghost-summary");
    this.timers = [];
    this.start = null;
    this.shown = new Set();
    this.finished = false;
  }

  /** Show each set at the deal (server epoch ms `start`) plus its recorded time; `skew` is the
   * server's clock minus the browser's. Once for a deal: a later view of the same deal keeps the
   * timers it set. */
  schedule(start, skew) {
    if (start === this.start || this.finished) return;
    this.timers.forEach(clearTimeout);
    this.timers = [];
    this.start = start;
    this.shown.clear();
    this.list.replaceChildren();
    const startPerf = performance.now() + (start - skew - Date.now());
    this.root.dataset.startPerf = startPerf.toFixed(1);
    this.ghost.sets.forEach((set, i) => {
      const due = startPerf + set.at_ms;
      const delay = due - performance.now();
      if (delay <= 0) this.show(i, due);
      else this.timers.push(setTimeout(() => this.show(i, due), delay));
    });
    this.drawCount();
  }

  show(i, due) {
    if (this.shown.has(i)) return;
    const shownAt = performance.now();
    this.shown.add(i);
    const set = this.ghost.sets[i];
    const item = document.createElement("li");
    item.className = "ghost-set";
    item.dataset.index = String(i);
    item.dataset.atMs = String(set.at_ms);
    item.dataset.duePerf = due.toFixed(1);
    item.dataset.shownPerf = shownAt.toFixed(1);
    const label = document.createElement("span");
    label.className = "ghost-time";
    label.textContent = `Set ${i + 1} · ${seconds(set.at_ms)}`;
    item.append(label, cardRow(set.cards, this.card));
    // In time order, whatever order the timers fire in.
    const after = [...this.list.children].find((other) => Number(other.dataset.index) > i);
    this.list.insertBefore(item, after || null);
    this.drawCount();
  }

  drawCount() {
    if (this.count) this.count.textContent = `${this.shown.size} of ${this.ghost.sets.length}`;
  }

  /** The race is over: the rest of the ghost's sets, at once, and who was ahead at each set. */
  finish(result) {
    this.finished = true;
    this.timers.forEach(clearTimeout);
    this.timers = [];
    this.ghost.sets.forEach((_set, i) => this.show(i, Number.NaN));
    if (!result || !this.resultList) return;
    this.resultList.replaceChildren(
      ...result.sets.map((row, i) => {
        const item = document.createElement("li");
        item.className = `ahead-${row.ahead}`;
        item.textContent = result.lines[i];
        return item;
      }),
    );
    this.resultList.hidden = false;
    if (this.summary) {
      this.summary.textContent = result.summary;
      this.summary.hidden = false;
    }
    this.root.dataset.winner = result.winner;
  }
}
