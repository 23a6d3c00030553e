"""The tournament page's socket (/ws/tournaments/<id>/) after a change: every socket of a page
gets the new standings, read once for all the sockets of the process (bench/bench_arena.py's
400 watchers each read the whole standings again after every game's end, and the frames came
seconds late)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.utils import timezone

from config.asgi import application
from games import arena, tournament_consumer, tournament_reads, tournaments
from games.models import BotAccount, TournamentPlayer
from tests.games.conftest import SAME_ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def an_arena():
    made = tournaments.tournament_create(
        user=None,
        kind="set",
        options={"mode": "set-classic"},
        starts_at=timezone.now(),
        minutes=10,
        open_to_bots=True,
    )
    return tournaments.tick(made)


@sync_to_async
def players_score(tournament, points: dict[str, float]) -> None:
    for name, scored in points.items():
        user = get_user_model().objects.create_user(name)
        BotAccount.objects.create(user=user)
        TournamentPlayer.objects.create(tournament=tournament, user=user, points=scored, games=1)


async def a_socket(tournament) -> WebsocketCommunicator:
    """A socket of the tournament's page, its first frame read."""
    socket = WebsocketCommunicator(
        application, f"/ws/tournaments/{tournament.pk}/", headers=SAME_ORIGIN
    )
    assert (await socket.connect())[0]
    await socket.receive_json_from(timeout=5)
    return socket


def test_the_sockets_share_one_read_of_the_standings_after_a_change(monkeypatch):
    async_to_sync(_share_one_read)(monkeypatch)


async def _share_one_read(monkeypatch):
    tournament = await an_arena()
    await players_score(tournament, {f"p{n:02d}": 20 - n for n in range(20)})
    sockets = []
    for page in (1, 1, 2):
        socket = WebsocketCommunicator(
            application, f"/ws/tournaments/{tournament.pk}/", headers=SAME_ORIGIN
        )
        assert (await socket.connect())[0]
        first = await socket.receive_json_from(timeout=5)
        assert first["tournament"]["players"] == 20
        if page == 2:
            await socket.send_json_to({"type": "page", "page": 2})
            assert (await socket.receive_json_from(timeout=5))["tournament"]["page"] == 1
        sockets.append(socket)
    reads = []
    ranked_now = tournament_reads.ranked_now
    monkeypatch.setattr(
        tournament_reads, "ranked_now", lambda *a, **kw: reads.append(1) or ranked_now(*a, **kw)
    )
    await players_score(tournament, {"ann": 30.0})  # first: p19 goes to the second page
    await get_channel_layer().group_send(
        arena.group_name(tournament.pk), arena.changed(tournament.pk)
    )
    frames = [(await socket.receive_json_from(timeout=5))["tournament"] for socket in sockets]
    assert [f["page"] for f in frames] == [1, 1, 2]
    for frame in frames[:2]:
        first = frame["standings"][0]
        assert (first["name"], first["points"], first["games"]) == ("ann", 30.0, 1)
        assert frame["me"] is None
    assert [p["name"] for p in frames[2]["standings"]] == ["p19"]
    assert len(reads) == 1
    for socket in sockets:
        await socket.disconnect()


def test_a_change_reaches_the_sockets_while_djangos_thread_is_busy():
    # Channels' own dispatch first hops to Django's one thread for every message (to close
    # that thread's old connections): 400 watchers of an arena queued there behind each other
    # and behind every request Django's thread served. These sockets never use it.
    async_to_sync(_while_busy)()


async def _while_busy():
    tournament = await an_arena()
    await players_score(tournament, {"ann": 1.0})
    socket = await a_socket(tournament)
    await players_score(tournament, {"bob": 2.0})
    release = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(release.wait)())  # Django's thread, held
    try:
        await get_channel_layer().group_send(
            arena.group_name(tournament.pk),
            {"type": "tournament.changed", "tournament": tournament.pk},
        )
        frame = (await socket.receive_json_from(timeout=3))["tournament"]
        assert [p["name"] for p in frame["standings"]] == ["bob", "ann"]
    finally:
        release.set()
        await busy
    await socket.disconnect()


def test_a_change_is_sent_at_once_the_next_ones_share_a_frame_and_a_game_scored_goes_at_once(
    monkeypatch,
):
    """A change goes at once; the changes right after it share a frame a moment later (the
    window); a game's points move the standings: they go at once, not with the window's next
    frame, and a change waiting for the window goes with them."""
    monkeypatch.setattr(tournament_consumer, "SEND_EVERY_S", 3.0)
    # No tick meanwhile: it would seat the players waiting, a change of its own.
    monkeypatch.setattr(tournament_consumer, "TICK_S", 60.0)
    async_to_sync(_at_once_then_shared)()


def names(frame: dict) -> list[str]:
    return [p["name"] for p in frame["tournament"]["standings"]]


