"""Arena benchmark (issue 29, "Speed and scale"): a bots' arena tournament of 400 players on two
daphne processes, PostgreSQL and Redis, with 400 watchers of its page's socket.

Run on demand (never part of the test suite; about ten minutes at the defaults)::

    .venv/bin/python bench/bench_arena.py
    .venv/bin/python bench/bench_arena.py --quick                 # 40 bots: about 2.5 minutes
    .venv/bin/python bench/bench_arena.py --bots 400 --seconds 120
    .venv/bin/python bench/bench_arena.py --seconds 90 --profile /tmp/arena-profile  # py-spy
    .venv/bin/python bench/run_all.py arena                       # or `make bench`: every bench

The servers are bench_load's ``scaled`` scenario (``bench_load.start_stage``): two daphne
processes on free loopback ports sharing a throwaway PostgreSQL database and Redis (a prefix of
the run's own), DJANGO_DEBUG=0, the joins and moves limits off, and bench_bots' other limits off
through the environment (sign-ups, challenges, chat). The environment also shortens an arena's
minute (``ARENA_MINUTE_S``) so that the shortest arena (10 minutes) lasts the joins' allowance,
the warm-up and the measured window: the tournament ends by itself at the window's end, and the
bench sees its running games finish and count, as a real arena's end.

**The bots** (``--bots``, default 400) are bench_bots' bots (its ``Bot``: raw asyncio HTTP with
bench/_clients.py's ``AsyncConn``, an NDJSON reader, the same claim policy), even ones on the
first daphne process and odd ones on the second. Each makes its account and turns it into a bot
(``POST /api/accounts``, ``POST /api/bot/account/upgrade``) and holds ``GET /api/stream/event``;
the first makes a bots' arena starting at once (``POST /api/tournaments``: Set, mode
``set-classic``, unrated, ``"bots": true``, 10 minutes of the shortened minute) and every bot
joins it (``POST /api/tournaments/<id>/join``). The arena's pairing seats them 2 to 4 a table
(all unrated bots share one rating, so a table of 4 starts as soon as 4 wait); each bot opens
``GET /api/games/<id>/stream`` on each ``gameStart`` and claims a set at random after a think
time (uniform in ``--think``, default 2-6 s). An arena's tables must be of a rated mode's
options, so a smaller deck (the "quick" 18 cards) or a race is refused: the 81-card classic
deck at that think time makes a table of 4 last about 25-40 s (a table of 2 about twice as
long; ``set-classic-3``, 27 cards, would last a few seconds). A share of the game ends
(``--pause-share``, default 5 %) is followed by a pause (``POST .../pause``), 2-5 s, and a
join again, so pausing is exercised under load too.

**The watchers** (``--watchers``, default: as many as bots), half on each process, hold the
tournament page's socket (``/ws/tournaments/<id>/``) anonymously; the standings come a page of
20 at a time, so watcher i asks for page i mod pages + 1 (``{"type": "page", "page": n}``) and
every page is watched.

**Measured** over ``--seconds`` (default 300) after ``--warmup`` (default 30):

1. end to next table: for each game a bot played that ended in the window (up to the wait limit
   of 10 s before the arena's end), from its end as the bot saw it first (its event stream's
   ``gameFinish`` or its game stream's last line) to its event stream's next ``gameStart``,
   leaving out the bots that paused in between; p50/p95/p99/max; a bot not seated again by
   the arena's end counts with the time it waited until then;
2. standings pushed: for each game ended in the window (its end: the first of its bots to see
   its last version) and each watcher whose last frame before that end showed one of its
   players, from the end to the watcher's first frame that no longer shows that player at a
   games count without this game (it shows the new count, or the player's new points moved
   them to another page); p50/p95/p99/max over those (watcher, game) pairs. A page shows 20
   players, so each game is judged by the watchers of its players' pages, not by all
   watchers (every watcher judges some games: all pages are watched);
3. double seatings: read from the database once the arena has ended and its games are over,
   each player's tournament games (made .. finished) overlapping in time, and each player
   seated at two games not over; and from the event streams, a ``gameStart`` while the bot's
   previous game has not ended on either of its streams 1 s later;
4. the recount: from the database, each finished game of the tournament ranked by its rules
   (the kind's ``rating``: its players' ranks), then scored again here from the rules stated in
   games/arena_scoring.py (n-1 points to the first of n down to 0, tied places share their
   mean, a player who won the two games before doubles the points; a win is a first place
   alone), each player's games in the order they finished; the standings' points, games and
   wins must equal it, and every finished game must be scored;
5. CPU over the window (bench_load's ``Meter``) per process: each daphne process, PostgreSQL,
   Redis, the generator (this process), the rest of the machine.

Targets: end to next table p99 < 2 s, standings pushed p99 <= 500 ms, no double seating, the
recount equal. Exit status 1 on errors (any 5xx or unexpected reply, a stream that broke), a
double seating, a recount that differs, or an interrupted run; a missed latency target is
printed as MISS. Servers, the database and the Redis keys are always cleaned up, on Ctrl-C,
SIGTERM and the watchdog too.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import collections
import contextlib
import datetime
import json
import math
import os
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import bench_bots as bots  # noqa: E402
import bench_load as load  # noqa: E402
from _clients import HOST  # noqa: E402
from _server import print_server_errors  # noqa: E402

TARGET_SEATED_P99_S = 2.0
TARGET_PUSH_P99_S = 0.5
WAIT_LIMIT_S = 10.0  # the pairing's wait limit (games.pairing.PLAY_NOW)
ARENA_MINUTES = 10  # the shortest arena; its minute is shortened to fit the run
MODE = "set-classic"
PAGE_SIZE = 20  # games.tournament_reads.PAGE_SIZE
DRAIN_S = 150.0  # after the arena's end, the longest its last games may take to finish
OVERLAP_GRACE_S = 1.0  # a gameStart before the last game's end line: how long that may lag


def setup_timeout(count: int) -> float:
    """How long the sign-ups (a password hashed each, on a shared machine) and joins may take."""
    return max(bots.SETUP_TIMEOUT_S, 120 + 1.5 * count)


# == pure helpers ==================================================================================


def placement_points(ranks: dict[str, int]) -> dict[str, float]:
    """Each player's placement points at a table of n ranked by `ranks` (lower is better, equal
    ranks tie): n-1 to the first down to 0, tied players the mean of the places they share.
    Written here from games/arena_scoring.py's docstring, not imported, to recount with.

    >>> placement_points({"a": 0, "b": 1, "c": 2})
    {'a': 2.0, 'b': 1.0, 'c': 0.0}
    >>> placement_points({"a": 0, "b": 0, "c": 1, "d": 2})
    {'a': 2.5, 'b': 2.5, 'c': 1.0, 'd': 0.0}
    >>> placement_points({"a": 1, "b": 1})
    {'a': 0.5, 'b': 0.5}
    """
    n = len(ranks)
    ordered = sorted(ranks.values())
    points = {}
    for who, rank in ranks.items():
        first = ordered.index(rank)  # the places this rank fills: first .. first + tied - 1
        tied = ordered.count(rank)
        points[who] = sum(n - 1 - place for place in range(first, first + tied)) / tied
    return points


def recount(games: list[dict]) -> dict[str, dict]:
    """Each player's points, games and wins from the tournament's finished games (each
    ``{"ranks": {name: rank}, ...}``, in the order they finished): placement points, doubled
    for a player who won (first alone) the two games before.

    >>> two = [{"ranks": {"a": 0, "b": 1}}] * 3 + [{"ranks": {"a": 1, "b": 0}}]
    >>> recount(two)["a"]
    {'points': 4.0, 'games': 4, 'wins': 3, 'streak': 0}
    >>> recount(two)["b"]
    {'points': 1.0, 'games': 4, 'wins': 1, 'streak': 1}
    """
    players: dict[str, dict] = {}
    for game in games:
        ranks = game["ranks"]
        points = placement_points(ranks)
        best = min(ranks.values()) if ranks else 0
        alone = sum(1 for r in ranks.values() if r == best) == 1 and len(ranks) > 1
        for who, rank in ranks.items():
            mine = players.setdefault(who, {"points": 0.0, "games": 0, "wins": 0, "streak": 0})
            factor = 2 if mine["streak"] >= 2 else 1
            mine["points"] += points[who] * factor
            mine["games"] += 1
            if alone and rank == best:
                mine["wins"] += 1
                mine["streak"] += 1
            else:
                mine["streak"] = 0
    return players


def overlaps(spans: list[tuple[float, float]]) -> int:
    """How many of one player's (start, end) spans begin before an earlier one ended (end
    math.inf: not ended).

    >>> overlaps([(0, 5), (6, 9), (9, math.inf)])
    0
    >>> overlaps([(0, 5), (4, 9), (10, math.inf), (11, 12)])
    2
    """
    found, latest = 0, -math.inf
    for start, end in sorted(spans):
        if start < latest:
            found += 1
        latest = max(latest, end)
    return found


def frame_after(frames: list[float], at: float) -> float | None:
    """The time of the first frame that came after `at` (None: none did).

    >>> frame_after([1.0, 2.0, 3.0], 2.0)
    3.0
    >>> frame_after([1.0], 1.5) is None
    True
    """
    found = bisect.bisect_right(frames, at)
    return frames[found] if found < len(frames) else None


def frame_before(frames: list[float], at: float) -> float:
    """The time of the last frame that came before `at` (inf: none did).

    >>> frame_before([1.0, 2.0, 3.0], 2.5)
    2.0
    >>> frame_before([1.0], 0.5)
    inf
    """
    found = bisect.bisect_right(frames, at)
    return frames[found - 1] if found else math.inf


# == the database, read at the end (a subprocess with the servers' database) =======================


def db_facts(tournament_id: int) -> dict:
    """The tournament's games (with their players' ranks by the kind's rules) and standings,
    read from the database the servers share; run with `--db-facts` in a process of its own."""
    import django

    django.setup()
    from games.models import Game, TournamentGame, TournamentPlayer, TournamentScore
    from games.rules import get_rules

    games = []
    rows = Game.objects.filter(tournament_link__tournament_id=tournament_id).prefetch_related(
        "seats__player__user"
    )
    for game in rows.order_by("pk"):
        names = {s.name: s.player.user.get_username() for s in game.seats.all() if s.player.user}
        ranks = None
        if game.status == Game.Status.OVER:
            rating = getattr(get_rules(game.kind), "rating", None)
            found = rating(game.options, game.state) if rating else None
            by_seat = found[1] if found else {}
            if set(by_seat) == set(names):
                ranks = {names[seat]: rank for seat, rank in by_seat.items()}
            else:  # the rules rank it not (a hint taken): everyone tied, as games.arena says
                ranks = dict.fromkeys(names.values(), 0)
        games.append(
            {
                "id": game.pk,
                "over": game.status == Game.Status.OVER,
                "created": game.created.timestamp(),
                "finished": game.finished.timestamp() if game.finished else None,
                "players": sorted(names.values()),
                "ranks": ranks,
            }
        )
    unscored = list(
        TournamentGame.objects.filter(
            tournament_id=tournament_id, scored=False, game__status=Game.Status.OVER
        ).values_list("game_id", flat=True)
    )
    standings = {
        row["user__username"]: {k: row[k] for k in ("points", "games", "wins", "streak")}
        for row in TournamentPlayer.objects.filter(tournament_id=tournament_id).values(
            "user__username", "points", "games", "wins", "streak"
        )
    }
    scores = collections.Counter(
        TournamentScore.objects.filter(tournament_id=tournament_id).values_list(
            "user__username", flat=True
        )
    )
    return {"games": games, "unscored": unscored, "standings": standings, "scores": scores}


def read_db(stage, tournament_id: int) -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_DEBUG": "0",
        "DATABASE_URL": load.PG_URL.format(db=stage.database),
    }
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, __file__, "--db-facts", str(tournament_id)],
        cwd=HERE.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        raise RuntimeError(f"reading the database failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def check_db(facts: dict) -> dict:
    """Double seatings and the recount, from `db_facts`."""
    spans: dict[str, list] = collections.defaultdict(list)
    running: collections.Counter = collections.Counter()
    for game in facts["games"]:
        end = game["finished"] if game["over"] and game["finished"] else math.inf
        for name in game["players"]:
            spans[name].append((game["created"], end))
            if not game["over"]:
                running[name] += 1
    doubled = {name: overlaps(s) for name, s in spans.items() if overlaps(s)}
    doubled_now = {name: n for name, n in running.items() if n > 1}
    finished = sorted(
        (g for g in facts["games"] if g["over"]), key=lambda g: (g["finished"] or 0, g["id"])
    )
    counted = recount(finished)
    mismatches = []
    for name in sorted(set(counted) | set(facts["standings"])):
        want = counted.get(name, {"points": 0.0, "games": 0, "wins": 0})
        have = facts["standings"].get(name)
        if have is None:
            mismatches.append(f"{name}: played {want['games']} games but is in no standing")
            continue
        if facts["scores"].get(name, 0) != have["games"]:
            rows = facts["scores"].get(name, 0)
            mismatches.append(f"{name}: {have['games']} games in the standings, {rows} scored")
        for key in ("points", "games", "wins"):
            if abs(have[key] - want[key]) > 1e-9:
                mismatches.append(
                    f"{name}: {key} {have[key]} in the standings, {want[key]} recounted"
                )
    return {
        "games": len(facts["games"]),
        "finished": len(finished),
        "running": sum(1 for g in facts["games"] if not g["over"]),
        "unscored": facts["unscored"],
        "doubled": doubled,
        "doubled_now": doubled_now,
        "players": len(facts["standings"]),
        "mismatches": mismatches,
        "points": sum(p["points"] for p in counted.values()),
    }


# == the bots and the watchers =====================================================================


@dataclass
class ArenaRun(bots.Run):
    """bench_bots' Run, and what an arena adds: each bot's games and pauses, the watchers."""

    tournament_id: int = 0
    arena_end: float = math.inf  # perf_counter() of the arena's end
    # time.time() - time.perf_counter(): the database's times on the bots' clock (one machine)
    clock_offset: float = 0.0
    draining: bool = False
    starts: dict[str, dict[int, float]] = field(default_factory=dict)  # bot -> game -> at
    finishes_at: dict[str, dict[int, float]] = field(default_factory=dict)
    pauses: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    stream_overlaps: list[str] = field(default_factory=list)


class ArenaBot(bots.Bot):
    """A bench_bots bot that plays in the arena instead of challenging a partner."""

    def __init__(self, number, port, run, think, pause_share: float) -> None:
        super().__init__(number, port, run, think)
        self.pause_share = pause_share
        run.starts[self.name], run.finishes_at[self.name] = {}, {}
        run.pauses[self.name] = []

    async def checked(self, method: str, path: str, body=None, want: int = 200):
        reply = await self.request(method, path, body)
        if reply.status != want:
            raise RuntimeError(f"{method} {path} -> {reply.status}: {reply.text[:300]}")
        return reply.json()

    def game_ended(self, game_id: int) -> float | None:
        """When this bot first saw the game end: its gameFinish, or its stream's last line."""
        follow = self.run.follows.get((game_id, self.number))
        times = [self.run.finishes_at[self.name].get(game_id, math.inf)]
        if follow is not None and follow.raw is not None and bots.OVER in follow.raw:
            times.append(follow.seen.get(follow.version, math.inf))
        return min(times) if min(times) < math.inf else None

    async def events(self) -> None:
        run = self.run
        stream = bots.Ndjson(self.port, "/api/stream/event", self.token)
        try:
            await stream.open()
            self.events_open.set_result(True)
            async for line, at in stream.lines():
                event = json.loads(line)
                kind, game = event.get("type"), event.get("game") or {}
                if kind == "gameStart" and game.get("id") not in run.starts[self.name]:
                    game_id = game["id"]
                    run.starts[self.name][game_id] = at
                    follow = bots.Follow(game_id)
                    run.follows[(game_id, self.number)] = follow
                    run.by_game.setdefault(game_id, []).append(follow)
                    run.spawn(self.read_game(follow))
                    run.spawn(self.check_overlap(game_id))
                    if run.inside(at) and len(run.by_game[game_id]) == 1:
                        run.games += 1  # its first bot's gameStart
                elif kind == "gameFinish":
                    run.finishes_at[self.name].setdefault(game["id"], at)
                    run.finishes += 1
                    if random.random() < self.pause_share and at < run.arena_end - 10:
                        run.spawn(self.pause())
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - counted
            if not run.stopping:
                run.error(f"event stream: {exc!r}")
            if not self.events_open.done():
                self.events_open.set_exception(exc)
        finally:
            stream.close()

    async def check_overlap(self, game_id: int) -> None:
        """A gameStart while an earlier game of this bot has not ended on its streams (given
        OVERLAP_GRACE_S for the end's line to come): a double seating seen by the bot."""
        await asyncio.sleep(OVERLAP_GRACE_S)
        mine = self.run.starts[self.name]
        for other, started in mine.items():
            if other != game_id and started <= mine[game_id] and self.game_ended(other) is None:
                self.run.stream_overlaps.append(f"{self.name}: game {game_id} during {other}")

    async def pause(self) -> None:
        path = f"/api/tournaments/{self.run.tournament_id}"
        began = time.perf_counter()
        try:
            await self.checked("POST", f"{path}/pause")
            await asyncio.sleep(random.uniform(2.0, 5.0))
            await self.checked("POST", f"{path}/join")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - counted
            self.run.error(f"pause: {exc!r}")
        self.run.pauses[self.name].append((began, time.perf_counter()))

    async def play(self) -> None:
        while not self.run.stopping:
            try:
                await asyncio.sleep(random.uniform(*self.think))
                if self.follow is not None and not self.follow.over:
                    await self.claim()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - counted; the bot goes on
                self.run.error(f"bot: {exc!r}")
                await asyncio.sleep(0.5)


