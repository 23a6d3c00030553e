/* The lobby's chat: its history comes with the page; a message is posted with
 * POST /api/lobby/chat, then the lines this page has not shown yet are read (the posted one, and
 * any written meanwhile). Lines written by others arrive over the lobby's live socket
 * (pages/lobby.js), which passes each on as a "lobby-chat" event on the document. */

import {request} from "../lib/api.js";
import {mountChat} from "../lib/chat.js";

const holder = document.getElementById("lobby-chat");
const panel = holder ? holder.querySelector(".chat-panel") : null;
if (panel) {
  const url = holder.dataset.url;
  const chat = mountChat(panel, {
    url,
    canWrite: !panel.querySelector(".chat-form").hidden,
    async send(text) {
      const reply = await request("POST", url, {text});
      if (reply.ok) {
        chat.add(reply.data);
        await chat.refresh();
      }
      return reply;
    },
  });
  document.addEventListener("lobby-chat", (event) => chat.add(event.detail));
}
