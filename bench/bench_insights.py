"""Time a player's insights (issue 27, item 5): of an account with 2,000 finished games, under
100 ms warm.

Run on demand (never part of the test suite)::

    .venv/bin/python bench/bench_insights.py
    .venv/bin/python bench/bench_insights.py --games 2000 --played 20 --runs 20
    .venv/bin/python bench/bench_insights.py --database-url postgresql://postgres@127.0.0.1:5432/postgres

Set-up (as bench/bench_profiles.py, whose database and timing helpers it uses): a throwaway
SQLite file or a PostgreSQL database of its own, Django's per-process cache, DEBUG off. Two
accounts, ann and bob, play ``--played`` (default 20) classic tables of the standard deck through
the real write path (``services.game_create``, ``game_join``, ``move_submit``: the computer's
set, 1 to 40 s apart, now and then a wrong claim); those games, their seats and their move logs
are then copied row for row until ann has ``--games`` (default 2,000) finished games, each
finished a minute after the one before, so the insights have 2,000 games to choose from.

Cases: the insights (`games.insights.account_insights`) over the last 50 and 200 games cold
(cache cleared: every game of the window replayed from its log), with the games' figures cached
but not the insights (a game just finished), and warm (the median of ``--runs``); then, warm,
GET /api/players/ann/insights?games=200 and the profile page /u/ann through django.test.Client.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_profiles import configure, once, warm  # noqa: E402

NAMES = ("ann", "bob")
GAME_MS = 60_000


def play(played: int) -> list[int]:
    """`played` finished classic tables of ann and bob through the write path; their ids."""
    from django.contrib.auth import get_user_model

    from cards.engine.fast import is_set_codes
    from cards.engine.table.codes import code_of
    from games import services
    from games.models import Game, Player
    from games.rules import get_rules

    players = []
    for name in NAMES:
        user = get_user_model().objects.create_user(name, password="correct horse battery")
        players.append(Player.objects.create(name=name, user=user))
    rules = get_rules("set")
    at = int(time.time() * 1000) - 10 * 24 * 3600 * 1000
    ids = []
    for number in range(played):
        game = services.game_create(
            kind="set",
            options={"rules": "classic", "start": "now"},
            seed=number,
            now=at,
            is_open=True,
        )
        seats = [services.game_join(game_id=game.pk, player=p, now=at) for p in players]
        for turn in range(300):
            game.refresh_from_db()
            if game.status == Game.Status.OVER:
                break
            seat = seats[0] if turn % 4 else seats[1]
            at += 1000 + (turn * 7919 % 40) * 1000
            board = [card["card"] for card in rules.view(game.state, seat.name, at)["board"]]
            codes = [code_of(card, 4) for card in board[:3]]
            if turn % 9 == 4 and not is_set_codes(*codes):
                action = {"type": "claim", "cards": board[:3]}
            else:
                if not rules.bot_actions(game.state, seat.name):  # locked out: the other finds
                    seat = seats[1] if seat is seats[0] else seats[0]
                action = rules.bot_actions(game.state, seat.name)[0]
            services.move_submit(game_id=game.pk, seat=seat, action=action, now=at)
        else:
            raise RuntimeError(f"game {game.pk} did not end")
        ids.append(game.pk)
        at += GAME_MS
    return ids


def copy_games(ids: list[int], total: int) -> None:
    """Copy the played games (rows, seats, logs) round-robin until there are `total`."""
    from django.db import transaction
    from django.utils import timezone

    from games.models import Game, Move, Seat

    sources = [
        (
            Game.objects.get(pk=game_id),
            list(Seat.objects.filter(game_id=game_id).order_by("number")),
            list(Move.objects.filter(game_id=game_id).order_by("seq")),
        )
        for game_id in ids
    ]
    start = timezone.now() - datetime.timedelta(minutes=total + 10)
    with transaction.atomic():
        for index in range(len(ids), total):
            game, seats, moves = sources[index % len(sources)]
            copy = Game.objects.create(
                kind=game.kind,
                options=game.options,
                seed=game.seed,
                status=game.status,
                version=game.version,
                state=game.state,
                is_open=True,
                created_ms=game.created_ms,
                finished=start + datetime.timedelta(minutes=index),
            )
            made = Seat.objects.bulk_create(
                [
                    Seat(
                        game=copy,
                        player_id=s.player_id,
                        number=s.number,
                        name=s.name,
                        score=s.score,
                    )
                    for s in seats
                ]
            )
            by_id = {old.pk: new for old, new in zip(seats, made, strict=True)}
            Move.objects.bulk_create(
                [
                    Move(
                        game=copy,
                        seq=m.seq,
                        seat=by_id.get(m.seat_id),
                        actor=m.actor,
                        action=m.action,
                        outcome=m.outcome,
                        at_ms=m.at_ms,
                    )
                    for m in moves
                ]
            )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="ann's finished games (2000)")
    parser.add_argument("--played", type=int, default=20, help="games played for real (20)")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per warm case (20)")
    parser.add_argument("--database-url", help="a PostgreSQL server's admin URL")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-insights-"))
    cleanup = lambda: None  # noqa: E731
    try:
        cleanup = configure(args.database_url, tmp)
        return measure(args.games, args.played, args.runs)
    finally:
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


def measure(total: int, played: int, runs: int) -> int:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games import insights
    from games.models import Seat

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    ids = play(played)
    played_s = time.perf_counter() - started
    copy_games(ids, total)
    setup_s = time.perf_counter() - started
    user = get_user_model().objects.get(username="ann")
    count = Seat.objects.filter(player__user=user, game__status="over").count()
    print(
        f"Insights: ann has {count} finished games ({played} played through the write path in "
        f"{played_s:.1f} s, the rest copied; set up in {setup_s:.1f} s) on {connection.vendor}; "
        f"{runs} runs per warm case, Python {sys.version.split()[0]}"
    )
    rows = []
    for games in (50, 200):
        cache.clear()
        rows.append(
            (
                f"account_insights({games}) cold",
                once(lambda g=games: insights.account_insights(user, g)),
                None,
            )
        )
        cache.clear()
        window = insights.account_insights(user, games)["kinds"][0]["games"]
        cache.clear()
        insights.game_figures(window)  # the games' figures cached, not the insights
        rows.append(
            (
                f"account_insights({games}) figures cached",
                once(lambda g=games: insights.account_insights(user, g)),
                None,
            )
        )
        with CaptureQueriesContext(connection) as queries:
            insights.account_insights(user, games)
        rows.append(
            (
                f"account_insights({games}) warm",
                warm(lambda g=games: insights.account_insights(user, g), runs),
                len(queries),
            )
        )
    from games import profiles

    profiles.account_stats(user)
    rows.append(
        (
            "profiles.account_stats (the totals) warm",
            warm(lambda: profiles.account_stats(user), runs),
            None,
        )
    )
    client = Client()
    for label, url in (
        ("GET insights API, 200 games", "/api/players/ann/insights?games=200"),
        ("GET /u/ann (whole profile)", "/u/ann"),
    ):
        assert client.get(url).status_code == 200
        rows.append((f"{label} warm", warm(lambda url=url: client.get(url), runs), None))
    header = f"{'case':<44} {'wall ms':>8} {'CPU ms':>8} {'queries':>7}"
    print(header)
    print("-" * len(header))
    for label, (wall, cpu), queries in rows:
        print(f"{label:<44} {wall:>8.1f} {cpu:>8.1f} {'' if queries is None else queries:>7}")
    print("Cold and figures cached: measured once; warm: medians.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
