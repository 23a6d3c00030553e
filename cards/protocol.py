"""The plain-text protocol of the original Set server (specs/set-table-protocol.md).

Routes: /look/P, /declare/P, /pick/P/R,C, /add/P, /scores, /watch/P on the default table, and the
same under /tables/<id>/. Replies are text/plain, byte for byte as the spec; errors are 404 with
the spec's one-line messages. Every reply about a table carries X-Table-Id.

The routes are served by `ProtocolApp`, a small ASGI app in front of Django (config/asgi.py): a
plain-text request needs no session, CSRF or template machinery, and skipping it makes a /look
several times cheaper. Every request is served on the event loop, its reads and writes through
the services as every way in's (`services.arun`: a new name's join and the seat's moves counted,
then the rules, one commit), and a /watch waits without holding a thread. The same functions
back Django views (`dispatch`, on Django's thread), so the test client and WSGI servers see the
same protocol.

/watch is a real long poll: it is a channel on the channel layer in the table's group
(games.realtime) and sleeps until an event arrives, the table's next deadline passes (then it
applies the timeout itself, under the lock), or 30 s go by. Nothing busy-waits; with REDIS_URL
set the wake-ups cross processes.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.http import HttpResponse

from cards.engine.protocol_text import (
    BAD_PICK,
    NO_TABLE,
    UNKNOWN,
    ProtocolError,
    Request,
    board_text,
    parse_route,
    scores_text,
    split_table,
)
from cards.rules import table_state
from games import limits, metrics, planning, realtime, runtime, selectors, services
from games.auth import ACCOUNT_NAME_TAKEN, is_account_name
from games.errors import GameError, unavailable
from games.middleware import allowed_host
from games.models import Game
from games.store import TableHead

# The protocol's own paths (§10); every other path is the site's. \Z, not $: "$" also matches
# before a final newline, and Django's URL patterns (config.urls) match the whole path.
PROTOCOL_PATH = re.compile(r"^/(?:(?:look|declare|pick|add|watch|tables)(?:/.*)?|scores.*)\Z", re.S)


def watch_timeout_s() -> float:
    return float(getattr(settings, "SET_WATCH_TIMEOUT_S", 30.0))


@dataclass(frozen=True)
class Reply:
    """A protocol reply: status, text body and the table that answered."""

    body: str
    status: int = 200
    table_id: int | None = None
    retry: int | None = None  # seconds, for Retry-After (a 503)

    def headers(self) -> list[tuple[bytes, bytes]]:
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"access-control-allow-origin", b"*"),
        ]
        if self.table_id is not None:
            headers.append((b"x-table-id", str(self.table_id).encode()))
        if self.retry is not None:
            headers.append((b"retry-after", str(self.retry).encode()))
        return headers


def error(message: str, table_id: int | None = None) -> Reply:
    return Reply(message + "\n", 404, table_id)


def reply(game: Game, request: Request) -> Reply:
    state = table_state(game.state)
    if request.reply == "SCORES":
        return Reply(scores_text(state), table_id=game.pk)
    return Reply(board_text(state, request.player), table_id=game.pk)


# -- what a request does: the same whether it is served on the loop or on Django's thread ------


def is_protocol_table(game) -> bool:
    return game.kind == Game.Kind.SET and game.is_open and game.state.get("rules") == "declare"


def _table(game) -> TableHead | None:
    return game if game is not None and is_protocol_table(game) else None


def _needs_write(game, request: Request, now: int) -> bool:
    """A /look or /scores is a pure read unless a deadline is due or presence must be marked."""
    if game.status == Game.Status.OVER:
        return False
    if game.deadline_ms is not None and now >= game.deadline_ms:
        return True
    if request.route == "scores":
        return False
    last_seen = game.state.get("last_seen", {}).get(request.player)
    return last_seen is None or now - last_seen >= planning.TOUCH_INTERVAL_MS


def _parse(path: str):
    """The path's table id (None: the default table) and route, or the error reply."""
    try:
        return split_table(path, decoded=True), None
    except ProtocolError as exc:
        return (None, None), error(exc.message)


