"""A server that is told to stop closes its sockets with 1012, Service Restart, so their pages
reconnect at once (games.realtime.open_sockets; the process itself: config.server)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from games import realtime
from tests.games.test_lobby_live import lobby_socket
from tests.games.test_websocket import communicator, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def open_sockets(monkeypatch):
    """The process's registry of open sockets, fresh for the test (a restart is for good)."""
    fresh = realtime.OpenSockets()
    monkeypatch.setattr(realtime, "open_sockets", fresh)
    return fresh


async def closed_with(socket) -> int:
    """Read a socket's frames until it is closed; the close code."""
    while True:
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output.get("code")


def test_open_sockets_close_with_1012_when_the_server_stops(open_sockets):
    async_to_sync(_open_sockets_close_with_1012_when_the_server_stops)(open_sockets)


async def _open_sockets_close_with_1012_when_the_server_stops(open_sockets):
    game, alice, _ = await make_table()
    player = communicator(f"/ws/games/{game.pk}/?token={alice.token}")
    watcher = communicator(f"/ws/games/{game.pk}/")
    lobby = lobby_socket()
    for socket in (player, watcher, lobby):
        assert (await socket.connect())[0]
        await socket.receive_json_from(timeout=5)
    assert len(open_sockets) == 3

    assert await open_sockets.restart() == 3
    for socket in (player, watcher, lobby):
        assert await closed_with(socket) == 1012
        await socket.disconnect()  # the client answers the close; the consumer ends
    # A socket accepted while the server stops is told at once.
    late = communicator(f"/ws/games/{game.pk}/")
    assert (await late.connect())[0]
    assert await closed_with(late) == 1012
    await late.disconnect()
    assert len(open_sockets) == 0
