/* Play now with people: the lobby's pools (games/pool.py, POST/GET/DELETE /api/pool).
 *
 * The page starts from the server's state (json_script "pool-state", GET /api/pool's shape):
 *   {"waiting": {"pool", "kind", "mode", "rated", "since", "waited_s"} | null,
 *    "seated": {"id", "kind", "url", "pool"} | null,
 *    "pools": {"set:set-classic:rated": 3, ...}, "modes": {kind: {mode: name}},
 *    "kinds": {kind: name}, "wait_limit_s": 10}
 * and keeps it from the lobby socket (static/js/pages/lobby.js dispatches its frames on the
 * document): "lobby-pools" (the counts), "lobby-game-start" (a gameStart of this visitor's: a
 * pool's table goes to it), "lobby-frame" (a reconnection: the state is read again while
 * waiting). The controls are drawn once; render() sets them from the state (view = render(state)).
 * Leaving the lobby page while waiting leaves the pool (nobody is seated at a table they are not
 * at); going to the table one was seated at does not.
 */

import {request} from "../lib/api.js";
import {el} from "../lib/dom.js";

const root = document.getElementById("pool");
const data = document.getElementById("pool-state");

const poolKey = (kind, mode, rated) => `${kind}:${mode}:${rated ? "rated" : "casual"}`;

function parseKey(key) {
  const [kind, mode, rated] = key.split(":");
  return {kind, mode, rated: rated === "rated"};
}

