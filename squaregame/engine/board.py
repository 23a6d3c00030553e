"""The board of unit segments, and the geometry checks of a placement (spec §2, §7, §8).

The board is kept as a dict from an integer **segment id** to the id of the placement that laid
it. Integers make the legal-placement search fast: a piece in a given permutation becomes a
fixed set of id offsets, and placing it at a zero point only adds one number to each.

Point ids carry a margin of :data:`PAD` around the 33x33 lattice so that neighbours one or two
steps off the board (the far side of an edge segment, a cell beyond the edge) get ids of their
own and can never alias a real segment; such segments are simply never on the board.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import NamedTuple

from squaregame.engine.pieces import (
    PERMUTATIONS,
    PIECE_CODES,
    Point,
    Segment,
    relative_segments,
)

#: The largest coordinate on either axis: lattice points run 0..32, cells 0..31.
SIZE = 32
#: The zero point of the opening (spec §6).
OPENING_POINT: Point = (15, 15)

PAD = 2
STRIDE = SIZE + 1 + 2 * PAD + 3  # 40: room for the margin on both sides, and then some

# Sides of a cell, as bits of a cell's mask.
BOTTOM, TOP, LEFT, RIGHT = 1, 2, 4, 8
FULL = BOTTOM | TOP | LEFT | RIGHT


class Check(StrEnum):
    """Name a geometry check of spec §7 (its reason id) that a placement can fail."""

    OUT_OF_BOUNDS = "out_of_bounds"
    LINE_TAKEN = "line_taken"
    NO_NEW_SQUARE = "no_new_square"
    NO_CONTACT = "no_contact"
    CROSSING = "crossing"


def point_id(x: int, y: int) -> int:
    """Return the integer id of the lattice point ``(x, y)``."""
    return (x + PAD) * STRIDE + (y + PAD)


def point_from_id(pid: int) -> Point:
    """Return the lattice point of a point id (the inverse of :func:`point_id`)."""
    x, y = divmod(pid, STRIDE)
    return x - PAD, y - PAD


def segment_id(segment: Segment) -> int:
    """Return the id of a unit segment: twice its lower-left endpoint's id, plus 1 if vertical.

    >>> segment_from_id(segment_id(((3, 4), (3, 5))))
    ((3, 4), (3, 5))
    """
    (x1, y1), (x2, y2) = sorted(segment)
    if abs(x2 - x1) + abs(y2 - y1) != 1:
        raise ValueError(f"{segment!r} is not a unit segment")
    return 2 * point_id(x1, y1) + (1 if x1 == x2 else 0)


def segment_from_id(sid: int) -> Segment:
    """Return the segment of a segment id (the inverse of :func:`segment_id`)."""
    pid, vertical = divmod(sid, 2)
    x, y = point_from_id(pid)
    return ((x, y), (x, y + 1)) if vertical else ((x, y), (x + 1, y))


def cell_sides(cell_pid: int) -> tuple[int, int, int, int]:
    """Return the segment ids of the bottom, top, left and right sides of a cell.

    A cell is named by its lower-left corner; ``cell_pid`` is that corner's point id.
    """
    return 2 * cell_pid, 2 * (cell_pid + 1), 2 * cell_pid + 1, 2 * (cell_pid + STRIDE) + 1


def _relative_point(point: Point) -> int:
    dx, dy = point
    return dx * STRIDE + dy


def _relative_segment(start: Point, end: Point) -> int:
    (x1, y1), (x2, y2) = sorted((start, end))
    return 2 * _relative_point((x1, y1)) + (1 if x1 == x2 else 0)


@dataclass(frozen=True, slots=True)
class Shape:
    """Hold a piece in one permutation, precompiled into id offsets from its zero point.

    A placement at zero point id ``z`` lays the segments ``offset + 2 * z``; the cell entries
    say which sides a neighbouring cell still needs from the board for the placement to close
    it, and the crossing pairs are the two perpendicular segments through the midpoint of each
    long side of the piece (spec §7.1).
    """

    piece: int
    permutation: int
    segments: tuple[Segment, ...]
    segment_offsets: tuple[int, ...]
    point_offsets: tuple[int, ...]
    x_range: tuple[int, int]
    y_range: tuple[int, int]
    cells: tuple[tuple[Point, tuple[int, ...]], ...]
    needed: tuple[tuple[int, tuple[int, ...]], ...]
    crossings: tuple[tuple[Point, int, int], ...]

    @classmethod
    def compile(cls, piece: int, permutation: int) -> Shape:
        """Precompute the offsets of ``piece`` in ``permutation``."""
        segments = relative_segments(piece, permutation)
        points = sorted({point for segment in segments for point in segment})
        xs = [x for x, _ in points]
        ys = [y for _, y in points]
        offsets = tuple(_relative_segment(*segment) for segment in segments)
        mine = set(offsets)

        cells: list[tuple[Point, tuple[int, ...]]] = []
        needed: dict[int, list[int]] = {}
        seen: set[Point] = set()
        for (x1, y1), (_, y2) in segments:
            beside = [(x1, y1), (x1, y1 - 1)] if y1 == y2 else [(x1, y1), (x1 - 1, y1)]
            for cell in beside:
                if cell in seen:
                    continue
                seen.add(cell)
                sides = cell_sides(_relative_point(cell))
                mask = sum(
                    bit
                    for bit, side in zip((BOTTOM, TOP, LEFT, RIGHT), sides, strict=True)
                    if side in mine
                )
                if mask == FULL:
                    continue  # closed by the piece alone: never a new square (spec §8)
                cells.append((cell, tuple(side for side in sides if side not in mine)))
                needed.setdefault(FULL ^ mask, []).append(_relative_point(cell))

        crossings = []
        for point in points:
            px, py = point
            for (ux, uy), (vx, vy) in (((1, 0), (0, 1)), ((0, 1), (1, 0))):
                before = _relative_segment((px - ux, py - uy), point)
                after = _relative_segment(point, (px + ux, py + uy))
                if before in mine and after in mine:
                    crossings.append(
                        (
                            point,
                            _relative_segment((px - vx, py - vy), point),
                            _relative_segment(point, (px + vx, py + vy)),
                        )
                    )
        return cls(
            piece=piece,
            permutation=permutation,
            segments=segments,
            segment_offsets=offsets,
            point_offsets=tuple(_relative_point(point) for point in points),
            x_range=(-min(xs), SIZE - max(xs)),
            y_range=(-min(ys), SIZE - max(ys)),
            cells=tuple(cells),
            needed=tuple((mask, tuple(rel)) for mask, rel in sorted(needed.items())),
            crossings=tuple(crossings),
        )

    def in_bounds(self, x: int, y: int) -> bool:
        """Say whether every endpoint lies within 0..32 with the zero point at ``(x, y)``."""
        return self.x_range[0] <= x <= self.x_range[1] and self.y_range[0] <= y <= self.y_range[1]


#: Every piece in every permutation, compiled once.
SHAPES: dict[tuple[int, int], Shape] = {
    (piece, permutation): Shape.compile(piece, permutation)
    for piece in PIECE_CODES
    for permutation in PERMUTATIONS
}


class Verdict(NamedTuple):
    """Hold the result of checking a placement's geometry.

    ``failed`` is the first failing check (``None`` when the placement is legal), ``squares``
    the cells it newly closes (sorted), and ``detail`` what explains a failure: the segment
    already taken, or the crossing point with the id of the placement crossed.
    """

    failed: Check | None
    squares: tuple[Point, ...] = ()
    detail: object = None


class Board:
    """Index the segments on the board by id, with the placement that laid each one.

    A :class:`Board` is a mutable working copy: the game state stays immutable and builds one
    when it needs it (see ``GameState.board``), then never changes it.
    """

    def __init__(self, owner: dict[int, int] | None = None) -> None:
        self.owner: dict[int, int] = {} if owner is None else owner

    @classmethod
    def build(cls, placements: Iterable[tuple[int, int, int, int, int]]) -> Board:
        """Build a board from ``(placement_id, piece, permutation, x, y)`` tuples."""
        board = cls()
        for placement_id, piece, permutation, x, y in placements:
            board.lay(placement_id, SHAPES[piece, permutation], x, y)
        return board

    def lay(self, placement_id: int, shape: Shape, x: int, y: int) -> None:
        """Put a piece's segments on the board, recording ``placement_id`` as their layer."""
        z2 = 2 * point_id(x, y)
        for offset in shape.segment_offsets:
            self.owner[offset + z2] = placement_id
        self.__dict__.pop("points", None)
        self.__dict__.pop("partial_cells", None)

    def __len__(self) -> int:
        return len(self.owner)

    def __contains__(self, segment: Segment) -> bool:
        return segment_id(segment) in self.owner

    def segments(self) -> Iterator[tuple[Segment, int]]:
        """Yield every segment on the board with its placement id, in id order."""
        for sid in sorted(self.owner):
            yield segment_from_id(sid), self.owner[sid]

    @cached_property
    def points(self) -> frozenset[int]:
        """Return the ids of every endpoint of a segment on the board."""
        points = set()
        for sid in self.owner:
            pid, vertical = divmod(sid, 2)
            points.add(pid)
            points.add(pid + (1 if vertical else STRIDE))
        return frozenset(points)

    @cached_property
    def partial_cells(self) -> dict[int, list[int]]:
        """Map each side mask to the cells on the board having exactly those sides laid.

        Only cells with one to three sides qualify: a placement can close a cell only by
        laying all its missing sides, so these are the only cells worth aiming at.
        """
        owner = self.owner
        by_mask: dict[int, list[int]] = {}
        seen: set[int] = set()
        for sid in owner:
            pid, vertical = divmod(sid, 2)
            for cell in (pid, pid - STRIDE) if vertical else (pid, pid - 1):
                if cell in seen:
                    continue
                seen.add(cell)
                cx, cy = divmod(cell, STRIDE)
                if not (PAD <= cx < SIZE + PAD and PAD <= cy < SIZE + PAD):
                    continue
                bottom, top, left, right = cell_sides(cell)
                mask = (
                    (bottom in owner) * BOTTOM
                    | (top in owner) * TOP
                    | (left in owner) * LEFT
                    | (right in owner) * RIGHT
                )
                if mask != FULL:
                    by_mask.setdefault(mask, []).append(cell)
        return by_mask

    def closed_cells(self) -> list[Point]:
        """Return every cell whose four sides are on the board, sorted."""
        owner = self.owner
        closed = []
        for sid in owner:
            pid, vertical = divmod(sid, 2)
            if not vertical and all(side in owner for side in cell_sides(pid)):
                closed.append(point_from_id(pid))
        return sorted(closed)

    def check(self, shape: Shape, x: int, y: int, *, regular: bool = True) -> Verdict:
        """Run checks 4 to 8 of spec §7 for ``shape`` with its zero point at ``(x, y)``.

        ``regular=False`` skips the square and contact checks, as for the opening and a
        preloaded board (the opening has no crossing check either, but it is always made on an
        empty board, where nothing can be crossed).
        """
        if not shape.in_bounds(x, y):
            return Verdict(Check.OUT_OF_BOUNDS)
        owner = self.owner
        z = point_id(x, y)
        z2 = 2 * z
        for offset in shape.segment_offsets:
            if offset + z2 in owner:
                return Verdict(Check.LINE_TAKEN, detail=segment_from_id(offset + z2))
        squares: tuple[Point, ...] = ()
        if regular:
            squares = tuple(
                sorted(
                    (cx + x, cy + y)
                    for (cx, cy), missing in shape.cells
                    if all(side + z2 in owner for side in missing)
                )
            )
            if not squares:
                return Verdict(Check.NO_NEW_SQUARE)
            points = self.points
            if not any(offset + z in points for offset in shape.point_offsets):
                return Verdict(Check.NO_CONTACT)
        for (px, py), before, after in shape.crossings:
            layer = owner.get(before + z2)
            if layer is not None and layer == owner.get(after + z2):
                return Verdict(Check.CROSSING, squares, detail=((px + x, py + y), layer))
        return Verdict(None, squares)

    def candidates(self, shape: Shape) -> set[int]:
        """Return the zero-point ids where ``shape`` would close at least one partial cell.

        A legal regular placement closes a cell, so it lays every missing side of some
        partial cell: the candidates are the zero points that line one of the piece's cells
        up with a board cell missing exactly the sides the piece brings (a far smaller net
        than spec §12's "every zero point within 2 of the board").
        """
        partial = self.partial_cells
        zeros: set[int] = set()
        for mask, relative_cells in shape.needed:
            cells = partial.get(mask)
            if cells:
                for relative in relative_cells:
                    zeros.update([cell - relative for cell in cells])
        return zeros

    def placements_for(self, shape: Shape) -> Iterator[tuple[int, int, tuple[Point, ...]]]:
        """Yield every legal regular ``(x, y, squares)`` for ``shape``, in no particular order.

        Each candidate goes through the full :meth:`check`, the one moves are judged by.
        """
        for z in self.candidates(shape):
            x, y = point_from_id(z)
            verdict = self.check(shape, x, y)
            if verdict.failed is None:
                yield x, y, verdict.squares

    def zero_points_for(self, shape: Shape) -> Iterator[Point]:
        """Yield the zero points of every legal regular placement of ``shape``, fast.

        This is :meth:`placements_for` without the squares: a candidate closes the cell it
        was lined up with as soon as none of its segments is taken, and touches the board
        through that cell, so only bounds, overlap and crossing remain to be checked. The
        tests hold it to the same answers as :meth:`check`.
        """
        owner = self.owner
        (x_low, x_high), (y_low, y_high) = shape.x_range, shape.y_range
        offsets = shape.segment_offsets
        crossings = [(before, after) for _, before, after in shape.crossings]
        for z in self.candidates(shape):
            x, y = divmod(z, STRIDE)
            x -= PAD
            y -= PAD
            if not (x_low <= x <= x_high and y_low <= y <= y_high):
                continue
            z2 = 2 * z
            for offset in offsets:
                if offset + z2 in owner:
                    break
            else:
                for before, after in crossings:
                    layer = owner.get(before + z2)
                    if layer is not None and layer == owner.get(after + z2):
                        break
                else:
                    yield x, y
