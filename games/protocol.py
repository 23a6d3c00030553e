"""The plain-text protocol of the original Set server (specs/set-table-protocol.md).

Routes: /look/P, /declare/P, /pick/P/R,C, /add/P, /scores, /watch/P on the default table, and the
same under /tables/<id>/. Replies are text/plain, byte for byte as the spec; errors are 404 with
the spec's one-line messages. Every reply about a table carries X-Table-Id.

/watch is a real long poll: it subscribes to the table's channel group and sleeps until an event
arrives, the table's next deadline passes (then it applies the timeout itself, under the lock), or
30 s go by. Nothing busy-waits; with REDIS_URL set the wake-ups cross processes.
"""

from __future__ import annotations

import asyncio

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.http import HttpResponse

from cards.engine.errors import SetError
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
from games import services
from games.models import Game


def watch_timeout_s() -> float:
    return float(getattr(settings, "SET_WATCH_TIMEOUT_S", 30.0))


def text_response(body: str, *, status: int = 200, table_id: int | None = None) -> HttpResponse:
    response = HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")
    response["Access-Control-Allow-Origin"] = "*"
    if table_id is not None:
        response["X-Table-Id"] = str(table_id)
    return response


def error_response(message: str, table_id: int | None = None) -> HttpResponse:
    return text_response(message + "\n", status=404, table_id=table_id)


def reply(game: Game, request: Request) -> HttpResponse:
    if request.reply == "SCORES":
        return text_response(scores_text(game.state), table_id=game.pk)
    return text_response(board_text(game.state, request.player), table_id=game.pk)


def is_protocol_table(game: Game) -> bool:
    return game.kind == Game.Kind.SET and game.is_open and game.state.get("rules") == "declare"


def resolve_table(table_id: int | None) -> Game | None:
    """The addressed table: the default one for bare routes, else an open declare table."""
    if table_id is None:
        return services.default_table()
    game = Game.objects.filter(pk=table_id).first()
    if game is None or not is_protocol_table(game):
        return None
    return game


def parse(path: str) -> tuple[Game | None, Request | None, HttpResponse | None]:
    """Find the table and the request of a path, or the error reply (a missing table wins)."""
    try:
        table_id, route = split_table(path, decoded=True)
    except ProtocolError as exc:
        return None, None, error_response(exc.message)
    game = resolve_table(table_id)
    if game is None:
        return None, None, error_response(NO_TABLE)
    try:
        return game, parse_route(route, table_id), None
    except ProtocolError as exc:
        return game, None, error_response(exc.message, game.pk)


def _needs_write(game: Game, request: Request, now: int) -> bool:
    """A /look or /scores is a pure read unless a deadline is due or presence must be marked."""
    if game.status == Game.Status.OVER:
        return False
    if game.deadline_ms is not None and now >= game.deadline_ms:
        return True
    if request.route == "scores":
        return False
    last_seen = game.state.get("last_seen", {}).get(request.player)
    return last_seen is None or now - last_seen >= services.TOUCH_INTERVAL_MS


def handle(path: str, now: int | None = None) -> HttpResponse:
    """Serve every route but /watch: a read, or one short transaction."""
    now = services.now_ms() if now is None else now
    game, request, error = parse(path)
    if error is not None:
        return error
    return act(game, request, now)


def act(game: Game, request: Request, now: int) -> HttpResponse:
    if request.route in ("look", "scores") and not _needs_write(game, request, now):
        return reply(game, request)
    if request.route == "scores":
        return reply(services.game_tick(game_id=game.pk, now=now).game, request)
    try:
        result = services.protocol_act(
            game_id=game.pk, name=request.player, action=request.action(), now=now
        )
    except (SetError, services.GameError) as exc:
        message = BAD_PICK if request.route == "pick" else str(exc)
        return error_response(message, game.pk)
    return reply(result.game, request)


async def watch(game: Game, request: Request) -> HttpResponse:
    """Join if new, then wait for the table's next event (or its deadline, or 30 s)."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = services.group_name(game.pk)
    # Subscribe before joining, so no event after our own join can slip past us.
    await layer.group_add(group, channel)
    try:
        result = await sync_to_async(services.protocol_act)(
            game_id=game.pk, name=request.player, action={"type": "look"}
        )
        game = result.game
        if game.status != Game.Status.OVER:
            game = await wait_for_event(layer, channel, game)
    finally:
        await layer.group_discard(group, channel)
    return reply(game, request)


async def wait_for_event(layer, channel: str, game: Game) -> Game:
    """Sleep until an event newer than `game.version`, the game's deadline, or the timeout."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + watch_timeout_s()
    seen = game.version
    deadline_ms = game.deadline_ms
    while True:
        wait = give_up - loop.time()
        if deadline_ms is not None:
            wait = min(wait, max(deadline_ms - services.now_ms(), 0) / 1000 + 0.002)
        try:
            message = await asyncio.wait_for(layer.receive(channel), timeout=max(wait, 0))
        except TimeoutError:
            if deadline_ms is not None and services.now_ms() >= deadline_ms:
                # Time alone changes the table: apply it under the lock (first watcher wins).
                result = await sync_to_async(services.game_tick)(game_id=game.pk)
                deadline_ms = result.game.deadline_ms
                if result.event:
                    return result.game
                continue
            if loop.time() >= give_up:
                break
            continue
        if message.get("version", 0) <= seen:
            continue
        seen = message["version"]
        deadline_ms = message.get("deadline_ms")
        if message.get("event") or message.get("over"):
            break
    return await sync_to_async(Game.objects.get)(pk=game.pk)


async def dispatch(request, *args, **kwargs):
    """Entry point for every protocol route; Django has already percent-decoded the path."""
    game, parsed, error = await sync_to_async(parse)(request.path)
    if error is not None:
        return error
    if parsed.route == "watch":
        return await watch(game, parsed)
    return await sync_to_async(act)(game, parsed, services.now_ms())


def unknown(request, *args, **kwargs):
    return error_response(UNKNOWN)
