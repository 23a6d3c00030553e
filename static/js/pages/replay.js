/* The replay page: step through a game's moves with the board as it was after each one.
 *
 * Data: GET /api/games/<id>/replay -> {"game": summary, "steps": [{seq, actor, action, outcome,
 * at_ms, view}...], "chat": [{id, name, text, at, at_ms}...]}, step 0 being the deal. The chat's
 * lines are put among the moves by their time (text only: never read as HTML). Set views are
 * drawn as cards, the step's own cards marked (the legend says how), Square Game views as their
 * board; a kind with a viewer of its own (Set War) is sent there by the server, and any other
 * kind shows its view as JSON.
 */

import {request} from "../lib/api.js";
import {cardRow, onLayoutChange, render} from "../lib/board.js";
import {deck} from "../lib/cards.js";
import {chatLine} from "../lib/chat.js";
import {clock} from "../lib/format.js";
import {renderScores} from "../lib/scores.js";
import {describeAction, describeOutcome, stepMarks} from "../replay/describe.js";
import {renderReplayBoard} from "../square/board.js";

const root = document.getElementById("replay-root");
const cfg = JSON.parse(document.getElementById("replay-config").textContent);
const card = deck(cfg.deck);
const phrase = (text) => card(text).phrase;
let steps = [];
let chat = [];
let index = 0;
const $ = (id) => document.getElementById(id);
const el = {
  board: $("replay-board"),
  json: $("replay-json"),
  extra: $("replay-extra"),
  taken: $("replay-taken"),
  move: $("step-move"),
  label: $("step-label"),
  slider: $("step-slider"),
  scores: $("replay-scores"),
  list: $("move-list"),
  first: $("first-btn"),
  prev: $("prev-btn"),
  next: $("next-btn"),
  last: $("last-btn"),
};

const since = (step) => clock(step.at_ms - steps[0].at_ms);

function sentence(step) {
  const outcome = describeOutcome(step, phrase);
  return describeAction(step, cfg.kind, phrase) + (outcome ? ` → ${outcome}` : "");
}

function drawBoard(step) {
  const drawn = cfg.kind === "set" || cfg.kind === "square";
  el.json.hidden = drawn;
  el.board.hidden = !drawn;
  el.taken.hidden = true;
  if (cfg.kind === "set") {
    drawMarkedBoard(step);
    drawModeParts(step.view);
  } else if (cfg.kind === "square") {
    renderReplayBoard(el.board, step.view, step);
  } else {
    el.json.textContent = JSON.stringify(step.view, null, 2);
  }
}

/** Draw a Set step's board, after the step, with the step's own cards marked: those of its
 * move still on the board outlined, the ones it took in a row above the board, the ones dealt
 * tagged "new", a hint's card glowing (the page's legend says so). */
function drawMarkedBoard(step) {
  const marks = stepMarks(steps, index);
  render(el.board, step.view, {card, interactive: false, marked: marks.own, hint: marks.hint});
  for (const node of el.board.querySelectorAll(".card")) {
    const notes = [];
    if (marks.own.includes(node.dataset.card)) notes.push("a card of this move");
    if (marks.dealt.includes(node.dataset.card)) {
      node.classList.add("dealt");
      notes.push("new: dealt at this step");
    }
    if (notes.length) node.setAttribute("aria-label", `${node.getAttribute("aria-label")}, ${notes.join(", ")}`);
  }
  if (marks.taken.length) {
    const row = cardRow(marks.taken, card, "board mini replay-taken-cards");
    for (const node of row.querySelectorAll(".card")) {
      node.classList.add("marked");
      node.setAttribute("aria-label", `${node.getAttribute("aria-label")}, taken at this step`);
    }
    const label = document.createElement("span");
    label.className = "replay-taken-label";
    label.textContent = "Taken at this step:";
    el.taken.replaceChildren(label, row);
    el.taken.hidden = false;
  }
}

