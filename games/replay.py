"""Rebuild a game from its seed, options and move log: the log is the truth."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from games.kinds import get_rules
from games.models import Game, Move


def replay_states(
    game: Game, moves: Iterable[Move] | None = None
) -> Iterator[tuple[Move | None, dict]]:
    """Yield the state before any move, then the state after each move, in order."""
    rules = get_rules(game.kind)
    state = rules.new(options=game.options, seed=game.seed, now_ms=game.created_ms)
    yield None, state
    for move in game.moves.order_by("seq") if moves is None else moves:
        kind = move.action.get("type")
        if kind == "join":
            state = rules.join(state, move.actor, move.at_ms).state
        elif kind == "tick":
            state = rules.tick(state, move.at_ms).state
        else:
            state = rules.apply(state, move.actor, move.action, move.at_ms).state
        yield move, state


def replay(game: Game) -> dict:
    """Return the state the move log leads to (it must equal the stored snapshot)."""
    *_, (_move, state) = replay_states(game)
    return state