def _request(game, route: str, table_id: int | None):
    """The addressed table's request, or the error reply (a missing table wins over a bad
    route, and errors about a route name the table)."""
    if game is None:
        return error(NO_TABLE), None
    try:
        return None, parse_route(route, table_id)
    except ProtocolError as exc:
        return error(exc.message, game.pk), None


def counts(game, request: Request, client: str) -> tuple[tuple[str, str], ...]:
    """The rate limits a request counts: a new name is a join of its client, and an action a
    move of its seat (the same count as the seat's moves over the API and the WebSocket)."""
    counted = []
    if request.player not in game.state["players"]:
        counted.append(("joins", client))
    if request.route in ("declare", "pick", "add"):
        seat_id = runtime.cached_seat(game.pk, request.player)
        counted.append(("moves", f"seat:{seat_id}" if seat_id else f"{game.pk}:{request.player}"))
    return tuple(counted)


def work_for(game, request: Request, now: int, client: str) -> services.Work | None:
    """What the request writes (None: it only reads, and `reply(game, request)` answers)."""
    if request.route in ("look", "scores") and not _needs_write(game, request, now):
        return None
    if request.route == "scores":
        return services.tick(game_id=game.pk, now=now)
    return services.protocol_work(
        game_id=game.pk,
        name=request.player,
        action=request.action(),
        now=now,
        limits_=counts(game, request, client),
    )


def refused(exc: GameError, request: Request, table_id: int) -> Reply:
    """A refused request's line: the limit in words (429, this project's rule; see README), a
    ban (403, why and until when), a wrong pick as the spec words it, or the reason."""
    if isinstance(exc, limits.RateLimited):
        return Reply(exc.message + "\n", exc.http_status, table_id)
    if getattr(exc, "until", None) is not None:  # a banned account's name: why and until when
        return Reply(exc.message + "\n", exc.http_status, table_id)
    return error(BAD_PICK if request.route == "pick" else exc.message, table_id)


# -- on Django's thread (the test client, WSGI): Django's connection --------------------------


def resolve(path: str):
    """Find a path's table and request on Django's connection, or the error reply."""
    (table_id, route), problem = _parse(path)
    if problem is not None:
        return problem, None, None
    if table_id is None:
        game = services.default_table()
    else:
        game = selectors.table_head(game_id=table_id) if selectors.is_row_id(table_id) else None
    game = _table(game)
    problem, request = _request(game, route, table_id)
    return problem, game, request


def serve_sync(path: str, now: int | None = None, client: str = "unknown") -> Reply:
    """Serve every route but /watch on Django's thread: a read, or one short transaction."""
    now = services.now_ms() if now is None else now
    problem, game, request = resolve(path)
    return problem if problem is not None else act(game, request, now, client)


def _new_seat(game, request: Request) -> bool:
    """Whether the request seats a new name (then no account may have it, ignoring case)."""
    return request.route != "scores" and request.player not in game.state["players"]


def act(game, request: Request, now: int, client: str = "unknown") -> Reply:
    work = work_for(game, request, now, client)
    if work is None:
        return reply(game, request)
    if _new_seat(game, request) and is_account_name(request.player):
        return error(ACCOUNT_NAME_TAKEN, game.pk)
    try:
        return reply(services.run(work).game, request)
    except GameError as exc:
        return refused(exc, request, game.pk)


def handle(path: str, now: int | None = None) -> HttpResponse:
    """Serve a path synchronously as a Django response (tests and WSGI use this)."""
    return as_http_response(serve_sync(path, now))


# -- on the event loop: the server's way, no thread ----------------------------------------------


async def aresolve(path: str):
    """Find a path's table and request from the loop, or the error reply."""
    (table_id, route), problem = _parse(path)
    if problem is not None:
        return problem, None, None
    if table_id is None:
        game = await services.adefault_table()
    else:
        game = await services.ahead(table_id)
    game = _table(game)
    problem, request = _request(game, route, table_id)
    return problem, game, request


async def aact(game, request: Request, now: int, client: str = "unknown") -> Reply:
    work = work_for(game, request, now, client)
    if work is None:
        return reply(game, request)
    if _new_seat(game, request) and await sync_to_async(is_account_name)(request.player):
        return error(ACCOUNT_NAME_TAKEN, game.pk)
    try:
        return reply((await services.arun(work)).game, request)
    except GameError as exc:
        return refused(exc, request, game.pk)


