/* Challenges on every page of a signed-in account (templates/base.html loads this module).
 *
 * The account's challenges waiting for an answer are read once (GET /api/challenge), then kept
 * by the lobby socket (/ws/lobby/, games.lobby_consumer), which sends the account's events:
 *   {"type": "challenge", "challenge": {...}}          a challenge to it, or one it sent
 *   {"type": "challengeCanceled" | "challengeDeclined", "challenge": {...}}
 *   {"type": "gameStart", "game": {"id", "kind", "url", "challenge"}}
 * An incoming challenge shows with Accept and Decline; an outgoing one with Cancel. When a
 * challenge shown here becomes a game (accepted, here or in another browser), the page goes to
 * the table. The panel renders from one state object: view = render(state).
 */

import {request} from "./api.js";
import {GameSocket} from "./socket.js";

const panel = document.getElementById("challenges");

const state = {
  me: panel ? panel.dataset.me : "",
  challenges: new Map(), // id -> challenge, those waiting for an answer
  notes: new Map(), // id -> a sentence about a challenge that ended ("bob declined: ...")
  error: "",
};

function describe(challenge) {
  const options = challenge.options || {};
  const way = [options.rules || "declare", options.mode, options.attributes && `${options.attributes} attributes`];
  const kind = challenge.kind === "square" ? "Square Game" : `Set (${way.filter(Boolean).join(", ")})`;
  return `${kind}${options.rated ? ", rated" : ""}`;
}

function button(label, action, id) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  element.dataset.action = action;
  element.dataset.challenge = String(id);
  return element;
}

function render() {
  if (!panel) return;
  panel.replaceChildren();
  const expired = (c) => Date.parse(c.expires) <= Date.now();
  const shown = [...state.challenges.values()].filter((c) => !expired(c));
  for (const challenge of shown) {
    const row = document.createElement("div");
    row.className = "challenge";
    row.dataset.challenge = String(challenge.id);
    const text = document.createElement("p");
    if (challenge.dest === state.me) {
      text.textContent = `${challenge.challenger} challenges you: ${describe(challenge)}.`;
      row.append(text, button("Accept", "accept", challenge.id), button("Decline", "decline", challenge.id));
    } else {
      text.textContent = `You challenged ${challenge.dest}: ${describe(challenge)}. Waiting for an answer…`;
      row.append(text, button("Cancel", "cancel", challenge.id));
    }
    panel.append(row);
  }
  for (const note of state.notes.values()) {
    const line = document.createElement("p");
    line.className = "challenge-note";
    line.textContent = note;
    panel.append(line);
  }
  if (state.error) {
    const line = document.createElement("p");
    line.className = "form-error";
    line.setAttribute("role", "alert");
    line.textContent = state.error;
    panel.append(line);
  }
  panel.hidden = !shown.length && !state.notes.size && !state.error;
}

function offered(challenge) {
  if (challenge.status === "created") state.challenges.set(challenge.id, challenge);
  render();
}

function ended(challenge, sentence) {
  state.challenges.delete(challenge.id);
  state.notes.set(challenge.id, sentence);
  render();
}

async function act(action, id) {
  const reply = await request("POST", `/api/challenge/${id}/${action}`, action === "decline" ? {reason: "generic"} : undefined);
  state.error = reply.ok ? "" : reply.detail;
  if (reply.ok && action === "accept") {
    window.location.assign(reply.data.url);
    return;
  }
  if (reply.ok) state.challenges.delete(id);
  render();
}

/** What the lobby socket's challenge frames do: the lobby page's own socket takes these
 * (static/js/pages/lobby.js); any other page of the account opens a socket for them. */
export const challengeHandlers = {
  challenge: (message) => offered(message.challenge),
  challengeCanceled: (message) =>
    ended(message.challenge, `${message.challenge.challenger} canceled their challenge.`),
  challengeDeclined: (message) =>
    ended(message.challenge, `${message.challenge.dest} declined: ${message.challenge.reason_text || "no reason given"}`),
  gameStart: (message) => {
    const game = message.game || {};
    // A challenge of this page's became a table (accepted here or elsewhere): go and play.
    if (game.challenge !== undefined && state.challenges.has(game.challenge)) {
      window.location.assign(game.url);
    }
  },
};

if (panel) {
  panel.addEventListener("click", (event) => {
    const target = event.target.closest("button[data-action]");
    if (target) act(target.dataset.action, Number(target.dataset.challenge));
  });
  request("GET", "/api/challenge").then((reply) => {
    if (!reply.ok) return;
    for (const challenge of [...reply.data.incoming, ...reply.data.outgoing]) offered(challenge);
  });
  // The lobby page has its socket already (one socket a page: one presence, one reading).
  if (!document.getElementById("live-tables")) new GameSocket("/ws/lobby/", challengeHandlers);
  // Expired challenges leave the panel as their time runs out.
  setInterval(render, 5000);
  render();
}
