"""WebSocket /ws/games/<id>/: full view on connect, a new view after every change, actions."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import services
from games.models import Player
from tests.games.conftest import EXAMPLE_DECK, SAME_ORIGIN

# The tests run their async bodies with async_to_sync, so the database is set up (and torn
# down) outside any event loop.
pytestmark = pytest.mark.django_db(transaction=True)


def communicator(path: str, headers=SAME_ORIGIN) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, path, headers=headers)


@sync_to_async
def make_table():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "declare", "deck": EXAMPLE_DECK}, is_open=True
    )
    alice = services.game_join(game_id=game.pk, player=Player.objects.create(name="alice"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))
    game.refresh_from_db()
    return game, alice, bob


def test_watchers_see_every_change_and_players_act(db):
    async_to_sync(_watchers_see_every_change_and_players_act)()


async def _watchers_see_every_change_and_players_act():
    game, alice, bob = await make_table()
    watcher = communicator(f"/ws/games/{game.pk}/")
    connected, _ = await watcher.connect()
    assert connected
    first = await watcher.receive_json_from(timeout=5)
    assert first["type"] == "state" and first["version"] == game.version
    assert first["view"]["declare"]["state"] == "none"

    player = communicator(f"/ws/games/{game.pk}/?token={alice.token}")
    assert (await player.connect())[0]
    await player.receive_json_from(timeout=5)
    await player.send_json_to({"type": "declare"})
    reply = await player.receive_json_from(timeout=5)
    assert reply["type"] == "result"
    mine = await player.receive_json_from(timeout=5)
    assert mine["view"]["declare"]["state"] == "my"

    seen = await watcher.receive_json_from(timeout=5)
    assert seen["version"] == first["version"] + 1
    assert seen["view"]["declare"]["state"] == "up"
    await watcher.disconnect()
    await player.disconnect()


def test_bad_frames_are_refused_without_harming_the_game(db):
    async_to_sync(_bad_frames_are_refused_without_harming_the_game)()


async def _bad_frames_are_refused_without_harming_the_game():
    game, alice, _ = await make_table()
    player = communicator(f"/ws/games/{game.pk}/?token={alice.token}")
    await player.connect()
    await player.receive_json_from(timeout=5)
    for frame in (
        "{not json",
        "[]",
        '{"type": 3}',
        "x" * 20000,
        '{"type": "pick", "row": 9, "col": 9}',
    ):
        await player.send_to(text_data=frame)
        error = await player.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["detail"], frame
    await player.send_json_to({"type": "sync"})
    state = await player.receive_json_from(timeout=5)
    assert state["version"] == game.version
    await player.disconnect()


def test_watchers_cannot_act_and_bad_tokens_or_games_are_closed(db):
    async_to_sync(_watchers_cannot_act_and_bad_tokens_or_games_are_closed)()


async def _watchers_cannot_act_and_bad_tokens_or_games_are_closed():
    game, _, _ = await make_table()
    watcher = communicator(f"/ws/games/{game.pk}/")
    await watcher.connect()
    await watcher.receive_json_from(timeout=5)
    await watcher.send_json_to({"type": "declare"})
    assert (await watcher.receive_json_from(timeout=5))["code"] == "forbidden"
    await watcher.disconnect()

    bad = communicator(f"/ws/games/{game.pk}/?token=nope")
    connected, code = await bad.connect()
    assert not connected or code == 4403
    missing = communicator("/ws/games/999999/")
    connected, code = await missing.connect()
    assert not connected or code == 4404


def test_foreign_origins_are_refused(db):
    async_to_sync(_foreign_origins_are_refused)()


async def _foreign_origins_are_refused():
    game, _, _ = await make_table()
    evil = communicator(f"/ws/games/{game.pk}/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await evil.connect()
    assert not connected


def test_a_push_to_a_socket_the_client_is_closing_is_dropped_quietly(db):
    """daphne hears of a close only when the connection is gone; until then autobahn refuses
    frames for a closing socket: the push is dropped, not raised through the consumer."""
    from games.consumers import GameConsumer

    async def refusing_send(message):
        if message["type"] == "websocket.send":
            raise ConnectionError("Attempt to send on a closed protocol")

    async def run():
        game, _alice, _bob = await make_table()
        socket = GameConsumer()
        socket.scope = {"url_route": {"kwargs": {"game_id": game.pk}}}
        socket.base_send = refusing_send
        socket.sent_version = game.version - 1
        await socket.game_changed(
            {"type": "game.changed", "game": game.pk, "version": game.version, "deadline_ms": None}
        )
        return socket.sent_version, game.version

    shown, version = async_to_sync(run)()
    assert shown == version  # it went as far as the send, which refused it


def test_a_socket_to_a_game_id_past_64_bits_is_told_there_is_no_such_game(db):
    # SQLite cannot bind such a number at all: it must not reach the database.
    async def run():
        socket = communicator("/ws/games/99999999999999999999999/")
        return await socket.connect()

    assert async_to_sync(run)() == (False, 4404)


def test_a_closed_socket_leaves_nothing_in_the_channel_layer(db):
    async_to_sync(_a_closed_socket_leaves_nothing_in_the_channel_layer)()


async def _a_closed_socket_leaves_nothing_in_the_channel_layer():
    """A socket's channel (its one queue for the socket's messages and the game's pushes) is
    forgotten when it closes: a server that has served many sockets holds only the open ones'."""
    from channels.layers import get_channel_layer

    game, alice, bob = await make_table()
    layer = get_channel_layer()
    before = set(layer.here().mailboxes)
    watcher = communicator(f"/ws/games/{game.pk}/")
    assert (await watcher.connect())[0]
    await watcher.receive_json_from(timeout=5)
    assert len(set(layer.here().mailboxes) - before) == 1
    for n in range(3):
        await sync_to_async(services.chat_post)(
            game_id=game.pk, player_id=alice.player_id, text=f"line {n}"
        )
    await watcher.disconnect()
    assert set(layer.here().mailboxes) - before == set()
