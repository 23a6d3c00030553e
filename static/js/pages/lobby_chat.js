/* The lobby's chat: its history comes with the page; a message is posted with
 * POST /api/lobby/chat, then the lines this page has not shown yet are read (the posted one, and
 * any written meanwhile). The lobby's live socket adds pushed lines with `add` (lib/chat.js). */

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
}
