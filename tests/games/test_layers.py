"""The default in-memory channel layer (games.layers): what a consumer sees is Channels' own
layer's behaviour, delivered with less work per message."""

import asyncio
import time

import pytest
from channels.exceptions import ChannelFull

from games.layers import InMemoryChannelLayer


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_group_send_reaches_every_member_in_order_and_each_gets_its_own_copy():
    async def body():
        layer = InMemoryChannelLayer()
        names = [await layer.new_channel() for _ in range(3)]
        for name in names:
            await layer.group_add("g", name)
        await layer.group_send("g", {"type": "game.changed", "version": 1, "detail": {"a": [1]}})
        await layer.group_send("g", {"type": "game.changed", "version": 2})
        got = [[await layer.receive(name) for _ in range(2)] for name in names]
        assert [[m["version"] for m in messages] for messages in got] == [[1, 2]] * 3
        got[0][0]["detail"]["a"].append(2)  # a nested value is deep-copied per member
        assert got[1][0]["detail"] == {"a": [1]}
        got[0][1]["version"] = 99  # a flat message is copied per member
        assert got[1][1]["version"] == 2

    run(body())


def test_a_receive_waits_for_the_next_message():
    async def body():
        layer = InMemoryChannelLayer()
        name = await layer.new_channel()
        waiting = asyncio.ensure_future(layer.receive(name))
        await asyncio.sleep(0)
        assert not waiting.done()
        await layer.send(name, {"type": "x"})
        assert await asyncio.wait_for(waiting, 1) == {"type": "x"}

    run(body())


def test_a_full_channel_refuses_a_send_and_is_skipped_by_a_group_send():
    async def body():
        layer = InMemoryChannelLayer(capacity=2)
        full, free = await layer.new_channel(), await layer.new_channel()
        await layer.group_add("g", full)
        await layer.group_add("g", free)
        await layer.send(full, {"type": "a"})
        await layer.send(full, {"type": "b"})
        with pytest.raises(ChannelFull):
            await layer.send(full, {"type": "c"})
        await layer.group_send("g", {"type": "d"})
        assert [(await layer.receive(full))["type"] for _ in range(2)] == ["a", "b"]
        assert (await layer.receive(free))["type"] == "d"

    run(body())


def test_a_closed_receiver_leaves_no_channel_behind():
    async def body():
        layer = InMemoryChannelLayer()
        name = await layer.new_channel()
        await layer.group_add("g", name)
        for version in range(3):  # a socket that got some messages, then closed
            await layer.group_send("g", {"type": "game.changed", "version": version})
            await layer.receive(name)
        waiting = asyncio.ensure_future(layer.receive(name))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await layer.group_discard("g", name)
        assert layer.channels == {}
        assert layer.groups == {}

    run(body())


def test_expired_messages_are_dropped_with_their_channel_at_most_a_second_late(monkeypatch):
    async def body():
        layer = InMemoryChannelLayer(expiry=60)
        gone, kept = await layer.new_channel(), await layer.new_channel()
        await layer.group_add("g", gone)
        await layer.send(gone, {"type": "old"})
        clock = time.time()
        monkeypatch.setattr(time, "time", lambda: clock + 61)
        layer._cleaned_at = float("-inf")  # the once-a-second walk is due
        await layer.send(kept, {"type": "new"})
        assert (await layer.receive(kept))["type"] == "new"
        assert gone not in layer.channels
        assert gone not in layer.groups.get("g", {})  # an expired message ends membership

    run(body())
