"""The API's busiest requests, answered in front of Django: a seat's move with its token, and
a bot's create and join.

``POST /api/games/<id>/moves`` with ``Authorization: Token <token>`` and a JSON object body is
what bots send over and over; ``POST /api/games/`` and ``POST /api/games/<id>/join`` start each
of their games. Through Django they pass the middleware, DRF's request, content negotiation and
renderer (about 2 ms a request here before the view's own work), and they wait their turn on
Django's one sync thread behind every other view (config/asgi.py); measured under load
(bench/bench_load.py) that queue, not the work, was most of their latency (joins waited about
2 s). Here the same steps run on the game-database threads (games.runtime), as the WebSocket's
moves do, with the views' own parts: the token's seat (`selectors.seat_by_token`), the views'
serializers, `services.seat_move` (rate limit, then the move) and the reply
(`selectors.move_reply`), `api.create_game` and `api.join_game` (the views' whole bodies), the
error answer (`errors.game_error_answer`), and Django's security middleware for the HTTPS
redirect and the response headers.

Creates and joins are taken only where the game-database threads are several (PostgreSQL:
see `joins_in_front`). Only the plain case is taken: a UTF-8 JSON body that the view's
serializer accepts, a request Django's security middleware would not redirect, and for a move
one token of a seat at this very game, for a create or a join no Authorization and no Cookie (a
browser's session is Django's to read). Anything else goes on to Django unchanged, body
included, and gets the view's own answer; nothing is written or counted before that decision.
"""

from __future__ import annotations

import io
import json
import re

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware

from cards.engine.errors import SetError
from games import api, runtime, selectors, services
from games import serializers as s
from games.errors import GameError, game_error_answer
from games.protocol import allowed_host

MOVES_PATH = re.compile(r"^/api/games/([0-9]{1,18})/moves$")
JOIN_PATH = re.compile(r"^/api/games/([0-9]{1,18})/join$")
CREATE_PATH = "/api/games/"
MAX_BODY_BYTES = 64 * 1024  # larger bodies go to Django, which sets its own limits
_UTF8 = (b"charset=utf-8", b'charset="utf-8"')


class FastApiApp:
    """ASGI middleware: take the plain move, create and join; pass everything else to `inner`."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        route = _route(scope) if scope["type"] == "http" and scope["method"] == "POST" else None
        if route is None or not allowed_host(scope):
            return await self.inner(scope, receive, send)
        body, more = await _read_body(receive)
        if body is None:
            return  # the client went away
        answer = request = None
        # Django's own security middleware (made per request: it reads the settings when made).
        security = SecurityMiddleware(_no_view)
        if not more and len(body) <= MAX_BODY_BYTES:
            request = ASGIRequest(scope, io.BytesIO(body))
            if security.process_request(request) is None:  # None: no HTTPS redirect due
                answer = await runtime.run_db(*route, request, body)
        if answer is None:
            return await self.inner(scope, _replay(body, more, receive), send)
        status, data, headers = answer
        content = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        response = HttpResponse(content, status=status, content_type="application/json")
        response["Vary"] = "Accept"
        for name, value in headers.items():
            response[name] = value
        XFrameOptionsMiddleware(_no_view).process_response(
            request, security.process_response(request, response)
        )
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    *((k.encode("latin-1"), v.encode("latin-1")) for k, v in response.items()),
                    (b"content-length", str(len(response.content)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": response.content})


def _route(scope) -> tuple | None:
    """What answers this request in front of Django (a function and its first arguments), or
    None for Django."""
    auth, content_type, cookie = _headers(scope)
    if content_type is None:
        return None
    path = scope["path"]
    match = MOVES_PATH.match(path)
    if match:
        token = _token(auth)
        return (submit, int(match.group(1)), token) if token else None
    if auth is not None or cookie or not joins_in_front():
        return None
    if path == CREATE_PATH:
        return (create,)
    match = JOIN_PATH.match(path)
    return (join, int(match.group(1))) if match else None


def joins_in_front() -> bool:
    """Whether creates and joins are taken here: with several game-database threads
    (PostgreSQL), not with SQLite's one, where a burst of joins (every table's game ending at
    once) would queue the moves behind it (move p99 307 -> 731 ms, bench/bench_load.py); there
    they run on Django's thread beside the moves."""
    return runtime.db_threads() > 1


