"""Set-N races: a classic table that ends at the N-th set found there (this project's rule).

The fork of Set with Friends has no races; upstream's request (ekzhang#139, "take N Sets as
fast as possible, board never above 12") was never built, so these rules are the project's own:

- **Target**: the ``race`` option, 10, 20 or 30 sets, at a classic table of the card game itself
  (the ``normal`` mode: an UltraSet, a chain or a puzzle counts other things, whose times would
  not compare).
- **The board** is the card game's: 12 cards, growing by 3 only while it holds no set (as the
  dealer does), so it is above 12 only when 12 cards hold none.
- **The deck never runs dry**: 81 cards hold at most 27 sets, so a race to 30 could never end.
  When a set empties the draw pile, the cards of the sets found so far are shuffled back into
  it (a dealer gathering the discards), from a generator seeded by the table's creation time
  and the sets found, so replaying the log deals the same cards.
- **The end**: the N-th set found at the table ends the game at once. Since the cards of a set
  found go back into the pile, a race always reaches its target; only a chosen deck holding no
  set at all ends at its deal, as any game does, and such a race is *unfinished*: its result
  has no time and no winner.
- **The time** of a race runs from the deal to the N-th set. With several players, each has
  their sets; the winner found the most, and among those with as many, whoever found their last
  set first (the spec's scoring: "the earlier last valid claim").
"""

from __future__ import annotations

import random
from typing import Any

from cards.engine.table.base import TableError
from cards.engine.table.state import ClassicState, Race

__all__ = ["RACE_TARGETS", "race_option", "race_over", "race_result", "race_view", "recycled"]

#: The targets a race may have, in sets.
RACE_TARGETS = (10, 20, 30)


def race_option(options: dict, mode: str) -> int | None:
    """Return the ``race`` option checked (None when absent), refusing any target but
    `RACE_TARGETS` and a race in a mode other than the card game's.

    >>> race_option({"race": 10}, "normal")
    10
    >>> race_option({"race": 12}, "normal")
    Traceback (most recent call last):
    ...
    cards.engine.table.base.TableError: The race option is 10, 20 or 30 (sets to find); got 12.
    """
    if "race" not in options:
        return None
    value = options["race"]
    if isinstance(value, bool) or value not in RACE_TARGETS:
        allowed = ", ".join(map(str, RACE_TARGETS[:-1])) + f" or {RACE_TARGETS[-1]}"
        raise TableError(
            f"The race option is {allowed} (sets to find); got {value!r:.40}.", "bad_option"
        )
    if mode != "normal":
        raise TableError(
            f"A race is played in the normal mode only (the card game itself), not {mode}.",
            "bad_option",
        )
    return value


def recycled(
    state: ClassicState, deck: tuple[int, ...], taken: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return the draw pile and the cards taken after a race's set: when the pile is empty,
    the cards taken go back into it, shuffled (see the module); otherwise both as they are."""
    if deck or state.race is None or not taken:
        return deck, taken
    pile = list(taken)
    random.Random(f"race:{state.created_ms}:{len(state.race.sets)}").shuffle(pile)
    return tuple(pile), ()


def race_over(race: Race) -> bool:
    """Tell whether a race has found its target."""
    return len(race.sets) >= race.target


def _standings(race: Race) -> dict[str, dict[str, Any]]:
    """Each finder's sets and the time of their last one."""
    found: dict[str, dict[str, Any]] = {}
    for player, at_ms in race.sets:
        entry = found.setdefault(player, {"sets": 0, "last_ms": at_ms})
        entry["sets"] += 1
        entry["last_ms"] = at_ms
    return found


def race_result(state: ClassicState) -> dict[str, Any] | None:
    """Return a race's result, or None while it runs (or for a table that is no race).

    ``finished`` tells whether the target was reached (False: the cards ran out of sets
    first); ``ms`` is the race's time, from the deal to the N-th set (None when unfinished);
    ``winner`` found the most sets, the earlier last set breaking a tie (None when nobody found
    any); ``order`` lists every player so ranked.
    """
    race = state.race
    if race is None or not state.over:
        return None
    started = state.started_ms
    standings = _standings(race)
    order = sorted(
        state.players,
        key=lambda name: (
            -standings.get(name, {}).get("sets", 0),
            standings.get(name, {}).get("last_ms", float("inf")),
            state.players.index(name),
        ),
    )
    finished = race_over(race)
    return {
        "finished": finished,
        "ms": race.sets[-1][1] - started if finished and started is not None else None,
        "winner": order[0] if order and order[0] in standings else None,
        "order": order,
    }


def race_view(state: ClassicState, now_ms: int) -> dict[str, Any]:
    """Return what a view shows of a race: its ``target``, the sets ``found`` so far, each
    set's finder and time from the deal (``sets``), each player's sets and last set
    (``players``), the time so far or in all (``elapsed_ms``: None before the deal) and the
    ``result`` once over."""
    race = state.race
    assert race is not None
    started = state.started_ms
    if started is None:
        elapsed = None
    elif state.over:
        elapsed = (race.sets[-1][1] if race.sets else state.ended_ms or now_ms) - started
    else:
        elapsed = max(now_ms - started, 0)
    standings = _standings(race)
    return {
        "target": race.target,
        "found": len(race.sets),
        "sets": [
            {"player": player, "ms": at_ms - (started or at_ms)} for player, at_ms in race.sets
        ],
        "players": {
            name: {
                "sets": standings.get(name, {}).get("sets", 0),
                "last_ms": (
                    standings[name]["last_ms"] - (started or 0) if name in standings else None
                ),
            }
            for name in sorted(state.players)
        },
        "elapsed_ms": elapsed,
        "result": race_result(state),
    }