def _load(game_id: int) -> TableHead:
    return selectors.table_head(game_id=game_id)


# -- asynchronous part: the event loop ------------------------------------------------------


async def serve(path: str, client: str = "unknown") -> Reply:
    """Serve any protocol path; only /watch waits, and it waits without holding a thread."""
    if _is_watch(path):
        return await watch(path, client)
    now = services.now_ms()
    problem, game, request = await aresolve(path)
    return problem if problem is not None else await aact(game, request, now, client)


async def serve_in_django(path: str, client: str = "unknown") -> Reply:
    """Serve a path from a Django view: database work stays on Django's own thread (so the test
    client sees its test transaction); only /watch goes to the game-database threads."""
    if _is_watch(path):
        return await watch(path, client, on=OnDjangoThread)
    return await sync_to_async(serve_sync)(path, services.now_ms(), client)


class OnLoop:
    """A /watch's database steps on the event loop (the server's way): the services' own."""

    resolve = staticmethod(aresolve)
    act = staticmethod(aact)

    @staticmethod
    async def load(game_id: int) -> TableHead:
        return await services.ahead(game_id)

    @staticmethod
    async def run(work: services.Work):
        return await services.arun(work)


class OnDjangoThread:
    """The same steps on Django's thread (a Django view: the test client sees its transaction)."""

    resolve = staticmethod(sync_to_async(resolve))
    act = staticmethod(sync_to_async(act))
    load = staticmethod(sync_to_async(_load))
    run = staticmethod(sync_to_async(services.run))


def _is_watch(path: str) -> bool:
    if path.startswith("/watch"):
        return True
    return path.startswith("/tables/") and "/watch" in path


async def watch(path: str, client: str = "unknown", on=OnLoop) -> Reply:
    """Join if new, then wait for the table's next event (or its deadline, or the timeout).

    `on` runs the database steps: on the event loop (the server), or on Django's thread.
    """
    now = services.now_ms()
    problem, game, request = await on.resolve(path)
    if problem is not None:
        return problem
    if request.route != "watch":
        return await on.act(game, request, now, client)
    table = game.pk
    # Join first, then note the version: every later event reaches the waiter.
    async with Waiter(table) as waiter:
        game = await on.load(table)
        seen = game.version
        look = Request("look", request.player)
        if _needs_write(game, look, now):  # join the watcher if new, mark it present
            if _new_seat(game, look) and await sync_to_async(is_account_name)(look.player):
                return error(ACCOUNT_NAME_TAKEN, table)
            work = services.protocol_work(
                game_id=table,
                name=look.player,
                action=look.action(),
                now=now,
                limits_=counts(game, look, client),
            )
            try:
                game = (await on.run(work)).game
            except GameError as exc:  # over a limit, or a name a browser or a computer holds
                return refused(exc, look, table)
        if game.status != Game.Status.OVER:
            with runtime.watching(table):
                game = await _wait_for_event(waiter, game, seen, request.player, on)
    return reply(game, request)


class Waiter:
    """A /watch's channel on the channel layer, in its table's group while the block runs:
    the changes it hears, in order."""

    def __init__(self, game_id: int) -> None:
        self.layer = get_channel_layer()
        self.group = realtime.group_name(game_id)
        self.channel: str | None = None

    async def __aenter__(self) -> Waiter:
        self.channel = await self.layer.new_channel("watch.")
        await self.layer.group_add(self.group, self.channel)
        # A server that stops answers it at once rather than at the end of its grace.
        await realtime.open_sockets.opened(self.channel)
        return self

    async def __aexit__(self, *exc) -> None:
        realtime.open_sockets.closed(self.channel)
        await self.layer.group_discard(self.group, self.channel)

    async def next(self, timeout: float) -> dict | None:
        """The next change heard, or None when `timeout` seconds pass first."""
        try:
            return await asyncio.wait_for(self.layer.receive(self.channel), max(timeout, 0))
        except TimeoutError:
            return None


