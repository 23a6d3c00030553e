"""Server benchmark of the multiplayer Set table: the plain-text protocol and the WebSocket push.

Run on demand (never part of the test suite; it takes about two minutes, never more than three)::

    .venv/bin/python bench/bench_server.py
    .venv/bin/python bench/bench_server.py --only look,watch50 --duration 3 --rounds 8
    make bench                                        # every bench/bench_*.py

It starts the app the way `make run` does (`manage.py migrate` - with --run-syncdb, harmless once
every app has migrations - then daphne on 127.0.0.1 and a free port), with a throwaway SQLite file,
DJANGO_DEBUG=0 and loopback-only hosts, waits for /healthz and always stops the server at the end
(also on Ctrl-C, SIGTERM or the 175 s watchdog). All traffic stays on 127.0.0.1.

Clients run in this process on lean keep-alive HTTP/1.1 connections (bench/_clients.py), the server
in its own (daphne: one process, one event loop, Django's sync code in worker threads, so it can
use about one core). Each phase prints the CPU the server, the clients and the rest of the machine
used: the clients need a few percent of a core, so figures are server-bound; when other processes
keep the 2 cores busy, the server gets less than a core and every figure suffers.

Phases and targets (PASS/MISS is printed next to each figure):

- look: 8 clients, each on its own connection, GET /look/<name> (the default table) for 5 s:
  requests/s (target >= 1,000) and p50/p99 latency (target p99 < 20 ms).
- cycle: 8 clients, each on its own table (POST /api/games/, rules "declare", open) doing
  /tables/<id>/declare/P then three /pick/P/R,C that are deliberately not a set (so the table
  never runs out of cards) for 5 s: p50/p99 of declare and of pick (targets p99 < 20 ms), cycles/s.
- watch50 / watch200: N watchers (joined beforehand, so their /watch is not a join event) long-poll
  /tables/<id>/watch/w<i>. A round starts once all are waiting: the game's move log
  (/api/games/<id>/moves) shows every armed watcher's presence mark, which a /watch writes after
  subscribing and before it sleeps. Then an actor sends one of declare / pick / pick / pick (the
  table's declare_ms is long, so no timeout interferes). Latency = actor's request sent -> each
  watcher's reply received; a waiting watcher not answered within 5 s is lost. Up to 20 rounds
  within a time cap (25 s for 50 watchers, 50 s for 200). Target: p99 < 30 ms, none lost.
  Replies are checked: status 200 and the declare line the action implies.
- ws50: 50 WebSockets on /ws/games/<id>/ (Origin: the server's origin); an API seat posts the
  same actions to /api/games/<id>/moves. Latency = POST sent -> each socket receiving a state
  with a newer version; a socket without it after 5 s is lost. Target: p99 < 50 ms, none lost.

Reference, the original Java server: /look about 180 req/s with p99 48 ms; /watch fan-out to 50
watchers with p99 about 15 ms.

Exit status: 0 when every phase ran (MISSes included); 1 when a phase saw errors or wrong replies
(then the server's tracebacks are printed too) or the run was interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clients import AsyncConn, Conn, Reply, build_request, percentile  # noqa: E402
from _server import (  # noqa: E402
    Server,
    machine_busy_seconds,
    own_cpu_seconds,
    print_server_errors,
    raise_fd_limit,
)

WATCHDOG_S = 175  # the whole run stays under ~3 minutes
LOST_AFTER_S = 5.0
LONG_DECLARE_MS = 600_000  # fan-out tables: no declare timeout fires during the rounds
PHASES = ("look", "cycle", "watch50", "watch200", "ws50")


# -- results -------------------------------------------------------------------------------------


@dataclass
class Row:
    measure: str
    figure: str
    target: str = ""
    ok: bool | None = None  # None: no target

    @property
    def verdict(self) -> str:
        return "" if self.ok is None else ("PASS" if self.ok else "MISS")


@dataclass
class Phase:
    name: str
    rows: list[Row] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    other_cpu: float = 0.0  # cores busy with other processes on the machine
    seconds: float = 0.0
    log_seq: int = 0  # the last move seen in the fan-out table's log

    def error(self, message: str) -> None:
        if len(self.errors) < 5:
            self.errors.append(message)
        elif len(self.errors) == 5:
            self.errors.append("(more errors not shown)")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def dist(values: list[float]) -> str:
    return f"p50 {ms(percentile(values, 50))}, p99 {ms(percentile(values, 99))}"


class CpuMeter:
    """CPU used by the server process and by this (client) process over a phase."""

    def __init__(self, server: Server, phase: Phase) -> None:
        self.server, self.phase = server, phase

    def __enter__(self) -> CpuMeter:
        self.t0, self.s0, self.c0 = time.perf_counter(), self.server.cpu(), own_cpu_seconds()
        self.m0 = machine_busy_seconds()
        return self

    def __exit__(self, *exc) -> None:
        wall = time.perf_counter() - self.t0
        server, client = self.server.cpu() - self.s0, own_cpu_seconds() - self.c0
        self.phase.seconds = wall
        self.phase.server_cpu = server / wall
        self.phase.client_cpu = client / wall
        self.phase.other_cpu = max(machine_busy_seconds() - self.m0 - server - client, 0) / wall


# -- the plain-text protocol, as the benchmark needs it --------------------------------------------


def board_of(text: str) -> tuple[str, list[str], list[str]]:
    """(declare line, spot lines, cards in row-major order) of a BOARD reply."""
    lines = text.split("\n")
    if not re.fullmatch(r"\d+x\d+", lines[0] if lines else ""):
        raise ValueError(f"not a BOARD: {text[:80]!r}")
    spots = [line for line in lines[2:] if line]
    return lines[1], spots, [spot.split(" ", 1)[1] for spot in spots]


def is_set(cards: list[str]) -> bool:
    values = [card.split("/") for card in cards]
    return all(len(set(attribute)) != 2 for attribute in zip(*values, strict=True))


def non_set_picks(text: str) -> list[tuple[int, int]]:
    """Three board positions that are not a set (picking them never ends the game)."""
    size = text.split("\n", 1)[0]
    cols = int(size.split("x")[1])
    _, _, cards = board_of(text)
    for trio in itertools.combinations(range(len(cards)), 3):
        if not is_set([cards[i] for i in trio]):
            return [divmod(i, cols) for i in trio]
    raise ValueError("every triple on the board is a set")


def create_table(conn: Conn, *, declare_ms: int | None = None) -> int:
    options: dict = {"rules": "declare", "start": "now"}  # dealt at once: no Start to wait for
    if declare_ms is not None:
        options["declare_ms"] = declare_ms
    reply = conn.json("POST", "/api/games/", {"kind": "set", "options": options, "open": True})
    if reply.status != 201:
        raise RuntimeError(f"POST /api/games/ -> {reply.status}: {reply.text[:500]}")
    return reply.json()["id"]


def expect(reply: Reply, what: str, phase: Phase) -> bool:
    if reply.status != 200:
        title = re.search(r"<title>(.*?)</title>", reply.text, re.S)
        body = f"HTML page {title.group(1).strip()!r}" if title else repr(reply.text[:300])
        phase.error(f"{what} -> {reply.status}: {body}")
        return False
    return True


# -- phase: /look throughput ----------------------------------------------------------------------


def phase_look(server: Server, *, clients: int = 8, duration: float = 5.0) -> Phase:
    phase = Phase("look")
    latencies: list[list[float]] = [[] for _ in range(clients)]
    start_at = threading.Barrier(clients + 1)
    stop_at = [float("inf")]  # set once every client is ready

    def client(i: int) -> None:
        conn = Conn(server.port)
        path = f"/look/l{i}"
        raw = build_request("GET", path, server.port)
        try:
            for _ in range(20):  # warm-up: join, connection, caches
                conn.get(path)
            start_at.wait()
            mine = latencies[i]
            while time.perf_counter() < stop_at[0]:
                sent = conn.send(raw)
                reply = conn.read_reply()
                mine.append(reply.at - sent)
                if reply.status != 200 or not reply.body.startswith(b"3x"):
                    phase.error(f"GET {path} -> {reply.status}: {reply.text[:200]!r}")
        except Exception as exc:  # noqa: BLE001 - reported, not raised from a thread
            phase.error(f"look client {i}: {exc!r}")
            start_at.abort()  # nobody waits for a client that failed before the start
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        start_at.wait()
    with CpuMeter(server, phase):
        stop_at[0] = time.perf_counter() + duration
        for thread in threads:
            thread.join()
    values = [v for mine in latencies for v in mine]
    rate = len(values) / phase.seconds
    p99 = percentile(values, 99)
    phase.rows.append(
        Row(
            f"/look, {clients} clients, {duration:.0f} s",
            f"{rate:,.0f} req/s",
            ">= 1,000 req/s",
            rate >= 1000,
        )
    )
    phase.rows.append(Row("/look latency", dist(values), "p99 < 20 ms", p99 < 0.020))
    cost = phase.server_cpu * phase.seconds / max(len(values), 1)
    phase.rows.append(Row("  server CPU per /look", ms(cost)))
    return phase


# -- phase: declare-pick-pick-pick cycles ----------------------------------------------------------


def phase_cycle(server: Server, *, clients: int = 8, duration: float = 5.0) -> Phase:
    phase = Phase("cycle")
    setup = Conn(server.port)
    tables = [create_table(setup) for _ in range(clients)]
    setup.close()
    declares: list[list[float]] = [[] for _ in range(clients)]
    picks: list[list[float]] = [[] for _ in range(clients)]
    cycles = [0] * clients
    start_at = threading.Barrier(clients + 1)
    stop_at = [float("inf")]  # set once every client is ready

    def one_cycle(conn: Conn, base: str, i: int, record: bool) -> None:
        sent, reply = conn.get(f"{base}/declare/p{i}")
        if not expect(reply, f"GET {base}/declare/p{i}", phase):
            return
        line, _, _ = board_of(reply.text)
        if not line.startswith("my "):
            phase.error(f"GET {base}/declare/p{i}: declare line {line!r}, expected 'my <ms>'")
        if record:
            declares[i].append(reply.at - sent)
        for n, (row, col) in enumerate(non_set_picks(reply.text), start=1):
            path = f"{base}/pick/p{i}/{row},{col}"
            sent, reply = conn.get(path)
            if not expect(reply, f"GET {path}", phase):
                return
            if record:
                picks[i].append(reply.at - sent)
            line, spots, _ = board_of(reply.text)
            mine = sum(spot.startswith("my ") for spot in spots)
            want = (n, "my ") if n < 3 else (0, "none")
            if mine != want[0] or not line.startswith(want[1]):
                phase.error(f"GET {path}: {line!r} with {mine} 'my' spots after pick {n}")
        if record:
            cycles[i] += 1

    def client(i: int) -> None:
        conn = Conn(server.port)
        base = f"/tables/{tables[i]}"
        try:
            for _ in range(3):
                one_cycle(conn, base, i, record=False)
            start_at.wait()
            while time.perf_counter() < stop_at[0]:
                one_cycle(conn, base, i, record=True)
        except Exception as exc:  # noqa: BLE001 - reported, not raised from a thread
            phase.error(f"cycle client {i}: {exc!r}")
            start_at.abort()
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        start_at.wait()
    with CpuMeter(server, phase):
        stop_at[0] = time.perf_counter() + duration
        for thread in threads:
            thread.join()
    all_declares = [v for mine in declares for v in mine]
    all_picks = [v for mine in picks for v in mine]
    label = f"{clients} clients, 1 table each"
    phase.rows += [
        Row(
            f"declare ({label})",
            dist(all_declares),
            "p99 < 20 ms",
            percentile(all_declares, 99) < 0.020,
        ),
        Row("pick", dist(all_picks), "p99 < 20 ms", percentile(all_picks, 99) < 0.020),
        Row("declare+3 picks cycles", f"{sum(cycles) / phase.seconds:,.0f} cycles/s"),
        Row(
            "  server CPU per request",
            ms(phase.server_cpu / max(sum(cycles) * 4, 1) * phase.seconds),
        ),
    ]
    return phase


# -- phase: /watch fan-out ------------------------------------------------------------------------


def actions_for(board: str) -> list[tuple[str, str]]:
    """One declare cycle as (route suffix, expected watcher declare-line prefix) pairs."""
    steps = [("declare/actor", "up ")]
    trio = non_set_picks(board)
    for n, (row, col) in enumerate(trio, start=1):
        steps.append((f"pick/actor/{row},{col}", "up " if n < 3 else "none"))
    return steps


async def confirm_waiting(
    server: Server, actor: AsyncConn, table: int, pending: dict, phase: Phase
) -> set[str]:
    """Wait until every armed watcher's /watch has passed its join/touch transaction.

    A /watch subscribes to the table's group, then records the watcher's presence (a "look" move
    in the game's log, at most one a second per player) and only then sleeps; so once the log
    shows a look by every armed watcher since the last round, or the server has gone idle, all of
    them are waiting. Returns the names not confirmed in 20 s.
    """
    names = {f"w{i}" for i in pending}
    since = phase.log_seq
    start = time.monotonic()
    cpu, idle_since = server.cpu(), None
    while names and time.monotonic() < start + 20.0:
        await asyncio.sleep(0.03)
        # The server counts the long polls waiting on the table: all armed ones wait.
        actor.send(build_request("GET", f"/api/games/{table}/", actor.port))
        detail = await actor.read_reply()
        if detail.status == 200 and detail.json().get("watching", 0) >= len(pending):
            names = set()
            break
        actor.send(build_request("GET", f"/api/games/{table}/moves?since={since}", actor.port))
        reply = await actor.read_reply()
        if reply.status != 200:
            phase.error(f"GET /api/games/{table}/moves -> {reply.status}: {reply.text[:200]!r}")
            break
        for move in reply.json():
            since = max(since, move["seq"])
            if move["action"].get("type") == "look":
                names.discard(move["actor"])
        now_cpu = server.cpu()
        busy, cpu = now_cpu - cpu > 0.01, now_cpu  # polling alone costs a few ms a round trip
        idle_since = None if busy else (idle_since or time.monotonic())
        if idle_since and time.monotonic() - idle_since > 0.3:
            # A watcher seen less than a second ago is not marked present again (one presence
            # write a second), so the log cannot confirm every one: the server idling does.
            note = "readiness = every presence mark logged, or the server idle for 0.3 s"
            if note not in phase.notes:
                phase.notes.append(note)
            names = set()
    phase.log_seq = since
    return names


async def watch_fanout(server: Server, phase: Phase, watchers: int, rounds: int, cap: float):
    port = server.port
    setup = Conn(port)
    table = create_table(setup, declare_ms=LONG_DECLARE_MS)
    base = f"/tables/{table}"
    for i in range(watchers):  # join everyone first, so the rounds have no join events
        expect(setup.get(f"{base}/look/w{i}")[1], f"look w{i}", phase)
    expect(setup.get(f"{base}/look/actor")[1], "look actor", phase)
    scores = setup.get(f"{base}/scores")[1].text
    listed = {line.split(" ")[0] for line in scores.splitlines()}
    missing = {f"w{i}" for i in range(watchers)} - listed
    if missing:
        phase.error(f"/scores misses {len(missing)} joined watchers, e.g. {sorted(missing)[:3]}")
    phase.log_seq = setup.json("GET", f"/api/games/{table}/").json()["version"]
    setup.close()

    conns = [AsyncConn(port) for _ in range(watchers)]
    await asyncio.gather(*(conn.connect() for conn in conns))
    actor = AsyncConn(port)
    await actor.connect()
    requests = [build_request("GET", f"{base}/watch/w{i}", port) for i in range(watchers)]
    pending: dict[int, asyncio.Task] = {}
    latencies: list[float] = []
    last_per_round: list[float] = []
    actor_latencies: list[float] = []
    settle: list[float] = []
    lost = early = stale = not_ready = 0
    steps: list[tuple[str, str]] = []
    board = ""
    give_up = time.monotonic() + cap
    done_rounds = 0
    longest = 0.0  # the longest round so far: no round starts that would overrun the cap

    with CpuMeter(server, phase):
        for _ in range(rounds):
            if done_rounds and time.monotonic() + longest > give_up:
                phase.notes.append(f"stopped after {done_rounds} rounds (time cap {cap:.0f} s)")
                break
            round_start = time.monotonic()
            if not steps:
                actor.send(build_request("GET", f"{base}/look/actor", port))
                board = (await actor.read_reply()).text
                steps = actions_for(board)
            route, want = steps.pop(0)
            armed_at = time.perf_counter()
            for i, conn in enumerate(conns):  # (re)arm every watcher not already waiting
                if i not in pending:
                    conn.send(requests[i])
                    pending[i] = asyncio.ensure_future(conn.read_reply())
            unconfirmed = await confirm_waiting(server, actor, table, pending, phase)
            settle.append(time.perf_counter() - armed_at)
            await asyncio.sleep(0.02)  # "give them a moment"
            for i in [i for i, task in pending.items() if task.done()]:
                early += 1  # answered before the action: something else woke it
                pending.pop(i).exception()
            sent = actor.send(build_request("GET", f"{base}/{route}", port))
            reply = await actor.read_reply()
            actor_latencies.append(reply.at - sent)
            expect(reply, f"GET {base}/{route}", phase)
            done, _ = await asyncio.wait(pending.values(), timeout=LOST_AFTER_S)
            round_latencies = []
            for i, task in list(pending.items()):
                if task not in done:
                    if f"w{i}" in unconfirmed:
                        not_ready += 1  # its /watch had not reached the table: not a loss
                    else:
                        lost += 1
                    task.cancel()
                    conns[i].close()
                    await conns[i].connect()
                    pending.pop(i)
                    continue
                pending.pop(i)
                if task.exception() is not None:
                    phase.error(f"watcher w{i}: {task.exception()!r}")
                    conns[i].close()
                    await conns[i].connect()
                    continue
                answer = task.result()
                round_latencies.append(answer.at - sent)
                if not expect(answer, f"GET {base}/watch/w{i}", phase):
                    continue
                line = answer.text.split("\n", 2)[1]
                if not line.startswith(want):
                    stale += 1
                    phase.error(f"watch w{i} after {route}: declare line {line!r}, want {want!r}")
            latencies += round_latencies
            if round_latencies:
                last_per_round.append(max(round_latencies))
            done_rounds += 1
            longest = max(longest, time.monotonic() - round_start)
    for task in pending.values():
        task.cancel()
    for conn in conns + [actor]:
        conn.close()

    p99 = percentile(latencies, 99)
    phase.rows += [
        Row(
            f"/watch fan-out, {watchers} watchers, {done_rounds} rounds",
            f"{dist(latencies)}, lost {lost}",
            "p99 < 30 ms, 0 lost",
            p99 < 0.030 and lost == 0 and done_rounds > 0,
        ),
        Row("  all watchers answered (per round)", dist(last_per_round)),
        Row("  actor's own request", dist(actor_latencies)),
    ]
    phase.notes.append(
        f"re-arming {watchers} watchers (until the log showed all of them) took {dist(settle)}"
    )
    if not_ready:
        phase.notes.append(
            f"{not_ready} watcher requests were not confirmed waiting within 20 s when the actor "
            "acted (not counted as lost)"
        )
    if early or stale:
        phase.error(f"{early} watchers answered before the action, {stale} with a stale board")


def phase_watch(server: Server, watchers: int, rounds: int = 20, cap: float = 40.0) -> Phase:
    phase = Phase(f"watch{watchers}")
    asyncio.run(watch_fanout(server, phase, watchers, rounds, cap))
    return phase


# -- phase: WebSocket fan-out ---------------------------------------------------------------------

VERSION = re.compile(rb'"version":\s*(\d+)')


class Socket:
    """One WebSocket client that notes when it first sees a version above a target."""

    def __init__(self) -> None:
        self.version = -1
        self.target: int | None = None
        self.arrived: asyncio.Future | None = None
        self.errors: list[str] = []

    async def run(self, ws) -> None:
        try:
            async for message in ws:
                at = time.perf_counter()
                data = message.encode() if isinstance(message, str) else message
                if not data.startswith(b'{"type":"state"'):
                    self.errors.append(data[:200].decode(errors="replace"))
                    continue
                found = VERSION.search(data, 0, 200)
                version = int(found.group(1)) if found else -1
                self.version = max(self.version, version)
                if self.arrived and not self.arrived.done() and version > self.target:
                    self.arrived.set_result(at)
        except Exception as exc:  # noqa: BLE001 - a closed socket ends the reader
            self.errors.append(repr(exc))


async def ws_fanout(server: Server, phase: Phase, count: int, rounds: int, cap: float) -> None:
    from websockets.asyncio.client import connect

    port = server.port
    setup = Conn(port)
    table = create_table(setup, declare_ms=LONG_DECLARE_MS)
    joined = setup.json("POST", f"/api/games/{table}/join", {"name": "actor"})
    if joined.status != 201:
        raise RuntimeError(f"POST /api/games/{table}/join -> {joined.status}: {joined.text}")
    token = joined.json()["token"]
    setup.close()

    uri = f"ws://127.0.0.1:{port}/ws/games/{table}/"
    sockets = [Socket() for _ in range(count)]
    clients = []
    for _ in range(count):
        clients.append(
            await connect(uri, origin=server.origin, proxy=None, compression=None, max_size=None)
        )
    readers = [
        asyncio.ensure_future(sock.run(ws)) for sock, ws in zip(sockets, clients, strict=True)
    ]
    actor = AsyncConn(port)
    await actor.connect()
    headers = {"Content-Type": "application/json", "Authorization": f"Token {token}"}

    def post(action: str) -> bytes:
        path = f"/api/games/{table}/moves"
        return build_request("POST", path, port, action.encode(), headers)

    latencies: list[float] = []
    last_per_round: list[float] = []
    actor_latencies: list[float] = []
    lost = 0
    steps: list[str] = []
    give_up = time.monotonic() + cap
    done_rounds = 0
    longest = 0.0
    with CpuMeter(server, phase):
        for _ in range(rounds):
            if done_rounds and time.monotonic() + longest > give_up:
                phase.notes.append(f"stopped after {done_rounds} rounds (time cap {cap:.0f} s)")
                break
            round_start = time.monotonic()
            if not steps:
                actor.send(build_request("GET", f"/tables/{table}/look/actor", port))
                trio = non_set_picks((await actor.read_reply()).text)
                steps = ['{"type":"declare"}'] + [
                    f'{{"type":"pick","row":{r},"col":{c}}}' for r, c in trio
                ]
            await asyncio.sleep(0.05)
            await asyncio.to_thread(server.wait_idle)
            settled_by = time.monotonic() + LOST_AFTER_S
            while True:  # every socket has seen the latest version: nothing is in flight
                target = max(sock.version for sock in sockets)
                behind = sum(sock.version < target for sock in sockets)
                if not behind or time.monotonic() > settled_by:
                    break
                await asyncio.sleep(0.02)
            if behind:
                phase.error(f"{behind} sockets were behind version {target} before the round")
            loop = asyncio.get_running_loop()
            for sock in sockets:
                sock.target, sock.arrived = target, loop.create_future()
            sent = actor.send(post(steps.pop(0)))
            reply = await actor.read_reply()
            actor_latencies.append(reply.at - sent)
            expect(reply, f"POST /api/games/{table}/moves", phase)
            futures = [sock.arrived for sock in sockets]
            done, _ = await asyncio.wait(futures, timeout=LOST_AFTER_S)
            round_latencies = [f.result() - sent for f in futures if f in done]
            lost += count - len(round_latencies)
            latencies += round_latencies
            if round_latencies:
                last_per_round.append(max(round_latencies))
            done_rounds += 1
            longest = max(longest, time.monotonic() - round_start)
    actor.close()
    for ws in clients:
        await ws.close()
    for reader in readers:
        reader.cancel()
    for i, sock in enumerate(sockets):
        for message in sock.errors[:1]:
            if "ConnectionClosedOK" not in message:
                phase.error(f"socket {i}: {message}")

    p99 = percentile(latencies, 99)
    phase.rows += [
        Row(
            f"WebSocket fan-out, {count} sockets, {done_rounds} rounds",
            f"{dist(latencies)}, lost {lost}",
            "p99 < 50 ms, 0 lost",
            p99 < 0.050 and lost == 0 and done_rounds > 0,
        ),
        Row("  all sockets updated (per round)", dist(last_per_round)),
        Row("  actor's POST /moves", dist(actor_latencies)),
    ]


def phase_ws(server: Server, count: int = 50, rounds: int = 20, cap: float = 30.0) -> Phase:
    phase = Phase(f"ws{count}")
    asyncio.run(ws_fanout(server, phase, count, rounds, cap))
    return phase


# -- report ---------------------------------------------------------------------------------------


def print_table(server: Server, phases: list[Phase]) -> None:
    rows = [row for phase in phases for row in phase.rows]
    widths = [
        max(len(header), *(len(getattr(row, attr)) for row in rows))
        for header, attr in (("Measure", "measure"), ("Figure", "figure"), ("Target", "target"))
    ]

    def line(*cells: str) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths + [6], strict=True)).rstrip()

    print()
    print(
        f"Set table server benchmark: daphne on {server.origin}, SQLite (fresh temp file), "
        f"DJANGO_DEBUG=0, in-memory channel layer, {os.cpu_count()} CPUs"
    )
    print(line("Measure", "Figure", "Target", "Result"))
    print(line(*("-" * w for w in widths), "------"))
    for phase in phases:
        for row in phase.rows:
            print(line(row.measure, row.figure, row.target, row.verdict))
        cpu = (
            f"  [{phase.name}: {phase.seconds:.1f} s; CPU: server {phase.server_cpu:.0%} "
            f"of a core, bench clients {phase.client_cpu:.0%}, "
            f"other processes {phase.other_cpu:.1f} cores]"
        )
        print(cpu)
        for note in phase.notes:
            print(f"  [{phase.name}: {note}]")
    print()
    print(
        "Reference (original Java server): /look ~180 req/s, p99 48 ms; "
        "/watch fan-out to 50 watchers p99 ~15 ms."
    )
    errors = [(phase.name, error) for phase in phases for error in phase.errors]
    if errors:
        print("\nErrors and wrong replies:")
        for name, error in errors:
            print(f"  {name}: {error}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", default=",".join(PHASES), help=f"comma list of {PHASES}")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per load phase")
    parser.add_argument("--rounds", type=int, default=20, help="rounds per fan-out phase")
    args = parser.parse_args(argv)
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = set(wanted) - set(PHASES)
    if unknown:
        parser.error(f"unknown phases {sorted(unknown)}; choose from {PHASES}")

    def watchdog(signum, frame):
        raise TimeoutError(f"the benchmark ran longer than {WATCHDOG_S} s")

    def stop(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGALRM, watchdog)
    signal.signal(signal.SIGTERM, stop)  # so the finally clause stops the server
    signal.signal(signal.SIGHUP, stop)
    signal.alarm(WATCHDOG_S)
    raise_fd_limit()
    phases: list[Phase] = []
    server = Server()
    failed = False
    try:
        with server:
            print(f"daphne on {server.origin}", flush=True)
            runners = {
                "look": lambda: phase_look(server, duration=args.duration),
                "cycle": lambda: phase_cycle(server, duration=args.duration),
                "watch50": lambda: phase_watch(server, 50, args.rounds, cap=25),
                "watch200": lambda: phase_watch(server, 200, args.rounds, cap=50),
                "ws50": lambda: phase_ws(server, 50, args.rounds, cap=20),
            }
            for name in wanted:
                print(f"running {name} ...", flush=True)
                try:
                    phases.append(runners[name]())
                except Exception as exc:  # noqa: BLE001 - report and go on with the others
                    phase = Phase(name)
                    phase.error(f"phase failed: {exc!r}")
                    phases.append(phase)
    except (KeyboardInterrupt, TimeoutError) as exc:
        print(f"\ninterrupted: {exc!r}", file=sys.stderr)
        failed = True
    finally:
        signal.alarm(0)
    print_table(server, phases)
    if any(phase.errors for phase in phases) or failed:
        print_server_errors(getattr(server, "final_log", ""))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
