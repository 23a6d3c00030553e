"""Writes for Set War: play a whole game and store it with its rounds as moves.

A Set War game has no decisions, so it is played as it is created: the rounds are computed
first (no lock is held while the engine runs), then the game and one move per round are written
together by the services (`services.create_played`), so ``version == number of moves == last
seq`` and replaying the moves from the seed and options gives the stored state (games.replay).
"""

from __future__ import annotations

import random

from games import planning, services
from games.errors import GameError
from games.models import Game
from games.rules import get_rules

RANDOM_SEEDS = 2**53


def setwar_run(*, players, cards=None, seed: int | None = None, now: int | None = None) -> Game:
    """Play a game of Set War to its end and store it; return the finished game.

    `players` is a whole number of at least 1 (or a string of digits); `cards` a string of
    cards separated by whitespace or a list of card strings, top first, or `None` for the 81
    cards shuffled by `seed` (random when not given). Bad input raises a `GameError` (400)
    whose message is a sentence (``Card 2 is '0123': a card is four digits 0-2.``) and stores
    nothing.
    """
    rules = get_rules(Game.Kind.SETWAR)
    now = services.now_ms() if now is None else now
    if seed is None:
        # Below 2**53, so that the seed reads exactly as a JSON number in every language (a
        # browser's included): the seed the page shows deals the same game when typed back.
        seed = random.SystemRandom().randrange(RANDOM_SEEDS)
    try:
        options = rules.clean_options(
            {"players": players} if cards is None else {"players": players, "cards": cards}
        )
        state = rules.new(options=options, seed=seed, now_ms=now)
        steps = []
        while not state["over"]:
            action = {"type": "round", "number": state["round"] + 1}
            result = rules.apply(state, "", action, now)
            state = result.state
            steps.append(planning.Step(None, "", action, result, now))
    except ValueError as exc:  # the engine's own, or the rules'
        raise GameError(str(exc)) from exc
    game = planning.NewGame(
        Game.Kind.SETWAR, options, seed, state, rules.status(state), None, now, steps=steps
    )
    head, _created, _options = services.run(services.create_played(game))
    return Game.objects.get(pk=head.pk)
