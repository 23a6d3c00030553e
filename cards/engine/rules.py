"""The rules of Set on cards: is it a set, which card completes a pair, which sets a board holds.

These functions take :class:`~cards.engine.card.Card` objects (any text form is read with
:func:`~cards.engine.card.parse_card` too), check them, and hand the work to the int-code core
in :mod:`cards.engine.fast`. A board holds each card once and all its cards come from one deck:
a repeated card raises :class:`~cards.engine.errors.RepeatedCardError`, mixed deck sizes raise
:class:`~cards.engine.errors.CardError`.

>>> from cards.engine.card import parse_card
>>> a, b, c = (parse_card(text) for text in ("2220", "1112", "0001"))
>>> is_set(a, b, c)
True
>>> third_card(a, b).digits
'0001'
>>> attribute_report(a, b, c)
{'number': 'different', 'color': 'different', 'shading': 'different', 'shape': 'different'}
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from cards.engine.card import ATTRIBUTE_NAMES, VALUE_NAMES_BY_BASE, Card, all_cards, parse_cards
from cards.engine.errors import SetError
from cards.engine.fast import all_sets_codes, count_sets_codes, find_set_codes, tables
from cards.engine.fast4 import all_4sets_codes, count_4sets_codes, find_4set_codes

__all__ = [
    "all_4sets",
    "all_sets",
    "attribute_report",
    "count_4sets",
    "count_sets",
    "find_4set",
    "find_set",
    "fourth_card",
    "is_4set",
    "is_set",
    "third_card",
    "why_not_4set",
    "why_not_set",
    "why_not_ultra",
]


def _exactly(count: int, cards: tuple[Any, ...], what: str) -> list[Card]:
    if len(cards) != count:
        raise SetError(f"{what} takes {count} cards, not {len(cards)}")
    return parse_cards(cards)


def is_set(*cards: Card) -> bool:
    """Tell whether three distinct cards form a set: ``is_set(a, b, c)``.

    In every attribute the three values must be all the same or all different.
    """
    a, b, c = _exactly(3, cards, "a set")
    t = tables(a.attributes)
    return t.third[a.code * t.size + b.code] == c.code


def third_card(*cards: Card) -> Card:
    """Return the one card that completes a set with two distinct cards: ``third_card(a, b)``."""
    a, b = _exactly(2, cards, "third_card")
    t = tables(a.attributes)
    return Card.from_code(t.third[a.code * t.size + b.code], a.attributes)


def _board(cards: Iterable[Any]) -> tuple[list[Card], list[int], int]:
    board = parse_cards(cards)
    attributes = board[0].attributes if board else 4
    return board, [card.code for card in board], attributes


def find_set(cards: Iterable[Card]) -> tuple[Card, Card, Card] | None:
    """Return one set on the board, its cards in board order, or None when there is none."""
    board, codes, attributes = _board(cards)
    found = find_set_codes(codes, attributes)
    if found is None:
        return None
    position = {code: i for i, code in enumerate(codes)}
    i, j, k = sorted(position[code] for code in found)
    return board[i], board[j], board[k]


def all_sets(cards: Iterable[Card]) -> list[tuple[Card, Card, Card]]:
    """Return every set on the board, each in board order, sorted by board positions."""
    board, codes, attributes = _board(cards)
    by_code = {card.code: card for card in board}
    return [(by_code[a], by_code[b], by_code[c]) for a, b, c in all_sets_codes(codes, attributes)]


def count_sets(cards: Iterable[Card]) -> int:
    """Return how many sets the board holds (1080 in the whole 81-card deck)."""
    _, codes, attributes = _board(cards)
    return count_sets_codes(codes, attributes)


def attribute_report(*cards: Card) -> dict[str, str]:
    """Say, per attribute, if three cards are all ``'same'``, all ``'different'``, or ``'neither'``.

    A 3-attribute card's shape is always SQUIGGLE, so its report says ``'same'`` for shape;
    5-attribute cards add ``'border'``. The three are a set exactly when no attribute is
    ``'neither'``.
    """
    a, b, c = _exactly(3, cards, "attribute_report")
    count = 5 if a.attributes == 5 else 4
    report = {}
    for name in ATTRIBUTE_NAMES[:count]:
        kinds = len({getattr(a, name), getattr(b, name), getattr(c, name)})
        report[name] = "same" if kinds == 1 else "different" if kinds == 3 else "neither"
    return report


def why_not_set(*cards: Card) -> list[str]:
    """Say why three cards are not a set, one short line per attribute that breaks the rule.

    Each line names the attribute, the three values in the cards' order, and what is wrong:
    in a set each attribute is all the same or all different, so a wrong one always has two
    alike and one different. A set gets an empty list.

    >>> from cards.engine.card import parse_card
    >>> a, b, c = (parse_card(text) for text in ("0000", "1001", "2112"))
    >>> for line in why_not_set(a, b, c):  # number and shape are all different: fine
    ...     print(line)
    color: red, red, green — two alike, one different
    shading: solid, solid, striped — two alike, one different
    >>> why_not_set(*(parse_card(text) for text in ("2220", "1112", "0001")))
    []
    """
    return why_not_set_of(*_exactly(3, cards, "why_not_set"))


def why_not_set_of(a: Card, b: Card, c: Card) -> list[str]:
    """`why_not_set` for three distinct cards of one deck, unchecked (a table's own cards)."""
    words = _value_words(a.attributes, a.base)
    why = []
    for name, x, y, z in zip(
        ATTRIBUTE_NAMES, words[a.code], words[b.code], words[c.code], strict=False
    ):
        if (x == y) != (y == z) or (x == z) != (x == y):  # two alike, one different
            why.append(f"{name}: {x}, {y}, {z} — two alike, one different")
    return why


@cache
def _value_words(attributes: int, base: int = 3) -> tuple[tuple[str, ...], ...]:
    """Each card's value names, by code, in card order (a wrong claim's why reads them)."""
    names = VALUE_NAMES_BY_BASE[base]
    return tuple(
        tuple(names[name][value] for name, value in zip(ATTRIBUTE_NAMES, card.values, strict=False))
        for card in all_cards(attributes, base)
    )


def why_not_ultra(*cards: Card) -> list[str]:
    """Say why four cards are not an ultra (UltraSet): for each way to split them into two
    pairs, the two cards that would complete the pairs differ. An ultra gets an empty list.

    >>> from cards.engine.card import parse_card
    >>> four = [parse_card(t) for t in ("1000", "2000", "0010", "0020")]
    >>> why_not_ultra(*four)
    []
    >>> for line in why_not_ultra(*four[:3], parse_card("0222")):
    ...     print(line)
    1st+2nd need one red solid diamond, 3rd+4th need one green solid squiggle
    1st+3rd need three red open diamonds, 2nd+4th need two green striped squiggles
    1st+4th need three green striped squiggles, 2nd+3rd need two red open diamonds
    """
    return why_not_ultra_of(*_exactly(4, cards, "why_not_ultra"))


def why_not_ultra_of(*four: Card) -> list[str]:
    """`why_not_ultra` for four distinct cards of one deck, unchecked (a table's own cards)."""
    t = tables(four[0].attributes)

    def need(i: int, j: int) -> Card:
        return Card.from_code(t.third[four[i].code * t.size + four[j].code], four[0].attributes)

    why = []
    for (i, j), (k, m) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        first, second = need(i, j), need(k, m)
        if first == second:
            return []
        why.append(
            f"{_ORDINALS[i]}+{_ORDINALS[j]} need {first.phrase}, "
            f"{_ORDINALS[k]}+{_ORDINALS[m]} need {second.phrase}"
        )
    return why


_ORDINALS = ("1st", "2nd", "3rd", "4th")


# ---------------------------------------------------------------------------------------------
# The 4Set decks: four values an attribute, a 4Set of four cards (see `cards.engine.fast4`)


def _four_valued(count: int, cards: tuple[Any, ...], what: str) -> list[Card]:
    if len(cards) != count:
        raise SetError(f"{what} takes {count} cards, not {len(cards)}")
    return parse_cards(cards, base=4)


def is_4set(*cards: Card) -> bool:
    """Tell whether four distinct cards of a 4Set deck form a 4Set: ``is_4set(a, b, c, d)``.

    In every attribute the four values must be all alike, all different, or two pairs.

    >>> from cards.engine.card import parse_card
    >>> is_4set(*(parse_card(t, base=4) for t in ("0123", "1032", "2301", "3210")))
    True
    """
    a, b, c, d = _four_valued(4, cards, "a 4Set")
    return a.code ^ b.code ^ c.code ^ d.code == 0


def fourth_card(*cards: Card) -> Card:
    """Return the one card completing three distinct 4Set cards to a 4Set.

    >>> from cards.engine.card import parse_card
    >>> fourth_card(*(parse_card(t, base=4) for t in ("0011", "0022", "1111"))).digits
    '1122'
    """
    a, b, c = _four_valued(3, cards, "fourth_card")
    return Card.from_code(a.code ^ b.code ^ c.code, a.attributes, base=4)


def _board4(cards: Iterable[Any]) -> tuple[list[Card], list[int]]:
    board = parse_cards(cards, base=4)
    return board, [card.code for card in board]


def find_4set(cards: Iterable[Card]) -> tuple[Card, Card, Card, Card] | None:
    """Return one 4Set on the board, its cards in board order, or None when there is none."""
    board, codes = _board4(cards)
    found = find_4set_codes(codes)
    if found is None:
        return None
    position = {code: i for i, code in enumerate(codes)}
    i, j, k, m = sorted(position[code] for code in found)
    return board[i], board[j], board[k], board[m]


def all_4sets(cards: Iterable[Card]) -> list[tuple[Card, Card, Card, Card]]:
    """Return every 4Set on the board, each in board order, sorted by board positions."""
    board, codes = _board4(cards)
    by_code = {card.code: card for card in board}
    found = all_4sets_codes(codes)
    return [tuple(map(by_code.__getitem__, four)) for four in found]  # type: ignore[misc]


def count_4sets(cards: Iterable[Card]) -> int:
    """Return how many 4Sets the board holds (690,880 in the whole 256-card deck)."""
    return count_4sets_codes(_board4(cards)[1])


def why_not_4set(*cards: Card) -> list[str]:
    """Say why four cards are not a 4Set, one short line per attribute that breaks the rule.

    Each line names the attribute, the four values in the cards' order, and what is wrong: an
    attribute is all alike, all different or two pairs in a 4Set, so a wrong one has three
    alike and one different, or two alike and two different. A 4Set gets an empty list.

    >>> from cards.engine.card import parse_card
    >>> for line in why_not_4set(*(parse_card(t, base=4) for t in ("0011", "0022", "1111", "1123"))):
    ...     print(line)
    shape: squiggle, oval, squiggle, hourglass — two alike, two different
    >>> for line in why_not_4set(*(parse_card(t, base=4) for t in ("0000", "1000", "1100", "1200"))):
    ...     print(line)
    number: one, two, two, two — three alike, one different
    color: red, red, green, purple — two alike, two different
    """  # noqa: E501
    return why_not_4set_of(*_four_valued(4, cards, "why_not_4set"))


def why_not_4set_of(a: Card, b: Card, c: Card, d: Card) -> list[str]:
    """`why_not_4set` for four distinct cards of one 4Set deck, unchecked (a table's own cards)."""
    words = _value_words(a.attributes, 4)
    why = []
    for name, *four in zip(
        ATTRIBUTE_NAMES, words[a.code], words[b.code], words[c.code], words[d.code], strict=False
    ):
        kinds = sorted(four.count(word) for word in set(four))
        if kinds == [1, 3]:
            why.append(f"{name}: {', '.join(four)} — three alike, one different")
        elif kinds == [1, 1, 2]:
            why.append(f"{name}: {', '.join(four)} — two alike, two different")
    return why
