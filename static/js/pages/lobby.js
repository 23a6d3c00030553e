/* The lobby's "New table" form offers only what the server takes: the server's rules of its
 * options come with the page (json_script "option-rules", games/option_rules.py), and a value
 * that cannot be chosen with the others is disabled, its reason beside its control
 * (lib/option_rules.js). Rated is off, saying why, for a choice that cannot be rated and with
 * more than one computer opponent (each speed's computer is one bot account, and a rated table
 * seats an account once); the speed only matters with computers.
 * The server checks everything again, and shows what it still refuses beside its control. */

import {formState, notes} from "../lib/option_rules.js";
import {challengeHandlers} from "../lib/challenges.js";
import {GameSocket} from "../lib/socket.js";
import {el} from "../lib/dom.js";

const form = document.getElementById("table-form");
const rulesData = document.getElementById("option-rules");
if (form && rulesData) {
  const rules = JSON.parse(rulesData.textContent);
  const rated = form.querySelector("#rated");
  const computers = form.querySelector("#computers");
  const speed = form.querySelector("#speed");
  const practice = form.querySelector("#practice");
  const visibility = [...form.querySelectorAll("input[name=visibility]")];
  const selects = {mode: form.querySelector("#mode"), attributes: form.querySelector("#attributes"), length: form.querySelector("#length")};
  const radios = {rules: [...form.querySelectorAll("input[name=rules]")]};

  const values = () => ({
    rules: form.querySelector("input[name=rules]:checked")?.value,
    mode: selects.mode.value,
    attributes: selects.attributes.value,
    length: selects.length.value,
    rated: !!rated?.checked,
    computers: computers.value,
  });
  const choices = {
    rules: radios.rules.map((input) => input.value),
    ...Object.fromEntries(Object.entries(selects).map(([name, select]) => [name, [...select.options].map((o) => o.value)])),
  };
  const labels = (name) => {
    if (name === "rules") return Object.fromEntries(radios.rules.map((input) => [input.value, input.parentElement.textContent.trim()]));
    return Object.fromEntries([...selects[name].options].map((o) => [o.value, o.textContent.replace(/ \u2014 .*$/, "").trim()]));
  };
  const setNote = (name, lines) => {
    const note = form.querySelector(`[data-note-for="${name}"]`);
    if (note) note.textContent = lines.join(" ");
  };

  const update = () => {
    const state = formState(rules, values(), choices);
    for (const input of radios.rules) {
      const reason = state.off.rules[input.value] || null;
      input.disabled = reason !== null && !input.checked;
      input.parentElement.title = reason || "";
    }
    for (const [name, select] of Object.entries(selects)) {
      for (const option of select.options) {
        const reason = state.off[name][option.value] || null;
        option.disabled = reason !== null && !option.selected;
        option.title = reason || "";
      }
    }
    for (const name of Object.keys(choices)) setNote(name, notes(state.off[name], labels(name)));
    if (rated) {
      if (state.rated.disabled) rated.checked = false;
      rated.disabled = state.rated.disabled;
      setNote("rated", state.rated.reason ? [`Not rated: ${state.rated.reason}`] : []);
    }
    // A practice table is private and unrated (the server's sentences, on the box's data).
    if (practice?.checked) {
      if (rated) {
        rated.checked = false;
        rated.disabled = true;
        setNote("rated", [`Not rated: ${practice.dataset.unrated}`]);
      }
      for (const input of visibility) {
        input.disabled = input.value === "open";
        input.checked = input.value === "private";
        input.parentElement.title = input.value === "open" ? practice.dataset.private : "";
      }
    } else {
      for (const input of visibility) {
        input.disabled = false;
        input.parentElement.title = "";
      }
    }
    const noComputers = values().rated;
    for (const option of computers.options) option.disabled = noComputers && Number(option.value) > 1;
    setNote("computers", noComputers ? [`Rated: ${state.computers.reason}`] : []);
    speed.disabled = computers.value === "0";
  };
  form.addEventListener("change", update);
  form.addEventListener("submit", () => {
    speed.disabled = false;
  });
  update();
}

/* A control the server refused is marked (aria-invalid) and has the focus (autofocus): its
 * folded options are open by then. Browsers skip autofocus inside a closed <details>, and the
 * page may load scrolled: focus it once more, in view. */
const refused = document.querySelector(".lobby-main [autofocus]");
if (refused) {
  refused.closest("details")?.setAttribute("open", "");
  // A control the form has turned off since (Rated, for a choice that cannot be rated): its
  // message, beside it, takes the focus instead.
  const message = document.getElementById(`${refused.id}-error`);
  const target = refused.disabled && message ? message : refused;
  if (target === message) message.tabIndex = -1;
  // After the browser's own autofocus pass (which skips a control turned off meanwhile), and
  // after the page has loaded: the server sends the form back at /#new-table, and a browser
  // scrolling to that fragment on load takes the focus away from the control (Chromium does when
  // the fragment's element, the folded options, cannot have it itself).
  const focusRefused = () => requestAnimationFrame(() => setTimeout(() => {
    target.focus();
    target.scrollIntoView({block: "center"});
  }));
  if (document.readyState === "complete") focusRefused();
  else window.addEventListener("load", focusRefused, {once: true});
}

