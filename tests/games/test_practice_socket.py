"""A practice table over the WebSocket: the host pauses with a frame, every socket (the host's,
another player's with the table log, a watcher's) is pushed a view with no card, a claim
sent while paused is refused with "The game is paused.", and the resume brings the board back."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import services
from games.models import Player
from tests.games.conftest import SAME_ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def make_table():
    game = services.game_create(kind="set", options={"practice": True, "start": "now"})
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    bo = services.game_join(game_id=game.pk, player=Player.objects.create(name="bo"))
    game.refresh_from_db()
    return game, ann, bo


async def until(socket, kind: str) -> dict:
    """The next frame of type `kind` (skipping presence, story and the like)."""
    for _ in range(20):
        frame = await socket.receive_json_from(timeout=5)
        if frame.get("type") == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


def test_a_paused_practice_table_sends_no_card_over_any_socket(db):
    async_to_sync(_paused_sends_no_card)()


async def _paused_sends_no_card():
    game, ann, bo = await make_table()
    key = game.link_key
    host = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/?token={ann.token}", headers=SAME_ORIGIN
    )
    other = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/?token={bo.token}&story=1", headers=SAME_ORIGIN
    )
    watcher = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/?key={key}", headers=SAME_ORIGIN
    )
    for socket in (host, other, watcher):
        assert (await socket.connect())[0]
    first = await until(host, "state")
    board = [cell["card"] for cell in first["view"]["board"]]
    assert board and first["view"]["practice"] is True
    await until(other, "state")
    await until(watcher, "state")

    await host.send_json_to({"type": "pause"})
    assert (await until(host, "result"))["outcome"]["paused"] is True
    frames = [
        await until(host, "state"),
        await until(other, "state"),
        await until(watcher, "state"),
    ]
    for frame in frames:
        assert frame["view"]["paused"] is True and frame["view"]["board"] == []
        assert not any(card in json.dumps(frame) for card in board)

    await other.send_json_to({"type": "claim", "cards": board[:3]})
    error = await until(other, "error")
    assert error["detail"] == "The game is paused."

    await host.send_json_to({"type": "resume"})
    back = await until(watcher, "state")
    assert [cell["card"] for cell in back["view"]["board"]] == board
    for socket in (host, other, watcher):
        await socket.disconnect()
