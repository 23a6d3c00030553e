/* Drawing the Square Game board as SVG: the play page's board and the replay page's renderer.
 *
 *   const board = makeBoard(container, view);  // an empty board <svg> (of view.size) in it
 *   drawBoard(board, view);                 // the view's segments and closed squares
 *   drawSpots(board, points, ring); drawGhost(board, segments, anchor, legal);
 *   touchRadius(board)                      // a 40 px touch target's radius, in board units
 *   hitArea(board); boardPoint(board, clientX, clientY)  // where the pointer is on the board
 *   pieceSvg(shape, colour)                 // a small drawing of one turned piece (the palette)
 *   renderReplayBoard(element, view, step)  // the replay page's drawing of one step
 *
 * A view is the server's Square Game view (squaregame.rules.SquareKind.view): it says the board's
 * `size` and `opening` point, the seats' `colours`, and what is laid. The SVG's viewBox is in
 * board units with y flipped (screen y = size - y), so a board point (x, y) is drawn at
 * (x, size - y). Colours are SVG attributes and classes, never style="" (the page's CSP).
 * Nothing runs when the module is imported.
 */

import {boardWindow, middleOf} from "./geometry.js";
import {moveSentence} from "./text.js";

const SVGNS = "http://www.w3.org/2000/svg";
const UNSEATED = "#888";

