/* The score list, drawn alike on every page: best score first, ties by name. */

/** Return the names of `scores` (name -> points) ranked: most points first, ties by name. */
export function ranked(scores) {
  return Object.keys(scores || {}).sort(
    (a, b) => scores[b] - scores[a] || (a < b ? -1 : a > b ? 1 : 0),
  );
}

/**
 * Draw `scores` into the list `element`: one item per player, ranked, with badges.
 *
 * `badges(name)` returns the badge words for a player ("you", "computer", "away"...);
 * `value(name)` the text of their score (default: the points); `me` marks the viewer's row.
 */
export function renderScores(element, scores, {badges = () => [], value, me = null, empty} = {}) {
  element.textContent = "";
  const names = ranked(scores);
  if (!names.length) {
    const item = document.createElement("li");
    item.className = "muted";
    item.textContent = empty || "Nobody has joined yet.";
    element.appendChild(item);
    return;
  }
  for (const name of names) {
    const item = document.createElement("li");
    item.dataset.player = name;
    // The name and its badges wrap inside their own box; the points keep their place at the end.
    const who = document.createElement("span");
    who.className = "score-who";
    const label = document.createElement("span");
    label.className = "score-name";
    label.textContent = name;
    who.appendChild(label);
    for (const badge of badges(name)) {
      const tag = document.createElement("span");
      tag.className = `badge badge-${badge.split(" ")[0]}`;
      tag.textContent = badge;
      who.appendChild(tag);
    }
    item.appendChild(who);
    const points = document.createElement("span");
    points.className = "score-value";
    points.textContent = value ? value(name) : String(scores[name]);
    item.appendChild(points);
    if (name === me) item.classList.add("me");
    element.appendChild(item);
  }
}
