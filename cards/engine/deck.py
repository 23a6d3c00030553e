"""Shuffled Set decks: the one place the engine turns a seed into a deck order."""

from __future__ import annotations

import random

from cards.engine.card import Card, all_cards
from cards.engine.errors import SetError
from cards.engine.fast import shuffled_codes

__all__ = ["make_rng", "new_deck"]


def make_rng(rng: random.Random | int | None = None) -> random.Random:
    """Return a ``random.Random``: the one given, one seeded with an int, or a fresh one for None.

    Engines take their randomness as an argument so that a stored seed replays a game exactly.
    """
    if rng is None:
        return random.Random()
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, int) and not isinstance(rng, bool):
        return random.Random(rng)
    raise SetError(f"{rng!r} is not a random source: give a random.Random, an int seed or None")


def new_deck(attributes: int = 4, rng: random.Random | int | None = None) -> list[Card]:
    """Return every card of the deck (27, 81 or 243 cards) in a random order; front = top.

    The same seed gives the same order:

    >>> new_deck(rng=7) == new_deck(rng=7)
    True
    >>> len(new_deck(3)), len(new_deck(5))
    (27, 243)
    """
    cards = all_cards(attributes)
    return [cards[code] for code in shuffled_codes(len(cards), make_rng(rng))]