def _no_view(request):  # the middleware here only checks requests and dresses responses
    raise AssertionError("not called")


def _json(body: bytes):
    """The body as DRF's strict parser reads it; None (Django's to answer) where it would not."""
    try:
        return json.loads(body, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return None


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: DRF's STRICT_JSON refuses them


def submit(game_id: int, token: str, request, body: bytes) -> tuple[int, dict, dict] | None:
    """Apply the move and return (status, JSON body, extra headers), or None for Django."""
    checked = s.ActionRequest(data=_json(body))
    if not checked.is_valid():
        return None
    seat = selectors.seat_by_token(token)
    if seat is None or seat.game_id != game_id:
        return None
    now = services.now_ms()
    try:
        result = services.seat_move(
            game_id=game_id, seat=seat, action=checked.validated_data, now=now
        )
    except GameError as exc:
        return game_error_answer(exc)
    return 200, selectors.move_reply(result, seat_name=seat.name, now=now), {}


def create(request, body: bytes) -> tuple[int, dict, dict] | None:
    """Create a game as the view does (api.create_game), or None for Django."""
    data = _json(body)
    if not s.GameCreateRequest(data=data).is_valid():
        return None
    return _answer(201, api.create_game, request, data)


def join(game_id: int, request, body: bytes) -> tuple[int, dict, dict] | None:
    """Join a game as the view does (api.join_game), or None for Django."""
    data = _json(body)
    if not s.JoinRequest(data=data).is_valid():
        return None
    return _answer(201, api.join_game, request, game_id, data, _no_session)


def _no_session(request) -> None:
    return None  # a request with no Cookie has no session's player


def _answer(status: int, view_body, *args) -> tuple[int, dict, dict]:
    try:
        return status, view_body(*args), {}
    except GameError as exc:
        return game_error_answer(exc)
    except SetError as exc:  # as the view's exception handler answers it
        return 400, {"detail": str(exc)}, {}


def _headers(scope) -> tuple[bytes | None, bytes | None, bool]:
    """The request's one Authorization (or None), its one UTF-8 JSON Content-Type (or None:
    anything else is Django's) and whether it sends cookies."""
    content_types, auths, cookie = [], [], False
    for key, value in scope.get("headers", ()):
        if key == b"authorization":
            auths.append(value)
        elif key == b"content-type":
            content_types.append(value)
        elif key == b"cookie":
            cookie = True
    if len(auths) > 1 or len(content_types) != 1:
        return None, None, cookie
    media, *params = (part.strip().lower() for part in content_types[0].split(b";"))
    if media != b"application/json" or any(p not in _UTF8 for p in params):
        return None, None, cookie
    return (auths[0] if auths else None), content_types[0], cookie


def _token(auth: bytes | None) -> str | None:
    """The token of an ``Authorization: Token <token>`` header."""
    parts = auth.split() if auth else []
    if len(parts) != 2 or parts[0].lower() != b"token":
        return None
    try:
        return parts[1].decode("ascii")
    except UnicodeDecodeError:
        return None


async def _read_body(receive) -> tuple[bytes | None, bool]:
    """The body read so far and whether more is to come (reading stops past the limit); None
    when the client disconnected."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None, False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = message.get("more_body", False)
        if not more or size > MAX_BODY_BYTES:
            return b"".join(chunks), more


def _replay(body: bytes, more: bool, receive):
    """A `receive` that hands Django the body read so far, then the rest of the request."""
    sent = False

    async def again():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return again
