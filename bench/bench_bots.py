"""Bots benchmark (issue 26): 200 bot accounts, each holding its event stream and its game's stream,
play 100 two-bot Set games at once with moves over HTTP, on two daphne processes, PostgreSQL and
Redis; then, on the same servers in the same run, as many games played by WebSocket players.

Run on demand (never part of the test suite; about two and a half minutes at the defaults)::

    .venv/bin/python bench/bench_bots.py
    .venv/bin/python bench/bench_bots.py --quick                 # a short smoke run (~40 s)
    .venv/bin/python bench/bench_bots.py --seconds 60 --think 0.5,1.5 --profile
    .venv/bin/python bench/bench_bots.py --seconds 20 --rounds 3   # bots, sockets, x3: medians
    .venv/bin/python bench/run_all.py bots                       # or `make bench`: every bench

The servers are bench_load's ``scaled`` scenario, started by its own code
(``bench_load.start_stage``): two daphne processes on free loopback ports sharing a throwaway
PostgreSQL database on 127.0.0.1:5432 and Redis on 127.0.0.1:6379 (a prefix of the run's own),
DJANGO_DEBUG=0, the joins and moves limits off. This bench also turns off, through the same
environment, the limits 200 accounts made from one address would hit: sign-ups, challenges and
chat (``RATE_LIMIT_SIGNUPS=off``, ``RATE_LIMIT_CHALLENGES=off``, ``RATE_LIMIT_CHAT=off``).

**The bots** (``--bots``, default 200, in pairs: ``--games`` = bots / 2) are asyncio clients in this
process, on raw asyncio streams (bench/_clients.py's keep-alive ``AsyncConn`` for requests, and a
small NDJSON reader here that reads chunked replies): each makes its account (``POST
/api/accounts``), turns it into a bot (``POST /api/bot/account/upgrade``) and holds ``GET
/api/stream/event`` (``Authorization: Bearer``). Bot 2k talks only to the first daphne process and
bot 2k+1 only to the second, so every pair's streams and moves are on different processes and every
change crosses Redis. Bot 2k challenges bot 2k+1 (``POST /api/challenge/<name>``, Set, classic
rules, 4 attributes, unrated, started at once as the WebSocket players' tables are; ``--countdown``:
a challenge's default 3 s countdown); bot 2k+1 accepts when its event stream brings the
``challenge`` (``POST /api/challenge/<id>/accept``); each opens ``GET /api/games/<id>/stream`` when
its event stream brings the ``gameStart``. Each bot then, until the run ends: thinks (uniform in
``--think``, default 0.5-1.5 s: bots / 1 s = 200 claims/s offered), takes the newest view its game
stream brought (or its own last move's answer), picks one of the sets on the board at random and
claims it with ``POST /api/games/<id>/moves`` -- the same policy as bench_load's players, so both
runs offer the same rate. When a game ends, the challenger challenges again on its event stream's
``gameFinish``, so 100 games are always being played; the first games' claims begin at a random
moment of the warm-up, so the games do not all end together.

**Measured** over ``--seconds`` (default 30) after ``--warmup`` (default 10), counting the moves
whose POST was sent in the window:

- stream delay: for every accepted claim (answered 200, a set) and each of the game's two bots
  (the mover and its opponent), from the move's commit to that bot's stream line ``gameState``
  with the move's version. Neither the stream line nor the move's answer carries a commit time
  (the server stamps its channel message ``announced_at`` for its own metrics, but that never
  reaches a client), so it is bounded from both sides: from the mover's **send** (before the
  commit: an upper bound) and from the answer's **arrival** at the mover (after the commit: a lower
  bound, 0 when the stream line came first); and, tightest, from the move's row **made**: its
  ``games_move.created``, which the write stamps just before its statement and commit (read from
  the database after the run, on the bots' clock: one machine), an upper bound short of the
  commit by one statement. p50/p95/p99/max of the three, and per move the slower of the two
  bots (from the send);
- lost: a move whose version never reached a bot's stream (neither its line nor a later one
  within 5 s), as bench_load counts a WebSocket's; the run exits 1 when there are any. A stream
  that falls behind sends the newest state and skips the ones it superseded (games.follow's
  ``game_at``: "at that version or later"): such versions are counted apart as skipped, and
  their delay is that of the later line that showed the move;
- version gaps on every stream (versions skipped between two lines, the whole run);
- CPU over the window (bench_load's ``Meter``): each daphne process, PostgreSQL (its own processes
  and this run's sessions), Redis, the generator (this process) and the rest of the machine; and
  each per accepted move.

**Then the WebSocket players**: the same servers, the same number of games of two players
(``bench_load.play`` with 2 players a table, both moving over their WebSocket as the game pages
do, on different processes), the same think time, window and warm-up. The verdict compares the
daphne processes' CPU per accepted move (and the whole server side's: daphne, PostgreSQL, Redis)
of the bots with the WebSocket players'.

Targets: stream delay p99 <= 50 ms (judged on the tightest upper bound, from the row made; the
send's and the answer's bounds are shown too),
none lost, the daphne processes' CPU per move <= 1.25 x the WebSocket players'. ``--profile``
samples both daphne processes with py-spy during the bots' window and the WebSocket players'
(bench_load's profiler).

Exit status: 1 when a move's state was lost, on errors (any 5xx or unexpected reply, a stream that
broke) or an interrupted run; 0 otherwise (a missed target is printed as MISS). Servers, the
database and the Redis keys are always cleaned up, on Ctrl-C, SIGTERM and the watchdog too.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import math
import os
import random
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import bench_load as load  # noqa: E402
from _clients import HOST, AsyncConn, build_request, parse_head, percentile  # noqa: E402
from _server import print_server_errors, raise_fd_limit  # noqa: E402

from cards.engine.fast import all_sets_codes  # noqa: E402

TARGET_P99_S = 0.050
TARGET_CPU_RATIO = 1.25
LOST_AFTER_S = load.LOST_AFTER_S
PASSWORD = "a long bench passphrase"
# The WebSocket players' games (bench_load's new_game): classic, 4 attributes, started at once.
# A challenge's Set table otherwise counts down 3 s (--countdown): a deadline both streams
# apply, a version more and 3 s without moves a game, which the WebSocket players' games lack.
OPTIONS = {"rules": "classic", "attributes": 4, "rated": False, "start": "now"}
# The limits that 200 accounts made from one address, and their challenges, would hit; the
# joins and moves limits are off already (bench/_server.py).
LIMITS_OFF = {
    "RATE_LIMIT_SIGNUPS": "off",
    "RATE_LIMIT_CHALLENGES": "off",
    "RATE_LIMIT_CHAT": "off",
}
SETUP_TIMEOUT_S = 300.0  # 200 sign-ups hash 200 passwords
VERSION = load.VERSION
OVER = b'"over":true'


# == pure helpers ==================================================================================


def version_gaps(versions: list[int]) -> int:
    """Versions a stream skipped between consecutive lines (a gameState for every change).

    >>> version_gaps([4, 5, 6, 7])
    0
    >>> version_gaps([4, 6, 7, 10])
    3
    >>> version_gaps([])
    0
    """
    return sum(max(b - a - 1, 0) for a, b in zip(versions, versions[1:], strict=False))


def judge(expected: int, full: int, seen: dict[int, float]) -> tuple[str, float | None]:
    """What a bot's stream did with a move's version `expected`, and when the bot learned of
    the move: "seen" (a line with that version), "skipped" (no line of it, but a later version's
    came: the stream fell behind and sent the newest state), "never" (nothing as new came), or
    "before" (its first line, gameFull at version `full`, showed it already: not measured).

    >>> judge(7, 5, {6: 1.0, 7: 1.1})
    ('seen', 1.1)
    >>> judge(5, 5, {})
    ('before', None)
    >>> judge(7, 5, {6: 1.0, 8: 1.2, 9: 1.3})
    ('skipped', 1.2)
    >>> judge(9, 5, {6: 1.0, 8: 1.2})
    ('never', None)
    """
    if expected in seen:
        return "seen", seen[expected]
    if expected <= full:
        return "before", None
    later = [at for version, at in seen.items() if version > expected]
    return ("skipped", min(later)) if later else ("never", None)


def spread(values: list[float]) -> dict:
    """p50/p95/p99/max in ms.

    >>> spread([0.001 * n for n in range(1, 101)])
    {'p50': 50.0, 'p95': 95.0, 'p99': 99.0, 'max': 100.0, 'n': 100}
    """
    if not values:
        return {"p50": math.nan, "p95": math.nan, "p99": math.nan, "max": math.nan, "n": 0}
    return {
        "p50": round(percentile(values, 50) * 1000, 1),
        "p95": round(percentile(values, 95) * 1000, 1),
        "p99": round(percentile(values, 99) * 1000, 1),
        "max": round(max(values) * 1000, 1),
        "n": len(values),
    }


METRIC_LINE = re.compile(r"^([a-z_]+)(?:\{(.*)\})? ([0-9.eE+-]+|NaN|\+Inf)$")
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text: str) -> dict[tuple, float]:
    """Prometheus' text format as {(name, (label, value), ...): number}.

    >>> parse_metrics('# HELP x y\\nx_bucket{le="0.05"} 3.0\\nx_count 4.0\\n')
    {('x_bucket', ('le', '0.05')): 3.0, ('x_count',): 4.0}
    """
    found = {}
    for line in text.splitlines():
        match = METRIC_LINE.match(line)
        if match:
            name, labels, value = match.groups()
            found[(name, *LABEL.findall(labels or ""))] = float(value)
    return found


def delta(before: dict, after: dict) -> dict:
    """What each series gained between two scrapes (summed over processes by the caller)."""
    return {key: value - before.get(key, 0.0) for key, value in after.items()}


def buckets_of(series: dict, name: str) -> list[tuple[float, float]]:
    """A histogram's cumulative buckets (upper bound, count), in order.

    >>> buckets_of({("h_bucket", ("le", "0.1")): 9, ("h_bucket", ("le", "+Inf")): 10}, "h")
    [(0.1, 9), (inf, 10)]
    """
    rows = [
        (float(key[1][1]), value)
        for key, value in series.items()
        if key[0] == f"{name}_bucket" and len(key) == 2 and key[1][0] == "le"
    ]
    return sorted(rows)


def bucket_quantile(buckets: list[tuple[float, float]], q: float) -> float:
    """The upper bound of the bucket that holds the q-th percentile (a bound, not a value).

    >>> bucket_quantile([(0.01, 50), (0.05, 99), (0.1, 100), (math.inf, 100)], 99)
    0.05
    >>> bucket_quantile([(0.01, 50), (0.05, 98), (0.1, 100), (math.inf, 100)], 99)
    0.1
    >>> math.isnan(bucket_quantile([(math.inf, 0)], 50))
    True
    """
    total = buckets[-1][1] if buckets else 0
    if not total:
        return math.nan
    for bound, count in buckets:
        if count >= q / 100 * total:
            return bound
    return math.inf


def scrape(port: int) -> dict:
    """One server process's /metrics (loopback is in METRICS_ALLOWED by default)."""
    import http.client

    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        return parse_metrics(conn.getresponse().read().decode())
    finally:
        conn.close()


