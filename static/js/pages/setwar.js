/* The Set War page (templates/setwar.html): deal a game through the API, then watch it.
 *
 *   POST /api/setwar/ {players, cards?, seed?}  -> the stored game's summary
 *   GET  <rounds_url>?start=&limit=             -> a page of its rounds (setwar/rounds.js)
 *
 * The page's config (json_script "setwar-config") carries the API's addresses, the sample game
 * and the deck's table (digits -> [digits, phrase]): cards are drawn and named from the
 * server's words. /setwar/<id>/ opens a stored game; the browser's Back and Forward move
 * between the form and the games dealt.
 */

import {request, useCsrfToken} from "../lib/api.js";
import {deck} from "../lib/cards.js";
import {onDisplayChange} from "../lib/prefs.js";
import {newGameRequest} from "../setwar/form.js";
import {Viewer} from "../setwar/viewer.js";

const config = JSON.parse(document.getElementById("setwar-config").textContent);
useCsrfToken(config.csrf);

const el = {
  form: document.getElementById("setwar-form"),
  error: document.getElementById("setwar-error"),
  busy: document.getElementById("setwar-busy"),
  players: document.getElementById("setwar-players"),
  cards: document.getElementById("setwar-cards"),
  seed: document.getElementById("setwar-seed"),
  play: document.getElementById("setwar-play"),
  shuffle: document.getElementById("setwar-shuffle"),
  sample: document.getElementById("setwar-sample"),
};
const inputs = {players: el.players, cards: el.cards, seed: el.seed};
const viewer = new Viewer({card: deck(config.deck), pageSize: config.page_size});

/** Show what is wrong above the form and mark the fields named in `fields`: the fields' own
 * sentences when the server gave them ("Card 3 is 'abcd': ..."), else `detail`. */
function showError(detail, fields = {}) {
  const sentences = Object.values(fields).flat().filter((text) => typeof text === "string");
  el.error.textContent = sentences.length ? sentences.join(" ") : detail;
  el.error.hidden = false;
  for (const [name, input] of Object.entries(inputs)) {
    if (fields[name]) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
}

function clearError() {
  el.error.hidden = true;
  el.error.textContent = "";
  for (const input of Object.values(inputs)) input.removeAttribute("aria-invalid");
}

function busy(on, text = "") {
  for (const button of [el.play, el.shuffle, el.sample]) button.disabled = on;
  el.busy.textContent = on ? text : "";
}

/** Deal a new game: the cards typed (`withCards`), or the 81 cards shuffled by the seed. */
async function create(withCards) {
  clearError();
  const asked = newGameRequest(
    {
      players: el.players.value,
      // A number field reads "" for text that is not a number: say so rather than "missing".
      playersUnreadable: !!(el.players.validity && el.players.validity.badInput),
      cards: el.cards.value,
      seed: el.seed.value,
    },
    withCards,
  );
  if (asked.error) {
    showError(asked.error, {[asked.field]: true});
    inputs[asked.field].focus();
    return;
  }
  busy(true, "Playing the game…");
  const reply = await request("POST", config.create_url, asked.body);
  busy(false);
  if (!reply.ok) {
    showError(reply.detail, reply.fields);
    return;
  }
  const game = reply.data;
  if (window.location.pathname !== game.url) {
    window.history.pushState({game: game.id}, "", game.url);
  }
  viewer.open(game, true);
}

/** Open the stored game at `url` (its API summary), ready to watch. */
async function openStored(url) {
  const reply = await request("GET", url);
  if (reply.ok) viewer.open(reply.data, false);
  else showError(reply.detail, reply.fields);
}

el.form.addEventListener("submit", (event) => {
  event.preventDefault();
  create(true);
});
el.shuffle.addEventListener("click", () => create(false));
el.sample.addEventListener("click", () => {
  el.players.value = config.sample.players;
  el.cards.value = config.sample.cards;
  clearError();
  el.cards.focus();
});

window.addEventListener("popstate", () => {
  const match = /\/setwar\/(\d+)\/?$/.exec(window.location.pathname);
  if (match && (!viewer.game || String(viewer.game.id) !== match[1])) {
    openStored(config.detail_pattern.replace("{id}", match[1]));
  } else if (!match) {
    viewer.close();
  }
});

onDisplayChange(() => viewer.redraw());

if (config.detail_url) openStored(config.detail_url);
