"""The process's channel layer (games.realtime.GamesLayer): Channels' layer API, with a group
message handed to this process's members in one pass, and to other processes once each through
an inner layer shared by the processes."""

from __future__ import annotations

import asyncio
import os
import threading

import msgpack
import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

from games import realtime, runtime, services
from games.models import Player
from tests.conftest import scaled_backend
from tests.games.conftest import EXAMPLE_DECK
from tests.games.test_websocket import communicator

GROUP = realtime.group_name(7)


def on_loop(fn, /, *args, **kwargs):
    return async_to_sync(fn)(*args, **kwargs)


async def heard(layer, channel: str, timeout: float = 0.3) -> list[dict]:
    """Everything a channel receives until it has been quiet for `timeout` seconds."""
    messages = []
    while True:
        try:
            messages.append(await asyncio.wait_for(layer.receive(channel), timeout))
        except TimeoutError:
            return messages


async def members(layer, count: int, group: str = GROUP) -> list[str]:
    channels = [await layer.new_channel() for _ in range(count)]
    for channel in channels:
        await layer.group_add(group, channel)
    return channels


class PackingLayer(InMemoryChannelLayer):
    """A shared layer that packs its messages with msgpack, as channels-redis does."""

    async def group_send(self, group, message):
        await super().group_send(group, msgpack.unpackb(msgpack.packb(message)))


class RecordingLayer(InMemoryChannelLayer):
    """A shared layer that notes what is sent to its groups."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, dict]] = []

    async def group_send(self, group, message):
        self.sent.append((group, message))
        await super().group_send(group, message)


def shared_layer(kind: str):
    """An inner layer the processes share: in memory, or Redis's settings (each process then
    makes a client of its own), in the suite's scaled run."""
    if kind == "memory":
        return InMemoryChannelLayer()
    if not scaled_backend():
        pytest.skip("Redis: the suite's PostgreSQL and Redis run")
    return {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [os.environ["REDIS_URL"]], "prefix": f"test-{os.getpid()}-realtime"},
    }


# -- one process ------------------------------------------------------------------------------


def test_a_group_message_reaches_each_member_once_and_no_one_else():
    layer = realtime.GamesLayer()

    async def run():
        inside = await members(layer, 3)
        outside = await layer.new_channel()
        message = {"type": "game.changed", "game": 7, "version": 1}
        await layer.group_send(GROUP, message)
        first = [await heard(layer, channel) for channel in (*inside, outside)]
        await layer.group_discard(GROUP, inside[0])
        await layer.group_send(GROUP, {**message, "version": 2})
        second = [await heard(layer, channel) for channel in inside]
        await layer.send(outside, {"type": "direct"})
        direct = await heard(layer, outside)
        return first, second, direct, layer.here().mailboxes

    first, second, direct, mailboxes = on_loop(run)
    assert [[m["version"] for m in got] for got in first] == [[1], [1], [1], []]
    assert [[m["version"] for m in got] for got in second] == [[], [2], [2]]
    assert direct == [{"type": "direct"}]
    # A channel in no group, with nothing to read and nobody waiting, is forgotten.
    assert len(mailboxes) == 2


def test_a_full_channel_misses_group_messages_and_refuses_direct_ones():
    layer = realtime.GamesLayer(capacity=2)

    async def run():
        (channel,) = await members(layer, 1)
        for version in range(4):
            await layer.group_send(GROUP, {"type": "game.changed", "version": version})
        with pytest.raises(ChannelFull):
            await layer.send(channel, {"type": "direct"})
        return await heard(layer, channel)

    assert [m["version"] for m in on_loop(run)] == [0, 1]


def test_a_group_send_from_another_thread_reaches_a_member_on_the_loop():
    layer = realtime.GamesLayer()

    async def run():
        (channel,) = await members(layer, 1)
        message = {"type": "game.changed", "game": 7, "version": 3}
        # A thread with no loop of its own: asgiref runs the send on a loop of its own there.
        sender = threading.Thread(target=async_to_sync(layer.group_send), args=(GROUP, message))
        sender.start()
        got = await asyncio.wait_for(layer.receive(channel), 5)
        sender.join()
        # Synchronous code on a thread (the services after a commit) hands it over the same way.
        await asyncio.to_thread(layer.group_send_soon, GROUP, {**message, "version": 4})
        return got, await heard(layer, channel)

    got, later = on_loop(run)
    assert got["version"] == 3
    assert [m["version"] for m in later] == [4]


@pytest.mark.django_db(transaction=True)
def test_a_change_committed_on_a_thread_is_pushed_to_a_socket_on_the_loop():
    @sync_to_async
    def make_table():
        game = services.game_create(
            kind="set",
            options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
            is_open=True,
        )
        ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
        return game.pk, ann

    async def run():
        game_id, ann = await make_table()
        socket = communicator(f"/ws/games/{game_id}/")
        assert (await socket.connect())[0]
        first = await socket.receive_json_from(timeout=5)
        # The services commit on a game-database thread and publish from there.
        await runtime.run_db(
            services.move_submit, game_id=game_id, seat=ann, action={"type": "hint"}
        )
        pushed = await socket.receive_json_from(timeout=5)
        await socket.disconnect()
        return first, pushed

    first, pushed = on_loop(run)
    assert (pushed["type"], pushed["version"]) == ("state", first["version"] + 1)


