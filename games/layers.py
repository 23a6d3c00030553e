"""The in-memory channel layer of the default (one-process) configuration.

Channels' InMemoryChannelLayer does more work per message than delivering it, and with hundreds
of open WebSockets that work is what the event loop spends its time on (bench/bench_load.py):

- it walks every channel and every group membership to drop expired messages on each send and
  each receive; this layer does that cleaning at most once a second, so a message is dropped at
  most a second after its expiry (60 s);
- it builds a new ``asyncio.Queue`` on every send and every receive (``setdefault`` with a queue
  made up front), and drops a channel's queue whenever it runs empty, so the next message builds
  it again; this layer makes a queue only for a channel that has none, and drops it when its
  receiver goes away (cancelled, as a consumer's receive is when its socket closes) or when the
  expiry walk empties it;
- ``group_send`` starts a task per member and waits on them all; this layer puts the message on
  each member's queue at once (what each of those tasks did);
- it deep-copies every message; this layer copies a message of plain values (the platform's
  broadcasts: numbers, text, booleans, None) with a dict copy and deep-copies anything else.

What a consumer sees is unchanged: the same messages, in order, with the same capacity
(``ChannelFull`` from ``send``, a full member skipped by ``group_send``) and expiry. It overrides
Channels' own methods and its private ``_clean_expired``: requirements.txt pins channels, and a
new release should be checked against it (tests/games/test_layers.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from copy import deepcopy

from channels import layers
from channels.exceptions import ChannelFull

CLEAN_INTERVAL_S = 1.0

_PLAIN = (str, int, float, bool, type(None))


def _copy(message: dict) -> dict:
    if all(isinstance(value, _PLAIN) for value in message.values()):
        return dict(message)
    return deepcopy(message)


class InMemoryChannelLayer(layers.InMemoryChannelLayer):
    _cleaned_at = float("-inf")

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at >= CLEAN_INTERVAL_S:
            self._cleaned_at = now
            super()._clean_expired()

    def _queue(self, channel: str) -> asyncio.Queue:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    def _put(self, channel: str, message: dict) -> None:
        try:
            self._queue(channel).put_nowait((time.time() + self.expiry, _copy(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def send(self, channel, message):
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        self._put(channel, message)

    async def receive(self, channel):
        self.require_valid_channel_name(channel)
        self._clean_expired()
        queue = self._queue(channel)
        try:
            _, message = await queue.get()
        except BaseException:
            # The receiver went away (its socket closed): forget the channel unless messages
            # wait on it (the expiry walk drops those, and the channel, in time).
            if queue.empty() and self.channels.get(channel) is queue:
                del self.channels[channel]
            raise
        return message

    async def group_send(self, group, message):
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            with contextlib.suppress(ChannelFull):
                self._put(channel, message)
