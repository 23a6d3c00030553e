"""Load benchmark: 100 Set tables of 4 players each, playing through the JSON API and WebSockets.

Run on demand (never part of the test suite; both scenarios take about 75 s, never more than
three minutes; a --find-max sweep of both, 6 to 10 minutes)::

    .venv/bin/python bench/bench_load.py
    .venv/bin/python bench/bench_load.py --scenario scaled --duration 20 --profile
    .venv/bin/python bench/bench_load.py --proxy nginx                # through deploy/'s nginx
    .venv/bin/python bench/bench_load.py --proxy nginx --find-max     # the most at p99 < 100 ms
    .venv/bin/python bench/run_all.py load          # or `make bench`: every bench/bench_*.py

Scenarios:

- **scaled**: two daphne processes on two free loopback ports, sharing a throwaway PostgreSQL
  database (``bench_load_<pid>`` created with psycopg on 127.0.0.1:5432 as user postgres, migrated
  once, dropped at the end) and Redis on 127.0.0.1:6379 (db 0; a ``CHANNEL_PREFIX`` unique to the
  run names its keys, which are deleted at the end). Tables alternate between the servers, and
  the 4 players of each table are split 2 and 2 across both, so every move's fan-out crosses
  Redis.
- **embedded**: one daphne as ``make run`` starts it (a fresh SQLite file, the in-memory channel
  layer).

``--proxy nginx`` puts either scenario behind one nginx (Debian's, ``make nginx``) configured from
the deployment's own template, as ``make deploy-check`` runs it (deploy/loopback.py: a user's
process in a temporary folder, on free loopback ports, a self-signed certificate; Debian's
``worker_processes auto``, and 4,096 connections a worker, since 400 players need about 1,600
across the workers, past Debian's 768). Every player's HTTP and WebSocket then goes to nginx over
HTTPS and secure WebSockets, and nginx spreads them over the servers (the embedded server fills
both of the template's upstream lines), which run as setgames@.service starts them: the
production settings, daphne with ``--proxy-headers`` and without its access log (nginx writes
one, a line per request, as deployed). nginx chooses a process per request and per WebSocket
(round robin in each of its workers), so a table's players are no longer split 2 and 2: the
report counts, from nginx's access log, the games whose sockets were on both processes. A change
is published to Redis once whichever processes its sockets are on; the other process receives it
only when it has sockets of that game. TLS costs the load generator too (its CPU is reported).

Every server runs with ``DJANGO_DEBUG=0``, loopback-only hosts, and the rate limits off
(``RATE_LIMIT_JOINS=off``, ``RATE_LIMIT_MOVES=off``): 400 players joining from one address would
hit the joins limit at once, and the benchmark measures the server, not the limiter.

The players: each table is a Set game created with ``POST /api/games/`` (kind ``set``, classic
rules, 4 attributes, so a valid claim of three cards scores at once). Each of its 4 players joins
(``POST /api/games/<id>/join``), opens ``/ws/games/<id>/?token=<seat token>`` (Origin: the
server's origin) and then, until the run ends: thinks for a random time (uniform in ``--think``,
default 0.5-1.5 s: 400 claims/s offered, the target's load with a third to spare;
``--think 0,1.2`` offers 667 and finds the most the servers take), looks for the sets on the
newest board it has (pushed by its WebSocket, or returned by its own last move) with the
project's engine (``cards.engine.fast.all_sets_codes``), picks one at random (people looking at
one board do not all spot the same set) and claims it: ``--ws-movers`` players of each table
(default 2) send the claim on their WebSocket, as the game pages do; the others with
``POST /api/games/<id>/moves`` and ``Authorization: Token <token>``, as bots do. Four players
racing on one board lose races: a claim answered 400 "Those cards were just taken." (or "The
game is over.") is a lost race, counted apart from errors. When a game ends (81 cards take
about 25 sets), the first player to notice creates a new game on the same table and the four
join it and reconnect, so every table keeps playing for the whole run; the games started are
reported.

The load generator is this script itself in ``--workers`` processes (default 1; tables are
split between them, a table's players always in one process), each an asyncio loop with the lean
keep-alive HTTP client of bench/_clients.py and the ``websockets`` package. Its CPU and its event
loop's lag are reported: when the lag grows, the generator, not the server, is the limit.

Measured over ``--duration`` seconds (default 20) after ``--warmup`` seconds (default 10) of
play, in which each table begins at a random moment of the first ``--stagger`` seconds (default
10): tables that all began together would all finish their games together, and 500 creates and
joins would arrive in one second, which no steady play does. A figure counts a move whose POST
was sent inside the window:

- accepted moves/s (claims the server confirmed as sets) and all move requests/s, next to the
  offered rate (players / mean think time: what they would send if the server answered at once);
- move latency p50/p99: claim sent -> its answer received (every move request), also apart for
  the API's and the WebSocket's;
- fan-out p50/p99: an accepted move's POST sent -> each *other* player's WebSocket receiving a
  state of that version or newer (players seated and connected before the POST, and still at
  the game when its answer came: one who left for the next game closes the old socket); also
  the per-move maximum ("all others updated"); a push not received within 5 s is lost;
- errors: any 5xx or unexpected status or reply (and the run's exit status is then 1);
- CPU over the window, in cores: each server process, nginx (its master and workers), PostgreSQL
  (the shared server's own processes and its sessions of this run's database, not other
  databases' sessions: other work on the machine uses it too), Redis (the server at
  ``REDIS_URL``, which other work may use too), the load generator, and the rest of the machine;
  and the server side's CPU per accepted move, in all and by part (nginx, each daphne,
  PostgreSQL, Redis), to size a server by.

``--find-max`` sweeps the offered rate, one step per rate of ``--ladder`` (claims/s, rising;
default 50,100,150,200,250,300,400), each step's think uniform in 0..H where 400 players /
(H / 2) is the rate, on the same servers (a step's players, tables and games are new; the
database keeps the earlier steps' games), 15 s measured unless ``--duration`` says otherwise; it
stops after two steps in a row miss move p99 < 100 ms (or a step has errors). A step's warm-up is
``--warmup`` (10 s) or a game's length at its rate if longer (a game is about 25 accepted claims
a table: 25 s at 100 claims/s, 50 s at 50), and its tables begin over the whole warm-up, so
that in the window games end, and the next ones are created, joined and connected to, at the
rate of steady play: a window that ended before the first games did would leave that out, and
tables that all began in the first 10 s would end their first games in one burst (the table
shows the games started a second). It prints a table by step (offered, warm-up,
accepted/s, p50, p99, games started/s, the server side's CPU and per move, the generator's and
the rest of the machine's), the best step (the most accepted moves/s with p99 under 100 ms and
no errors), and the full report of each scenario's best step. A step takes 40 to 80 s; both
scenarios' sweeps 6 to 10 minutes (the watchdog grows with the ladder).

Target on this 2-core machine: >= 300 accepted moves/s with move p99 < 100 ms (PASS/MISS).

``--profile`` samples each server process with py-spy (``pip install py-spy``; not a project
requirement) during the window, 100 times a second while it holds the GIL (a daphne process runs
Python on one core at a time), and prints where that time goes: by thread, by package, the
project's functions with what they call, and the hottest frames; ``--profile-dir`` keeps the raw
samples (collapsed stacks). Sampling costs the servers a little: compare with runs without it.
``--app module:application`` serves a variant of the server, to measure a change without
editing it; ``--json FILE`` writes the figures.

Exit status: 0 when every scenario ran (MISSes and lost pushes included: a push over 5 s late on
a saturated machine is slow, not wrong); 1 on errors (a socket the server closed is one), a failed
scenario or an interrupted run. Servers, worker processes, the database and the Redis keys are
always cleaned up, on Ctrl-C, SIGTERM and the 175 s watchdog too (a sweep's is longer: 60 s,
and per scenario 60 s plus each step's warm-up, window and 40 s: 20 minutes for the default
ladder's seven steps in both scenarios).
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
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from _clients import AsyncConn, build_request, percentile  # noqa: E402
from _server import (  # noqa: E402
    Server,
    _die_with_parent,
    cpu_seconds,
    machine_busy_seconds,
    own_cpu_seconds,
    print_server_errors,
    raise_fd_limit,
)

from cards.engine.fast import all_sets_codes  # noqa: E402
from deploy.loopback import NGINX, Nginx, daphne_options  # noqa: E402

WATCHDOG_S = 175  # both scenarios stay under ~3 minutes
# --find-max's watchdog: a scenario's servers (and database) start in well under a minute, and a
# step seats its players in seconds and ends in at most 12 s (the moves and pushes in flight).
SCENARIO_SETUP_S = 60
STEP_SETUP_S = 40
LOST_AFTER_S = 5.0
READY_TIMEOUT_S = 60.0
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_URL = "postgres://postgres@127.0.0.1:5432/{db}"
REDIS_URL = "redis://127.0.0.1:6379/0"
TARGET_MOVES_S = 300.0
TARGET_P99_S = 0.100
RACES = ("Those cards were just taken.", "The game is over.")
VERSION = re.compile(rb'"version":(\d+)')
SCENARIOS = ("scaled", "embedded")
# Each player holds two connections to nginx (keep-alive HTTP, its WebSocket) and nginx one or two
# to the servers for them: 400 players need about 1,600 connections across nginx's workers, past
# Debian's 768 a worker.
NGINX_CONNECTIONS = 4096
SOCKET_LINE = re.compile(r'"GET /ws/games/(\d+)/\S* HTTP/[\d.]+" 101 .* upstream=(\S+)')
LADDER = "50,100,150,200,250,300,400"  # --find-max's offered claims/s, one step each
GAME_CLAIMS = 25  # accepted claims in a game of Set (81 cards, 4 attributes), about
PARTS = ("nginx", "server", "postgres", "redis")  # the server side's CPU, by the Meter's names
# Django's log line for each 4xx answer (a lost race is one): not worth showing with the errors.
CLIENT_ERROR_LINE = re.compile(r"^[A-Z][A-Za-z ]+: /\S*\n", re.M)


# == the load generator (a worker process) =========================================================


class Stats:
    """What one worker saw; moves count when their POST was sent inside the window."""

    def __init__(self, start: float, end: float) -> None:
        self.start, self.end = start, end
        self.sent = self.accepted = self.races = 0
        self.latency: list[float] = []
        self.api_latency: list[float] = []  # of the moves sent over the JSON API
        self.ws_latency: list[float] = []  # of the moves sent over the WebSocket
        self.accepted_latency: list[float] = []
        self.fanout: list[float] = []
        self.fanout_all: list[float] = []
        self.lost = 0
        self.games = 0  # games started in the window
        self.joins = 0
        self.join_latency: list[float] = []
        self.lag: list[float] = []
        self.errors: collections.Counter[str] = collections.Counter()

    def inside(self, at: float) -> bool:
        return self.start <= at < self.end

    def error(self, message: str) -> None:
        self.errors[message[:300]] += 1

    def as_json(self) -> dict:
        data = {k: v for k, v in vars(self).items() if k != "errors"}
        data["errors"] = dict(self.errors)
        return data


class Fan:
    """One accepted move waiting for the other players' sockets to show its version."""

    __slots__ = ("sent", "waiting", "slowest", "stats", "counted", "sealed", "missed")

    def __init__(self, sent: float, stats: Stats) -> None:
        self.sent, self.stats = sent, stats
        self.waiting, self.slowest = 0, 0.0
        self.counted = stats.inside(sent)
        self.sealed = self.missed = False

    def arrived(self, at: float) -> None:
        latency = max(at - self.sent, 0.0)
        self.slowest = max(self.slowest, latency)
        self.waiting -= 1
        if self.counted:
            self.stats.fanout.append(latency)
        self.finish()

    def lost(self) -> None:
        self.waiting -= 1
        self.missed = True
        if self.counted:
            self.stats.lost += 1

    def seal(self) -> None:
        """Every socket that should show the move is registered: the last one ends the wait."""
        self.sealed = True
        self.finish()

    def finish(self) -> None:
        if self.sealed and not self.waiting and self.counted and not self.missed:
            self.stats.fanout_all.append(self.slowest)
            self.counted = False  # once


