"""Following a game: the views a follower is sent after each change, and the game's NDJSON stream.

Two ways in follow a game live, and send the same views, drawn here once: the WebSocket
(games.consumers.GameConsumer) and ``GET /api/games/<id>/stream`` (games.api.GameStreamView,
`GameStream` here). Each is a channel of the game's group on the channel layer
(games.realtime): a committed change arrives as a ``game.changed`` message, which `game_at`
turns into the game at that version (from the message when this process knows the state it
started from, or read once for every follower here), and `state_text` into the follower's view
of it (one rendering per version and reader, shared by every follower that sees the same).

The stream is one JSON object a line (``application/x-ndjson``)::

    {"type": "gameFull", "id": 7, "kind": "set", "version": 12, "seat": "ada", "view": {...}}
    {"type": "gameState", "version": 13, "view": {...}}
    {"type": "chatLine", "id": 4, "name": "bob", "text": "Good game!", "at": "2026-..."}

``gameFull`` comes first: the game as the reader sees it (``seat``: its seat's name, null for
a watcher). Then a ``gameState`` for every change (the WebSocket's ``state`` frame under another
type), a ``chatLine`` for every chat message, and a bare newline after GAME_STREAM_KEEPALIVE_S
seconds without a line, so proxies and clients keep the connection open. The stream ends after
the state that ends the game, when its credential ends (a revoked account token), when the
server stops (the client reconnects: the next ``gameFull`` says where the game is), and when the
database or Redis stops answering, after a last line ``{"type": "error", "detail", "code":
"unavailable"}`` (the client reconnects a few seconds later).

Each stream holds one of its owner's GAME_STREAMS_MAX_OPEN slots (`stream_slots`: per account,
seat or client address, in this process) from its request until it ends; it frees it at once
however it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections.abc import AsyncIterator

from channels.layers import get_channel_layer
from django.conf import settings
from rest_framework import status

from games import metrics, moderation, realtime, runtime, selectors, services
from games.errors import RETRY_AFTER_S, GameError, unavailable
from games.models import Game

log = logging.getLogger(__name__)

_text = runtime.json_text


async def game_at(game_id: int, message: dict):
    """The game at the version of a ``game.changed`` message (or later): from the message when
    this process knows the state it started from, or read once for every follower here."""
    head = selectors.head_from_message(message, services.now_ms())
    if head is None:
        head = await runtime.load_game(game_id, message["version"], services.agame_fresh)
    return head


def state_text(game, seat_name: str | None, frame: str = "state") -> str:
    """``{"type": frame, "version", "view"}``: the seat's (None: a watcher's) view of the game,
    as JSON text; followers that see the same view of one version share one rendering."""
    key = (game.pk, game.version, seat_name)
    if frame != "state":
        key = (frame, *key)
    text = runtime.rendered(key)
    if text is None:
        view = selectors.game_view(game, seat_name=seat_name, now=services.now_ms())
        text = _text({"type": frame, "version": game.version, "view": view})
        runtime.remember_rendered(key, text)
    return text


def full_text(game, seat_name: str | None) -> str:
    """The stream's first line: the game and the reader's view of it."""
    view = selectors.game_view(game, seat_name=seat_name, now=services.now_ms())
    return _text(
        {
            "type": "gameFull",
            "id": game.pk,
            "kind": game.kind,
            "version": game.version,
            "seat": seat_name,
            "view": view,
        }
    )


def chat_text(chat: dict) -> str:
    """A chat message (services.chat_post's) as the stream's ``chatLine``."""
    return _text({"type": "chatLine", **chat})


# -- how many streams one owner may hold open --------------------------------------------------


class TooManyStreams(GameError):
    http_status = status.HTTP_429_TOO_MANY_REQUESTS

    def __init__(self, limit: int, owner: str, what: str = "game streams"):
        super().__init__(
            f"At most {limit} {what} may be open at once for one {owner}: "
            "close one before opening another."
        )


class StreamSlots:
    """The open streams of each owner in this process ("account:3", "seat:12", "client:1.2.3.4"):
    taken by a request (on Django's thread), given back when its stream ends (on the loop)."""

    def __init__(self, limit: str = "GAME_STREAMS_MAX_OPEN", what: str = "game streams") -> None:
        self.open: dict[str, int] = {}
        self.lock = threading.Lock()
        self.limit, self.what = limit, what  # the setting that says how many, and their name

    def take(self, owner: str) -> Slot:
        """One of `owner`'s slots, or TooManyStreams when all are taken."""
        limit = getattr(settings, self.limit)
        with self.lock:
            held = self.open.get(owner, 0)
            if held >= limit:
                who = owner.partition(":")[0].replace("client", "address")
                raise TooManyStreams(limit, who, self.what)
            self.open[owner] = held + 1
        return Slot(self, owner)

    def give_back(self, owner: str) -> None:
        with self.lock:
            held = self.open.get(owner, 0) - 1
            if held > 0:
                self.open[owner] = held
            else:
                self.open.pop(owner, None)


class Slot:
    """One taken slot; `free` gives it back once, however often it is called."""

    def __init__(self, slots: StreamSlots, owner: str) -> None:
        self.slots, self.owner, self.held = slots, owner, True

    def free(self) -> None:
        if self.held:
            self.held = False
            self.slots.give_back(self.owner)


stream_slots = StreamSlots()


# -- the stream --------------------------------------------------------------------------------

WAKE = {"type": "stream.wake"}  # a stream's own timer: a keep-alive or a deadline is due


def wake(inbox: asyncio.Queue) -> None:
    """Put a `WAKE` in a stream's inbox (from its timer)."""
    with contextlib.suppress(asyncio.QueueFull):  # a stream that far behind has lines to send
        inbox.put_nowait(WAKE)


class NdjsonStream:
    """An NDJSON stream fed by the channel layer, as an async iterable for Django's
    StreamingHttpResponse (served on the event loop, cancelled when the client goes away).

    Its channel joins `groups` and its credentials' groups first, then `follow` yields its lines
    from the channel's inbox. However it ends (its last line, the client gone, the server
    stopping) it leaves its groups and frees `slot`; when the database or Redis stops answering
    it ends after a last line ``{"type": "error", "detail", "code": "unavailable"}``. A stream
    never iterated (its request failed after the view) gives its slot back when it is collected.
    """

    prefix = "stream."

    def __init__(self, credentials, slot: Slot) -> None:
        self.credentials = list(credentials)
        self.slot = slot
        weakref.finalize(self, slot.free)

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self.lines()

    def groups(self) -> list[str]:
        """The groups whose messages this stream reads, besides its credentials'."""
        raise NotImplementedError

    def follow(self, channel: str, inbox: asyncio.Queue) -> AsyncIterator[bytes]:
        """The stream's lines, once its channel is in its groups (an async generator)."""
        raise NotImplementedError

    async def lines(self) -> AsyncIterator[bytes]:
        layer = get_channel_layer()
        channel = await layer.new_channel(self.prefix)
        inbox = layer.inbox(channel)
        groups = self.groups() + [realtime.credential_group(c) for c in self.credentials]
        joined: list[str] = []
        try:
            # Join first, then read: every change after the first lines reaches this stream.
            for group in groups:
                await layer.group_add(group, channel)
                joined.append(group)
            await realtime.open_sockets.opened(channel)
            async with contextlib.aclosing(self.follow(channel, inbox)) as lines:
                async for line in lines:
                    yield line
        except Exception as exc:  # the database or Redis not answering: said, and it ends
            outage = unavailable(exc)
            if outage is None:
                raise
            yield _line(_text({"type": "error", "detail": outage.message, "code": outage.code}))
        finally:  # however the stream ends (the client gone: cancelled), it leaves its groups
            realtime.open_sockets.closed(channel)
            for group in joined:
                await layer.group_discard(group, channel)
            layer.close_inbox(channel)
            self.slot.free()


class GameStream(NdjsonStream):
    """The lines of one reader's stream of a game (the module's docstring)."""

    def __init__(
        self, game_id: int, seat_name: str | None, credentials, slot: Slot, *, reader=None
    ) -> None:
        super().__init__(credentials, slot)
        self.game_id = game_id
        self.seat_name = seat_name
        self.reader = reader  # the reading account: the lines of those it blocked are not sent

    def groups(self) -> list[str]:
        return [realtime.group_name(self.game_id)]

    async def follow(self, channel: str, inbox: asyncio.Queue) -> AsyncIterator[bytes]:
        game = await services.agame_fresh(self.game_id)
        yield _line(full_text(game, self.seat_name))
        loop = asyncio.get_running_loop()
        keepalive = settings.GAME_STREAM_KEEPALIVE_S
        quiet_until = loop.time() + keepalive
        sent, deadline = game.version, game.deadline_ms

        def arm() -> asyncio.TimerHandle:
            at = quiet_until
            if deadline is not None:
                at = min(at, loop.time() + max(deadline - services.now_ms(), 0) / 1000 + 0.01)
            return loop.call_at(at, wake, inbox)

        timer = arm()
        try:
            while game.status != Game.Status.OVER:
                message = await inbox.get()
                kind = message.get("type")
                if kind == WAKE["type"]:
                    if deadline is not None and services.now_ms() >= deadline:
                        deadline = await self.apply_deadline()  # its change comes as a message
                    if loop.time() >= quiet_until:
                        yield b"\n"
                        quiet_until = loop.time() + keepalive
                    timer.cancel()  # (a wake that came late: the timer set since goes)
                    timer = arm()
                    continue
                if kind == "game.chat":
                    if not await runtime.run_db(
                        moderation.hides, self.reader, message.get("writer")
                    ):
                        yield _line(chat_text(message["chat"]))
                    quiet_until = loop.time() + keepalive
                    continue
                if kind in (realtime.RESTART, "access.ended"):
                    return  # the server stops, the credential ended: the client comes back
                if kind == "game.changed" and message["version"] > sent:
                    game = await game_at(self.game_id, message)
                elif kind == realtime.RESYNC:  # changes may have been lost: read it afresh
                    game = await runtime.load_game(self.game_id, -1, services.agame_fresh)
                else:
                    continue  # presence, a rematch, a change already sent
                if game.version <= sent:
                    continue
                yield _line(state_text(game, self.seat_name, "gameState"))
                if kind == "game.changed":
                    metrics.fanned_out(message)  # timed from its commit's announcement
                sent = game.version
                quiet_until = loop.time() + keepalive
                if game.deadline_ms != deadline:
                    deadline = game.deadline_ms
                    timer.cancel()
                    timer = arm()
        finally:
            timer.cancel()

    async def apply_deadline(self) -> int | None:
        """Apply what the game's deadline makes due (the first reader there does, under the
        game's lock); the next deadline, or when to try again if the database did not answer."""
        try:
            return (await services.arun(services.tick(game_id=self.game_id))).game.deadline_ms
        except GameError:  # the game cannot be read now: the next change shows it
            log.warning("The deadline of game %s could not be applied", self.game_id)
            return None
        except Exception as exc:
            if unavailable(exc) is None:
                raise
            return services.now_ms() + RETRY_AFTER_S * 1000


def _line(text: str) -> bytes:
    return text.encode() + b"\n"
