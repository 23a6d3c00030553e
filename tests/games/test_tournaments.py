"""Arena tournaments (issue 29, items 2 and 3): the clock, joining, pausing, seating by the
pool's pairing, points given in the transaction of a game's last move, recurring arenas."""

from __future__ import annotations

import datetime
import functools
import random

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import arena, pool, realtime, services, store, tournaments
from games.auth import account_player
from games.errors import Conflict, Forbidden, RuleError
from games.models import (
    BotAccount,
    Game,
    PoolEntry,
    Rating,
    Sanction,
    Seat,
    Tournament,
    TournamentGame,
    TournamentPlayer,
    TournamentScore,
)
from squaregame.engine import GameState, choose_move
from tests.games.test_leaving import three_leaves

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _looked_at_anew():
    tournaments._ensured["at"] = (
        None  # the recurring arenas are looked at once a minute  # the tests tick by hand
    )


def account(name: str, *, bot: bool = False):
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    if bot:
        BotAccount.objects.create(user=user)
    return user


def arena_now(kind="square", *, minutes=10, **more) -> Tournament:
    return tournaments.tournament_create(
        user=None,
        kind=kind,
        options={"mode": "square" if kind == "square" else "set-classic"},
        starts_at=timezone.now(),
        minutes=minutes,
        **more,
    )


def later(seconds=11):
    """Past the pool's wait limit (games.pairing: two players wait 10 s for two more)."""
    return timezone.now() + datetime.timedelta(seconds=seconds)


def play_square_to_its_end(game_id: int, winner_seat: int = 1) -> Game:
    """Play a Square game to its end: `winner_seat` places what the computer would, the others
    pass."""
    seats = list(Seat.objects.filter(game_id=game_id).order_by("number"))
    game = Game.objects.get(pk=game_id)
    for turn in range(SQUARE_TURNS):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            return game
        number, action = square_turn(game, len(seats), turn, winner_seat)
        services.move_submit(game_id=game_id, seat=seats[number - 1], action=action)
    raise AssertionError("the game did not end")


SQUARE_TURNS = 600  # a table of four: the placer moves one turn in four


def square_turn(game: Game, players: int, turn: int, winner_seat: int = 1) -> tuple[int, dict]:
    """Whose turn it is at a Square game (its seat's number) and what it plays: at a table of
    two, `winner_seat` places what the computer would and the other passes (it wins); at a
    larger table everyone places (a table where all but one pass may never end)."""
    state = GameState.from_dict(game.state["game"])
    places = players > 2 or state.to_move == winner_seat or not state.started
    action = choose_move(state, random.Random(turn)) if places else {"type": "pass"}
    return state.to_move, action


def test_two_players_who_join_a_running_arena_are_seated_together_and_scored_with_the_last_move():
    t = arena_now()
    ann, bob = account("ann"), account("bob")
    tournaments.tournament_join(tournament_id=t.pk, user=ann)
    assert TournamentGame.objects.count() == 0  # alone: waits
    tournaments.tournament_join(tournament_id=t.pk, user=bob)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    assert TournamentGame.objects.count() == 0  # two wait for more, up to the wait limit
    tournaments.tick(t, now=later())
    (link,) = TournamentGame.objects.all()
    # Nobody waits who sits at a table of the tournament.
    assert list(tournaments.waiting(t)) == []
    game = play_square_to_its_end(link.game_id)
    link.refresh_from_db()
    assert link.scored
    scores = {s.user.username: s for s in TournamentScore.objects.filter(game=game)}
    winners = [n for n, s in scores.items() if s.place == 0]
    assert len(winners) == 1
    assert {s.points for s in scores.values()} == {1.0, 0.0}
    for entry in TournamentPlayer.objects.filter(tournament=t):
        assert entry.games == 1
        assert entry.points == scores[entry.user.username].points
    # The job run again (a retried write that had committed): nothing is given twice.
    assert store.run(arena.score_ended(game.pk, "square", game.state)).value == []
    assert TournamentScore.objects.filter(game=game).count() == 2
    # The game's end put its players back in the pool, waiting from then.
    assert {e.user.username for e in tournaments.waiting(t)} == {"ann", "bob"}
    tournaments.tick(t, now=later())
    assert TournamentGame.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_rated_table_of_four_ended_on_the_event_loop_scores_and_rates_all_four_with_its_end():
    """The loop's own connection (the WebSocket's and the API's moves) writes a game's end, its
    four score rows, the players' points and their ratings in one transaction (on PostgreSQL
    the rows go in one round trip each kind: a transaction that holds the game's row)."""
    t = arena_now(rated=True)
    users = [account(name) for name in ("ann", "bob", "cy", "dee")]
    for user in users:
        tournaments.tournament_join(tournament_id=t.pk, user=user)
    (link,) = TournamentGame.objects.all()  # four wait: their table starts at once
    seats = list(Seat.objects.filter(game_id=link.game_id).order_by("number"))
    tokens = [seat.token for seat in seats]

    async def play() -> None:  # as play_square_to_its_end, each move on the event loop
        for turn in range(SQUARE_TURNS):
            game = await Game.objects.aget(pk=link.game_id)
            if game.status == Game.Status.OVER:
                return
            number, action = square_turn(game, len(tokens), turn)
            seat = await store.aseat_by_token(tokens[number - 1])
            await services.amove(game_id=link.game_id, seat=seat, action=action)
        raise AssertionError("the game did not end")

    async_to_sync(play)()
    link.refresh_from_db()
    assert link.scored
    scores = {s.user.username: s for s in TournamentScore.objects.filter(game_id=link.game_id)}
    assert set(scores) == {"ann", "bob", "cy", "dee"}
    assert sum(s.points for s in scores.values()) == 6.0  # 3 + 2 + 1 + 0, ties sharing
    for entry in TournamentPlayer.objects.filter(tournament=t):
        assert (entry.games, entry.points) == (1, scores[entry.user.username].points)
    rated = Rating.objects.filter(user__in=users, mode="square")
    assert sorted(r.games for r in rated) == [1, 1, 1, 1]
    store.close_all()


