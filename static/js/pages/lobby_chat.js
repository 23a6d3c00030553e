/* The lobby's chat: its history comes with the page; a message is posted with
 * POST /api/lobby/chat (lib/chat.js). Lines written by others arrive over the lobby's live
 * socket (pages/lobby.js), which passes each on as a "lobby-chat" event on the document. */

import {mountChat} from "../lib/chat.js";

const holder = document.getElementById("lobby-chat");
const panel = holder ? holder.querySelector(".chat-panel") : null;
if (panel) {
  const chat = mountChat(panel, {
    url: holder.dataset.url,
    canWrite: !panel.querySelector(".chat-form").hidden,
  });
  document.addEventListener("lobby-chat", (event) => chat.add(event.detail));
}
