/* Draw a Set board (either rule set's view) as a grid of card buttons.
 *
 *   cells(view, keyboard, {narrow})      -> [{card, row, col, index, key, code, pos, picked}...]
 *   render(element, view, opts)          -> draws the cells; opts:
 *       card: text -> {digits, phrase}  (the page's deck, from the server),
 *       keyboard: {codes, labels}  (the server's key places, and the chosen layout's names)
 *       selected: [card texts]  (highlighted as chosen),  hint: card text (or texts: a
 *       practice table's hint, one card more each press),  marked: [card texts]
 *       fresh: [card texts]     (just dealt: they fade in, after the taken cards have gone),
 *       taken: [cells]          (just taken: drawn once more where they were, fading out
 *                                before the card dealt in their place, or moved into it from
 *                                an overflow column, fades in: never both at once),
 *       landscape: bool (wide cards on an upright board, as the table page draws them where
 *                  the board is wider than tall),
 *       interactive: bool (buttons, else
 *       plain figures; keys are drawn on interactive cards only), disabled: bool,
 *       flat: bool (never turned on a narrow screen: a row of a few cards, as a chain)
 *
 * A cell with `face_down` (Memory) is drawn as a card's back, whatever its card text.
 *
 * The declare view has `board` as 3 rows of cells; the classic view a flat list drawn at row
 * i % 3, column i // 3. On a narrow screen the board is turned a quarter: three columns of
 * landscape cards. Keys mirror the board as it is drawn: a card's key is the key at the same
 * row and column of the keyboard (1 2 3 4 / Q W E R / A S D F / Z X C V), so a new column of
 * cards gets new keys and the others keep theirs; a turned board's rows past the fourth go on
 * with the keys to the right. Keys are matched by their place on the keyboard (event.code),
 * the chosen layout only names them.
 */

import {back, svg} from "./cards.js";
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

/** Return the key (`code`, and `key` its name) at a board place drawn at row `r`, column `c`
 * of a board `width` columns wide. Pure. */
export function keyAt(keyboard, r, c, width) {
  const row = r % 4;
  const col = c + width * Math.floor(r / 4);
  const codes = (keyboard && keyboard.codes) || [];
  const labels = (keyboard && keyboard.labels) || [];
  return {
    code: (codes[row] && codes[row][col]) || "",
    key: (labels[row] && [...labels[row]][col]) || "",
  };
}

/** Return the board's cells in place order (column by column), each with its position and
 * its key. Pure. */
