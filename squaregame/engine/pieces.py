"""The 16 pieces, their 8 permutations and the unit segments a placement lays.

A piece is a subset of the seven segments ``a``..``g`` of a digital "8" whose **zero point** is
the top-right corner of a 1-wide, 2-tall box (spec §3). A permutation 1..8 flips the piece first
(mirror left/right) and then turns it right 0-3 times (spec §4). Placing it at ``(x, y)`` moves
the zero point there.

>>> sorted(piece_segments(15, 3, 14, 15))
[((14, 15), (15, 15)), ((15, 15), (15, 16)), ((15, 16), (15, 17))]
"""

from __future__ import annotations

from functools import cache

from squaregame.engine.errors import SquareGameError

Point = tuple[int, int]
"""A lattice point ``(x, y)``; y grows upward."""

Segment = tuple[Point, Point]
"""A unit segment, endpoints in ascending order so equal segments compare equal."""

PIECE_CODES: tuple[int, ...] = tuple(range(1, 17))
PERMUTATIONS: tuple[int, ...] = tuple(range(1, 9))

#: Endpoints of the seven segments of the "8", relative to the zero point (spec §3).
SEGMENT_ENDPOINTS: dict[str, Segment] = {
    "a": ((0, 0), (-1, 0)),  # top
    "b": ((0, 0), (0, -1)),  # upper right
    "c": ((0, -1), (0, -2)),  # lower right
    "d": ((0, -2), (-1, -2)),  # bottom
    "e": ((-1, -2), (-1, -1)),  # lower left
    "f": ((-1, 0), (-1, -1)),  # upper left
    "g": ((-1, -1), (0, -1)),  # middle
}

#: The segments of each piece code (spec §3).
PIECE_LETTERS: dict[int, str] = {
    1: "acdefg",
    2: "bcefg",
    3: "acfg",
    4: "acefg",
    5: "aefg",
    6: "adefg",
    7: "abefg",
    8: "abcefg",
    9: "cfg",
    10: "efg",
    11: "acdfg",
    12: "cefg",
    13: "acdef",
    14: "adef",
    15: "aef",
    16: "abef",
}


def check_piece(piece: object) -> int:
    """Return ``piece`` if it is a piece code 1..16, else raise :class:`SquareGameError`."""
    if type(piece) is not int or piece not in PIECE_LETTERS:
        raise SquareGameError(f"there is no piece {piece!r}: pieces are numbered 1-16")
    return piece


def check_permutation(permutation: object) -> int:
    """Return ``permutation`` if it is 1..8, else raise :class:`SquareGameError`."""
    if type(permutation) is not int or not 1 <= permutation <= 8:
        raise SquareGameError(f"there is no permutation {permutation!r}: permutations are 1-8")
    return permutation


def transform(permutation: int, point: Point) -> Point:
    """Map a point of the base drawing by ``permutation``: flip first, then turn right.

    Flipping first matters: turning first would swap permutations 6 and 8.

    >>> [transform(p, (1, 2)) for p in PERMUTATIONS]
    [(1, 2), (2, -1), (-1, -2), (-2, 1), (-1, 2), (2, 1), (1, -2), (-2, -1)]
    """
    x, y = point
    if permutation >= 5:
        x = -x
    for _ in range((permutation - 1) % 4):
        x, y = y, -x
    return x, y


def normalize(segment: Segment) -> Segment:
    """Return the segment with its endpoints in ascending order."""
    first, second = segment
    return (first, second) if first <= second else (second, first)


@cache
def relative_segments(piece: int, permutation: int) -> tuple[Segment, ...]:
    """Return the segments of a piece in a permutation, relative to its zero point.

    Segments come in letter order (``a`` to ``g``), each with sorted endpoints.

    >>> relative_segments(10, 1)
    (((-1, -2), (-1, -1)), ((-1, -1), (-1, 0)), ((-1, -1), (0, -1)))
    """
    check_piece(piece)
    check_permutation(permutation)
    return tuple(
        normalize((transform(permutation, start), transform(permutation, end)))
        for start, end in (SEGMENT_ENDPOINTS[letter] for letter in PIECE_LETTERS[piece])
    )


def piece_segments(piece: int, permutation: int, x: int = 0, y: int = 0) -> tuple[Segment, ...]:
    """Return the segments laid by a piece in a permutation with its zero point at ``(x, y)``.

    Segments come in letter order, each with sorted endpoints. The example of spec §4:
    piece 13 (segments a, c, d, e, f), permutation 4 at (15, 15).

    >>> for segment in piece_segments(13, 4, 15, 15):
    ...     print(segment)
    ((15, 14), (15, 15))
    ((16, 15), (17, 15))
    ((17, 14), (17, 15))
    ((16, 14), (17, 14))
    ((15, 14), (16, 14))
    """
    return tuple(
        ((x1 + x, y1 + y), (x2 + x, y2 + y))
        for (x1, y1), (x2, y2) in relative_segments(piece, permutation)
    )


def piece_shapes() -> dict[int, dict[int, tuple[Segment, ...]]]:
    """Return every piece's segments in every permutation, relative to its zero point.

    This is the one description of the shapes a drawing needs: the browser draws the palette,
    the ghost and the green dots from it (sent by the page), never from a copy of its own.

    >>> shapes = piece_shapes()
    >>> sorted(shapes) == list(PIECE_CODES) and sorted(shapes[16]) == list(PERMUTATIONS)
    True
    >>> shapes[15][3]
    (((0, 0), (1, 0)), ((1, 1), (1, 2)), ((1, 0), (1, 1)))
    """
    return {
        piece: {permutation: relative_segments(piece, permutation) for permutation in PERMUTATIONS}
        for piece in PIECE_CODES
    }
