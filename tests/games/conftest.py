"""Fixtures for the platform tests: fixed decks and helpers to drive the text protocol."""

from __future__ import annotations

import itertools

import pytest

NUMBERS = ("ONE", "TWO", "THREE")
COLORS = ("RED", "GREEN", "PURPLE")
SHADINGS = ("SOLID", "STRIPED", "OPEN")
SHAPES = ("DIAMOND", "SQUIGGLE", "OVAL")

ALL_81 = ["/".join(card) for card in itertools.product(NUMBERS, COLORS, SHADINGS, SHAPES)]

# The worked example's initial board (set-table-protocol.md §11), row by row.
EXAMPLE_BOARD = [
    "ONE/RED/SOLID/DIAMOND",
    "TWO/GREEN/STRIPED/SQUIGGLE",
    "THREE/PURPLE/OPEN/OVAL",
    "TWO/RED/OPEN/DIAMOND",
    "ONE/GREEN/SOLID/OVAL",
    "THREE/GREEN/STRIPED/DIAMOND",
    "ONE/PURPLE/STRIPED/SQUIGGLE",
    "TWO/PURPLE/SOLID/OVAL",
    "THREE/RED/SOLID/SQUIGGLE",
    "ONE/RED/OPEN/OVAL",
    "TWO/GREEN/OPEN/DIAMOND",
    "THREE/PURPLE/STRIPED/OVAL",
]
EXAMPLE_DECK = EXAMPLE_BOARD + [card for card in ALL_81 if card not in EXAMPLE_BOARD]
T = 1_700_000_000_000


@pytest.fixture
def example_table(db):
    """An open declare table dealt exactly as the spec's worked example."""
    from games import services

    return services.game_create(
        kind="set", options={"rules": "declare", "deck": EXAMPLE_DECK}, is_open=True, now=T
    )


def board_lines(text: str) -> list[str]:
    return text.split("\n")[:-1]