class Sock:
    """A player's WebSocket on one game: the newest state it received, and who waits for what."""

    def __init__(self, ws, game_id: int) -> None:
        self.ws, self.game_id = ws, game_id
        self.version = -1
        self.raw: bytes | None = None  # the newest state message, parsed only when needed
        self.first_at: float | None = None
        self.arrivals: collections.deque[tuple[int, float]] = collections.deque(maxlen=64)
        self.waiters: list[tuple[int, Fan]] = []
        self.first = asyncio.get_running_loop().create_future()
        self.closing = False
        self.retired = False  # its player has left the game (the socket closes once it is idle)
        self.answer: asyncio.Future | None = None  # the reply to a move sent on this socket

    async def read(self, stats: Stats) -> None:
        try:
            while True:
                data = await self.ws.recv(decode=False)
                at = time.perf_counter()
                if data.startswith((b'{"type":"result"', b'{"type":"error"')):
                    if self.answer is not None and not self.answer.done():
                        self.answer.set_result((at, json.loads(data)))
                    else:
                        stats.error(f"WebSocket reply to no move: {data[:200]!r}")
                    continue
                found = VERSION.search(data, 0, 80)
                if not data.startswith(b'{"type":"state"') or found is None:
                    stats.error(f"WebSocket message: {data[:200]!r}")
                    continue
                version = int(found.group(1))
                if version <= self.version:
                    continue
                self.version, self.raw = version, data
                self.arrivals.append((version, at))
                if self.first_at is None:
                    self.first_at = at
                    self.first.set_result(at)
                if self.waiters:
                    still = []
                    for wanted, fan in self.waiters:
                        if wanted <= version:
                            fan.arrived(at)
                        else:
                            still.append((wanted, fan))
                    self.waiters = still
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a closed socket ends the reader
            if not self.closing:
                stats.error(f"WebSocket on game {self.game_id} closed: {exc!r}")
            if not self.first.done():
                self.first.set_exception(exc)
                self.first.exception()

    def expect(self, version: int, fan: Fan) -> None:
        """Note when this socket shows `version` (maybe it already did)."""
        fan.waiting += 1
        if self.version >= version:
            fan.arrived(next(at for v, at in self.arrivals if v >= version))
        else:
            self.waiters.append((version, fan))

    def sweep(self, now: float) -> None:
        if self.waiters and now - self.waiters[0][1].sent > LOST_AFTER_S:
            keep = []
            for wanted, fan in self.waiters:
                if now - fan.sent > LOST_AFTER_S:
                    fan.lost()
                else:
                    keep.append((wanted, fan))
            self.waiters = keep


class Table:
    def __init__(self, spec: dict, gen: Generator) -> None:
        self.index, self.gen = spec["index"], gen
        self.game_id: int | None = None
        self.key: str | None = None
        self.creating: asyncio.Future | None = None
        self.players = [
            Player(self, n, port, n < spec["ws_movers"]) for n, port in enumerate(spec["ports"])
        ]
        self.socks: dict[int, dict[str, Sock]] = {}  # game id -> player name -> socket

    async def new_game(self, player: Player, finished: int | None) -> None:
        """Start the table's next game, once however many players noticed the end."""
        if self.game_id != finished:
            return
        if self.creating is not None:
            await asyncio.shield(self.creating)
            return
        self.creating = asyncio.get_running_loop().create_future()
        try:
            # Dealt at once (the players join a live table, as before tables waited for a Start).
            options = {"rules": "classic", "attributes": 4, "start": "now"}
            body = json.dumps({"kind": "set", "options": options})
            reply = await player.request("POST", "/api/games/", body.encode())
            if reply.status != 201:
                raise RuntimeError(f"POST /api/games/ -> {reply.status}: {reply.text[:200]}")
            # A private game (the API's default) is joined by its key, as a friend's link would.
            self.game_id, self.key = reply.json()["id"], reply.json().get("key")
            if self.gen.stats.inside(time.perf_counter()):
                self.gen.stats.games += 1
            self.creating.set_result(self.game_id)
        except Exception as exc:
            self.creating.set_exception(exc)
            self.creating.exception()
            raise
        finally:
            self.creating = None
        if finished is not None:
            asyncio.get_running_loop().call_later(LOST_AFTER_S + 1, self.socks.pop, finished, None)


