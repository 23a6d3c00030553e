"""WebSocket /ws/tournaments/<id>/: a tournament's page, pushed as it changes.

On connect, and after every change (a player joins, pauses or leaves, a game is scored, the
tournament starts or ends), the socket is sent the object `GET /api/tournaments/<id>` answers
(games.tournament_reads.tournament_detail: the tournament, a page of its standings, the podium,
and ``me``, the reader's entry when its browser is signed in), as ``{"type": "tournament",
"tournament": {...}}``. A change is sent at once, and the changes heard within SEND_EVERY_S
after it share the next frame; a process's sockets share one read of every page after a
change (`_shared_state`, `_heard`): hundreds of watchers cost a read a change, not one each
(bench/bench_arena.py); a signed-in socket reads its ``me`` alone.

While it is open the socket also moves the tournament on by the clock (games.tournaments.tick:
its start, its end, seating whoever waits), at most every TICK_S per process, so a page open
is enough to keep a tournament going without `manage.py arenas`.

A client may send ``{"type": "page", "page": n}`` (that page of the standings from now on) or
``{"type": "sync"}``; anything else is answered with an error and never closes the socket.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth import get_user_model

from games import arena, lobby, runtime, tournament_reads, tournaments
from games.consumers import KnownSocket
from games.errors import GameError

log = logging.getLogger(__name__)

SEND_EVERY_S = 0.25
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


# The latest read of each tournament's standings pushed after a change, in this process:
# {tournament: (when it began, its task: every page's state)}. A socket that heard a change at
# `heard` may send a read that began after then (so after the change's commit).
_reads: dict[int, tuple[float, asyncio.Future]] = {}


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


async def _shared_state(tournament_id: int, page: int, heard: float) -> tuple[dict, str]:
    """A page of the tournament read after `heard`, one read shared by the process's sockets
    of every page."""
    found = _reads.get(tournament_id)
    loop = asyncio.get_running_loop()
    if found is None or found[0] < heard or found[1].get_loop() is not loop:
        found = (time.monotonic(), asyncio.ensure_future(runtime.run_db(_all_pages, tournament_id)))
        _reads[tournament_id] = found
    pages = await asyncio.shield(found[1])
    return pages.page(page)


# When this process first heard each of the latest changes (its id: games.arena.changed):
# the sockets that hear it later (a few milliseconds apart, hundreds of them) share the read
# that began after the first heard it, instead of each asking for one newer than itself.
_first_heard: dict[str, float] = {}


def _heard(change: str | None) -> float:
    now = time.monotonic()
    if change is None:
        return now
    heard = _first_heard.setdefault(change, now)
    if len(_first_heard) > 256:
        del _first_heard[next(iter(_first_heard))]
    return heard


def _tick(tournament_id: int) -> None:
    now = time.monotonic()
    if now - _last_tick.get(tournament_id, 0.0) < TICK_S:
        return
    _last_tick[tournament_id] = now
    tournaments.tick(tournaments.tournament_of(tournament_id))


def _user_of(session) -> int | None:
    player = lobby.session_lobby_player(session) if session is not None else None
    return player.user_id if player is not None else None


class TournamentConsumer(KnownSocket, AsyncWebsocketConsumer):
    kind = "tournament"

    async def connect(self) -> None:
        self.tournament_id = self.scope["url_route"]["kwargs"]["tournament_id"]
        self.page = 1
        self.pending: asyncio.TimerHandle | None = None
        self.heard = 0.0  # when the change the pending frame is for was heard
        self.sent = 0.0  # when the last frame after a change was sent
        self.ticker: asyncio.Task | None = None
        self.user_id = await runtime.run_db(_user_of, self.scope.get("session"))
        self.group = arena.group_name(self.tournament_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        if not await self.send_state():
            await self.close(4404)
            return
        self.ticker = asyncio.ensure_future(self.tick_while_open())

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.ended()

    async def disconnect(self, code) -> None:
        if self.pending is not None:
            self.pending.cancel()
        if self.ticker is not None:
            self.ticker.cancel()
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def tick_while_open(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            try:
                await runtime.run_db(_tick, self.tournament_id)
            except Exception:
                log.exception("Ticking tournament %s", self.tournament_id)

    async def send_state(self, heard: float | None = None) -> bool:
        """Send the state: read for this socket, or (`heard`: after a change heard then) the
        process's shared read of its page, with this socket's own ``me``."""
        try:
            if heard is None:
                state = await runtime.run_db(_state, self.tournament_id, self.page, self.user_id)
                text = runtime.json_text({"type": "tournament", "tournament": state})
            else:
                state, text = await _shared_state(self.tournament_id, self.page, heard)
                if self.user_id is not None:
                    me = await runtime.run_db(_me, self.tournament_id, self.user_id)
                    state = {**state, "me": me}
                    text = runtime.json_text({"type": "tournament", "tournament": state})
        except GameError as error:
            await self.send(text_data=json.dumps({"type": "error", "detail": error.message}))
            return False
        await self.send(text_data=text)
        return True

    async def tournament_changed(self, message: dict) -> None:
        """A change: sent at once, or, within SEND_EVERY_S of the last frame sent after a
        change, once that time is up (the changes heard meanwhile share that frame)."""
        if self.pending is None:
            self.heard = _heard(message.get("change"))
            loop = asyncio.get_running_loop()
            wait = max(0.0, self.sent + SEND_EVERY_S - time.monotonic())
            self.pending = loop.call_later(wait, self._send_soon)

    def _send_soon(self) -> None:
        self.pending = None
        self.sent = time.monotonic()
        asyncio.ensure_future(self.send_state(self.heard))

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
