"""Cards on a table as int codes, and the texts a stored state and a view show for them.

A table keeps its cards as the int codes of `cards.engine.fast` (``int(digits, 3)``), not as
`Card` objects or texts: the questions a table asks on every move (is there a set on the board,
how many, are these three a set) are answered by the int-code core without any conversion, a
code is a small int that Python shares rather than copies, and a tuple of them is cheap to slice
and compare. Texts appear only at the edges: a stored state and a view name each card by its
protocol text, through the tables below, built once per deck size.

The 4Set decks (four values an attribute, ``base=4``) have codes of their own, 2 bits an
attribute (`cards.engine.fast4`); every function here takes the deck's ``base`` after its
``attributes`` (3 when left out):

>>> text_of(255, 4, 4), code_of("3333", 4, 4)
('FOUR/ORANGE/CHECKERED/HOURGLASS', 255)

>>> code_of("TWO/PURPLE/STRIPED/OVAL", 4), text_of(50, 4)
(50, 'TWO/PURPLE/STRIPED/OVAL')
>>> board = codes_of(["ONE/RED/SOLID/DIAMOND", "TWO/RED/SOLID/DIAMOND", "ONE/GREEN/OPEN/OVAL",
...                   "THREE/RED/SOLID/DIAMOND"], 4)
>>> set_at(board, 4), count_sets(board, 4)
((0, 1, 3), 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any

from cards.engine.card import all_cards, parse_card
from cards.engine.fast import count_sets_codes, find_set_codes, tables

__all__ = [
    "code_of",
    "codes_of",
    "count_sets",
    "described",
    "is_set",
    "set_at",
    "stored_codes",
    "text_of",
    "texts",
    "texts_of",
]


@cache
def texts(attributes: int, base: int = 3) -> tuple[str, ...]:
    """Return every card's protocol text, indexed by code (built once per deck)."""
    return tuple(card.protocol for card in all_cards(attributes, base))


@cache
def _codes(attributes: int, base: int = 3) -> dict[str, int]:
    return {text: code for code, text in enumerate(texts(attributes, base))}


@cache
def described(attributes: int, base: int = 3) -> tuple[dict[str, Any], ...]:
    """Return each card's description in a view (protocol text, digits, code), by code.

    Every view of every seat describes the same few cards, so each is described once and the
    dicts are shared: views merge one into a dict of their own (``{**described(a)[code], ...}``)
    and never change it.
    """
    return tuple(
        {"card": card.protocol, "digits": card.digits, "code": card.code}
        for card in all_cards(attributes, base)
    )


def text_of(code: int, attributes: int, base: int = 3) -> str:
    """Return the protocol text of the card ``code``."""
    return texts(attributes, base)[code]


def texts_of(codes: Iterable[int], attributes: int, base: int = 3) -> list[str]:
    """Return the protocol texts of ``codes``, in order."""
    return list(map(texts(attributes, base).__getitem__, codes))


@cache
def stored_codes(attributes: int, base: int = 3) -> Callable[[Iterable[str]], tuple[int, ...]]:
    """Return a function reading stored protocol texts (exactly as a state stores them) as
    codes, and raising `KeyError` for any other text: the quick way to read a stored state."""
    code = _codes(attributes, base).__getitem__
    return lambda given: tuple(map(code, given))


@cache
def _named(attributes: int, base: int = 3) -> dict[str, int]:
    """Every card's code by the two texts clients send most: its protocol text and its digits."""
    return {
        **_codes(attributes, base),
        **{card.digits: card.code for card in all_cards(attributes, base)},
    }


def code_of(text: str, attributes: int, base: int = 3) -> int:
    """Return the code of the card a text names: a protocol text or digits (what clients send)
    at once, any other form `parse_card` reads (a phrase, another case) through it; raise
    `CardError` if none."""
    code = _named(attributes, base).get(text)
    return parse_card(text, attributes, base).code if code is None else code


def codes_of(given: Iterable[str], attributes: int, base: int = 3) -> tuple[int, ...]:
    """Return the codes of the cards ``given`` names, in order (see `code_of`)."""
    known = _codes(attributes, base)
    try:
        return tuple(map(known.__getitem__, given))
    except KeyError:
        return tuple(code_of(text, attributes, base) for text in given)


def set_at(cards: Sequence[int], attributes: int) -> tuple[int, int, int] | None:
    """Return the indexes into ``cards`` of one set among them (in increasing order), or None.

    The set is the one `cards.engine.rules.find_set` finds, so hints and computers keep
    choosing the same set for the same board.
    """
    found = find_set_codes(cards, attributes)
    if found is None:
        return None
    return tuple(sorted(map(cards.index, found)))  # type: ignore[return-value]


def count_sets(cards: Sequence[int], attributes: int) -> int:
    """Return how many sets lie among ``cards`` (the "How many sets?" help)."""
    return count_sets_codes(cards, attributes)


def is_set(cards: Sequence[int], attributes: int) -> bool:
    """Tell whether three distinct cards form a set."""
    a, b, c = cards
    t = tables(attributes)
    return t.third[a * t.size + b] == c
