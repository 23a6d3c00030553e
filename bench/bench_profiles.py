"""Time the read side of issue 16: profiles, the account API, leaderboards and /stats/.

Run on demand (never part of the test suite)::

    .venv/bin/python bench/bench_profiles.py
    .venv/bin/python bench/bench_profiles.py --games 500 --runs 10
    .venv/bin/python bench/bench_profiles.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
    .venv/bin/python bench/run_all.py profiles      # or `make bench`: every bench/bench_*.py

Set-up: a throwaway SQLite file (a temporary directory, removed at the end) or, with
``--database-url`` (a server's admin URL), a PostgreSQL database of its own
(``bench_profiles_<pid>``, created there and dropped at the end); migrated, with Django's
per-process cache (REDIS_URL is ignored: the cold cases clear the cache) and DEBUG off. Two
accounts, ann and bob, play ``--games`` (default 200) rated classic Set tables of 3 attributes
through the real write path (``services.game_create``, ``game_join``, ``move_submit`` with the
bots' first set, 2 s apart, ann finding most sets in even games and bob in odd ones), all
finished within the last hours so /stats/ counts every one.

Each request goes through django.test.Client (the whole middleware stack, no socket); a body is
read whole (the NDJSON download is streamed). Warm cases: the median wall and CPU time of
``--runs`` (default 20) after one warm-up, and the SQL queries of one warm request. Cold cases
are measured once, after ``cache.clear()`` (every page was requested once before, so templates
and imports are warm): the profile then computes every finished game's figures
(``profiles.finished_stats``), /stats/ its site numbers and, on a cleared cache, those figures
too; "figures cached" is /stats/ recounting its numbers from figures already cached.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NAMES = ("ann", "bob")
MODE = "set-classic-3"
GAME_MS = 60_000  # each game starts a minute after the one before


def pg_admin(admin_url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql)


def configure(database_url: str | None, tmp: Path) -> Callable[[], None]:
    """Point Django at a database of our own (before django.setup()); return its clean-up."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    os.environ["RATE_LIMIT_JOINS"] = "off"
    os.environ["RATE_LIMIT_MOVES"] = "off"
    for name in ("REDIS_URL", "CHANNEL_PREFIX", "SQLITE_PATH"):
        os.environ.pop(name, None)  # a per-process cache: cache.clear() touches nobody else
    if database_url is None:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'db.sqlite3'}"
        return lambda: None
    name = f"bench_profiles_{os.getpid()}"
    pg_admin(database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    pg_admin(database_url, f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = urlunsplit(urlsplit(database_url)._replace(path=f"/{name}"))
    return lambda: pg_admin(database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def play(games: int) -> int:
    """Two accounts and `games` finished rated tables between them; return the moves played."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Game, Player
    from games.rules import get_rules

    players = []
    for name in NAMES:
        user = get_user_model().objects.create_user(name, password="correct horse battery")
        players.append(Player.objects.create(name=name, user=user))
    rules = get_rules("set")
    start = int(time.time() * 1000) - (games + 10) * GAME_MS
    moves = 0
    for i in range(games):
        at = start + i * GAME_MS
        game = services.game_create(
            kind="set", options={"rules": "classic", "attributes": 3}, seed=i, now=at, rated=True
        )
        seats = [services.game_join(game_id=game.pk, player=p, now=at) for p in players]
        for turn in range(200):
            game.refresh_from_db()
            if game.status == Game.Status.OVER:
                break
            most = turn % 3 != 2  # the game's main finder claims two sets in three
            seat = seats[(i % 2) if most else 1 - (i % 2)]
            action = rules.bot_actions(game.state, seat.name)[0]
            at += 2000
            services.move_submit(game_id=game.pk, seat=seat, action=action, now=at)
            moves += 1
        else:
            raise RuntimeError(f"game {game.pk} did not end in 200 moves")
    return moves


def fetch(client, url: str) -> int:
    """GET `url` and read its whole body (streamed or not); return its size in bytes."""
    response = client.get(url)
    if response.status_code != 200:
        raise RuntimeError(f"GET {url} answered {response.status_code}")
    if response.streaming:
        return sum(len(chunk) for chunk in response.streaming_content)
    return len(response.content)


def once(action: Callable[[], object]) -> tuple[float, float]:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def warm(action: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU ms of `runs` calls after one warm-up."""
    action()
    times = [once(action) for _ in range(runs)]
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="finished games (default 200)")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per warm case (20)")
    parser.add_argument(
        "--database-url",
        help="a PostgreSQL server's admin URL, e.g. postgresql://postgres@127.0.0.1:5432/postgres "
        "(default: a throwaway SQLite file)",
    )
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-profiles-"))
    cleanup = lambda: None  # noqa: E731
    try:
        cleanup = configure(args.database_url, tmp)
        return measure(args.games, args.runs)
    finally:
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


def measure(games: int, runs: int) -> int:
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    moves = play(games)
    setup_s = time.perf_counter() - started
    vendor = connection.vendor
    print(
        f"Profiles: {games} finished rated games ({moves} moves) of {'/'.join(NAMES)} on "
        f"{vendor}, set up in {setup_s:.1f} s ({setup_s / games * 1000:.0f} ms a game); "
        f"{runs} runs per warm case, Python {sys.version.split()[0]}"
    )

    client = Client()
    name = NAMES[0]
    urls = {
        "profile": f"/u/{name}",
        "user api": f"/api/users/{name}",
        "leaderboard": f"/leaderboard/{MODE}/",
        "leaderboard api": f"/api/leaderboard/{MODE}",
        "stats": "/stats/",
        "games NDJSON": f"/api/users/{name}/games",
    }
    sizes = {label: fetch(client, url) for label, url in urls.items()}  # templates, imports

    def cold(url: str, prepare: Callable[[], object] = lambda: None) -> tuple[float, float]:
        cache.clear()
        prepare()
        return once(lambda: fetch(client, url))

    rows = [
        ("profile", "cold", cold(urls["profile"]), None),
        ("stats", "cold", cold(urls["stats"]), None),
        (
            "stats",
            "figures cached",
            cold(urls["stats"], lambda: fetch(client, urls["profile"])),
            None,
        ),
    ]
    for key, url in urls.items():
        with CaptureQueriesContext(connection) as queries:
            fetch(client, url)
        count = len(queries)  # now: the next request's request_started empties the log
        rows.append((key, "warm", warm(lambda url=url: fetch(client, url), runs), count))

    header = f"{'GET':<38} {'wall ms':>8} {'CPU ms':>8} {'ms/game':>8} {'queries':>7} {'KB':>6}"
    print(header)
    print("-" * len(header))
    for key, note, (wall, cpu), queries in rows:
        url = f"{urls[key]} ({note})"
        per_game = f"{wall / games:8.3f}" if key in ("profile", "games NDJSON") else ""
        count = "" if queries is None else str(queries)
        print(
            f"{url:<38} {wall:>8.1f} {cpu:>8.1f} {per_game:>8} {count:>7} {sizes[key] / 1024:>6.0f}"
        )
    print(
        "Cold: measured once after cache.clear(); warm: medians. ms/game: wall ms / games "
        "(the cold profile computes every game's figures; NDJSON exports every game)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
