/* What happened at a Set table, in words: other players' moves told from two views of the
 * table, and what a penalty did to a score. Pure, tested under Node. */

/**
 * Return sentences for what changed between `before` and `after` for other players: who found a
 * set, whose claim was wrong (a classic table locks them out; a declare table's declarer who
 * did not score), who lost points, who joined. The viewer (`after.you`) is left out: the page
 * tells them about their own moves from their results.
 */
export function tellOthers(before, after, {classic}) {
  const old = before.scores || {};
  const now = after.scores || {};
  const news = [];
  const failed = failedDeclarer(before, after, old, now);
  for (const name of Object.keys(now)) {
    if (name === after.you || old[name] === undefined) continue;
    if (name === failed) {
      news.push(`${name} did not find a set${change(old[name], now[name])}.`);
    } else if (now[name] > old[name]) news.push(`${name} found a set.`);
    else if (!classic && now[name] < old[name]) news.push(`${name} lost ${old[name] - now[name]} points.`);
  }
  if (classic) {
    const wasLocked = new Set(before.locked || []);
    for (const name of after.locked || []) {
      if (name !== after.you && !wasLocked.has(name)) {
        news.push(`${name} claimed three cards that are not a set and is locked out.`);
      }
    }
  }
  for (const name of Object.keys(now)) {
    if (old[name] === undefined && name !== after.you) news.push(`${name} joined.`);
  }
  return news;
}

/** The declarer of `before` whose turn ended without a set (a wrong pick or the time), if any. */
function failedDeclarer(before, after, old, now) {
  const declarer = before.declare && before.declare.declarer;
  if (!declarer || declarer === after.you || old[declarer] === undefined) return null;
  const still = after.declare && after.declare.declarer === declarer;
  if (still || now[declarer] > old[declarer]) return null;
  // The board is the same: no set was taken (a set found would have changed it or the score).
  return declarer;
}

function change(from, to) {
  if (to < from) return ` and lost ${from - to} points`;
  return `; the score stays at ${to}`;
}

/**
 * Say what a penalty did: `points` is the rules' penalty (-5), `delta` what the score really
 * moved (scores never go below 0), `score` the score after.
 *   penalty(-5, -5, 10) -> "−5 points: your score is 10."
 *   penalty(-5, 0, 0)   -> "−5 points, but the score stays at 0."
 */
export function penalty(points, delta, score) {
  const off = `−${Math.abs(points)} points`;
  if (delta === points) return `${off}: your score is ${score}.`;
  if (delta === 0) return `${off}, but the score stays at ${score}.`;
  return `${off}: the score goes down by ${Math.abs(delta)} to ${score}.`;
}
