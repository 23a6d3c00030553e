"""Cards and boards the original documents use, shared by the tests."""

from __future__ import annotations

import itertools

NUMBERS = ("ONE", "TWO", "THREE")
COLORS = ("RED", "GREEN", "PURPLE")
SHADINGS = ("SOLID", "STRIPED", "OPEN")
SHAPES = ("DIAMOND", "SQUIGGLE", "OVAL")

ALL_81 = ["/".join(card) for card in itertools.product(NUMBERS, COLORS, SHADINGS, SHAPES)]

# The worked example's initial board (set-table-protocol.md §11), row by row.
EXAMPLE_BOARD = [
    "ONE/RED/SOLID/DIAMOND", "TWO/GREEN/STRIPED/SQUIGGLE", "THREE/PURPLE/OPEN/OVAL",
    "TWO/RED/OPEN/DIAMOND", "ONE/GREEN/SOLID/OVAL", "THREE/GREEN/STRIPED/DIAMOND",
    "ONE/PURPLE/STRIPED/SQUIGGLE", "TWO/PURPLE/SOLID/OVAL", "THREE/RED/SOLID/SQUIGGLE",
    "ONE/RED/OPEN/OVAL", "TWO/GREEN/OPEN/DIAMOND", "THREE/PURPLE/STRIPED/OVAL",
]  # fmt: skip
# That board, then the rest of the deck in digit order.
EXAMPLE_DECK = EXAMPLE_BOARD + [card for card in ALL_81 if card not in EXAMPLE_BOARD]
T = 1_700_000_000_000

# The twelve cards of seed 001's picture (five sets), in seed 001's tuple order.
PICTURE_001 = [
    ("three", "solid", "purple", "oval"), ("one", "open", "green", "diamond"),
    ("two", "solid", "purple", "diamond"), ("one", "solid", "red", "squiggle"),
    ("two", "open", "red", "squiggle"), ("one", "solid", "purple", "diamond"),
    ("three", "solid", "green", "diamond"), ("one", "striped", "purple", "squiggle"),
    ("three", "solid", "green", "squiggle"), ("three", "solid", "green", "oval"),
    ("two", "open", "red", "diamond"), ("three", "open", "purple", "diamond"),
]  # fmt: skip
