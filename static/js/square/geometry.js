/* Where a Square Game piece goes: the pure arithmetic of pieces, the pointer and the green dots.
 *
 * The shapes are the server's: `shapes[piece][permutation]` lists the piece's unit segments
 * relative to its zero point, [[[x1, y1], [x2, y2]], ...], written by the engine
 * (squaregame.engine.piece_shapes) into the page's config. Nothing here knows a piece's shape.
 *
 * Board coordinates: lattice points (x, y), y growing upward, as the rules count them.
 *
 * The pointer holds a piece by its middle (the middle of its bounding box), so the piece hangs
 * where the hand is whichever way it is turned. A green dot therefore marks where the middle of
 * a legal placement is: pointing at a dot puts that very placement under the pointer, and a click
 * there places it (`spotOf` and `anchorUnder` undo each other).
 *
 * No DOM, no window: tested under Node (tests/js/square.test.mjs).
 */

/** Return the permutation (1-8) of a piece turned `rotation` quarter turns (0-3), maybe flipped. */
export function permutationOf(rotation, flipped) {
  return rotation + 1 + (flipped ? 4 : 0);
}

/** Return the segments of `piece` in `permutation` relative to its zero point ([] if unknown). */
export function shapeOf(shapes, piece, permutation) {
  return (shapes && shapes[piece] && shapes[piece][permutation]) || [];
}

/** Return the segments a placement lays: the shape moved so its zero point is at (x, y). */
export function segmentsAt(shapes, piece, permutation, x, y) {
  return shapeOf(shapes, piece, permutation).map((segment) =>
    segment.map(([px, py]) => [px + x, py + y]),
  );
}

/** Return the middle of a shape's bounding box, relative to its zero point ([0, 0] if empty). */
export function middleOf(segments) {
  const points = segments.flat();
  if (!points.length) return [0, 0];
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
}

/** Return where the green dot of a placement at `anchor` (its zero point) is drawn: its middle. */
export function spotOf(anchor, middle) {
  return [anchor[0] + middle[0], anchor[1] + middle[1]];
}

/**
 * Return the zero point that puts a piece's `middle` under the board point `point`, kept within
 * `margin` of a board `size` across (so the ghost cannot be lost off the board).
 *
 * A point within half a cell of a dot gives that dot's placement: `anchorUnder(spotOf(a, m), m)`
 * is `a`.
 */
export function anchorUnder(point, middle, size, margin = 2) {
  // "+ 0" turns Math.round's -0 into 0.
  const clamp = (value) => Math.max(-margin, Math.min(size + margin, value)) + 0;
  return [clamp(Math.round(point[0] - middle[0])), clamp(Math.round(point[1] - middle[1]))];
}

/**
 * Return the zero point of the legal placement whose green dot is nearest to the board point
 * `point`, if it is within `radius` (board units) of it; else null. `anchors` are the zero
 * points the chosen piece may take, their dots at `spotOf(anchor, middle)`. A touch anywhere in
 * a dot's ring takes that dot's placement, the nearest one's where two rings overlap.
 */
export function nearestSpot(point, anchors, middle, radius) {
  let best = null;
  let distance = radius;
  for (const anchor of anchors) {
    const [x, y] = spotOf(anchor, middle);
    const d = Math.hypot(point[0] - x, point[1] - y);
    if (d <= distance) {
      best = anchor;
      distance = d;
    }
  }
  return best ? best.slice() : null;
}

/**
 * Return the zero point that keeps a piece's middle where it was when it turns from a shape whose
 * middle is `before` to one whose middle is `after` (both relative to the zero point).
 */
export function keepMiddle(anchor, before, after) {
  return [
    Math.round(anchor[0] + before[0] - after[0]) + 0,
    Math.round(anchor[1] + before[1] - after[1]) + 0,
  ];
}

/** Return the zero point moved by (dx, dy), kept within `margin` of a board `size` across. */
export function moved(anchor, dx, dy, size, margin = 2) {
  const clamp = (value) => Math.max(-margin, Math.min(size + margin, value));
  return [clamp(anchor[0] + dx), clamp(anchor[1] + dy)];
}

/**
 * Index the view's legal placements ([piece, permutation, x, y] each): `has(piece, perm, x, y)`,
 * `spots(piece, perm)` (the zero points that piece so turned may take) and `count(piece)` (its
 * placements in every permutation).
 */
export function legalIndex(legal) {
  const all = new Set();
  const byTurn = new Map();
  const byPiece = new Map();
  for (const [piece, permutation, x, y] of legal || []) {
    all.add(`${piece},${permutation},${x},${y}`);
    const key = `${piece},${permutation}`;
    if (!byTurn.has(key)) byTurn.set(key, []);
    byTurn.get(key).push([x, y]);
    byPiece.set(piece, (byPiece.get(piece) || 0) + 1);
  }
  return {
    has: (piece, permutation, x, y) => all.has(`${piece},${permutation},${x},${y}`),
    spots: (piece, permutation) => byTurn.get(`${piece},${permutation}`) || [],
    count: (piece) => byPiece.get(piece) || 0,
  };
}

/**
 * Return the part of the board worth showing, {x0, y0, span}: the pieces laid and 4 cells around
 * them (every legal placement lies within 2 of a laid point), at least 12 cells across, square,
 * within the board. The view says the board's `size` and the `opening` point.
 */
export function boardWindow(view) {
  const size = view.size;
  const xs = [view.opening[0]];
  const ys = [view.opening[1]];
  for (const item of view.board || []) {
    for (const [x, y] of item.segment) {
      xs.push(x);
      ys.push(y);
    }
  }
  const lo = [Math.min(...xs) - 4, Math.min(...ys) - 4];
  const hi = [Math.max(...xs) + 4, Math.max(...ys) + 4];
  const span = Math.min(size, Math.max(12, hi[0] - lo[0], hi[1] - lo[1]));
  const [x0, y0] = [0, 1].map((axis) => {
    const middle = (lo[axis] + hi[axis]) / 2;
    return Math.max(0, Math.min(size - span, Math.round(middle - span / 2)));
  });
  return {x0, y0, span};
}