/* The live lobby: the lobby socket (/ws/lobby/, games/lobby_consumer.py) pushes
 *   {"type": "lobby", "tables": [row...], "idle": [row...], "idle_minutes": n,
 *    "finished": [row...], "online": [{"name", "url"}...], "guests": n}
 * whenever a table is made, filled or ended, turns idle, or someone comes or goes; the lists
 * below are redrawn from it without a reload. The rows are the server's (games/lobby.py), the
 * very ones templates/lobby.html renders first: without scripts the page still shows them.
 *
 * Lobby chat: a pushed {"type": "chat", "name", "text", "at"} frame is dispatched on the
 * document as a CustomEvent "lobby-chat" whose detail is that message, e.g.
 *   document.addEventListener("lobby-chat", (event) => show(event.detail.name, event.detail.text));
 * The lobby's chat widget listens for it; this page keeps no chat of its own. */

function badge(text, className, title) {
  return el("span", {className: className ? `badge ${className}` : "badge", text, attrs: title ? {title} : {}});
}

/** A table's seats as the server-rendered list shows them: name, BOT/cpu/guest badges, rating. */
function seatsCell(row) {
  const cell = el("td", {attrs: {"data-label": "Players"}});
  if (!row.seats.length) cell.append(el("span", {className: "muted", text: "nobody yet"}));
  row.seats.forEach((seat, index) => {
    const kind = seat.is_computer ? " computer" : seat.guest ? " guest" : "";
    const span = el("span", {className: `seat${kind}`, text: seat.name});
    if (seat.bot) span.append(" ", badge("BOT", "badge-bot", "a bot: it plays by program"));
    if (seat.is_computer) span.append(" ", badge("cpu", "", "computer"));
    else if (seat.guest) span.append(" ", badge("guest", "badge-guest", "a guest: no account"));
    if (seat.rating) {
      const games = seat.rating.games;
      const title = `rating (${games} rated game${games === 1 ? "" : "s"})`;
      span.append(" ", el("span", {className: "seat-rating", text: String(seat.rating.rating), attrs: {title}}));
    }
    cell.append(span);
    if (index < row.seats.length - 1) cell.append(", ");
  });
  if (row.rated) cell.append(" ", badge("rated", "badge-rated"));
  else if (row.unrated) cell.append(" ", badge("unrated", "", row.unrated));
  return cell;
}

function link(href, text, className, label) {
  const attrs = {href};
  if (label) attrs["aria-label"] = label;
  return el("a", {className, text, attrs});
}

/** The badges the server gives a game beside its description ("practice"), each after a space. */
function kindBadges(row) {
  return (row.badges || []).flatMap((word) => [" ", badge(word, `badge-${word}`)]);
}

function tableRow(row) {
  const game = el("td", {text: row.description}, kindBadges(row));
  if (!row.is_open) game.append(" ", badge("private"));
  const actions = el("td", {className: "actions"});
  if (row.mine) {
    actions.append(link(row.play_url, "Return", "button primary"));
  } else {
    actions.append(
      link(row.join_url, "Join", "button primary", `Join game ${row.id}`),
      " ",
      link(row.play_url, "Watch", "button", `Watch game ${row.id}`),
    );
  }
  return el("tr", {attrs: {"data-game": String(row.id)}}, [
    el("td", {className: "game-id", text: String(row.id)}),
    el("td", {text: row.kind_label}),
    game,
    seatsCell(row),
    el("td", {text: row.status_label, attrs: {"data-label": "Status"}}),
    actions,
  ]);
}

function liveTables(rows) {
  if (!rows.length) {
    return [el("p", {className: "muted", text: "No table is being played right now: play now, or open the table options.", attrs: {id: "no-tables"}})];
  }
  const heads = ["#", "Kind", "Game", "Players", "Status"].map((text) => el("th", {text, attrs: {scope: "col"}}));
  heads.push(el("th", {attrs: {scope: "col"}}, [el("span", {className: "visually-hidden", text: "Actions"})]));
  const table = el("table", {className: "games", attrs: {id: "open-tables"}}, [
    el("thead", {}, [el("tr", {}, heads)]),
    el("tbody", {}, rows.map(tableRow)),
  ]);
  return [el("div", {className: "table-scroll"}, [table])];
}