class Player:
    def __init__(self, table: Table, number: int, port: int, via_ws: bool) -> None:
        self.table, self.port = table, port
        self.via_ws = via_ws  # moves over the WebSocket (as the browser's pages do), else the API
        self.name = f"t{table.index}p{number}"
        self.conn = AsyncConn(port, table.gen.tls)
        self.game_id: int | None = None
        self.token = ""
        self.seated_at: tuple[int, str] | None = None  # the game joined and its token
        self.sock: Sock | None = None
        self.view: dict | None = None
        self.view_version = -1

    @property
    def stats(self) -> Stats:
        return self.table.gen.stats

    async def request(self, method: str, path: str, body: bytes = b"", token: str = ""):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        return await self.conn.exchange(build_request(method, path, self.port, body, headers))

    async def join(self) -> None:
        """Take a seat at the table's current game and open its WebSocket."""
        from websockets.asyncio.client import connect

        game_id, key = self.table.game_id, self.table.key
        if self.seated_at is not None and self.seated_at[0] == game_id:
            token = self.seated_at[1]  # seated; only the socket failed last time: open it again
        else:
            body = json.dumps({"name": self.name}).encode()
            sent = time.perf_counter()
            query = f"?key={key}" if key else ""
            reply = await self.request("POST", f"/api/games/{game_id}/join{query}", body)
            if self.stats.inside(sent):
                self.stats.joins += 1
                self.stats.join_latency.append(reply.at - sent)
            if reply.status == 409 and "over" in reply.text:
                await self.table.new_game(self, game_id)  # it ended before this player came
                return
            if reply.status != 201:
                raise RuntimeError(
                    f"POST /api/games/{game_id}/join -> {reply.status}: {reply.text}"
                )
            token = reply.json()["token"]
            self.seated_at = (game_id, token)
        self.retire()
        tls = self.table.gen.tls
        uri = f"{'wss' if tls else 'ws'}://127.0.0.1:{self.port}/ws/games/{game_id}/?token={token}"
        origin = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        secure = {"ssl": tls} if tls else {}
        ws = await connect(
            uri, origin=origin, proxy=None, compression=None, max_size=None, **secure
        )
        sock = Sock(ws, game_id)
        self.table.gen.spawn(sock.read(self.stats))
        await asyncio.wait_for(sock.first, 10.0)
        self.game_id, self.token, self.sock = game_id, token, sock
        self.view, self.view_version = None, -1
        self.table.socks.setdefault(game_id, {})[self.name] = sock

    def retire(self) -> None:
        """Close the socket of a finished game once it has shown the moves others wait for."""
        sock, self.sock = self.sock, None
        if sock is None:
            return
        sock.retired = True

        async def close_when_done() -> None:
            give_up = time.perf_counter() + LOST_AFTER_S + 0.5
            while sock.waiters and time.perf_counter() < give_up:
                await asyncio.sleep(0.05)
            sock.sweep(time.perf_counter() + LOST_AFTER_S + 1)
            sock.closing = True
            await sock.ws.close()

        self.table.gen.spawn(close_when_done())

    def newest_view(self) -> dict:
        sock = self.sock
        if sock.version > self.view_version:
            message = json.loads(sock.raw)
            self.view, self.view_version = message["view"], message["version"]
        return self.view

    async def claim(self) -> None:
        view = self.newest_view()
        if view["over"]:
            await self.table.new_game(self, self.game_id)
            return
        codes = {card["code"]: card["digits"] for card in view["board"]}
        sets = all_sets_codes(list(codes), view["attributes"])
        if not sets:
            return  # the server deals more cards when there is no set: wait for the push
        found = random.choice(sets)  # players who see one board do not all see the same set
        body = json.dumps({"type": "claim", "cards": [codes[c] for c in found]}).encode()
        stats, game_id = self.stats, self.game_id
        sent = time.perf_counter()
        if self.via_ws:
            status, answer, at = await self.claim_on_socket(body)
        else:
            reply = await self.request("POST", f"/api/games/{game_id}/moves", body, self.token)
            status, at = reply.status, reply.at
            answer = reply.json() if reply.status in (200, 400) else {"detail": reply.text[:200]}
        counted = stats.inside(sent)
        latency = at - sent
        if counted:
            stats.sent += 1
            stats.latency.append(latency)
            (stats.ws_latency if self.via_ws else stats.api_latency).append(latency)
        if status == 200:
            version = answer["version"]
            if answer["outcome"].get("claim") != "set":
                stats.error(f"claim not judged a set: {str(answer)[:200]}")
                return
            if counted:
                stats.accepted += 1
                stats.accepted_latency.append(latency)
            fan = Fan(sent, stats)
            for name, sock in self.table.socks.get(game_id, {}).items():
                # Not a socket its player has left (the game ended while this move was on its
                # way, and the player went on to the next one): it may close before the push.
                if name == self.name or sock.retired:
                    continue
                if sock.first_at is not None and sock.first_at < sent:
                    sock.expect(version, fan)
            fan.seal()
            if "view" in answer and version > self.view_version:
                self.view, self.view_version = answer["view"], version
            return
        if status == 400 and answer.get("detail") in RACES:
            if counted:
                stats.races += 1
            if answer["detail"] == RACES[1]:
                await self.table.new_game(self, game_id)
            return
        way = "WebSocket" if self.via_ws else "POST /api/games/<id>/moves"
        stats.error(f"{way} -> {status}: {str(answer)[:200]}")

    async def claim_on_socket(self, body: bytes) -> tuple[int, dict, float]:
        """Send a claim on the WebSocket; its reply is a result (200) or an error (400)."""
        sock = self.sock
        sock.answer = asyncio.get_running_loop().create_future()
        await sock.ws.send(body.decode())
        try:
            at, message = await asyncio.wait_for(sock.answer, LOST_AFTER_S)
        finally:
            sock.answer = None
        return (200 if message["type"] == "result" else 400), message, at

    async def play(self, think: tuple[float, float], delay: float) -> None:
        end = self.stats.end
        await asyncio.sleep(delay)  # the table's start in the warm-up (--stagger)
        while time.perf_counter() < end:
            try:
                if self.game_id != self.table.game_id:
                    await self.join()
                    continue
                await asyncio.sleep(random.uniform(*think))
                if time.perf_counter() >= end:
                    break
                if self.game_id == self.table.game_id:
                    await self.claim()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - counted; the player goes on
                self.stats.error(f"player: {exc!r}")
                await asyncio.sleep(0.5)


