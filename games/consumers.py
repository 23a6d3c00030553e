"""WebSocket /ws/games/<id>/: the full view on connect, the new view after every change.

A client identifies its seat with ``?token=<seat token>`` (API clients) or its session (browsers);
without either it watches. It may send the same actions as the JSON API::

    {"type": "declare"}                       -> {"type": "result", "outcome": ..., "version": n}
    {"type": "sync"}                          -> {"type": "state", "version": n, "view": {...}}
    {"type": "chat", "text": "Good game!"}    -> every socket: {"type": "chat", "id", "name",
                                                 "text", "at"} (at: ISO 8601, UTC)

A socket opened with ``?presence=1`` is also told who is here: ``{"type": "presence", "here":
[names]}``, the seats with a socket open, when it connects and whenever one opens or closes (a
seat's socket counts as here whether or not it asks).

A socket opened with ``?story=1`` is also told the game's story (games.story): the whole of it
as ``{"type": "story", "entries": [...]}`` after the first state, then after each state push
the entries newer than those it was sent (from the change's own moves: no read), and the
whole story again when the game ends (a hint's card is everyone's then). Chat keeps arriving
as ``chat`` messages; a chat line's story id is ``c<id>``.

A handshake is refused with close code 4404 for a game that does not exist (or a private game
without its link's key, games.auth.scope_may_reach) and 4403 for a seat token of another game;
an open socket is closed with 4401 when the credential it was opened with ends: the account's
token its seat token was handed to is revoked, or its browser's session logs out
(services.credential_revoke); and with 1012 (Service Restart) when its server stops
(config.server): its client reconnects at once and reads the game again.

Every change to the game is pushed as ``{"type": "state", "version": n, "view": {...}}``; a
client that sees a gap in versions sends ``{"type": "sync"}``. Errors come back as
``{"type": "error", "detail": "...", "code": "..."}`` and never close the socket (a refused chat
message's also say ``"for": "chat"``; a watcher may read the chat but not write in it). The socket
also wakes itself at the game's next deadline, so a socket-only table still times out.

`GameConsumer` is a Channels consumer in its game's group on the channel layer
(games.realtime): each committed change reaches it as a ``game.changed`` message, turned into
its seat's view as the game's NDJSON stream does it (games.follow). Its actions
go through the services on the event loop (`services.amove`: who acts, well formed, the seat's
rate limit, the rules, one commit), as every way in does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from functools import cached_property
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import SESSION_KEY as ACCOUNT_SESSION_KEY

from games import (
    bots,
    follow,
    metrics,
    moderation,
    presence,
    realtime,
    runtime,
    selectors,
    services,
    store,
    story,
)
from games.auth import SESSION_PLAYER_KEY, scope_may_reach, socket_credentials
from games.errors import RETRY_AFTER_S, GameError, unavailable
from games.models import Player

log = logging.getLogger(__name__)

_table_here = sync_to_async(presence.table_here, thread_sensitive=False)
_table_arrive = sync_to_async(presence.table_arrive, thread_sensitive=False)
_table_leave = sync_to_async(presence.table_leave, thread_sensitive=False)

MAX_FRAME_BYTES = 16 * 1024
# The close code of a socket whose credential ended (an account's token revoked, a log-out).
ACCESS_ENDED = 4401

_text = runtime.json_text


def _utf8(raw: str | bytes) -> bytes:
    return raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")


def _session_seat(game_id: int, session) -> store.SeatRef | None:
    """The seat a browser's player holds at the game (loading the session reads the database,
    on a game-database thread)."""
    player_id = session.get(SESSION_PLAYER_KEY)
    if not player_id:
        return None
    user_id = session.get(ACCOUNT_SESSION_KEY)
    if user_id is not None and bots.is_bot(user_id):
        return None  # a bot plays by its token, never by a browser's session: it watches
    return store.read("seat_of_player", game_id, player_id)


def _reader_of(seat, session) -> int | None:
    """The account a socket reads as (for the chat of those it blocked): its seat's player's,
    else its browser's signed-in account's; None for a guest."""
    if seat is not None:
        return Player.objects.filter(pk=seat.player_id).values_list("user_id", flat=True).first()
    user_id = session.get(ACCOUNT_SESSION_KEY) if session is not None else None
    try:
        return int(user_id) if user_id is not None else None
    except (TypeError, ValueError):
        return None


def _whole_story(
    game_id: int, viewer: str | None, shared: bool, reader: int | None = None
) -> tuple[int, tuple, str]:
    """The game's whole story for `viewer` as a socket sends it: the version it is told at, the
    game's kind, options and rated, and the frame. `shared`: one rendering per reader and
    version (every socket of a game that just ended asks at once; chat written meanwhile
    reaches them as chat)."""
    game = selectors.game_row(game_id)
    head = selectors.game_head(game_id)
    about = (game.kind, game.options, game.rated)
    key = ("story-all", game_id, head.version, viewer, reader)
    text = runtime.rendered(key) if shared else None
    if text is None:
        told = story.game_story(
            game, state=head.state, version=head.version, viewer=viewer, reader=reader
        )
        text = _text({"type": "story", "entries": told["entries"]})
        if shared:
            runtime.remember_rendered(key, text)
    return head.version, about, text


class KnownSocket:
    """What a consumer of ours is to its server, as a mixin before AsyncWebsocketConsumer: once
    accepted, counted among the open sockets of its `kind` (games.metrics) and known to
    `realtime.open_sockets` until it ends (`ended`), so a server that stops closes it with 1012,
    Service Restart, and its page reconnects at once (to another process, or this one
    restarted)."""

    kind = "game"
    counted = False

    async def accept(self, subprotocol=None, headers=None) -> None:
        await super().accept(subprotocol, headers)
        if not self.counted:
            self.counted = True
            metrics.WEBSOCKETS_OPEN.labels(self.kind).inc()
        await realtime.open_sockets.opened(self.channel_name)

    def ended(self) -> None:
        """However the socket ended: no longer counted or known (once)."""
        if self.counted:
            self.counted = False
            metrics.WEBSOCKETS_OPEN.labels(self.kind).dec()
            realtime.open_sockets.closed(self.channel_name)

    async def server_restart(self, message: dict) -> None:
        """This server is stopping (config.server): close with 1012, Service Restart."""
        await self.close(realtime.SERVICE_RESTART)

    async def dispatch(self, message: dict) -> None:
        """Hand a message (a frame from the browser, a change from the channel layer) to its
        handler, as Channels' own dispatch does but without the hop it makes first, for every
        message, to Django's one thread to close that thread's old database connections
        (channels.db.aclose_old_connections, Channels 4.2+). These sockets never use the
        database on that thread: their reads run on the game-database threads
        (games.runtime.run_db), which look after their own connections. The hop put every
        message of every socket of the process in one queue on one thread: a change heard by
        400 watchers of a tournament waited behind 400 of them (bench/bench_arena.py)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class GameConsumer(KnownSocket, AsyncWebsocketConsumer):
    """One WebSocket on one game, a member of the game's group while it is open."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seat = None
        self.reader = None  # the account this socket reads as (games.moderation.hides)
        self.sent_version = -1
        self.timer: asyncio.TimerHandle | None = None
        self.group: str | None = None  # the game's group, while this socket is in it
        self.member: str | None = None  # this seat's entry in games.presence, while here
        self.follows_presence = False  # sent who is here (?presence=1)
        self.follows_story = False  # sent the game's story (?story=1)
        self.story_version = 0  # the moves whose story this socket was sent: up to this one
        self.story_about: tuple | None = None  # the game's kind, options and rated
        self.listed = False  # an open game not over: in the lobby's lists
        self.heartbeat: asyncio.TimerHandle | None = None
        self.credentials: list[str] = []  # what opened it: their end closes it
        self.accepted = False

    @cached_property
    def game_id(self) -> int:
        return int(self.scope["url_route"]["kwargs"]["game_id"])

    async def __call__(self, scope, receive, send):
        """Run the consumer as Channels' AsyncConsumer does (its channel on the layer, then each
        message from the socket or the channel to `dispatch`, one at a time), with one queue for
        both: the channel's own (realtime.GamesLayer.inbox), into which a reader of the socket
        puts the socket's messages too. Channels' `await_many_dispatch` makes a task per message
        and waits on both sources again each time (a tenth of the server's time under
        bench/bench_load.py), and a reader of each source would carry every pushed change from
        one queue to another."""
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.channel_name = await self.channel_layer.new_channel()
        self.base_send = send
        inbox = self.channel_layer.inbox(self.channel_name)

        async def read() -> None:
            try:
                while True:
                    await inbox.put(await receive())
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # the consumer raises it, as Channels would
                await inbox.put(exc)

        way = metrics.enter(metrics.Served("socket"))  # the moves it commits came by a socket
        reader = asyncio.ensure_future(read())
        try:
            while True:
                message = await inbox.get()
                if isinstance(message, BaseException):
                    raise message
                await self.dispatch(message)
        except StopConsumer:
            pass
        finally:  # however the socket ends, it leaves its group
            metrics.leave(way)
            self.ended()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            await self.leave()
            self.channel_layer.close_inbox(self.channel_name)

    async def dispatch(self, message: dict) -> None:
        """Run the message's handler. Channels' own dispatch first closes the database
        connections of Django's request thread, a hop to that thread for every frame and every
        push; this consumer's database work runs on the game-database threads, which keep
        their own connections (games.runtime.run_db)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        try:
            await handler(message)
        except Exception as exc:  # the database or Redis not answering: said, not a close
            outage = unavailable(exc)
            if outage is None:
                raise
            await self.unavailable(outage, connecting=message["type"] == "websocket.connect")

    async def unavailable(self, outage, *, connecting: bool) -> None:
        """Say that a service did not answer; an open socket stays open (its client may send the
        action again), a handshake that could not be served is closed as 1013, Try Again Later
        (its client connects again)."""
        if connecting and not self.accepted:
            await self.accept()
        await self.send_error(outage.message, outage.code)
        if connecting:
            await self.close(1013)

    # -- the socket's life -------------------------------------------------------------------

    async def connect(self) -> None:
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        token = (query.get("token") or [None])[0]
        self.follows_presence = (query.get("presence") or [""])[0] == "1"
        self.follows_story = (query.get("story") or [""])[0] == "1"
        head = await services.ahead(self.game_id)
        if head is None:
            await self.refuse(4404)
        # Whether the lobby lists the game (its sockets coming and going can make it idle).
        self.listed = head.is_open and head.status != "over"
        if token:
            seat = await store.aseat_by_token(token)
            if seat is None or seat.game_id != self.game_id:
                await self.refuse(4403)
            self.seat = seat
        elif settings.SESSION_COOKIE_NAME in self.scope.get("cookies", {}):
            self.seat = await runtime.run_db(_session_seat, self.game_id, self.scope["session"])
        self.reader = await runtime.run_db(_reader_of, self.seat, self.scope.get("session"))
        # A private game is watched only with its link's key, or by a browser that opened it.
        if self.seat is None and not await self.may_reach(head.link_key):
            await self.refuse(4404)
        # An account's token revoked, a session logged out: this socket closes with them.
        self.credentials = socket_credentials(self.scope, self.seat if token else None)
        for credential in self.credentials:
            await self.channel_layer.group_add(
                realtime.credential_group(credential), self.channel_name
            )
        # Join first, then read: every change after the first view reaches this socket.
        group = realtime.group_name(self.game_id)
        await self.channel_layer.group_add(group, self.channel_name)
        self.group = group
        await self.accept()
        self.accepted = True
        await self.send_state()
        if self.seat is not None:
            # This seat is here: everyone at the table is told, this socket too.
            self.member = self.channel_name
            try:
                here = await _table_arrive(self.game_id, self.member, self.seat.name)
                await self.channel_layer.group_send(group, {"type": "game.presence", "here": here})
            except Exception as exc:  # Redis not answering: the next heartbeat says it
                if unavailable(exc) is None:
                    raise
                here = None
            if here == [self.seat.name] and self.listed:  # the first one back: live again
                realtime.lobby_changed()
            self.heartbeat = asyncio.get_running_loop().call_later(
                settings.LOBBY_HEARTBEAT_S, lambda: asyncio.ensure_future(self.still_here())
            )
        elif self.follows_presence:
            await self.send_json({"type": "presence", "here": await _table_here(self.game_id)})
        if self.follows_story:
            await self.send_whole_story()

    async def may_reach(self, link_key: str) -> bool:
        if not link_key:
            return True
        return await runtime.run_db(scope_may_reach, self.scope, self.game_id, link_key)

    async def refuse(self, code: int) -> None:
        """Close the handshake with `code` and end the consumer."""
        await self.close(code)
        raise StopConsumer

    async def websocket_disconnect(self, message: dict) -> None:
        # Not Channels' own: it, too, hops to Django's request thread (see `dispatch`).
        await self.leave()
        raise StopConsumer

    async def leave(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            self.heartbeat = None
        group, self.group = self.group, None
        if group is not None:
            await self.channel_layer.group_discard(group, self.channel_name)
        credentials, self.credentials = self.credentials, []
        for credential in credentials:
            await self.channel_layer.group_discard(
                realtime.credential_group(credential), self.channel_name
            )
        member, self.member = self.member, None
        if member is not None:
            try:
                here = await _table_leave(self.game_id, member)
                await self.channel_layer.group_send(
                    realtime.group_name(self.game_id), {"type": "game.presence", "here": here}
                )
            except Exception as exc:  # Redis not answering: the entry runs out by itself
                if unavailable(exc) is None:
                    raise
                return
            if not here and self.listed:  # everyone has gone: a quiet table is idle now
                realtime.lobby_changed()

    async def still_here(self) -> None:
        """Say this seat's socket is still open (an entry not refreshed runs out: a server that
        stopped with its sockets)."""
        member = self.member
        if member is None:
            return
        try:
            await _table_arrive(self.game_id, member, self.seat.name)
            if self.member is None:  # the socket closed meanwhile: its entry goes again
                await _table_leave(self.game_id, member)
                return
        except Exception as exc:  # Redis not answering: said again at the next heartbeat
            if unavailable(exc) is None:
                raise
        self.heartbeat = asyncio.get_running_loop().call_later(
            settings.LOBBY_HEARTBEAT_S, lambda: asyncio.ensure_future(self.still_here())
        )

    # -- what the socket is sent ---------------------------------------------------------------

    @property
    def seat_name(self) -> str | None:
        return self.seat.name if self.seat else None

    async def send_json(self, data: dict) -> None:
        await self.send_text(_text(data))

    async def send_text(self, text: str) -> None:
        """Send a frame; a socket the client is closing may refuse it (daphne hears of the close
        only when the connection is gone): that frame is dropped, as the socket will be."""
        try:
            await self.send(text_data=text)
        except Exception as exc:  # autobahn's Disconnected, from a server we do not import
            log.debug("A frame for a closing socket of game %s was dropped: %r", self.game_id, exc)

    async def send_state(self, *, force: bool = True, game=None) -> None:
        """Send this seat's view (of `game`, or of the game read now); sockets that see the
        same view of one version (every watcher) share one rendering of it."""
        if game is None:
            game = await services.agame_fresh(self.game_id)
        if not force and game.version <= self.sent_version:
            return
        self.sent_version = game.version
        self.arm_timer(game.deadline_ms)
        await self.send_text(follow.state_text(game, self.seat_name))

    def arm_timer(self, deadline_ms: int | None) -> None:
        """Wake at the game's next deadline so a timeout happens even if nobody sends anything."""
        if self.timer:
            self.timer.cancel()
            self.timer = None
        if deadline_ms is None:
            return
        delay = max(deadline_ms - services.now_ms(), 0) / 1000 + 0.01
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(delay, lambda: asyncio.ensure_future(self.on_deadline()))

    async def on_deadline(self) -> None:
        try:
            await services.arun(services.tick(game_id=self.game_id))
        except GameError:  # the game cannot be read now: the next push or sync shows it
            log.warning("The deadline of game %s could not be applied", self.game_id)
            return
        except Exception as exc:  # the database not answering: the deadline is tried again
            if unavailable(exc) is None:
                raise
            self.arm_timer(services.now_ms() + RETRY_AFTER_S * 1000)
            return
        await self.send_state(force=False)

    async def game_changed(self, message: dict) -> None:
        """A change of the game, from its group (realtime.publish)."""
        if message["version"] > self.sent_version:
            head = await follow.game_at(self.game_id, message)
            await self.send_state(force=False, game=head)
            metrics.fanned_out(message)
        if self.follows_story and message["version"] > self.story_version:
            await self.send_story(message)

    async def send_whole_story(self, *, shared: bool = False) -> None:
        """Send the game's whole story, as this socket's reader may read it."""
        text = await runtime.run_db(_whole_story, self.game_id, self.seat_name, shared, self.reader)
        self.story_version, self.story_about, text = text
        await self.send_text(text)

    async def send_story(self, message: dict) -> None:
        """Send the story of a change's moves: told from the message's own moves and outcomes
        (the moves between that were not published are presence marks, with no story), or read
        from the log when the message does not carry them; the whole story when it ends the
        game."""
        if message.get("over") or self.story_about is None:
            await self.send_whole_story(shared=bool(message.get("over")))
            return
        key = ("story", self.game_id, message["version"], self.seat_name)
        text = runtime.rendered(key)
        if text is None:
            moves, outcomes = message.get("moves"), message.get("outcomes")
            if moves is None or outcomes is None:  # read for this socket: not shared
                key = None
                told = await runtime.run_db(
                    story.moves_after, self.game_id, self.story_version, message["version"]
                )
            else:
                first = message["version"] - len(moves) + 1
                told = [
                    story.StoryMove(first + i, actor, action, outcome, at)
                    for i, ((actor, action, at, _event), outcome) in enumerate(
                        zip(moves, outcomes, strict=True)
                    )
                ]
            kind, options, rated = self.story_about
            entries = story.entries_of(
                kind, options, told, viewer=self.seat_name, over=False, rated=rated
            )
            text = _text({"type": "story", "entries": entries}) if entries else ""
            if key is not None:
                runtime.remember_rendered(key, text)
        self.story_version = message["version"]
        if text:
            await self.send_text(text)

    async def game_resync(self, message: dict) -> None:
        """Changes from other processes may have been lost (realtime.RESYNC: Redis was down):
        the game read afresh (once for all its sockets here), its state sent if newer."""
        head = await runtime.load_game(self.game_id, -1, services.agame_fresh)
        await self.send_state(force=False, game=head)
        if self.follows_story and head.version > self.story_version:
            await self.send_whole_story()  # what was missed, whatever it was

    async def game_rematch(self, message: dict) -> None:
        """A player asked to play the game again (services.game_rematch): where the new game
        is, so the others can accept in one click."""
        # Whoever may watch the old game may see the new one: a private one's link has its key.
        url = selectors.keyed_url(
            selectors.page_url(message["kind"], message["next"]), message.get("key", "")
        )
        await self.send_json(
            {"type": "rematch", "game": message["next"], "url": url, "by": message.get("by")}
        )

    async def game_presence(self, message: dict) -> None:
        """Who holds a seat with a socket open now: a seat's socket opened or closed (sent to
        the sockets that asked, ``?presence=1``)."""
        if self.follows_presence:
            await self.send_json({"type": "presence", "here": message["here"]})

    async def access_ended(self, message: dict) -> None:
        """The credential this socket was opened with ended (services.credential_revoke): it
        acts no more and closes; a page that reconnects comes back as what it is now."""
        self.seat = None
        await self.close(ACCESS_ENDED)

    async def game_chat(self, message: dict) -> None:
        """A chat message written at the game (services.chat_post); not to an account that
        blocked its writer."""
        if await runtime.run_db(moderation.hides, self.reader, message.get("writer")):
            return
        await self.send_json({"type": "chat", **message["chat"]})

    # -- what the socket sends -----------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None) -> None:
        raw = text_data if text_data is not None else bytes_data
        # The limit is in bytes as sent (a character of a text frame can take four).
        if raw is None or len(raw) > MAX_FRAME_BYTES or len(_utf8(raw)) > MAX_FRAME_BYTES:
            await self.send_error(f"Frames are limited to {MAX_FRAME_BYTES} bytes.", "too_large")
            return
        try:
            action = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):  # Recursion: nested too deep
            await self.send_error(
                'A message is a JSON object such as {"type": "sync"}.', "bad_json"
            )
            return
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            await self.send_error(
                "A message is a JSON object with a string field 'type'.", "bad_action"
            )
            return
        if action["type"] == "sync":
            await self.send_state()
            return
        if action["type"] == "chat":
            await self.chat(action.get("text"))
            return
        if self.seat is None:
            await self.send_error("You are watching: join the game to act.", "forbidden")
            return
        try:
            result = await services.amove(game_id=self.game_id, seat=self.seat, action=action)
        except GameError as exc:
            await self.send_error(
                str(exc), getattr(exc, "code", "invalid"), until=getattr(exc, "until", None)
            )
            return
        await self.send_json(
            {"type": "result", "outcome": result.outcome, "version": result.game.version}
        )
        # The mover sees its own move at once (the group's message then finds it shown).
        await self.send_state(force=False, game=result.game)

    async def chat(self, text) -> None:
        """Write a chat message for this socket's seat; every socket of the game (this one too)
        is sent it by the game's group."""
        if self.seat is None:
            await self.send_error(services.SPECTATORS_READ, "forbidden", about="chat")
            return
        try:
            message = await runtime.run_db(
                services.chat_post, game_id=self.game_id, player_id=self.seat.player_id, text=text
            )
        except GameError as exc:
            await self.send_error(
                str(exc),
                getattr(exc, "code", "invalid"),
                about="chat",
                until=getattr(exc, "until", None),  # a mute: until when
            )
            return
        if message.hidden:  # the word filter's: its writer's socket alone is sent it
            await self.send_json({"type": "chat", **selectors.chat_json(message)})

    async def send_error(
        self, detail: str, code: str, *, about: str | None = None, until: str | None = None
    ) -> None:
        error = {"type": "error", "detail": detail, "code": code}
        if about is not None:
            error["for"] = about
        if until is not None:  # a mute or a ban (games.moderation.Sanctioned): until when
            error["until"] = until
        await self.send_json(error)