def test_without_a_running_loop_a_change_goes_to_the_shared_layer_at_once():
    """A command (manage.py) runs no event loop: its changes go straight to the other
    processes."""
    shared = RecordingLayer()
    layer = realtime.GamesLayer(inner=shared, origin="command")
    message = {"type": "game.changed", "game": 7, "version": 5, "moves": None}
    layer.group_send_soon(GROUP, message)
    assert shared.sent == [
        (
            GROUP,
            {
                "type": realtime.RELAY,
                "v": 1,
                "group": GROUP,
                "origin": "command",
                "message": message,
            },
        )
    ]


# -- several processes sharing an inner layer ----------------------------------------------------


@pytest.mark.parametrize("inner", ["memory", "redis"])
def test_two_processes_each_deliver_once_to_their_members_and_skip_their_own_echo(inner):
    shared = shared_layer(inner)
    one, two = (realtime.GamesLayer(inner=shared, origin=name) for name in ("one", "two"))

    async def run():
        try:
            ones, twos = await members(one, 3), await members(two, 2)
            await one.group_send(GROUP, {"type": "game.changed", "game": 7, "version": 1})
            await two.group_send(GROUP, {"type": "game.changed", "game": 7, "version": 2})
            got_one = [await heard(one, channel) for channel in ones]
            got_two = [await heard(two, channel) for channel in twos]
            return got_one, got_two
        finally:
            await one.close()
            await two.close()

    got_one, got_two = on_loop(run)
    for got in (*got_one, *got_two):
        assert sorted(m["version"] for m in got) == [1, 2]
    if isinstance(shared, InMemoryChannelLayer):
        # Each process is in the group on the shared layer once, whatever its members.
        assert len(shared.groups[GROUP]) == 2


def test_a_process_joins_the_shared_group_once_and_leaves_it_when_its_members_have_gone():
    shared = InMemoryChannelLayer()
    layer = realtime.GamesLayer(inner=shared, sweep_interval=0.05)

    async def run():
        try:
            channels = await members(layer, 3)
            joined = dict(shared.groups.get(GROUP, {}))
            for channel in channels:
                await layer.group_discard(GROUP, channel)
            await asyncio.sleep(0.3)
            left = dict(shared.groups.get(GROUP, {}))
            (again,) = await members(layer, 1)
            rejoined = dict(shared.groups.get(GROUP, {}))
            other = realtime.GamesLayer(inner=shared, origin="other")
            await other.group_send(GROUP, {"type": "game.changed", "game": 7, "version": 9})
            return joined, left, rejoined, await heard(layer, again)
        finally:
            await layer.close()

    joined, left, rejoined, got = on_loop(run)
    assert len(joined) == 1 and not left and len(rejoined) == 1
    assert [m["version"] for m in got] == [9]


def test_a_change_with_a_number_past_64_bits_goes_to_other_processes_without_its_moves():
    shared = PackingLayer()
    one, two = (realtime.GamesLayer(inner=shared, origin=name) for name in ("one", "two"))
    moves = [["ann", {"type": "hint", "n": 2**70}, 1, False]]
    change = {"type": "game.changed", "game": 7, "version": 4, "from": 3, "moves": moves}

    async def run():
        try:
            (here,), (there,) = await members(one, 1), await members(two, 1)
            await one.group_send(GROUP, change)
            # What is not a change cannot go without its big number: the sender hears why.
            with pytest.raises(OverflowError):
                await one.group_send(GROUP, {"type": "other", "n": 2**70})
            return await heard(one, here), await heard(two, there)
        finally:
            await one.close()
            await two.close()

    here, there = on_loop(run)
    assert [m.get("moves") for m in here] == [moves, None]  # here: as given (and "other")
    assert [(m["version"], m["moves"]) for m in there] == [(4, None)]


def test_relays_carry_the_format_version_and_one_of_an_unknown_version_is_ignored(caplog):
    """Old and new processes share a Redis during a rolling deploy: a process reads the versions
    it knows (a relay without one is of version 1) and ignores another's, with a log line."""
    shared = RecordingLayer()
    layer = realtime.GamesLayer(inner=shared, origin="new")

    def relay(**version) -> dict:
        change = {"type": "game.changed", "game": 7, "version": len(version) + 5}
        return {
            "type": realtime.RELAY,
            "group": GROUP,
            "origin": "old",
            "message": change,
            **version,
        }

    async def run():
        try:
            (channel,) = await members(layer, 1)
            await layer.group_send(GROUP, {"type": "game.changed", "game": 7, "version": 4})
            await shared.group_send(GROUP, relay(v=99))  # from a process of a later deploy
            await shared.group_send(GROUP, relay(v=99))  # said once
            await shared.group_send(GROUP, relay())  # from a process before the versions
            return await heard(layer, channel)
        finally:
            await layer.close()

    got = on_loop(run)
    assert [m["version"] for m in got] == [4, 5]
    assert shared.sent[0][1]["v"] == realtime.VERSION == 1
    warned = [r for r in caplog.records if r.levelname == "WARNING" and "ignored" in r.message]
    assert [r.message for r in warned] == [
        "A message of version 99 from old was ignored: this process reads versions [1]"
    ]
