"""The API's busiest request, answered in front of Django: a seat's move with its token.

``POST /api/games/<id>/moves`` with ``Authorization: Token <token>`` and a JSON object body is
what bots send over and over. Through Django it passes the middleware, DRF's request, content
negotiation and renderer, and it waits its turn on Django's one sync thread behind every other
view (config/asgi.py); measured under load (bench/bench_load.py) that queue, not the move, was
most of its latency. Here the same steps run on the game-database threads (games.runtime), as
the WebSocket's moves do: the token's seat, the rate limit, `services.move_submit`, and the same
JSON reply the view gives (`MovesView.post`).

Only the plain case is taken: a token of a seat at this very game and a body that is a JSON
object with a non-blank string "type". Anything else (no token, a session, a foreign token, a
malformed or non-JSON body, a bad Host) goes on to Django unchanged, body included, and gets the
view's own answer; nothing is written before that decision.
"""

from __future__ import annotations

import json
import re

from games import limits, runtime, selectors, services
from games.errors import GameError
from games.protocol import allowed_host

MOVES_PATH = re.compile(r"^/api/games/([0-9]{1,18})/moves$")
MAX_BODY_BYTES = 64 * 1024  # larger bodies go to Django, which sets its own limits


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
        answer = None
        if not more and len(body) <= MAX_BODY_BYTES:
            answer = await runtime.run_db(submit, int(match.group(1)), token, body)
        if answer is None:
            return await self.inner(scope, _replay(body, more, receive), send)
        status, data, headers = answer
        content = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        content = content.encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(content)).encode()),
                    (b"vary", b"Accept"),
                    *headers,
                ],
            }
        )
        await send({"type": "http.response.body", "body": content})


def submit(game_id: int, token: str, body: bytes) -> tuple[int, dict, list] | None:
    """Apply the move and return (status, JSON body, extra headers), or None for Django."""
    try:
        action = json.loads(body)
    except (ValueError, RecursionError):
        return None
    kind = action.get("type") if isinstance(action, dict) else None
    if not isinstance(kind, str) or not kind.strip():
        return None
    seat = selectors.seat_by_token(token)
    if seat is None or seat.game_id != game_id:
        return None
    now = services.now_ms()
    try:
        limits.check("moves", f"seat:{seat.pk}")
        result = services.move_submit(game_id=game_id, seat=seat, action=action, now=now)
    except GameError as exc:  # the view's answer (games.errors.api_exception_handler)
        retry = getattr(exc, "retry_after", None)
        headers = [(b"retry-after", str(retry).encode())] if retry else []
        return exc.http_status, {"detail": exc.message}, headers
    view = selectors.game_view(result.game, seat_name=seat.name, now=now)
    data = {
        "outcome": result.outcome,
        "event": result.event,
        "version": result.game.version,
        "view": view,
    }
    return 200, data, []


def _token(scope) -> str | None:
    content_type = auth = None
    for key, value in scope.get("headers", ()):
        if key == b"authorization":
            auth = value
        elif key == b"content-type":
            content_type = value
    if auth is None or content_type is None:
        return None
    if content_type.split(b";")[0].strip().lower() != b"application/json":
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
