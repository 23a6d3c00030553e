/* Reporting and blocking, on every page of a signed-in account.
 *
 * A "Report" control sits on each chat line (a line with its chat id: `data-chat-id="41"`, or a
 * table log's story entry `data-entry="c41"`); controls elsewhere say what they report:
 *
 *   <button class="report-button" data-about="player" data-target="bob">Report</button>
 *
 * Each opens the page's report dialog (templates/partials/report_dialog.html: the reasons are the
 * server's) and sends POST /api/reports; the server's sentence is shown when it refuses.
 * A block button (`data-block="bob"`, aria-pressed when blocked) sends POST or DELETE
 * /api/blocks/<name>.
 */

import {request} from "./api.js";

const dialog = document.getElementById("report-dialog");
const form = document.getElementById("report-form");
const what = document.getElementById("report-what");
const error = document.getElementById("report-error");
const status = document.getElementById("report-status");
let target = null;
// One's own lines have no Report control (the server refuses a report of oneself).
const me = document.querySelector(".account-nav .account-name")?.textContent.trim() || null;

function chatIdOf(line) {
  if (line.dataset.chatId) return line.dataset.chatId;
  const entry = line.dataset.entry || "";
  return entry.startsWith("c") ? entry.slice(1) : null;
}

/** Give a chat line its Report control (once). */
function equip(line) {
  if (line.querySelector(":scope > .report-button")) return;
  const id = chatIdOf(line);
  if (!id || !/^\d+$/.test(id)) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "report-button";
  button.dataset.about = "line";
  button.dataset.target = id;
  const name = line.querySelector(".chat-name");
  if (name && me && name.textContent.trim() === me) return;
  button.dataset.label = `${name ? name.textContent : "a"}'s line`;
  button.textContent = "Report";
  button.title = "Report this line to the moderators";
  line.append(" ", button);
}

function equipAll(root) {
  if (root.matches && root.matches(".chat-line")) equip(root);
  if (root.querySelectorAll) root.querySelectorAll(".chat-line").forEach(equip);
}

function say(text) {
  if (!status) return;
  status.textContent = text;
  status.hidden = !text;
  if (text) setTimeout(() => { if (status.textContent === text) status.hidden = true; }, 6000);
}

function open(button) {
  target = {about: button.dataset.about, value: button.dataset.target};
  what.textContent = button.dataset.label || (target.about === "line" ? "A chat line" : target.value);
  error.hidden = true;
  form.reset();
  dialog.showModal();
}

if (dialog && form) {
  equipAll(document.body);
  new MutationObserver((changes) => {
    for (const change of changes) change.addedNodes.forEach((node) => node.nodeType === 1 && equipAll(node));
  }).observe(document.body, {childList: true, subtree: true});

  document.addEventListener("click", async (event) => {
    const report = event.target.closest(".report-button");
    if (report) {
      event.preventDefault();
      open(report);
      return;
    }
    const block = event.target.closest("[data-block]");
    if (block) {
      const blocked = block.getAttribute("aria-pressed") === "true";
      const reply = await request(blocked ? "DELETE" : "POST", `/api/blocks/${encodeURIComponent(block.dataset.block)}`);
      if (!reply.ok) { say(reply.detail); return; }
      block.setAttribute("aria-pressed", String(!blocked));
      block.textContent = blocked ? "Block" : "Unblock";
      say(blocked
        ? `${block.dataset.block} is unblocked: their chat is shown again.`
        : `${block.dataset.block} is blocked: their chat is hidden from you, and neither of you can challenge the other.`);
    }
  });

  document.getElementById("report-cancel").addEventListener("click", () => dialog.close());

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!target) return;
    const data = new FormData(form);
    const body = {reason: data.get("reason"), note: data.get("note") || ""};
    body[target.about] = target.about === "line" ? Number(target.value) : target.value;
    const reply = await request("POST", "/api/reports", body);
    if (!reply.ok) {
      error.textContent = reply.detail;
      error.hidden = false;
      return;
    }
    dialog.close();
    say("Thank you: the moderators will look at your report.");
  });
}