def test_a_paused_player_is_not_seated_and_comes_back_by_joining():
    t = arena_now()
    ann, bob = account("ann"), account("bob")
    tournaments.tournament_join(tournament_id=t.pk, user=ann)
    tournaments.tournament_pause(tournament_id=t.pk, user=ann)
    tournaments.tournament_join(tournament_id=t.pk, user=bob)
    tournaments.tick(t, now=later())
    assert TournamentGame.objects.count() == 0
    tournaments.tournament_join(tournament_id=t.pk, user=ann)
    tournaments.tick(t, now=later())
    assert TournamentGame.objects.count() == 1


def test_no_table_is_made_after_the_end_but_a_running_game_finishes_and_counts(settings):
    t = arena_now()
    ann, bob = account("ann"), account("bob")
    tournaments.tournament_join(tournament_id=t.pk, user=ann)
    tournaments.tournament_join(tournament_id=t.pk, user=bob)
    tournaments.tick(t, now=later())
    (link,) = TournamentGame.objects.all()
    tournaments.tournament_end(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and t.ended_early
    play_square_to_its_end(link.game_id)
    assert TournamentGame.objects.count() == 1  # no new table
    assert sum(TournamentPlayer.objects.values_list("points", flat=True)) == 1.0
    with pytest.raises(Conflict):
        tournaments.tournament_join(tournament_id=t.pk, user=account("cy"))


def test_a_tournament_runs_from_its_start_to_its_end_by_the_clock(settings):
    settings.ARENA_MINUTE_S = 0.01
    start = timezone.now() + datetime.timedelta(seconds=30)
    t = tournaments.tournament_create(
        user=account("maker"),
        kind="set",
        options={"mode": "set-classic"},
        starts_at=start,
        minutes=10,
    )
    assert t.ends_at == start + datetime.timedelta(seconds=0.1)
    tournaments.tick(t, now=start - datetime.timedelta(seconds=1))
    assert t.status == Tournament.Status.UPCOMING
    tournaments.tick(t, now=start)
    assert t.status == Tournament.Status.RUNNING
    tournaments.tick(t, now=start + datetime.timedelta(seconds=1))
    assert t.status == Tournament.Status.FINISHED


def test_an_arena_open_to_bots_seats_people_too_and_a_peoples_refuses_bots():
    people, machines = arena_now(), arena_now(open_to_bots=True)
    tournaments.tournament_join(tournament_id=machines.pk, user=account("ann"))
    tournaments.tournament_join(tournament_id=machines.pk, user=account("robot", bot=True))
    with pytest.raises(Forbidden, match="people only"):
        tournaments.tournament_join(tournament_id=people.pk, user=account("robo", bot=True))


@pytest.mark.parametrize(
    ("kind", "options", "minutes", "why"),
    [
        ("set", {"mode": "set-classic"}, 9, "10 to 120 minutes"),
        ("set", {"mode": "set-classic"}, 121, "10 to 120 minutes"),
        ("set", {"mode": "set-classic"}, "ten", "whole number"),
        ("setwar", {}, 10, "Set or the Square Game"),
        ("set", {"mode": "chess"}, 10, "mode is one of"),
        ("set", {"mode": "set-classic", "attributes": 9}, 10, "ttribute"),
    ],
)
def test_bad_tournaments_are_refused_with_a_sentence(kind, options, minutes, why):
    with pytest.raises(RuleError, match=why):
        tournaments.tournament_create(
            user=None, kind=kind, options=options, starts_at=timezone.now(), minutes=minutes
        )


def test_recurring_arenas_are_made_once_ahead_whoever_asks():
    now = datetime.datetime(2030, 1, 1, 12, 30, tzinfo=datetime.UTC)
    made = tournaments.arenas_ensure(now, force=True)
    assert made == Tournament.objects.count() > 3
    hourly = Tournament.objects.filter(recurring__startswith="hourly:").order_by("starts_at")
    assert [t.starts_at.hour for t in hourly] == [12, 13]
    assert all(t.options == {"rules": "classic", "attributes": 4} for t in hourly)
    daily = Tournament.objects.filter(recurring__startswith="daily:")
    assert {t.kind for t in daily} == {"set", "square"}
    modes = {tournaments.mode_of(t) for t in daily}
    assert len(modes) == daily.count() and {"set-classic", "set-declare", "square"} <= modes
    assert {t.starts_at for t in daily} == {now.replace(hour=18, minute=0)}
    assert tournaments.arenas_ensure(now, force=True) == 0  # made once
    # Once today's dailies have ended, tomorrow's are made.
    evening = now.replace(hour=21)
    tournaments.arenas_ensure(evening, force=True)
    latest = Tournament.objects.filter(recurring__startswith="daily:").latest("starts_at")
    assert latest.starts_at == evening.replace(day=2, hour=18, minute=0)


def test_only_staff_make_recurring_tournaments():
    with pytest.raises(Forbidden):
        tournaments.tournament_create(
            user=account("ann"),
            kind="square",
            options={},
            starts_at=timezone.now(),
            minutes=10,
            recurring="mine",
        )


def test_the_arenas_command_makes_the_recurring_arenas():
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("arenas", stdout=out)
    assert Tournament.objects.filter(recurring__startswith="hourly:").count() >= 1
    assert "arena(s) made" in out.getvalue()


def test_the_admin_lists_tournaments_and_ends_one_early(client):
    staff = get_user_model().objects.create_superuser("boss", password="correct horse battery")
    client.force_login(staff)
    t = arena_now()
    assert client.get("/admin/games/tournament/").status_code == 200
    assert client.get(f"/admin/games/tournament/{t.pk}/change/").status_code == 200
    answer = client.post(
        "/admin/games/tournament/",
        {"action": "end_early", "_selected_action": [t.pk]},
        follow=True,
    )
    assert "Ended 1 tournament" in answer.content.decode()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and t.ended_early


def test_a_seated_player_is_told_gamestart_only_once_the_table_is_committed(
    monkeypatch, django_capture_on_commit_callbacks
):
    """A bot that opens its game's stream on gameStart must find the game: the event is sent
    after the seating's transaction commits, not inside it (bench/bench_arena.py's bots got
    404 for a game they had just been told of)."""
    heard = []
    monkeypatch.setattr(realtime, "publish_account", lambda u, e, **kw: heard.append((u, e)))
    t = arena_now("set")
    ann, bob = account("ann"), account("bob")
    tournaments.tournament_join(tournament_id=t.pk, user=ann)
    tournaments.tournament_join(tournament_id=t.pk, user=bob)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        tournaments.tick(t, now=later())
        (game_id,) = TournamentGame.objects.values_list("game_id", flat=True)
    assert [e for _, e in heard if e["type"] == "gameStart"] == []
    for callback in callbacks:
        callback()
    told = {u for u, e in heard if e["type"] == "gameStart" and e["game"]["id"] == game_id}
    assert told == {ann.pk, bob.pk}


def test_players_seated_while_another_process_filled_the_pool_are_not_seated_again(
    monkeypatch,
):
    """Two processes fill an arena's pool at once: one reads ann and bob as waiting, the other
    puts them in the pool and seats them meanwhile; the first's entries, made from what it had
    read, must not seat them at a second table (one table a player, whatever the pool holds)."""
    t = arena_now()
    ann, bob = account("ann"), account("bob")
    tournaments.tournament_join(tournament_id=t.pk, user=ann)
    tournaments.tournament_join(tournament_id=t.pk, user=bob)
    t.refresh_from_db()
    # As just after a game's end: they should wait, and are in no pool yet.
    PoolEntry.objects.update(status=PoolEntry.Status.LEFT)
    real_enter, others = pool.pool_enter, []

    def meanwhile(**kwargs):
        if not others:  # the other process: fills the pool and seats them, all committed
            for user in (ann, bob):
                others.append(real_enter(**{**kwargs, "player": account_player(user)}))
            made = pool.pool_pair(
                tournaments.arena_pool(t.pk),
                now=int(later().timestamp() * 1000),
                on_table=functools.partial(tournaments._record, t.pk),
            )
            assert len(made) == 1
        return real_enter(**kwargs)

    monkeypatch.setattr(pool, "pool_enter", meanwhile)
    tournaments.tick(t, now=later())
    for user in (ann, bob):
        tables = Game.objects.filter(
            tournament_link__tournament=t, seats__player__user=user
        ).exclude(status=Game.Status.OVER)
        assert tables.count() == 1, user


def test_four_who_joined_before_the_start_sit_at_one_table_of_four_when_it_starts():
    start = timezone.now() + datetime.timedelta(minutes=5)
    t = tournaments.tournament_create(
        user=None, kind="square", options={"mode": "square"}, starts_at=start, minutes=10
    )
    for n in range(4):
        tournaments.tournament_join(tournament_id=t.pk, user=account(f"early{n}"))
    assert TournamentGame.objects.count() == 0  # upcoming: nobody is seated
    tournaments.tick(t, now=start + datetime.timedelta(seconds=1))
    (link,) = TournamentGame.objects.all()
    assert Seat.objects.filter(game_id=link.game_id).count() == 4


def test_game_ends_during_a_tick_make_one_more_tick_not_one_each(monkeypatch):
    """Each game's end ticks its tournament (its players wait and are seated again); ends that
    come while this process ticks it wait for that tick and share one more."""
    import threading

    ticks, started, release = [], threading.Event(), threading.Event()

    def slow_tick(tournament_id):
        ticks.append(tournament_id)
        if len(ticks) == 1:
            started.set()
            release.wait(5)

    monkeypatch.setattr(tournaments, "_tick_by_id", slow_tick)
    first = threading.Thread(target=tournaments._tick_once_more, args=(7,))
    first.start()
    assert started.wait(5)
    for _ in range(5):  # five more games of it end meanwhile
        tournaments._tick_once_more(7)
    tournaments._tick_once_more(8)  # another tournament's is its own
    release.set()
    first.join(5)
    assert ticks == [7, 8, 7]
    tournaments._tick_once_more(7)  # later, a tick of its own again
    assert ticks == [7, 8, 7, 7]


def test_a_tick_puts_an_arenas_waiting_players_in_its_pool_but_not_a_banned_one_or_a_leaver(
    settings,
):
    # The arena's pool is filled for all its waiting players at once (a few queries, not a
    # transaction each: 400 players' ends queued behind it); the checks still hold for each.
    settings.LEAVE_FREE_PER_DAY = 2
    t = arena_now(rated=True)
    users = {name: account(name) for name in ("ann", "bob", "cy", "dee", "eve")}
    for user in users.values():
        TournamentPlayer.objects.create(tournament=t, user=user)
    Rating.objects.create(
        user=users["bob"], mode="square", mu=1800, sigma=100, updated=timezone.now()
    )
    Sanction.objects.create(
        user=users["cy"],
        kind=Sanction.Kind.BAN,
        until=timezone.now() + datetime.timedelta(hours=1),
        reason="spam",
    )
    three_leaves(account_player(users["dee"], create=True))
    eve = account_player(users["eve"], create=True)
    pool.pool_enter(  # waiting for Play now meanwhile: the arena's pool takes her from it
        player=eve,
        pool="set:set-classic:casual",
        kind="set",
        mode="set-classic",
        options={},
        rated=False,
    )
    tournaments.tick(t)
    waiting = PoolEntry.objects.filter(status=PoolEntry.Status.WAITING)
    assert {e.player.name: (e.pool, e.rating) for e in waiting} == {
        "ann": (f"arena:{t.pk}", 1500),
        "bob": (f"arena:{t.pk}", 1800),
        "eve": (f"arena:{t.pk}", 1500),
    }
    assert PoolEntry.objects.get(pool="set:set-classic:casual").status == PoolEntry.Status.LEFT
    # Ticked again: nobody enters twice.
    tournaments.tick(t)
    assert PoolEntry.objects.filter(status=PoolEntry.Status.WAITING).count() == 3
