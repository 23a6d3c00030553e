"""What an account has done (reads only): its ratings and their history, its totals over its
finished games, and its latest games. The profile page (/u/<name>) and GET /api/users/<name>
show them; the site's statistics sum the same per-game figures.

Each kind says what it counts in a finished game (its rules' ``stat_fields`` and ``stats``): a
count per player (sets found...) or a list of seconds (seconds per set...). A finished game
never changes, so its figures are computed once, from its state and its log, and kept in the
cache for good (`finished_stats`); a profile sums its games' figures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.db.models import Prefetch

from games import ratings
from games.models import Game, Move, Rating, RatingChange, Seat
from games.rules import get_rules, kinds

STATS_VERSION = 1  # bump when a kind's `stats` changes: the cached figures are then recomputed
BATCH = 200  # finished games read at once when their figures are not cached
LAST_GAMES = 100


def _key(game_id: int) -> str:
    return f"game-stats:{STATS_VERSION}:{game_id}"


def stat_fields() -> dict[str, str]:
    """Every field the kinds count, with its name for people, in the kinds' order."""
    fields: dict[str, str] = {}
    for kind in kinds():
        fields.update(getattr(get_rules(kind), "stat_fields", {}))
    return fields


def per_finished_game(game_ids: Iterable[int], *, key, columns, fields, work) -> dict[int, Any]:
    """What ``work(game, log)`` makes of each finished game, by id, kept in the cache for good
    under ``key(game_id)``: those not in the cache are worked out BATCH games at a time (one
    query for the games, with their ``fields``, one for their logs: each move's ``columns``, in
    order). Profiles' figures (`finished_stats`) and insights (games.insights) are made so."""
    ids = list(dict.fromkeys(game_ids))
    cached = cache.get_many([key(game_id) for game_id in ids])
    found = {game_id: cached[key(game_id)] for game_id in ids if key(game_id) in cached}
    missing = [game_id for game_id in ids if game_id not in found]
    for start in range(0, len(missing), BATCH):
        chunk = missing[start : start + BATCH]
        logs: dict[int, list] = defaultdict(list)
        rows = Move.objects.filter(game_id__in=chunk).order_by("game_id", "seq")
        for game_id, *row in rows.values_list("game_id", *columns):
            logs[game_id].append(tuple(row))
        games = Game.objects.filter(pk__in=chunk, status=Game.Status.OVER)
        computed = {game.pk: work(game, logs[game.pk]) for game in games.only("id", *fields)}
        cache.set_many({key(game_id): value for game_id, value in computed.items()}, None)
        found.update(computed)
    return found


def _stats(game: Game, log: list) -> dict[str, dict] | None:
    stats = getattr(get_rules(game.kind), "stats", None)
    return stats(game.options, game.state, log) if stats else {}


def finished_stats(game_ids: Iterable[int]) -> dict[int, dict[str, dict] | None]:
    """The figures of each finished game, by id: {seat name: {field: value}} (empty for a kind
    that counts nothing; None for a game left out of every record, a Set practice table),
    cached (`per_finished_game`)."""
    return per_finished_game(
        game_ids,
        key=_key,
        columns=("actor", "outcome", "at_ms"),
        fields=("kind", "options", "state"),
        work=_stats,
    )


def totals(per_game: Iterable[dict]) -> dict:
    """Sum one player's figures over games: ``games_played``, each count summed, and each list
    of seconds as {"count", "mean", "best"} (None when empty). Every field of every kind is
    there, so an account that played nothing has the same shape."""
    counts: dict[str, int] = defaultdict(int)
    seconds: dict[str, list[float]] = defaultdict(list)
    played = 0
    for figures in per_game:
        played += 1
        for field, value in figures.items():
            if isinstance(value, list):
                seconds[field] += value
            else:
                counts[field] += value
    out: dict = {"games_played": played}
    for field in stat_fields():
        if is_seconds(field):
            values = seconds.get(field, [])
            out[field] = {
                "count": len(values),
                "mean": round(sum(values) / len(values), 2) if values else None,
                "best": round(min(values), 2) if values else None,
            }
        else:
            out[field] = counts.get(field, 0)
    return out


def is_seconds(field: str) -> bool:
    """Whether a field holds lists of seconds (its name says so) rather than a count."""
    return "seconds" in field


def account_stats(user) -> dict:
    """An account's totals over every finished game one of its players sat at."""
    seats = Seat.objects.filter(player__user=user, game__status=Game.Status.OVER)
    rows = list(seats.values_list("game_id", "name"))
    figures = finished_stats(game_id for game_id, _ in rows)
    return totals(
        (figures.get(game_id) or {}).get(name, {})
        for game_id, name in rows
        if figures.get(game_id, {}) is not None  # a practice game is no record
    )


def account_ratings(user) -> dict[str, dict]:
    """The account's rating in each mode it has played rated: {mode: {"rating", "games"}}."""
    rows = Rating.objects.filter(user=user).values_list("mode", "mu", "games")
    order = {mode: index for index, mode in enumerate(ratings.modes())}
    return {
        mode: {"rating": ratings.shown(mu), "games": games}
        for mode, mu, games in sorted(rows, key=lambda row: order.get(row[0], len(order)))
    }


def rating_history(user) -> dict[str, list[dict]]:
    """Each mode's rating after every rated game, oldest first, starting from the rating before
    the first: {mode: [{"game", "at", "rating"}...]} ("game" and "at" None for the start)."""
    history: dict[str, list[dict]] = {}
    changes = RatingChange.objects.filter(user=user).order_by("created", "game_id")
    rows = changes.values_list("game_id", "mode", "mu_before", "mu_after", "created")
    for game_id, mode, mu_before, mu_after, created in rows:
        points = history.setdefault(mode, [])
        if not points:
            points.append({"game": None, "at": None, "rating": ratings.shown(mu_before)})
        points.append({"game": game_id, "at": created, "rating": ratings.shown(mu_after)})
    return history


def latest_seats(user, limit: int = LAST_GAMES, *, private: bool = True) -> list[Seat]:
    """The account's seats at its latest games (any status), newest first, each with its game
    its player and the game's seats with theirs (two queries in all); without its `private`
    games (by link only) for anyone but the account itself."""
    seats = Seat.objects.filter(player__user=user)
    if not private:
        seats = seats.filter(game__link_key="")
    seats = (
        seats.select_related("game", "player")
        .prefetch_related(
            Prefetch("game__seats", queryset=Seat.objects.select_related("player__user__bot"))
        )
        .order_by("-game_id", "number")
    )
    return list(seats[:limit])
