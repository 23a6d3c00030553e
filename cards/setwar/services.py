"""Writes for Set War: play a whole game and store it with its rounds as moves.

A Set War game has no decisions, so it is played as it is created: the rounds are computed
first (outside any transaction, so no lock is held while the engine runs), then the game row and
one Move per round are written in one transaction. The moves are bulk-inserted and the final
state, status and version are set together, so ``version == number of moves == last seq`` and
replaying the moves from the seed and options gives the stored state (games.replay).
"""

from __future__ import annotations

import random

from django.db import transaction
from django.utils import timezone

from games import runtime, selectors
from games.errors import GameError, RuleError
from games.models import Game
from games.rules import get_rules
from games.services import moves_append, now_ms


def setwar_run(*, players, cards=None, seed: int | None = None, now: int | None = None) -> Game:
    """Play a game of Set War to its end and store it; return the finished game.

    `players` is a whole number of at least 1 (or a string of digits); `cards` a string of
    cards separated by whitespace or a list of card strings, top first, or `None` for the 81
    cards shuffled by `seed` (random when not given). Bad input raises a `GameError` (400)
    whose message is the engine's (``invalid card: 0123``) and stores nothing.
    """
    rules = get_rules(Game.Kind.SETWAR)
    now = now_ms() if now is None else now
    if seed is None:
        seed = random.SystemRandom().randrange(2**62)
    try:
        options = rules.clean_options(
            {"players": players} if cards is None else {"players": players, "cards": cards}
        )
        state = rules.new(options=options, seed=seed, now_ms=now)
        moves = []
        while not state["over"]:
            number = state["round"] + 1
            action = {"type": "round", "number": number}
            result = rules.apply(state, "", action, now)
            state = result.state
            moves.append((number, action, result.outcome))
    except (RuleError, ValueError) as exc:
        raise GameError(str(exc)) from exc

    with runtime.write_transaction():
        game = Game.objects.create(
            kind=Game.Kind.SETWAR,
            options=options,
            seed=seed,
            state=state,
            status=rules.status(state),
            version=len(moves),
            deadline_ms=None,
            created_ms=now,
            finished=timezone.now(),
        )
        # One Move per round, in one executemany: a drawn game has 10,000 rounds.
        moves_append(game.pk, [(n, None, "", action, outcome, now) for n, action, outcome in moves])
        head = selectors.head_of(game)
        transaction.on_commit(lambda: runtime.remember_head(head))
    return game
