"""Who is here at a table (issue 17, item 2): a seat's socket open is here, closed is away; the
sockets that ask (``?presence=1``, as the pages do) are told at once, others are sent nothing
new."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import presence, services
from games.models import Player
from tests.games.conftest import SAME_ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def table():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))
    return game, ann, bob


async def opened(path):
    socket = WebsocketCommunicator(application, path, headers=SAME_ORIGIN)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from(timeout=5))["type"] == "state"
    return socket


async def next_presence(socket):
    while True:
        frame = await socket.receive_json_from(timeout=5)
        if frame["type"] == "presence":
            return frame["here"]


async def presence_becomes(socket, here):
    """Read presence frames until one says `here` (a socket may first hear of an arrival that
    happened before it joined, when the channel layer delivers it late: Redis)."""
    seen = []
    while not seen or seen[-1] != here:
        seen.append(await next_presence(socket))
    return seen


def test_players_see_each_other_come_and_go_and_watchers_are_not_counted(db):
    async_to_sync(_come_and_go)()


async def _come_and_go():
    game, ann, bob = await table()
    watcher = await opened(f"/ws/games/{game.pk}/?presence=1")
    assert await next_presence(watcher) == []  # nobody is here yet
    ann_socket = await opened(f"/ws/games/{game.pk}/?token={ann.token}&presence=1")
    await presence_becomes(ann_socket, ["ann"])
    await presence_becomes(watcher, ["ann"])
    bob_socket = await opened(f"/ws/games/{game.pk}/?token={bob.token}&presence=1")
    await presence_becomes(ann_socket, ["ann", "bob"])
    await bob_socket.disconnect()
    await presence_becomes(ann_socket, ["ann"])  # bob went away
    assert await sync_to_async(presence.table_here)(game.pk) == ["ann"]
    await ann_socket.disconnect()
    seen = await presence_becomes(watcher, [])
    assert seen == [["ann", "bob"], ["ann"], []]  # the watcher saw them come and go
    await watcher.disconnect()


def test_a_socket_that_does_not_ask_is_sent_no_presence_frame(db):
    async_to_sync(_not_asked)()


async def _not_asked():
    game, ann, bob = await table()
    plain = await opened(f"/ws/games/{game.pk}/?token={ann.token}")
    asking = await opened(f"/ws/games/{game.pk}/?token={bob.token}&presence=1")
    await presence_becomes(asking, ["ann", "bob"])  # ann's plain socket counts as here
    assert await plain.receive_nothing(timeout=0.3)
    await plain.disconnect()
    await presence_becomes(asking, ["bob"])
    await asking.disconnect()
