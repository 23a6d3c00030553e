"""The API's busiest requests, answered in front of Django: a seat's move with its token, and
a bot's create and join.

``POST /api/games/<id>/moves`` with ``Authorization: Token <token>`` (a seat's) or ``Bearer
<token>`` (an account's, as bot accounts play) and a JSON object body is what bots send over and
over; ``POST /api/games/`` and ``POST /api/games/<id>/join`` start each of their games. Through
Django they pass the middleware, DRF's request, content negotiation and renderer (about 2 ms a
request here before the view's own work), and they wait their turn on Django's one sync thread
behind every other view (config/asgi.py). Here they are served on the event loop, with the
views' own parts: the views' serializers, the same services (`services.move`, `join`, `create`,
run by `services.arun`: the same checks in the same order, the same commit), the same answers
(`api.created_answer`, `api.join_answer`, `selectors.move_reply`, `errors.game_error_answer`),
and the headers of Django's security and clickjacking middleware.

Only the plain case is taken: a UTF-8 JSON body that the view's serializer accepts, a request
Django's security middleware would not redirect, and for a move one token of a seat at this
very game or one account token of an account seated at it (found as the view finds it,
games.auth.bearer_seat), for a create or a join no Authorization and no Cookie (a browser's
session is Django's to read). Anything else goes on to Django unchanged, body included, and gets
the view's own answer; nothing is written or counted before that decision (but the account
token's "last used", which the view notes too).
"""

from __future__ import annotations

import io
import json
import re
from urllib.parse import parse_qs

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware

from games import limits, manners, metrics, runtime, selectors, services, store
from games import serializers as s
from games.api import created_answer, join_answer
from games.auth import BEARER_KEYWORD, KEY_PARAMETER, acheck_guest_name, bearer_seat, token_of
from games.errors import GameError, game_error_answer, unavailable
from games.middleware import allowed_host
from games.names import is_plain_name

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
        answer = dressing = None
        if not more and len(body) <= MAX_BODY_BYTES:
            dressing = _dressing(scope)
            if dressing is not None:  # None: Django redirects it to HTTPS
                try:
                    answer = await route[0](*route[1:], scope, body)
                except Exception as exc:  # the database or Redis not answering: a 503
                    outage = unavailable(exc)
                    if outage is None:
                        raise
                    answer = game_error_answer(outage)
        if answer is None:
            return await self.inner(scope, _replay(body, more, receive), send)
        metrics.name_route(_route_name(scope["path"]))
        status, data, extra = answer
        content = runtime.json_bytes(data)
        headers = [
            (b"content-type", b"application/json"),
            (b"vary", b"Accept"),
            *(
                (name.lower().encode("latin-1"), value.encode("latin-1"))
                for name, value in extra.items()
            ),
            *dressing,
            (b"content-length", str(len(content)).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})


def _route(scope) -> tuple | None:
    """What answers this request in front of Django (a function and its first arguments), or
    None for Django."""
    auth, content_type, cookie = _headers(scope)
    if content_type is None:
        return None
    path = scope["path"]
    match = MOVES_PATH.match(path)
    if match:
        if token := token_of(auth):
            return (submit, int(match.group(1)), token)
        token = token_of(auth, BEARER_KEYWORD)  # a bot's account token
        return (submit_as_account, int(match.group(1)), token) if token else None
    if auth is not None or cookie:
        return None
    if path == CREATE_PATH:
        return (create,)
    match = JOIN_PATH.match(path)
    return (join, int(match.group(1))) if match else None


# The settings Django's security and clickjacking middleware read.
_DRESSING_SETTINGS = (
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "SECURE_SSL_REDIRECT",
    "SECURE_SSL_HOST",
    "SECURE_REDIRECT_EXEMPT",
    "SECURE_REFERRER_POLICY",
    "SECURE_CROSS_ORIGIN_OPENER_POLICY",
    "X_FRAME_OPTIONS",
)
_made: list | None = None  # the headers, when they depend on no request


@receiver(setting_changed)
def _forget_dressing(*, setting, **kwargs) -> None:
    global _made
    if setting in _DRESSING_SETTINGS:
        _made = None


def _dressing(scope) -> list[tuple[bytes, bytes]] | None:
    """The headers Django's security and clickjacking middleware add to an answer, by those
    middleware themselves; None when they would redirect the request to HTTPS instead. They
    depend on the request only for HTTPS (a redirect, HSTS); otherwise they are made once (and
    again when a test changes a setting of theirs)."""
    global _made
    per_request = settings.SECURE_SSL_REDIRECT or settings.SECURE_HSTS_SECONDS
    if not per_request and _made is not None:
        return _made
    request = ASGIRequest(scope, io.BytesIO(b""))
    security = SecurityMiddleware(_no_view)
    if security.process_request(request) is not None:
        return None
    response = XFrameOptionsMiddleware(_no_view).process_response(
        request, security.process_response(request, HttpResponse())
    )
    dressing = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in response.items()
        if name.lower() != "content-type"
    ]
    if not per_request:
        _made = dressing
    return dressing


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


