"""Arena tournaments under random arrivals, pauses, leaves, game ends, restarts and an early end
(issue 29, item 3): hypothesis runs random sequences and checks after every step that a player
sits at one of the tournament's tables at most, never waits in its pool while seated, that
points and games equal the sums of each player's games, that nobody waits past the pool's wait
limit while another waits, and that no table is made after the end."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import pool, runtime, store, tournaments
from games.models import Game, PoolEntry, Seat, TournamentGame, TournamentPlayer, TournamentScore
from tests.games.test_tournaments import play_square_to_its_end

pytestmark = pytest.mark.django_db
PLAYERS = 6

ops = st.one_of(
    st.tuples(st.just("join"), st.integers(0, PLAYERS - 1)),
    st.tuples(st.just("pause"), st.integers(0, PLAYERS - 1)),
    st.tuples(st.just("withdraw"), st.integers(0, PLAYERS - 1)),
    st.tuples(st.just("wait"), st.integers(0, 15)),
    st.tuples(st.just("wait"), st.just(11)),
    st.tuples(st.just("end_game"), st.integers(0, 3), st.integers(1, 2)),
    st.tuples(st.just("end_game"), st.integers(0, 3), st.integers(1, 2)),
    st.tuples(st.just("restart")),
    st.tuples(st.just("end")),
)


class Rollback(Exception):
    pass


def check(t, now) -> None:
    t.refresh_from_db()
    playing = Game.objects.filter(tournament_link__tournament=t).exclude(status=Game.Status.OVER)
    seated = (
        Seat.objects.filter(game__in=playing)
        .values("player__user_id")
        .annotate(tables=Count("game", distinct=True))
    )
    assert all(row["tables"] == 1 for row in seated), list(seated)
    at_table = {row["player__user_id"] for row in seated}
    waiting = list(
        PoolEntry.objects.filter(pool=tournaments.arena_pool(t.pk), status=PoolEntry.Status.WAITING)
    )
    assert not at_table & {e.user_id for e in waiting}
    if t.status == tournaments.Status.FINISHED:
        assert waiting == []
    limit = pool.pairing_rules().wait_limit_ms / 1000
    overdue = [e for e in waiting if (now - e.since).total_seconds() >= limit]
    assert not (overdue and len(waiting) >= 2), (overdue, waiting)
    for entry in TournamentPlayer.objects.filter(tournament=t):
        games = TournamentScore.objects.filter(tournament=t, user=entry.user)
        assert entry.games == games.count()
        assert entry.points == (games.aggregate(total=Sum("points"))["total"] or 0)
    for link in TournamentGame.objects.filter(tournament=t).select_related("game"):
        assert link.game.created < t.ends_at


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(ops, max_size=18))
def test_random_arrivals_pauses_game_ends_and_restarts_keep_the_invariants(steps):
    try:
        with transaction.atomic():
            users = [
                get_user_model().objects.create_user(f"fz{n}", password="correct horse battery")
                for n in range(PLAYERS)
            ]
            t = tournaments.tournament_create(
                user=None,
                kind="square",
                options={"mode": "square"},
                starts_at=timezone.now(),
                minutes=120,
            )
            now = timezone.now()
            for user in users[:3]:  # a few arrive first; the steps do the rest
                tournaments.tournament_join(tournament_id=t.pk, user=user)
            for step in steps:
                t.refresh_from_db()
                name = step[0]
                try:
                    if name == "join":
                        tournaments.tournament_join(tournament_id=t.pk, user=users[step[1]])
                    elif name == "pause":
                        tournaments.tournament_pause(tournament_id=t.pk, user=users[step[1]])
                    elif name == "withdraw":
                        tournaments.tournament_withdraw(tournament_id=t.pk, user=users[step[1]])
                    elif name == "end":
                        tournaments.tournament_end(tournament_id=t.pk)
                except tournaments.Conflict:
                    pass  # not joined, or finished: refused, nothing changed
                if name == "wait":
                    now += datetime.timedelta(seconds=step[1])
                elif name == "end_game":
                    games = list(tournaments.playing_games(t).order_by("pk"))
                    if games:
                        play_square_to_its_end(games[step[1] % len(games)].pk, step[2])
                elif name == "restart":
                    # What a process keeps in memory is gone; the database holds the rest.
                    runtime.forget_states()
                    store.close_all()
                t.refresh_from_db()
                tournaments.tick(t, now=max(now, timezone.now()))
                check(t, max(now, timezone.now()))
            raise Rollback
    except Rollback:
        pass
