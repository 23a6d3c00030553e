"""One place that turns errors into responses.

Engines raise their own exception family; each game's rules adapter turns it into the platform's
one `RuleError`, so the platform never knows a game's exceptions. Every `GameError` and every
DRF exception becomes a JSON body ``{"detail": message}`` with a 4xx status, so API clients
always get a message that names what was wrong.

A service the server needs that does not answer (PostgreSQL restarting, Redis down) is no bug:
`unavailable` turns the driver's error into `Unavailable`, a 503 with Retry-After and a sentence,
wherever the request came in (the DRF handler here, `outage_response` for Django's pages and its
500 handler, games.api_fast, the consumers' error frames, the text protocol's line).
"""

from __future__ import annotations

import contextlib
import functools
import logging

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpResponse, JsonResponse
from django.template import loader
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from games import metrics


class GameError(Exception):
    """A request the platform refuses; `http_status` says how."""

    http_status = status.HTTP_400_BAD_REQUEST

    def __init__(self, message: str, *, http_status: int | None = None):
        super().__init__(message)
        if http_status is not None:
            self.http_status = http_status

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.__class__.__name__


class NotFound(GameError):
    http_status = status.HTTP_404_NOT_FOUND


class Forbidden(GameError):
    http_status = status.HTTP_403_FORBIDDEN


class Conflict(GameError):
    http_status = status.HTTP_409_CONFLICT


class RuleError(GameError, ValueError):
    """An action or option the rules refuse (400; 409 for one the game's moment refuses, 403
    for a player who may not); `code` is a short machine-readable reason. Rules adapters raise
    it, and turn their engine's own errors into it."""

    def __init__(self, message: str, code: str = "invalid", *, http_status: int | None = None):
        super().__init__(message, http_status=http_status)
        self.code = code


RETRY_AFTER_S = 2
"""How long a client is asked to wait (Retry-After) when the database or Redis does not answer:
a restart of either takes a few seconds, and the server reconnects by itself."""

log = logging.getLogger(__name__)


class Unavailable(GameError):
    """The database or Redis does not answer: nothing was refused, try again soon (503)."""

    http_status = status.HTTP_503_SERVICE_UNAVAILABLE
    code = "unavailable"

    def __init__(self, what: str):
        super().__init__(
            f"The server cannot reach {what} just now; try again in {RETRY_AFTER_S} seconds."
        )
        self.retry_after = RETRY_AFTER_S


@functools.cache
def _outages() -> tuple[tuple[tuple[type, ...], str, str], ...]:
    """The errors that say a service is not answering, what it is in words, and its name in
    the metrics. A query the database refuses (an IntegrityError, a ProgrammingError) is no
    outage."""
    from django.db import InterfaceError, OperationalError

    database: list[type] = [OperationalError, InterfaceError]  # Django's, on any database
    with contextlib.suppress(ImportError):
        import psycopg  # the event loop's connections (games.store.postgres), unwrapped

        database.append(psycopg.OperationalError)  # psycopg_pool's PoolTimeout is one too
    found = [(tuple(database), "its database", "database")]
    with contextlib.suppress(ImportError):
        from redis.exceptions import ConnectionError, TimeoutError

        found.append(((ConnectionError, TimeoutError), "Redis", "redis"))
    return tuple(found)


def unavailable(exc: BaseException | None) -> Unavailable | None:
    """The 503 for an error that says the database or Redis does not answer (logged as a
    warning, one line: an outage is no bug), or None for any other error."""
    if exc is None or isinstance(exc, GameError):
        return exc if isinstance(exc, Unavailable) else None
    for errors, what, dependency in _outages():
        if isinstance(exc, errors):
            log.warning("%s is not answering (%s: %s)", what, type(exc).__name__, exc)
            metrics.OUTAGES.labels(dependency).inc()
            return Unavailable(what)
    return None


def flatten_detail(detail) -> str:
    """Turn DRF's nested validation detail into one readable line."""
    if isinstance(detail, dict):
        parts = []
        for key, value in detail.items():
            text = flatten_detail(value)
            parts.append(text if key in ("non_field_errors", "detail") else f"{key}: {text}")
        return "; ".join(parts)
    if isinstance(detail, list):
        return "; ".join(flatten_detail(item) for item in detail)
    return str(detail)


def game_error_answer(exc: GameError) -> tuple[int, dict, dict[str, str]]:
    """A refused request's status, JSON body (``{"detail"}``, and ``"code"`` for a refusal of
    the rules) and headers (Retry-After for a rate limit)."""
    retry = getattr(exc, "retry_after", None)
    body = {"detail": exc.message}
    if isinstance(exc, RuleError):  # the rules' short reason, as a socket's error frame has it
        body["code"] = exc.code
    until = getattr(exc, "until", None)
    if until is not None:  # a mute or a ban (games.moderation.Sanctioned), a wait's end
        # (games.manners.RatedWait): until when, ISO 8601
        body["until"] = (
            until if isinstance(until, str) else until.isoformat().replace("+00:00", "Z")
        )
    return exc.http_status, body, ({"Retry-After": str(retry)} if retry else {})


def api_exception_handler(exc, context):
    """Map every known error to a 4xx JSON body with one `detail` message (a 503 for a service
    that does not answer)."""
    exc = unavailable(exc) or exc
    if isinstance(exc, GameError):
        status_code, body, headers = game_error_answer(exc)
        return Response(body, status=status_code, headers=headers)
    if isinstance(exc, ObjectDoesNotExist | Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    if isinstance(exc, exceptions.UnsupportedMediaType):
        exc = unsupported_media_type(context)
    response = exception_handler(exc, context)
    if response is not None:
        detail = flatten_detail(response.data)
        response.data = {"detail": detail}
        if isinstance(exc, exceptions.ValidationError):
            errors = exc.detail
            response.data["errors"] = (
                errors if isinstance(errors, dict) else {"non_field_errors": errors}
            )
    return response


def unsupported_media_type(context) -> exceptions.UnsupportedMediaType:
    """Name the content type that was sent and the one to send instead."""
    request = context.get("request")
    sent = (getattr(request, "content_type", "") or "").split(";")[0].strip()
    what = f"a {sent} body" if sent else "a body without a Content-Type"
    return exceptions.UnsupportedMediaType(
        sent, detail=f"The API reads JSON, not {what}: send 'Content-Type: application/json'."
    )


def outage_response(request, outage: Unavailable):
    """A Django request's answer to an outage: the API's JSON body, or the site's page (503,
    Retry-After either way). Drawn without the database or the cache, which may be what failed."""
    headers = {"Retry-After": str(outage.retry_after)}
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": outage.message}, status=503, headers=headers)
    page = loader.get_template("503.html").render({"message": outage.message})
    return HttpResponse(page, status=503, headers=headers)
