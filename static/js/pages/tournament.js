/* An arena tournament's page (templates/tournament.html): its standings live, join / pause /
 * leave, a countdown to its start or end, the podium once finished, a player's games.
 *
 * The page renders from one state object, the server's (GET /api/tournaments/<id>): first the
 * one it was rendered with, then each one the socket /ws/tournaments/<id>/ pushes as the
 * tournament changes, the same way (view = render(state)). The buttons post to the API
 * (POST /api/tournaments/<id>/join, /pause, /withdraw) and the socket brings the change.
 */

import {request, useCsrfToken} from "../lib/api.js";
import {GameSocket, showStatus} from "../lib/socket.js";

const config = JSON.parse(document.getElementById("tournament-config").textContent);
useCsrfToken(config.csrf);

const el = {
  page: document.getElementById("tournament"),
  name: document.getElementById("tournament-name"),
  facts: document.getElementById("tournament-facts"),
  countdown: document.getElementById("countdown"),
  actions: document.getElementById("actions"),
  error: document.getElementById("action-error"),
  podium: document.getElementById("podium"),
  standings: document.getElementById("standings"),
  none: document.getElementById("no-players"),
  pages: document.getElementById("pages"),
  games: document.getElementById("player-games"),
  gamesHeading: document.getElementById("player-games-heading"),
  gamesList: document.getElementById("player-games-list"),
  connection: document.getElementById("connection"),
};

// The one state: the server's tournament, when it was received (for the countdown), the player
// whose games are open and those games, and the last action's error.
const state = {
  tournament: config.state,
  receivedAt: performance.now(),
  player: null,
  playerGames: [],
  error: "",
};

function node(tag, props = {}, ...children) {
  const made = document.createElement(tag);
  Object.assign(made, props);
  made.append(...children.filter((c) => c !== null && c !== undefined));
  return made;
}

const points = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(1));

function secondsLeft(s) {
  const passed = (performance.now() - s.receivedAt) / 1000;
  return Math.max(0, Math.round(s.tournament.seconds_left - passed));
}

