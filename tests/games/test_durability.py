"""kill -9 in the middle of play: every move the server confirmed is in the log after a restart,
the games go on, and replaying each game's log gives its stored state.

Players of a Set table and of a Square Game play as fast as they can over the JSON API, a third
client creates Set War games (each stored whole in one transaction) and a fourth plays the
plain-text protocol's default table, when the server is killed without warning.
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from cards.engine.rules import find_set
from tests.conftest import Server

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("servers")]

CHECK_REPLAYS = """
from games.models import Game
from games.replay import replay
games = list(Game.objects.all())
for game in games:
    seqs = list(game.moves.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1)), (game.pk, game.kind, seqs, game.version)
    assert replay(game) == game.state, (game.pk, game.kind)
print(len(games))
"""


class Players:
    """Clients that play until told to stop or until the server goes away, noting every move the
    server confirmed: game id -> {seq: action}."""

    def __init__(self, url: str):
        self.url = url
        self.confirmed: dict[int, dict[int, dict]] = {}
        self.setwar: list[int] = []
        self.stop = threading.Event()
        self.errors: list[str] = []

    def post_move(self, http, game_id: int, token: str, action: dict) -> dict | None:
        reply = http.post(
            f"/api/games/{game_id}/moves", json=action, headers={"Authorization": f"Token {token}"}
        )
        if reply.status_code != 200:
            return None
        version = reply.json()["version"]
        self.confirmed.setdefault(game_id, {})[version] = action
        return reply.json()

    def run(self, play, *args) -> threading.Thread:
        def guarded() -> None:
            try:
                with httpx.Client(base_url=self.url, timeout=5) as http:
                    while not self.stop.is_set():
                        play(http, *args)
            except httpx.TransportError:
                pass  # the server went away
            except Exception as exc:  # noqa: BLE001 - reported by the test
                self.errors.append(repr(exc))

        thread = threading.Thread(target=guarded, daemon=True)
        thread.start()
        return thread

    def set_moves(self, http, game_id: int, token: str) -> None:
        view = http.get(f"/api/games/{game_id}/", headers={"Authorization": f"Token {token}"})
        board = [entry["card"] for entry in view.json()["view"]["board"] if entry]
        found = find_set(board)
        if found is None or view.json()["status"] == "over":
            self.stop.wait(0.05)
            return
        self.post_move(
            http, game_id, token, {"type": "claim", "cards": [str(card) for card in found]}
        )
        self.stop.wait(0.02)  # a brisk player, but the deck lasts until the kill

    def square_moves(self, http, game_id: int, tokens: list[str]) -> None:
        for token in tokens:
            view = http.get(f"/api/games/{game_id}/", headers={"Authorization": f"Token {token}"})
            data = view.json()["view"]
            if data["over"]:
                self.stop.wait(0.05)
                return
            if data["your_turn"]:
                legal = data["legal"]
                if legal:
                    piece, permutation, x, y = legal[0]
                    action = {
                        "type": "place",
                        "piece": piece,
                        "permutation": permutation,
                        "x": x,
                        "y": y,
                    }
                else:
                    action = {"type": "pass"}
                self.post_move(http, game_id, token, action)
                self.stop.wait(0.02)

    def setwar_games(self, http) -> None:
        reply = http.post("/api/setwar/", json={"players": 3})
        if reply.status_code == 201:
            self.setwar.append(reply.json()["id"])

    def protocol_moves(self, http) -> None:
        http.get("/declare/dora")
        for row, col in ((0, 0), (0, 1), (0, 2)):
            http.get(f"/pick/dora/{row},{col}")


def _new_set_game(http) -> tuple[int, str]:
    game_id = http.post(
        "/api/games/",
        json={"kind": "set", "open": True, "options": {"start": "now", "rules": "classic"}},
    )
    game_id = game_id.json()["id"]
    return game_id, http.post(f"/api/games/{game_id}/join", json={"name": "ann"}).json()["token"]


def _new_square_game(http) -> tuple[int, list[str]]:
    created = http.post(
        "/api/games/", json={"kind": "square", "open": True, "options": {"players": 2}}
    )
    game_id = created.json()["id"]
    tokens = [
        http.post(f"/api/games/{game_id}/join", json={"name": name}).json()["token"]
        for name in ("sam", "sue")
    ]
    return game_id, tokens


def test_kill_9_mid_play_loses_no_confirmed_move_and_play_goes_on(tmp_path):
    first = Server(tmp_path).start()
    with httpx.Client(base_url=first.url, timeout=10) as http:
        set_id, set_token = _new_set_game(http)
        square_id, square_tokens = _new_square_game(http)
    players = Players(first.url)
    threads = [
        players.run(players.set_moves, set_id, set_token),
        players.run(players.square_moves, square_id, square_tokens),
        players.run(players.setwar_games),
        players.run(players.protocol_moves),
    ]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (
        len(players.confirmed.get(set_id, {})) < 5
        or len(players.confirmed.get(square_id, {})) < 5
        or len(players.setwar) < 3
    ):
        time.sleep(0.05)
    first.kill()  # while every client is still sending
    players.stop.set()
    for thread in threads:
        thread.join(timeout=10)
    assert not players.errors, players.errors
    assert len(players.confirmed[set_id]) >= 5 and len(players.confirmed[square_id]) >= 5

    second = Server(tmp_path, like=first).start()
    try:
        with httpx.Client(base_url=second.url, timeout=10) as http:
            for game_id, confirmed in players.confirmed.items():
                log = {move["seq"]: move["action"] for move in _log(http, game_id)}
                for seq, action in confirmed.items():
                    assert log.get(seq) == action, (game_id, seq)
            for game_id in players.setwar:
                game = http.get(f"/api/setwar/{game_id}/").json()
                assert game["status"] == "over"

        # Every game in the store, confirmed or not: a whole log that replays to its state.
        assert int(second.shell(CHECK_REPLAYS)) >= 3 + len(players.setwar)

        # The games go on, with the same tokens.
        again = Players(second.url)
        with httpx.Client(base_url=second.url, timeout=10) as http:
            before = {game_id: _version(http, game_id) for game_id in (set_id, square_id)}
            again.set_moves(http, set_id, set_token)
            again.square_moves(http, square_id, square_tokens)
            again.setwar_games(http)
            assert _version(http, set_id) == before[set_id] + 1
            assert _version(http, square_id) > before[square_id]
            assert len(again.setwar) == 1
            assert http.get("/look/dora").status_code == 200
    finally:
        second.stop()


def _log(http, game_id: int) -> list[dict]:
    return http.get(f"/api/games/{game_id}/moves").json()


def _version(http, game_id: int) -> int:
    return http.get(f"/api/games/{game_id}/").json()["version"]