def server_side(before: list[dict], after: list[dict]) -> dict:
    """From the processes' own metrics over the window: the streams' fan-out (a committed
    change's announcement -> the line written for it: games.metrics.FANOUT_SECONDS, the only
    commit-timed figure) and the HTTP requests by route (count, and mean time of the routes
    that are not streams)."""
    gained: dict = collections.defaultdict(float)
    for b, a in zip(before, after, strict=True):
        for key, value in delta(b, a).items():
            gained[key] += value
    fanout = buckets_of(gained, "games_fanout_seconds")
    total = fanout[-1][1] if fanout else 0
    within = next((count for bound, count in fanout if bound >= TARGET_P99_S), 0)
    routes = {}
    for key, count in gained.items():
        if key[0] != "http_request_duration_seconds_count" or not count:
            continue
        labels = dict(key[1:])
        seconds = gained.get(("http_request_duration_seconds_sum", *key[1:]), 0.0)
        routes[f"{labels.get('method')} {labels.get('route')}"] = (count, seconds / count)
    return {
        "fanout_n": total,
        "fanout_within_50ms": within / total if total else math.nan,
        "fanout_p50_bound_ms": bucket_quantile(fanout, 50) * 1000,
        "fanout_p99_bound_ms": bucket_quantile(fanout, 99) * 1000,
        "routes": routes,
    }