function clock(seconds) {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const sec = String(seconds % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

function renderCountdown(s) {
  const t = s.tournament;
  const left = clock(secondsLeft(s));
  el.countdown.textContent =
    t.status === "upcoming" ? `Starts in ${left}` :
    t.status === "running" ? `Ends in ${left}` :
    t.ended_early ? "Finished (ended early)" : "Finished";
  el.countdown.dataset.status = t.status;
}

function renderActions(s) {
  const t = s.tournament;
  const me = t.me;
  const buttons = [];
  if (t.status !== "finished") {
    if (!config.signed_in) {
      buttons.push(node("a", {href: `/accounts/login/?next=${encodeURIComponent(t.url)}`,
        className: "button primary", textContent: "Log in to join"}));
    } else if (!me || me.withdrawn) {
      buttons.push(node("button", {type: "button", className: "primary", id: "join",
        textContent: me ? "Join again" : "Join", onclick: () => act("join")}));
    } else {
      if (me.paused) {
        buttons.push(node("button", {type: "button", className: "primary", id: "join",
          textContent: "Come back", onclick: () => act("join")}));
      } else {
        buttons.push(node("button", {type: "button", id: "pause", textContent: "Pause",
          onclick: () => act("pause")}));
      }
      buttons.push(node("button", {type: "button", id: "withdraw", textContent: "Leave",
        onclick: () => act("withdraw")}));
    }
  }
  const notes = [];
  if (me && !me.withdrawn && t.status !== "finished") {
    if (me.playing) {
      notes.push(node("a", {href: `/games/${me.playing}/`, id: "my-game",
        className: "button primary", textContent: "Go to your table"}));
    } else {
      notes.push(node("span", {className: "muted", id: "my-wait", textContent:
        me.paused ? "Paused: you are not seated until you come back." :
        t.status === "upcoming" ? "Joined: you are seated once it starts." :
        "Waiting for a table…"}));
    }
  }
  el.actions.replaceChildren(...buttons, ...notes);
  el.error.textContent = s.error;
  el.error.hidden = !s.error;
}

/** A cell named for the phone's layout, where each row is a block of labelled cells. */
function labelled(cell, label) {
  cell.dataset.label = label;
  return cell;
}

const pointsText = (value) => `${points(value)} point${value === 1 ? "" : "s"}`;

function playerCell(p) {
  const link = node("button", {type: "button", className: "link-button player-name",
    textContent: p.name, title: `${p.name}'s games`, onclick: () => openPlayer(p.name)});
  const marks = [];
  if (p.on_fire) marks.push(node("span", {className: "badge fire", title: "Two wins in a row: the points count double", textContent: "on fire"}));
  if (p.paused) marks.push(node("span", {className: "badge", textContent: "paused"}));
  if (p.withdrawn) marks.push(node("span", {className: "badge", textContent: "left"}));
  return node("td", {}, link, ...marks.flatMap((m) => [" ", m]));
}

function renderStandings(s) {
  const t = s.tournament;
  const rows = t.standings.map((p) => {
    const now = p.playing ? node("a", {href: `/games/${p.playing}/`, textContent: "playing"}) : "";
    const row = node("tr", {},
      labelled(node("td", {className: "arena-rank", textContent: String(p.rank)}), "Rank"),
      playerCell(p),
      labelled(node("td", {className: "arena-points", textContent: points(p.points)}), "Points"),
      labelled(node("td", {textContent: String(p.games)}), "Games"),
      node("td", {}, now));
    row.dataset.player = p.name;
    if (t.me && p.name === t.me.name) row.className = "me";
    return row;
  });
  el.standings.replaceChildren(...rows);
  el.none.hidden = t.standings.length > 0;
  const pages = [];
  for (let n = 1; n <= t.pages && t.pages > 1; n += 1) {
    pages.push(node("button", {type: "button", textContent: String(n),
      className: n === t.page ? "current" : "", onclick: () => socket.send({type: "page", page: n})}));
  }
  el.pages.replaceChildren(...pages);
}

function renderPodium(s) {
  const podium = s.tournament.podium;
  el.podium.hidden = podium.length === 0;
  const medals = ["1st", "2nd", "3rd"];
  el.podium.replaceChildren(...podium.map((p, i) => node("div", {className: `step step-${i + 1}`},
    node("span", {className: "medal", textContent: medals[i] || ""}),
    node("a", {href: p.url, className: "podium-name", textContent: p.name}),
    node("span", {className: "podium-points", textContent: pointsText(p.points)}))));
}

function renderPlayer(s) {
  el.games.hidden = !s.player;
  if (!s.player) return;
  el.gamesHeading.textContent = `${s.player}'s games`;
  el.gamesList.replaceChildren(...(s.playerGames.length ? s.playerGames.map((g) => node("li", {},
    node("a", {href: g.url, textContent: `Game ${g.game}`}),
    `: place ${g.place}, ${pointsText(g.points)}`,
    g.on_fire ? " (on fire: doubled)" : "")) : [node("li", {className: "muted", textContent: "No game finished yet."})]));
}

function render(s) {
  const t = s.tournament;
  el.page.dataset.status = t.status;
  el.name.textContent = t.name;
  el.facts.textContent = `${t.mode_name} · ${t.minutes} minutes · ${t.rated ? "rated" : "casual"} · ` +
    `${t.bots ? "bots and people" : "people only"} · ${t.players} player${t.players === 1 ? "" : "s"} · ` +
    `${t.games_playing} table${t.games_playing === 1 ? "" : "s"} playing`;
  renderCountdown(s);
  renderActions(s);
  renderPodium(s);
  renderStandings(s);
  renderPlayer(s);
}

async function act(action) {
  const reply = await request("POST", `/api/tournaments/${state.tournament.id}/${action}`);
  state.error = reply.ok ? "" : reply.detail;
  render(state);
  if (reply.ok) socket.sync();
}

async function openPlayer(name) {
  const reply = await request("GET", `/api/tournaments/${state.tournament.id}?player=${encodeURIComponent(name)}`);
  state.player = name;
  state.playerGames = reply.ok ? reply.data.player_games || [] : [];
  render(state);
}

const socket = new GameSocket(config.socket, {
  tournament(message) {
    state.tournament = message.tournament;
    state.receivedAt = performance.now();
    render(state);
    if (state.player) openPlayer(state.player);
  },
  error(message) {
    state.error = message.detail;
    render(state);
  },
  status(status) {
    showStatus(el.connection, status);
  },
});

render(state);
setInterval(() => renderCountdown(state), 1000);
