"""WebSocket /ws/lobby/: the lobby's lists of tables and who is online, pushed as they change.

On connect, and again after every change the lobby shows, the socket is sent::

    {"type": "lobby", "tables": [row, ...], "idle": [row, ...], "idle_minutes": 10,
     "finished": [row, ...],
     "online": [{"name": "ada", "url": "/u/ada"}, {"name": "bob", "url": null}], "guests": 2}

The rows are games.lobby's, the very rows the lobby page renders. A table appears when it is
made, its seats change when someone joins, it leaves the live list for the finished games when
it ends, and moves to the idle list once nobody has played at it for LOBBY_IDLE_AFTER_S and
nobody has it open. "online" names the players with a lobby socket open (a session player
with a name, or an account, whose profile is its url); "guests" counts the sockets of visitors
who have chosen no name (games.presence).

An account's socket (a signed-in browser) is also in its account's group
(games.realtime.account_group) and is sent its events as they are: ``{"type": "challenge",
"challenge": {...}}``, ``challengeCanceled``, ``challengeDeclined``, ``{"type": "gameStart",
"game": {"id", "kind", "url", "challenge"}}`` and ``gameFinish`` (static/js/lib/challenges.js
shows them on every page).

Lobby chat (services.chat_post) publishes ``{"type": "lobby.chat", "chat": {"id", "name", "text",
"at"}}`` to the lobby group; each socket is sent ``{"type": "chat", "id", "name", "text", "at"}``.

Play now's pools (games.pool): each "lobby" frame has ``"pools": {"set:set-classic:rated": 3,
...}``, how many wait in each pool that is not empty, and whenever someone enters, leaves or is
seated the socket is sent ``{"type": "pools", "pools": {...}}``; a player seated from a pool is
told ``gameStart`` (an account by its group, a guest by its session's).

A client may send ``{"type": "sync"}`` (after a reconnection: the lists again); anything else
is answered with an error and never closes the socket. A socket whose server stops is closed
with 1012, Service Restart (games.realtime.open_sockets): its page reconnects at once.

The socket is a member of the channel layer's "lobby" group (games.realtime.LOBBY_GROUP). The
write path announces ``lobby.changed`` after a game is made, a seat taken or a game ended
(services.announce), never after an ordinary move; a socket that opens or closes announces
``lobby.online``. A socket reads its lists at most once every LOBBY_REFRESH_S whatever the burst,
and sockets that heard the same news share one reading (per player: a player also sees the
private tables they sit at).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time

from asgiref.sync import sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone

from games import lobby, moderation, pool, presence, runtime
from games.auth import socket_credentials
from games.consumers import ACCESS_ENDED, KnownSocket
from games.errors import unavailable
from games.realtime import LOBBY_GROUP, account_group, credential_group

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 4 * 1024
CHAT_FIELDS = ("id", "name", "text", "at", "removed")
# The account's events a lobby socket passes on (accounts.events sends them to its streams too).
ACCOUNT_EVENTS = frozenset(
    {"challenge", "challengeCanceled", "challengeDeclined", "gameStart", "gameFinish"}
)

# Lists read for news this process heard, by (news id, player id): the sockets of one process
# that heard the same news send one reading.
_readings: dict[tuple, dict] = {}
_READINGS_SIZE = 256

# The pools' counts as this process last read or heard them (each entry, leave and seating
# publishes them: `lobby_pools`), read again when older than POOL_COUNTS_MAX_AGE_S: at most one
# query a second for all the sockets of a process, not one a frame. (A process with no lobby
# socket hears no news: a second is as stale as its first frame can be.)
_pool_counts: list = [0.0, None]
POOL_COUNTS_MAX_AGE_S = 1.0


async def _pools() -> dict:
    heard, counts = _pool_counts
    if counts is None or time.monotonic() - heard > POOL_COUNTS_MAX_AGE_S:
        counts = await runtime.run_db(pool.pool_counts)
        _pool_counts[:] = [time.monotonic(), counts]
    return counts


_online = sync_to_async(presence.lobby_online, thread_sensitive=False)
_arrive = sync_to_async(presence.lobby_arrive, thread_sensitive=False)
_leave = sync_to_async(presence.lobby_leave, thread_sensitive=False)


def _lists(player, news: str | None) -> dict:
    """The lobby's lists for `player`, shared by the sockets that heard the same `news`."""
    key = (news, player.pk if player is not None else None)
    if news is not None and key in _readings:
        return _readings[key]
    lists = lobby.lobby_tables(player)
    if news is not None:
        _readings[key] = lists
        while len(_readings) > _READINGS_SIZE:  # threads may trim at once: pop, never del
            _readings.pop(next(iter(_readings), None), None)
    return lists


