"""What the running server counts and logs: Prometheus metrics at /metrics, and one log line per
request and per committed change.

The metrics live in prometheus-client's default registry (with its process and Python
collectors: CPU, memory, file descriptors, garbage collections). Each daphne process counts its
own and serves them at its own /metrics; Prometheus scrapes every process (deploy/dashboard.md),
so nothing is shared between processes.

- `ObservedHttp`, the outermost ASGI middleware for HTTP (config/asgi.py), serves /metrics to the
  addresses of METRICS_ALLOWED, and counts and times every request, whichever layer answers it
  (the text protocol, the API's fast path, static files, Django), by route and status class. The
  route is the URL pattern that answered (`name_route`), never the path with its ids, so the
  number of series stays bounded. It also writes the request's log line.
- The one write path (games.services.commit) counts the moves it commits by game kind and way in,
  and its retries; `committed` counts and logs a change once its transaction has committed.
- The consumers keep `WEBSOCKETS_OPEN`, and time each change from its announcement to a socket's
  frame (`FANOUT_SECONDS`); the limits count their refusals (`RATE_LIMITED`), the errors module
  the outages of the database and Redis (`OUTAGES`).

The way in of a request (api, page, protocol, socket; "server" for commands and tests) is kept in
a context variable for its task (`enter`), so the commit's log line can say it without any
argument passed down the one write path.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.urls import resolve
from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics, make_asgi_app

# No `*_created` series (each counter's start time) beside each counter and histogram: half the
# lines of a scrape, and Prometheus sees a restart in the counters themselves.
disable_created_metrics()

# Latency buckets in seconds: a move is answered in a few milliseconds, a /watch waits up to 30 s.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

HTTP_REQUESTS = Counter(
    "http_requests",
    "HTTP requests answered, by route (URL pattern), method and status class.",
    ["route", "method", "status"],
)
HTTP_SECONDS = Histogram(
    "http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route and method.",
    ["route", "method"],
    buckets=BUCKETS,
)
MOVES = Counter(
    "games_moves_committed",
    "Moves written to the move log (joins, actions, timeouts, computers' turns), by game kind "
    "and the way in of the request that committed them.",
    ["kind", "way"],
)
COMMIT_SECONDS = Histogram(
    "games_commit_duration_seconds",
    "Time of a committed write of the one write path (read, plan, write), by game kind.",
    ["kind"],
    buckets=BUCKETS,
)
WRITE_RETRIES = Counter(
    "games_write_retries",
    "Plans made again because the game had moved on since it was read (another request or "
    "process wrote it first), by game kind.",
    ["kind"],
)
WEBSOCKETS_OPEN = Gauge(
    "games_websockets_open", "WebSockets open in this process, by consumer.", ["consumer"]
)
FANOUT_SECONDS = Histogram(
    "games_fanout_seconds",
    "Time from a committed change's announcement to a socket's frame showing it (across "
    "processes through Redis too: the processes' clocks should agree).",
    buckets=BUCKETS,
)
RATE_LIMITED = Counter(
    "games_rate_limited", "Requests refused by a rate limit (games.limits), by scope.", ["scope"]
)
OUTAGES = Counter(
    "games_outages",
    "Errors that said a service did not answer (each answered 503), by dependency.",
    ["dependency"],
)

request_log = logging.getLogger("games.requests")
move_log = logging.getLogger("games.moves")

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


# -- the way in and the route of the request being served ------------------------------------------


@dataclass
class Served:
    """What is known of the request or socket being served: its way in, and the URL pattern
    that answered it (None: none yet)."""

    way: str
    route: str | None = None


_served: ContextVar[Served | None] = ContextVar("games_served", default=None)


def enter(served: Served):
    """Say that this task serves a request or socket (until `leave`)."""
    return _served.set(served)


def leave(token) -> None:
    _served.reset(token)


def name_route(route: str, way: str | None = None) -> None:
    """Say which URL pattern answers the request being served (and, if it is known only now,
    its way in); nothing outside a request."""
    served = _served.get()
    if served is not None:
        served.route = route
        if way is not None:
            served.way = way


@lru_cache(maxsize=16)
def route_of(path: str) -> str:
    """The URL pattern of Django's that answers `path`, as a route label: for the layers in
    front of Django, which answer some of its paths themselves, so a route is counted under one
    label whichever layer answers it."""
    return "/" + resolve(path).route


def way_in() -> str:
    """The way in of the request being served: api, page, protocol, socket, or server (a
    command, a test, anything outside a request)."""
    served = _served.get()
    return served.way if served is not None else "server"


# -- /metrics and every request over HTTP ---------------------------------------------------------


@lru_cache(maxsize=4)
def _networks(allowed: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in allowed if entry)


def metrics_allowed(scope) -> bool:
    """Whether the request's client address (the ASGI scope's: the proxy's X-Forwarded-For under
    daphne's --proxy-headers) is one of METRICS_ALLOWED (addresses or networks)."""
    client = scope.get("client")
    if not client:
        return False
    try:
        address = ipaddress.ip_address(client[0])
    except ValueError:
        return False
    return any(address in network for network in _networks(tuple(settings.METRICS_ALLOWED)))


