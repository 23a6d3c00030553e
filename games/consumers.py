"""WebSocket /ws/games/<id>/: the full view on connect, the new view after every change.

A client identifies its seat with ``?token=<seat token>`` (API clients) or its session (browsers);
without either it watches. It may send the same actions as the JSON API::

    {"type": "declare"}                       -> {"type": "result", "outcome": ..., "version": n}
    {"type": "sync"}                          -> {"type": "state", "version": n, "view": {...}}

Every change to the game is pushed as ``{"type": "state", "version": n, "view": {...}}``; a
client that sees a gap in versions sends ``{"type": "sync"}``. Errors come back as
``{"type": "error", "detail": "...", "code": "..."}`` and never close the socket. The consumer
also wakes itself at the game's next deadline, so a socket-only table still times out.
"""

from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs

import orjson
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer

from cards.engine.errors import SetError
from games import runtime, selectors, services
from games.auth import SESSION_PLAYER_KEY
from games.kinds import get_rules
from games.models import Seat

MAX_FRAME_BYTES = 16 * 1024


def _text(data: dict) -> str:
    """A message as compact JSON text: orjson, ten times quicker than json on a game's view
    (every change renders one per seat); json for what orjson refuses (integers past 64 bits)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(data, separators=(",", ":"))


def _utf8(raw: str | bytes) -> bytes:
    return raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")


def _find(game_id: int, token: str | None, session):
    """Whether the game exists, and the seat a token or a browser's player holds at it (the
    session, read here: loading it reads the database)."""
    try:
        selectors.existing_game_id(game_id)
    except services.NotFound:
        return False, None
    seat = None
    if token:
        seat = selectors.seat_by_token(token)
        if seat is not None and seat.game_id != game_id:
            seat = None
    elif session is not None and (player_id := session.get(SESSION_PLAYER_KEY)):
        seat = Seat.objects.filter(game_id=game_id, player_id=player_id).first()
    return True, seat


def _load(game_id: int) -> selectors.TableHead:
    """The game as it is now, with any due deadline applied; its state from the cache."""
    return selectors.game_fresh(game_id, services.now_ms(), head=True)


def _submit(game_id: int, seat: Seat, action: dict) -> dict:
    result = services.seat_move(game_id=game_id, seat=seat, action=action)
    return {"type": "result", "outcome": result.outcome, "version": result.game.version}


class GameConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message):
        """Channels' dispatch, without its hop to Django's sync thread before every message to
        close stale connections: this consumer never uses that thread's connection (its
        database work runs on the game-database threads, runtime.run_db, which look after their
        own), and the hop queued every push behind the API requests running there."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self):
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        token = (query.get("token") or [None])[0]
        session = self.scope.get("session")
        found, self.seat = await runtime.run_db(_find, self.game_id, token, session)
        if not found:
            await self.close(code=4404)
            return
        if token and self.seat is None:
            await self.close(code=4403)
            return
        self.group = services.group_name(self.game_id)
        self.sent_version = -1
        self.timer: asyncio.TimerHandle | None = None
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_state()

    async def websocket_disconnect(self, message):
        """Channels' own, without its hop to Django's sync thread to close stale connections
        (as `dispatch`); this consumer joins no `groups` of Channels' own to leave."""
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def disconnect(self, code):
        if getattr(self, "timer", None):
            self.timer.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    @property
    def seat_name(self) -> str | None:
        return self.seat.name if self.seat else None

    async def send_json(self, data: dict) -> None:
        await self.send(text_data=_text(data))

    async def send_state(self, *, force: bool = True, version: int = 0, game=None) -> None:
        """Send this seat's view (of `game`, or of the game read now); sockets woken by one
        change share one read of the game, and sockets that see the same view (every watcher)
        share one rendering of it."""
        if game is None:
            game = await runtime.load_game(self.game_id, version, _load)
        if not force and game.version <= self.sent_version:
            return
        self.sent_version = game.version
        self.arm_timer(game.deadline_ms)
        key = (game.pk, game.version, self.seat_name)
        text = runtime.rendered(key)
        if text is None:
            view = get_rules(game.kind).view(game.state, self.seat_name, services.now_ms())
            message = {"type": "state", "version": game.version, "view": view}
            text = _text(message)
            runtime.remember_rendered(key, text)
        await self.send(text_data=text)

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
        await runtime.run_db(services.game_tick, game_id=self.game_id)
        await self.send_state(force=False)

    async def game_changed(self, message: dict) -> None:
        version = message.get("version", 0)
        if version > self.sent_version:
            head = selectors.head_from_message(message, services.now_ms())
            await self.send_state(force=False, version=version, game=head)

    async def receive(self, text_data=None, bytes_data=None):
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
        if self.seat is None:
            await self.send_error("You are watching: join the game to act.", "forbidden")
            return
        try:
            reply = await runtime.run_db(_submit, self.game_id, self.seat, action)
        except (services.GameError, SetError) as exc:
            await self.send_error(str(exc), getattr(exc, "code", "invalid"))
            return
        await self.send_json(reply)
        await self.send_state(force=False)

    async def send_error(self, detail: str, code: str) -> None:
        await self.send_json({"type": "error", "detail": detail, "code": code})