class LobbyConsumer(KnownSocket, AsyncWebsocketConsumer):
    """One lobby socket: a member of the lobby group, and online while it is open."""

    kind = "lobby"  # in the metrics' open sockets

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.player = None
        self.member: str | None = None  # this socket's entry in games.presence
        self.identity: tuple[str | None, str | None] = (None, None)  # its name and profile
        self.in_group = False
        self.lists: dict | None = None  # the tables last sent
        self.online: dict | None = None  # who was online, last sent
        self.news: str | None = None  # the latest lobby news heard
        self.tables_due = False  # news heard since the last reading
        self.last_sent = 0.0  # monotonic time of the last frame
        self.pending: asyncio.TimerHandle | None = None  # the next (debounced) frame
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Task] = set()
        self.credentials: list[str] = []  # its session: a log-out closes it
        self.account_group: str | None = None  # its account's events (games.realtime)

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:  # however the socket ends
            self.ended()

    async def dispatch(self, message: dict) -> None:
        try:
            await super().dispatch(message)
        except Exception as exc:  # the database or Redis not answering: said, not a close
            outage = unavailable(exc)
            if outage is None:
                raise
            # As a game's socket (GameConsumer.unavailable): an open socket stays open, a
            # handshake that could not be served closes as 1013, Try Again Later.
            if message["type"] == "websocket.disconnect":
                raise StopConsumer from None  # gone all the same (its entry runs out)
            connecting = message["type"] == "websocket.connect"
            if connecting and self.member is None:
                await self.accept()
            await self.send_json({"type": "error", "detail": outage.message, "code": outage.code})
            if connecting:
                await self.close(1013)

    # -- the socket's life -------------------------------------------------------------------

    async def connect(self) -> None:
        session = self.scope.get("session")
        if session is not None and settings.SESSION_COOKIE_NAME in self.scope.get("cookies", {}):
            self.player = await runtime.run_db(lobby.session_lobby_player, session)
        # Its session logged out, it closes: a page that reconnects is a visitor again.
        self.credentials = socket_credentials(self.scope)
        for credential in self.credentials:
            await self.channel_layer.group_add(credential_group(credential), self.channel_name)
        # An account's socket hears its challenges and its games starting (account.event).
        if self.player is not None and self.player.user_id is not None:
            self.account_group = account_group(self.player.user_id)
            await self.channel_layer.group_add(self.account_group, self.channel_name)
        # Join first, then read: every change after the first frame reaches this socket.
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        self.in_group = True
        await self.accept()
        self.member = self.channel_name
        if self.player is not None:
            self.identity = await runtime.run_db(lobby.shown_as, self.player)
        self.online = await _arrive(self.member, *self.identity)
        await self.channel_layer.group_send(LOBBY_GROUP, {"type": "lobby.online"})
        self.tables_due = True
        await self.send_frame()
        self.arm("heartbeat", settings.LOBBY_HEARTBEAT_S, self.heartbeat)

    async def disconnect(self, code) -> None:
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
        for task in list(self.tasks):
            task.cancel()
        if self.in_group:
            self.in_group = False
            await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        if self.account_group is not None:
            group, self.account_group = self.account_group, None
            await self.channel_layer.group_discard(group, self.channel_name)
        credentials, self.credentials = self.credentials, []
        for credential in credentials:
            await self.channel_layer.group_discard(credential_group(credential), self.channel_name)
        if self.member is not None:
            member, self.member = self.member, None
            await _leave(member)
            await self.channel_layer.group_send(LOBBY_GROUP, {"type": "lobby.online"})

    # -- timers ------------------------------------------------------------------------------

    def arm(self, name: str, delay: float, job) -> None:
        """Run `job` in `delay` seconds (a timer of this name set before is replaced)."""
        old = self.timers.pop(name, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self.timers[name] = loop.call_later(max(delay, 0), self.spawn, job)

    def spawn(self, job) -> None:
        task = asyncio.ensure_future(job())
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("A lobby socket's timer failed", exc_info=task.exception())

    async def heartbeat(self) -> None:
        """Say this socket is still here; tell the lobby if someone's entry ran out meanwhile."""
        if self.member is None:
            return
        online = await _arrive(self.member, *self.identity)
        if online != self.online:
            await self.channel_layer.group_send(LOBBY_GROUP, {"type": "lobby.online"})
        self.arm("heartbeat", settings.LOBBY_HEARTBEAT_S, self.heartbeat)

    async def access_ended(self, message: dict) -> None:
        """The session this socket was opened with logged out: it closes (it named the
        account among who is online)."""
        await self.close(ACCESS_ENDED)

    async def turned_idle(self) -> None:
        """A live table has just turned idle: read the lists again."""
        self.news = None
        self.tables_due = True
        await self.send_soon()

    # -- what the socket is sent ---------------------------------------------------------------

    async def send_soon(self) -> None:
        """Send a frame now, or once LOBBY_REFRESH_S has passed since the last one (news heard
        meanwhile rides in that one frame)."""
        if self.pending is not None:
            return
        wait = self.last_sent + settings.LOBBY_REFRESH_S - time.monotonic()
        if wait <= 0:
            await self.send_frame()
            return
        loop = asyncio.get_running_loop()
        self.pending = loop.call_later(wait, self.spawn, self._send_pending)

    async def _send_pending(self) -> None:
        self.pending = None
        await self.send_frame()

    async def send_frame(self) -> None:
        """Send the lists (read again when news came) and who is online."""
        if self.member is None:
            return
        self.last_sent = time.monotonic()
        if self.tables_due or self.lists is None:
            self.tables_due = False
            self.lists = await runtime.run_db(_lists, self.player, self.news)
            idle_at = self.lists["idle_at"]
            if idle_at is not None:
                delay = (idle_at - timezone.now()).total_seconds() + 0.5
                self.arm("idle", delay, self.turned_idle)
        self.online = await _online()
        pools = await _pools()
        await self.send_json(
            {
                "type": "lobby",
                "pools": pools,
                "tables": self.lists["tables"],
                "idle": self.lists["idle"],
                "finished": self.lists["finished"],
                "idle_minutes": lobby.idle_minutes(),
                **self.online,
            }
        )

    async def send_json(self, data: dict) -> None:
        try:
            await self.send(text_data=runtime.json_text(data))
        except Exception as exc:  # a socket the client is closing (see GameConsumer.send_text)
            log.debug("A frame for a closing lobby socket was dropped: %r", exc)

    async def lobby_changed(self, message: dict) -> None:
        """News from the write path (services.announce): the lists changed."""
        self.news = message.get("id")
        self.tables_due = True
        await self.send_soon()

    async def lobby_pools(self, message: dict) -> None:
        """Someone entered, left or was seated from a pool: the counts, sent on as they are."""
        counts = message.get("pools") or {}
        _pool_counts[:] = [time.monotonic(), counts]
        await self.send_json({"type": "pools", "pools": counts})

    async def lobby_online(self, message: dict) -> None:
        """A lobby socket opened or closed (or an entry ran out): who is online changed."""
        await self.send_soon()

    async def lobby_chat(self, message: dict) -> None:
        """A lobby chat message (published by the lobby chat's service): sent on as it is."""
        chat = message.get("chat") or {}
        reader = self.player.user_id if self.player is not None else None
        if await runtime.run_db(moderation.hides, reader, message.get("writer")):
            return  # this account blocked the line's writer
        await self.send_json({"type": "chat", **{k: chat[k] for k in CHAT_FIELDS if k in chat}})

    async def account_event(self, message: dict) -> None:
        """An event of the socket's account (a challenge to it or from it, its answer, a game
        of its own starting): sent on as it is, ``{"type": "challenge", "challenge": {...}}``,
        ``{"type": "gameStart", "game": {...}}``..."""
        event = message.get("event")
        if isinstance(event, dict) and event.get("type") in ACCOUNT_EVENTS:
            await self.send_json(event)

    # -- what the socket sends -----------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None) -> None:
        raw = text_data if text_data is not None else bytes_data
        action = None
        if raw is not None and len(raw) <= MAX_FRAME_BYTES:
            with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
                action = json.loads(raw)
        if isinstance(action, dict) and action.get("type") == "sync":
            self.news = None
            self.tables_due = True
            await self.send_soon()
            return
        await self.send_json(
            {
                "type": "error",
                "detail": 'The lobby socket only takes {"type": "sync"}.',
                "code": "bad_action",
            }
        )
