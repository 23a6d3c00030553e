"""Per-client rate limits on joins and moves, the same for every way in.

Three scopes, each set in settings (from the environment) as "N/s", "N/min", "N/hour" (or a
period of several units, "N/10s"), or "off":

- ``joins`` (RATE_LIMIT_JOINS, default 60/min): creating or joining a game, and a new name at a
  plain-text table; counted per client address (the ASGI scope's client, so run daphne with
  ``--proxy-headers`` behind a proxy).
- ``moves`` (RATE_LIMIT_MOVES, default 20/s): actions through the JSON API, the WebSocket and
  the plain-text protocol; counted per seat (a table's player name for the text protocol).
  Computer players are not limited.
- ``chat`` (RATE_LIMIT_CHAT, default 10/10s): chat messages at a game or in the lobby, through
  the JSON API or the WebSocket; counted per player.
- ``logins`` (RATE_LIMIT_LOGINS, default 30/5min) per client address and ``account_logins``
  (RATE_LIMIT_ACCOUNT_LOGINS, default 5/5min) per account: failed logins, whichever way in
  (the accounts app counts them with `count` and refuses with `check_open`, correct passwords
  too, while one is used up).
- ``signups`` (RATE_LIMIT_SIGNUPS, default 20/hour): new accounts asked for, by the form or the
  API, per client address.
- ``challenges`` (RATE_LIMIT_CHALLENGES, default 20/min): challenges an account sends to
  another (accounts.challenges), per account.
- ``reports`` (RATE_LIMIT_REPORTS, default 20/hour): reports an account files
  (games.moderation), per account.

Counts live in Django's cache (Redis when REDIS_URL is set, so every process shares them) in
fixed windows: at most N requests per window of the period; the next window starts afresh. A
refused request raises `RateLimited` before anything is written, so it never changes a game.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from rest_framework import status

from games import metrics
from games.errors import GameError

PERIODS = {"s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60, "h": 3600, "hour": 3600}
WORDS = {1: "second", 60: "minute", 3600: "hour"}
SCOPE_WORDS = {
    "joins": "joins",
    "moves": "moves",
    "chat": "chat messages",
    "logins": "failed logins from this address",
    "account_logins": "failed logins for this account",
    "signups": "sign-ups from this address",
    "challenges": "challenges from this account",
    "reports": "reports from this account",
}
_PERIOD = re.compile(r"^(\d*)\s*([a-z]+)$")


@dataclass(frozen=True)
class Rate:
    count: int
    period: int

    def __str__(self) -> str:
        if self.period in WORDS:
            return f"{self.count} per {WORDS[self.period]}"
        for seconds, word in ((3600, "hours"), (60, "minutes")):
            if self.period % seconds == 0:
                return f"{self.count} per {self.period // seconds} {word}"
        return f"{self.count} per {self.period} seconds"


class RateLimited(GameError):
    """Too many requests from one client in the current window."""

    http_status = status.HTTP_429_TOO_MANY_REQUESTS
    code = "rate_limited"

    def __init__(self, scope: str, rate: Rate, retry_after: int):
        metrics.RATE_LIMITED.labels(scope).inc()  # made only to be raised: a refusal
        super().__init__(
            f"Too many {SCOPE_WORDS[scope]}: at most {rate}; try again in {retry_after} s."
        )
        self.retry_after = retry_after


@lru_cache(maxsize=16)
def parse_rate(text: str) -> Rate | None:
    """'20/s' -> Rate(20, 1); '10/10s' -> Rate(10, 10); 'off' (or empty, or a count of 0) ->
    None."""
    text = (text or "").strip().lower()
    if text in ("", "off", "none", "0"):
        return None
    count, _, unit = text.partition("/")
    try:
        number = int(count)
        times, name = _PERIOD.match(unit.strip()).groups()
        period = int(times or 1) * PERIODS[name]
        if period <= 0:
            raise ValueError("an empty period")
    except (ValueError, KeyError, AttributeError):
        raise ValueError(
            f"a rate limit is 'N/s', 'N/min', 'N/hour', 'N/10s' or 'off', not {text!r}"
        ) from None
    return Rate(number, period) if number > 0 else None


def rate_for(scope: str) -> Rate | None:
    return parse_rate(getattr(settings, f"RATE_LIMIT_{scope.upper()}", "off"))


def _counted(scope: str, rate: Rate, client: str, window: int) -> int:
    """Count one more of `client` in `scope`'s window; how many there are now."""
    key = f"ratelimit:{scope}:{client}:{window}"
    if cache.add(key, 1, timeout=rate.period + 1):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # the window's key expired between add and incr: a fresh window
        cache.add(key, 1, timeout=rate.period + 1)
        return 1


def check(scope: str, client: str) -> None:
    """Count one request of `client` in `scope`; raise RateLimited when it is one too many."""
    rate = rate_for(scope)
    if rate is None:
        return
    now = time.time()
    window = int(now // rate.period)
    if _counted(scope, rate, client, window) > rate.count:
        raise RateLimited(scope, rate, max(1, math.ceil((window + 1) * rate.period - now)))


def count(scope: str, client: str) -> None:
    """Count one event of `client` in `scope` without refusing it (a failed login, known only
    once it has failed)."""
    rate = rate_for(scope)
    if rate is not None:
        _counted(scope, rate, client, int(time.time() // rate.period))


def check_open(scope: str, client: str) -> None:
    """Raise RateLimited when `client` has used up `scope` in the current window; count
    nothing."""
    rate = rate_for(scope)
    if rate is None:
        return
    now = time.time()
    window = int(now // rate.period)
    if (cache.get(f"ratelimit:{scope}:{client}:{window}") or 0) >= rate.count:
        raise RateLimited(scope, rate, max(1, math.ceil((window + 1) * rate.period - now)))


async def acheck(scope: str, client: str) -> None:
    """`check` from the event loop."""
    if rate_for(scope) is not None:
        await with_cache(check, scope, client)


async def with_cache(work, *args):
    """Call `work(*args)`, which reads or writes the cache, from the event loop: in place with a
    cache in this process, else on a thread (the Redis cache's client blocks)."""
    if isinstance(caches["default"], LocMemCache):
        return work(*args)
    return await asyncio.get_running_loop().run_in_executor(None, work, *args)


def check_join(request) -> None:
    """Count a join (creating or joining a game) of a Django or DRF request's client."""
    check("joins", client_address(request.META))


def check_settings(app_configs=None, **kwargs) -> list:
    """System check (`manage.py check`, `migrate`): every rate must parse."""
    from django.core.checks import Error

    problems = []
    for scope in SCOPE_WORDS:
        try:
            rate_for(scope)
        except ValueError as exc:
            problems.append(Error(f"RATE_LIMIT_{scope.upper()}: {exc}", id="games.E001"))
    return problems


def client_address(scope: dict) -> str:
    """The client's address from an ASGI scope (or a Django request's META-like dict)."""
    client = scope.get("client")
    if client:
        return str(client[0])
    return str(scope.get("REMOTE_ADDR") or "unknown")
