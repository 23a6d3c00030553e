"""The API's busiest request, answered in front of Django: a seat's move with its token.

``POST /api/games/<id>/moves`` with ``Authorization: Token <token>`` and a JSON object body is
what bots send over and over. Through Django it passes the middleware, DRF's request, content
negotiation and renderer, and it waits its turn on Django's one sync thread behind every other
view (config/asgi.py); measured under load (bench/bench_load.py) that queue, not the move, was
most of its latency. Here the same steps run on the game-database threads (games.runtime), as
the WebSocket's moves do, with the view's own parts: the token's seat
(`selectors.seat_by_token`), the action's serializer, `services.seat_move` (rate limit, then the
move), the reply (`selectors.move_reply`), the error answer (`errors.game_error_answer`), and
Django's security middleware for the HTTPS redirect and the response headers.

Only the plain case is taken: one token of a seat at this very game, a UTF-8 JSON body that the
view's serializer accepts, and a request Django's security middleware would not redirect.
Anything else goes on to Django unchanged, body included, and gets the view's own answer;
nothing is written or counted before that decision.
"""

from __future__ import annotations

import io
import json
import re

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware

from games import runtime, selectors, services
from games import serializers as s
from games.errors import GameError, game_error_answer
from games.protocol import allowed_host

MOVES_PATH = re.compile(r"^/api/games/([0-9]{1,18})/moves$")
MAX_BODY_BYTES = 64 * 1024  # larger bodies go to Django, which sets its own limits
_UTF8 = (b"charset=utf-8", b'charset="utf-8"')


class FastMovesApp:
    """ASGI middleware: take the plain token move, pass everything else to `inner`."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        match = None
        if scope["type"] == "http" and scope["method"] == "POST":
            match = MOVES_PATH.match(scope["path"])
        token = _token(scope) if match else None
        if token is None or not allowed_host(scope):
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
                answer = await runtime.run_db(submit, int(match.group(1)), token, body)
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


def _no_view(request):  # the middleware here only checks requests and dresses responses
    raise AssertionError("not called")


def submit(game_id: int, token: str, body: bytes) -> tuple[int, dict, dict] | None:
    """Apply the move and return (status, JSON body, extra headers), or None for Django."""
    try:
        action = json.loads(body)
    except (ValueError, RecursionError):
        return None
    checked = s.ActionRequest(data=action)
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


def _token(scope) -> str | None:
    """The token of a request with one Authorization and one UTF-8 JSON Content-Type."""
    content_types, auths = [], []
    for key, value in scope.get("headers", ()):
        if key == b"authorization":
            auths.append(value)
        elif key == b"content-type":
            content_types.append(value)
    if len(auths) != 1 or len(content_types) != 1:
        return None
    auth = auths[0]
    media, *params = (part.strip().lower() for part in content_types[0].split(b";"))
    if media != b"application/json" or any(p not in _UTF8 for p in params):
        return None
    parts = auth.split()
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