if (root && data) {
  const account = root.dataset.account === "1";
  const named = root.dataset.named === "1";
  const state = {
    ...JSON.parse(data.textContent),
    choice: "", // kind:mode chosen in the select
    rated: false,
    busy: false,
    error: "",
    waitingSince: 0, // the page's clock when the wait began (the server's waited_s before it)
    going: false, // on its way to its table
  };
  const goTo = (url) => {
    state.going = true;
    window.location.assign(url);
  };
  const sinceOf = (waiting) => (waiting ? Date.now() - waiting.waited_s * 1000 : 0);
  state.waitingSince = sinceOf(state.waiting);
  const firstKind = Object.keys(state.modes)[0];
  state.choice = firstKind ? `${firstKind}:${Object.keys(state.modes[firstKind])[0]}` : "";

  const modeName = (kind, mode) => (state.modes[kind] || {})[mode] || mode;
  const poolName = (key) => {
    const {kind, mode, rated} = parseKey(key);
    return `${modeName(kind, mode)}, ${rated ? "rated" : "casual"}`;
  };

  // -- the controls, drawn once -------------------------------------------------------------
  const select = el("select", {attrs: {id: "pool-mode", "aria-label": "Game to play"}});
  for (const [kind, modes] of Object.entries(state.modes)) {
    const group = el("optgroup", {attrs: {label: state.kinds[kind] || kind}});
    for (const mode of Object.keys(modes)) group.append(el("option", {attrs: {value: `${kind}:${mode}`}}));
    select.append(group);
  }
  const rated = el("input", {attrs: {type: "checkbox", id: "pool-rated"}});
  const play = el("button", {className: "primary", text: "Play now", attrs: {type: "button", id: "pool-play"}});
  const choose = el("div", {className: "pool-choose", attrs: {id: "pool-choose"}}, [
    select,
    ...(account ? [el("label", {className: "choice"}, [rated, " Rated"])] : []),
    play,
  ]);
  const here = el("p", {className: "pool-here muted", attrs: {id: "pool-here"}});
  const waitingText = el("p", {className: "pool-waiting-text", attrs: {id: "pool-waiting-text"}});
  const cancel = el("button", {text: "Cancel", attrs: {type: "button", id: "pool-cancel"}});
  const waiting = el("div", {className: "pool-waiting", attrs: {id: "pool-waiting", role: "status"}}, [
    el("span", {className: "pool-spinner", attrs: {"aria-hidden": "true"}}),
    waitingText,
    cancel,
  ]);
  const seated = el("p", {className: "pool-seated", attrs: {id: "pool-seated"}});
  const error = el("p", {className: "form-error", attrs: {id: "pool-error", role: "alert"}});
  const counts = el("div", {className: "pool-counts", attrs: {id: "pool-counts"}});
  const help = el("p", {
    className: "hint-text",
    text:
      `Seated with 1 to 3 players close in rating: at once when 4 wait, or after ` +
      `${Math.round(state.wait_limit_s)} s with whoever is closest.` +
      (account ? "" : " Rated pools are for accounts.") +
      (named ? "" : " Choose your name above first."),
  });
  document.getElementById("pool-body").replaceChildren(choose, here, waiting, seated, error, counts, help);

  function render() {
    const [kind, mode] = state.choice.split(":");
    const chosen = poolKey(kind, mode, state.rated);
    select.value = state.choice;
    for (const option of select.options) {
      const [k, m] = option.value.split(":");
      const n = state.pools[poolKey(k, m, state.rated)] || 0;
      option.textContent = `${modeName(k, m)}${n ? ` (${n} waiting)` : ""}`;
    }
    rated.checked = state.rated;
    choose.hidden = !!state.waiting;
    play.disabled = state.busy;
    const n = state.pools[chosen] || 0;
    here.hidden = !!state.waiting;
    here.textContent = n ? `${n} waiting in ${poolName(chosen)}.` : `Nobody waits in ${poolName(chosen)} yet.`;
    waiting.hidden = !state.waiting;
    if (state.waiting) {
      const seconds = Math.max(0, Math.floor((Date.now() - state.waitingSince) / 1000));
      const others = Math.max(0, (state.pools[state.waiting.pool] || 1) - 1);
      waitingText.textContent =
        `Waiting for players… ${seconds} s in ${poolName(state.waiting.pool)}` +
        ` (${others} other${others === 1 ? "" : "s"} waiting).`;
    }
    cancel.disabled = state.busy;
    seated.hidden = !(state.seated && !state.waiting);
    seated.replaceChildren();
    if (state.seated && !state.waiting) {
      seated.append("Your Play now table is being played: ", el("a", {text: "return to it", attrs: {href: state.seated.url}}), ".");
    }
    error.hidden = !state.error;
    error.textContent = state.error;
    const rows = Object.entries(state.pools).filter(([key]) => {
      const {kind: k, mode: m} = parseKey(key);
      return state.modes[k] && state.modes[k][m];
    });
    counts.replaceChildren();
    if (rows.length) {
      counts.append(el("p", {className: "pool-counts-title", text: "Waiting now:"}));
      counts.append(el("ul", {}, rows.map(([key, count]) => {
        const item = el("li", {attrs: {"data-pool": key}}, [`${poolName(key)}: ${count} `]);
        const {rated: isRated} = parseKey(key);
        if (!state.waiting && (account || !isRated)) {
          item.append(el("button", {text: "Join", className: "pool-join", attrs: {type: "button", "data-pool": key, "aria-label": `Play now: ${poolName(key)}`}}));
        }
        return item;
      })));
    }
  }

  function take(answer) {
    state.waiting = answer.waiting;
    state.seated = answer.seated;
    state.pools = answer.pools || state.pools;
    state.waitingSince = sinceOf(answer.waiting);
  }

  async function enter(kind, mode, isRated) {
    state.busy = true;
    state.error = "";
    render();
    const reply = await request("POST", "/api/pool", {kind, options: {mode, rated: isRated}});
    state.busy = false;
    if (reply.status === 401) {
      // The API's sentence is for programs (it names the Authorization header): a person is
      // shown the name field the lobby asks for.
      state.error = "Choose your name above (or log in), then press Play now.";
      document.getElementById("play-name")?.focus();
    } else if (!reply.ok) {
      state.error = reply.detail;
    } else {
      take(reply.data);
      if (!state.waiting && state.seated && state.seated.pool === poolKey(kind, mode, isRated)) {
        goTo(state.seated.url); // the fourth: seated as it came
        return;
      }
    }
    render();
  }

  async function leave() {
    state.busy = true;
    render();
    const reply = await request("DELETE", "/api/pool");
    state.busy = false;
    if (reply.ok) {
      state.waiting = null;
      const fresh = await request("GET", "/api/pool");
      if (fresh.ok) take(fresh.data);
    } else {
      state.error = reply.detail;
    }
    render();
  }

  select.addEventListener("change", () => {
    state.choice = select.value;
    render();
  });
  rated.addEventListener("change", () => {
    state.rated = rated.checked;
    render();
  });
  play.addEventListener("click", () => {
    const [kind, mode] = state.choice.split(":");
    enter(kind, mode, state.rated);
  });
  cancel.addEventListener("click", leave);
  counts.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-pool]");
    if (!button) return;
    const {kind, mode, rated: isRated} = parseKey(button.dataset.pool);
    state.choice = `${kind}:${mode}`;
    state.rated = isRated;
    enter(kind, mode, isRated);
  });

  document.addEventListener("lobby-pools", (event) => {
    state.pools = event.detail || {};
    render();
  });
  document.addEventListener("lobby-game-start", (event) => {
    const game = event.detail || {};
    if (game.pool && game.url) goTo(game.url);
  });
  document.addEventListener("lobby-frame", async () => {
    // A (re)connection: a seat taken while the socket was away is read from the server.
    if (!state.waiting) return;
    const fresh = await request("GET", "/api/pool");
    if (!fresh.ok) return;
    take(fresh.data);
    if (!state.waiting && state.seated) goTo(state.seated.url);
    render();
  });
  setInterval(() => {
    if (state.waiting) render();
  }, 1000);
  window.addEventListener("pagehide", () => {
    // A seat taken meanwhile is kept: the server leaves only a wait that still waits.
    if (state.waiting && !state.going) request("DELETE", "/api/pool", undefined, {keepalive: true});
  });
  render();
}
