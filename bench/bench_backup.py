"""Time deploy/backup.sh and deploy/restore.sh on a database of 1,000 finished games.

Run `python bench/bench_backup.py` (or `make bench`) with a PostgreSQL at DATABASE_URL's server
(default postgres://postgres@127.0.0.1:5432/postgres; the user must be allowed to create
databases). It creates a database of its own, migrates it, plays `--games` games to their end
through the services (four in ten Set classic tables of one player, three Square Games of two,
three Set War games of two), then runs backup.sh and restore.sh (each into a new database)
`--runs` times and prints the median and fastest wall times, the sizes of the database, of
the dump and of a restored database. Every database it made is dropped at the end. Without a
PostgreSQL it says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres"


def url_of(server_url: str, name: str) -> str:
    return server_url.split("?")[0].rsplit("/", 1)[0] + "/" + name


def play(count: int) -> None:
    """Play `count` games to their end on DATABASE_URL's database (in this process)."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from cards.setwar.services import setwar_run
    from games import runtime, services, store
    from games.models import Game
    from games.rules import get_rules

    def to_the_end(kind: str, options: dict, names: list[str]) -> None:
        game = services.game_create(kind=kind, options=options)
        seats = [services.game_join(game_id=game.pk, name=name) for name in names]
        game = Game.objects.get(pk=game.pk)
        rules = get_rules(kind)
        while game.status != Game.Status.OVER:
            for seat in seats:
                actions = rules.bot_actions(game.state, seat.name)
                if actions:
                    for action in actions:
                        game = services.move_submit(game_id=game.pk, seat=seat, action=action).game
                    break
            else:
                raise AssertionError(f"nobody can move in game {game.pk}")

    started = time.perf_counter()
    try:
        for number in range(count):
            if number % 10 < 4:
                to_the_end("set", {"start": "now", "rules": "classic"}, ["ann"])
            elif number % 10 < 7:
                to_the_end("square", {"players": 2}, ["ann", "bob"])
            else:
                setwar_run(players=2)
            if (number + 1) % 100 == 0:
                print(f"  {number + 1} games in {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        store.close_all()
        runtime.shutdown()


def sql(url: str, statement: str):
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(statement)
        return cursor.fetchall() if statement.startswith("SELECT") else None


def timed(command: list, env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(part) for part in command], env=env, cwd=ROOT, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"{command[0]} failed: {done.stderr.strip()}")
    return elapsed, done.stdout.strip()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--play", type=int, help=argparse.SUPPRESS)  # the playing subprocess
    args = parser.parse_args(argv)
    if args.play is not None:
        play(args.play)
        return 0

    server = os.environ.get("DATABASE_URL", "")
    server = server if server.startswith("postgres") else DEFAULT_URL
    try:
        sql(server, "SELECT 1")
    except Exception as error:  # noqa: BLE001 - any failure to connect means: no PostgreSQL here
        print(f"skipped: no PostgreSQL at {server.rsplit('@', 1)[-1]} ({error})")
        return 0

    site = f"bench_backup_{uuid.uuid4().hex[:8]}"
    made = [site]
    env = {
        **{key: value for key, value in os.environ.items() if key != "REDIS_URL"},
        "DATABASE_URL": url_of(server, site),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "RATE_LIMIT_MOVES": "off",
        "RATE_LIMIT_JOINS": "off",
    }
    sql(server, f'CREATE DATABASE "{site}"')
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            env=env,
            cwd=ROOT,
            check=True,
        )
        print(f"Playing {args.games} games to their end on database {site}...", flush=True)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, __file__, "--play", str(args.games)], env=env, cwd=ROOT, check=True
        )
        print(f"  played in {time.perf_counter() - started:.0f} s")
        sql(url_of(server, site), "VACUUM ANALYZE")
        (games, moves), *_ = sql(
            url_of(server, site),
            "SELECT (SELECT count(*) FROM games_game), (SELECT count(*) FROM games_move)",
        )
        (size,), *_ = sql(server, f"SELECT pg_database_size('{site}')")

        backups, restores, dump_size, restored_size = [], [], 0, 0
        with tempfile.TemporaryDirectory() as folder:
            for _ in range(args.runs):
                seconds, path = timed([ROOT / "deploy" / "backup.sh", folder], env)
                backups.append(seconds)
                dump_size = Path(path).stat().st_size
                restored = f"{site}_restored_{len(restores)}"
                made.append(restored)
                seconds, _name = timed([ROOT / "deploy" / "restore.sh", path, restored], env)
                restores.append(seconds)
                (restored_size,), *_ = sql(server, f"SELECT pg_database_size('{restored}')")
                time.sleep(1.1)  # backup.sh names its dumps by the second
    finally:
        for name in made:
            sql(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    print(
        f"\n{games} games, {moves} moves; database {size / 2**20:.1f} MiB, "
        f"dump (pg_dump -Fc) {dump_size / 2**20:.1f} MiB, "
        f"restored database {restored_size / 2**20:.1f} MiB"
    )
    print(f"{'':10} {'median s':>9} {'fastest s':>10}   ({args.runs} runs, wall time)")
    for label, times in (("backup.sh", backups), ("restore.sh", restores)):
        print(f"{label:10} {statistics.median(times):9.2f} {min(times):10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
