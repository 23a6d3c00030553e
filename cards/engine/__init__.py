"""The Set card engine, pure Python (no Django): cards, decks and the rules of Set.

* :mod:`cards.engine.card`: :class:`Card`, its text forms and :func:`parse_card`;
* :mod:`cards.engine.deck`: :func:`new_deck`, shuffled from a seed;
* :mod:`cards.engine.rules`: :func:`is_set`, :func:`third_card`, :func:`find_set`,
  :func:`all_sets`, :func:`count_sets`, :func:`attribute_report`, and why three (or four)
  cards are not a set (an ultra): :func:`why_not_set`, :func:`why_not_ultra`;
* :mod:`cards.engine.fast`: the int-code core behind them, for hot loops;
* :mod:`cards.engine.errors`: :class:`SetError` and its family.

>>> from cards.engine import new_deck, count_sets
>>> count_sets(new_deck(rng=1))
1080
"""

from cards.engine.card import (
    ATTRIBUTE_COUNTS,
    ATTRIBUTE_NAMES,
    BORDERS,
    COLORS,
    DIAMOND,
    GREEN,
    NUMBERS,
    ONE,
    OPEN,
    OVAL,
    PURPLE,
    RED,
    SHADINGS,
    SHAPES,
    SOLID,
    SQUIGGLE,
    STRIPED,
    THREE,
    TWO,
    VALUE_NAMES,
    Card,
    all_cards,
    parse_card,
    parse_cards,
)
from cards.engine.deck import make_rng, new_deck
from cards.engine.errors import CardError, RepeatedCardError, SetError
from cards.engine.rules import (
    all_sets,
    attribute_report,
    count_sets,
    find_set,
    is_set,
    third_card,
    why_not_set,
    why_not_ultra,
)

__all__ = [
    "ATTRIBUTE_COUNTS",
    "ATTRIBUTE_NAMES",
    "BORDERS",
    "COLORS",
    "DIAMOND",
    "GREEN",
    "NUMBERS",
    "ONE",
    "OPEN",
    "OVAL",
    "PURPLE",
    "RED",
    "SHADINGS",
    "SHAPES",
    "SOLID",
    "SQUIGGLE",
    "STRIPED",
    "THREE",
    "TWO",
    "VALUE_NAMES",
    "Card",
    "CardError",
    "RepeatedCardError",
    "SetError",
    "all_cards",
    "all_sets",
    "attribute_report",
    "count_sets",
    "find_set",
    "is_set",
    "make_rng",
    "new_deck",
    "parse_card",
    "parse_cards",
    "third_card",
    "why_not_set",
    "why_not_ultra",
]
