"""Ghost races: race a recorded solo run on its own deal, its sets shown as they were found.

A ghost race is a new game of the recorded game's kind, options and seed (the option
``"ghost": <recorded game's id>``, and a start of its own: it waits for its player's Start), so
its player is dealt the recording's boards for as long as they take the recording's sets; when
they take others the boards differ, which is why the ghost is never drawn on the player's board
but beside it, as its own list of sets, each shown at the time since the deal it was found at.
Nothing of a race is written anywhere but by the one write path (games.services): this module
only reads. What a set is, and when a table was dealt, are the kind's (``ghost_sets``, see
games.rules); comparing two lists of times is this module's.

- `race_deal` turns the create's options into the race's (or refuses, with a sentence);
- `ghost_of` is the recording's timeline, `{"game", "player", "sets": [{"at_ms", "cards"}]}`;
- `view_fields` is what every view of a race adds (`ghost`, and once over `ghost_result`),
  drawn by games.selectors.game_view for every way out (the API, the socket, the stream). A
  view drawn on an event loop (the fast API's move answers) cannot read the database: it has
  these fields once the server process has read them on a thread (the race's create and page,
  every GET of it), and else goes without them.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable

from games.errors import NotFound, RuleError
from games.models import Game, Move, Seat
from games.profiles import finished_stats
from games.rules import get_rules, kinds

#: The create's options a race takes from the request itself; the rest are the recording's.
OWN_OPTIONS = ("ghost", "start")


def _seconds(ms: int | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.1f} s"


def _everyones_deal(game: Game) -> bool:
    """Whether a game is a deal everyone is dealt (its options fix its seed: the day's puzzle,
    whose best runs are listed for all to race), however private its own table."""
    fixed = getattr(get_rules(game.kind), "seed_for", None)
    return fixed is not None and fixed(game.options) is not None


def race_deal(
    *, kind: str, options: dict, may_see: Callable[[Game], bool], seed: int | None = None
) -> tuple[dict, int]:
    """Return the options and seed of a race against the game ``options["ghost"]`` names:
    that game's own options and seed, the ghost named, dealt at its player's Start.

    Refused (RuleError, a 400, nothing made) with a sentence when the id is no number, names a
    game the requester may not see (`may_see`; a deal everyone is dealt, as the day's puzzle, is
    everyone's to race), another kind's game, a game not over, one not
    played alone by a person, or one of other options than those sent; NotFound (404) when no
    game has that id."""
    ghost = options.get("ghost")
    if not isinstance(ghost, int) or isinstance(ghost, bool) or not 1 <= ghost < 2**63:
        raise RuleError(
            f"The ghost option is the id of a finished solo game to race; got {ghost!r:.40}.",
            "bad_ghost",
        )
    game = Game.objects.filter(pk=ghost).first()
    if game is None:
        raise NotFound(f"There is no game with id {ghost} to race.")
    if not may_see(game) and not _everyones_deal(game):
        raise RuleError(
            f"Game {ghost} is private: race it from its own page, which its players and those "
            "with its link can open.",
            "bad_ghost",
        )
    rules = get_rules(game.kind)
    if game.kind != kind or getattr(rules, "ghost_sets", None) is None:
        raise RuleError(
            f"Game {ghost} is a game of {game.get_kind_display()}, not {kind}: a ghost race is "
            "played in the recorded game's kind.",
            "bad_ghost",
        )
    if game.status != Game.Status.OVER:
        raise RuleError(f"Game {ghost} is not finished: race it once it is over.", "bad_ghost")
    seats = list(game.seats.all())
    if len(seats) != 1 or seats[0].is_computer:
        played = f"{len(seats)} players" if len(seats) != 1 else "a computer"
        raise RuleError(
            f"Game {ghost} was played by {played}, not a solo run: a ghost race replays one "
            "person's run alone.",
            "bad_ghost",
        )
    recorded = {k: v for k, v in game.options.items() if k not in OWN_OPTIONS}
    for key, value in options.items():
        if key in OWN_OPTIONS:
            continue
        theirs = recorded.get(key, "normal" if key == "mode" else None)
        if value != theirs:
            raise RuleError(
                f"A ghost race is played with game {ghost}'s own options: its {key} is "
                f"{theirs!r}, not {value!r}. Leave the option out.",
                "bad_ghost",
            )
    if seed is not None and seed != game.seed:
        raise RuleError(
            f"A ghost race is dealt from game {ghost}'s own seed: leave seed out.", "bad_ghost"
        )
    return {**recorded, "start": "wait", "ghost": game.pk}, game.seed


def raceable(game: Game) -> bool:
    """Whether a game can be raced ("Race this run" on its pages): over, played alone by a
    person, of a kind with ghost races."""
    if game.status != Game.Status.OVER or getattr(get_rules(game.kind), "ghost_sets", None) is None:
        return False
    seats = list(game.seats.all())
    return len(seats) == 1 and not seats[0].is_computer


def best_runs(user, *, private: bool, limit: int = 5) -> list[dict]:
    """An account's fastest solo runs, to race from its profile: its finished games with a
    time of a run (each kind's ``run_time_fields``: Set's solitaire and puzzle times), fastest
    first, as ``{"game", "seconds", "name"}``; its private games only for `private`."""
    fields = {kind: getattr(get_rules(kind), "run_time_fields", ()) for kind in kinds()}
    seats = Seat.objects.filter(
        player__user=user,
        is_computer=False,
        game__status=Game.Status.OVER,
        game__kind__in=[kind for kind, named in fields.items() if named],
    ).exclude(game__options__has_key="ghost")
    if not private:
        seats = seats.filter(game__link_key="")
    rows = list(seats.values_list("game_id", "game__kind", "name"))
    figures = finished_stats(game_id for game_id, _kind, _name in rows)
    timed = []
    for game_id, kind, name in rows:
        mine = figures.get(game_id, {}).get(name, {})
        times = [t for field in fields[kind] for t in mine.get(field, ())]
        if times:
            timed.append((min(times), game_id, name))
    timed.sort()
    games = Game.objects.in_bulk([game_id for _t, game_id, _n in timed[:limit]])
    return [
        {"game": games[game_id], "seconds": seconds, "name": name}
        for seconds, game_id, name in timed[:limit]
        if game_id in games
    ]


def _sets_of(game: Game) -> list[dict]:
    log = Move.objects.filter(game=game).order_by("seq").values_list("actor", "outcome", "at_ms")
    return get_rules(game.kind).ghost_sets(game.options, game.state, list(log))


# A recording's timeline, and which game (if any) each game races, never change once known:
# kept per server process, the oldest forgotten first (as many as games.runtime keeps heads).
_KEEP = 1024
_known: OrderedDict[tuple, object] = OrderedDict()
_guard = threading.Lock()
_UNKNOWN = object()


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def remember_race(game_id: int, ghost: int) -> None:
    """Know that `game_id` races `ghost` as it is made (its first views may be drawn on an
    event loop: the fast API's move answers)."""
    _remembered(("races", game_id), lambda: ghost)


def _remembered(key: tuple, make: Callable[[], object]) -> object:
    """What is known of `key`, made by `make` the first time (it reads the database); on an
    event loop, where nothing may wait for the database, _UNKNOWN until a thread has made it."""
    with _guard:
        if key in _known:
            _known.move_to_end(key)
            return _known[key]
    if _on_event_loop():
        return _UNKNOWN
    value = make()
    with _guard:
        _known[key] = value
        if len(_known) > _KEEP:
            _known.popitem(last=False)
    return value


def forget() -> None:
    """Forget what is known of every game (the tests' databases repeat ids)."""
    with _guard:
        _known.clear()


def ghost_of(game_id: int) -> dict:
    """The timeline of a recorded (finished) game: its id, its player's name, and its sets in
    the order found, each its time since the deal (``at_ms``) and its cards."""

    def read() -> dict:
        game = Game.objects.get(pk=game_id)
        seat = game.seats.first()
        return {"game": game.pk, "player": seat.name if seat else "", "sets": _sets_of(game)}

    return _remembered(("timeline", game_id), read)  # type: ignore[return-value]


def compare(mine: list[dict], ghost: list[dict]) -> dict:
    """Who was ahead at each set: the n-th set of the race against the ghost's n-th, by time
    since the deal (a set one side never found: the other was ahead); ``winner`` found more sets,
    or as many sooner ("level": the same).

    >>> result = compare([{"at_ms": 4200}], [{"at_ms": 3100}, {"at_ms": 9000}])
    >>> [row["ahead"] for row in result["sets"]], result["winner"]
    (['ghost', 'ghost'], 'ghost')
    >>> result["lines"][0]
    'Set 1: you 4.2 s, ghost 3.1 s: ghost ahead.'
    """
    rows = []
    for n in range(max(len(mine), len(ghost))):
        you = mine[n]["at_ms"] if n < len(mine) else None
        them = ghost[n]["at_ms"] if n < len(ghost) else None
        if them is None or (you is not None and you < them):
            ahead = "you"
        elif you is None or them < you:
            ahead = "ghost"
        else:
            ahead = "level"
        rows.append({"set": n + 1, "you_ms": you, "ghost_ms": them, "ahead": ahead})
    if len(mine) != len(ghost):
        winner = "you" if len(mine) > len(ghost) else "ghost"
    else:
        winner = rows[-1]["ahead"] if rows else "level"
    words = {"you": "you ahead", "ghost": "ghost ahead", "level": "level"}
    lines = [
        f"Set {row['set']}: you {_seconds(row['you_ms'])}, ghost {_seconds(row['ghost_ms'])}: "
        f"{words[row['ahead']]}."
        for row in rows
    ]
    summary = {
        "you": f"You beat the ghost: {len(mine)} sets to {len(ghost)}.",
        "ghost": f"The ghost won: {len(ghost)} sets to your {len(mine)}.",
        "level": f"Level with the ghost: {len(mine)} sets each, the last at the same time.",
    }[winner]
    if winner != "level" and len(mine) == len(ghost) and rows:
        gap = abs((rows[-1]["you_ms"] or 0) - (rows[-1]["ghost_ms"] or 0))
        summary = (
            f"You beat the ghost by {_seconds(gap)}."
            if winner == "you"
            else f"The ghost won by {_seconds(gap)}."
        )
    return {"sets": rows, "winner": winner, "lines": lines, "summary": summary}


def view_fields(game_id: int, kind: str, over: bool) -> dict:
    """What a view of the game adds when it is a ghost race: ``ghost`` (the recording's
    timeline) and, once the race is over, ``ghost_result`` (`compare`); nothing for any other
    game. One query the first time a server process draws a game of a kind with ghosts."""
    if not kind or getattr(get_rules(kind), "ghost_sets", None) is None:
        return {}
    ghost = _remembered(
        ("races", game_id),
        lambda: Game.objects.filter(pk=game_id).values_list("options__ghost", flat=True).first(),
    )
    if not isinstance(ghost, int):
        return {}
    timeline = ghost_of(ghost)
    if timeline is _UNKNOWN:
        return {}
    fields = {"ghost": timeline}
    if over:
        result = _remembered(
            ("result", game_id),
            lambda: compare(_sets_of(Game.objects.get(pk=game_id)), timeline["sets"]),
        )
        if result is not _UNKNOWN:
            fields["ghost_result"] = result
    return fields