# == the bots ======================================================================================


class StreamClosed(Exception):
    pass


class Ndjson:
    """One NDJSON stream held open (GET with a Bearer token): its lines as they come, each with
    the perf_counter() at which the bytes that ended it arrived."""

    def __init__(self, port: int, path: str, token: str) -> None:
        self.port, self.path, self.token = port, path, token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/x-ndjson"}
        self.writer.write(build_request("GET", self.path, self.port, b"", headers))
        head = await self.reader.readuntil(b"\r\n\r\n")
        status, self.headers = parse_head(head[:-4])
        if status != 200:
            body = await self.reader.read(2000)
            self.close()
            raise StreamClosed(f"GET {self.path} -> {status}: {body[:300]!r}")
        self.chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"

    async def chunks(self):
        reader = self.reader
        while True:
            if self.chunked:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    return
                data = await reader.readexactly(size + 2)
                yield data[:-2], time.perf_counter()
            else:
                data = await reader.read(65536)
                if not data:
                    return
                yield data, time.perf_counter()

    async def lines(self):
        buffer = b""
        try:
            async for data, at in self.chunks():
                buffer += data
                while (end := buffer.find(b"\n")) >= 0:
                    line, buffer = buffer[:end], buffer[end + 1 :]
                    if line.strip():
                        yield line, at
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise StreamClosed(f"{self.path}: {exc!r}") from exc

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = self.reader = None


