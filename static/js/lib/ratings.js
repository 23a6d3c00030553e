/* A rated game's ratings beside its players' names (the list under the scores). Once the game
 * has rated them, each line also says how far the game moved the rating. */

import {plural} from "./format.js";

/** Return one player's line: "Zoë: 1532 (+32), 5 rated games". */
export function ratingLine(name, rating) {
  const change = Number.isInteger(rating.change)
    ? ` (${rating.change >= 0 ? "+" : "−"}${Math.abs(rating.change)})`
    : "";
  return `${name}: ${rating.rating}${change}, ${plural(rating.games, "rated game", "rated games")}`;
}

/** Draw the ratings ({name: {rating, games, change?}}) into the list, by name. */
export function renderRatings(list, ratings) {
  if (!list || !ratings) return;
  const items = Object.keys(ratings)
    .sort()
    .map((name) => {
      const rating = ratings[name];
      const item = document.createElement("li");
      item.dataset.player = name;
      item.append(`${name}: `);
      const value = document.createElement("strong");
      value.className = "rating";
      value.textContent = String(rating.rating);
      item.append(value);
      if (Number.isInteger(rating.change)) {
        const change = document.createElement("span");
        change.className = `change ${rating.change >= 0 ? "up" : "down"}`;
        change.textContent = ` (${rating.change >= 0 ? "+" : "−"}${Math.abs(rating.change)})`;
        item.append(change);
      }
      const games = document.createElement("span");
      games.className = "muted";
      games.textContent = `, ${plural(rating.games, "rated game", "rated games")}`;
      item.append(games);
      item.title = ratingLine(name, rating);
      return item;
    });
  list.replaceChildren(...items);
}

/** The sentence under a rated game's players (templates/partials/seat_ratings.html): rated, or
 * not rated and why (`unrated`, the game JSON's: "Tim took a hint."). */
export function ratedNote(unrated) {
  return unrated
    ? `Not rated: ${unrated} It moves no rating.`
    : "A rated game: it moves the accounts' ratings when it ends. A hint taken makes it unrated.";
}

/** Say again whether a game created rated still rates, from its JSON (`rated`: it still
 * does; `unrated`: why it does not). */
export function renderRatedNote(note, game) {
  if (!note || !game || !(game.rated || game.unrated)) return;
  note.textContent = ratedNote(game.unrated);
  note.classList.toggle("unrated", !!game.unrated);
}
