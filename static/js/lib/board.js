/* Draw a Set board (either rule set's view) as a grid of card buttons.
 *
 *   cells(view, keys)                    -> [{card, row, col, index, key, pos, picked}...]
 *   render(element, view, opts)          -> draws the cells; opts:
 *       card: text -> {digits, phrase}  (the page's deck, from the server),  keys: the key list
 *       selected: [card texts]  (highlighted as chosen),  hint: card text,  marked: [card texts]
 *       fresh: [card texts]     (just dealt: they fade in),  interactive: bool (buttons, else
 *       plain figures; keys are drawn on interactive cards only), disabled: bool
 *
 * The declare view has `board` as 3 rows of cells; the classic view a flat list drawn at row
 * i % 3, column i // 3. Either way a card's key is keys[col * 3 + row]: the keys number the cards
 * column by column, so a new column of three gets new keys and the others keep theirs. The key
 * list is the server's. On a narrow screen the board is turned a quarter: three columns of
 * landscape cards.
 */

import {svg} from "./cards.js";
import {colorBlind, onDisplayChange} from "./prefs.js";

// Read lazily: the pure functions here also run under Node, which has no window.
let narrowQuery = null;

function narrowMedia() {
  narrowQuery ??= window.matchMedia("(max-width: 640px)");
  return narrowQuery;
}
let drawn = new Map();

/** Tell whether the board is drawn turned (a phone held upright). */
export function isNarrow() {
  return narrowMedia().matches;
}

/** Return the board's cells in key order, each with its position and its key. Pure. */
export function cells(view, keys = []) {
  const out = [];
  const board = (view && view.board) || [];
  if (board.length && Array.isArray(board[0])) {
    board.forEach((row, r) => {
      row.forEach((cell, c) => {
        out.push({card: cell.card, row: r, col: c, pos: [r, c], picked: !!cell.picked});
      });
    });
  } else {
    board.forEach((cell, i) => {
      const row = cell.row !== undefined ? cell.row : i % 3;
      const col = cell.col !== undefined ? cell.col : Math.floor(i / 3);
      out.push({card: cell.card, row, col, pos: i, picked: !!cell.picked});
    });
  }
  for (const cell of out) {
    cell.index = cell.col * 3 + cell.row;
    cell.key = keys[cell.index] || "";
  }
  out.sort((a, b) => a.index - b.index);
  return out;
}

function cardSvg(card, label, landscape) {
  const blind = colorBlind();
  const id = `${card.text}|${label}|${landscape ? "L" : "P"}${blind ? "B" : ""}`;
  if (!drawn.has(id)) {
    drawn.set(id, svg(card, {landscape, colorBlind: blind, label: label.toUpperCase()}));
  }
  return drawn.get(id);
}

/** Draw `view`'s board into `element` and return its cells. */
export function render(element, view, opts = {}) {
  const list = cells(view, opts.keys || []);
  const narrow = isNarrow();
  const cols = list.reduce((most, cell) => Math.max(most, cell.col + 1), 0);
  const selected = opts.selected || [];
  const marked = opts.marked || [];
  const fresh = opts.fresh || [];
  let focusedIndex = null;
  if (element.contains(document.activeElement) && document.activeElement.dataset) {
    focusedIndex = document.activeElement.dataset.index;
  }
  element.classList.toggle("narrow", narrow);
  element.style.setProperty("--cols", String(Math.max(cols, 1)));
  element.setAttribute("data-cols", String(cols));
  const fragment = document.createDocumentFragment();
  for (const cell of list) {
    const card = opts.card(cell.card);
    const chosen = cell.picked || selected.includes(cell.card);
    const hinted = !!opts.hint && opts.hint === cell.card;
    const node = document.createElement(opts.interactive ? "button" : "figure");
    node.className =
      "card" +
      (chosen ? " selected" : "") +
      (hinted ? " hinted" : "") +
      (marked.includes(cell.card) ? " marked" : "") +
      (fresh.includes(cell.card) ? " fresh" : "");
    // Set through the CSSOM, not a style attribute, so the strict CSP allows it.
    node.style.gridRow = String(narrow ? cell.col + 1 : cell.row + 1);
    node.style.gridColumn = String(narrow ? cell.row + 1 : cell.col + 1);
    node.dataset.card = cell.card;
    node.dataset.index = String(cell.index);
    node.dataset.key = cell.key;
    const prefix = cell.key && opts.interactive ? `Key ${cell.key}: ` : "";
    node.setAttribute(
      "aria-label",
      prefix + card.phrase + (chosen ? ", selected" : "") + (hinted ? ", hinted" : ""),
    );
    if (opts.interactive) {
      node.type = "button";
      node.setAttribute("aria-pressed", String(chosen));
      node.disabled = !!opts.disabled;
    } else {
      node.setAttribute("role", "img");
    }
    // Keys label the cards only where they can be pressed.
    node.innerHTML = card.digits ? cardSvg(card, opts.interactive ? cell.key : "", narrow) : "";
    fragment.appendChild(node);
  }
  element.textContent = "";
  if (list.length) {
    element.appendChild(fragment);
  } else {
    const empty = document.createElement("p");
    empty.className = "muted board-empty";
    empty.textContent = "No cards on the table.";
    element.appendChild(empty);
  }
  if (focusedIndex !== null) {
    const again = element.querySelector(`[data-index="${focusedIndex}"]`);
    if (again) again.focus();
  }
  return list;
}

/** Call `callback` when the board must be drawn again: the screen turned, or a display choice. */
export function onLayoutChange(callback) {
  narrowMedia().addEventListener("change", callback);
  onDisplayChange(() => {
    drawn = new Map();
    callback();
  });
}
