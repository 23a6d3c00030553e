// The Square Game page's pure logic: the pointer, the green dots, turning, the board's window and
// the page's sentences. The shapes here are made up for the arithmetic: the real ones come from
// the server (squaregame.engine.piece_shapes), and the browser tests check the page draws those.
import assert from "node:assert/strict";
import {test} from "node:test";

import {
  anchorUnder,
  boardWindow,
  keepMiddle,
  legalIndex,
  middleOf,
  moved,
  permutationOf,
  segmentsAt,
  shapeOf,
  spotOf,
} from "../../static/js/square/geometry.js";
import {
  moveSentence,
  nameOf,
  outcomeText,
  turnText,
  winnersText,
  withNames,
} from "../../static/js/square/text.js";

// An "L" one cell wide and two tall hanging below-left of its zero point, and turned a quarter.
const SHAPES = {
  7: {
    1: [
      [[0, 0], [-1, 0]],
      [[-1, 0], [-1, -1]],
      [[-1, -1], [-1, -2]],
    ],
    2: [
      [[0, 0], [0, 1]],
      [[0, 1], [-1, 1]],
      [[-1, 1], [-2, 1]],
    ],
  },
};
const SIZE = 32;

test("a permutation is the rotation plus one, plus four when flipped", () => {
  assert.equal(permutationOf(0, false), 1);
  assert.equal(permutationOf(3, false), 4);
  assert.equal(permutationOf(0, true), 5);
  assert.equal(permutationOf(3, true), 8);
});

test("a placement lays the server's shape moved to its zero point", () => {
  assert.deepEqual(segmentsAt(SHAPES, 7, 1, 10, 20), [
    [[10, 20], [9, 20]],
    [[9, 20], [9, 19]],
    [[9, 19], [9, 18]],
  ]);
  assert.deepEqual(shapeOf(SHAPES, 7, 3), []);
  assert.deepEqual(shapeOf(SHAPES, 99, 1), []);
});

test("a shape's middle is the middle of its bounding box", () => {
  assert.deepEqual(middleOf(SHAPES[7][1]), [-0.5, -1]);
  assert.deepEqual(middleOf(SHAPES[7][2]), [-1, 0.5]);
  assert.deepEqual(middleOf([]), [0, 0]);
});

test("a click on a green dot, anywhere on it, gives exactly that dot's placement", () => {
  const DOT_RADIUS = 0.2;
  for (const shape of Object.values(SHAPES[7])) {
    const middle = middleOf(shape);
    for (const anchor of [[0, 0], [15, 15], [3, 28], [31, 1], [12, 7]]) {
      const [sx, sy] = spotOf(anchor, middle);
      for (const [dx, dy] of [[0, 0], [DOT_RADIUS, 0], [-DOT_RADIUS, 0], [0, DOT_RADIUS],
        [0, -DOT_RADIUS], [0.14, -0.14], [-0.14, 0.14]]) {
        assert.deepEqual(anchorUnder([sx + dx, sy + dy], middle, SIZE), anchor, `${anchor}`);
      }
    }
  }
});

test("a dot marks the piece's middle: a click on the zero point would be a cell off", () => {
  // The bug this replaces: dots at the zero point while the pointer holds the middle.
  const middle = middleOf(SHAPES[7][2]); // [-1, 0.5]
  assert.deepEqual(spotOf([10, 10], middle), [9, 10.5]);
  assert.notDeepEqual(anchorUnder([10, 10], middle, SIZE), [10, 10]);
});

test("the pointer keeps the ghost near the board", () => {
  assert.deepEqual(anchorUnder([-10, 50], [0, 0], SIZE), [-2, 34]);
  assert.deepEqual(moved([33, -2], 5, -1, SIZE), [34, -2]);
  assert.deepEqual(moved([10, 10], -1, 1, SIZE), [9, 11]);
});

test("turning keeps the piece's middle where it was", () => {
  const before = middleOf(SHAPES[7][1]); // [-0.5, -1]
  const after = middleOf(SHAPES[7][2]); // [-1, 0.5]
  const anchor = keepMiddle([10, 10], before, after);
  assert.deepEqual(anchor, [11, 9]); // 10.5 rounds up, 8.5 rounds up
  const [mx, my] = spotOf(anchor, after);
  assert.ok(Math.abs(mx - 9.5) <= 0.5 && Math.abs(my - 9) <= 0.5);
});

test("the legal placements are indexed by placement, by turn and by piece", () => {
  const legal = legalIndex([
    [7, 1, 10, 11],
    [7, 1, 12, 11],
    [7, 2, 10, 11],
    [3, 5, 1, 2],
  ]);
  assert.equal(legal.has(7, 1, 12, 11), true);
  assert.equal(legal.has(7, 1, 11, 11), false);
  assert.deepEqual(legal.spots(7, 1), [[10, 11], [12, 11]]);
  assert.deepEqual(legal.spots(7, 3), []);
  assert.equal(legal.count(7), 3);
  assert.equal(legal.count(3), 1);
  assert.equal(legal.count(4), 0);
  assert.equal(legalIndex(undefined).count(1), 0);
});

