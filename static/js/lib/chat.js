/* Chat: one small widget for a game's log (its chat among what happens at the table) and for the
 * lobby.
 *
 *   const chat = mountChat(document.getElementById("chat-panel"), {
 *     url: "/api/games/7/chat",     // GET ?since=<id> reads what this page has not shown
 *     canWrite: true,               // a seated player (spectators read, with no input)
 *   });
 *   // A line a moderator removes is pushed again with `removed: true`: it is drawn again, saying so.
  // A line is posted to `url` (POST): the text stays in the input until it is taken, and a
 *   // refusal (too long, too many) shows the server's sentence. Every page's socket then
 *   // pushes it, and a line already shown (by its id) is not shown twice.
 *   chat.add({id, name, text, at}); // a chat line (a pushed one, a posted one)
 *   chat.note("ann found a set.");  // a line of what happens at the table, in the same log
 *
 * A page that draws the log itself (the table page draws the game's story, chat included)
 * passes `onMessage(message)`: each new line (pushed, posted, read again) goes to it instead.
 *
 * The panel holds the log (`.timeline`, its first lines rendered by the server), the form
 * (`.chat-form`, its input's maxlength the server's limit), the spectators' line, the error line
 * and the "Hide chat" button. Text is only ever set as textContent: a message is shown as written,
 * never read as HTML. Whether chat is hidden is remembered by this browser (lib/prefs.js).
 */

import {request} from "./api.js";
import {chatHidden, setChatHidden} from "./prefs.js";

function timeOf(at) {
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) return "";
  return when.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
}

/** Make a log line for a chat message (text only: never HTML). */
export function chatLine(message) {
  const item = document.createElement("li");
  item.className = message.removed ? "chat-line chat-removed" : "chat-line";
  if (message.id !== undefined) item.dataset.chatId = String(message.id);
  const time = document.createElement("time");
  time.className = "chat-time";
  time.dateTime = message.at || "";
  time.textContent = timeOf(message.at);
  const name = document.createElement("span");
  name.className = "chat-name";
  name.textContent = message.name;
  const text = document.createElement("span");
  text.className = "chat-text";
  text.textContent = message.text;
  item.append(time, " ", name, " ", text);
  if (message.hidden) {
    // The word filter's: shown to its writer only, who is told so (the server's words).
    item.classList.add("chat-hidden");
    const note = document.createElement("span");
    note.className = "chat-note muted small";
    note.textContent = message.note || "Only you can see this.";
    item.append(" ", note);
  }
  return item;
}

export function mountChat(root, {url, canWrite = false, onMessage = null} = {}) {
  const log = root.querySelector(".timeline");
  const form = root.querySelector(".chat-form");
  const input = form ? form.querySelector("input") : null;
  const count = root.querySelector(".chat-count");
  const spectator = root.querySelector(".chat-spectator");
  const error = root.querySelector(".chat-error");
  const toggle = root.querySelector(".chat-toggle");
  const max = input ? Number(input.maxLength) : 0;
  const shown = new Set([...log.querySelectorAll("[data-chat-id]")].map((li) => li.dataset.chatId));
  let writer = canWrite;
  let lastId = Math.max(0, ...[...shown].map(Number));

  const atBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 40;

  function append(item) {
    const follow = atBottom();
    log.append(item);
    if (follow) log.scrollTop = log.scrollHeight;
  }

  function showError(detail) {
    if (!error) return;
    error.textContent = detail || "";
    error.hidden = !detail;
  }

  function drawCount() {
    if (count && input) count.textContent = `${input.value.length}/${max}`;
  }

  function drawHidden() {
    const hidden = chatHidden();
    root.classList.toggle("chat-hidden", hidden);
    if (toggle) {
      toggle.textContent = hidden ? "Show chat" : "Hide chat";
      toggle.setAttribute("aria-pressed", String(hidden));
    }
  }

  function setWriter(can) {
    writer = !!can;
    if (form) form.hidden = !writer;
    if (spectator) spectator.hidden = writer;
  }

  const widget = {
    add(message) {
      if (!message || typeof message.text !== "string") return;
      const id = message.id !== undefined ? String(message.id) : null;
      if (id !== null) {
        if (shown.has(id)) {
          // A line a moderator removed since: it now says so ("removed by a moderator").
          if (message.removed) {
            if (onMessage) onMessage(message);
            else {
              const line = log.querySelector(`[data-chat-id="${CSS.escape(id)}"]`);
              if (line) line.replaceWith(chatLine(message));
            }
          }
          return;
        }
        shown.add(id);
        lastId = Math.max(lastId, Number(id) || 0);
      }
      if (onMessage) onMessage(message);
      else append(chatLine(message));
    },
    note(text) {
      if (!text) return;
      const item = document.createElement("li");
      item.className = "event-line";
      item.textContent = text;
      append(item);
    },
    /** Read the messages this page has not shown yet (after a reconnection, after posting). */
    async refresh() {
      if (!url) return;
      const reply = await request("GET", `${url}?since=${lastId}`);
      if (reply.ok && Array.isArray(reply.data)) reply.data.forEach((m) => widget.add(m));
    },
    error: showError,
    setWriter,
  };

  toggle?.addEventListener("click", () => {
    setChatHidden(!chatHidden());
    drawHidden();
  });
  input?.addEventListener("input", () => {
    drawCount();
    showError("");
  });
  form?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || !url) return;
    const reply = await request("POST", url, {text});
    if (reply.ok) widget.add(reply.data);
    if (reply && reply.ok === false) {
      showError(reply.detail);
      return;
    }
    input.value = "";
    drawCount();
    showError("");
  });

  for (const time of log.querySelectorAll("time.chat-time")) {
    if (!time.textContent) time.textContent = timeOf(time.dateTime); // rendered by the server
  }
  setWriter(writer);
  drawHidden();
  drawCount();
  log.scrollTop = log.scrollHeight;
  return widget;
}
