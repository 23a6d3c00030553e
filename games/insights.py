"""An account's insights (reads only): what its last finished games say about how it plays, as
its game kinds work it out (a kind's rules' ``insight_figures`` for one game and ``insights`` for
a player's games; today only Set's, `cards.insights`), with the charts a profile draws of them.

A finished game never changes, so its figures are computed once, from its log, and kept in the
cache for good (`game_figures`, like `games.profiles.finished_stats`). An account's insights over
its last N games are kept too, under the count and the latest finish of its finished games, so a
new finished game (or one that ends late) makes new ones and nothing else has to forget them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.core.cache import cache
from django.db.models import Count, Max

from games import charts, profiles
from games.models import Game, Seat
from games.rules import get_rules, kinds

INSIGHTS_VERSION = 1  # bump when a kind's figures change: the cached ones are then recomputed
GAME_CHOICES = (20, 50, 200)
DEFAULT_GAMES = 50


class BadGames(ValueError):
    """A number of games insights cannot be drawn over; its message says why."""


def games_choice(value: object) -> int:
    """The number of last games asked for (a query's text, or nothing for the default)."""
    if value is None or value == "":
        return DEFAULT_GAMES
    choices = ", ".join(map(str, GAME_CHOICES))
    if isinstance(value, str) and value.strip().isdigit() and int(value) in GAME_CHOICES:
        return int(value)
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    raise BadGames(f"games must be one of {choices} (the last games to look at), not {shown}.")


def insight_kinds() -> list[str]:
    """The game kinds whose rules work out insights."""
    return [kind for kind in kinds() if hasattr(get_rules(kind), "insight_figures")]


def _key(game_id: int) -> str:
    return f"game-insight:{INSIGHTS_VERSION}:{game_id}"


def _figures(game: Game, log: list) -> dict | None:
    work = getattr(get_rules(game.kind), "insight_figures", None)
    return work(game.options, game.seed, game.created_ms, log) if work else None


def game_figures(game_ids: Iterable[int]) -> dict[int, dict | None]:
    """The figures of each finished game, by id: {seat name: figures}, or None for a game that
    does not count; worked out once and cached for good (games.profiles.per_finished_game)."""
    return profiles.per_finished_game(
        game_ids,
        key=_key,
        columns=("actor", "action", "outcome", "at_ms"),
        fields=("kind", "options", "seed", "created_ms"),
        work=_figures,
    )


def account_insights(user, games: int = DEFAULT_GAMES, *, private: bool = True) -> dict:
    """The account's insights over its last ``games`` finished games that count (newest first,
    by when they ended), without its private games (by link only) unless ``private``: for each
    kind that works them out, ``{"kind", "games": [the games' ids], **its insights}``."""
    seats = Seat.objects.filter(
        player__user=user, game__status=Game.Status.OVER, game__kind__in=insight_kinds()
    )
    if not private:
        seats = seats.filter(game__link_key="")
    latest = seats.aggregate(count=Count("id"), last=Max("game__finished"), top=Max("game_id"))
    stamp = f"{latest['count']}:{latest['last'] and latest['last'].timestamp()}:{latest['top']}"
    key = f"insights:{INSIGHTS_VERSION}:{user.pk}:{games}:{int(private)}:{stamp}"
    answer = cache.get(key)
    if answer is not None:
        return answer
    ordered = seats.order_by("-game__finished", "-game_id").values_list(
        "game_id", "name", "game__kind"
    )
    chosen: dict[str, list[tuple[int, dict]]] = defaultdict(list)
    offset, taken = 0, 0
    while taken < games:
        # As many as are still wanted: a game that does not count (practice...) asks for more.
        page = list(ordered[offset : offset + games - taken])
        if not page:
            break
        offset += len(page)
        figures = game_figures(game_id for game_id, _, _ in page)
        for game_id, name, kind in page:
            mine = (figures.get(game_id) or {}).get(name)
            if mine is not None and taken < games:
                chosen[kind].append((game_id, mine))
                taken += 1
    answer = {
        "games_asked": games,
        "games_counted": taken,
        "kinds": [
            {
                "kind": kind,
                "games": [game_id for game_id, _ in rows],
                **get_rules(kind).insights([mine for _, mine in rows]),
            }
            for kind, rows in chosen.items()
        ],
    }
    cache.set(key, answer, 24 * 60 * 60)
    return answer


def _seconds(value: float) -> str:
    return f"{value:.1f} s".replace(".0 s", " s")


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def insight_charts(insights: dict, *, name: str) -> dict:
    """The charts of one kind's insights, for a page: ``trend``, the seconds per set and the share
    of wrong claims over the games; ``splits``, each split with its rows and two charts, its
    seconds per set and its wrong claims, comparing the earlier and the later half of the games."""
    count = insights["totals"]["games"]
    trend = insights["trend"]
    size = trend[0]["games"][1] if trend else 1
    lines = [
        charts.Series(
            "Seconds per set",
            [
                (i, c["seconds_per_set"])
                for i, c in enumerate(trend, 1)
                if c["seconds_per_set"] is not None
            ],
        ),
        charts.Series(
            "Wrong claims, % of claims",
            [
                (i, c["wrong_share"] * 100)
                for i, c in enumerate(trend, 1)
                if c["wrong_share"] is not None
            ],
        ),
    ]
    out = {
        "trend": charts.line_chart(
            lines,
            title=f"{name}'s seconds per set and wrong claims, {size} games at a time",
            description=(
                f"The last {count} games, oldest first, in groups of {size}: the mean seconds "
                "per set and the share of claims that were wrong in each group. The table "
                "below gives every number."
            ),
            x_format=lambda x: f"#{x:.0f}",
        ),
        "trend_label": (
            f"Seconds per set and wrong claims (% of claims), {size} game{'s' if size > 1 else ''}"
            " a point, oldest first"
        ),
        "splits": [],
    }
    names = (f"Earlier {count // 2} games", f"Later {count - count // 2} games")
    for split in insights["splits"]:
        groups = [row["short"] for row in split["rows"]]
        drawn = []
        for measure, label, fmt in (
            ("seconds_per_set", "Seconds per set", _seconds),
            ("wrong_share", "Wrong claims, share of claims", _percent),
        ):
            series = [
                charts.Series(names[i], values=[row[half][measure] for row in split["rows"]])
                for i, half in enumerate(("earlier", "later"))
            ]
            drawn.append(
                {
                    "label": label,
                    "svg": charts.bar_chart(
                        groups,
                        series,
                        title=f"{name}'s {label.lower()}, {split['title'].lower()}",
                        description=(
                            f"{label} {split['title'].lower()}, in the earlier and the later half "
                            f"of the last {count} games. The table below gives every number."
                        ),
                        y_format=fmt,
                    ),
                }
            )
        out["splits"].append({**split, "charts": drawn})
    return out
