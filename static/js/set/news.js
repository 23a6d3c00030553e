/* What other players did, told from two views of a Set table. Pure, tested under Node. */

/**
 * Return sentences for what changed between `before` and `after` for other players: who found a
 * set, who lost points (declare rules), who joined. The viewer (`after.you`) is left out: the
 * page tells them about their own moves from their results.
 */
export function tellOthers(before, after, {classic}) {
  const old = before.scores || {};
  const now = after.scores || {};
  const news = [];
  for (const name of Object.keys(now)) {
    if (name === after.you || old[name] === undefined || now[name] === old[name]) continue;
    if (now[name] > old[name]) news.push(`${name} found a set.`);
    else if (!classic) news.push(`${name} lost ${old[name] - now[name]} points.`);
  }
  for (const name of Object.keys(now)) {
    if (old[name] === undefined && name !== after.you) news.push(`${name} joined.`);
  }
  return news;
}