class Follow:
    """A bot's stream of one game: the versions it brought and when."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.full = -1  # gameFull's version
        self.versions: list[int] = []  # each gameState's, in order
        self.seen: dict[int, float] = {}
        self.raw: bytes | None = None  # the newest line, parsed only when the bot claims
        self.version = -1
        self.over = False
        self.ready = asyncio.get_running_loop().create_future()


@dataclass
class Move:
    game_id: int
    version: int
    sent: float
    answered: float
    counted: bool


@dataclass
class Run:
    """What the bots did: every accepted move, every stream, the errors."""

    start: float = math.inf
    end: float = math.inf
    stopping: bool = False
    moves: list[Move] = field(default_factory=list)
    follows: dict[tuple[int, int], Follow] = field(default_factory=dict)  # (game, bot) -> ...
    by_game: dict[int, list[Follow]] = field(default_factory=dict)
    sent: int = 0
    races: int = 0
    latency: list[float] = field(default_factory=list)  # every move request, sent -> answer
    games: int = 0  # games started in the window
    finishes: int = 0  # gameFinish events
    lag: list[float] = field(default_factory=list)
    clock_offset: float = 0.0  # time.time() - time.perf_counter(), for the database's times
    errors: collections.Counter = field(default_factory=collections.Counter)
    tasks: set = field(default_factory=set)  # held here: the loop keeps only weak references

    def spawn(self, coro) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def inside(self, at: float) -> bool:
        return self.start <= at < self.end

    def error(self, text: str) -> None:
        self.errors[text[:300]] += 1


class Bot:
    def __init__(self, number: int, port: int, run: Run, think: tuple[float, float]) -> None:
        self.number, self.port, self.run, self.think = number, port, run, think
        self.name = f"bot{number:03d}"
        self.partner: Bot | None = None
        self.challenger = number % 2 == 0
        # Two keep-alive connections, each one request at a time: the moves (the play loop),
        # and the rest (signing up, challenges and accepts, from the event stream's task).
        self.conn = AsyncConn(port)
        self.side = AsyncConn(port)
        self.locks = {id(self.conn): asyncio.Lock(), id(self.side): asyncio.Lock()}
        self.token = ""
        self.game_id: int | None = None
        self.follow: Follow | None = None
        self.view: dict | None = None
        self.view_version = -1
        self.events_open = asyncio.get_running_loop().create_future()
        self.delay = 0.0  # the first game's claims wait this long (the warm-up's stagger)

    async def request(self, method: str, path: str, body=None, token: bool = True, conn=None):
        conn = conn or self.side
        async with self.locks[id(conn)]:
            return await self._request(conn, method, path, body, token)

    async def _request(self, conn: AsyncConn, method: str, path: str, body, token: bool):
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = json.dumps(body).encode() if body is not None else b""
        return await conn.exchange(build_request(method, path, self.port, data, headers))

    async def sign_up(self) -> None:
        body = {"username": self.name, "password": PASSWORD}
        reply = await self.request("POST", "/api/accounts", body, token=False)
        if reply.status != 201:
            raise RuntimeError(f"POST /api/accounts -> {reply.status}: {reply.text[:300]}")
        self.token = reply.json()["token"]
        reply = await self.request("POST", "/api/bot/account/upgrade")
        if reply.status != 200:
            raise RuntimeError(f"bot upgrade -> {reply.status}: {reply.text[:300]}")

    async def challenge(self) -> None:
        body = {"kind": "set", "options": OPTIONS}
        reply = await self.request("POST", f"/api/challenge/{self.partner.name}", body)
        if reply.status != 201:
            self.run.error(f"POST /api/challenge -> {reply.status}: {reply.text[:200]}")

    async def events(self) -> None:
        """The account's event stream: accept challenges, follow started games, challenge again
        when a game ends."""
        stream = Ndjson(self.port, "/api/stream/event", self.token)
        try:
            await stream.open()
            self.events_open.set_result(True)
            async for line, _ in stream.lines():
                event = json.loads(line)
                kind = event.get("type")
                if kind == "challenge" and not self.challenger:
                    number = event["challenge"]["id"]
                    reply = await self.request("POST", f"/api/challenge/{number}/accept")
                    if reply.status != 200:
                        self.run.error(f"accept -> {reply.status}: {reply.text[:200]}")
                elif kind == "gameStart":
                    game_id = event["game"]["id"]
                    if (game_id, self.number) not in self.run.follows:
                        follow = Follow(game_id)
                        self.run.follows[(game_id, self.number)] = follow
                        self.run.by_game.setdefault(game_id, []).append(follow)
                        self.run.spawn(self.read_game(follow))
                        if self.challenger and self.run.inside(time.perf_counter()):
                            self.run.games += 1
                elif kind == "gameFinish":
                    self.run.finishes += 1
                    if self.challenger and not self.run.stopping:
                        await self.challenge()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - counted
            if not self.run.stopping:
                self.run.error(f"event stream: {exc!r}")
            if not self.events_open.done():
                self.events_open.set_exception(exc)
        finally:
            stream.close()

    async def read_game(self, follow: Follow) -> None:
        """Follow a game's stream to its end, connecting again when it drops (as
        examples/bot.py does): the next gameFull says where the game is."""
        tries = 0
        while not follow.over and not self.run.stopping:
            stream = Ndjson(self.port, f"/api/games/{follow.game_id}/stream", self.token)
            last = b"the connection closed"
            try:
                await stream.open()
                async for line, at in stream.lines():
                    if line.startswith(b'{"type":"gameState"'):
                        version = int(VERSION.search(line, 0, 80).group(1))
                    elif line.startswith(b'{"type":"gameFull"'):
                        version = int(VERSION.search(line).group(1))
                        if follow.full < 0:
                            follow.full = version  # the first: what it shows is not measured
                        self.follow_game(follow)
                        if not follow.ready.done():
                            follow.ready.set_result(at)
                    else:
                        last = line  # a chat line, or the server's error line before it ends
                        continue
                    follow.versions.append(version)
                    if version > follow.full or line.startswith(b'{"type":"gameState"'):
                        follow.seen.setdefault(version, at)
                    if version > follow.version:
                        follow.version, follow.raw = version, line
                    if OVER in line:
                        follow.over = True
            except asyncio.CancelledError:
                stream.close()
                raise
            except Exception as exc:  # noqa: BLE001 - counted, and connected again
                last = repr(exc).encode()
            stream.close()
            if not follow.over and not self.run.stopping:
                self.run.error(f"a game stream dropped: {last[:160].decode(errors='replace')}")
                tries += 1
                await asyncio.sleep(min(2**tries, 10) / 4)
        follow.over = True

    def follow_game(self, follow: Follow) -> None:
        """Play this game from now on (a newer one than the last)."""
        if self.follow is None or follow.game_id > self.follow.game_id:
            self.follow, self.game_id = follow, follow.game_id
            self.view, self.view_version = None, -1

    def newest_view(self) -> dict:
        follow = self.follow
        if follow.version > self.view_version:
            message = json.loads(follow.raw)
            self.view, self.view_version = message["view"], message["version"]
        return self.view

    async def claim(self) -> None:
        follow = self.follow
        view = self.newest_view()
        if view["over"] or view.get("status") != "active":
            return
        codes = {card["code"]: card["digits"] for card in view["board"]}
        sets = all_sets_codes(list(codes), view["attributes"])
        if not sets:
            return  # the server deals more cards when there is no set: the stream will say
        found = random.choice(sets)
        body = {"type": "claim", "cards": [codes[c] for c in found]}
        run, game_id = self.run, follow.game_id
        sent = time.perf_counter()
        reply = await self.request("POST", f"/api/games/{game_id}/moves", body, conn=self.conn)
        counted = run.inside(sent)
        if counted:
            run.sent += 1
            run.latency.append(reply.at - sent)
        answer = reply.json() if reply.status in (200, 400) else {"detail": reply.text[:200]}
        if reply.status == 200:
            if answer["outcome"].get("claim") != "set":
                run.error(f"claim not judged a set: {str(answer)[:200]}")
                return
            version = answer["version"]
            run.moves.append(Move(game_id, version, sent, reply.at, counted))
            if "view" in answer and version > self.view_version and self.follow is follow:
                self.view, self.view_version = answer["view"], version
            return
        if reply.status == 400 and answer.get("detail") in load.RACES:
            if counted:
                run.races += 1
            return
        run.error(f"POST /api/games/<id>/moves -> {reply.status}: {str(answer)[:200]}")

    async def play(self) -> None:
        await asyncio.sleep(self.delay)
        while time.perf_counter() < self.run.end:
            try:
                await asyncio.sleep(random.uniform(*self.think))
                if time.perf_counter() >= self.run.end:
                    break
                if self.follow is not None and not self.follow.over:
                    await self.claim()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - counted; the bot goes on
                self.run.error(f"bot: {exc!r}")
                await asyncio.sleep(0.5)


class Bots:
    """The bots of a run, in this process's event loop (a thread of its own, so the
    orchestrator can meter CPU meanwhile)."""

    def __init__(
        self, ports: list[int], count: int, think: tuple[float, float], first: int = 0
    ) -> None:
        self.ports, self.count, self.think, self.first = ports, count, think, first
        self.run = Run()

    async def setup(self, stagger: float) -> None:
        run = self.run
        numbers = range(self.first, self.first + self.count)  # a round's own accounts
        self.bots = [Bot(n, self.ports[n % 2], run, self.think) for n in numbers]
        for a, b in zip(self.bots[::2], self.bots[1::2], strict=True):
            a.partner, b.partner = b, a
        limit = asyncio.Semaphore(8)  # a sign-up hashes a password: a few at once

        async def sign_up(bot: Bot) -> None:
            async with limit:
                await bot.sign_up()

        await asyncio.gather(*(sign_up(bot) for bot in self.bots))
        for bot in self.bots:
            run.spawn(bot.events())
        await asyncio.wait_for(asyncio.gather(*(b.events_open for b in self.bots)), 30)
        await asyncio.gather(*(bot.challenge() for bot in self.bots if bot.challenger))
        give_up = time.perf_counter() + 60
        while True:
            follows = [bot.follow for bot in self.bots]
            if all(f is not None and f.ready.done() for f in follows):
                break
            if time.perf_counter() > give_up:
                ready = sum(f is not None and f.ready.done() for f in follows)
                raise RuntimeError(f"only {ready} of {self.count} bots' game streams began")
            await asyncio.sleep(0.1)
        for a, b in zip(self.bots[::2], self.bots[1::2], strict=True):
            a.delay = b.delay = random.uniform(0, stagger)

    async def watch_lag(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            if self.run.inside(before):
                self.run.lag.append(now - before - 0.01)

    def pending(self) -> int:
        """Counted moves' versions that a bot's open stream has not reached yet."""
        return sum(
            1
            for move in self.run.moves
            if move.counted
            for follow in self.run.by_game.get(move.game_id, ())
            if follow.version < move.version and not follow.over
        )

    async def cancel(self) -> None:
        self.run.stopping = True
        tasks = list(self.run.tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5.0)
        for bot in getattr(self, "bots", []):
            bot.conn.close()
            bot.side.close()

    async def play(self, start: float, end: float) -> None:
        run = self.run
        run.start, run.end = start, end
        run.clock_offset = time.time() - time.perf_counter()
        run.spawn(self.watch_lag())
        players = [run.spawn(bot.play()) for bot in self.bots]
        await asyncio.sleep(max(end - time.perf_counter(), 0))
        run.stopping = True  # no new challenges; the streams' last lines still count
        await asyncio.wait(players, timeout=5.0)
        give_up = time.perf_counter() + LOST_AFTER_S
        while self.pending() and time.perf_counter() < give_up:
            await asyncio.sleep(0.05)
        await self.cancel()


def rows_made(database: str, moves: list[Move]) -> dict[tuple[int, int], float]:
    """When each move's row was made (``games_move.created``, Unix seconds), by (game, version):
    the write stamps it just before its statement, so just before its commit."""
    import psycopg

    games = sorted({move.game_id for move in moves})
    wanted = {(move.game_id, move.version) for move in moves}
    with psycopg.connect(load.PG_URL.format(db=database), connect_timeout=5) as conn:
        rows = conn.execute(
            "SELECT game_id, seq, extract(epoch FROM created)::float8 FROM games_move "
            "WHERE game_id = ANY(%s)",
            (games,),
        ).fetchall()
    return {(g, seq): at for g, seq, at in rows if (g, seq) in wanted}


def bots_figures(run: Run, duration: float, made: dict[tuple[int, int], float]) -> dict:
    """The stream delays, lost versions and gaps of the moves sent in the window; `made`: each
    move's row's time (rows_made)."""
    upper, lower, slower, from_row = [], [], [], []
    counts: collections.Counter = collections.Counter()
    accepted = [m for m in run.moves if m.counted]
    for move in accepted:
        followers = run.by_game.get(move.game_id, [])
        counts["never"] += max(2 - len(followers), 0)  # a bot that never opened the stream
        arrivals = []
        row = made.get((move.game_id, move.version))
        for follow in followers:
            verdict, at = judge(move.version, follow.full, follow.seen)
            counts[verdict] += 1
            if at is not None:  # the line of the move's version, or the first one after it
                arrivals.append(at)
                upper.append(max(at - move.sent, 0.0))
                lower.append(max(at - move.answered, 0.0))
                if row is not None:
                    from_row.append(max(at - (row - run.clock_offset), 0.0))
        if len(arrivals) == 2:  # both bots updated: the slower of the two, from the send
            slower.append(max(arrivals) - move.sent)
    gaps = sum(version_gaps(f.versions) for f in run.follows.values())
    return {
        "accepted": len(accepted),
        "moves_s": len(accepted) / duration if duration else 0.0,
        "requests_s": run.sent / duration if duration else 0.0,
        "races": run.races,
        "from_send": spread(upper),
        "from_answer": spread(lower),
        "from_row": spread(from_row),
        "rows_missing": sum((m.game_id, m.version) not in made for m in accepted),
        "both_bots": spread(slower),
        "move_latency": spread(run.latency),
        "seen": counts["seen"],
        "before": counts["before"],
        "skipped": counts["skipped"],
        "never": counts["never"],
        "lost": counts["never"],
        "gaps": gaps,
        "streams": len(run.follows),
        "games": run.games,
        "finishes": run.finishes,
        "lag": spread(run.lag),
        "errors": dict(run.errors),
    }


# == the orchestrator ==============================================================================


def run_bots(stage, args, profile_dir: Path, first: int = 0) -> tuple[dict, dict, list[str]]:
    """Seat the bots, play, measure; the figures, the CPU (cores) and the profiles."""
    import threading

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def call(coro, timeout):
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)

    bots = Bots(stage.ports, args.bots, args.think, first)
    try:
        began = time.perf_counter()
        call(bots.setup(args.warmup), SETUP_TIMEOUT_S)
        print(
            f"  {args.bots} bots signed up, streams open, {args.bots // 2} games started in "
            f"{time.perf_counter() - began:.1f} s; think {args.think[0]:g}-{args.think[1]:g} s, "
            f"warm-up {args.warmup:.0f} s, measuring {args.seconds:.0f} s",
            flush=True,
        )
        start = time.perf_counter() + args.warmup
        end = start + args.seconds
        done = asyncio.run_coroutine_threadsafe(bots.play(start, end), loop)
        meter = load.Meter(stage.servers, [], database=stage.database)
        time.sleep(max(start - time.perf_counter(), 0))
        profilers = []
        if args.profile:
            profilers = load.start_profilers("bots", stage.servers, args.seconds, profile_dir)
        scraped = [scrape(server.port) for server in stage.servers]
        before = meter.snapshot()
        time.sleep(max(end - time.perf_counter(), 0))
        after = meter.snapshot()
        duration = after["at"] - before["at"]
        scraped = server_side(scraped, [scrape(server.port) for server in stage.servers])
        cpu = load.Meter.cores(before, after)
        done.result(LOST_AFTER_S + 15)
        profiles = []
        for proc, out in profilers:
            try:
                proc.communicate(timeout=20)
            except Exception:  # noqa: BLE001
                proc.kill()
            profiles.append(load.summarize_profile(out) if out.exists() else "  no samples")
        made = rows_made(stage.database, [m for m in bots.run.moves if m.counted])
        figures = bots_figures(bots.run, duration, made)
        figures["duration"] = duration
        figures["server"] = scraped
        return figures, cpu, profiles
    finally:
        with contextlib.suppress(Exception):
            call(bots.cancel(), 10)  # after a failure: no task left to a stopped loop
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


def run_sockets(stage, args, profile_dir: Path) -> load.Outcome:
    """The same number of two-player games, played by bench_load's WebSocket players."""
    ns = SimpleNamespace(
        tables=args.bots // 2,
        players=2,
        ws_movers=2,  # both claim on their WebSocket, as the game pages do
        workers=1,
        duration=args.seconds,
        profile=args.profile,
    )
    return load.play(stage, ns, args.think, profile_dir, args.warmup, args.warmup)


