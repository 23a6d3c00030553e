"""The live lobby, WebSocket /ws/lobby/: its lists of tables and who is online, pushed as they
change (games.lobby_consumer), from the one write path (services.announce)."""

from __future__ import annotations

import datetime
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache import cache
from django.utils import timezone

from config.asgi import application
from games import presence, services
from games.auth import SESSION_PLAYER_KEY
from games.models import Game, Player
from tests.games.conftest import EXAMPLE_DECK, SAME_ORIGIN, play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def quick_lobby(settings):
    settings.LOBBY_REFRESH_S = 0.05
    cache.delete(presence.KEY)
    yield
    cache.delete(presence.KEY)


def lobby_socket(cookie: str | None = None) -> WebsocketCommunicator:
    headers = [*SAME_ORIGIN]
    if cookie is not None:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, "/ws/lobby/", headers=headers)


def session_of(player: Player, **extra) -> str:
    session = SessionStore()
    session[SESSION_PLAYER_KEY] = player.pk
    session.update(extra)
    session.save()
    return session.session_key


async def frame_where(socket, test, timeout: float = 5.0) -> dict:
    """The first lobby frame for which `test` holds (frames before it are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, "no such lobby frame came"
        frame = await socket.receive_json_from(timeout=left)
        if frame["type"] == "lobby" and test(frame):
            return frame


async def quiet(socket, seconds: float = 0.3) -> None:
    """Read what the socket is sent for a moment (the frames that follow its own arrival)."""
    while not await socket.receive_nothing(timeout=seconds):
        await socket.receive_output(timeout=1)


def ids(rows) -> list[int]:
    return [row["id"] for row in rows]


@sync_to_async
def open_table(**options) -> Game:
    options = options or {"start": "now", "rules": "declare", "deck": EXAMPLE_DECK}
    return services.game_create(kind="set", options=options, is_open=True)


@sync_to_async
def join(game: Game, name: str):
    return services.game_join(game_id=game.pk, player=Player.objects.create(name=name))


def test_a_lobby_socket_is_sent_the_live_and_idle_tables_and_who_is_online():
    async def run():
        game = await open_table()
        private = await sync_to_async(services.game_create)(
            kind="set", options={"start": "now", "rules": "classic"}, is_open=False
        )
        socket = lobby_socket()
        assert (await socket.connect())[0]
        frame = await frame_where(socket, lambda f: True)
        assert game.pk in ids(frame["tables"]) and private.pk not in ids(frame["tables"])
        row = frame["tables"][ids(frame["tables"]).index(game.pk)]
        assert row["kind_label"] == "Set" and row["seats"] == [] and not row["mine"]
        assert row["join_url"] == f"/play/{game.pk}/?join=1"
        assert frame["idle"] == [] and frame["idle_minutes"] == 10
        assert frame["online"] == [] and frame["guests"] == 1  # itself, with no name
        await socket.disconnect()

    async_to_sync(run)()


def test_a_new_table_a_join_and_the_end_of_a_game_are_pushed_but_a_move_is_not():
    async def run():
        socket = lobby_socket()
        assert (await socket.connect())[0]
        await quiet(socket)

        game = await open_table(rules="classic", attributes=3, start="now")
        frame = await frame_where(socket, lambda f: game.pk in ids(f["tables"]))
        assert frame["tables"][0]["seats"] == []

        ann = await join(game, "ann")
        frame = await frame_where(socket, lambda f: f["tables"][0]["seats"])
        assert [seat["name"] for seat in frame["tables"][0]["seats"]] == ["ann"]
        await quiet(socket)

        # An ordinary move is no news to the lobby.
        await sync_to_async(services.move_submit)(
            game_id=game.pk, seat=ann, action={"type": "hint"}
        )
        assert await socket.receive_nothing(timeout=0.5)

        await sync_to_async(play_to_the_end)(game, ann)
        frame = await frame_where(socket, lambda f: game.pk not in ids(f["tables"]))
        assert game.pk not in ids(frame["idle"])
        (ended,) = [row for row in frame["finished"] if row["id"] == game.pk]
        assert ended["winners"] == ["ann"] and ended["replay_url"] == f"/games/{game.pk}/replay/"
        await socket.disconnect()

    async_to_sync(run)()


def test_a_table_nobody_has_played_at_for_ten_minutes_is_in_the_idle_list():
    async def run():
        game = await open_table()
        quiet_since = timezone.now() - datetime.timedelta(minutes=11)
        await sync_to_async(Game.objects.filter(pk=game.pk).update)(updated=quiet_since)
        socket = lobby_socket()
        assert (await socket.connect())[0]
        frame = await frame_where(socket, lambda f: True)
        assert game.pk in ids(frame["idle"]) and game.pk not in ids(frame["tables"])
        assert frame["idle"][0]["quiet_for"].startswith("11")
        await socket.disconnect()

    async_to_sync(run)()


def test_a_quiet_table_with_a_player_there_stays_live_until_they_leave():
    async def run():
        game = await open_table()
        seat = await join(game, "stays")
        quiet_since = timezone.now() - datetime.timedelta(minutes=11)
        await sync_to_async(Game.objects.filter(pk=game.pk).update)(updated=quiet_since)
        table = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/?token={seat.token}", headers=SAME_ORIGIN
        )
        assert (await table.connect())[0]
        socket = lobby_socket()
        assert (await socket.connect())[0]
        frame = await frame_where(socket, lambda f: game.pk in ids(f["tables"]))
        assert game.pk not in ids(frame["idle"])  # quiet, but someone is at the table
        await table.disconnect()
        await frame_where(socket, lambda f: game.pk in ids(f["idle"]))  # everyone has gone
        await socket.disconnect()

    async_to_sync(run)()


def test_a_live_table_turns_idle_on_the_sockets_without_a_reload(settings):
    settings.LOBBY_IDLE_AFTER_S = 1.0

    async def run():
        socket = lobby_socket()
        assert (await socket.connect())[0]
        game = await open_table()
        await frame_where(socket, lambda f: game.pk in ids(f["tables"]))
        frame = await frame_where(socket, lambda f: game.pk in ids(f["idle"]), timeout=4)
        assert game.pk not in ids(frame["tables"])
        await socket.disconnect()

    async_to_sync(run)()


def test_players_in_the_lobby_are_named_online_and_leave_when_their_socket_closes():
    async def run():
        ann = await sync_to_async(Player.objects.create)(name="ann")
        user = await sync_to_async(get_user_model().objects.create_user)("Bea", password="x")
        bea = await sync_to_async(Player.objects.create)(name="Bea", user=user)
        ann_socket = lobby_socket(await sync_to_async(session_of)(ann))
        bea_socket = lobby_socket(await sync_to_async(session_of)(bea, _auth_user_id=str(user.pk)))
        watcher = lobby_socket()
        assert (await ann_socket.connect())[0]
        assert (await bea_socket.connect())[0]
        assert (await watcher.connect())[0]
        both = [{"name": "ann", "url": None}, {"name": "Bea", "url": "/u/Bea"}]
        frame = await frame_where(ann_socket, lambda f: len(f["online"]) == 2 and f["guests"])
        assert frame["online"] == both and frame["guests"] == 1

        await bea_socket.disconnect()
        frame = await frame_where(ann_socket, lambda f: len(f["online"]) == 1)
        assert frame["online"] == [{"name": "ann", "url": None}]
        await watcher.disconnect()
        frame = await frame_where(ann_socket, lambda f: not f["guests"])
        assert frame["online"] == [{"name": "ann", "url": None}]
        await ann_socket.disconnect()

    async_to_sync(run)()
    assert presence.lobby_online() == {"online": [], "guests": 0}


def test_a_socket_not_heard_from_for_the_presence_time_is_no_longer_online(settings):
    settings.LOBBY_PRESENCE_TTL_S = 0.2
    presence.lobby_arrive("gone", "zed", None)
    assert presence.lobby_online()["online"] == [{"name": "zed", "url": None}]
    time.sleep(0.3)
    assert presence.lobby_online() == {"online": [], "guests": 0}


def test_the_heartbeat_keeps_a_socket_online_and_tells_the_lobby_when_one_ran_out(settings):
    settings.LOBBY_PRESENCE_TTL_S = 0.6
    settings.LOBBY_HEARTBEAT_S = 0.2

    async def run():
        ann = await sync_to_async(Player.objects.create)(name="ann")
        socket = lobby_socket(await sync_to_async(session_of)(ann))
        assert (await socket.connect())[0]
        await sync_to_async(presence.lobby_arrive)("a dead server's socket", "zed", None)
        await frame_where(socket, lambda f: True)
        # zed's server died: its entry runs out, ann's heartbeats keep hers.
        frame = await frame_where(socket, lambda f: len(f["online"]) == 1, timeout=3)
        assert frame["online"] == [{"name": "ann", "url": None}]
        await socket.disconnect()

    async_to_sync(run)()


def test_lobby_chat_published_to_the_lobby_group_is_sent_on_to_each_socket():
    async def run():
        socket = lobby_socket()
        assert (await socket.connect())[0]
        await quiet(socket)
        chat = {"name": "ann", "text": "<b>hi</b>", "at": "2026-01-01T00:00:00Z"}
        await get_channel_layer().group_send("lobby", {"type": "lobby.chat", "chat": chat})
        assert await socket.receive_json_from(timeout=5) == {"type": "chat", **chat}
        await socket.disconnect()

    async_to_sync(run)()


def test_a_player_sees_their_private_table_and_a_sync_or_bad_frame_is_answered():
    async def run():
        ann = await sync_to_async(Player.objects.create)(name="ann")
        game = await sync_to_async(services.game_create)(
            kind="set", options={"start": "now", "rules": "classic"}, is_open=False
        )
        await sync_to_async(services.game_join)(game_id=game.pk, player=ann)
        socket = lobby_socket(await sync_to_async(session_of)(ann))
        assert (await socket.connect())[0]
        frame = await frame_where(socket, lambda f: True)
        assert frame["tables"][0]["id"] == game.pk and frame["tables"][0]["mine"]
        await quiet(socket)
        await socket.send_json_to({"type": "sync"})
        assert (await socket.receive_json_from(timeout=5))["type"] == "lobby"
        await socket.send_to(text_data="{nope")
        assert (await socket.receive_json_from(timeout=5))["code"] == "bad_action"
        await socket.disconnect()

    async_to_sync(run)()


def test_a_foreign_origin_cannot_open_the_lobby_socket():
    async def run():
        socket = WebsocketCommunicator(
            application, "/ws/lobby/", headers=[(b"origin", b"http://evil.example")]
        )
        return (await socket.connect())[0]

    assert not async_to_sync(run)()


def test_the_lobby_page_shows_who_is_online_and_the_same_rows_the_socket_sends(client):
    presence.lobby_arrive("one", "ann", None)
    presence.lobby_arrive("two", "Bea", "/u/Bea")
    presence.lobby_arrive("three", None, None)
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    page = client.get("/").content.decode()
    assert 'id="online-now"' in page and "ann" in page and 'href="/u/Bea"' in page
    assert "and 1 guest watching" in page
    assert f'data-game="{game.pk}"' in page
