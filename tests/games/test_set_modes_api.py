"""The Set table's modes over the platform: created, joined and played to the end over the JSON
API, their log replaying to the stored state, their view and export saying the mode."""

from __future__ import annotations

import datetime
import json

import pytest

from games.models import Game
from games.replay import replay
from games.rules import get_rules

pytestmark = pytest.mark.django_db


def post(client, url, body, token=None):
    extra = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(url, json.dumps(body), "application/json", **extra)


NAMES = {"ultra": "UltraSet", "chain": "Set-Chain", "puzzle": "Puzzle"}


def play_over_the_api(client, options):
    # One player: dealt at once, as solitaire is.
    body = {"kind": "set", "open": True, "options": {**options, "start": "now"}}
    created = post(client, "/api/games/", body)
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    joined = post(client, f"/api/games/{game_id}/join", {"name": "ann"})
    token = joined.json()["token"]
    view = client.get(f"/api/games/{game_id}/", HTTP_AUTHORIZATION=f"Token {token}").json()
    for _ in range(100):
        game = Game.objects.get(pk=game_id)
        actions = get_rules("set").bot_actions(game.state, "ann")
        if not actions:
            break
        moved = post(client, f"/api/games/{game_id}/moves", actions[0], token)
        assert moved.status_code == 200, moved.json()
        assert moved.json()["outcome"]["claim"] == "set"
    return game_id, token, view


@pytest.mark.parametrize(
    "options, size",
    [({"mode": "ultra"}, 4), ({"mode": "chain", "attributes": 3}, 3), ({"mode": "puzzle"}, 3)],
)
def test_each_mode_is_played_to_its_end_over_the_api_and_replays(client, options, size):
    game_id, token, first = play_over_the_api(client, options)
    assert first["view"]["mode"] == options["mode"]
    assert first["view"]["claim_size"] == size
    game = Game.objects.get(pk=game_id)
    assert game.status == "over", game.state
    assert game.options["rules"] == "classic" and game.options["mode"] == options["mode"]
    assert replay(game) == game.state
    export = client.get(f"/api/games/{game_id}/export").json()
    assert export["options"]["mode"] == options["mode"]
    assert get_rules("set").describe(game.options).startswith(NAMES[options["mode"]])


def test_a_wrong_sized_claim_is_a_400_naming_the_size_and_changes_nothing(client):
    body = {"kind": "set", "open": True, "options": {"start": "now", "mode": "ultra"}}
    created = post(client, "/api/games/", body).json()
    token = post(client, f"/api/games/{created['id']}/join", {"name": "ann"}).json()["token"]
    before = Game.objects.get(pk=created["id"])
    board = [
        card["card"]
        for card in before.state and get_rules("set").view(before.state, "ann", 0)["board"]
    ]
    refused = post(
        client, f"/api/games/{created['id']}/moves", {"type": "claim", "cards": board[:3]}, token
    )
    assert refused.status_code == 400
    assert "exactly four cards" in json.dumps(refused.json())
    assert Game.objects.get(pk=created["id"]).version == before.version


def test_a_bad_mode_is_a_400_naming_it(client):
    refused = post(client, "/api/games/", {"kind": "set", "options": {"mode": "turbo"}})
    assert refused.status_code == 400
    assert "The mode option must be one of normal, ultra, chain, puzzle" in json.dumps(
        refused.json()
    )


def test_the_days_puzzle_is_one_board_for_everyone_and_not_guessable_from_the_date(client):
    from django.utils import timezone

    from games import services

    today = timezone.localdate().isoformat()
    first = services.game_create(kind="set", options={"mode": "puzzle", "day": today})
    second = services.game_create(kind="set", options={"mode": "puzzle", "day": today}, seed=1)
    assert first.seed == second.seed and first.state["board"] == second.state["board"]
    assert first.seed != int(today.replace("-", ""))  # drawn from the server's secret key
    earlier = services.game_create(kind="set", options={"mode": "puzzle", "day": "2026-01-01"})
    assert earlier.state["board"] != first.state["board"]
    assert replay(Game.objects.get(pk=first.pk)) == first.state


def test_a_day_still_to_come_is_refused(client):
    from django.utils import timezone

    tomorrow = (timezone.localdate() + datetime.timedelta(days=1)).isoformat()
    refused = post(
        client, "/api/games/", {"kind": "set", "options": {"mode": "puzzle", "day": tomorrow}}
    )
    assert refused.status_code == 400
    assert f"The daily puzzle of {tomorrow} is not out yet" in json.dumps(refused.json())