class Generator:
    """One worker process: its tables, their players, and what they saw."""

    def __init__(self, spec: dict) -> None:
        self.spec = spec
        self.stats = Stats(float("inf"), float("inf"))
        # Through a proxy: HTTPS and secure WebSockets, trusting its certificate alone.
        cafile = spec.get("cafile")
        self.tls = ssl.create_default_context(cafile=cafile) if cafile else None
        self.tasks: set[asyncio.Task] = set()
        self.tables = [Table(table, self) for table in spec["tables"]]

    def spawn(self, coro) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def setup(self) -> None:
        async def seat(table: Table) -> None:
            await table.new_game(table.players[0], None)
            await asyncio.gather(*(player.join() for player in table.players))

        limit = asyncio.Semaphore(25)

        async def limited(table: Table) -> None:
            async with limit:
                await seat(table)

        await asyncio.gather(*(limited(table) for table in self.tables))

    async def watch_lag(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            if self.stats.inside(before):
                self.stats.lag.append(now - before - 0.01)

    async def sweep(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            now = time.perf_counter()
            for table in self.tables:
                for socks in table.socks.values():
                    for sock in socks.values():
                        sock.sweep(now)

    def pending(self) -> int:
        return sum(
            len(sock.waiters)
            for table in self.tables
            for socks in table.socks.values()
            for sock in socks.values()
        )

    async def run(self) -> dict:
        loop = asyncio.get_running_loop()
        await self.setup()
        print("ready", flush=True)
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line.startswith("go "):
            raise SystemExit(0)
        start, end = (float(value) for value in line.split()[1:3])
        self.stats.start, self.stats.end = start, end
        helpers = [self.spawn(self.watch_lag()), self.spawn(self.sweep())]
        # Play starts now, the warm-up before `start`; each table begins at its own moment in
        # the first --stagger seconds, so that its games do not all end at once with the others'.
        think, stagger = tuple(self.spec["think"]), self.spec["stagger"]
        players = []
        for table in self.tables:
            delay = random.uniform(0, stagger)
            players += [self.spawn(player.play(think, delay)) for player in table.players]
        await asyncio.sleep(max(end - time.perf_counter(), 0))
        await asyncio.wait(players, timeout=5.0)  # the moves in flight
        give_up = time.perf_counter() + LOST_AFTER_S + 0.5
        while self.pending() and time.perf_counter() < give_up:
            await asyncio.sleep(0.05)
        for table in self.tables:
            for socks in table.socks.values():
                for sock in socks.values():
                    sock.sweep(time.perf_counter() + LOST_AFTER_S + 1)
                    sock.closing = True
        for task in helpers + players:
            task.cancel()
        closing = [
            sock.ws.close()
            for table in self.tables
            for socks in table.socks.values()
            for sock in socks.values()
        ]
        await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 5.0)
        for table in self.tables:
            for player in table.players:
                player.conn.close()
        return self.stats.as_json()


def worker_main() -> int:
    """Play the tables given as JSON on stdin; print "ready", wait for "go", print the result."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us on Ctrl-C
    raise_fd_limit()
    spec = json.loads(sys.stdin.readline())
    try:
        result = asyncio.run(Generator(spec).run())
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        print("failed " + json.dumps(repr(exc)), flush=True)
        return 1
    print("result " + json.dumps(result), flush=True)
    return 0


# == the orchestrator ==============================================================================


@dataclass
class Outcome:
    """One scenario's figures, merged over the workers."""

    name: str
    title: str
    servers: int = 0
    duration: float = 0.0
    players: int = 0
    think: tuple[float, float] = (0.0, 0.0)
    warmup: float = 0.0
    sent: int = 0
    accepted: int = 0
    races: int = 0
    games: int = 0
    joins: int = 0
    lost: int = 0
    latency: list[float] = field(default_factory=list)
    accepted_latency: list[float] = field(default_factory=list)
    api_latency: list[float] = field(default_factory=list)
    ws_latency: list[float] = field(default_factory=list)
    fanout: list[float] = field(default_factory=list)
    fanout_all: list[float] = field(default_factory=list)
    join_latency: list[float] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)
    errors: collections.Counter = field(default_factory=collections.Counter)
    cpu: dict[str, float] = field(default_factory=dict)  # cores, over the window
    profiles: list[str] = field(default_factory=list)
    server_logs: list[str] = field(default_factory=list)
    spread: tuple[int, int] | None = None  # games with sockets, and those on both processes
    failed: str = ""

    def rate(self, count: int) -> float:
        return count / self.duration if self.duration else 0.0

    @property
    def offered(self) -> float:
        """Claims/s the players would send if every answer came at once."""
        mean = sum(self.think) / 2
        return self.players / mean if mean else 0.0

    @property
    def side_cores(self) -> float:
        """The server side's CPU: nginx, the daphne processes, PostgreSQL and Redis."""
        return sum(v for k, v in self.cpu.items() if k.startswith(PARTS))

    def per_move(self, cores: float) -> float:
        """CPU seconds per accepted move of a part that used `cores`."""
        return cores / self.moves_s if self.moves_s else math.nan

    @property
    def moves_s(self) -> float:
        return self.rate(self.accepted)

    @property
    def server_cores(self) -> float:
        return sum(cores for name, cores in self.cpu.items() if name.startswith("server"))

    @property
    def p99(self) -> float:
        return percentile(self.latency, 99)

    @property
    def passed(self) -> bool:
        return self.moves_s >= TARGET_MOVES_S and self.p99 < TARGET_P99_S

    def figures(self) -> dict:
        def pct(values: list[float]) -> dict:
            return {
                "p50_ms": round(percentile(values, 50) * 1000, 1),
                "p99_ms": round(percentile(values, 99) * 1000, 1),
            }

        return {
            "scenario": self.name,
            "moves_s": round(self.moves_s, 1),
            "requests_s": round(self.rate(self.sent), 1),
            "offered_s": round(self.offered, 1),
            "think_s": list(self.think),
            "warmup_s": round(self.warmup, 1),
            "races_s": round(self.rate(self.races), 1),
            "move_latency": pct(self.latency),
            "api_move_latency": pct(self.api_latency),
            "ws_move_latency": pct(self.ws_latency),
            "fanout": pct(self.fanout),
            "fanout_all": pct(self.fanout_all),
            "lost": self.lost,
            "errors": sum(self.errors.values()),
            "games_started": self.games,
            "cpu_cores": {k: round(v, 2) for k, v in self.cpu.items()},
            "server_cpu_ms_per_request": round(
                self.server_cores / max(self.rate(self.sent), 1e-9) * 1000, 2
            ),
            "server_cpu_ms_per_move": round(self.server_cores / max(self.moves_s, 1e-9) * 1000, 2),
            "cpu_ms_per_move": {
                k: round(self.per_move(v) * 1000, 3) for k, v in self.cpu.items() if k != "other"
            },
            "server_side_cpu_ms_per_move": round(self.per_move(self.side_cores) * 1000, 3),
            "games_with_sockets_on_both_processes": self.spread,
            "generator_lag": pct(self.lag),
            "pass": self.passed,
        }


# -- PostgreSQL and Redis -------------------------------------------------------------------------


def pg_admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql)


def pg_sweep_stale() -> None:
    """Drop databases of earlier runs whose process is gone (a run killed with SIGKILL)."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
        names = [
            row[0]
            for row in conn.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_load\\_%'"
            )
        ]
        for name in names:
            pid = name.removeprefix("bench_load_")
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def redis_forget(prefix: str) -> int:
    """Delete the run's keys (channel layer groups, cache counters) from Redis, and those left
    by earlier runs whose process is gone."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_timeout=5)
    try:
        keys = []
        for key in client.scan_iter(match="bench_load_*", count=1000):
            pid = key.split(b"_")[2]
            if key.startswith(prefix.encode()) or not Path(f"/proc/{pid.decode()}").exists():
                keys.append(key)
        if keys:
            client.delete(*keys)
        return len(keys)
    finally:
        client.close()


# -- CPU ------------------------------------------------------------------------------------------


def processes() -> dict[int, tuple[str, int]]:
    """Every process of the machine: pid -> (command, parent's pid) (Linux /proc)."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                text = handle.read()
        except OSError:
            continue
        command = text[text.index("(") + 1 : text.rindex(")")]
        found[int(entry.name)] = (command, int(text.rsplit(")", 1)[1].split()[1]))
    return found


def cpu_of(pids) -> dict[int, float]:
    """CPU seconds of each of `pids` still running."""
    found = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            found[pid] = cpu_seconds(pid)
    return found


def command_line(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace").split()
    except OSError:
        return []


def shared_postgres_pid() -> int | None:
    """The pid of the PostgreSQL server at PG_ADMIN_URL (its postmaster.pid), if readable."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
        (folder,) = conn.execute("SHOW data_directory").fetchone()
    try:
        return int((Path(folder) / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def shared_redis_pid() -> int:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_timeout=5)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


class Meter:
    """CPU over a window of each part: the daphne processes, nginx (its master and workers), the
    PostgreSQL server's own processes and its sessions of this run's database (not other
    databases' sessions: the machine's PostgreSQL is shared), Redis, the load generator, and
    the rest of the machine."""

    def __init__(
        self,
        servers: list[Server],
        workers: list[subprocess.Popen],
        *,
        nginx: Nginx | None = None,
        database: str | None = None,
    ) -> None:
        self.servers, self.workers, self.nginx, self.database = servers, workers, nginx, database
        self.postmaster = self.redis = None
        if database is not None:
            self.postmaster, self.redis = shared_postgres_pid(), shared_redis_pid()

    def postgres(self, table: dict[int, tuple[str, int]]) -> list[int]:
        """The server's own processes and this run's sessions (by their titles, e.g.
        "postgres: postgres bench_load_12 127.0.0.1(40170) idle")."""
        if self.postmaster is None:
            return []
        mine = [self.postmaster]
        for pid, (_, parent) in table.items():
            if parent != self.postmaster:
                continue
            words = command_line(pid)
            session = len(words) > 2 and words[0] == "postgres:" and not words[1].endswith(":")
            if not session or self.database in words:
                mine.append(pid)
        return mine

    def snapshot(self) -> dict:
        table = processes() if self.database is not None else {}
        return {
            "at": time.perf_counter(),
            "servers": [server.cpu() for server in self.servers],
            "workers": [cpu_seconds(w.pid) if w.poll() is None else 0.0 for w in self.workers],
            "nginx": cpu_of(self.nginx.pids()) if self.nginx else {},
            "postgres": cpu_of(self.postgres(table)),
            "redis": cpu_of([self.redis] if self.redis else []),
            "machine": machine_busy_seconds(),
            "self": own_cpu_seconds(),
        }

    @staticmethod
    def cores(before: dict, after: dict) -> dict[str, float]:
        wall = after["at"] - before["at"]

        def by_pid(name: str) -> float:
            return sum(cpu - before[name].get(pid, 0.0) for pid, cpu in after[name].items())

        cores = {}
        for i, (a, b) in enumerate(zip(before["servers"], after["servers"], strict=True)):
            cores[f"server{i + 1}" if len(before["servers"]) > 1 else "server"] = (b - a) / wall
        if after["nginx"]:
            cores["nginx"] = by_pid("nginx") / wall
        cores["generator"] = (
            sum(b - a for a, b in zip(before["workers"], after["workers"], strict=True))
            + after["self"]
            - before["self"]
        ) / wall
        if after["postgres"]:
            cores["postgres"] = by_pid("postgres") / wall
        if after["redis"]:
            cores["redis"] = by_pid("redis") / wall
        known = sum(cores.values()) * wall
        cores["other"] = max(after["machine"] - before["machine"] - known, 0.0) / wall
        return cores


# -- profiling ------------------------------------------------------------------------------------


def py_spy() -> str | None:
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


def start_profilers(name: str, servers: list[Server], duration: float, folder: Path) -> list:
    tool = py_spy()
    runs = []
    for i, server in enumerate(servers):
        out = folder / f"{name}-server{i + 1}.txt"
        command = [
            tool,
            "record",
            "--pid",
            str(server.pid),
            "--duration",
            str(max(int(duration), 1)),
            "--rate",
            "100",
            "--format",
            "raw",
            "--threads",
            "--gil",
            "--nolineno",
            "--output",
            str(out),
        ]
        proc = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_die_with_parent,
        )
        runs.append((proc, out))
    return runs


