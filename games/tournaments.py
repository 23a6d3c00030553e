"""Arena tournaments: made, joined, paused, left, run and ended.

A tournament (games.models.Tournament) has a kind and its tables' options (a rated mode), a
start, a length of MIN_MINUTES to MAX_MINUTES, rated or not, for people or for bot accounts.
While it runs, every player who joined, is not paused and is not at one of its tables waits
in the tournament's pool and is seated by the pool's pairing; each game's points are given in
the transaction of its last move (games.arena). At its end no table is made any more; games
still running finish and count; the standings are then final (games.tournament_reads).

Time is read, not waited for: `tick` moves a tournament on (upcoming -> running -> finished)
by the clock, each change a conditional write that one process wins, and seats whoever waits.
Whatever touches a tournament ticks it first: its page and its socket, the API, a join, a game
of it that ends, and `manage.py arenas`, which also makes the recurring arenas ahead
(`arenas_ensure`, done too by the tournaments list's request, so `make run` alone keeps them).
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import logging
import threading

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games import arena, bots, pool, ratings, realtime, runtime, services
from games.auth import account_player
from games.errors import Conflict, Forbidden, NotFound, RuleError
from games.models import (
    Game,
    Player,
    PoolEntry,
    Seat,
    Tournament,
    TournamentGame,
    TournamentPlayer,
)
from games.rules import get_rules

log = logging.getLogger(__name__)

MIN_MINUTES = 10
MAX_MINUTES = 120
KINDS = ("set", "square")
Status = Tournament.Status

PEOPLE_ONLY = (
    "This tournament is for people only: bot accounts play in the arenas open to bots "
    '("bots": true).'
)


# -- options --------------------------------------------------------------------------------------


def mode_options(kind: str, mode: str) -> dict:
    """The tables' options of a rated mode's name ("set-classic", "set-declare-3", "set-ultra",
    "square"), as Play now makes them (the kind's ``play_now_options``); a name that is no mode
    of the kind is a 400 naming the modes."""
    names = list(getattr(get_rules(kind), "rating_modes", {}))
    found = get_rules(kind).play_now_options(mode, 2) if mode in names else None
    if found is None:
        raise RuleError(
            f"A {Game.Kind(kind).label} tournament's mode is one of {', '.join(names)}; "
            f"not {mode!r}.",
            "bad_mode",
        )
    return {key: value for key, value in found.items() if key != "players"}


def checked_options(kind, options, *, rated: bool) -> tuple[dict, str]:
    """A tournament's tables' options, checked as a table's would be, and its rated mode:
    ``options["mode"]`` names the mode (as ratings do: "set-classic"); the other options are
    the table's."""
    if kind not in KINDS:
        raise RuleError(
            f"A tournament is of Set or the Square Game (kind 'set' or 'square'), not {kind!r}.",
            "bad_kind",
        )
    if not isinstance(options, dict):
        raise RuleError('The options are a JSON object, such as {"mode": "set-classic"}.')
    options = dict(options)
    mode = options.pop("mode", None)
    if mode is None:
        mode = "set-classic" if kind == "set" else "square"
    if not isinstance(mode, str):
        raise RuleError('The mode is a text, such as "set-classic".', "bad_mode")
    options.pop("rated", None)
    options = {**mode_options(kind, mode), **options}  # the mode's table, with what was given
    table = services.planned_create(kind=kind, options=options, now=services.now_ms(), rated=rated)
    found = ratings.mode_of(kind, table.options)
    if found != mode:
        raise RuleError(
            f"These options are not the mode {mode!r} (they are {found!r}).", "bad_mode"
        )
    # The Square Game's players are the table's: the pool seats 2 to 4.
    return {k: v for k, v in options.items() if k != "players"}, mode


def mode_of(tournament: Tournament) -> str:
    return ratings.mode_of(tournament.kind, tournament.options) or tournament.kind


def mode_name(tournament: Tournament) -> str:
    return ratings.mode_names().get(mode_of(tournament), Game.Kind(tournament.kind).label)


# -- making ---------------------------------------------------------------------------------------


def length(minutes: int) -> datetime.timedelta:
    """A tournament's length: `minutes` of settings.ARENA_MINUTE_S seconds (60; a test's
    tournament may be shortened)."""
    return datetime.timedelta(seconds=minutes * settings.ARENA_MINUTE_S)


def _minutes(minutes) -> int:
    if isinstance(minutes, bool) or not isinstance(minutes, int):
        raise RuleError(f"The length is a whole number of minutes, not {minutes!r}.", "bad_minutes")
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise RuleError(
            f"A tournament lasts {MIN_MINUTES} to {MAX_MINUTES} minutes, not {minutes}.",
            "bad_minutes",
        )
    return minutes


def tournament_create(
    *,
    user,
    kind,
    options,
    starts_at: datetime.datetime,
    minutes,
    rated: bool = False,
    open_to_bots: bool = False,
    recurring: str | None = None,
    name: str = "",
) -> Tournament:
    """Make a tournament (`user`: its maker; None: the server's recurring arenas). A recurring
    one (`recurring`: its key) is made once whoever asks; its maker must be staff. A start in
    the past is refused (more than a minute ago: a clock's drift is forgiven)."""
    if recurring is not None and user is not None and not user.is_staff:
        raise Forbidden("Only staff make recurring tournaments.")
    options, mode = checked_options(kind, options, rated=bool(rated))
    minutes = _minutes(minutes)
    if not isinstance(starts_at, datetime.datetime) or starts_at.tzinfo is None:
        raise RuleError("The start is an ISO 8601 time with its zone, such as 2030-01-01T18:00Z.")
    if recurring is None and starts_at < timezone.now() - datetime.timedelta(minutes=1):
        raise RuleError("A tournament starts now or later, not in the past.", "bad_start")
    name = name or f"{ratings.mode_names().get(mode, mode)} arena"
    try:
        with transaction.atomic():
            return Tournament.objects.create(
                name=name,
                kind=kind,
                options=options,
                starts_at=starts_at,
                minutes=minutes,
                ends_at=starts_at + length(minutes),
                rated=bool(rated),
                bots=bool(open_to_bots),
                made_by=user,
                recurring=recurring,
            )
    except IntegrityError:
        if recurring is None:
            raise
        return Tournament.objects.get(recurring=recurring)


def recurring_plan(now: datetime.datetime) -> list[dict]:
    """The recurring arenas that should exist at `now`: the hourly Set classic arena of this
    hour and of the next, and the daily arena of each Set mode and of the Square Game (from
    settings.ARENA_DAILY_HOUR UTC, 2 hours): today's until it has ended, then tomorrow's. Each
    has its key, so it is made once whoever makes it."""
    hour = now.astimezone(datetime.UTC).replace(minute=0, second=0, microsecond=0)
    planned = []
    for start in (hour, hour + datetime.timedelta(hours=1)):
        planned.append(
            {
                "recurring": f"hourly:set-classic:{start:%Y-%m-%dT%H}",
                "kind": "set",
                "mode": "set-classic",
                "starts_at": start,
                "minutes": 57,
                "name": "Hourly Set classic arena",
            }
        )
    day = hour.replace(hour=settings.ARENA_DAILY_HOUR)
    if day + length(DAILY_MINUTES) <= now:
        day += datetime.timedelta(days=1)
    modes = [("set", m) for m in get_rules("set").rating_modes] + [("square", "square")]
    for kind, mode in modes:
        label = ratings.mode_names().get(mode, mode)
        planned.append(
            {
                "recurring": f"daily:{mode}:{day:%Y-%m-%d}",
                "kind": kind,
                "mode": mode,
                "starts_at": day,
                "minutes": DAILY_MINUTES,
                "name": f"Daily {label} arena",
            }
        )
    return planned


DAILY_MINUTES = 120


_ensured = {"at": None}
_ensure_lock = threading.Lock()


def arenas_ensure(now: datetime.datetime | None = None, *, force: bool = False) -> int:
    """Make the recurring arenas that are due and missing (`recurring_plan`) and move every
    tournament on by the clock (`tick`); how many arenas were made. Without `force`, done at
    most once a minute per process (a request that needs the arenas asks each time)."""
    now = timezone.now() if now is None else now
    with _ensure_lock:
        last = _ensured["at"]
        if not force and last is not None and now - last < datetime.timedelta(minutes=1):
            return 0
        _ensured["at"] = now
    made = 0
    keys = {plan["recurring"] for plan in recurring_plan(now)}
    have = set(Tournament.objects.filter(recurring__in=keys).values_list("recurring", flat=True))
    for plan in recurring_plan(now):
        if plan["recurring"] in have or plan["starts_at"] + length(plan["minutes"]) <= now:
            continue
        tournament_create(
            user=None,
            kind=plan["kind"],
            options={"mode": plan["mode"]},
            starts_at=plan["starts_at"],
            minutes=plan["minutes"],
            rated=True,
            recurring=plan["recurring"],
            name=plan["name"],
        )
        made += 1
    for tournament in Tournament.objects.exclude(status=Status.FINISHED).filter(starts_at__lte=now):
        tick(tournament, now=now)
    return made


# -- the clock ------------------------------------------------------------------------------------


def _move_to(tournament: Tournament, old: str, new: str, **more) -> bool:
    """Write the tournament's new status if it is still `old` (one process wins)."""
    done = Tournament.objects.filter(pk=tournament.pk, status=old).update(status=new, **more)
    if done:
        tournament.status = new
        for key, value in more.items():
            setattr(tournament, key, value)
        tell(tournament.pk)
    return bool(done)


def tick(tournament: Tournament, *, now: datetime.datetime | None = None) -> Tournament:
    """Move the tournament on by the clock, and seat whoever waits while it runs."""
    now = timezone.now() if now is None else now
    if tournament.status == Status.UPCOMING and now >= tournament.starts_at:
        _move_to(tournament, Status.UPCOMING, Status.RUNNING)
        tournament.refresh_from_db()
    if tournament.status == Status.RUNNING and now >= tournament.ends_at:
        _move_to(tournament, Status.RUNNING, Status.FINISHED)
        _empty_pool(tournament.pk)
    if tournament.status == Status.RUNNING:
        seat_waiting(tournament, now=now)
    return tournament


def tournament_end(*, tournament_id: int) -> Tournament:
    """End a tournament now (the admin's action): no table is made any more; its games still
    running finish and count."""
    tournament = tournament_of(tournament_id)
    now = timezone.now()
    if tournament.status == Status.FINISHED:
        raise Conflict("This tournament has finished already.")
    old = tournament.status
    if not _move_to(tournament, old, Status.FINISHED, ended_early=True, ends_at=now):
        raise Conflict("This tournament changed meanwhile; try again.")
    if old == Status.UPCOMING:
        Tournament.objects.filter(pk=tournament.pk).update(starts_at=now)
    _empty_pool(tournament.pk)
    return tournament


def tell(tournament_id: int) -> None:
    """Tell the tournament's followers that it changed (after the transaction commits)."""
    message = arena.changed(tournament_id)
    transaction.on_commit(lambda: realtime.publish_to(arena.group_name(tournament_id), message))


# -- players --------------------------------------------------------------------------------------


def tournament_of(tournament_id) -> Tournament:
    if isinstance(tournament_id, int) or str(tournament_id).isdigit():
        found = Tournament.objects.filter(pk=int(tournament_id)).first()
        if found is not None:
            return found
    raise NotFound(f"There is no tournament with id {tournament_id}.")


def _entry(tournament: Tournament, user) -> TournamentPlayer:
    found = TournamentPlayer.objects.filter(tournament=tournament, user=user).first()
    if found is None:
        raise Conflict("You have not joined this tournament.")
    return found


def tournament_join(*, tournament_id, user) -> TournamentPlayer:
    """Join a tournament (or come back after a pause, or after leaving): until it ends. An
    arena open to bots takes bot accounts and people alike (the issue's arena of eight bots and
    two people), any other people only: a bot plays where it is asked to."""
    tournament = tick(tournament_of(tournament_id))
    if tournament.status == Status.FINISHED:
        raise Conflict("This tournament has finished.")
    is_bot = bots.is_bot(user.pk)
    if is_bot and not tournament.bots:
        raise Forbidden(PEOPLE_ONLY)
    with transaction.atomic():
        entry, made = TournamentPlayer.objects.get_or_create(tournament=tournament, user=user)
        if made or entry.paused or entry.withdrawn:
            entry.paused = entry.withdrawn = False
            entry.waiting_since = timezone.now()
            entry.save(update_fields=["paused", "withdrawn", "waiting_since"])
        tell(tournament.pk)
    account_player(user, create=True)
    tick(tournament)
    return entry


def tournament_pause(*, tournament_id, user) -> TournamentPlayer:
    """Pause: out of the pool (a game being played is finished and counts) until `join`."""
    tournament = tournament_of(tournament_id)
    entry = _entry(tournament, user)
    if tournament.status == Status.FINISHED:
        raise Conflict("This tournament has finished.")
    TournamentPlayer.objects.filter(pk=entry.pk).update(paused=True)
    entry.paused = True
    _leave_pool(tournament, user)
    tell(tournament.pk)
    return entry


def tournament_withdraw(*, tournament_id, user) -> TournamentPlayer:
    """Leave: out of the pool; the points stay in the standings (join comes back)."""
    tournament = tournament_of(tournament_id)
    entry = _entry(tournament, user)
    if tournament.status == Status.FINISHED:
        raise Conflict("This tournament has finished.")
    TournamentPlayer.objects.filter(pk=entry.pk).update(withdrawn=True, paused=False)
    entry.withdrawn, entry.paused = True, False
    _leave_pool(tournament, user)
    tell(tournament.pk)
    return entry


def arenas_pause(*, user) -> list[int]:
    """Pause `user` in every arena it plays in that has not finished (it pressed Play now: an
    arena's pool would otherwise take it back at its next look, and a player waits in one pool
    at most); the ids of the arenas paused. Join comes back, as after a pause."""
    entries = TournamentPlayer.objects.filter(user=user, paused=False, withdrawn=False).exclude(
        tournament__status=Status.FINISHED
    )
    paused = list(entries.values_list("tournament_id", flat=True))
    if paused:
        TournamentPlayer.objects.filter(user=user, tournament_id__in=paused).update(paused=True)
        for tournament_id in paused:
            tell(tournament_id)
    return paused


def _leave_pool(tournament: Tournament, user) -> None:
    player = account_player(user)
    if player is not None:
        pool.pool_leave(player=player, pool=arena_pool(tournament.pk))


# -- seating --------------------------------------------------------------------------------------


def playing_games(tournament: Tournament):
    """The tournament's games not over."""
    return Game.objects.filter(tournament_link__tournament=tournament).exclude(
        status=Game.Status.OVER
    )


def waiting(tournament: Tournament):
    """The tournament's players in its pool: joined, not paused, not left, at none of its
    tables still being played."""
    at_table = Game.objects.filter(
        tournament_link__tournament=tournament,
        seats__player__user=OuterRef("user"),
    ).exclude(status=Game.Status.OVER)
    return (
        TournamentPlayer.objects.filter(tournament=tournament, paused=False, withdrawn=False)
        .exclude(Exists(at_table))
        .select_related("user")
    )


def arena_pool(tournament_id: int) -> str:
    """The key of a tournament's pool (games.pool)."""
    return f"arena:{tournament_id}"


def table_options(tournament: Tournament) -> dict:
    """The options a pool entry of the tournament carries: its tables' (a kind that has a
    number of players gets it from the table's size, games.pool)."""
    options = dict(tournament.options)
    if tournament.kind == "square":
        options["players"] = 2
    return options


class Closed(Conflict):
    """The tournament ended while a table was being planned: no table is made after its end."""


def _record(tournament_id: int, seated) -> None:
    """In the pairing's transaction (games.pool.pool_pair's `on_table`), for each table it
    makes: link the game to the tournament, whose points it gives when it ends; refuse the
    whole pairing once the tournament has ended."""
    running = Tournament.objects.filter(
        pk=tournament_id, status=Status.RUNNING, ends_at__gt=timezone.now()
    ).exists()
    if not running:
        raise Closed("This tournament has ended: no new table.")
    # One table a player, whatever the pool holds: an entry another process made from what it
    # read before the player was seated elsewhere is refused (and leaves the pool).
    playing = dict(
        Seat.objects.filter(
            game__tournament_link__tournament_id=tournament_id,
            player__user_id__in=[entry.user_id for entry in seated.entries],
        )
        .exclude(game__status=Game.Status.OVER)
        .values_list("player__user_id", "game_id")
    )
    for entry in seated.entries:
        if entry.user_id in playing:
            busy = Conflict(f"{entry.player.name} plays at table {playing[entry.user_id]}.")
            raise pool.Refused(entry, busy)
    TournamentGame.objects.create(game_id=seated.game.pk, tournament_id=tournament_id)
    tell(tournament_id)  # its standings show who plays where (once committed)


def _fill_pool(tournament: Tournament, now: datetime.datetime) -> None:
    """Put in the tournament's pool each player who should wait there and does not: joined,
    not paused, not left, at none of its tables (after a game's end, a join, a return, or a
    restart that came between a game's end and its players' return), waiting since their
    last game's end or their join."""
    key = arena_pool(tournament.pk)
    there = set(
        PoolEntry.objects.filter(pool=key, status=PoolEntry.Status.WAITING).values_list(
            "user_id", flat=True
        )
    )
    entries = [entry for entry in waiting(tournament) if entry.user_id not in there]
    # Each account's player (its first: the last one written here), as `account_player`.
    found = Player.objects.filter(user_id__in=[e.user_id for e in entries]).order_by("-pk")
    players = {player.user_id: player for player in found}
    pool.pool_enter_many(
        players=[
            (
                players.get(entry.user_id) or account_player(entry.user, create=True),
                # Waiting since the start at the earliest: at the start, tables of four
                # form first, as they would for players arriving together.
                min(now, max(entry.waiting_since or entry.joined, tournament.starts_at)),
            )
            for entry in entries
        ],
        pool=key,
        kind=tournament.kind,
        mode=mode_of(tournament),
        options=table_options(tournament),
        rated=tournament.rated,
    )


def _empty_pool(tournament_id: int) -> None:
    """Nobody waits in an ended tournament's pool."""
    PoolEntry.objects.filter(
        pool=arena_pool(tournament_id), status=PoolEntry.Status.WAITING
    ).update(status=PoolEntry.Status.LEFT, ended=timezone.now())


def seat_waiting(tournament: Tournament, *, now: datetime.datetime | None = None) -> list[int]:
    """Seat the tournament's waiting players: each who should wait is put in its pool
    (`_fill_pool`), and the pool is paired by Play now's pairing (games.pool.pool_pair: planned
    purely, committed in one transaction through the one write path, nobody seated twice, a
    timer for its next decision), each table linked to the tournament in that transaction. The
    games made; none after the tournament's end."""
    now = timezone.now() if now is None else now
    if tournament.status != Status.RUNNING or now >= tournament.ends_at:
        return []
    key = arena_pool(tournament.pk)
    with runtime.write_transaction():
        if not pool.pairing_turn(key):
            # Another connection fills and pairs this pool now, from what it read when it
            # began: whoever came since is seated by a tick a moment later, and no thread
            # waits on that one's locks meanwhile.
            transaction.on_commit(functools.partial(_tick_soon, tournament.pk))
            return []
        _fill_pool(tournament, now)
        try:
            made = pool.pool_pair(
                key,
                now=int(now.timestamp() * 1000),
                on_table=functools.partial(_record, tournament.pk),
            )
        except Closed:
            _empty_pool(tournament.pk)
            return []
    return [table.game.pk for table in made]


_tasks: set = set()


def _after_scored(news: arena.TournamentNews) -> None:
    """A tournament game ended (after its commit): its players wait again and are seated; on
    a game-database thread when this runs on the event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        _tick_once_more(news.tournament_id)
        return
    _tick_in_background(news.tournament_id)


def _tick_in_background(tournament_id: int) -> None:
    """On the event loop: tick the tournament on a game-database thread (`_tick_once_more`)."""
    task = asyncio.get_running_loop().create_task(runtime.run_db(_tick_once_more, tournament_id))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


# A tournament whose pool another connection was pairing is ticked again this much later (once
# per process, however many ticks found it busy meanwhile).
BUSY_RETRY_S = 0.1
_retrying: set[int] = set()


def _tick_soon(tournament_id: int) -> None:
    """Tick the tournament BUSY_RETRY_S from now, by a timer on the server's event loop (none
    in a command or a test without a server: the next request or tick does it)."""

    def arm() -> None:
        if tournament_id not in _retrying:
            _retrying.add(tournament_id)
            asyncio.get_running_loop().call_later(BUSY_RETRY_S, fire)

    def fire() -> None:
        _retrying.discard(tournament_id)
        _tick_in_background(tournament_id)

    realtime.call_on_loop(arm)


# The tournaments this process is ticking after a game's end: "again" when another game of it
# ended meanwhile. A tick seats everyone who waits when it looks, so the game ends that come
# during a tick need one more tick after it, not one each: with hundreds of players, a tick a
# game's end kept every game-database thread waiting on the pool's lock behind the others.
_ticking: dict[int, str] = {}
_ticking_guard = threading.Lock()


def _tick_once_more(tournament_id: int) -> None:
    """Tick the tournament, or, when this process is ticking it already, have that tick run
    once more after it ends (no game's end is left unseated, none ticks twice in parallel)."""
    with _ticking_guard:
        if tournament_id in _ticking:
            _ticking[tournament_id] = "again"
            return
        _ticking[tournament_id] = "ticking"
    try:
        while True:
            _tick_by_id(tournament_id)
            with _ticking_guard:
                if _ticking[tournament_id] != "again":
                    break
                _ticking[tournament_id] = "ticking"
    finally:
        with _ticking_guard:
            _ticking.pop(tournament_id, None)


def _tick_by_id(tournament_id: int) -> None:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is not None:
        tick(tournament)


arena.after_scored.append(_after_scored)
