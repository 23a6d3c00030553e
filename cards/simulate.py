"""Play many Set solitaire games quickly and report what the tables looked like.

The simulator deals from one random generator (seeded, so a run can be repeated), plays each
game with the int-code core (:func:`cards.engine.fast.play_codes`, the physical rules of
:mod:`cards.solitaire`) and reports:

* games per second;
* for boards of 12, 15 and 18 cards, the share that held no set, counted over every board the
  dealer looked at while the deck still had cards (each such look decides whether to deal);
* how many cards were left on the table at the end, game by game;
* the mean number of sets taken per game.

>>> report = simulate(200, seed=5)
>>> report.games, sum(report.leftover.values()), 20 < report.mean_sets <= 27
(200, 200, True)
>>> all(left % 3 == 0 and left != 3 for left in report.leftover)
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cards.engine.deck import make_rng
from cards.engine.errors import SetError
from cards.engine.fast import ATTRIBUTE_COUNTS, play_codes, shuffled_codes

__all__ = ["SimulationReport", "simulate"]

#: Board sizes whose no-set share is reported.
REPORTED_SIZES = (12, 15, 18)


@dataclass(frozen=True, slots=True)
class SimulationReport:
    """What a batch of solitaire games showed; ``seen[n]`` boards of n cards were looked at with
    cards still in the deck, ``empty[n]`` of them held no set; ``leftover`` maps cards left at
    the end to the number of games."""

    games: int
    attributes: int
    seed: int
    seconds: float
    sets: int
    seen: dict[int, int] = field(default_factory=dict)
    empty: dict[int, int] = field(default_factory=dict)
    leftover: dict[int, int] = field(default_factory=dict)

    @property
    def games_per_second(self) -> float:
        """Return the games played per second of wall time."""
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def mean_sets(self) -> float:
        """Return the mean number of sets taken per game."""
        return self.sets / self.games

    def p_no_set(self, size: int) -> float | None:
        """Return the share of looked-at ``size``-card boards with no set (None if none seen)."""
        seen = self.seen.get(size, 0)
        return self.empty.get(size, 0) / seen if seen else None

    def to_json(self) -> dict[str, Any]:
        """Return the report as plain JSON data (``leftover`` keys become strings)."""
        data: dict[str, Any] = {
            "games": self.games,
            "attributes": self.attributes,
            "seed": self.seed,
            "seconds": round(self.seconds, 6),
            "games_per_second": round(self.games_per_second, 1),
        }
        for size in REPORTED_SIZES:
            data[f"p_no_set_{size}"] = self.p_no_set(size)
        data["boards_seen"] = {str(size): count for size, count in sorted(self.seen.items())}
        data["boards_without_set"] = {
            str(size): count for size, count in sorted(self.empty.items())
        }
        data["leftover"] = {str(left): games for left, games in sorted(self.leftover.items())}
        data["mean_sets"] = self.mean_sets
        return data

    def format(self) -> str:
        """Return the report as text for people."""
        lines = [
            f"Played {self.games:,} games of {3**self.attributes}-card Set solitaire "
            f"(seed {self.seed}) in {self.seconds:.3f} s: {self.games_per_second:,.0f} games/s.",
            "Boards with no set, among those looked at while the deck still had cards:",
        ]
        for size in REPORTED_SIZES:
            share = self.p_no_set(size)
            seen = self.seen.get(size, 0)
            shown = "none seen" if share is None else f"{share:7.3%} of {seen:,}"
            lines.append(f"  {size} cards: {shown}")
        lines.append("Cards left at the end:")
        for left, games in sorted(self.leftover.items()):
            lines.append(f"  {left:3d} cards: {games:,} games ({games / self.games:.2%})")
        lines.append(f"Mean sets per game: {self.mean_sets:.3f}")
        return "\n".join(lines)


def simulate(
    games: int,
    seed: int | None = None,
    attributes: int = 4,
    progress: Callable[[int], Any] | None = None,
) -> SimulationReport:
    """Play ``games`` solitaire games dealt from ``seed`` and return a :class:`SimulationReport`.

    ``seed`` None picks one at random (the report keeps it). ``progress``, if given, is called
    now and then with the number of games just finished (for a progress bar).
    """
    if type(games) is not int or games < 1:
        raise SetError(f"the number of games must be a positive whole number, not {games!r}")
    if attributes not in ATTRIBUTE_COUNTS:
        raise SetError(f"a Set deck has 3, 4 or 5 attributes, not {attributes!r}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    rng = make_rng(seed)
    size = 3**attributes
    seen = [0] * (size + 1)
    empty = [0] * (size + 1)
    leftover = [0] * (size + 1)
    sets = 0
    step = 1000 if progress else games
    start = time.perf_counter()
    done = 0
    while done < games:
        batch = min(step, games - done)
        for _ in range(batch):
            taken, left = play_codes(shuffled_codes(size, rng), attributes, seen, empty)
            sets += len(taken)
            leftover[left] += 1
        done += batch
        if progress:
            progress(batch)
    seconds = time.perf_counter() - start
    return SimulationReport(
        games=games,
        attributes=attributes,
        seed=seed,
        seconds=seconds,
        sets=sets,
        seen={n: count for n, count in enumerate(seen) if count},
        empty={n: count for n, count in enumerate(empty) if count},
        leftover={n: count for n, count in enumerate(leftover) if count},
    )