AREAS = (  # a sample's leaf frame's file -> where the time went
    ("psycopg", "psycopg (PostgreSQL driver)"),
    ("sqlite3", "sqlite3"),
    ("django/db/", "Django ORM and db backends"),
    ("rest_framework/", "DRF (views, parsers, renderers, auth)"),
    ("django/", "Django (handlers, middleware, urls, http)"),
    ("channels_redis/", "channels-redis and redis client"),
    ("redis/", "channels-redis and redis client"),
    ("msgpack", "channels-redis and redis client"),
    ("channels/", "Channels (consumers, layers)"),
    ("daphne/", "daphne and Twisted (HTTP, WebSocket frames)"),
    ("twisted/", "daphne and Twisted (HTTP, WebSocket frames)"),
    ("autobahn/", "daphne and Twisted (HTTP, WebSocket frames)"),
    ("txaio/", "daphne and Twisted (HTTP, WebSocket frames)"),
    ("zope/", "daphne and Twisted (HTTP, WebSocket frames)"),
    ("asgiref/", "asgiref (sync/async hops)"),
    ("asyncio/", "asyncio event loop"),
    ("json/", "json encode/decode"),
    ("games/", "games platform (services, selectors, consumers)"),
    ("cards/", "Set engine (rules, views, cards)"),
    ("concurrent/", "threads and queues"),
    ("threading", "threads and queues"),
    ("queue", "threads and queues"),
    ("logging/", "logging"),
)
FRAME = re.compile(r"^(.*) \((.*)\)$")
TRAILING_NUMBER = re.compile(r"[_-]?\d+$")


def area_of(path: str) -> str:
    for prefix, area in AREAS:
        if prefix in path:
            return area
    return "other Python (stdlib)"


def thread_of(frame: str) -> str:
    name = frame.split(": ", 1)[-1]
    if name == "MainThread":
        return "event loop (daphne/Twisted + asyncio: HTTP, WebSockets, consumers)"
    if name.startswith("games-db"):
        return "games-db threads (WebSocket reads of games)"
    if name.startswith(("ThreadPoolExecutor", "asgiref")):
        return "Django sync thread (API views, moves)"
    return "thread " + TRAILING_NUMBER.sub("", name)


def summarize_profile(path: Path, top: int = 14) -> str:
    """Where a server's sampled CPU went: by thread, by package, by function."""
    threads: collections.Counter[str] = collections.Counter()
    areas: collections.Counter[str] = collections.Counter()
    leaf: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = stack.split(";")
        total += n
        threads[thread_of(frames[0])] += n
        last = FRAME.match(frames[-1])
        where = last.group(2) if last else frames[-1]
        areas[area_of(where)] += n
        leaf[frames[-1]] += n
        for frame in set(frames[1:]):
            match = FRAME.match(frame)
            if match and match.group(2).startswith(("games/", "cards/", "config/")):
                inclusive[frame] += n
    if not total:
        return "  (no samples)"

    def lines(counter: collections.Counter, limit: int) -> list[str]:
        return [f"    {n / total:6.1%}  {name}" for name, n in counter.most_common(limit)]

    out = [f"  {total} samples (100 a second while holding the GIL)", "  by thread:"]
    out += lines(threads, 6)
    out += ["  by package (the sampled frame's own code):"]
    out += lines(areas, 12)
    out += ["  project functions, including what they call:"]
    out += lines(inclusive, top)
    out += ["  hottest frames (self time):"]
    out += lines(leaf, top)
    return "\n".join(out)


# -- one scenario ---------------------------------------------------------------------------------


def start_workers(
    count: int,
    tables: list[dict],
    think: tuple[float, float],
    stagger: float,
    cafile: str | None = None,
) -> list:
    workers = []
    for n in range(count):
        spec = {
            "tables": tables[n::count],
            "think": list(think),
            "stagger": stagger,
            "cafile": cafile,
        }
        proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=_die_with_parent,
        )
        proc.stdin.write(json.dumps(spec) + "\n")
        proc.stdin.flush()
        workers.append(proc)
    return workers


def read_line(proc: subprocess.Popen, timeout: float) -> str:
    """One line from a worker, or "" after `timeout` seconds or when it exited."""
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            return ""
    return proc.stdout.readline()


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for proc in workers:
        if proc.poll() is None:
            proc.terminate()
    for proc in workers:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@dataclass
class Stage:
    """A scenario's servers, started once for all its runs (a sweep's steps): where the players
    go, and what the meter reads."""

    name: str
    title: str
    servers: list[Server]
    nginx: Nginx | None = None
    database: str | None = None

    @property
    def ports(self) -> list[int]:
        """The ports players connect to: nginx's HTTPS port, or each server's own."""
        return [self.nginx.https_port] if self.nginx else [s.port for s in self.servers]

    @property
    def cafile(self) -> str | None:
        return str(self.nginx.cert) if self.nginx else None


