/* A profile's "Challenge" form: the table's choices sent to POST /api/challenge/<name>. The
 * server checks them as it checks a table's creation and says what is wrong; the challenge then
 * waits on every page of both accounts (static/js/lib/challenges.js). */

import {request} from "../lib/api.js";

const form = document.getElementById("challenge-form");
const status = document.getElementById("challenge-status");

function options(data) {
  const kind = data.get("kind");
  const rated = data.get("rated") === "on";
  if (kind === "square") return {kind, options: {rated}};
  return {
    kind,
    options: {
      rules: data.get("rules"),
      mode: data.get("mode"),
      attributes: Number(data.get("attributes")),
      rated,
    },
  };
}

if (form) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const reply = await request("POST", `/api/challenge/${encodeURIComponent(form.dataset.name)}`, options(new FormData(form)));
    status.textContent = reply.ok
      ? `Challenge sent: waiting for ${reply.data.dest} to answer (${Math.round((Date.parse(reply.data.expires) - Date.now()) / 1000)} s).`
      : reply.detail;
    status.classList.toggle("form-error", !reply.ok);
  });
}
