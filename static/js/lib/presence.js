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
  }

  /** Take a presence frame's list of names. */
  update(names) {
    this.here = new Set(names || []);
    for (const name of this.here) this.seen.add(name);
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