def per_move(cores: float, moves_s: float) -> float:
    """CPU milliseconds per accepted move of a part that used `cores`."""
    return cores / moves_s * 1000 if moves_s else math.nan


def daphne_cores(cpu: dict) -> float:
    return sum(v for k, v in cpu.items() if k.startswith("server"))


def side_cores(cpu: dict) -> float:
    return sum(v for k, v in cpu.items() if k.startswith(("server", "postgres", "redis")))


def report(bots: dict, bots_cpu: dict, ws: load.Outcome | None, args) -> dict:
    def row(label: str, s: dict) -> str:
        return (
            f"  {label:<38} p50 {s['p50']:7.1f}  p95 {s['p95']:7.1f}  p99 {s['p99']:7.1f}  "
            f"max {s['max']:7.1f} ms  (n={s['n']})"
        )

    print(f"\n== bots: {args.bots} bots, {args.bots // 2} games, streams and moves over HTTP ==")
    print(
        f"  accepted moves {bots['moves_s']:.1f}/s ({bots['accepted']} in "
        f"{bots['duration']:.1f} s), move requests {bots['requests_s']:.1f}/s, offered "
        f"{args.bots / (sum(args.think) / 2):.0f}/s, lost races {bots['races']}, games started "
        f"{bots['games']}, gameFinish events {bots['finishes']}"
    )
    print("  commit -> each bot's gameState of the move's version:")
    print(row("from the mover's send (upper bound)", bots["from_send"]))
    print(row("from the answer's arrival (lower bound)", bots["from_answer"]))
    print(row("from the move's row made (upper bound)", bots["from_row"]))
    if bots["rows_missing"]:
        print(f"    ({bots['rows_missing']} accepted moves' rows not found)")
    print(row("both bots updated, from send", bots["both_bots"]))
    print(row("move request, send -> answer", bots["move_latency"]))
    print(
        f"  versions: {bots['seen']} seen, {bots['skipped']} skipped (a later state came "
        f"instead), {bots['lost']} lost (nothing as new ever came), {bots['before']} shown by "
        f"gameFull; versions missing between lines on {bots['streams']} streams: {bots['gaps']}"
    )
    side = bots["server"]
    print(
        f"  server side (the processes' games_fanout_seconds, from the change's announcement "
        f"after commit to the stream line written): {side['fanout_n']:.0f} lines, "
        f"{side['fanout_within_50ms'] * 100:.1f} % within 50 ms, p50 <= "
        f"{side['fanout_p50_bound_ms']:g} ms, p99 <= {side['fanout_p99_bound_ms']:g} ms"
    )
    print(f"  generator loop lag p99 {bots['lag']['p99']:.1f} ms, max {bots['lag']['max']:.1f} ms")
    print("  HTTP requests in the window, by route (count/s; mean time, a stream's all its life):")
    for route, (count, mean) in sorted(side["routes"].items(), key=lambda kv: -kv[1][0]):
        print(f"    {count / bots['duration']:7.1f}/s  {mean * 1000:8.1f} ms  {route}")
    if bots["errors"]:
        print(f"  errors: {sum(bots['errors'].values())}")
        for text, n in sorted(bots["errors"].items(), key=lambda kv: -kv[1])[:8]:
            print(f"    {n} x {text}")
    ratio_daphne = ratio_side = math.nan
    lines = [("bots", bots_cpu, bots["moves_s"])]
    if ws is not None and not ws.failed:
        lines.append(("WebSocket players", ws.cpu, ws.moves_s))
        print(f"\n== WebSocket players: {ws.players} players, {ws.players // 2} games ==")
        print(
            f"  accepted moves {ws.moves_s:.1f}/s, move p50 {load.ms(percentile(ws.latency, 50))} "
            f"p99 {load.ms(ws.p99)}; fan-out to the other player (from send) "
            f"p50 {load.ms(percentile(ws.fanout, 50))} p99 {load.ms(percentile(ws.fanout, 99))}, "
            f"lost {ws.lost}, errors {sum(ws.errors.values())}"
        )
        for text, n in ws.errors.most_common(5):
            print(f"    {n} x {text}")
    print("\n== CPU over the window: cores, and ms per accepted move ==")
    parts = ["server1", "server2", "postgres", "redis", "generator", "other"]
    print(f"  {'':<20}" + "".join(f"{p:>17}" for p in parts) + f"{'daphne/move':>14}")
    for label, cpu, rate in lines:
        cells = "".join(
            f"{cpu.get(p, 0):>6.2f} {per_move(cpu.get(p, 0), rate):>6.2f} ms " for p in parts
        )
        print(f"  {label:<20}{cells}{per_move(daphne_cores(cpu), rate):>9.2f} ms")
    if len(lines) == 2:
        ratio_daphne = per_move(daphne_cores(bots_cpu), bots["moves_s"]) / per_move(
            daphne_cores(ws.cpu), ws.moves_s
        )
        ratio_side = per_move(side_cores(bots_cpu), bots["moves_s"]) / per_move(
            side_cores(ws.cpu), ws.moves_s
        )
        print(
            f"  bots / WebSocket players, CPU per move: daphne {ratio_daphne:.2f}x, "
            f"daphne + PostgreSQL + Redis {ratio_side:.2f}x"
        )
    p99 = bots["from_row"]["p99"]
    verdicts = {
        "p99": p99 <= TARGET_P99_S * 1000 and not bots["rows_missing"],
        "lost": bots["lost"] == 0,
        "cpu": ratio_daphne <= TARGET_CPU_RATIO,
    }
    print("\n== verdict ==")
    print(
        f"  stream delay p99 <= 50 ms of the commit (from the row made): {p99:.1f} ms "
        f"[{'PASS' if verdicts['p99'] else 'MISS'}] (from the send: "
        f"{bots['from_send']['p99']:.1f} ms; from the answer: "
        f"{bots['from_answer']['p99']:.1f} ms)"
    )
    print(
        f"  none lost: {bots['lost']} [{'PASS' if verdicts['lost'] else 'MISS'}] "
        f"({bots['skipped']} versions skipped for a later state)"
    )
    print(
        f"  daphne CPU per move <= 1.25 x the WebSocket player's: {ratio_daphne:.2f}x "
        f"[{'PASS' if verdicts['cpu'] else 'MISS'}]"
    )
    return {
        "bots": bots,
        "bots_cpu": bots_cpu,
        "ws": ws.figures() if ws is not None and not ws.failed else None,
        "ratio_daphne": ratio_daphne,
        "ratio_side": ratio_side,
        "verdicts": verdicts,
    }