export function cells(view, keyboard = {}, {narrow = false} = {}) {
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
      out.push({card: cell.card, row, col, pos: i, picked: !!cell.picked, faceDown: !!cell.face_down});
    });
  }
  const cols = out.reduce((most, cell) => Math.max(most, cell.col + 1), 0);
  for (const cell of out) {
    cell.index = cell.col * 3 + cell.row;
    // Drawn turned on a narrow screen: the board's columns are the rows seen.
    const place = narrow ? keyAt(keyboard, cell.col, cell.row, 3) : keyAt(keyboard, cell.row, cell.col, cols);
    cell.code = place.code;
    cell.key = place.key;
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

function backSvg(label, landscape) {
  const id = `back|${label}|${landscape ? "L" : "P"}`;
  if (!drawn.has(id)) drawn.set(id, back({landscape, label: label.toUpperCase()}));
  return drawn.get(id);
}

/** Draw `view`'s board into `element` and return its cells. */
export function render(element, view, opts = {}) {
  const narrow = !opts.flat && isNarrow();
  const landscape = narrow || (!!opts.landscape && !opts.flat);
  // A card dealt while cards are taken, or moved into a taken card's place (a set taken from an
  // overflow board: the last cards fill the holes), waits until those have left (.after-taken).
  const waits = (opts.taken || []).length > 0;
  const list = cells(view, opts.keyboard || {}, {narrow});
  const slot = (cell) => `${cell.row}/${cell.col}`;
  const leaving = new Set((opts.taken || []).map(slot));
  const cols = list.reduce((most, cell) => Math.max(most, cell.col + 1), 0);
  const selected = opts.selected || [];
  const marked = opts.marked || [];
  const hints = [].concat(opts.hint || []);
  const fresh = opts.fresh || [];
  let focusedIndex = null;
  if (element.contains(document.activeElement) && document.activeElement.dataset) {
    focusedIndex = document.activeElement.dataset.index;
  }
  element.classList.toggle("narrow", narrow);
  element.classList.toggle("landscape", landscape && !narrow);
  element.style.setProperty("--cols", String(Math.max(cols, 1)));
  element.setAttribute("data-cols", String(cols));
  const fragment = document.createDocumentFragment();
  for (const cell of list) {
    const card = opts.card(cell.card);
    const chosen = cell.picked || selected.includes(cell.card);
    const hinted = hints.includes(cell.card);
    const node = document.createElement(opts.interactive ? "button" : "figure");
    node.className =
      "card" +
      (cell.faceDown ? " face-down" : "") +
      (chosen ? " selected" : "") +
      (hinted ? " hinted" : "") +
      (marked.includes(cell.card) ? " marked" : "") +
      (fresh.includes(cell.card) || leaving.has(slot(cell)) ? ` fresh${waits ? " after-taken" : ""}` : "");
    // Set through the CSSOM, not a style attribute, so the strict CSP allows it.
    node.style.gridRow = String(narrow ? cell.col + 1 : cell.row + 1);
    node.style.gridColumn = String(narrow ? cell.row + 1 : cell.col + 1);
    node.dataset.card = cell.card;
    node.dataset.index = String(cell.index);
    node.dataset.key = cell.key;
    node.dataset.code = cell.code;
    const prefix = cell.key && opts.interactive ? `Key ${cell.key}: ` : "";
    const phrase = cell.faceDown ? "a card face down" : card.phrase;
    node.setAttribute(
      "aria-label",
      prefix + phrase + (chosen ? ", selected" : "") + (hinted ? ", hinted" : ""),
    );
    if (opts.interactive) {
      node.type = "button";
      node.setAttribute("aria-pressed", String(chosen));
      node.disabled = !!opts.disabled;
    } else {
      node.setAttribute("role", "img");
    }
    // Keys label the cards only where they can be pressed.
    const label = opts.interactive ? cell.key : "";
    if (cell.faceDown) node.innerHTML = backSvg(label, landscape);
    else node.innerHTML = card.digits ? cardSvg(card, label, landscape) : "";
    fragment.appendChild(node);
  }
  for (const cell of opts.taken || []) {
    const card = opts.card(cell.card);
    if (!card.digits) continue;
    const ghost = document.createElement("figure");
    ghost.className = "card taken";
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.gridRow = String(narrow ? cell.col + 1 : cell.row + 1);
    ghost.style.gridColumn = String(narrow ? cell.row + 1 : cell.col + 1);
    ghost.innerHTML = cardSvg(card, "", landscape);
    ghost.addEventListener("animationend", () => ghost.remove());
    setTimeout(() => ghost.remove(), 1000); // where no animation runs (reduced motion)
    fragment.appendChild(ghost);
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

/** Return a row of cards (card texts) drawn small and flat, not to be pressed: a set found, a
 * chain in a replay. `card` is the page's deck. */
export function cardRow(texts, card, className = "board mini") {
  const row = document.createElement("div");
  row.className = className;
  render(row, {board: texts.map((text, i) => ({card: text, row: 0, col: i}))}, {card, flat: true});
  return row;
}

/** Call `callback` when the board must be drawn again: the screen turned, or a display choice. */
export function onLayoutChange(callback) {
  narrowMedia().addEventListener("change", callback);
  onDisplayChange(() => {
    drawn = new Map();
    callback();
  });
}