def wakes(message: dict, name: str) -> bool:
    """Whether a change wakes the watcher `name`: the game ended, or an event other than its
    own join or presence mark happened."""
    if message.get("over"):
        return True
    moves = message.get("moves")
    if moves is None:  # too many to carry: any event wakes
        return bool(message.get("event"))
    return any(
        event and not (actor == name and action.get("type") in ("join", "look"))
        for actor, action, _at, event in moves
    )


async def _wait_for_event(waiter: Waiter, game: Game, seen: int, name: str, on) -> Game:
    """Sleep until an event newer than `seen` (not this watcher's own join), the game's
    deadline, or the timeout; return the game as it is then."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + watch_timeout_s()
    deadline_ms = game.deadline_ms

    load = on.load

    while True:
        wait = give_up - loop.time()
        if deadline_ms is not None:
            wait = min(wait, max(deadline_ms - services.now_ms(), 0) / 1000 + 0.002)
        message = await waiter.next(wait)
        if message is None:
            if deadline_ms is not None and services.now_ms() >= deadline_ms:
                # Time alone changes the table: apply it under the lock (the first one wins).
                result = await on.run(services.tick(game_id=game.pk))
                deadline_ms = result.game.deadline_ms
                if result.event:
                    return await runtime.load_game(game.pk, result.game.version, load)
                continue
            if loop.time() >= give_up:
                return await load(game.pk)
            continue
        if message.get("type") == realtime.RESTART:  # the server stops: the board now, as at
            return await load(game.pk)  # the timeout; the client's next /watch goes elsewhere
        if message.get("type") == realtime.RESYNC:  # changes may have been lost: read it
            fresh = await load(game.pk)
            if fresh.version > seen:
                return fresh
            continue
        if message.get("type") != "game.changed" or message["version"] <= seen:
            continue  # a chat message or a rematch at the table: not a change of its board
        deadline_ms = message.get("deadline_ms")
        if wakes(message, name):
            head = selectors.head_from_message(message, services.now_ms())
            return head or await runtime.load_game(game.pk, message["version"], load)


# -- the ways in: a lean ASGI app, and Django views --------------------------------------------


_ROUTE = re.compile(r"^/(tables/[^/]*/)?(look|declare|pick|add|watch|scores)(?![^/])")


def route_name(path: str) -> str:
    """A request's route in the metrics (games.metrics): its command, and whether it names a
    table; never the player's name or the table's id. A /watch (a long poll) is timed apart."""
    match = _ROUTE.match(path)
    if match is None:
        return "/(protocol)"  # a path the protocol answers with its unknown-command line
    return ("/tables/<id>/" if match.group(1) else "/") + match.group(2)


class ProtocolApp:
    """Serve the protocol's routes directly; pass everything else to the Django application."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        realtime.attach_loop()  # changes committed on threads are handed to this loop
        if scope["type"] != "http" or not PROTOCOL_PATH.match(scope.get("path", "")):
            return await self.inner(scope, receive, send)
        metrics.name_route(route_name(scope["path"]), "protocol")
        if not allowed_host(scope):
            result = Reply("Bad Host header.\n", 400)
        elif scope["method"] not in ("GET", "HEAD"):
            result = error(UNKNOWN)
        else:
            try:
                result = await serve(scope["path"], limits.client_address(scope))
            except Exception as exc:  # the database or Redis not answering: a 503 line
                outage = unavailable(exc)
                if outage is None:
                    raise
                result = Reply(outage.message + "\n", outage.http_status, retry=outage.retry_after)
        body = result.body.encode()
        headers = [*result.headers(), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": result.status, "headers": headers})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )


def as_http_response(result: Reply) -> HttpResponse:
    response = HttpResponse(
        result.body, status=result.status, content_type="text/plain; charset=utf-8"
    )
    response["Access-Control-Allow-Origin"] = "*"
    if result.table_id is not None:
        response["X-Table-Id"] = str(result.table_id)
    return response


async def dispatch(request, *args, **kwargs):
    """The protocol as a Django view (the test client, WSGI); Django has decoded the path."""
    metrics.name_route(route_name(request.path), "protocol")
    if request.method not in ("GET", "HEAD"):
        return as_http_response(error(UNKNOWN))
    return as_http_response(
        await serve_in_django(request.path, limits.client_address(request.META))
    )