def check_settings(app_configs=None, **kwargs) -> list:
    """System check (`manage.py check`, `migrate`): every entry of METRICS_ALLOWED must be an
    address or a network."""
    from django.core.checks import Error

    problems = []
    for entry in settings.METRICS_ALLOWED:
        try:
            ipaddress.ip_network(entry.strip(), strict=False)
        except ValueError:
            problems.append(
                Error(
                    f"METRICS_ALLOWED: {entry!r} is not an address or a network "
                    "(such as 127.0.0.1, ::1 or 10.0.0.0/8).",
                    id="games.E002",
                )
            )
    return problems


@lru_cache(maxsize=1)
def _static_prefix(static_url: str) -> str:
    return "/" + static_url.lstrip("/")


class ObservedHttp:
    """ASGI middleware, the outermost for HTTP: /metrics for the allowed addresses (to any other
    the path does not exist: it goes on to the site, whose 404 answers it); every request counted
    and timed by route, and logged."""

    def __init__(self, inner):
        self.inner = inner
        self.exposition = make_asgi_app()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.inner(scope, receive, send)
        path = scope["path"]
        app = self.inner
        served = Served("api" if path.startswith("/api/") else "page")
        token = enter(served)
        if path == "/metrics" and metrics_allowed(scope):
            app = self.exposition
            served.route = "/metrics"
        status = 0

        async def sending(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        started = time.perf_counter()
        try:
            await app(scope, receive, sending)
        except Exception:
            status = status or 500  # daphne answers it so
            raise
        finally:
            leave(token)
            observe_request(scope, served, status, time.perf_counter() - started)


# Each series of the hot path, found once: the labels are few (routes, methods, status classes,
# kinds, ways), and prometheus-client's own lookup takes a lock each time.
@lru_cache(maxsize=4096)
def _requests(route: str, method: str, hundreds: int):
    return HTTP_REQUESTS.labels(route, method, f"{hundreds}xx" if hundreds else "aborted")


@lru_cache(maxsize=4096)
def _request_seconds(route: str, method: str):
    return HTTP_SECONDS.labels(route, method)


@lru_cache(maxsize=256)
def _moves(kind: str, way: str):
    return MOVES.labels(kind, way)


@lru_cache(maxsize=64)
def _commit_seconds(kind: str):
    return COMMIT_SECONDS.labels(kind)


def observe_request(scope, served: Served, status: int, seconds: float) -> None:
    """Count, time and log one HTTP request (status 0: the client went away before an answer)."""
    route = served.route
    if route is None:
        static = _static_prefix(settings.STATIC_URL)
        route = "static" if scope["path"].startswith(static) else "(unmatched)"
    method = scope["method"] if scope["method"] in METHODS else "other"
    _requests(route, method, status // 100 if status else 0).inc()
    _request_seconds(route, method).observe(seconds)
    if request_log.isEnabledFor(logging.INFO):
        request_log.info(
            "%s %s %s %.1f ms",
            scope["method"],
            scope["path"],
            status,
            seconds * 1000,
            extra={
                "method": scope["method"],
                "path": scope["path"],
                "route": route,
                "status": status,
                "way": served.way,
                "duration_ms": round(seconds * 1000, 3),
            },
        )


# -- the one write path --------------------------------------------------------------------------


@dataclass(frozen=True)
class Committed:
    """A change the one write path wrote (games.services.commit): told once its transaction has
    committed (games.services.announce)."""

    game: int
    kind: str
    version: int
    moves: int
    seconds: float
    retries: int


def committed(change: Committed) -> None:
    """Count and log a committed change, for the way in of the request that made it."""
    way = way_in()
    _moves(change.kind, way).inc(change.moves)
    _commit_seconds(change.kind).observe(change.seconds)
    if move_log.isEnabledFor(logging.INFO):
        move_log.info(
            "game %s at version %s: %s move(s) by %s in %.1f ms",
            change.game,
            change.version,
            change.moves,
            way,
            change.seconds * 1000,
            extra={
                "game": change.game,
                "kind": change.kind,
                "version": change.version,
                "moves": change.moves,
                "way": way,
                "duration_ms": round(change.seconds * 1000, 3),
                "retries": change.retries,
            },
        )


def fanned_out(message: dict) -> None:
    """A socket sent the frame that shows a change: time it from its announcement."""
    sent = message.get("announced_at")
    if sent is not None:
        FANOUT_SECONDS.observe(max(time.time() - sent, 0.0))
