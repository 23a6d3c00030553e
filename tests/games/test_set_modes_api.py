"""The Set table's modes over the platform: created, joined and played to the end over the JSON
API, their log replaying to the stored state, their view and export saying the mode."""

from __future__ import annotations

import datetime
import json

import pytest

from cards.engine.table.modes import MODES
from games.models import Game
from games.replay import replay
from games.rules import get_rules

pytestmark = pytest.mark.django_db


def post(client, url, body, token=None):
    extra = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(url, json.dumps(body), "application/json", **extra)


NAMES = {"ultra": "UltraSet", "chain": "Set-Chain", "puzzle": "Puzzle"}
NAMES.update({key: mode.title for key, mode in MODES.items() if mode.attributes})


def play_over_the_api(client, options):
    # One player: dealt at once, as solitaire is.
    body = {"kind": "set", "open": True, "options": {**options, "start": "now"}}
    created = post(client, "/api/games/", body)
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    joined = post(client, f"/api/games/{game_id}/join", {"name": "ann"})
    token = joined.json()["token"]
    view = client.get(f"/api/games/{game_id}/", HTTP_AUTHORIZATION=f"Token {token}").json()
    for _ in range(120):
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
    [
        ({"mode": "ultra"}, 4),
        ({"mode": "chain", "attributes": 3}, 3),
        ({"mode": "puzzle"}, 3),
        *(({"mode": key}, mode.size) for key, mode in MODES.items() if mode.attributes),
    ],
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
    assert (
        "The mode option must be one of normal, ultra, chain, puzzle, junior, ultrachain, "
        "ultra9, megaset, ghostset, shuffle, deckpuzzle, ultra9puzzle, 4set, 4setjr, "
        "4setjrchain, 4setjrpuzzle, memory; got 'turbo'."
    ) in json.dumps(refused.json())


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


def test_a_ghostset_is_claimed_over_the_websocket_and_a_three_card_claim_is_refused(
    transactional_db,
):
    from asgiref.sync import async_to_sync
    from channels.testing import WebsocketCommunicator

    from cards.engine.table import TableState
    from cards.engine.table.codes import texts_of
    from cards.engine.table.modes import find_claim
    from config.asgi import application
    from games import services
    from games.models import Player
    from tests.games.conftest import SAME_ORIGIN

    game = services.game_create(
        kind="set", options={"start": "now", "mode": "ghostset"}, is_open=True
    )
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    state = TableState.from_json(Game.objects.get(pk=game.pk).state)
    six = texts_of(find_claim("ghostset", state.board, 4), 4)

    async def play():
        socket = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/?token={seat.token}", headers=SAME_ORIGIN
        )
        assert (await socket.connect())[0]
        answers = []
        for cards in (six[:3], six):
            await socket.send_json_to({"type": "claim", "cards": cards})
            while True:
                frame = await socket.receive_json_from(timeout=5)
                if frame["type"] in ("error", "result"):
                    answers.append(frame)
                    break
        await socket.disconnect()
        return answers

    refused, result = async_to_sync(play)()
    assert refused["type"] == "error" and refused["detail"] == "A claim names exactly six cards."
    assert result["outcome"]["claim"] == "set" and result["outcome"]["cards"] == six
    game = Game.objects.get(pk=game.pk)
    assert replay(game) == game.state


@pytest.mark.parametrize("mode", [key for key, mode in MODES.items() if mode.attributes])
def test_each_fork_mode_is_rated_apart_with_its_own_leaderboard_tab(client, mode):
    rules = get_rules("set")
    options = rules.options({"mode": mode})
    assert rules.unrated_options(options) is None
    assert rules.rating_mode(options) == f"set-{mode}"
    assert rules.rating_modes[f"set-{mode}"] == MODES[mode].title
    page = client.get(f"/leaderboard/set-{mode}/")
    assert page.status_code == 200 and MODES[mode].title in page.content.decode()
