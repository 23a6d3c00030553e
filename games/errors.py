"""One place that turns errors into responses.

Engines raise their own exception family; each game's rules adapter turns it into the platform's
one `RuleError`, so the platform never knows a game's exceptions. Every `GameError` and every
DRF exception becomes a JSON body ``{"detail": message}`` with a 4xx status, so API clients
always get a message that names what was wrong.
"""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


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
    """An action or option the rules refuse (400); `code` is a short machine-readable reason.
    Rules adapters raise it, and turn their engine's own errors into it."""

    def __init__(self, message: str, code: str = "invalid"):
        super().__init__(message)
        self.code = code


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
    """A refused request's status, JSON body and headers (Retry-After for a rate limit)."""
    retry = getattr(exc, "retry_after", None)
    return exc.http_status, {"detail": exc.message}, ({"Retry-After": str(retry)} if retry else {})


def api_exception_handler(exc, context):
    """Map every known error to a 4xx JSON body with one `detail` message."""
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
