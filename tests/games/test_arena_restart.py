"""An arena survives a server killed mid-tournament (issue 29, item 3): its players, its pool
and its points are rows; a restarted server scores the game that was being played and seats its
players again."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.conftest import Server
from tests.e2e.test_arena import PLAY

pytestmark = pytest.mark.slow

SETUP = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from accounts.tokens import token_create
from games import tournaments
tokens = []
for name in ("ann", "bob"):
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    tokens.append(token_create(user=user, name="api")[1])
t = tournaments.tournament_create(
    user=None, kind="square", options={"mode": "square"}, starts_at=timezone.now(), minutes=10,
)
print(t.pk, *tokens)
"""


def wait_for(http, tid, test, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body = http.get(f"/api/tournaments/{tid}").json()
        if test(body):
            return body
        time.sleep(0.5)
    raise AssertionError(body)


def test_a_killed_server_loses_no_player_seat_or_point(tmp_path):
    first = Server(tmp_path, ARENA_MINUTE_S="6").start()
    second = None
    try:
        tid, *tokens = first.shell(SETUP).split()
        with httpx.Client(base_url=first.url, timeout=10) as http:
            for token in tokens:
                joined = http.post(
                    f"/api/tournaments/{tid}/join", headers={"Authorization": f"Bearer {token}"}
                )
                assert joined.status_code == 200, joined.text
            wait_for(http, tid, lambda b: b["games_playing"] == 1)
        first.kill()  # mid-game: no shutdown code runs
        second = Server(tmp_path, like=first, port=first.port).start(migrate=False)
        with httpx.Client(base_url=second.url, timeout=10) as http:
            winner = second.shell(PLAY.format(tid=tid, url=second.url)).splitlines()[-1]
            body = wait_for(http, tid, lambda b: sum(p["games"] for p in b["standings"]) == 2)
            points = {p["name"]: p["points"] for p in body["standings"]}
            assert points == {winner: 1.0, ("bob" if winner == "ann" else "ann"): 0.0}
            # Both wait in the arena's pool again and are seated together again.
            wait_for(http, tid, lambda b: b["games_playing"] == 1)
    finally:
        if second is not None:
            second.stop()
        first.stop()
