/* Who is at a table: "here" or "away", from the server's presence frames (the seats with a
 * socket open, {"type": "presence", "here": [names]}) and, for players who never had one here
 * (a program playing over the API or the text protocol), from the rules' own view (`present`,
 * `away`: a request within the table's away time). Pure, tested under Node.
 *
 *   const presence = new Presence();
 *   presence.update(["ada", "bob"]);          // a frame
 *   presence.of("bob", view)                  // -> "here" | "away" | null (nothing known)
 */

export class Presence {
  constructor() {
    this.here = new Set();
    this.seen = new Set(); // names that had a socket here while this page was open
    this.goneAt = new Map(); // name -> when (ms) its last socket closed, while it stays gone
  }

  /** Take a presence frame's list of names (at `now`, ms). */
  update(names, now = Date.now()) {
    this.here = new Set(names || []);
    for (const name of this.here) {
      this.seen.add(name);
      this.goneAt.delete(name);
    }
    for (const name of this.seen) {
      if (!this.here.has(name) && !this.goneAt.has(name)) this.goneAt.set(name, now);
    }
  }

  /** The players among `names` whose page has been closed for `awayMs` or longer at `now`: they
   * may be said to have left (the server judges: the rules' own away time counts too). */
  leavers(names, awayMs, now = Date.now()) {
    return (names || []).filter((name) => {
      const gone = this.goneAt.get(name);
      return gone !== undefined && now - gone >= awayMs;
    });
  }

  /** Return "here", "away" or null for the player `name`, given the page's `view`. */
  of(name, view = {}) {
    if (this.here.has(name)) return "here";
    if (this.seen.has(name)) return "away"; // their socket closed: they left
    if ((view.present || []).includes(name)) return "here";
    if ((view.away || []).includes(name)) return "away";
    return null;
  }
}
