"""The 16 pieces and their 8 permutations (spec §3, §4)."""

import pytest

from squaregame.engine import PERMUTATIONS, PIECE_CODES, SquareGameError, piece_segments, transform

SEGMENT_COUNTS = {1: 6, 2: 5, 3: 4, 4: 5, 5: 4, 6: 5, 7: 5, 8: 6}
SEGMENT_COUNTS |= {9: 3, 10: 3, 11: 5, 12: 4, 13: 5, 14: 4, 15: 3, 16: 4}


def drawing(piece, permutation):
    """Return the segments of a placement moved so that its lowest-leftmost point is (0, 0)."""
    segments = piece_segments(piece, permutation)
    low_x = min(x for segment in segments for x, _ in segment)
    low_y = min(y for segment in segments for _, y in segment)
    return frozenset(
        ((x1 - low_x, y1 - low_y), (x2 - low_x, y2 - low_y)) for (x1, y1), (x2, y2) in segments
    )


def test_every_piece_has_the_segments_of_the_table():
    assert {piece: len(piece_segments(piece, 1)) for piece in PIECE_CODES} == SEGMENT_COUNTS


def test_base_orientation_fits_the_box_left_of_and_below_the_zero_point():
    for piece in PIECE_CODES:
        points = {point for segment in piece_segments(piece, 1) for point in segment}
        assert all(-1 <= x <= 0 and -2 <= y <= 0 for x, y in points)


def test_distinct_drawings_per_piece_match_the_spec():
    counts = {piece: len({drawing(piece, p) for p in PERMUTATIONS}) for piece in PIECE_CODES}
    expected = (
        {piece: 8 for piece in PIECE_CODES} | {2: 2} | dict.fromkeys((6, 8, 9, 10, 11, 14), 4)
    )
    assert counts == expected


def test_no_two_pieces_are_congruent():
    shapes = {piece: {drawing(piece, p) for p in PERMUTATIONS} for piece in PIECE_CODES}
    for piece in PIECE_CODES:
        for other in PIECE_CODES:
            if piece < other:
                assert not shapes[piece] & shapes[other], (piece, other)


@pytest.mark.parametrize(
    ("permutation", "image"),
    [(1, (3, 5)), (2, (5, -3)), (3, (-3, -5)), (4, (-5, 3))]
    + [(5, (-3, 5)), (6, (5, 3)), (7, (3, -5)), (8, (-5, -3))],
)
def test_permutation_net_maps_flip_first_then_turn_right(permutation, image):
    assert transform(permutation, (3, 5)) == image


def test_spec_examples_of_placed_pieces():
    assert set(piece_segments(13, 4, 15, 15)) == {
        ((15, 14), (15, 15)),
        ((15, 14), (16, 14)),
        ((16, 14), (17, 14)),
        ((17, 14), (17, 15)),
        ((16, 15), (17, 15)),
    }
    assert set(piece_segments(15, 3, 14, 15)) == {
        ((14, 15), (15, 15)),
        ((15, 15), (15, 16)),
        ((15, 16), (15, 17)),
    }


@pytest.mark.parametrize(("piece", "permutation"), [(0, 1), (17, 1), (1, 0), (1, 9), ("1", 1)])
def test_unknown_pieces_and_permutations_are_refused_in_words(piece, permutation):
    with pytest.raises(SquareGameError, match="there is no"):
        piece_segments(piece, permutation)