async def _at_once_then_shared():
    tournament = await an_arena()
    socket = await a_socket(tournament)
    layer, group = get_channel_layer(), arena.group_name(tournament.pk)
    await players_score(tournament, {"ann": 1.0})
    await layer.group_send(group, arena.changed(tournament.pk))
    assert names(await socket.receive_json_from(timeout=2)) == ["ann"]  # not 3 s later
    for name in ("bob", "cy"):
        await players_score(tournament, {name: 2.0})
        await layer.group_send(group, arena.changed(tournament.pk))
    assert await socket.receive_nothing(timeout=1)
    frame = await socket.receive_json_from(timeout=5)  # both, in one frame
    assert set(names(frame)) == {"ann", "bob", "cy"}
    assert await socket.receive_nothing(timeout=0.5)
    await players_score(tournament, {"dee": 1.5})
    await layer.group_send(group, arena.changed(tournament.pk))  # waits for the window
    assert await socket.receive_nothing(timeout=0.5)
    await players_score(tournament, {"eve": 3.0})
    await layer.group_send(group, arena.changed(tournament.pk, scored=True))
    frame = await socket.receive_json_from(timeout=1)  # not 3 s later, and with dee
    assert names(frame)[0] == "eve" and "dee" in names(frame)
    assert await socket.receive_nothing(timeout=3.5)  # the waiting change went with it
    await socket.disconnect()


def test_the_standings_every_socket_shares_are_read_as_values_not_rows():
    """Every page's standings after a change are read as values: no player's or account's row
    is made (800 rows for 400 players were half of each read's time), and the ranks, the
    points and who is on fire come out as before."""
    from django.db.models.signals import post_init

    tournament = async_to_sync(an_arena)()
    async_to_sync(players_score)(tournament, {f"p{n:02d}": float(n // 2) for n in range(30)})
    TournamentPlayer.objects.filter(user__username="p29").update(streak=2, wins=1)
    made: list[type] = []

    def note(sender, **kwargs):
        made.append(sender)

    post_init.connect(note)
    try:
        pages = tournament_consumer._all_pages(tournament.pk)
    finally:
        post_init.disconnect(note)
    assert not {TournamentPlayer, get_user_model()} & set(made)
    first, second = pages.page(1)[0], pages.page(2)[0]
    assert (first["players"], first["pages"], second["page"]) == (30, 2, 2)
    top = first["standings"][:3]
    # p29 has as many points as p28 (14) and a win; p26 and p27 share 13 points' rank, the
    # one who joined first shown first.
    assert [(p["name"], p["rank"], p["points"], p["on_fire"]) for p in top] == [
        ("p29", 1, 14.0, True),
        ("p28", 2, 14.0, False),
        ("p26", 3, 13.0, False),
    ]
    assert first["standings"][3]["rank"] == 3
    assert [p["rank"] for p in second["standings"]][:2] == [21, 21]  # p08 and p09: 4 points


def test_a_process_s_sockets_hear_each_change_once_and_tick_once(monkeypatch):
    """Three sockets of a tournament are one member of its group in their process (a change is
    heard once there, not once a socket: 400 watchers each heard every game's end) and tick
    the tournament from one timer, not one a socket; once they close, nothing is left."""
    monkeypatch.setattr(tournament_consumer, "TICK_S", 0.2)
    ticks = []
    monkeypatch.setattr(tournament_consumer, "_tick", lambda tid: ticks.append(tid))
    async_to_sync(_one_member)()
    assert 1 <= len(ticks) <= 6, ticks  # about 1 s / 0.2 s for the three sockets, not 15


async def _one_member():
    tournament = await an_arena()
    layer, group = get_channel_layer(), arena.group_name(tournament.pk)
    sockets = []
    for _ in range(3):
        sockets.append(await a_socket(tournament))
    assert len(layer.here().groups[group]) == 1
    await players_score(tournament, {"ann": 1.0})
    await layer.group_send(group, arena.changed(tournament.pk))
    for socket in sockets:
        frame = (await socket.receive_json_from(timeout=5))["tournament"]
        assert [p["name"] for p in frame["standings"]] == ["ann"]
    await asyncio.sleep(1.0)
    for socket in sockets:
        await socket.disconnect()
    await asyncio.sleep(0.1)
    assert group not in layer.here().groups


def test_after_the_layer_lost_messages_the_sockets_read_the_standings_afresh():
    """When the channel layer between processes comes back from an outage (games.realtime
    tells every group RESYNC), the tournament's sockets are sent the standings read afresh; the
    socket used to fail on a message it had no handler for."""
    async_to_sync(_resync)()


async def _resync():
    tournament = await an_arena()
    socket = await a_socket(tournament)
    await players_score(tournament, {"ann": 3.0})  # its change lost in the outage
    get_channel_layer().here().resync()
    frame = (await socket.receive_json_from(timeout=5))["tournament"]
    assert [p["name"] for p in frame["standings"]] == ["ann"]
    await socket.send_json_to({"type": "sync"})  # and the socket is still open
    assert (await socket.receive_json_from(timeout=5))["type"] == "tournament"
    await socket.disconnect()