def start_stage(name: str, args, cleanup: list) -> Stage:
    """Start a scenario's servers (and nginx in front with --proxy nginx); `cleanup` stops them."""
    run_id = f"bench_load_{os.getpid()}"
    proxied = args.proxy == "nginx"
    env: dict[str, str] = {}
    options: list[str] = []
    if proxied:
        # As setgames@.service runs a process behind the proxy: production settings, daphne with
        # --proxy-headers and without its access log (nginx writes one).
        env = {
            "DJANGO_SETTINGS_MODULE": "config.settings_production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        }
        options = daphne_options()
    if name == "scaled":
        title = "scaled: 2 daphne processes, PostgreSQL, Redis"
        pg_sweep_stale()
        pg_admin(f'DROP DATABASE IF EXISTS "{run_id}" WITH (FORCE)')
        pg_admin(f'CREATE DATABASE "{run_id}"')
        cleanup.append(lambda: pg_admin(f'DROP DATABASE IF EXISTS "{run_id}" WITH (FORCE)'))
        prefix = f"{run_id}_{int(time.time())}"
        cleanup.append(lambda: redis_forget(prefix))
        env.update(
            DATABASE_URL=PG_URL.format(db=run_id), REDIS_URL=REDIS_URL, CHANNEL_PREFIX=prefix
        )
        apps = [args.app, args.compare or args.app]
        servers = [
            Server(app, extra_env=env, migrate=n == 0, options=options)
            for n, app in enumerate(apps)
        ]
        stage = Stage(name, title, servers, database=run_id)
    else:
        title = "embedded: 1 daphne process, SQLite, in-memory channel layer"
        stage = Stage(name, title, [Server(args.app, extra_env=env, options=options)])
    for server in stage.servers:
        cleanup.append(server.stop)
        server.start()
    if proxied:
        nginx = Nginx(
            [f"127.0.0.1:{server.port}" for server in stage.servers],
            {"DJANGO_STATIC_ROOT": str(HERE.parent / "static")},
            workers="auto",  # Debian's nginx.conf: one worker per core
            connections=NGINX_CONNECTIONS,
        )
        cleanup.append(nginx.destroy)
        nginx.start(start_new_session=True, preexec_fn=_die_with_parent)
        stage.nginx = nginx
        stage.title += ", behind nginx (HTTPS, secure WebSockets)"
    where = ", ".join(server.origin for server in stage.servers)
    if stage.nginx:
        where = f"{stage.nginx.url} -> {where}"
    print(f"  servers on {where}", flush=True)
    return stage


def stop_stage(stage: Stage) -> list[str]:
    """Stop the scenario's processes; what they logged besides their access logs."""
    logs = []
    if stage.nginx is not None:
        stage.nginx.stop()
        if errors := stage.nginx.error_log().strip():
            logs.append(f"nginx's error log:\n{errors}\n")
    for server in stage.servers:
        server.stop()
        logs.append(getattr(server, "final_log", ""))
    return logs


def socket_spread(lines: list[str]) -> tuple[int, int]:
    """From nginx's access log: the games whose WebSockets were opened, and how many of them
    had their sockets on more than one server process (whose moves' changes cross Redis).

    >>> log = [
    ...     '127.0.0.1 [t] "GET /ws/games/7/?token=a HTTP/1.1" 101 9 upstream=127.0.0.1:801 rt=1',
    ...     '127.0.0.1 [t] "GET /ws/games/7/?token=b HTTP/1.1" 101 9 upstream=127.0.0.1:802 rt=1',
    ...     '127.0.0.1 [t] "GET /ws/games/8/?token=c HTTP/1.1" 101 9 upstream=127.0.0.1:801 rt=1',
    ...     '127.0.0.1 [t] "POST /api/games/8/moves HTTP/1.1" 200 9 upstream=127.0.0.1:802 rt=0',
    ... ]
    >>> socket_spread(log)
    (2, 1)
    """
    upstreams: dict[str, set[str]] = collections.defaultdict(set)
    for line in lines:
        found = SOCKET_LINE.search(line)
        if found:
            upstreams[found.group(1)].add(found.group(2))
    return len(upstreams), sum(len(where) > 1 for where in upstreams.values())


def play(
    stage: Stage,
    args,
    think: tuple[float, float],
    profile_dir: Path,
    warmup: float,
    stagger: float,
) -> Outcome:
    """One run on a stage's servers: seat the players, play (each table from a random moment
    of the first `stagger` seconds of the warm-up), measure, stop the players."""
    outcome = Outcome(stage.name, stage.title, servers=len(stage.servers), duration=args.duration)
    outcome.players = args.tables * args.players
    outcome.think, outcome.warmup = think, warmup
    ports = stage.ports
    tables = [
        {
            "index": t,
            "ports": [ports[(t + p) % len(ports)] for p in range(args.players)],
            "ws_movers": args.ws_movers,
        }
        for t in range(args.tables)
    ]
    logged_before = len(stage.nginx.log()) if stage.nginx else 0
    workers = start_workers(args.workers, tables, think, min(stagger, warmup), stage.cafile)
    try:
        setup_start = time.perf_counter()
        for proc in workers:
            line = read_line(proc, READY_TIMEOUT_S)
            if line.strip() != "ready":
                raise RuntimeError(f"a load worker did not get ready: {line.strip()[:500]!r}")
        print(
            f"  {outcome.players} players seated and connected in "
            f"{time.perf_counter() - setup_start:.1f} s; think {think[0]:g}-{think[1]:g} s, "
            f"warm-up {warmup:.0f} s, measuring {args.duration:.0f} s",
            flush=True,
        )
        start = time.perf_counter() + warmup
        end = start + args.duration
        for proc in workers:
            proc.stdin.write(f"go {start!r} {end!r}\n")
            proc.stdin.flush()
        meter = Meter(stage.servers, workers, nginx=stage.nginx, database=stage.database)
        time.sleep(max(start - time.perf_counter(), 0))
        profilers = []
        if args.profile:
            profilers = start_profilers(stage.name, stage.servers, args.duration, profile_dir)
        before = meter.snapshot()
        time.sleep(max(end - time.perf_counter(), 0))
        after = meter.snapshot()
        outcome.duration = after["at"] - before["at"]
        outcome.cpu = Meter.cores(before, after)
        for proc in workers:
            line = read_line(proc, 30.0)
            if not line.startswith("result "):
                raise RuntimeError(f"a load worker failed: {line.strip()[:500]!r}")
            merge(outcome, json.loads(line.removeprefix("result ")))
        for proc, out in profilers:
            try:
                _, err = proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                err = "py-spy did not finish"
            if out.exists():
                outcome.profiles.append(summarize_profile(out))
            else:
                outcome.profiles.append(f"  py-spy wrote nothing: {err.strip()[-500:]}")
    finally:
        stop_workers(workers)
    if stage.nginx and len(stage.servers) > 1:
        # The sockets' lines are written as they close: all of them once the players have gone.
        time.sleep(0.5)
        outcome.spread = socket_spread(stage.nginx.log()[logged_before:])
    return outcome


def ladder(rates: list[float], players: int) -> list[tuple[float, float]]:
    """The think ranges of a sweep: uniform in 0..H, where players / (H / 2) is each rate.

    >>> ladder([400, 800], 400)
    [(0.0, 2.0), (0.0, 1.0)]
    """
    return [(0.0, round(2 * players / rate, 3)) for rate in rates]


def step_warmup(rate: float, tables: int, least: float) -> float:
    """A sweep step's warm-up: at least `least` seconds, and as long as a game at `rate`
    claims/s (about GAME_CLAIMS accepted claims a table). The tables begin over the whole
    warm-up, so in the window their games end (and the next ones are created, joined and
    connected to) at the rate of steady play: a table that began at t ends its first game at
    t + the game's length.

    >>> step_warmup(100, 100, 10)
    25.0
    >>> step_warmup(400, 100, 10)
    10.0
    """
    return max(float(least), GAME_CLAIMS * tables / rate)


def ladder_done(outcomes: list[Outcome]) -> bool:
    """Whether a sweep (by rising offered rates) has gone past what the servers take: its last
    step failed or had errors, or its last two both missed move p99 < 100 ms."""
    if not outcomes:
        return False
    last = outcomes[-1]
    if last.failed or last.errors:
        return True
    return len(outcomes) >= 2 and all(o.p99 >= TARGET_P99_S for o in outcomes[-2:])


def run_scenario(name: str, args, cleanup: list) -> list[Outcome]:
    """Start the servers of a scenario, play once (or each step of --find-max's sweep on the
    same servers), measure, and stop everything it started."""
    keep = args.profile_dir
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    profile_dir = keep or Path(tempfile.mkdtemp(prefix="bench-load-profile-"))
    stage: Stage | None = None
    outcomes: list[Outcome] = []
    try:
        stage = start_stage(name, args, cleanup)
        if not args.find_max:
            outcomes.append(play(stage, args, args.think, profile_dir, args.warmup, args.stagger))
        else:
            steps = zip(args.ladder, ladder(args.ladder, args.tables * args.players), strict=True)
            for rate, think in steps:
                # Tables begin over a whole game's length, so that their games end as steadily
                # as in long play, not all in one burst inside the window.
                warmup = step_warmup(rate, args.tables, args.warmup)
                stagger = max(args.stagger, warmup)
                try:
                    outcomes.append(play(stage, args, think, profile_dir, warmup, stagger))
                except Exception as exc:  # noqa: BLE001 - a failed step ends the sweep
                    players = args.tables * args.players
                    failed = Outcome(name, stage.title, players=players, think=think)
                    failed.failed = repr(exc)
                    outcomes.append(failed)
                    print(f"  step failed: {exc!r}", flush=True)
                last = outcomes[-1]
                if not last.failed:
                    print(
                        f"  offered {last.offered:,.0f}/s: {last.moves_s:,.0f} accepted moves/s, "
                        f"p99 {ms(last.p99)}",
                        flush=True,
                    )
                if ladder_done(outcomes):
                    break
                for server in stage.servers:
                    server.wait_idle(window=0.5, busy=0.1, cap=10)
    finally:
        if stage is not None:
            logs = stop_stage(stage)
            if outcomes:
                outcomes[-1].server_logs.extend(logs)
        if keep is None:
            shutil.rmtree(profile_dir, ignore_errors=True)
        elif args.profile:
            print(f"  py-spy samples kept in {profile_dir}/{name}-server*.txt", flush=True)
    return outcomes


def merge(outcome: Outcome, stats: dict) -> None:
    for key in ("sent", "accepted", "races", "games", "joins", "lost"):
        setattr(outcome, key, getattr(outcome, key) + stats[key])
    for key in (
        "latency",
        "accepted_latency",
        "api_latency",
        "ws_latency",
        "fanout",
        "fanout_all",
        "join_latency",
        "lag",
    ):
        getattr(outcome, key).extend(stats[key])
    outcome.errors.update(stats["errors"])


# -- report ---------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def dist(values: list[float]) -> str:
    return f"p50 {ms(percentile(values, 50))}, p99 {ms(percentile(values, 99))}"


def part(o: Outcome, name: str, form: str, scale=None) -> str:
    """A part's CPU (cores, or ms per accepted move with `scale`), or "-" where it had none."""
    if name not in o.cpu:
        return "-"
    value = o.cpu[name] if scale is None else scale(o.cpu[name]) * 1000
    return form.format(value)


def report(outcomes: list[Outcome], args) -> None:
    if not outcomes:
        print("\nNo scenario finished.")
        return
    thinks = {o.think for o in outcomes if not o.failed} or {args.think}
    think = ", ".join(f"{low:g}-{high:g}" for low, high in sorted(thinks))
    warmups = {o.warmup for o in outcomes if not o.failed} or {args.warmup}
    warmup = ", ".join(f"{value:.0f}" for value in sorted(warmups))
    proxy = ", through nginx" if args.proxy == "nginx" else ""
    print()
    print(
        f"Load: {args.tables} Set tables (classic) x {args.players} players{proxy}, think "
        f"{think} s, {args.duration:g} s measured after {warmup} s warm-up, "
        f"{os.cpu_count()} CPUs, load generator in {args.workers} process(es)"
    )
    rows: list[tuple[str, list[str]]] = []

    def row(label: str, cell) -> None:
        rows.append((label, [cell(o) if not o.failed else "-" for o in outcomes]))

    row(
        f"accepted moves/s (target >= {TARGET_MOVES_S:.0f})",
        lambda o: f"{o.moves_s:,.0f}",
    )
    row("move requests/s (sent)", lambda o: f"{o.rate(o.sent):,.0f}")
    row("  offered (players / mean think)", lambda o: f"{o.offered:,.0f}")
    row("  lost races/s (just taken, over)", lambda o: f"{o.rate(o.races):,.0f}")
    row(f"move latency (target p99 < {TARGET_P99_S * 1000:.0f} ms)", lambda o: dist(o.latency))
    row("  accepted moves only", lambda o: dist(o.accepted_latency))
    row("  moves over the JSON API", lambda o: dist(o.api_latency))
    row("  moves over the WebSocket", lambda o: dist(o.ws_latency))
    row("fan-out to each other player", lambda o: dist(o.fanout))
    row("  all 3 others updated (per move)", lambda o: dist(o.fanout_all))
    row("lost pushes (none in 5 s)", lambda o: f"{o.lost}")
    row("errors", lambda o: f"{sum(o.errors.values())}")
    row("games started (create + 4 joins)", lambda o: f"{o.games} ({o.rate(o.games):.1f}/s)")
    row("  join latency", lambda o: dist(o.join_latency))
    row(
        "CPU, cores: server(s)",
        lambda o: " + ".join(f"{v:.2f}" for k, v in o.cpu.items() if k.startswith("server")),
    )
    row(
        "  server CPU per request / accepted",
        lambda o: f"{ms(o.server_cores / max(o.rate(o.sent), 1e-9))} / "
        f"{ms(o.server_cores / max(o.moves_s, 1e-9))}",
    )
    proxied = any("nginx" in o.cpu for o in outcomes)
    if proxied:
        row("  nginx (master and workers)", lambda o: part(o, "nginx", "{:.2f}"))
    row(
        "  PostgreSQL (this database) / Redis",
        lambda o: f"{part(o, 'postgres', '{:.2f}')} / {part(o, 'redis', '{:.2f}')}",
    )
    row("  load generator", lambda o: f"{o.cpu.get('generator', 0):.2f}")
    row("  other processes", lambda o: f"{o.cpu.get('other', 0):.2f}")
    row("CPU per accepted move: server side", lambda o: ms(o.per_move(o.side_cores)))
    if proxied:
        row("  nginx", lambda o: part(o, "nginx", "{:.2f} ms", o.per_move))
    row(
        "  daphne (each process)",
        lambda o: " + ".join(
            f"{o.per_move(v) * 1000:.2f}" for k, v in o.cpu.items() if k.startswith("server")
        )
        + " ms",
    )
    row("  PostgreSQL", lambda o: part(o, "postgres", "{:.2f} ms", o.per_move))
    row("  Redis", lambda o: part(o, "redis", "{:.2f} ms", o.per_move))
    if any(o.spread for o in outcomes):
        row(
            "games with sockets on both processes",
            lambda o: f"{o.spread[1]} of {o.spread[0]}" if o.spread else "-",
        )
    row("load generator loop lag", lambda o: dist(o.lag))
    row(
        "result",
        lambda o: ("PASS" if o.passed else "MISS")
        + f" ({o.moves_s:,.0f} moves/s, p99 {ms(o.p99)})",
    )
    width = max(len(label) for label, _ in rows) + 2
    cols = [
        max(len(o.name), *(len(cells[i]) for _, cells in rows)) + 2 for i, o in enumerate(outcomes)
    ]
    print("".ljust(width) + "".join(o.name.ljust(c) for o, c in zip(outcomes, cols, strict=True)))
    for label, cells in rows:
        print(label.ljust(width) + "".join(x.ljust(c) for x, c in zip(cells, cols, strict=True)))
    for o in outcomes:
        print(f"  [{o.name}: {o.title}]")
        if o.failed:
            print(f"  [{o.name} failed: {o.failed}]")
    for o in outcomes:
        if o.errors:
            print(f"\nErrors ({o.name}):")
            for message, count in o.errors.most_common(8):
                print(f"  {count} x {message}")
    for o in outcomes:
        for n, profile in enumerate(o.profiles, start=1):
            label = f"server {n} of {len(o.profiles)}" if len(o.profiles) > 1 else "the server"
            print(f"\nProfile, {o.name}, {label} (py-spy, CPU samples over the window):")
            print(profile)


def best_step(steps: list[tuple[float, float, bool]]) -> int | None:
    """The step of a sweep with the most accepted moves/s among those with move p99 under
    TARGET_P99_S and no errors; `steps` are (accepted moves/s, p99 in s, clean). None if none.

    >>> best_step([(262.0, 0.012, True), (351.0, 0.061, True), (377.0, 0.140, True)])
    1
    >>> best_step([(262.0, 0.012, True), (351.0, 0.061, False), (340.0, 0.098, True)])
    2
    >>> best_step([(180.0, 0.150, True)]) is None
    True
    """
    met = [i for i, (_, p99, clean) in enumerate(steps) if clean and p99 < TARGET_P99_S]
    return max(met, key=lambda i: steps[i][0]) if met else None


def report_sweep(outcomes: list[Outcome], args) -> list[Outcome]:
    """Each scenario's sweep as a table, and its best step; those best steps."""
    best: list[Outcome] = []
    for name in dict.fromkeys(o.name for o in outcomes):
        steps = [o for o in outcomes if o.name == name]
        print(
            f"\nMost accepted moves/s at move p99 < {TARGET_P99_S * 1000:.0f} ms, {steps[0].title} "
            f"({args.duration:g} s measured a step, after its warm-up):"
        )
        header = (
            "offered/s",
            "think s",
            "warm-up s",
            "accepted/s",
            "p50 ms",
            "p99 ms",
            "games/s",
            "server side cores",
            "ms/move",
            "generator",
            "other",
            "errors",
        )
        table = [header]
        for o in steps:
            if o.failed:
                table.append((f"{o.offered:,.0f}", f"0-{o.think[1]:g}", "failed", o.failed[:60]))
                continue
            table.append(
                (
                    f"{o.offered:,.0f}",
                    f"0-{o.think[1]:g}",
                    f"{o.warmup:.0f}",
                    f"{o.moves_s:,.0f}",
                    f"{percentile(o.latency, 50) * 1000:.1f}",
                    f"{o.p99 * 1000:.1f}",
                    f"{o.rate(o.games):.1f}",
                    f"{o.side_cores:.2f}",
                    f"{o.per_move(o.side_cores) * 1000:.2f}",
                    f"{o.cpu.get('generator', 0):.2f}",
                    f"{o.cpu.get('other', 0):.2f}",
                    f"{sum(o.errors.values())}",
                )
            )
        widths = [max(len(r[i]) for r in table if i < len(r)) + 2 for i in range(len(header))]
        for r in table:
            print("  " + "".join(cell.ljust(w) for cell, w in zip(r, widths, strict=False)))
        for o in steps:
            for message, count in o.errors.most_common(4):
                print(f"  errors at {o.offered:,.0f} offered: {count} x {message}")
        done = [o for o in steps if not o.failed]
        index = best_step([(o.moves_s, o.p99, not o.errors) for o in done])
        if index is None:
            print("  best: no step had move p99 under the target")
            continue
        top = done[index]
        best.append(top)
        print(
            f"  best: {top.moves_s:,.0f} accepted moves/s at p99 {ms(top.p99)} "
            f"(offered {top.offered:,.0f}/s, think 0-{top.think[1]:g} s)"
        )
    return best


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--scenario", default="scaled,embedded", help=f"comma list of {SCENARIOS}")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--players", type=int, default=4, help="players per table")
    parser.add_argument(
        "--duration", type=float, help="measured seconds (default 20; 15 a step of --find-max)"
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=10.0,
        help="seconds of play before (a step of --find-max: at least a game's length at its rate)",
    )
    parser.add_argument(
        "--stagger",
        type=float,
        default=10.0,
        help="tables begin play spread over this many seconds of the warm-up (at most all of "
        "it), so that their games do not all end, and their players all join anew, at once",
    )
    parser.add_argument(
        "--think",
        default="0.5,1.5",
        help="a player's think time, uniform in MIN,MAX seconds (400 players / 1 s mean: 400 "
        "claims/s offered; 0,1.2 offers 667, past what the servers take here)",
    )
    parser.add_argument("--workers", type=int, default=1, help="load generator processes")
    parser.add_argument(
        "--proxy",
        choices=("none", "nginx"),
        default="none",
        help="nginx: every player's HTTP and WebSocket goes through nginx configured from "
        "deploy/'s template (HTTPS, a self-signed certificate), in front of the scenario's "
        "servers, which run as setgames@.service starts them (production settings, "
        "--proxy-headers, no access log of daphne's)",
    )
    parser.add_argument(
        "--find-max",
        action="store_true",
        help="sweep the offered rate (--ladder, think uniform in 0..H) on the same servers and "
        f"report the most accepted moves/s with move p99 under {TARGET_P99_S * 1000:.0f} ms",
    )
    parser.add_argument(
        "--ladder",
        default=LADDER,
        help="--find-max's offered claims/s, rising, one step each; the sweep stops after two "
        f"steps in a row miss the p99 (default {LADDER})",
    )
    parser.add_argument(
        "--ws-movers",
        type=int,
        default=2,
        help="players per table who move over the WebSocket (as the pages do); the rest use the "
        "JSON API (as bots do)",
    )
    parser.add_argument(
        "--app",
        default="config.asgi:application",
        help="the ASGI application daphne serves (to compare a variant of the server)",
    )
    parser.add_argument(
        "--compare",
        metavar="APP",
        help="serve this ASGI application on the scaled scenario's second server: the two "
        "versions side by side under one load (the machine's speed drifts between runs by more "
        "than many changes are worth, but it drifts for both alike); compare their CPU",
    )
    parser.add_argument("--profile", action="store_true", help="sample the servers with py-spy")
    parser.add_argument(
        "--profile-dir", type=Path, help="keep py-spy's raw samples (collapsed stacks) here"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main()
    wanted = [name.strip() for name in args.scenario.split(",") if name.strip()]
    if set(wanted) - set(SCENARIOS) or not wanted:
        parser.error(f"choose scenarios from {SCENARIOS}")
    try:
        low, high = (float(value) for value in args.think.split(","))
    except ValueError:
        parser.error("--think is MIN,MAX in seconds, e.g. 0,1.2")
    if not 0 <= low < high:
        parser.error("--think needs 0 <= MIN < MAX")
    args.think = (low, high)
    if args.profile and not py_spy():
        parser.error("--profile needs py-spy: .venv/bin/pip install py-spy")
    try:
        args.ladder = parse_ladder(args.ladder)
    except ValueError as exc:
        parser.error(f"--ladder: {exc}")
    if args.find_max and args.profile:
        parser.error("--find-max measures without --profile (sampling slows the servers)")
    if args.duration is None:
        args.duration = 15.0 if args.find_max else 20.0
    if args.proxy == "nginx" and shutil.which(NGINX) is None:
        parser.error("--proxy nginx needs Debian's nginx and envsubst: make nginx")
    limit = watchdog_s(args, len(wanted))

    def watchdog(signum, frame):
        raise TimeoutError(f"the benchmark ran longer than {limit} s")

    def stop(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGALRM, watchdog)
    signal.signal(signal.SIGINT, stop)  # also when started with SIGINT ignored (`cmd &`)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.alarm(limit)
    raise_fd_limit()
    outcomes: list[Outcome] = []
    interrupted = False
    cleanup: list = []
    try:
        for name in wanted:
            print(f"running {name} ...", flush=True)
            try:
                outcomes.extend(run_scenario(name, args, cleanup))
            except (KeyboardInterrupt, TimeoutError):
                raise
            except Exception as exc:  # noqa: BLE001 - report and go on with the next scenario
                failed = Outcome(name, name, failed=repr(exc)[:1000])
                outcomes.append(failed)
                print(f"  {name} failed: {exc!r}", flush=True)
            finally:
                run_cleanup(cleanup)
    except (KeyboardInterrupt, TimeoutError) as exc:
        print(f"\ninterrupted: {exc!r}", file=sys.stderr)
        interrupted = True
    finally:
        signal.alarm(0)
        run_cleanup(cleanup)
    if args.find_max:
        best = report_sweep(outcomes, args)
        if best:
            print("\nThe best step of each sweep:")
            report(best, args)
    else:
        report(outcomes, args)
    if args.json:
        args.json.write_text(json.dumps([o.figures() for o in outcomes if not o.failed], indent=2))
    bad = [o for o in outcomes if o.failed or o.errors]
    for o in bad:
        for log in o.server_logs:
            print_server_errors(CLIENT_ERROR_LINE.sub("", log), shown=1)
    return 1 if bad or interrupted else 0


def parse_ladder(text: str) -> list[float]:
    """--ladder's rates: positive, rising.

    >>> parse_ladder("300, 450,600")
    [300.0, 450.0, 600.0]
    >>> parse_ladder("500,400")
    Traceback (most recent call last):
    ...
    ValueError: give rising rates, e.g. 300,400,500
    """
    try:
        rates = [float(value) for value in text.split(",") if value.strip()]
    except ValueError:
        raise ValueError("claims/s, comma separated, e.g. 300,400,500") from None
    if not rates or any(r <= 0 for r in rates) or rates != sorted(set(rates)):
        raise ValueError("give rising rates, e.g. 300,400,500")
    return rates


def watchdog_s(args, scenarios: int) -> int:
    """How long the whole run may take: 175 s for a run of each scenario at the defaults; a
    sweep, per scenario, its servers' start and each step's seating, warm-up, window and end.

    >>> from types import SimpleNamespace as Args
    >>> watchdog_s(Args(find_max=False, ladder=[400], tables=100, warmup=10, duration=20), 2)
    175
    >>> watchdog_s(Args(find_max=True, ladder=[100, 400], tables=100, warmup=10, duration=15), 2)
    470
    """
    if not args.find_max:
        return WATCHDOG_S
    steps = sum(
        STEP_SETUP_S + step_warmup(rate, args.tables, args.warmup) + args.duration
        for rate in args.ladder
    )
    return int(60 + scenarios * (SCENARIO_SETUP_S + steps))


class Reported:
    """A bench's run on its stage, as `with Reported(cleanup) as run:`: an interrupt, a time-out
    or a failure inside is said in one line and kept (`run.interrupted`, `run.failed`), not
    raised; the alarm is stopped and `cleanup` run whatever happens."""

    def __init__(self, cleanup: list) -> None:
        self.cleanup = cleanup
        self.interrupted = self.failed = False

    def __enter__(self) -> Reported:
        return self

    def __exit__(self, kind, exc, traceback) -> bool:
        if isinstance(exc, KeyboardInterrupt | TimeoutError):
            print(f"\ninterrupted: {exc!r}", file=sys.stderr)
            self.interrupted = True
        elif isinstance(exc, Exception):
            print(f"\nfailed: {exc!r}", file=sys.stderr)
            self.failed = True
        signal.alarm(0)
        run_cleanup(self.cleanup)
        return self.interrupted or self.failed


def run_cleanup(cleanup: list) -> None:
    """Run (once, last first) what a scenario left to undo; never let one failure stop the rest."""
    while cleanup:
        action = cleanup.pop()
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - tell, and go on cleaning
            print(f"cleanup: {exc!r}", file=sys.stderr)


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main(sys.argv[1:]))
