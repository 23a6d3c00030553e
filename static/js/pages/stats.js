/* The statistics page (templates/stats.html): start a simulation on the server, show its
 * progress, then the charts the server drew for it.
 *
 *   POST /stats/runs {games, attributes}  -> 202 and the run's status {id, status, done, games, url}
 *   GET  <url>                           -> the status; once "done", its report and its charts
 *                                           ("html", SVG drawn on the server)
 *
 * The page's address becomes /stats/?run=<id>, so a reload (or the link) shows the same run.
 */

import {request, useCsrfToken} from "../lib/api.js";

const config = JSON.parse(document.getElementById("stats-config").textContent);
useCsrfToken(config.csrf);

const POLL_MS = 300;
const el = {
  form: document.getElementById("simulation-form"),
  games: document.getElementById("simulation-games"),
  attributes: document.getElementById("simulation-attributes"),
  start: document.getElementById("simulation-start"),
  error: document.getElementById("simulation-error"),
  progress: document.getElementById("simulation-progress"),
  bar: document.getElementById("simulation-bar"),
  count: document.getElementById("simulation-count"),
  result: document.getElementById("simulation-result"),
};

const number = (value) => Number(value).toLocaleString("en-US");

function showError(detail) {
  el.error.textContent = detail;
  el.error.hidden = !detail;
}

function showProgress(run) {
  el.progress.hidden = false;
  el.bar.max = run.games;
  el.bar.value = run.done;
  el.count.textContent = `${number(run.done)} of ${number(run.games)}`;
}

/** Poll the run until it is done (or failed), updating the bar, then show its charts. */
async function follow(run) {
  el.start.disabled = true;
  el.result.replaceChildren();
  showProgress(run);
  for (;;) {
    if (run.status === "done") {
      showProgress(run);
      el.result.innerHTML = run.html;  // the server's own markup: SVG charts and tables
      el.progress.hidden = true;
      break;
    }
    if (run.status === "failed") {
      showError(run.error || "The simulation stopped on an error.");
      el.progress.hidden = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const reply = await request("GET", run.url);
    if (!reply.ok) {
      showError(reply.detail);
      el.progress.hidden = true;
      break;
    }
    run = reply.data;
    showProgress(run);
  }
  el.start.disabled = false;
}

el.form.addEventListener("submit", async (event) => {
  event.preventDefault();
  showError("");
  el.start.disabled = true;
  const reply = await request("POST", config.runs_url, {
    games: Number(el.games.value),
    attributes: Number(el.attributes.value),
  });
  if (!reply.ok) {
    showError(reply.detail);
    el.start.disabled = false;
    return;
  }
  history.replaceState(null, "", reply.data.page);
  await follow(reply.data);
});

if (config.run && config.run.status === "running") {
  follow({...config.run, url: `${config.runs_url}/${config.run.id}`});
}
