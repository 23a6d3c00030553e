"""Arena scoring, pure: the points one tournament game gives each of its players.

A table of n players gives placement points n-1 to the first, n-2 to the second, down to 0 to
the last. Players who tie share: each gets the mean of the points of the places they fill
together (two tied first of three fill the places worth 2 and 1: each gets 1.5), so a game
always gives n(n-1)/2 points in all, tie or not. Points are therefore whole or halves.

A player who has won the two games before this one is "on fire": the game's points are doubled.
A win is a first place alone; any other result (a tie for first included) ends the streak.

>>> placement_points({"ann": 0, "bob": 1, "cy": 2})
{'ann': 2.0, 'bob': 1.0, 'cy': 0.0}
>>> placement_points({"ann": 0, "bob": 0, "cy": 1})
{'ann': 1.5, 'bob': 1.5, 'cy': 0.0}
>>> [s.points for s in score_game({"ann": 0, "bob": 1}, {"ann": 2, "bob": 0})]
[2.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

FIRE_STREAK = 2  # wins in a row that set a player on fire
FIRE_FACTOR = 2


def places(ranks: Mapping[Hashable, int]) -> dict[Hashable, int]:
    """Each player's place (0 first) from ranks where equal ranks tie and lower is better: the
    number of players strictly ahead (ranks 0, 0, 1 are places 0, 0, 2)."""
    return {who: sum(1 for other in ranks.values() if other < rank) for who, rank in ranks.items()}


def placement_points(ranks: Mapping[Hashable, int]) -> dict[Hashable, float]:
    """The placement points of each player of one table, ranked by `ranks` (lower is better,
    equal ranks tie): n-1 for the first down to 0 for the last; tied players each get the
    mean of the points of the places they share."""
    n = len(ranks)
    at = places(ranks)
    points = {}
    for who, place in at.items():
        tied = sum(1 for other in at.values() if other == place)
        # Places place .. place+tied-1, worth n-1-place down to n-place-tied: their mean.
        points[who] = ((n - 1 - place) + (n - place - tied)) / 2
    return points


@dataclass(frozen=True)
class GameScore:
    """What one game gives one player: the place, the placement points, whether the player was
    on fire (the points doubled), the points, and the streak of wins after the game."""

    who: Hashable
    place: int
    placement: float
    on_fire: bool
    points: float
    streak: int

    @property
    def won(self) -> bool:
        return self.streak > 0


def score_game(ranks: Mapping[Hashable, int], streaks: Mapping[Hashable, int]) -> list[GameScore]:
    """Score one tournament game: each player's GameScore, in the order of `ranks`, from the
    ranks (lower is better, equal: a tie) and each player's streak of wins before it (missing:
    0)."""
    at = places(ranks)
    points = placement_points(ranks)
    scores = []
    for who in ranks:
        streak = streaks.get(who, 0)
        on_fire = streak >= FIRE_STREAK
        won = at[who] == 0 and sum(1 for p in at.values() if p == 0) == 1 and len(ranks) > 1
        factor = FIRE_FACTOR if on_fire else 1
        scores.append(
            GameScore(
                who, at[who], points[who], on_fire, points[who] * factor, streak + 1 if won else 0
            )
        )
    return scores
