"""How a committed change reaches everyone following its game: Channels' layer API, a group per
game (`group_name`), and this process's channel layer, `GamesLayer`.

The services call `publish` once a change is committed. Each WebSocket consumer and each /watch
is a channel of the layer in its game's group, and hears the change as a message of the group.

`GamesLayer` is the process's layer (CHANNEL_LAYERS["default"]). Its channels are queues on the
event loop that uses them, so a group_send reaches this process's members in one pass, without
a message per member through a shared store. With an inner layer that spans processes (Redis:
the "inner" of its CONFIG), the process is the one member of each game's group there: it joins
the group on the inner layer once, with a channel of its own, when its first member here joins
(and leaves lazily, once no member here has been left for a while), forwards each group_send
here once to the inner group, skips what comes back with its own origin, and hands what other
processes send to its members here.

Messages between processes go through Redis, which may restart: each process pings itself through
it every second, and once a lost ping comes back every member here hears RESYNC (the lobby's a
``lobby.changed``) and reads its game afresh, since changes sent meanwhile were lost.

A change from another process brings its moves (services.change_message): when this process
knows the game's state at the version the change started from, it applies them
(`games.replay.next_state`) and knows the new state without reading the game, as a reader of
the log would; otherwise its members read the game.

What goes between processes is a relay, ``{"type": "games.relay", "v": 1, "group", "origin",
"message"}``: "v" is the version of the format of the relay and of the messages it carries (a
game's change, lobby news, chat, presence). A process reads the versions in READS and ignores,
with a log line, a relay of any other, so old and new processes can share a Redis during a
rolling deploy. The rule for changing the format: one deploy adds the new version to READS
(still sending VERSION), the next one sends it, and a later one may drop the old one's reading.
A relay without "v" is of version 1 (the format before it was numbered).

This process's open WebSockets are in `open_sockets`: when the server stops (config.server), each
is told RESTART on its channel and closes with SERVICE_RESTART (1012), which the pages take as
"reconnect at once".
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import threading
import time
import uuid

from asgiref.sync import async_to_sync
from channels.exceptions import ChannelFull
from channels.layers import BaseChannelLayer, get_channel_layer
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from games import runtime
from games.errors import RuleError, unavailable
from games.replay import next_state
from games.rules import get_rules
from games.store import TableHead

log = logging.getLogger(__name__)

# How often the process leaves the inner groups of games no member here follows any more: left
# at once, a table whose sockets all reconnect for its next game would leave and join again.
SWEEP_INTERVAL_S = 10.0

# A group_send forwarded to the inner layer: the group and the sending process go with it.
RELAY = "games.relay"
VERSION = 1
"""The version of the relay format this process sends (the relay's "v")."""
READS = frozenset({1})
"""The versions of the relay format this process reads (see the module's docstring)."""

# A process's ping to its own channel on the inner layer, every PING_INTERVAL_S: one that does
# not come back says that messages from the other processes may have been lost (Redis down or
# restarted); once pings come back, every member here is told to read its game afresh.
PING = "games.ping"
PING_INTERVAL_S = 1.0
RESYNC = "game.resync"
"""What a game's members hear once the layer between processes is back after losing messages:
read the game afresh (a WebSocket sends its state if it is newer than the one it showed)."""
RESYNC_AGAIN_S = 3.0
"""How long after the ping came back the members read afresh once more: the inner layer holds
a connection to Redis a shard (settings' REDIS_LAYER_SHARDS) and the ping goes through one of
them; channels-redis's receivers retry each second after they lost theirs, so the others are
back within about a second of it, and what they lost meanwhile is read by this second pass."""


RESTART = "server.restart"
"""What an open socket of a process that stops hears on its channel: close with
SERVICE_RESTART (a waiting long poll of the text protocol: answer now, cards.protocol)."""
SERVICE_RESTART = 1012
"""The close code (RFC 6455: Service Restart) of a socket whose server stops: reconnect at once."""


class OpenSockets:
    """This process's open WebSockets, waiting long polls and game streams (their channels), so
    that a server that stops can tell each to go: a socket closes with SERVICE_RESTART, a /watch
    answers the board as it is (as at its timeout), a game's stream ends (games.follow), and each
    client comes back to another process.

    Each socket says it is open once accepted (`opened`) and closed however it ends (`closed`).
    Once `restart` has begun, a socket accepted later is told at once.
    """

    def __init__(self) -> None:
        self.channels: set[str] = set()
        self.restarting = False

    def __len__(self) -> int:
        return len(self.channels)

    async def opened(self, channel: str) -> None:
        self.channels.add(channel)
        if self.restarting:
            await self._tell(channel)

    def closed(self, channel: str) -> None:
        self.channels.discard(channel)

    async def restart(self) -> int:
        """Tell every open socket to close with SERVICE_RESTART; how many were told."""
        self.restarting = True
        channels = list(self.channels)
        for channel in channels:
            await self._tell(channel)
        return len(channels)

    async def _tell(self, channel: str) -> None:
        try:
            await get_channel_layer().send(channel, {"type": RESTART})
        except ChannelFull:  # a socket that far behind is cut when the server's grace ends
            log.warning(
                "The socket %s could not be told to reconnect: its channel is full", channel
            )


open_sockets = OpenSockets()


def group_name(game_id: int) -> str:
    """The channel-layer group of a game's followers."""
    return f"game-{game_id}"


LOBBY_GROUP = "lobby"
"""The channel-layer group of the lobby's followers: its chat is sent there as
``{"type": "lobby.chat", "chat": {"id", "name", "text", "at"}}``."""


def publish(message: dict) -> None:
    """Tell a game's group about a committed change (services.change_message: "type"
    "game.changed", "game", "version", ...), from any thread, without making the caller wait.

    On an event loop the members there hear it at once; from a thread it is handed to the
    server's loop; from a process that runs no loop (a command) it goes to the inner layer,
    for the servers that share it. The message is stamped with the time it is announced
    (``announced_at``, seconds since the epoch): the sockets time the fan-out from it
    (games.metrics.FANOUT_SECONDS).
    """
    message["announced_at"] = time.time()
    publish_to(group_name(message["game"]), message)


def lobby_changed() -> None:
    """Tell the lobby that its lists changed (a table was made, a seat taken, a game ended): a
    ``lobby.changed`` message, whose `id` lets the sockets that hear the same news share one
    reading of the lists. Each lobby socket reads them again, at most so often
    (LOBBY_REFRESH_S), so a burst of news costs each socket one or two reads."""
    layer = get_channel_layer()
    if isinstance(layer, GamesLayer):
        publish_lobby({"type": "lobby.changed", "id": f"{layer.origin}:{next(_lobby_news)}"})


_lobby_news = itertools.count(1)


def publish_lobby(message: dict) -> None:
    """Tell the lobby's group (LOBBY_GROUP) something, from any thread, as `publish` does."""
    publish_to(LOBBY_GROUP, message)


def credential_group(credential: str) -> str:
    """The channel-layer group of the sockets a credential opened (games.models.Seat.credential:
    an account's token, a session): told ``{"type": "access.ended"}`` when it ends."""
    return f"access-{credential}"


def account_group(user_id: int) -> str:
    """The channel-layer group of an account's followers: its event streams (accounts.events)
    and its browsers' lobby sockets. Each is told ``{"type": "account.event", "event": {...}}``:
    a challenge sent, canceled or declined, a game of its own that starts or finishes."""
    return f"account-{user_id}"


def publish_account(user_id: int, event: dict, *, sent: bool = False) -> None:
    """Tell an account's followers an event (``{"type": "gameStart", ...}``), from any thread;
    `sent`: one the account made itself (a challenge it sent), which its pages show and its
    event stream does not."""
    publish_to(account_group(user_id), {"type": "account.event", "event": event, "sent": sent})


def publish_to(group: str, message: dict) -> None:
    """Tell any group something, from any thread, as `publish` does."""
    layer = get_channel_layer()
    if not isinstance(layer, GamesLayer):
        raise ImproperlyConfigured(
            'CHANNEL_LAYERS["default"] must be games.realtime.GamesLayer (config/settings.py).'
        )
    layer.group_send_soon(group, message)


def call_on_loop(callback) -> bool:
    """Run `callback()` soon on a running event loop of this process (the server's: one a
    request or a socket has been served on), from any thread; False when there is none (a
    command, a test without a server), and then it never runs. For timers of the server's
    own (games.pool's pairing): `callback` may set one with call_later."""
    layer = get_channel_layer()
    return isinstance(layer, GamesLayer) and layer.call_soon(callback)


def attach_loop() -> None:
    """Make the running event loop one that changes committed on threads are handed to (the
    server's HTTP entry calls this per request: a lookup once the loop is known)."""
    layer = get_channel_layer()
    if isinstance(layer, GamesLayer):
        layer.here()


class _Mailbox:
    """A channel of this process: its queue, and how many groups and receivers it has."""

    __slots__ = ("queue", "groups", "receivers")

    def __init__(self, capacity: int) -> None:
        self.queue: asyncio.Queue[dict] = asyncio.Queue(capacity)
        self.groups = 0
        self.receivers = 0


class GamesLayer(BaseChannelLayer):
    """A Channels layer whose channels live in this process, with an optional inner layer that
    carries group messages between processes (see the module's docstring).

    CONFIG: ``inner`` (a layer's settings, {"BACKEND": ..., "CONFIG": {...}}, or a layer),
    ``origin`` (this process's name on the inner layer; runtime.ORIGIN), ``sweep_interval``,
    ``ping_interval`` (PING_INTERVAL_S), ``resync_again`` (RESYNC_AGAIN_S), ``capacity`` and
    ``channel_capacity`` as Channels' layers (a full channel misses group messages).
    Messages are handed over as they are, not copied: a receiver must not change one. The
    channels here do not expire (``expiry`` is accepted for Channels' sake): a member leaves its
    groups with group_discard, and a channel in no group, with nothing to read and nobody
    waiting, is forgotten.
    """

    extensions = ["groups", "flush"]

    def __init__(
        self,
        inner=None,
        origin: str | None = None,
        sweep_interval: float = SWEEP_INTERVAL_S,
        ping_interval: float = PING_INTERVAL_S,
        resync_again: float = RESYNC_AGAIN_S,
        expiry: int = 60,
        capacity: int = 100,
        channel_capacity=None,
    ) -> None:
        super().__init__(expiry=expiry, capacity=capacity)
        self.channel_capacity = self.compile_capacities(channel_capacity or {})
        if isinstance(inner, dict):
            inner = import_string(inner["BACKEND"])(**inner.get("CONFIG", {}))
        self.inner = inner
        self.origin = origin or runtime.ORIGIN
        self.sweep_interval = sweep_interval
        self.ping_interval = ping_interval
        self.resync_again = resync_again
        self._mark = uuid.uuid4().hex[:12]  # in the names of this layer's channels
        self._numbers = itertools.count(1)
        self._locals: dict[asyncio.AbstractEventLoop, _Local] = {}
        self._guard = threading.Lock()  # threads publish while a loop makes its part

    # -- the part of each event loop ----------------------------------------------------------

    def here(self, loop: asyncio.AbstractEventLoop | None = None) -> _Local:
        """The layer's part on the running event loop (made on first use)."""
        loop = loop or asyncio.get_running_loop()
        local = self._locals.get(loop)
        if local is None:
            with self._guard:
                local = self._locals.get(loop)
                if local is None:
                    for closed in [old for old in self._locals if old.is_closed()]:
                        del self._locals[closed]
                    local = self._locals[loop] = _Local(self, loop)
        return local

    def call_soon(self, callback) -> bool:
        """`callback()` soon on this thread's running loop if it has one, else on one of the
        process's running loops; whether one took it."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not None:
            running.call_soon(callback)
            return True
        with self._guard:
            loops = [local.loop for local in self._locals.values()]
        for loop in loops:
            if not loop.is_running():
                continue
            try:
                loop.call_soon_threadsafe(callback)
            except RuntimeError:  # closed since
                continue
            return True
        return False

    def _is_local(self, channel: str) -> bool:
        """A channel of this process (without an inner layer, every channel is)."""
        return self.inner is None or channel.partition("!")[0].endswith(self._mark)

    # -- channels -------------------------------------------------------------------------------

    async def new_channel(self, prefix: str = "specific.") -> str:
        return f"{prefix}{self._mark}!{next(self._numbers)}"

    async def send(self, channel: str, message: dict) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        if not self._is_local(channel):
            await self.inner.send(channel, message)
            return
        local = self.here()
        mailbox = local.mailbox(channel)
        try:
            mailbox.queue.put_nowait(message)
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    def inbox(self, channel: str) -> asyncio.Queue:
        """The queue of a channel of this process, for a consumer that reads it itself (and
        puts its socket's own messages in it too, so it handles both one at a time, in the
        order they came, without a task to carry each from one queue to another). The channel
        is kept until `close_inbox`, whether or not it is in a group."""
        mailbox = self.here().mailbox(channel)
        mailbox.receivers += 1
        return mailbox.queue

    def close_inbox(self, channel: str) -> None:
        """The consumer of `inbox` has stopped reading its channel: once in no group, it is
        forgotten with whatever it was sent since (nobody will read it)."""
        local = self.here()
        mailbox = local.mailboxes.get(channel)
        if mailbox is not None:
            mailbox.receivers -= 1
            if not (mailbox.receivers or mailbox.groups):
                del local.mailboxes[channel]

    async def receive(self, channel: str) -> dict:
        local = self.here()
        mailbox = local.mailboxes.get(channel)
        if mailbox is None:
            if not self._is_local(channel):
                return await self.inner.receive(channel)
            mailbox = local.mailbox(channel)
        mailbox.receivers += 1
        try:
            return await mailbox.queue.get()
        finally:
            mailbox.receivers -= 1
            local.tidy(channel, mailbox)

    # -- groups ---------------------------------------------------------------------------------

    async def group_add(self, group: str, channel: str) -> None:
        """Add a channel to a group; a channel of this process hears every group message sent
        after this returns, from this process or (with an inner layer) another."""
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        if not self._is_local(channel):
            await self.inner.group_add(group, channel)
            return
        local = self.here()
        local.add(group, channel)
        if self.inner is not None and group not in local.subscribed:
            try:
                await local.join(group)
            except BaseException:
                local.discard(group, channel)
                raise

    async def group_discard(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        if not self._is_local(channel):
            await self.inner.group_discard(group, channel)
            return
        self.here().discard(group, channel)

    async def group_send(self, group: str, message: dict) -> None:
        """Send to every member of a group: those of this process at once (on other event
        loops of the process, thread-safely), the other processes through the inner layer."""
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        local = self.here()
        self._hand_over(group, message, besides=local, forward=False)
        local.deliver(group, message)
        if self.inner is not None:
            await self.forward(group, message)

    def group_send_soon(self, group: str, message: dict) -> None:
        """group_send from synchronous code on any thread, without waiting (see `publish`)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:  # a change committed on a loop is that loop's to deliver
            local = self.here(loop)
            self._hand_over(group, message, besides=local, forward=False)
            local.deliver(group, message, forward=True)
        elif not self._hand_over(group, message, besides=None, forward=True):
            if self.inner is not None:
                async_to_sync(self.forward)(group, message)

    def _hand_over(self, group: str, message: dict, *, besides, forward: bool) -> bool:
        """Hand a group message to the members on the process's other running loops, by a
        callback on each; with `forward`, the first also forwards it to the inner layer.
        Whether one loop took it."""
        if len(self._locals) <= (besides is not None):
            return False
        with self._guard:
            others = [local for local in self._locals.values() if local is not besides]
        taken = False
        for local in others:
            if not local.loop.is_running():
                continue
            try:
                local.loop.call_soon_threadsafe(local.deliver, group, message, forward)
            except RuntimeError:  # the loop closed since: nobody listens there any more
                continue
            taken, forward = True, False
        return taken

    async def forward(self, group: str, message: dict) -> None:
        """Send a group message to the inner group, for the other processes. The inner layer
        may pack messages with msgpack, which has no integers past 64 bits (JSON has): a
        change whose moves hold one goes without its moves, and the others read the game."""
        relay = {
            "type": RELAY,
            "v": VERSION,
            "group": group,
            "origin": self.origin,
            "message": message,
        }
        try:
            await self.inner.group_send(group, relay)
        except (OverflowError, TypeError, ValueError):
            if message.get("type") != "game.changed" or message.get("moves") is None:
                raise
            without = {**message, "moves": None, "outcomes": None}
            await self.inner.group_send(group, {**relay, "message": without})

    # -- flush extension, and closing ----------------------------------------------------------

    async def flush(self) -> None:
        """Forget every channel and group (tests); the running loop's tasks stop."""
        await self.close()
        with self._guard:
            self._locals.clear()
        if self.inner is not None:
            await self.inner.flush()

    async def close(self) -> None:
        """Stop the running loop's part of the layer (its tasks) and forget it."""
        with self._guard:
            local = self._locals.pop(asyncio.get_running_loop(), None)
        if local is not None:
            await local.stop()


class _Local:
    """The layer on one event loop: its channels, the members of its groups, and its
    membership of the groups on the inner layer."""

    def __init__(self, layer: GamesLayer, loop: asyncio.AbstractEventLoop) -> None:
        self.layer = layer
        self.loop = loop
        self.mailboxes: dict[str, _Mailbox] = {}
        self.groups: dict[str, dict[str, _Mailbox]] = {}
        self.channel: str | None = None  # this loop's channel on the inner layer
        self._opening: asyncio.Task | None = None
        self.subscribed: set[str] = set()
        self.pings_sent = 0
        self.pings_heard = 0
        self.deaf = False  # a ping went unheard: messages from other processes may be lost
        self.unread: set = set()  # versions of the relay format heard and ignored
        self._joining: dict[str, asyncio.Task] = {}
        self._leaving: dict[str, asyncio.Task] = {}
        self._tasks: set[asyncio.Task] = set()

    # -- channels and members -----------------------------------------------------------------

    def mailbox(self, channel: str) -> _Mailbox:
        mailbox = self.mailboxes.get(channel)
        if mailbox is None:
            mailbox = self.mailboxes[channel] = _Mailbox(self.layer.get_capacity(channel))
        return mailbox

    def tidy(self, channel: str, mailbox: _Mailbox) -> None:
        """Forget a channel nobody waits on, in no group and with nothing to read."""
        idle = not (mailbox.receivers or mailbox.groups) and mailbox.queue.empty()
        if idle and self.mailboxes.get(channel) is mailbox:
            del self.mailboxes[channel]

    def add(self, group: str, channel: str) -> None:
        members = self.groups.setdefault(group, {})
        if channel not in members:
            mailbox = members[channel] = self.mailbox(channel)
            mailbox.groups += 1

    def discard(self, group: str, channel: str) -> None:
        members = self.groups.get(group)
        mailbox = members.pop(channel, None) if members is not None else None
        if mailbox is None:
            return
        mailbox.groups -= 1
        if not members:
            del self.groups[group]
        self.tidy(channel, mailbox)

    def deliver(self, group: str, message: dict, forward: bool = False) -> None:
        """Put a group message in each member's queue here (one pass, no copies); with
        `forward`, also send it to the other processes."""
        members = self.groups.get(group)
        if members:
            for mailbox in members.values():
                with contextlib.suppress(asyncio.QueueFull):  # as any layer: a full one misses it
                    mailbox.queue.put_nowait(message)
        if forward and self.layer.inner is not None:
            self._spawn(self.layer.forward(group, message))

    def heard(self, relay: dict) -> None:
        """A group message from the inner layer: this process's own come back too, and are
        skipped; a change from another process is followed before its members hear it."""
        if relay.get("type") == PING:
            self.pinged(relay["n"])
            return
        if relay.get("type") != RELAY or relay.get("origin") == self.layer.origin:
            return
        version = relay.get("v", 1)
        if version not in READS:  # from a process of another deploy: see the module's docstring
            # Said once per version as a warning (a deploy sends many), then as debug lines.
            level = logging.DEBUG if version in self.unread else logging.WARNING
            self.unread.add(version)
            log.log(
                level,
                "A message of version %r from %s was ignored: this process reads versions %s",
                version,
                relay.get("origin"),
                sorted(READS),
            )
            return
        message = relay["message"]
        if message.get("type") == "game.changed":
            _follow(message)
        self.deliver(relay["group"], message)

    def pinged(self, number: int) -> None:
        """This loop's ping came back: if one was lost before, the layer between processes is
        back, and what it lost meanwhile is read afresh by every member here, at once and
        again RESYNC_AGAIN_S later (once every shard's connection is back)."""
        self.pings_heard = max(self.pings_heard, number)
        if self.deaf and self.pings_heard == self.pings_sent:
            self.deaf = False
            log.warning("The channel layer between processes is back: members read afresh")
            self.resync()
            self.loop.call_later(self.layer.resync_again, self.resync)

    def resync(self) -> None:
        """Tell every group here that messages may have been lost: a game's members read the
        game again (RESYNC), the lobby's its lists (a lobby.changed without news)."""
        for group in list(self.groups):
            self.deliver(
                group, {"type": "lobby.changed"} if group == LOBBY_GROUP else {"type": RESYNC}
            )

    async def _ping(self) -> None:
        """Send this loop's channel on the inner layer a ping every PING_INTERVAL_S; a ping not
        heard back by the next one, or not sent, leaves the loop `deaf` until one is."""
        while True:
            await asyncio.sleep(self.layer.ping_interval)
            if self.pings_heard < self.pings_sent:
                self.deaf = True
            self.pings_sent += 1
            try:
                await self.layer.inner.send(self.channel, {"type": PING, "n": self.pings_sent})
            except Exception as exc:  # Redis not answering: said once, in the log
                if not self.deaf:
                    log.warning("The channel layer between processes does not answer: %r", exc)
                self.deaf = True

    # -- tasks ----------------------------------------------------------------------------------

    def _spawn(self, coroutine) -> None:
        task = self.loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        if unavailable(task.exception()) is None:  # a forward while Redis is down: a warning
            log.error("A task of the channel layer failed", exc_info=task.exception())

    async def stop(self) -> None:
        for task in [*self._tasks, *self._joining.values(), *self._leaving.values()]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- membership of the groups on the inner layer ------------------------------------------

    async def join(self, group: str) -> None:
        task = self._joining.get(group)
        if task is None:
            task = self._joining[group] = self.loop.create_task(self._subscribe(group))
        await asyncio.shield(task)

    async def _subscribe(self, group: str) -> None:
        try:
            leaving = self._leaving.get(group)
            if leaving is not None:
                await asyncio.shield(leaving)
            await self._open()
            await self.layer.inner.group_add(group, self.channel)
            self.subscribed.add(group)
        finally:
            self._joining.pop(group, None)

    async def _open(self) -> None:
        """Make this loop's channel on the inner layer and start reading it (once)."""
        if self._opening is None:
            self._opening = self.loop.create_task(self._make_channel())
        await asyncio.shield(self._opening)

    async def _make_channel(self) -> None:
        try:
            self.channel = await self.layer.inner.new_channel("games.")
        except BaseException:
            self._opening = None  # the next member tries again
            raise
        self._spawn(self._read())
        self._spawn(self._sweep())
        self._spawn(self._ping())

    async def _read(self) -> None:
        while True:
            relay = await self.layer.inner.receive(self.channel)
            try:
                self.heard(relay)
            except Exception:  # one bad message must not stop every later one
                log.exception("A message from the inner layer could not be handled: %r", relay)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.layer.sweep_interval)
            for group in list(self.subscribed):
                if group not in self.groups and group not in self._joining:
                    self.subscribed.discard(group)
                    self._leaving[group] = self.loop.create_task(self._unsubscribe(group))

    async def _unsubscribe(self, group: str) -> None:
        try:
            await self.layer.inner.group_discard(group, self.channel)
        except Exception:
            log.exception("Leaving the group %s on the inner layer failed", group)
        finally:
            self._leaving.pop(group, None)


def _follow(message: dict) -> None:
    """Bring this process's cached state of the game up to the change, by its moves, when the
    cache holds the game at the version the change started from."""
    moves = message.get("moves")
    head = runtime.cached_head(message["game"])
    if moves is None or head is None or head.version != message.get("from"):
        return
    rules = get_rules(head.kind)
    state = head.state
    try:
        for actor, action, at_ms, _event in moves:
            state = next_state(rules, state, actor, action, at_ms)
    except (RuleError, ValueError, TypeError, KeyError):
        log.exception("Moves of game %s did not replay; it will be read", message["game"])
        return
    runtime.remember_head(
        TableHead(
            head.pk,
            head.kind,
            message.get("is_open", head.is_open),
            message["status"],
            message["version"],
            message["deadline_ms"],
            state,
            message.get("is_default", head.is_default),
            message.get("has_computers", head.has_computers),
            head.link_key,
            head.rated,
        )
    )
