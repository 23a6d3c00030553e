"""The daily puzzle at /puzzle/: the same 12 cards holding 6 sets for everyone on a given day.

Each visitor plays their own game of the day's puzzle: a classic table in the ``puzzle`` mode
with the ``day`` option, whose seed the rules draw from the server's secret key and the date
(`cards.rules.SetTable.seed_for`), so every game of a day has the same 12 cards and nobody can
work them out beforehand; a day still to come is refused. It is played on the table page like
any other. Days are the server's dates (``TIME_ZONE``, UTC by default). A player plays a day's
puzzle once (the page opens the same game again); the page lists the day's best times of
accounts (each account's first game started that day: a past day's puzzle played later is no
record) and, for an account, its time on each of its last days; a time runs from the
game's deal to its sixth set, and a game with a hint has no time (as in profiles).
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from games import limits, services
from games.auth import session_player, session_player_save
from games.errors import GameError
from games.models import Game
from games.pages import FormError, _clean_name, form_status, game_url
from games.rules import get_rules

#: How many of the day's best times the page lists, and how many of an account's days.
BEST_SHOWN = 10
DAYS_SHOWN = 14


def today() -> str:
    """Return today's date as the ``day`` option names it (YYYY-MM-DD, the server's date)."""
    return timezone.localdate().isoformat()


def _puzzles(**filters):
    return (
        Game.objects.filter(
            kind=Game.Kind.SET, options__mode="puzzle", options__has_key="day", **filters
        )
        .exclude(options__has_key="ghost")  # a race against a ghost is no day's game
        .distinct()
        .prefetch_related("seats__player__user")
        .order_by("id")
    )


def _result(game: Game) -> dict | None:
    """Return a finished puzzle game's result for lists: who, how fast, how many wrong claims;
    None when it is no time (not alone, not over, or hinted)."""
    seats = list(game.seats.all())
    seconds = get_rules(Game.Kind.SET).puzzle_seconds(game.options, game.state)
    if seconds is None or len(seats) != 1:
        return None
    tally = game.state["tally"].get(seats[0].name, {})
    user = seats[0].player.user
    return {
        "game": game,
        "name": seats[0].name,
        # Where the name links: the account's profile (its seat may carry another name).
        "username": user.get_username() if user is not None else None,
        "account": user is not None,
        "user_id": seats[0].player.user_id,
        "player_id": seats[0].player_id,
        "day": game.options["day"],
        "seconds": seconds,
        "wrong": tally.get("wrong", 0),
    }


def _first_games(games) -> dict:
    """Each account's first game among `games` (in id order): the one its time is, since the
    same cards again, once seen, would be no time at all."""
    first: dict = {}
    for game in games:
        seats = list(game.seats.all())
        if len(seats) == 1 and seats[0].player.user_id is not None:
            first.setdefault((seats[0].player.user_id, game.options["day"]), game)
    return first


def best_times(day: str) -> list[dict]:
    """Return the day's time of each account, fastest first (at most `BEST_SHOWN`): of its
    first game started that day, when that game has a time."""
    results = (
        _result(game)
        for game in _first_games(_puzzles(options__day=day, created__date=day)).values()
    )
    rows = [row for row in results if row is not None]
    return sorted(rows, key=lambda row: (row["seconds"], row["game"].pk))[:BEST_SHOWN]


def account_days(user) -> list[dict]:
    """Return an account's time on each day it found the puzzle (its first game of the day, if
    that has a time), the latest day first."""
    first = _first_games(_puzzles(seats__player__user=user))
    rows = [row for row in map(_result, first.values()) if row is not None]
    return sorted(rows, key=lambda row: row["day"], reverse=True)[:DAYS_SHOWN]


def _mine_today(request, player, day: str) -> list[Game]:
    """The visitor's games of the day's puzzle (an account's, from any of its browsers)."""
    if request.user.is_authenticated:
        return list(_puzzles(seats__player__user=request.user, options__day=day))
    if player is None:
        return []
    return list(_puzzles(seats__player=player, options__day=day))


@require_http_methods(["GET", "POST"])
def puzzle(request):
    """Show the day's puzzle page; on POST, deal the day's puzzle to the visitor and open it."""
    player = session_player(request)
    day = today()
    errors = {}
    status = 200
    if request.method == "POST":
        try:
            if request.POST.get("name") is not None or player is None:
                player = session_player_save(
                    request, _clean_name(request.POST.get("name"), request)
                )
            # One game a day: the same cards again, once seen, would be no time at all. Two
            # starts at once (two tabs, two server processes) are decided one after the other.
            account = request.user if request.user.is_authenticated else None
            with services.decided_together(account or player):
                played = _mine_today(request, player, day)
                if not played:
                    limits.check_join(request)
                    game = services.game_create(
                        kind=Game.Kind.SET, options={"mode": "puzzle", "day": day}
                    )
                    services.game_join(game_id=game.pk, player=player, name=player.name)
                    return redirect(game_url(game))
            messages.info(request, "You have played today's puzzle: here is your game.")
            return redirect(game_url(played[0]))
        except (FormError, GameError) as error:
            errors["puzzle"] = error.message if isinstance(error, GameError) else str(error)
            status = form_status(error)
            player = session_player(request)
    mine = _mine_today(request, player, day)
    context = {
        "player": player,
        "day": day,
        "errors": errors,
        "mine": [{"game": game, "url": game_url(game), "result": _result(game)} for game in mine],
        "best": best_times(day),
        "days": account_days(request.user) if request.user.is_authenticated else [],
    }
    return render(request, "puzzle.html", context, status=status)
