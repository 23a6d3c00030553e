"""Seed 001's exercise: Set cards as tuples of four words, in *its* order.

A card is ``(number, shading, color, shape)``, for example ``('three', 'striped', 'green',
'diamond')``; note that shading comes before color here, unlike the Set table text and the
Set War digits. The functions keep the exercise's names, arguments and return types, and use
the engine underneath (so a malformed card raises :class:`~cards.engine.errors.CardError`, a
``ValueError``, naming it).

The exercise's examples, with sets compared by value because Python prints a set's items in
an order that changes between runs:

>>> features(('one', 'open', 'green', 'diamond'), ('two', 'open', 'red', 'diamond'),
...          ('three', 'open', 'purple', 'diamond')) == (
...     {'one', 'two', 'three'}, {'open'}, {'red', 'green', 'purple'}, {'diamond'})
True
>>> features(('one', 'striped', 'green', 'oval'), ('two', 'striped', 'green', 'squiggle'),
...          ('three', 'striped', 'purple', 'diamond')) == (
...     {'one', 'two', 'three'}, {'striped'}, {'green', 'purple'}, {'oval', 'diamond', 'squiggle'})
True
>>> features(('two', 'striped', 'red', 'diamond'), ('one', 'solid', 'red', 'diamond'),
...          ('two', 'solid', 'purple', 'oval')) == (
...     {'one', 'two'}, {'striped', 'solid'}, {'red', 'purple'}, {'oval', 'diamond'})
True
>>> isset(('one', 'open', 'green', 'diamond'), ('two', 'open', 'red', 'diamond'),
...     ('three', 'open', 'purple', 'diamond'))
True
>>> isset(('one', 'striped', 'green', 'oval'), ('two', 'striped', 'green', 'squiggle'),
...     ('three', 'striped', 'purple', 'diamond'))
False
>>> isset(('two', 'striped', 'red', 'diamond'), ('one', 'solid', 'red', 'diamond'),
...     ('two', 'solid', 'purple', 'oval'))
False
>>> sets([('three', 'solid', 'purple', 'oval'), ('one', 'open', 'green', 'diamond'),
...     ('two', 'solid', 'purple', 'diamond'), ('one', 'solid', 'red', 'squiggle'),
...     ('two', 'open', 'red', 'squiggle'), ('one', 'solid', 'purple', 'diamond'),
...     ('three', 'solid', 'green', 'diamond'), ('one', 'striped', 'purple', 'squiggle'),
...     ('three', 'solid', 'green', 'squiggle'), ('three', 'solid', 'green', 'oval'),
...     ('two', 'open', 'red', 'diamond'), ('three', 'open', 'purple', 'diamond')])
5
>>> sets((('three', 'open', 'red', 'diamond'), ('three', 'open', 'green', 'squiggle'),
...     ('one', 'striped', 'green', 'oval'), ('three', 'open', 'green', 'diamond'),
...     ('one', 'open', 'purple', 'oval'), ('three', 'striped', 'purple', 'oval'),
...     ('two', 'striped', 'red', 'squiggle'), ('three', 'solid', 'red', 'diamond'),
...     ('two', 'solid', 'purple', 'oval'), ('one', 'striped', 'green', 'squiggle'),
...     ('three', 'striped', 'green', 'diamond'), ('three', 'open', 'red', 'oval')))
4
>>> sets({('one', 'solid', 'green', 'oval'), ('two', 'solid', 'red', 'oval'),
...     ('three', 'open', 'purple', 'diamond'), ('two', 'solid', 'red', 'diamond'),
...     ('three', 'striped', 'purple', 'oval'), ('two', 'solid', 'red', 'squiggle'),
...     ('two', 'striped', 'purple', 'oval'), ('one', 'open', 'purple', 'diamond'),
...     ('two', 'open', 'green', 'diamond'), ('three', 'solid', 'purple', 'squiggle'),
...     ('one', 'solid', 'green', 'diamond'), ('two', 'solid', 'green', 'diamond')})
6
>>> sets([('three', 'open', 'purple', 'diamond'), ('two', 'open', 'green', 'diamond'),
...     ('three', 'striped', 'red', 'squiggle'), ('three', 'solid', 'purple', 'diamond'),
...     ('three', 'solid', 'red', 'squiggle'), ('one', 'striped', 'green', 'oval'),
...     ('two', 'solid', 'red', 'diamond'), ('three', 'open', 'purple', 'oval'),
...     ('three', 'solid', 'purple', 'oval'), ('one', 'solid', 'green', 'oval'),
...     ('one', 'open', 'purple', 'oval'), ('two', 'striped', 'red', 'diamond')])
0

The random examples cannot print fixed cards, so these check what the exercise promises:

>>> random_card() in DECK
True
>>> hand = random_cards(4)
>>> type(hand), len(hand), hand <= set(DECK)
(<class 'set'>, 4, True)
"""

from __future__ import annotations

import random
from collections.abc import Collection

from cards.engine.card import all_cards, parse_card, parse_cards
from cards.engine.fast import count_sets_codes
from cards.engine.rules import is_set

__all__ = ["DECK", "features", "isset", "random_card", "random_cards", "sets"]

Card = tuple[str, str, str, str]

#: The 81 cards as seed 001 writes them, in code order.
DECK: tuple[Card, ...] = tuple(card.words for card in all_cards(4))  # type: ignore[misc]


def random_card() -> Card:
    """Return a card drawn at random from the deck (from the module ``random``'s generator)."""
    return random.choice(DECK)


def random_cards(n: int) -> set[Card]:
    """Return a set of ``n`` distinct cards drawn at random from the deck (0 ≤ n ≤ 81)."""
    if type(n) is not int or not 0 <= n <= len(DECK):
        raise ValueError(f"can draw 0 to {len(DECK)} distinct cards, not {n!r}")
    return set(random.sample(DECK, n))


def features(
    card1: Card, card2: Card, card3: Card
) -> tuple[set[str], set[str], set[str], set[str]]:
    """Return the different numbers, shadings, colors and shapes (four sets) on three cards."""
    cards = [parse_card(card, 4).words for card in (card1, card2, card3)]
    return tuple(set(words) for words in zip(*cards, strict=True))  # type: ignore[return-value]


def isset(card1: Card, card2: Card, card3: Card) -> bool:
    """Tell whether three cards form a Set: each feature all the same or all different."""
    return is_set(*parse_cards((card1, card2, card3), 4))


def sets(cards: Collection[Card]) -> int:
    """Return how many combinations of three of the given cards (a list, tuple or set) are a Set."""
    return count_sets_codes([card.code for card in parse_cards(cards, 4)], 4)
