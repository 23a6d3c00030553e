/* Small words and numbers shared by the pages. Pure, tested under Node (tests/js/). */

/** Return "1 set" or "3 sets". */
export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

/** Return a duration in milliseconds as m:ss (negative durations read 0:00). */
export function clock(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)}:${rest < 10 ? "0" : ""}${rest}`;
}

/** Return a list of words as "a", "a and b" or "a, b and c". */
export function listed(words) {
  if (words.length < 2) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}