function el(name, attrs, parent) {
  const node = document.createElementNS(SVGNS, name);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function colourOf(view, seat) {
  return (view.colours || [])[seat - 1] || UNSEATED;
}

function line(board, parent, a, b, attrs) {
  const size = board.size;
  return el("line", {x1: a[0], y1: size - a[1], x2: b[0], y2: size - b[1], ...attrs}, parent);
}

/** Make an empty board <svg> in `container` (emptied first) and return the board to draw on. */
export function makeBoard(container, view) {
  const size = view.size;
  const svg = el("svg", {
    viewBox: `-1 -1 ${size + 2} ${size + 2}`,
    class: "sq-svg",
    role: "img",
    "aria-label": "The Square Game board",
  });
  el("rect", {x: -5, y: -5, width: size + 10, height: size + 10, class: "sq-bg"}, svg);
  const board = {svg, size, window: null, layers: {}};
  const grid = el("g", {class: "sq-grid"}, svg);
  for (let i = 0; i <= size; i++) {
    const kind = i % 5 === 0 ? "sq-grid-major" : "sq-grid-line";
    line(board, grid, [i, 0], [i, size], {class: kind});
    line(board, grid, [0, i], [size, i], {class: kind});
  }
  for (const layer of ["labels", "squares", "segments", "spots", "ghost"]) {
    board.layers[layer] = el("g", {class: `sq-${layer}`}, svg);
  }
  container.textContent = "";
  container.appendChild(svg);
  return board;
}

/** Show `win` of the board: set the viewBox and number the lines at its left and bottom. */
function frame(board, win) {
  const size = board.size;
  const pad = Math.max(0.8, win.span / 22);
  board.svg.setAttribute(
    "viewBox",
    [win.x0 - pad, size - (win.y0 + win.span) - pad, win.span + 2 * pad, win.span + 2 * pad].join(
      " ",
    ),
  );
  board.window = win;
  const labels = board.layers.labels;
  labels.textContent = "";
  const fontSize = pad * 0.5;
  const every = win.span <= 16 ? 2 : 5;
  for (let k = 0; k <= size; k += every) {
    if (k >= win.x0 && k <= win.x0 + win.span) {
      const attrs = {x: k, y: size - win.y0 + pad * 0.78, "text-anchor": "middle"};
      el("text", {...attrs, "font-size": fontSize}, labels).textContent = String(k);
    }
    if (k >= win.y0 && k <= win.y0 + win.span) {
      const attrs = {x: win.x0 - pad / 2, y: size - k + fontSize * 0.35, "text-anchor": "middle"};
      el("text", {...attrs, "font-size": fontSize}, labels).textContent = String(k);
    }
  }
}

/** Draw a view's board: closed squares shaded by the seat that closed them, each seat's
 * segments in its colour, the latest placement's drawn bolder. */
export function drawBoard(board, view) {
  const {layers, size} = board;
  const win = boardWindow(view);
  const shown = board.window;
  if (!shown || shown.x0 !== win.x0 || shown.y0 !== win.y0 || shown.span !== win.span) {
    frame(board, win);
  }
  layers.squares.textContent = "";
  layers.segments.textContent = "";
  const fresh = new Set(((view.last && view.last.squares) || []).map(([x, y]) => `${x},${y}`));
  for (const square of view.squares || []) {
    const [cx, cy] = square.cell;
    const rect = el(
      "rect",
      {
        x: cx,
        y: size - cy - 1,
        width: 1,
        height: 1,
        fill: square.seat ? colourOf(view, square.seat) : UNSEATED,
        class: `sq-square${fresh.has(`${cx},${cy}`) ? " sq-square-new" : ""}`,
        "data-cell": `${cx},${cy}`,
      },
      layers.squares,
    );
    if (square.seat) rect.setAttribute("data-seat", square.seat);
  }
  const latest = Math.max(0, ...(view.placements || []).map((p) => p.id));
  for (const item of view.board || []) {
    line(board, layers.segments, item.segment[0], item.segment[1], {
      stroke: colourOf(view, item.seat),
      "stroke-linecap": "round",
      class: `sq-seg${item.placement === latest ? " sq-seg-last" : ""}`,
      "data-seat": item.seat,
      "data-placement": item.placement,
    });
  }
}

/** The smallest touch target a finger hits surely, in CSS pixels. */
export const TOUCH_PX = 40;

/** Return the radius, in board units, of a circle TOUCH_PX across on the screen as the board is
 * drawn now (0 while it is not drawn). */
export function touchRadius(board) {
  const matrix = board.svg.getScreenCTM();
  const scale = matrix ? Math.hypot(matrix.a, matrix.b) : 0;
  return scale ? TOUCH_PX / 2 / scale : 0;
}

/** Draw the green dots: one at each board point in `points` (the middles of legal placements),
 * each in a faint ring of `ring` board units (its touch area; 0: none). */
export function drawSpots(board, points, ring = 0) {
  const layer = board.layers.spots;
  layer.textContent = "";
  for (const [x, y] of points) {
    const at = {cx: x, cy: board.size - y};
    if (ring > 0) el("circle", {...at, r: ring, class: "sq-spot-target"}, layer);
    el("circle", {...at, r: 0.2, class: "sq-spot"}, layer);
  }
}

/** Draw the ghost: the segments a placement at `anchor` would lay, green if `legal`, else red;
 * with no segments, clear it. */
export function drawGhost(board, segments, anchor, legal) {
  const layer = board.layers.ghost;
  layer.textContent = "";
  layer.removeAttribute("data-legal");
  if (!segments.length) return;
  const tone = legal ? "sq-ghost-legal" : "sq-ghost-illegal";
  for (const [a, b] of segments) line(board, layer, a, b, {class: `sq-ghost-seg ${tone}`});
  const zero = {cx: anchor[0], cy: board.size - anchor[1], r: 0.22};
  el("circle", {...zero, class: `sq-ghost-zero ${tone}`}, layer);
  layer.setAttribute("data-legal", legal ? "1" : "0");
}

/** Return a transparent area over the whole board, above everything drawn, to read the pointer
 * from wherever it is. */
export function hitArea(board) {
  const span = board.size + 10;
  return el("rect", {x: -5, y: -5, width: span, height: span, class: "sq-hit"}, board.svg);
}

/** Return the board point (x, y) under the screen point (clientX, clientY), or null. */
export function boardPoint(board, clientX, clientY) {
  const matrix = board.svg.getScreenCTM();
  if (!matrix) return null;
  const point = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
  return [point.x, board.size - point.y];
}

/** Return a small <svg> of one turned piece (`shape`: its segments relative to its zero point),
 * its zero point ringed, centred in its box. */
export function pieceSvg(shape, colour) {
  const [cx, cy] = middleOf(shape);
  const svg = el("svg", {
    viewBox: `${cx - 1.7} ${-cy - 1.7} 3.4 3.4`,
    class: "sq-piece-svg",
    "aria-hidden": "true",
  });
  for (const [[x1, y1], [x2, y2]] of shape) {
    el("line", {
      x1,
      y1: -y1,
      x2,
      y2: -y2,
      stroke: colour,
      "stroke-width": 0.32,
      "stroke-linecap": "round",
    }, svg);
  }
  el("circle", {cx: 0, cy: 0, r: 0.2, class: "sq-zero"}, svg);
  return svg;
}

/**
 * Draw one replay step into `element`: the board as `view` (the server's Square Game view after
 * the step, any viewer's) shows it, and a caption with the last move in words, the pieces left
 * and, at the end, the winners. `step` (the replay's step: seq, action, outcome) is not needed to draw.
 */
export function renderReplayBoard(element, view, step) {
  element.textContent = "";
  element.classList.add("sq-replay");
  const holder = document.createElement("div");
  holder.className = "square-board";
  element.appendChild(holder);
  drawBoard(makeBoard(holder, view), view);
  const parts = (view.seats || []).map(
    (seat) => `${seat.name || `seat ${seat.seat}`}: ${seat.pieces_left} pieces left`,
  );
  if (view.last) parts.unshift(moveSentence(view, view.last.message));
  if (view.over) parts.unshift(`Game over: won by ${(view.winner_names || []).join(", ")}.`);
  const caption = document.createElement("p");
  caption.className = "sq-replay-caption";
  caption.textContent = parts.join(" · ");
  element.appendChild(caption);
}
