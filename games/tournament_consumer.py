"""WebSocket /ws/tournaments/<id>/: a tournament's page, pushed as it changes.

On connect, and after every change (a player joins, pauses or leaves, a game is scored, the
tournament starts or ends), the socket is sent the object `GET /api/tournaments/<id>` answers
(games.tournament_reads.tournament_detail: the tournament, a page of its standings, the podium,
and ``me``, the reader's entry when its browser is signed in), as ``{"type": "tournament",
"tournament": {...}}``. A game scored (the standings moved) is sent at once, unless a frame
went within SCORED_EVERY_S; the other changes (a table made, a player who joined or paused)
are sent at once too unless a frame went within SEND_EVERY_S, and then share the next frame,
or the next game scored's. A process's sockets
of a tournament share what it takes (`_Watch`): one member of the tournament's group, one read
of every page after a change, one frame's text a page; hundreds of watchers cost a read a
change, not one each (bench/bench_arena.py); a signed-in socket reads its ``me`` alone.

While one is open the process also moves the tournament on by the clock
(games.tournaments.tick: its start, its end, seating whoever waits), at most every TICK_S, so a
page open is enough to keep a tournament going without `manage.py arenas`.

A client may send ``{"type": "page", "page": n}`` (that page of the standings from now on) or
``{"type": "sync"}``; anything else is answered with an error and never closes the socket.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model

from games import arena, lobby, realtime, runtime, tournament_reads, tournaments
from games.consumers import KnownSocket
from games.errors import GameError

log = logging.getLogger(__name__)

SEND_EVERY_S = 0.5
SCORED_EVERY_S = 0.1  # at most ten frames a second, however many games end
TICK_S = 2.0
_last_tick: dict[int, float] = {}


def _state(tournament_id: int, page: int, user_id: int | None) -> dict:
    tournament = tournaments.tournament_of(tournament_id)
    viewer = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    return tournament_reads.tournament_detail(tournament, page=page, viewer=viewer)


def _me(tournament_id: int, user_id: int) -> dict | None:
    tournament = tournaments.tournament_of(tournament_id)
    viewer = get_user_model().objects.filter(pk=user_id).first()
    return tournament_reads.viewer_entry(tournament, viewer)


class _Pages:
    """Every page of a tournament's standings read at once, each page's JSON text made once."""

    def __init__(self, states: list[dict]) -> None:
        self.states = states
        self.texts: dict[int, str] = {}

    def page(self, page: int) -> tuple[dict, str]:
        index = min(max(page, 1), len(self.states)) - 1
        if index not in self.texts:
            frame = {"type": "tournament", "tournament": self.states[index]}
            self.texts[index] = runtime.json_text(frame)
        return self.states[index], self.texts[index]


def _all_pages(tournament_id: int) -> _Pages:
    tournament = tournaments.tournament_of(tournament_id)
    ranked = tournament_reads.ranked_now(tournament)
    playing = tournaments.playing_games(tournament).count()
    pages = max(1, -(-len(ranked[0]) // tournament_reads.PAGE_SIZE))
    return _Pages(
        [
            tournament_reads.tournament_detail(
                tournament, page=page, ranked=ranked, games_playing=playing
            )
            for page in range(1, pages + 1)
        ]
    )


def _tick(tournament_id: int) -> None:
    now = time.monotonic()
    if now - _last_tick.get(tournament_id, 0.0) < TICK_S:
        return
    _last_tick[tournament_id] = now
    tournaments.tick(tournaments.tournament_of(tournament_id))


def _user_of(session) -> int | None:
    player = lobby.session_lobby_player(session) if session is not None else None
    return player.user_id if player is not None else None


class _Watch:
    """A tournament's sockets in this process, and what they share: one member of the
    tournament's group for all of them (its changes are heard once here, not once a socket),
    one timer and one read of every page a change (`_all_pages`), and one ticker.

    A game scored is read at once unless a read began within SCORED_EVERY_S (or runs: then
    right after it); another change is read at once unless a read began within SEND_EVERY_S,
    and then with the next read, the window's or a game scored's. An arena of 400 players
    changes about ten times a second, a game scored a third of them: every change waiting for
    one window (0.25 s then) held a game's points back 0.13 s at the median and 0.39 s at the
    p99 (bench/bench_arena.py). Each socket is sent its page of that read, a signed-in one
    with its own ``me`` read apart. After the channel layer between processes lost messages
    (games.realtime's RESYNC), every socket reads afresh. Each of 400 watchers used to hear
    every change, set its own timer and wait on the shared read in a task of its own, and tick
    the tournament from a thread every TICK_S: most of a process's time in
    bench/bench_arena.py."""

    def __init__(self, tournament_id: int) -> None:
        self.tournament_id = tournament_id
        self.sockets: set[TournamentConsumer] = set()
        self.due = False  # a change heard that no read has begun after
        self.scored = False  # ... and among them, a game scored
        self.timer: asyncio.TimerHandle | None = None
        self.reading: asyncio.Task | None = None
        self.sent = 0.0  # when the last read after a change began
        self.channel: str | None = None
        self.ready = asyncio.ensure_future(self._join())
        self.tasks: list[asyncio.Task] = []

    async def _join(self) -> None:
        layer = get_channel_layer()
        self.channel = await layer.new_channel()
        await layer.group_add(arena.group_name(self.tournament_id), self.channel)
        self.tasks = [
            asyncio.ensure_future(self._listen(layer)),
            asyncio.ensure_future(self._tick()),
        ]

    async def _listen(self, layer) -> None:
        while True:
            message = await layer.receive(self.channel)
            kind = message.get("type")
            if kind in (CHANGED, realtime.RESYNC):
                # After lost messages (RESYNC), everything is read afresh at once.
                self.changed(scored=kind == realtime.RESYNC or bool(message.get("scored")))

    async def _tick(self) -> None:
        """Move the tournament on by the clock while its page is open here."""
        while True:
            await asyncio.sleep(TICK_S)
            if time.monotonic() - _last_tick.get(self.tournament_id, 0.0) < TICK_S:
                continue  # ticked by a request meanwhile
            try:
                await runtime.run_db(_tick, self.tournament_id)
            except Exception:
                log.exception("Ticking tournament %s", self.tournament_id)

    def changed(self, *, scored: bool = False) -> None:
        self.due = True
        self.scored = self.scored or scored
        if self.reading is not None:
            return  # read again when this read ends
        if self.scored and self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.timer is None:
            every = SCORED_EVERY_S if self.scored else SEND_EVERY_S
            wait = self.sent + every - time.monotonic()
            self.timer = asyncio.get_running_loop().call_later(max(0.0, wait), self._read)

    def _read(self) -> None:
        self.timer = None
        self.reading = asyncio.ensure_future(self._send_all())

    async def _send_all(self) -> None:
        self.due = self.scored = False
        self.sent = time.monotonic()
        try:
            pages = await runtime.run_db(_all_pages, self.tournament_id)
        except GameError as error:
            pages = error
        except Exception:
            log.exception("Reading tournament %s", self.tournament_id)
            pages = None
        try:
            if pages is not None:
                for socket in list(self.sockets):
                    await socket.push(pages)
        finally:
            self.reading = None
            if self.due:
                self.changed()

    async def stop(self) -> None:
        for task in (self.ready, *self.tasks):
            task.cancel()
        if self.timer is not None:
            self.timer.cancel()
        if self.channel is not None:
            layer = get_channel_layer()
            await layer.group_discard(arena.group_name(self.tournament_id), self.channel)


# This process's watches, by event loop and tournament; the signed-in sockets' pushes running.
_watches: dict[tuple[asyncio.AbstractEventLoop, int], _Watch] = {}
_pushing: set[asyncio.Task] = set()
CHANGED = "tournament.changed"


async def _watch(socket: TournamentConsumer) -> _Watch:
    key = (asyncio.get_running_loop(), socket.tournament_id)
    watch = _watches.get(key)
    if watch is None:
        watch = _watches[key] = _Watch(socket.tournament_id)
    watch.sockets.add(socket)
    await asyncio.shield(watch.ready)
    return watch


async def _unwatch(socket: TournamentConsumer) -> None:
    key = (asyncio.get_running_loop(), socket.tournament_id)
    watch = _watches.get(key)
    if watch is None or socket not in watch.sockets:
        return
    watch.sockets.discard(socket)
    if not watch.sockets:
        del _watches[key]
        await watch.stop()


class TournamentConsumer(KnownSocket, AsyncWebsocketConsumer):
    kind = "tournament"

    async def connect(self) -> None:
        self.tournament_id = self.scope["url_route"]["kwargs"]["tournament_id"]
        self.page = 1
        self.user_id = await runtime.run_db(_user_of, self.scope.get("session"))
        self.opened = False
        await _watch(self)  # its changes heard before the first state is read
        await self.accept()
        self.opened = True
        if not await self.send_state():
            await self.close(4404)

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.ended()
            await _unwatch(self)

    async def disconnect(self, code) -> None:
        await _unwatch(self)

    async def send_state(self) -> bool:
        """Read the state for this socket alone (on connect, a page asked, a sync) and send it."""
        try:
            state = await runtime.run_db(_state, self.tournament_id, self.page, self.user_id)
        except GameError as error:
            await self.send(text_data=json.dumps({"type": "error", "detail": error.message}))
            return False
        await self.send(text_data=runtime.json_text({"type": "tournament", "tournament": state}))
        return True

    async def push(self, pages: _Pages | GameError) -> None:
        """Send this socket its page of the read every socket here shares after a change (a
        signed-in one with its own ``me``, read apart)."""
        if not self.opened:
            return  # its first state, read once accepted, comes after this change
        try:
            if isinstance(pages, GameError):
                await self.send(text_data=json.dumps({"type": "error", "detail": pages.message}))
                return
            state, text = pages.page(self.page)
            if self.user_id is None:
                await self.send(text_data=text)
                return
            task = asyncio.ensure_future(self._push_with_me(state))
            _pushing.add(task)  # the loop holds tasks weakly
            task.add_done_callback(_pushing.discard)
        except Exception:
            log.exception("Pushing tournament %s", self.tournament_id)

    async def _push_with_me(self, state: dict) -> None:
        try:
            me = await runtime.run_db(_me, self.tournament_id, self.user_id)
            frame = {"type": "tournament", "tournament": {**state, "me": me}}
            await self.send(text_data=runtime.json_text(frame))
        except Exception:
            log.exception("Pushing tournament %s", self.tournament_id)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        try:
            frame = json.loads(text_data or "")
        except ValueError:
            frame = None
        if isinstance(frame, dict) and frame.get("type") == "sync":
            await self.send_state()
        elif (
            isinstance(frame, dict)
            and frame.get("type") == "page"
            and isinstance(frame.get("page"), int)
            and frame["page"] >= 1
        ):
            self.page = frame["page"]
            await self.send_state()
        else:
            detail = 'Send {"type": "page", "page": n} or {"type": "sync"}.'
            await self.send(text_data=json.dumps({"type": "error", "detail": detail}))
