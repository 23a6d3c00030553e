"""Fixtures for the platform tests: fixed decks and helpers to drive the text protocol."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.examples import ALL_81, EXAMPLE_BOARD, EXAMPLE_DECK, T  # noqa: F401 (re-exported)

# A WebSocket handshake from the site's own page at http://127.0.0.1:8000, as a browser sends it:
# its Origin and the Host it was sent to (games.middleware.same_origin compares the two).
SAME_ORIGIN = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000")]


@pytest.fixture
def example_table(db):
    """An open declare table dealt exactly as the spec's worked example."""
    from games import services

    return services.game_create(
        kind="set",
        options={"start": "now", "rules": "declare", "deck": EXAMPLE_DECK},
        is_open=True,
        now=T,
    )


def start_and_deal(game_id: int) -> int:
    """Start a waiting Set table as its host (its first seat) and let the countdown pass: the
    cards are dealt, as a socket or a read at the deadline would. Return the deal's time."""
    from games import services
    from games.models import Seat

    host = Seat.objects.filter(game_id=game_id, is_computer=False).order_by("number").first()
    started = services.move_submit(game_id=game_id, seat=host, action={"type": "start"})
    dealt_at = started.outcome["starts_ms"]
    services.game_tick(game_id=game_id, now=dealt_at)
    return dealt_at


def board_lines(text: str) -> list[str]:
    return text.split("\n")[:-1]


class LoopTicks:
    """Count the running event loop's 10 ms ticks while in use: a loop that stood still (a
    blocking call on it) counts none meanwhile."""

    count = 0

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.01)
            self.count += 1

    async def __aenter__(self) -> LoopTicks:
        self.task = asyncio.ensure_future(self._tick())
        return self

    async def __aexit__(self, *exc) -> None:
        self.task.cancel()


def play_to_the_end(game, seat) -> None:
    """Play a Set table to its end: `seat` finds every set, as a computer would (a table
    waiting for its start is started and dealt first)."""
    from games import services
    from games.models import Game
    from games.rules import get_rules

    game.refresh_from_db()
    if game.state.get("waiting"):
        start_and_deal(game.pk)
    for _ in range(200):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            return
        action = get_rules("set").bot_actions(game.state, seat.name)[0]
        services.move_submit(game_id=game.pk, seat=seat, action=action)
    raise AssertionError(f"game {game.pk} did not end")


@pytest.fixture
def quiet_request_log():
    """Keep the thousands of expected 4xx warnings of a fuzzer out of the output (errors still
    show)."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)
