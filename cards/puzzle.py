"""The daily puzzle at /puzzle/: the same 12 cards holding 6 sets for everyone on a given day.

Each visitor plays their own game of the day's puzzle: a classic table in the ``puzzle`` mode
with the ``day`` option, whose seed the rules draw from the server's secret key and the date
(`cards.rules.SetTable.seed_for`), so every game of a day has the same 12 cards and nobody can
work them out beforehand; a day still to come is refused. It is played on the table page like
any other. Days are the server's dates (``TIME_ZONE``, UTC by default). The page lists the
day's best times of accounts (games started that day: a past day's puzzle played later is no
record) and, for an account, its best time on each of its last days; a time runs from the
game's deal to its sixth set, and a game with a hint has no time (as in profiles).
"""

from __future__ import annotations

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


def best_times(day: str) -> list[dict]:
    """Return the day's best time of each account, fastest first (at most `BEST_SHOWN`)."""
    best: dict[int, dict] = {}
    for game in _puzzles(options__day=day, status=Game.Status.OVER, created__date=day):
        result = _result(game)
        if result is None or not result["account"]:
            continue
        known = best.get(result["user_id"])
        if known is None or result["seconds"] < known["seconds"]:
            best[result["user_id"]] = result
    return sorted(best.values(), key=lambda row: (row["seconds"], row["game"].pk))[:BEST_SHOWN]


def account_days(user) -> list[dict]:
    """Return an account's best time of each day it finished the puzzle, the latest day first."""
    best: dict[str, dict] = {}
    for game in _puzzles(seats__player__user=user, status=Game.Status.OVER):
        result = _result(game)
        if result is None:
            continue
        known = best.get(result["day"])
        if known is None or result["seconds"] < known["seconds"]:
            best[result["day"]] = result
    return [best[day] for day in sorted(best, reverse=True)[:DAYS_SHOWN]]


def _mine_today(player, day: str) -> list[Game]:
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
            limits.check_join(request)
            game = services.game_create(kind=Game.Kind.SET, options={"mode": "puzzle", "day": day})
            services.game_join(game_id=game.pk, player=player, name=player.name)
            return redirect(game_url(game))
        except (FormError, GameError) as error:
            errors["puzzle"] = error.message if isinstance(error, GameError) else str(error)
            status = form_status(error)
            player = session_player(request)
    mine = _mine_today(player, day)
    context = {
        "player": player,
        "day": day,
        "errors": errors,
        "mine": [{"game": game, "url": game_url(game), "result": _result(game)} for game in mine],
        "best": best_times(day),
        "days": account_days(request.user) if request.user.is_authenticated else [],
    }
    return render(request, "puzzle.html", context, status=status)
