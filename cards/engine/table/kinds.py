"""Kinds of set: how many attributes differ among three cards, and a deal that favours some kinds.

A set's three cards are, in each attribute, all alike or all different. Its *kind* is how many
attributes differ: 1 to the deck's attribute count. Sets differing in one attribute are the
fewest in a deck (108 of the 1,080 of the 81-card deck) and the ones players find hardest to see;
those differing in every attribute are 216 of them. The same count, "attributes that are not all
alike", is defined for any three cards, so a wrong claim has a kind too.

A kind is named ``"differ-N"`` in options and figures. The ``favour`` option of a classic table
re-orders its shuffled deck so that its boards hold more sets of the chosen kinds
(:func:`favoured_deck`): a deterministic function of the shuffled deck, so a seed still gives
one deal and replay still gives the stored state.

>>> differing([int("0000", 3), int("0001", 3), int("0002", 3)], 4)
1
>>> kind_key(2), kind_of("differ-3", 4)
('differ-2', 3)
>>> sorted(sets_by_kind(range(81), 4).items())
[(1, 108), (2, 324), (3, 432), (4, 216)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache

from cards.engine.fast import all_sets_codes, digits_of, third_code
from cards.engine.table.base import TableError

__all__ = [
    "KIND_PREFIX",
    "differing",
    "favour_option",
    "favoured_deck",
    "kind_key",
    "kind_of",
    "sets_by_kind",
]

KIND_PREFIX = "differ-"


@cache
def _digits(attributes: int) -> tuple[tuple[int, ...], ...]:
    return tuple(digits_of(code, attributes) for code in range(3**attributes))


def differing(cards: Sequence[int], attributes: int) -> int:
    """Return how many attributes are not all alike among ``cards`` (codes): a set's kind."""
    table = _digits(attributes)
    rows = [table[card] for card in cards]
    return sum(len(set(values)) > 1 for values in zip(*rows, strict=True))


def kind_key(count: int) -> str:
    """Return the name of the kind of set whose cards differ in ``count`` attributes."""
    return f"{KIND_PREFIX}{count}"


def kind_of(key: object, attributes: int) -> int | None:
    """Return the count of differing attributes a kind's name says, or None when ``key`` names
    no kind of a deck of ``attributes`` attributes."""
    if not isinstance(key, str) or not key.startswith(KIND_PREFIX):
        return None
    digits = key[len(KIND_PREFIX) :]
    if not (len(digits) == 1 and digits.isdigit()):
        return None
    count = int(digits)
    return count if 1 <= count <= attributes else None


def sets_by_kind(board: Sequence[int], attributes: int) -> Counter[int]:
    """Count the sets on a board by kind."""
    return Counter(differing(cards, attributes) for cards in all_sets_codes(board, attributes))


def favour_option(value: object, attributes: int) -> list[str]:
    """Return the ``favour`` option checked, as its kinds' names in order (each once); raise
    `TableError` saying what is wrong."""
    names = ", ".join(f'"{kind_key(count)}"' for count in range(1, attributes + 1))
    if not isinstance(value, list | tuple) or not value:
        raise TableError(
            f"The favour option is a list of kinds of set to deal more often, from {names} "
            f"(how many attributes differ among the three cards); got {_shown(value)}.",
            "bad_option",
        )
    counts = set()
    for key in value:
        count = kind_of(key, attributes)
        if count is None:
            raise TableError(
                f"The favour option names kinds of set of a {attributes}-attribute deck: "
                f"{names}; got {_shown(key)}.",
                "bad_option",
            )
        counts.add(count)
    if len(counts) == attributes:
        raise TableError(
            "The favour option must leave out at least one kind of set: favouring them all "
            "favours none.",
            "bad_option",
        )
    return [kind_key(count) for count in sorted(counts)]


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def favoured_deck(deck: Iterable[int], attributes: int, kinds: Iterable[str]) -> tuple[int, ...]:
    """Return the deck re-ordered so that sets of ``kinds`` come three cards together.

    Going down the shuffled deck, each card not placed yet is followed by the first two later
    unplaced cards that make a set of a favoured kind with it; a card with no such pair goes to
    the end, in deck order. Boards are dealt, and refilled, three cards at a time from the front,
    so each deal brings a whole favoured set. The same deck gives the same order.

    >>> deck = favoured_deck(range(81), 4, ["differ-1"])
    >>> sorted(deck) == list(range(81)), differing(deck[:3], 4), differing(deck[3:6], 4)
    (True, 1, 1)
    """
    wanted = {kind_of(key, attributes) for key in kinds} - {None}
    apart = _apart(attributes)
    size = 3**attributes
    order = list(deck)
    members = frozenset(order)
    placed: set[int] = set()
    front: list[int] = []
    rest: list[int] = []
    for index, first in enumerate(order):
        if first in placed:
            continue
        placed.add(first)
        row = first * size
        for second in order[index + 1 :]:
            # Of a set, two cards differ exactly where all three do: the pair says the kind.
            if apart[row + second] not in wanted or second in placed:
                continue
            third = third_code(first, second, attributes)
            if third in members and third not in placed:
                placed.update((second, third))
                front += (first, second, third)
                break
        else:
            rest.append(first)
    return tuple(front + rest)


@cache
def _apart(attributes: int) -> bytes:
    """In how many attributes each pair of cards differs, at ``a * 3**attributes + b``."""
    table = _digits(attributes)
    return bytes(sum(x != y for x, y in zip(a, b, strict=True)) for a in table for b in table)