function idleTables(rows, minutes, wasOpen) {
  if (!rows.length) return [];
  const items = rows.map((row) => {
    const names = row.seats.map((seat) => seat.name).join(", ") || "nobody";
    return el("li", {attrs: {"data-game": String(row.id)}}, [
      link(row.play_url, `#${row.id} ${row.kind_label}: ${row.description}`),
      ...kindBadges(row),
      " ",
      el("span", {className: "muted", text: `(${names}; last move ${row.quiet_for} ago)`}),
    ]);
  });
  const summary = `Idle tables (${rows.length}): nobody has played at them for ${minutes} minutes`;
  const details = el("details", {className: "idle-tables", attrs: {id: "idle-tables"}}, [
    el("summary", {text: summary}),
    el("ul", {}, items),
  ]);
  details.open = wasOpen;
  return [details];
}

function finishedGames(rows) {
  if (!rows.length) return [el("p", {className: "muted", text: "No game has finished yet."})];
  const heads = ["#", "Kind", "Game", "Scores", "Winners", "Ended"].map((text) =>
    el("th", {text, attrs: {scope: "col"}}),
  );
  heads.push(el("th", {attrs: {scope: "col"}}, [el("span", {className: "visually-hidden", text: "Replay"})]));
  const body = rows.map((row) => {
    const scores = el("td", {attrs: {"data-label": "Scores"}});
    if (!row.seats.length) scores.append(el("span", {className: "muted", text: "no players"}));
    row.seats.forEach((seat, i) => {
      if (i) scores.append(", ");
      scores.append(seat.name);
      if (seat.bot) scores.append(" ", badge("BOT", "badge-bot", "a bot: it plays by program"));
      if (seat.guest) scores.append(" ", badge("guest", "badge-guest", "a guest: no account"));
      scores.append(`\u00a0${seat.score}`);
    });
    const ended = el("td", {attrs: {"data-label": "Ended"}});
    if (row.ended) ended.append(el("time", {text: row.ended_ago, attrs: {datetime: row.ended}}));
    return el("tr", {attrs: {"data-game": String(row.id)}}, [
      el("td", {className: "game-id", text: String(row.id)}),
      el("td", {text: row.kind_label}),
      el("td", {text: row.description}, kindBadges(row)),
      scores,
      el("td", {text: row.winners.join(", ") || "—", attrs: {"data-label": "Winners"}}),
      ended,
      el("td", {className: "actions"}, [
        link(row.replay_url, "Replay", "button", `Replay game ${row.id}`),
      ]),
    ]);
  });
  const table = el("table", {className: "games", attrs: {id: "finished-games"}}, [
    el("thead", {}, [el("tr", {}, heads)]),
    el("tbody", {}, body),
  ]);
  return [el("div", {className: "table-scroll"}, [table])];
}

function onlineNow(online, guests) {
  const parts = [];
  if (online.length) {
    parts.push(el("ul", {className: "online-list"}, online.map((person) => {
      const item = el("li");
      if (person.url) item.append(link(person.url, person.name));
      else item.append(person.name, " ", badge("guest", "badge-guest", "a guest: no account"));
      return item;
    })));
  }
  if (guests) {
    const words = `${online.length ? "and " : ""}${guests} guest${guests === 1 ? "" : "s"} watching`;
    parts.push(el("p", {className: "muted online-guests", text: words}));
  }
  if (!online.length && !guests) {
    parts.push(el("p", {className: "muted online-nobody", text: "Nobody else is in the lobby right now."}));
  }
  return parts;
}

function redraw(frame) {
  const live = document.getElementById("live-tables");
  const idle = document.getElementById("idle-slot");
  const people = document.getElementById("online-now");
  if (live) live.replaceChildren(...liveTables(frame.tables || []));
  if (idle) {
    const wasOpen = !!document.getElementById("idle-tables")?.open;
    idle.replaceChildren(...idleTables(frame.idle || [], frame.idle_minutes, wasOpen));
  }
  if (people) people.replaceChildren(...onlineNow(frame.online || [], frame.guests || 0));
  const finished = document.getElementById("finished-slot");
  if (finished && frame.finished) finished.replaceChildren(...finishedGames(frame.finished));
}

/* Play now's pools (static/js/pages/pool.js) hear this socket through the document: the
 * counts ("lobby-pools": each lobby frame's "pools", and the {"type": "pools"} frames), this
 * visitor's gameStart ("lobby-game-start": a pool's table), and each (re)connection's first
 * frame ("lobby-frame"). */
const tell = (name, detail) => document.dispatchEvent(new CustomEvent(name, {detail}));

if (document.getElementById("live-tables")) {
  let connected = false;
  new GameSocket("/ws/lobby/", {
    ...challengeHandlers, // a signed-in account's challenges (the panel every page has)
    lobby(frame) {
      redraw(frame);
      if (frame.pools) tell("lobby-pools", frame.pools);
      if (!connected) tell("lobby-frame", frame);
      connected = true;
    },
    status(state) {
      if (state !== "live") connected = false;
    },
    pools: (message) => tell("lobby-pools", message.pools),
    gameStart(message) {
      challengeHandlers.gameStart(message);
      tell("lobby-game-start", message.game);
    },
    chat(message) {
      tell("lobby-chat", message);
    },
  });
}
