"""A Set table for friends opens waiting (issue 24): no cards until a seated player starts it,
over the API (POST /api/games/<id>/start) or the socket ({"type": "start"}); the cards come 3 s
later through the deadline. A move before the deal is a 409 that changes nothing; a rated table
takes no new player once dealt; names at a table are compared case-folded."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from cards.engine.table.base import START_MS
from games import services
from games.models import Game, Move, Player
from games.replay import replay
from tests.examples import EXAMPLE_DECK
from tests.games.test_websocket import communicator

WAITING = {"kind": "set", "open": True, "options": {"rules": "classic", "deck": EXAMPLE_DECK}}
A_SET = {"type": "claim", "cards": EXAMPLE_DECK[:3]}


def post(client, path, body=None, token=None, **extra):
    if token is not None:
        extra["HTTP_AUTHORIZATION"] = f"Token {token}"
    data = json.dumps({} if body is None else body)
    return client.post(path, data, content_type="application/json", **extra)


def table(client, body=WAITING):
    game = post(client, "/api/games/", body).json()
    join = f"/api/games/{game['id']}/join" + (f"?key={game['key']}" if game["key"] else "")
    ann = post(client, join, {"name": "ann"}).json()["token"]
    bo = post(client, join, {"name": "bo"}).json()["token"]
    return game, ann, bo


def view(client, game_id, token=None, **extra):
    if token is not None:
        extra["HTTP_AUTHORIZATION"] = f"Token {token}"
    return client.get(f"/api/games/{game_id}/", **extra).json()


@pytest.mark.django_db
def test_a_table_waits_for_its_start_then_deals_after_the_countdown(client):
    game, ann, bo = table(client)
    assert game["options"]["start"] == "wait" and game["status"] == "waiting"
    seen = view(client, game["id"], ann)
    assert seen["status"] == "waiting"
    v = seen["view"]
    assert (v["status"], v["board"], v["host"], v["may_start"]) == ("waiting", [], "ann", True)
    assert v["starts_at"] is None and v["started_at"] is None and isinstance(v["now"], int)
    assert view(client, game["id"], bo)["view"]["may_start"] is False

    moves = Move.objects.filter(game_id=game["id"]).count()
    early = post(client, f"/api/games/{game['id']}/moves", A_SET, ann)
    assert early.status_code == 409
    assert early.json()["detail"].startswith("The game has not started yet")
    assert Move.objects.filter(game_id=game["id"]).count() == moves

    not_host = post(client, f"/api/games/{game['id']}/start", token=bo)
    assert not_host.status_code == 403 and "Only ann" in not_host.json()["detail"]
    started = post(client, f"/api/games/{game['id']}/start", token=ann)
    assert started.status_code == 200, started.json()
    starts = started.json()["outcome"]["starts_ms"]
    assert started.json()["view"]["starts_at"] == starts
    again = post(client, f"/api/games/{game['id']}/start", token=ann)
    assert again.status_code == 409 and "already started" in again.json()["detail"]

    # The deadline passes: the next read deals (a logged tick), and the claim is taken.
    services.game_tick(game_id=game["id"], now=starts + 1)
    dealt = view(client, game["id"], ann)
    assert dealt["status"] == "active" and dealt["view"]["status"] == "active"
    assert dealt["view"]["started_at"] == starts and len(dealt["view"]["board"]) == 12
    assert Move.objects.filter(game_id=game["id"]).last().action == {"type": "tick"}
    assert post(client, f"/api/games/{game['id']}/moves", A_SET, ann).status_code == 200
    late = post(client, f"/api/games/{game['id']}/start", token=bo)
    assert late.status_code == 409 and late.json()["detail"] == "The game has already started."
    # An unrated table takes a late comer.
    assert post(client, f"/api/games/{game['id']}/join", {"name": "cy"}).status_code == 201
    # The move log is the truth: the join, the start and the deal replay to the stored state.
    stored = Game.objects.get(pk=game["id"])
    assert replay(stored) == stored.state and "waiting" in stored.state


@pytest.mark.django_db
def test_start_needs_a_seat_and_a_private_game_is_404_to_strangers(client):
    game, ann, _ = table(client, {**WAITING, "open": False})
    stranger = post(client, f"/api/games/{game['id']}/start")
    assert stranger.status_code == 404
    assert post(client, "/api/games/999999/start").status_code == 404
    open_game, *_ = table(client)
    watcher = post(client, f"/api/games/{open_game['id']}/start")
    assert watcher.status_code == 403
    assert post(client, f"/api/games/{game['id']}/start", token=ann).status_code == 200


@pytest.mark.django_db
def test_start_at_once_tables_and_the_text_protocol_s_table_are_dealt_when_made(client):
    now = {**WAITING, "options": {**WAITING["options"], "start": "now"}}
    game, ann, _ = table(client, now)
    seen = view(client, game["id"], ann)
    assert seen["status"] == "active" and seen["view"]["board"]
    assert post(client, f"/api/games/{game['id']}/moves", A_SET, ann).status_code == 200
    assert client.get("/look/zed").status_code == 200  # the default table: cards at once
    assert Game.objects.get(is_default=True).options["start"] == "now"
    bad = post(client, "/api/games/", {**WAITING, "options": {"start": "soon"}})
    assert bad.status_code == 400 and "start option" in bad.json()["detail"]


@pytest.mark.django_db
def test_a_rated_table_takes_no_new_player_once_dealt(client, django_user_model):
    game = services.game_create(kind="set", options={"rules": "classic"}, is_open=True, rated=True)
    ann_user = django_user_model.objects.create_user("ann", password="pw-for-ann-1")
    ann = services.game_join(
        game_id=game.pk, player=Player.objects.create(name="ann", user=ann_user)
    )
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "start"})
    services.game_tick(game_id=game.pk, now=services.now_ms() + START_MS + 1)
    bo = django_user_model.objects.create_user("bo", password="pw-for-bo-1")
    client.force_login(bo)
    late = post(client, f"/api/games/{game.pk}/join", {"name": "bo"})
    assert late.status_code == 409
    assert late.json()["detail"] == (
        "This rated game has started: its players are seated. Watch it, or join the next one."
    )


@pytest.mark.django_db
@pytest.mark.parametrize("first, second", [("Tim", "TIM"), ("Zoë", "ZOË")])
def test_names_at_a_waiting_table_are_compared_case_folded(client, first, second):
    game = post(client, "/api/games/", WAITING).json()
    assert post(client, f"/api/games/{game['id']}/join", {"name": first}).status_code == 201
    refused = post(client, f"/api/games/{game['id']}/join", {"name": second})
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": f"The name {second!r} is taken at this game.",
        "code": "name_taken",
    }


@pytest.mark.django_db(transaction=True)
def test_a_socket_starts_the_table_and_everyone_is_pushed_the_deal():
    async_to_sync(_a_socket_starts_the_table)()


async def _a_socket_starts_the_table():
    @sync_to_async
    def make():
        game = services.game_create(
            kind="set", options={"rules": "declare", "deck": EXAMPLE_DECK}, is_open=True
        )
        ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
        bo = services.game_join(game_id=game.pk, player=Player.objects.create(name="bo"))
        return game, ann, bo

    game, ann, bo = await make()
    watcher = communicator(f"/ws/games/{game.pk}/")
    assert (await watcher.connect())[0]
    assert (await watcher.receive_json_from(timeout=5))["view"]["status"] == "waiting"
    player = communicator(f"/ws/games/{game.pk}/?token={bo.token}")
    assert (await player.connect())[0]
    await player.receive_json_from(timeout=5)
    await player.send_json_to({"type": "declare"})
    early = await player.receive_json_from(timeout=5)
    assert (early["type"], early["code"]) == ("error", "not_started")
    await player.send_json_to({"type": "start"})
    refused = await player.receive_json_from(timeout=5)
    assert (refused["type"], refused["code"]) == ("error", "not_host")
    host = communicator(f"/ws/games/{game.pk}/?token={ann.token}")
    assert (await host.connect())[0]
    await host.receive_json_from(timeout=5)
    await host.send_json_to({"type": "start"})
    result = await host.receive_json_from(timeout=5)
    assert result["type"] == "result" and result["outcome"]["action"] == "start"
    counting = await watcher.receive_json_from(timeout=5)
    assert counting["view"]["starts_at"] == result["outcome"]["starts_ms"]
    dealt = await watcher.receive_json_from(timeout=START_MS / 1000 + 5)  # the socket's deadline
    assert dealt["view"]["status"] == "active" and len(dealt["view"]["board"]) == 3
    for socket in (watcher, player, host):
        await socket.disconnect()
