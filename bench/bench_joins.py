"""The write path's cost of a join and of a move, in one process, without HTTP.

Run on demand (never part of the test suite; about 20 s)::

    .venv/bin/python bench/bench_joins.py
    .venv/bin/python bench/bench_joins.py --games 400 --rounds 7
    .venv/bin/python bench/run_all.py joins          # or `make bench`: every bench/bench_*.py

To compare with another commit, run this file from that commit's checkout (its working directory
is the project measured): ``cd ../old && python ../main/bench/bench_joins.py``. It calls only
``services.create``, ``services.join`` and ``services.move``, which every commit since the
move log was the truth has.

Set-up: a throwaway SQLite file (a temporary directory, removed at the end), migrated, Django's
per-process cache, no Redis, rate limits off. ``--games`` open classic tables of 4 attributes,
dealt at once. Then, in ``--rounds`` rounds, four guests join each of a round's tables
(``services.join`` through ``services.run``, as ``POST /api/games/<id>/join`` does after its
checks) and the first guest sends a claim that is not a set on each (a refused claim writes
nothing; it plans on the head and is refused by the rules). Printed: the median over the rounds
of the CPU time (the process's, every thread) and the wall time of one join and of one refused
claim, and each round's CPU figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.getcwd()


def setup(folder: str) -> None:
    sys.path.insert(0, ROOT)
    os.environ["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
    os.environ.pop("REDIS_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["DJANGO_DEBUG"] = "0"
    for scope in ("JOINS", "MOVES", "CHAT"):
        os.environ[f"RATE_LIMIT_{scope}"] = "off"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, run_syncdb=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300, help="tables made (default 300)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds measured (default 5)")
    args = parser.parse_args()
    if args.games < args.rounds * 2 + 20:
        parser.error("--games must be at least 2 per round plus 20")
    folder = tempfile.mkdtemp(prefix="bench-joins-")
    try:
        setup(folder)
        from games import services
        from games.errors import GameError

        options = {"rules": "classic", "attributes": 4}

        def table() -> int:
            try:  # a commit with tables that wait for a Start: dealt at once, as before
                work = services.create(
                    kind="set", options={**options, "start": "now"}, is_open=True
                )
                return services.run(work)[0].pk
            except GameError:
                return services.run(services.create(kind="set", options=options, is_open=True))[
                    0
                ].pk

        ids = [table() for _ in range(args.games)]
        for game_id in ids[:20]:  # warm-up: imports, statements, caches
            services.run(services.join(game_id=game_id, name="warm"))
        per_round = (len(ids) - 20) // args.rounds
        joins, claims, said = [], [], set()
        for number in range(args.rounds):
            batch = ids[20 + number * per_round : 20 + (number + 1) * per_round]
            cpu, wall = time.process_time(), time.perf_counter()
            first = {}
            for game_id in batch:
                for seat in range(4):
                    written = services.run(services.join(game_id=game_id, name=f"p{seat}"))
                    first.setdefault(game_id, services.seat_ref(game_id, written.change.new_seat))
            count = len(batch) * 4
            joins.append(
                ((time.process_time() - cpu) / count, (time.perf_counter() - wall) / count)
            )
            cpu, wall = time.process_time(), time.perf_counter()
            for game_id in batch:
                try:
                    services.run(
                        services.move(
                            game_id=game_id,
                            seat=first[game_id],
                            action={"type": "claim", "cards": ["0000", "0001", "0011"]},
                        )
                    )
                except GameError as refused:  # as meant: nothing written
                    said.add(str(refused)[:60])
            claims.append(
                (
                    (time.process_time() - cpu) / len(batch),
                    (time.perf_counter() - wall) / len(batch),
                )
            )
        for name, rows in (("join", joins), ("refused claim", claims)):
            cpu = statistics.median(row[0] for row in rows) * 1000
            wall = statistics.median(row[1] for row in rows) * 1000
            each = ", ".join(f"{row[0] * 1000:.3f}" for row in rows)
            print(f"{name:<14} CPU {cpu:.3f} ms, wall {wall:.3f} ms (CPU by round: {each})")
        print(f"claims refused with: {sorted(said)}")
        print(f"measured: {ROOT}")
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # the store's threads hold nothing worth waiting for