class Watcher:
    """One anonymous socket of the tournament's page, on one page of the standings: for each
    player it showed, each games count with when it was first and last shown."""

    def __init__(self, number: int, port: int, page: int, run: ArenaRun) -> None:
        self.number, self.port, self.page, self.run = number, port, page, run
        self.seen: dict[str, list[list]] = {}
        self.frames: list[float] = []  # when each frame of its page came
        self.ws = None
        self.closing = False

    async def open(self) -> None:
        from websockets.asyncio.client import connect

        uri = f"ws://{HOST}:{self.port}/ws/tournaments/{self.run.tournament_id}/"
        self.ws = await connect(
            uri, origin=f"http://{HOST}:{self.port}", proxy=None, compression=None, max_size=None
        )
        if self.page != 1:
            await self.ws.send(json.dumps({"type": "page", "page": self.page}))

    async def read(self) -> None:
        import orjson

        try:
            async for data in self.ws:
                at = time.perf_counter()
                frame = orjson.loads(data)
                if frame.get("type") != "tournament":
                    self.run.error(f"watcher: {str(frame)[:200]}")
                    continue
                state = frame["tournament"]
                if state["page"] != self.page:
                    continue  # the first page's, sent before this page was asked for
                self.frames.append(at)
                for player in state["standings"]:
                    rows = self.seen.setdefault(player["name"], [])
                    if rows and rows[-1][0] == player["games"]:
                        rows[-1][2] = at
                    else:
                        rows.append([player["games"], at, at])
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - counted
            if not self.closing:
                self.run.error(f"watcher socket closed: {exc!r}")

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 2)


