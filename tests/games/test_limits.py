"""Rate limits on joins and moves, the same through the JSON API, the WebSocket, the plain-text
protocol and the pages; a refused request is a 4xx naming the limit and changes no game."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from games import limits, services
from games.models import Game, Player
from tests.conftest import ROOT
from tests.games.conftest import EXAMPLE_DECK
from tests.games.test_api_games import join, post
from tests.games.test_websocket import communicator

pytestmark = pytest.mark.django_db


_hours = itertools.count()


@pytest.fixture(autouse=True)
def _one_window(monkeypatch):
    """The clock stands still within a test, half a second into an hour no other test uses, so
    counts start at 0 (the cache may be Redis, shared with other processes: never cleared)."""
    now = 1_800_000_000 + 3600 * next(_hours) + 0.5
    monkeypatch.setattr(limits.time, "time", lambda: now)


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("20/s", limits.Rate(20, 1)),
        ("30/min", limits.Rate(30, 60)),
        (" 5 / hour ", limits.Rate(5, 3600)),
        ("off", None),
        ("", None),
        ("0/s", None),
    ],
)
def test_rates_are_read_from_settings_text(text, rate):
    assert limits.parse_rate(text) == rate


def test_a_wrong_rate_stops_the_server_at_its_checks():
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**os.environ, "RATE_LIMIT_MOVES": "fast"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    expected = "a rate limit is 'N/s', 'N/min', 'N/hour', 'N/10s' or 'off', not 'fast'"
    assert f"RATE_LIMIT_MOVES: {expected}" in result.stderr
    assert "Traceback" not in result.stderr


def test_api_joins_are_limited_per_client(client, settings):
    settings.RATE_LIMIT_JOINS = "3/min"
    body = {"kind": "set", "open": True, "options": {"start": "now", "rules": "classic"}}
    created = post(client, "/api/games/", body)
    assert created.status_code == 201
    game_id = created.json()["id"]
    join(client, game_id, "ann")
    join(client, game_id, "bob")
    refused = post(client, f"/api/games/{game_id}/join", {"name": "cid"})
    assert refused.status_code == 429
    assert refused.json()["detail"] == "Too many joins: at most 3 per minute; try again in 60 s."
    assert refused["Retry-After"] == "60"
    assert sorted(Game.objects.get(pk=game_id).state["players"]) == ["ann", "bob"]
    # Another client address has its own count.
    other = client.post(
        f"/api/games/{game_id}/join",
        {"name": "dee"},
        content_type="application/json",
        REMOTE_ADDR="10.0.0.9",
    )
    assert other.status_code == 201, other.content
    assert (
        post(client, "/api/games/", {"kind": "set", "options": {"start": "now"}}).status_code == 429
    )


def test_api_moves_are_limited_per_seat_and_a_refused_move_changes_nothing(client, settings):
    settings.RATE_LIMIT_MOVES = "2/s"
    options = {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}
    game_id = post(client, "/api/games/", {"kind": "set", "open": True, "options": options})
    game_id = game_id.json()["id"]
    ann, bob = join(client, game_id, "ann"), join(client, game_id, "bob")
    url = f"/api/games/{game_id}/moves"
    for _ in range(2):
        assert post(client, url, {"type": "hint"}, ann).status_code == 200
    version = Game.objects.get(pk=game_id).version
    claim = {"type": "claim", "cards": EXAMPLE_DECK[0:3]}
    refused = post(client, url, claim, ann)
    assert refused.status_code == 429
    assert refused.json()["detail"] == "Too many moves: at most 2 per second; try again in 1 s."
    game = Game.objects.get(pk=game_id)
    assert game.version == version
    assert game.state["scores"] == {"ann": 0, "bob": 0}
    assert post(client, url, claim, bob).status_code == 200  # bob's seat has its own count


@pytest.mark.django_db(transaction=True)
def test_websocket_moves_are_limited_per_seat(settings):
    settings.RATE_LIMIT_MOVES = "1/s"
    async_to_sync(_websocket_moves_are_limited_per_seat)()


async def _websocket_moves_are_limited_per_seat():
    game, seat = await _classic_game_with_seat()
    socket = communicator(f"/ws/games/{game.pk}/?token={seat.token}")
    assert (await socket.connect())[0]
    await socket.receive_json_from(timeout=5)
    await socket.send_json_to({"type": "hint"})
    assert (await socket.receive_json_from(timeout=5))["type"] == "result"
    await socket.receive_json_from(timeout=5)  # the new state
    await socket.send_json_to({"type": "claim", "cards": EXAMPLE_DECK[0:3]})
    refused = await socket.receive_json_from(timeout=5)
    assert refused == {
        "type": "error",
        "detail": "Too many moves: at most 1 per second; try again in 1 s.",
        "code": "rate_limited",
    }
    after = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert after.state["scores"] == {"ann": 0}
    await socket.send_json_to({"type": "sync"})  # the socket still works
    assert (await socket.receive_json_from(timeout=5))["type"] == "state"
    await socket.disconnect()


@sync_to_async
def _classic_game_with_seat():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}
    )
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    return game, seat


def test_protocol_moves_and_new_names_are_limited(client, settings, example_table):
    settings.RATE_LIMIT_MOVES = "2/min"
    settings.RATE_LIMIT_JOINS = "2/min"
    table = f"/tables/{example_table.pk}"
    assert client.get(f"{table}/look/alice").status_code == 200
    assert client.get(f"{table}/look/bob").status_code == 200
    refused = client.get(f"{table}/look/carol")
    assert refused.status_code == 429
    assert refused.content == b"Too many joins: at most 2 per minute; try again in 60 s.\n"
    assert client.get(f"{table}/look/alice").status_code == 200  # known names still look

    assert client.get(f"{table}/declare/alice").status_code == 200
    assert client.get(f"{table}/pick/alice/0,0").status_code == 200
    before = Game.objects.get(pk=example_table.pk)
    refused = client.get(f"{table}/pick/alice/0,1")
    assert refused.status_code == 429
    assert refused.content == b"Too many moves: at most 2 per minute; try again in 60 s.\n"
    after = Game.objects.get(pk=example_table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert sorted(after.state["players"]) == ["alice", "bob"]


def test_pages_count_new_tables_as_joins(client, settings):
    settings.RATE_LIMIT_JOINS = "1/hour"
    first = client.post("/play/new", {"name": "ann", "rules": "classic"})
    assert first.status_code == 302
    refused = client.post("/play/new", {"name": "ann", "rules": "classic"})
    assert refused.status_code == 429
    assert b"Too many joins: at most 1 per hour" in refused.content
    assert Game.objects.count() == 1


def test_a_seat_joined_with_a_token_cannot_be_played_by_name_over_the_protocol(
    client, settings, example_table
):
    settings.RATE_LIMIT_MOVES = "1/hour"
    ann = join(client, example_table.pk, "ann")  # a token client's seat
    url = f"/api/games/{example_table.pk}/moves"
    assert post(client, url, {"type": "declare"}, ann).status_code == 200
    before = Game.objects.get(pk=example_table.pk).version
    refused = client.get(f"/tables/{example_table.pk}/declare/ann")
    assert refused.status_code == 404
    assert refused.content == b"The name 'ann' is taken at this game.\n"
    assert Game.objects.get(pk=example_table.pk).version == before