def _action(data) -> dict | None:
    """What ActionRequest validates (None: it refuses the body; the view answers then). A body
    it plainly accepts, an object with a text "type", is taken without making the serializer
    (a tenth of a move's time)."""
    kind = data.get("type") if isinstance(data, dict) else None
    if isinstance(kind, str) and kind.strip() and not _REFUSED_TEXT.search(kind):
        return dict(data)
    checked = s.ActionRequest(data=data)
    return checked.validated_data if checked.is_valid() else None


# What DRF's CharField refuses in any text: NUL and surrogates.
_REFUSED_TEXT = re.compile("[\x00\ud800-\udfff]")


def _name(data) -> str | None:
    """The name JoinRequest validates (None: it refuses the body), plainly valid ones taken
    without making the serializer."""
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(name, str) and is_plain_name(name):
        return name
    checked = s.JoinRequest(data=data)
    return checked.validated_data["name"] if checked.is_valid() else None


async def submit(game_id: int, token: str, scope, body: bytes) -> tuple | None:
    """Apply the move as the view does (api.MovesView.post), or None for Django: the seat by
    its token, the action's shape, then the services (the seat's limit, then the rules)."""
    action = _action(_json(body))
    if action is None:
        return None
    seat = await store.aseat_by_token(token)
    if seat is None or seat.game_id != game_id:
        return None  # the view answers 401 or 403
    now = services.now_ms()
    try:
        work = services.move(game_id=game_id, seat=seat, action=action, now=now)
    except GameError as exc:
        return game_error_answer(exc)
    return await _move(seat, work, now)


async def submit_as_account(game_id: int, token: str, scope, body: bytes) -> tuple | None:
    """The same move with an account's token (``Authorization: Bearer``, as bots send it), or
    None for Django: the account's seat at this game as the view finds it, with its ban
    (games.auth.bearer_seat), and the move's limits, in one trip to a thread; then as
    `submit`."""
    action = _action(_json(body))
    if action is None:
        return None
    now = services.now_ms()
    try:
        found = await runtime.run_db(_account_move, token, game_id, action, now)
    except GameError as exc:
        return game_error_answer(exc)
    if found is None:
        return None  # the view answers 401, 403 or 404
    seat, work = found
    return await _move(seat, work, now)


def _account_move(token: str, game_id: int, action: dict, now: int) -> tuple | None:
    """On a thread: the account's seat (None: not one that may move here) and its move, gated
    (its ban was read with its seat, its limits are counted here)."""
    seat = bearer_seat(token, game_id)
    if seat is None:
        return None
    work = services.move(game_id=game_id, seat=seat, action=action, now=now, ban_read=True)
    return seat, work.gated()


async def _move(seat, work: services.Work, now: int) -> tuple:
    try:
        result = await services.arun(work)
    except GameError as exc:
        return game_error_answer(exc)
    return 200, selectors.move_reply(result, seat_name=seat.name, now=now), {}


async def create(scope, body: bytes) -> tuple | None:
    """Create a game as the view does (api.create_game), or None for Django."""
    checked = s.GameCreateRequest(data=_json(body))
    if not checked.is_valid():
        return None
    data = checked.validated_data
    if "ghost" in data["options"]:
        return None  # a ghost race reads the game it races, as its requester may see it
    if data["open"] and manners.public_tables_per_hour():
        return None  # a public table counts against its maker's tables an hour (games.manners)
    try:
        made = await services.arun(
            services.create(
                kind=data["kind"],
                options=data["options"],
                seed=data.get("seed"),
                is_open=data["open"],
                rated=data["rated"],
                client=limits.client_address(scope),
            )
        )
    except GameError as exc:
        return game_error_answer(exc)
    return 201, created_answer(made, rated=data["rated"]), {}


async def join(game_id: int, scope, body: bytes) -> tuple | None:
    """Join a game as the view does (api.join_game), or None for Django."""
    name = _name(_json(body))
    if name is None:
        return None
    try:
        await acheck_guest_name(name)  # no Authorization, no cookie: a guest (as api.join_game)
        written = await services.arun(
            services.join(
                game_id=game_id, name=name, client=limits.client_address(scope), key=_key(scope)
            )
        )
    except GameError as exc:
        return game_error_answer(exc)
    new = written.change.new_seat
    # The new seat's socket comes next, most often to this process.
    store.remember_seat(services.seat_ref(game_id, new))
    # A guest joined: which seats bots play is read only when an account sits there.
    bots = None
    if any(seat.account and not seat.is_computer for seat in written.seats):
        bots = await runtime.run_db(selectors.bot_seat_numbers, game_id)
    return 201, join_answer(written, bots=bots), {}


def _route_name(path: str) -> str:
    """The route in the metrics of a request answered here: the URL pattern of the view that
    would answer it (Django's, from a path of each of the three)."""
    if MOVES_PATH.match(path):
        return metrics.route_of("/api/games/0/moves")
    return metrics.route_of(CREATE_PATH if path == CREATE_PATH else "/api/games/0/join")


def _key(scope) -> str | None:
    """A private game's key from the query string (``?key=``: its link), as Django reads it."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return (query.get(KEY_PARAMETER) or [None])[-1]


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