test("the board's window holds the opening and the pieces with room around, in the board", () => {
  const empty = {size: SIZE, opening: [15, 15], board: []};
  assert.deepEqual(boardWindow(empty), {x0: 9, y0: 9, span: 12});
  const corner = {size: SIZE, opening: [15, 15], board: [{segment: [[0, 0], [0, 1]]}]};
  const win = boardWindow(corner);
  assert.equal(win.x0, 0);
  assert.equal(win.y0, 0);
  assert.ok(win.span >= 19 && win.span <= SIZE);
  const wide = {size: SIZE, opening: [15, 15], board: [{segment: [[0, 0], [32, 32]]}]};
  assert.deepEqual(boardWindow(wide), {x0: 0, y0: 0, span: SIZE});
});

test("engine messages name the players; a free seat reads as its number", () => {
  const view = {names: ["ann", null, "bo"]};
  assert.equal(withNames(view, "seat 1 passes; seat 2 waits"), "ann (seat 1) passes; seat 2 waits");
  assert.equal(nameOf(view, 3), "bo");
  assert.equal(nameOf(view, 2), "seat 2");
});

test("the turn line says who moves and what they may do", () => {
  const base = {names: ["ann", "Computer1"], opening: [15, 15], final_round: null};
  assert.equal(
    turnText({...base, phase: "waiting", waiting_for: 1}),
    "Waiting for 1 more player to join.",
  );
  assert.equal(
    turnText({...base, phase: "opening", your_turn: true}),
    "Your opening: choose any piece and any turn of it; it goes at (15,15).",
  );
  assert.equal(
    turnText({...base, phase: "playing", your_turn: true, moves_left: 2, legal_count: 1}),
    "Your turn: place a piece that closes a new square (2 placements left). 1 legal placement.",
  );
  assert.equal(
    turnText({...base, phase: "playing", to_move: 2, final_round: 2}, (n) => n === "Computer1"),
    "It is Computer1's turn (the computer is thinking). Final round: 2 turns left.",
  );
  assert.equal(
    turnText({...base, over: true, phase: "over", winner_names: ["ann", "bo"]}),
    "Game over. Winners: ann, bo.",
  );
});

test("a move is told in words, never by its status code, 'you' for the reader's seat", () => {
  const view = {names: ["ann", "bo"], seat: 1};
  const again = "seat 1 placed piece 9/1 at (16,16), closing 2 squares; seat 1 moves again (1 move left)";
  assert.equal(
    outcomeText(view, {status: 1, message: again}),
    "You placed piece 9/1 at (16,16), closing 2 squares; you move again (1 move left).",
  );
  assert.equal(
    moveSentence({...view, seat: 2}, "seat 1 passed; seat 2 to move"),
    "ann passed; your turn.",
  );
  assert.equal(
    moveSentence({names: ["ann", "bo"]}, "seat 2 opened with piece 13/4 at (15,15); seat 1 to move"),
    "bo opened with piece 13/4 at (15,15); ann's turn.",
  );
  assert.equal(
    moveSentence(view, "seat 2 emptied their hand: final round, 1 turn left, seat 1 to move"),
    "bo emptied their hand: final round, 1 turn left, your turn.",
  );
  assert.equal(moveSentence(view, "seat 1 passed; game over, won by seat 1"), "You passed; game over, won by you.");
  assert.equal(moveSentence({names: [null, "bo"]}, "seat 1 passed"), "seat 1 passed.");
  assert.doesNotMatch(outcomeText(view, {status: 2, message: "seat 2 passed; seat 1 to move"}), /Status|2 —/);
});

test("a touch in a dot's ring takes that dot's placement, the nearest where rings overlap", async () => {
  const {nearestSpot, spotOf} = await import("../../static/js/square/geometry.js");
  const middle = [0.5, -1];
  const anchors = [[10, 10], [11, 10], [14, 12]];
  assert.deepEqual(spotOf(anchors[0], middle), [10.5, 9]);
  assert.deepEqual(nearestSpot([10.6, 9.1], anchors, middle, 0.8), [10, 10]);
  assert.deepEqual(nearestSpot([11.1, 9], anchors, middle, 0.8), [11, 10]); // nearer the second
  assert.equal(nearestSpot([12.5, 9], anchors, middle, 0.8), null); // in no ring
  assert.deepEqual(nearestSpot([12.5, 9], anchors, middle, 1.1), [11, 10]);
});

test("a game ended because a seat left says who left after the winners", () => {
  assert.equal(winnersText({winner_names: ["ann"], left: ["bob"]}), "Winner: ann. bob left the game.");
  assert.equal(winnersText({winner_names: ["ann", "cy"]}), "Winners: ann, cy.");
  assert.match(turnText({over: true, winner_names: ["ann"], left: ["bob"]}), /bob left the game/);
});
