/* The moderation page: each action's form is sent to the moderation API (the server checks it and
 * names what is wrong); once done, the page is drawn again from the server, report and log. */

import {request} from "../lib/api.js";

const error = document.getElementById("mod-error");

for (const form of document.querySelectorAll("form.mod-action")) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {};
    for (const [key, value] of new FormData(form)) body[key] = key === "minutes" ? Number(value) : value;
    const report = form.closest("[data-report]");
    if (report && form.dataset.action !== "close") body.report = Number(report.dataset.report);
    const button = form.querySelector("button");
    button.disabled = true;
    const reply = await request("POST", form.dataset.url, body);
    button.disabled = false;
    if (!reply.ok) {
      error.textContent = reply.detail;
      error.hidden = false;
      error.scrollIntoView({block: "nearest"});
      return;
    }
    window.location.reload();
  });
}
