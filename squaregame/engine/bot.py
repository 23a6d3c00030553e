"""A computer player: take the placement that closes the most squares, else pass."""

from __future__ import annotations

import random
from typing import Any

from squaregame.engine.errors import SquareGameError
from squaregame.engine.game import PASS, iter_placements, legal_placements
from squaregame.engine.state import GameState


def choose_move(state: GameState, rng: random.Random) -> dict[str, Any]:
    """Return the action the computer takes for the seat to move.

    Pick, among the legal placements, one that newly closes the most squares (more squares
    mean more extra placements); break ties with ``rng`` over the sorted candidates, so a
    seeded ``Random`` always makes the same game. Before the opening, pick any of the
    opening choices; pass when no placement is legal. Raise :class:`SquareGameError` once
    the game is over.

    >>> from squaregame.engine.game import new_game, play
    >>> state = new_game(2)
    >>> state = play(state, 2, choose_move(state, random.Random(7)))[0]
    >>> choose_move(state, random.Random(7))["type"]
    'place'
    """
    if state.over or state.current is None:
        raise SquareGameError("the game is over: there is no move to choose")
    if not state.started:
        return rng.choice(legal_placements(state)).to_action()
    options = list(iter_placements(state, state.hand(state.current)))
    if not options:
        return dict(PASS)
    most = max(len(squares) for _, squares in options)
    best = sorted(move for move, squares in options if len(squares) == most)
    return rng.choice(best).to_action()