/** A Set-Chain's chain and a puzzle's sets found, under the board, as the table shows them. */
function drawModeParts(view) {
  const parts = [];
  const heading = (text) => {
    const h = document.createElement("h3");
    h.className = "area-heading";
    h.textContent = text;
    return h;
  };
  if (view.chain && view.chain.length) {
    parts.push(heading("The chain"), cardRow(view.chain.map((cell) => cell.card), card));
  }
  if (view.found) {
    parts.push(heading(`Sets found: ${view.found.length} of ${view.sets_total}`));
    for (const found of view.found) parts.push(cardRow(found, card));
  }
  el.extra.replaceChildren(...parts);
  el.extra.hidden = !parts.length;
}

/** Bring the current step into view inside the list's own scroll box, never moving the page
 * (scrollIntoView would scroll the window too: on a phone the list is below the board, and
 * the page opened scrolled down to it). */
function keepInList(list, item) {
  const box = list.getBoundingClientRect();
  const it = item.getBoundingClientRect();
  if (it.top < box.top) list.scrollTop -= box.top - it.top;
  else if (it.bottom > box.bottom) list.scrollTop += it.bottom - box.bottom;
}

function show(i) {
  if (!steps.length) return;
  index = Math.max(0, Math.min(steps.length - 1, i));
  const step = steps[index];
  drawBoard(step);
  el.move.textContent = sentence(step);
  el.label.textContent = `Step ${index} of ${steps.length - 1} · ${since(step)}`;
  el.slider.value = String(index);
  el.slider.setAttribute(
    "aria-valuetext",
    `Step ${index}: ${describeAction(step, cfg.kind, phrase)}`,
  );
  renderScores(el.scores, (step.view && step.view.scores) || {});
  el.first.disabled = el.prev.disabled = index === 0;
  el.next.disabled = el.last.disabled = index === steps.length - 1;
  el.list.querySelectorAll("li[data-step]").forEach((item, n) => {
    if (n === index) {
      item.setAttribute("aria-current", "step");
      keepInList(el.list, item);
    } else {
      item.removeAttribute("aria-current");
    }
  });
}

/** A chat line of the list: when (since the deal), who, what. */
function chatItem(message) {
  const item = chatLine(message);
  const time = item.querySelector(".chat-time");
  time.className = "move-time";
  time.textContent = clock(Math.max(0, message.at_ms - steps[0].at_ms));
  return item;
}

function buildList() {
  el.list.textContent = "";
  let said = 0; // chat lines listed so far: each goes after the last step made before it
  steps.forEach((step, n) => {
    while (n > 0 && said < chat.length && chat[said].at_ms < step.at_ms) {
      el.list.appendChild(chatItem(chat[said++]));
    }
    const item = document.createElement("li");
    item.dataset.step = String(n);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move";
    button.dataset.step = String(n);
    const time = document.createElement("span");
    time.className = "move-time";
    time.textContent = since(step);
    button.append(time, ` ${sentence(step)}`);
    item.appendChild(button);
    el.list.appendChild(item);
  });
  while (said < chat.length) el.list.appendChild(chatItem(chat[said++]));
}

el.first.addEventListener("click", () => show(0));
el.prev.addEventListener("click", () => show(index - 1));
el.next.addEventListener("click", () => show(index + 1));
el.last.addEventListener("click", () => show(steps.length - 1));
el.slider.addEventListener("input", () => show(Number(el.slider.value)));
el.list.addEventListener("click", (event) => {
  const button = event.target.closest("button.move");
  if (button) show(Number(button.dataset.step));
});
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target === el.slider) return; // the slider steps by itself
  if (event.target && /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) return;
  const moves = {ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: steps.length - 1};
  if (event.key in moves) {
    event.preventDefault();
    show(moves[event.key]);
  }
});
onLayoutChange(() => show(index));

const reply = await request("GET", cfg.data_url);
if (!reply.ok || !reply.data.steps) {
  el.label.textContent = reply.ok ? "The replay could not be loaded." : reply.detail;
} else {
  steps = reply.data.steps;
  chat = reply.data.chat || [];
  el.slider.max = String(steps.length - 1);
  buildList();
  // The chat is among the moves now: its own panel (for pages without scripts) would repeat it.
  const chatPanel = $("replay-chat-panel");
  if (chatPanel) chatPanel.hidden = true;
  show(0);
  root.setAttribute("data-loaded", "1");
}