class Arena:
    """The run, in this process's event loop (a thread of its own, so the orchestrator meters
    CPU meanwhile)."""

    def __init__(self, ports: list[int], args) -> None:
        self.ports, self.args = ports, args
        self.run = ArenaRun()
        self.bots: list[ArenaBot] = []
        self.watchers: list[Watcher] = []
        self.signed_up = math.inf

    async def setup(self) -> dict:
        run, args = self.run, self.args
        self.bots = [
            ArenaBot(n, self.ports[n % 2], run, args.think, args.pause_share)
            for n in range(args.bots)
        ]
        limit = asyncio.Semaphore(8)  # a sign-up hashes a password: a few at once

        async def sign_up(bot: ArenaBot) -> None:
            async with limit:
                await bot.sign_up()

        await asyncio.gather(*(sign_up(bot) for bot in self.bots))
        self.signed_up = time.perf_counter()
        for bot in self.bots:
            run.spawn(bot.events())
        await asyncio.wait_for(asyncio.gather(*(b.events_open for b in self.bots)), 60)
        body = {
            "kind": "set",
            "options": {"mode": MODE},
            "starts_at": datetime.datetime.now(datetime.UTC).isoformat(),
            "minutes": ARENA_MINUTES,
            "rated": False,
            "bots": True,
            "name": "Bench arena",
        }
        made = await self.bots[0].checked("POST", "/api/tournaments", body, want=201)
        run.tournament_id = made["id"]
        ends_at = datetime.datetime.fromisoformat(made["ends_at"]).timestamp()
        run.clock_offset = time.time() - time.perf_counter()
        run.arena_end = ends_at - run.clock_offset
        # The watchers first (each page, both processes), then the joins, a few at once.
        pages = max(1, -(-args.bots // PAGE_SIZE))
        self.watchers = [
            Watcher(n, self.ports[n % 2], n % pages + 1, run) for n in range(args.watchers)
        ]
        opening = asyncio.Semaphore(32)

        async def open_watcher(watcher: Watcher) -> None:
            async with opening:
                await watcher.open()
            run.spawn(watcher.read())

        await asyncio.gather(*(open_watcher(w) for w in self.watchers))
        joining = asyncio.Semaphore(16)
        order = list(self.bots)
        random.shuffle(order)

        async def join(bot: ArenaBot) -> None:
            async with joining:
                await bot.checked("POST", f"/api/tournaments/{run.tournament_id}/join")

        await asyncio.gather(*(join(bot) for bot in order))
        for bot in self.bots:
            run.spawn(bot.play())
        return made

    async def watch_lag(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            if self.run.inside(before):
                self.run.lag.append(now - before - 0.01)

    async def play(self, start: float) -> bool:
        """Until the arena's end, then until its games are over (DRAIN_S at most); whether
        every game ended."""
        run = self.run
        run.start, run.end = start, run.arena_end
        run.spawn(self.watch_lag())
        await asyncio.sleep(max(run.arena_end - time.perf_counter(), 0))
        run.draining = True
        give_up = time.perf_counter() + DRAIN_S
        while time.perf_counter() < give_up:
            if all(follow.over for follow in run.follows.values()):
                break
            await asyncio.sleep(0.2)
        drained = all(follow.over for follow in run.follows.values())
        await asyncio.sleep(2.0)  # the watchers' last frames
        await self.cancel()
        return drained

    async def cancel(self) -> None:
        self.run.stopping = True
        for watcher in self.watchers:
            await watcher.close()
        tasks = list(self.run.tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5.0)
        for bot in self.bots:
            bot.conn.close()
            bot.side.close()


# == the figures ===================================================================================


def seated_figures(arena: Arena) -> dict:
    """From each game's end to its bot's next table (figure 1)."""
    run = arena.run
    waits, unseated, paused, counted_ends = [], 0, 0, 0
    last = run.arena_end - WAIT_LIMIT_S
    for bot in arena.bots:
        starts = sorted(run.starts[bot.name].items(), key=lambda kv: kv[1])
        for (game_id, _), following in zip(starts, [*starts[1:], None], strict=True):
            ended = bot.game_ended(game_id)
            if ended is None or not run.start <= ended < last:
                continue
            until = following[1] if following else run.arena_end
            if any(a < until and b > ended for a, b in run.pauses[bot.name]):
                paused += 1
                continue
            counted_ends += 1
            waits.append(max(until - ended, 0.0))
            if following is None:
                unseated += 1
    return {"wait": bots.spread(waits), "unseated": unseated, "paused": paused, "n": counted_ends}


def seated_parts(arena: Arena, facts: dict) -> dict:
    """Figure 1 in three parts, for the same game ends, by the database's times (on the bots'
    clock: one machine): the game's end as committed -> as its bot saw it; that commit -> the
    next table's creation (the tick, the pairing, the wait for others); that creation -> its
    gameStart on the bot's event stream."""
    run, games = arena.run, {g["id"]: g for g in facts["games"]}
    parts: dict[str, list[float]] = {"end seen": [], "seated": [], "start seen": []}
    last = run.arena_end - WAIT_LIMIT_S
    for bot in arena.bots:
        starts = sorted(run.starts[bot.name].items(), key=lambda kv: kv[1])
        for (game_id, _), following in zip(starts, starts[1:], strict=False):
            ended = bot.game_ended(game_id)
            game, after = games.get(game_id), games.get(following[0])
            if ended is None or not run.start <= ended < last or not game or not after:
                continue
            if not game["finished"] or any(
                a < following[1] and b > ended for a, b in run.pauses[bot.name]
            ):
                continue
            finished = game["finished"] - run.clock_offset
            created = after["created"] - run.clock_offset
            parts["end seen"].append(max(ended - finished, 0.0))
            parts["seated"].append(max(created - finished, 0.0))
            parts["start seen"].append(max(following[1] - created, 0.0))
    return {name: bots.spread(values) for name, values in parts.items()}


def pushed_figures(arena: Arena, facts: dict) -> dict:
    """From each game's end to each watcher's frame with its points (figure 2)."""
    run = arena.run
    # Each player's games count after each game, in the order the games finished.
    count_after: dict[tuple[int, str], int] = {}
    played: collections.Counter = collections.Counter()
    finished = sorted(
        (g for g in facts["games"] if g["over"]), key=lambda g: (g["finished"] or 0, g["id"])
    )
    for game in finished:
        for name in game["players"]:
            played[name] += 1
            count_after[(game["id"], name)] = played[name]
    delays, never, judged_games = [], 0, 0
    judging: set[int] = set()
    for game in finished:
        follows = run.by_game.get(game["id"], [])
        ends = [f.seen.get(f.version) for f in follows if f.raw is not None and bots.OVER in f.raw]
        ends = [e for e in ends if e is not None]
        if not ends or not run.inside(min(ends)):
            continue
        ended = min(ends)
        judged = False
        for watcher in arena.watchers:
            last_frame = frame_before(watcher.frames, ended)
            best = None
            for name in game["players"]:
                after = count_after[(game["id"], name)]
                old = [last for g, _, last in watcher.seen.get(name, ()) if g < after]
                # Judged when the watcher's last frame before the end showed the player: its
                # first frame after the end that shows the player no more at a count without
                # this game (with it, or on another page as its points moved it) is the first
                # with the game's points.
                if not old or max(old) < last_frame:
                    continue
                at = frame_after(watcher.frames, max(ended, *old))
                if at is None:
                    never += 1
                    continue
                best = at if best is None else min(best, at)
            if best is not None:
                delays.append(best - ended)
                judging.add(watcher.number)
                judged = True
        judged_games += judged
    return {
        "push": bots.spread(delays),
        "never": never,
        "games": judged_games,
        "watchers": len(judging),
        "frames": sum(len(w.frames) for w in arena.watchers),
    }


def run_arena(stage, args) -> tuple[Arena, dict, dict, bool]:
    """Sign up, make the arena, join, watch, play; the arena, its summary, the CPU (cores) and
    whether its games all ended."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def call(coro, timeout):
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)

    arena = Arena(stage.ports, args)
    try:
        began = time.perf_counter()
        made = call(arena.setup(), setup_timeout(args.bots))
        run = arena.run
        start = run.arena_end - args.seconds
        warmup = start - time.perf_counter()
        print(
            f"  {args.bots} bots signed up ({arena.signed_up - began:.1f} s) and joined arena "
            f"{made['id']}, {args.watchers} watchers on {max(1, -(-args.bots // PAGE_SIZE))} "
            f"pages, in {time.perf_counter() - began:.1f} s; think "
            f"{args.think[0]:g}-{args.think[1]:g} s, "
            f"warm-up {warmup:.0f} s, measuring {args.seconds:.0f} s to the arena's end",
            flush=True,
        )
        if warmup < 5:
            raise RuntimeError(f"the setup left {warmup:.1f} s of warm-up: raise --warmup")
        done = asyncio.run_coroutine_threadsafe(arena.play(start), loop)
        meter = load.Meter(stage.servers, [], database=stage.database)
        time.sleep(max(start - time.perf_counter(), 0))
        before = meter.snapshot()
        profilers = []
        if args.profile:
            profilers = load.start_profilers("arena", stage.servers, args.seconds, args.profile)
        time.sleep(max(run.arena_end - time.perf_counter(), 0))
        after = meter.snapshot()
        cpu = load.Meter.cores(before, after)
        cpu["duration"] = after["at"] - before["at"]
        drained = done.result(DRAIN_S + 30)
        for proc, out in profilers:
            proc.wait(timeout=60)
            print(f"\n== profile of {out.stem} (py-spy) ==")
            print(load.summarize_profile(out) if out.exists() else "  no samples")
        return arena, made, cpu, drained
    finally:
        with contextlib.suppress(Exception):
            call(arena.cancel(), 15)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


def report(arena: Arena, cpu: dict, facts: dict, checked: dict, drained: bool, args) -> dict:
    run = arena.run
    seated = seated_figures(arena)
    pushed = pushed_figures(arena, facts)
    duration = cpu.pop("duration")

    def row(label: str, s: dict) -> str:
        return (
            f"  {label:<40} p50 {s['p50']:8.1f}  p95 {s['p95']:8.1f}  p99 {s['p99']:8.1f}  "
            f"max {s['max']:8.1f} ms  (n={s['n']})"
        )

    accepted = [m for m in run.moves if m.counted]
    print(f"\n== arena: {args.bots} bots, {args.watchers} watchers, {duration:.0f} s measured ==")
    print(
        f"  games: {checked['games']} in all, {run.games} started in the window, "
        f"{checked['finished']} finished, {checked['running']} not over at the end "
        f"({'all ended' if drained else 'NOT all ended within the drain'}); accepted claims "
        f"{len(accepted) / duration:.1f}/s, lost races {run.races}, gameFinish events "
        f"{run.finishes}"
    )
    print(row("game end -> the player's next gameStart", seated["wait"]))
    print(
        f"    ({seated['n']} game ends counted, {seated['paused']} left out for a pause, "
        f"{seated['unseated']} not seated again by the arena's end)"
    )
    parts = seated_parts(arena, facts)
    print(row("  its end committed -> seen by the bot", parts["end seen"]))
    print(row("  its end committed -> next table made", parts["seated"]))
    print(row("  next table made -> its gameStart seen", parts["start seen"]))
    print(row("game end -> a watcher's standings with it", pushed["push"]))
    print(
        f"    ({pushed['games']} games judged by {pushed['watchers']} watchers, "
        f"{pushed['frames']} frames in all; {pushed['never']} pairs never shown anew)"
    )
    print(row("move request, send -> answer", bots.spread(run.latency)))
    print(f"  generator loop lag: {bots.spread(run.lag)['p99']:.1f} ms p99")
    doubles = sum(checked["doubled"].values()) + len(checked["doubled_now"])
    print(
        f"  double seatings: {doubles} in the database ({len(checked['doubled'])} players), "
        f"{len(run.stream_overlaps)} seen on the event streams"
    )
    for text in run.stream_overlaps[:5]:
        print(f"    {text}")
    print(
        f"  recount: {checked['players']} players, {checked['finished']} finished games, "
        f"{checked['points']:g} points; {len(checked['mismatches'])} differences, "
        f"{len(checked['unscored'])} finished games unscored"
    )
    for text in checked["mismatches"][:8]:
        print(f"    {text}")
    if run.errors:
        print(f"  errors: {sum(run.errors.values())}")
        for text, n in sorted(run.errors.items(), key=lambda kv: -kv[1])[:8]:
            print(f"    {n} x {text}")
    print("\n== CPU over the window: cores ==")
    parts = ["server1", "server2", "postgres", "redis", "generator", "other"]
    print("  " + "".join(f"{p:>11}" for p in parts))
    print("  " + "".join(f"{cpu.get(p, 0):>11.2f}" for p in parts))
    recount_ok = not checked["mismatches"] and not checked["unscored"]
    verdicts = {
        "seated": seated["wait"]["p99"] < TARGET_SEATED_P99_S * 1000,
        "pushed": pushed["push"]["p99"] <= TARGET_PUSH_P99_S * 1000,
        "double": doubles == 0,
        "recount": recount_ok,
    }

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "MISS"

    print("\n== verdict ==")
    print(
        f"  end -> next table p99 < 2 s: {seated['wait']['p99']:.1f} ms "
        f"[{verdict(verdicts['seated'])}]"
    )
    print(
        f"  standings pushed p99 <= 500 ms: {pushed['push']['p99']:.1f} ms "
        f"[{verdict(verdicts['pushed'])}]"
    )
    print(f"  no player seated twice: {doubles} [{verdict(verdicts['double'])}]")
    print(
        f"  standings = recount: {len(checked['mismatches'])} differences, "
        f"{len(checked['unscored'])} unscored [{verdict(verdicts['recount'])}]"
    )
    return {
        "bots": args.bots,
        "watchers": args.watchers,
        "duration": duration,
        "claims_s": len(accepted) / duration,
        "games_in_window": run.games,
        "move_latency": bots.spread(run.latency),
        "lag": bots.spread(run.lag),
        "drained": drained,
        "seated": seated,
        "seated_parts": parts,
        "pushed": pushed,
        "checked": {k: v for k, v in checked.items() if k != "mismatches"},
        "mismatches": checked["mismatches"][:50],
        "stream_overlaps": run.stream_overlaps[:50],
        "cpu": cpu,
        "errors": dict(run.errors),
        "verdicts": verdicts,
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["--db-facts"]:
        print(json.dumps(db_facts(int(argv[1]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--bots", type=int, default=400, help="bot accounts in the arena")
    parser.add_argument("--watchers", type=int, help="sockets of its page (default: --bots)")
    parser.add_argument("--think", default="2,6", help="a bot's think time, MIN,MAX seconds")
    parser.add_argument("--seconds", type=float, default=300.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=30.0, help="seconds of arena before")
    parser.add_argument("--pause-share", type=float, default=0.05, help="game ends then paused")
    parser.add_argument(
        "--quick", action="store_true", help="a short smoke run: 40 bots, 15 s warm-up, 45 s"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="FOLDER",
        help="py-spy both daphne processes over the window; raw samples kept in FOLDER",
    )
    args = parser.parse_args(argv)
    if args.profile:
        if not load.py_spy():
            parser.error("--profile needs py-spy: .venv/bin/pip install py-spy")
        args.profile.mkdir(parents=True, exist_ok=True)
    if args.quick:
        args.bots, args.seconds, args.warmup = min(args.bots, 40), 45.0, 15.0
    if args.watchers is None:
        args.watchers = args.bots
    if args.bots < 4:
        parser.error("--bots must be at least 4")
    try:
        low, high = (float(value) for value in args.think.split(","))
    except ValueError:
        parser.error("--think is MIN,MAX in seconds, e.g. 2,6")
    if not 0 <= low < high:
        parser.error("--think needs 0 <= MIN < MAX")
    args.think = (low, high)
    # The setup (sign-ups hash a password each; the joins) before the warm-up: the arena starts
    # once the bots have signed up, and lasts this allowance, the warm-up and the window.
    allowance = 10 + args.bots / 5
    os.environ.update(bots.LIMITS_OFF)
    os.environ["ARENA_MINUTE_S"] = f"{(allowance + args.warmup + args.seconds) / ARENA_MINUTES:g}"
    limit = int(setup_timeout(args.bots) + allowance + args.warmup + args.seconds + DRAIN_S + 180)
    bots.guard_the_run(limit)
    cleanup: list = []
    server_args = SimpleNamespace(proxy="none", app="config.asgi:application", compare=None)
    logs: list[str] = []
    outcome = None
    with load.Reported(cleanup) as run:
        print("starting the scaled servers ...", flush=True)
        stage = load.start_stage("scaled", server_args, cleanup)
        try:
            print("bots and watchers ...", flush=True)
            arena, made, cpu, drained = run_arena(stage, args)
            facts = read_db(stage, made["id"])
            outcome = (arena, cpu, facts, check_db(facts), drained)
        finally:
            logs = load.stop_stage(stage)
    if outcome is None:
        for log in logs:
            print_server_errors(load.CLIENT_ERROR_LINE.sub("", log), shown=1)
        return 1
    arena, cpu, facts, checked, drained = outcome
    figures = report(arena, cpu, facts, checked, drained, args)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    errors = bool(arena.run.errors)
    if errors:
        for log in logs:
            print_server_errors(load.CLIENT_ERROR_LINE.sub("", log), shown=1)
    verdicts = figures["verdicts"]
    bad = errors or not verdicts["double"] or not verdicts["recount"]
    return 1 if bad or run.interrupted or run.failed else 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main(sys.argv[1:]))