def guard_the_run(limit: int) -> None:
    """Stop the run (and so clean up) after `limit` seconds, or on Ctrl-C, SIGTERM or SIGHUP;
    raise the limit of open files for the clients' sockets."""

    def watchdog(signum, frame):
        raise TimeoutError(f"the benchmark ran longer than {limit} s")

    def stop(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGALRM, watchdog)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.alarm(limit)
    raise_fd_limit()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--bots", type=int, default=200, help="bot accounts, in pairs")
    parser.add_argument("--games", type=int, help="games at once (default: bots / 2)")
    parser.add_argument("--think", default="0.5,1.5", help="a bot's think time, MIN,MAX seconds")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of play before")
    parser.add_argument(
        "--quick", action="store_true", help="a short smoke run: 20 bots, 5 s warm-up, 10 s"
    )
    parser.add_argument("--no-sockets", action="store_true", help="skip the WebSocket players")
    parser.add_argument(
        "--countdown",
        action="store_true",
        help="challenge to tables that count down 3 s (a challenge's default) instead of the "
        "WebSocket players' tables, started at once",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="bots' window then WebSocket players' window, this many times on the same servers "
        "(each round its own accounts); the verdict takes the rounds' medians",
    )
    parser.add_argument("--profile", action="store_true", help="py-spy the daphne processes")
    parser.add_argument("--profile-dir", type=Path, help="keep py-spy's raw samples here")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--app",
        default="config.asgi:application",
        help="the ASGI application daphne serves (a variant of the server, as bench_load's)",
    )
    args = parser.parse_args(argv)
    if args.games is not None:
        args.bots = 2 * args.games
    if args.quick:
        args.bots, args.seconds, args.warmup = min(args.bots, 20), 10.0, 5.0
    if args.countdown:
        OPTIONS.pop("start", None)
    if args.bots < 2 or args.bots % 2:
        parser.error("--bots must be an even number, at least 2")
    try:
        low, high = (float(value) for value in args.think.split(","))
    except ValueError:
        parser.error("--think is MIN,MAX in seconds, e.g. 0.5,1.5")
    if not 0 <= low < high:
        parser.error("--think needs 0 <= MIN < MAX")
    args.think = (low, high)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.profile and not load.py_spy():
        parser.error("--profile needs py-spy: .venv/bin/pip install py-spy")
    # The limits 200 accounts from one address would hit, off in the servers' environment.
    os.environ.update(LIMITS_OFF)
    limit = int((SETUP_TIMEOUT_S + 2 * (args.warmup + args.seconds + 60)) * args.rounds + 60)
    guard_the_run(limit)
    cleanup: list = []
    profile_dir = args.profile_dir or Path(tempfile.mkdtemp(prefix="bench-bots-profile-"))
    profile_dir.mkdir(parents=True, exist_ok=True)
    server_args = SimpleNamespace(proxy="none", app=args.app, compare=None)
    if args.profile_dir is None:  # (cleaned up last)
        cleanup.append(lambda: shutil.rmtree(profile_dir, ignore_errors=True))
    logs: list[str] = []
    rounds: list[tuple] = []  # each round's (bots, bots_cpu, ws, profiles)
    with load.Reported(cleanup) as run:
        print("starting the scaled servers ...", flush=True)
        stage = load.start_stage("scaled", server_args, cleanup)
        try:
            for number in range(args.rounds):
                if args.rounds > 1:
                    print(f"round {number + 1} of {args.rounds}", flush=True)
                print("bots ...", flush=True)
                bots, bots_cpu, profiles = run_bots(stage, args, profile_dir, number * args.bots)
                ws = None
                if not args.no_sockets:
                    for server in stage.servers:
                        server.wait_idle(window=0.5, busy=0.1, cap=10)
                    print("WebSocket players ...", flush=True)
                    ws = run_sockets(stage, args, profile_dir)
                rounds.append((bots, bots_cpu, ws, profiles))
        finally:
            logs = load.stop_stage(stage)
    if not rounds:
        for log in logs:
            print_server_errors(load.CLIENT_ERROR_LINE.sub("", log), shown=1)
        return 1
    figures = []
    for number, (bots, bots_cpu, ws, profiles) in enumerate(rounds, 1):
        if args.rounds > 1:
            print(f"\n######## round {number} of {args.rounds}")
        figures.append(report(bots, bots_cpu, ws, args))
        for text in profiles:
            print("\n" + text)
        for text in ws.profiles if ws is not None else ():
            print("\nWebSocket players:\n" + text)
    summary = rounds_verdict(figures) if args.rounds > 1 else None
    if args.json:
        written = figures[0] if args.rounds == 1 else {"rounds": figures, "medians": summary}
        args.json.write_text(json.dumps(written, indent=2, default=str))
    errors = any(
        bool(bots["errors"]) or (ws is not None and bool(ws.errors or ws.failed))
        for bots, _, ws, _ in rounds
    )
    if errors:
        for log in logs:
            print_server_errors(load.CLIENT_ERROR_LINE.sub("", log), shown=1)
    lost = any(bots["lost"] for bots, *_ in rounds)
    return 1 if lost or errors or run.interrupted or run.failed else 0


