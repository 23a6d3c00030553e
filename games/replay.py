"""Rebuild a game from its seed, options and move log: the log is the truth."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from games.models import Game, Move
from games.rules import Rules, get_rules


def replay_states(
    game: Game, moves: Iterable[Move] | None = None
) -> Iterator[tuple[Move | None, dict]]:
    """Yield the state before any move, then the state after each move, in order."""
    rules = get_rules(game.kind)
    state = rules.new(options=game.options, seed=game.seed, now_ms=game.created_ms)
    yield None, state
    for move in game.moves.order_by("seq") if moves is None else moves:
        state = next_state(rules, state, move.actor, move.action, move.at_ms)
        yield move, state


def next_state(rules: Rules, state: dict, actor: str, action: dict, at_ms: int) -> dict:
    """The state after one logged move (a join, the game's own tick, or a seat's action)."""
    kind = action.get("type")
    if kind == "join":
        return rules.join(state, actor, at_ms).state
    if kind == "tick":
        return rules.tick(state, at_ms).state
    return rules.apply(state, actor, action, at_ms).state


def replay(game: Game) -> dict:
    """Return the state the move log leads to (it must equal the stored snapshot)."""
    *_, (_move, state) = replay_states(game)
    return state
