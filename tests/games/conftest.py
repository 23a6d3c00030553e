"""Fixtures for the platform tests: fixed decks and helpers to drive the text protocol."""

from __future__ import annotations

import pytest

from tests.examples import ALL_81, EXAMPLE_BOARD, EXAMPLE_DECK, T  # noqa: F401 (re-exported)


@pytest.fixture
def example_table(db):
    """An open declare table dealt exactly as the spec's worked example."""
    from games import services

    return services.game_create(
        kind="set", options={"rules": "declare", "deck": EXAMPLE_DECK}, is_open=True, now=T
    )


def board_lines(text: str) -> list[str]:
    return text.split("\n")[:-1]