def rounds_verdict(figures: list[dict]) -> dict:
    """The rounds side by side and the verdict on their medians (a round's bots and WebSocket
    players measured a minute apart: the machine's speed drifts between rounds, not within)."""
    rows = [
        (f["bots"]["from_row"]["p99"], f["ratio_daphne"], f["ratio_side"], f["bots"]["lost"])
        for f in figures
    ]
    print("\n== the rounds ==")
    print("  round  stream p99 from the row made   daphne CPU ratio   with PostgreSQL + Redis")
    for number, (p99, daphne, side, _) in enumerate(rows, 1):
        print(f"  {number:>5}  {p99:>21.1f} ms  {daphne:>16.2f}x  {side:>23.2f}x")
    medians = {
        "p99": statistics.median(r[0] for r in rows),
        "ratio_daphne": statistics.median(r[1] for r in rows),
        "ratio_side": statistics.median(r[2] for r in rows),
        "lost": sum(r[3] for r in rows),
    }
    print(
        f"  median {medians['p99']:>20.1f} ms  {medians['ratio_daphne']:>16.2f}x  "
        f"{medians['ratio_side']:>23.2f}x"
    )
    p99_ok = medians["p99"] <= TARGET_P99_S * 1000
    cpu_ok = medians["ratio_daphne"] <= TARGET_CPU_RATIO
    print("\n== verdict over the rounds (medians) ==")
    print(
        f"  stream delay p99 <= 50 ms of the commit: {medians['p99']:.1f} ms "
        f"[{'PASS' if p99_ok else 'MISS'}] ({sum(r[0] <= 50 for r in rows)} of {len(rows)} rounds)"
    )
    print(f"  none lost: {medians['lost']} [{'PASS' if not medians['lost'] else 'MISS'}]")
    print(
        f"  daphne CPU per move <= 1.25 x the WebSocket player's: "
        f"{medians['ratio_daphne']:.2f}x [{'PASS' if cpu_ok else 'MISS'}] "
        f"({sum(r[1] <= TARGET_CPU_RATIO for r in rows)} of {len(rows)} rounds)"
    )
    return medians


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main(sys.argv[1:]))
