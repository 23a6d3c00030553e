"""The best times of Set-N races (cards.engine.table.race): the day's and of all time, per N.

A race's time is read from what the platform keeps of every finished game: its options (the
race's N, which the database also keeps in an indexed column of its own, ``Game.race``), its
state (the deal's time and each set's time) and its seats, in one query through the index of
races by their finish (``game_race_finished``); nothing else is stored.

What counts as a record (this project's rules): a race played **alone** (races with others have
each player's sets, and a winner, but no one's time), to its N-th set, with **no hint**, by an
**account** that is not a bot (a guest's time is shown on its own table but on no board, since
nobody could tell one guest from another; a program's time is no person's). Each account is on a
board once, with its best time; "the day" is the server's date (``TIME_ZONE``) the race ended.
"""

from __future__ import annotations

import datetime

from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from cards.engine.table.race import RACE_TARGETS
from cards.rules import SetTable
from games.auth import session_player
from games.models import Game, Seat

#: How many accounts a board lists.
BOARD_SIZE = 20
#: The boards' periods: today's races, or all of them.
PERIODS = {"day": "Today", "all": "All time"}


def hundredths(ms: int) -> float:
    """A race's time in seconds to the hundredth, a half rounded up, as the table page shows it
    (static/js/set/table-state.js raceTime: Math.round(ms / 10)), so both say the same time.

    >>> hundredths(4055), hundredths(4054), hundredths(10_000)
    (4.06, 4.05, 10.0)
    """
    return ((int(ms) + 5) // 10) / 100


def _day_bounds(day: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    """The start of ``day`` and of the next, in the server's time zone."""
    zone = timezone.get_current_timezone()
    start = datetime.datetime.combine(day, datetime.time(), tzinfo=zone)
    return start, start + datetime.timedelta(days=1)


def _race_seats(n: int, since: datetime.datetime | None, until: datetime.datetime | None):
    """The seats of accounts (not bots, not computers) at finished races to ``n``: one row each
    with what a time needs."""
    seats = Seat.objects.filter(
        game__kind=Game.Kind.SET,
        game__status=Game.Status.OVER,
        game__race=n,  # the race's column, indexed with its finish (games.models)
        is_computer=False,
        player__user__isnull=False,
        player__user__bot__isnull=True,
    )
    if since is not None:
        seats = seats.filter(game__finished__gte=since, game__finished__lt=until)
    return seats.order_by().values_list(
        "game_id",
        "game__finished",
        "name",
        "player__user__username",
        "game__state__players",
        "game__state__tally",
        "game__state__starts_ms",
        "game__state__created_ms",
        "game__state__race",
        "game__options",
    )


def _time_ms(name, players, tally, starts_ms, created_ms, race, options) -> int | None:
    """A race's time in ms when it is a record (the standard game, alone, finished, no hint),
    else None."""
    if not isinstance(race, dict) or players != [name] or not SetTable().race_record(options):
        return None
    sets = race.get("sets") or []
    if len(sets) < race.get("target", 0):
        return None
    mine = (tally or {}).get(name) or {}
    if mine.get("hints") or mine.get("hinted"):
        return None
    return sets[-1][1] - (starts_ms if starts_ms is not None else created_ms)


def best_times(n: int, period: str = "all", *, user=None, limit: int = BOARD_SIZE) -> list[dict]:
    """Return the board of best times of races to ``n``: each account's best, fastest first
    (an earlier game first on a tie), at most ``limit``; of races ended today (``period``
    "day") or ever ("all"); with ``user``, that account's only."""
    since = until = None
    if period == "day":
        since, until = _day_bounds(timezone.localdate())
    rows = _race_seats(n, since, until)
    if user is not None:
        rows = rows.filter(player__user=user)
    best: dict[str, tuple[int, int, datetime.datetime]] = {}
    for game_id, finished, name, username, *state in rows.iterator():
        ms = _time_ms(name, *state)
        if ms is None:
            continue
        if username not in best or (ms, game_id) < best[username][:2]:
            best[username] = (ms, game_id, finished)
    ordered = sorted(best.items(), key=lambda item: item[1][:2])[:limit]
    replay = reverse("replay", args=[0]).replace("/0/", "/{}/")
    return [
        {
            "rank": rank,
            "name": username,
            "ms": ms,
            "seconds": hundredths(ms),
            "game": game_id,
            "replay_url": replay.format(game_id),
            "finished": finished,
        }
        for rank, (username, (ms, game_id, finished)) in enumerate(ordered, start=1)
    ]


def boards() -> list[dict]:
    """Every board: for each N, today's and all time's."""
    return [
        {
            "n": n,
            "periods": [
                {"period": period, "label": label, "times": best_times(n, period)}
                for period, label in PERIODS.items()
            ],
        }
        for n in RACE_TARGETS
    ]


@require_GET
def races_page(request):
    """The boards of best race times, with a way to start a race."""
    return render(
        request,
        "races.html",
        {
            "player": session_player(request),
            "boards": boards(),
            "targets": RACE_TARGETS,
            "day": timezone.localdate().isoformat(),
            "board_size": BOARD_SIZE,
        },
    )
