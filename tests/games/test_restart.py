"""A game survives a server restart: everything committed is there and play goes on."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import Server
from tests.games.conftest import EXAMPLE_DECK

pytestmark = pytest.mark.slow


def test_tables_and_api_games_survive_a_restart(tmp_path):
    first = Server(tmp_path).start()
    try:
        with httpx.Client(base_url=first.url, timeout=10) as http:
            http.get("/look/alice")
            http.get("/look/bob")
            http.get("/add/alice")  # a recorded vote, kept across the restart
            board_before = http.get("/look/alice").text
            created = http.post(
                "/api/games/",
                json={
                    "kind": "set",
                    "open": True,
                    "options": {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
                },
            ).json()
            token = http.post(f"/api/games/{created['id']}/join", json={"name": "ann"}).json()[
                "token"
            ]
            claim = {"type": "claim", "cards": EXAMPLE_DECK[0:3]}
            auth = {"Authorization": f"Token {token}"}
            assert (
                http.post(f"/api/games/{created['id']}/moves", json=claim, headers=auth).status_code
                == 200
            )
    finally:
        first.stop()

    second = Server(tmp_path, like=first).start()  # same data, a new process
    try:
        with httpx.Client(base_url=second.url, timeout=10) as http:
            assert http.get("/look/alice").text == board_before
            assert http.get("/scores").text == "alice 0 add\nbob 0 none\n"
            detail = http.get(f"/api/games/{created['id']}/", headers=auth).json()
            assert detail["view"]["scores"] == {"ann": 1}
            log = http.get(f"/api/games/{created['id']}/moves").json()
            assert [move["action"]["type"] for move in log] == ["join", "claim"]
            hint = http.post(
                f"/api/games/{created['id']}/moves", json={"type": "hint"}, headers=auth
            )
            assert hint.status_code == 200  # the game goes on with the same token
    finally:
        second.stop()
