"""The int-code core of the 4Set decks: four values an attribute, and a 4Set of four cards.

Like `cards.engine.fast`, everything here works on **card codes** and does no validation:
callers pass distinct, in-range codes of one deck.

Card codes
----------
A 4Set card's code reads its values in base 4, most significant first (number, color, shading[,
shape]), so each attribute owns two bits of the code: ``"0123"`` is ``0b00_01_10_11 == 27``.

Four cards are a **4Set** when, at every attribute, the XOR of their four values is 0: the four
values are all alike (AAAA), all different (ABCD) or two pairs (AABB in any order); three alike
(ABBB) or one pair and two others (AABC) fail. Since each attribute is its own two bits, that is
one test on the codes: ``a ^ b ^ c ^ d == 0``. So three cards have exactly one fourth card,
``a ^ b ^ c``, and {a, b, c, d} is a 4Set exactly when the pairs ``a, b`` and ``c, d`` have the
same XOR. Two pairs of distinct cards with one XOR never share a card (``a ^ b == a ^ c`` means
``b == c``), and a 4Set's cards pair up three ways, each with one XOR: a board's 4Sets are found
and counted from its pairs alone (:func:`find_4set_codes`, :func:`count_4sets_codes`).

>>> is_4set_codes(0b0000, 0b0101, 0b1010, 0b1111)  # "00 11 22 33": all different
True
>>> fourth_code(0b0000, 0b0101, 0b1010)
15
>>> count_4sets_codes(range(64))  # the 64-card deck: each 3 cards have one fourth, / 4
10416
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations

__all__ = [
    "ATTRIBUTE_COUNTS",
    "all_4sets_codes",
    "chain_4sets_codes",
    "count_4sets_codes",
    "deck_size",
    "digits_of",
    "find_4set_codes",
    "fourth_code",
    "is_4set_codes",
]

#: The 4Set decks: 3 attributes (64 cards) and 4 attributes (256 cards).
ATTRIBUTE_COUNTS = (3, 4)


def deck_size(attributes: int) -> int:
    """Return how many cards a 4Set deck of ``attributes`` attributes holds (``4**attributes``)."""
    return 4**attributes


def digits_of(code: int, attributes: int) -> tuple[int, ...]:
    """Return the card's values (0-3), most significant first.

    >>> digits_of(27, 4)
    (0, 1, 2, 3)
    """
    return tuple((code >> (2 * k)) & 3 for k in reversed(range(attributes)))


def is_4set_codes(a: int, b: int, c: int, d: int) -> bool:
    """Tell whether four distinct codes form a 4Set."""
    return a ^ b ^ c ^ d == 0


def fourth_code(a: int, b: int, c: int) -> int:
    """Return the code of the one card completing three distinct cards to a 4Set.

    It is never one of the three: ``a ^ b ^ c == a`` would mean ``b == c``.
    """
    return a ^ b ^ c


def find_4set_codes(board: Sequence[int]) -> tuple[int, int, int, int] | None:
    """Return one 4Set on the board as four codes, or None when it holds none.

    The pairs are looked at in board order (first card, then second); the 4Set returned is the
    first whose second pair is seen, the first pair's cards first.

    >>> find_4set_codes([0, 1, 4, 5, 9])  # 0 ^ 5 == 1 ^ 4: the pair 0, 5 comes after 1, 4
    (1, 4, 0, 5)
    >>> find_4set_codes([0, 1, 2]) is None
    True
    """
    seen: dict[int, int] = {}
    n = len(board)
    for j in range(1, n):
        b = board[j]
        for i in range(j):
            a = board[i]
            key = a ^ b
            other = seen.get(key)
            if other is not None:
                return board[other >> 8], board[other & 255], a, b
            seen[key] = (i << 8) | j
    return None


def count_4sets_codes(board: Iterable[int]) -> int:
    """Return the number of 4Sets on the board.

    Each 4Set shows up as three pairs of pairs with one XOR; ``k`` pairs sharing an XOR make
    ``k * (k - 1) / 2`` pairs of pairs.
    """
    board = board if isinstance(board, list | tuple) else list(board)
    counts: dict[int, int] = {}
    get = counts.get
    for a, b in combinations(board, 2):
        key = a ^ b
        counts[key] = get(key, 0) + 1
    return sum(k * (k - 1) for k in counts.values()) // 6


def all_4sets_codes(board: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """Return every 4Set on the board as code quadruples in board order, sorted by board
    position.

    >>> all_4sets_codes([0, 1, 4, 5, 9, 8])
    [(0, 1, 4, 5), (0, 1, 9, 8), (4, 5, 9, 8)]
    """
    position = {code: i for i, code in enumerate(board)}
    found = []
    n = len(board)
    for i in range(n):
        a = board[i]
        for j in range(i + 1, n):
            ab = a ^ board[j]
            for k in range(j + 1, n):
                m = position.get(ab ^ board[k], -1)
                if m > k:
                    found.append((a, board[j], board[k], board[m]))
    return found


def chain_4sets_codes(board: Sequence[int], chain: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Yield the 4Sets of exactly two chain cards and two board cards: (board, board, chain,
    chain), board cards in board order, chain pairs in chain order.

    Three chain cards never work with a board card: their fourth card is the chain's own.

    >>> next(chain_4sets_codes([5, 9, 1, 7], [0, 8, 12, 4]))
    (9, 1, 0, 8)
    """
    position = {code: i for i, code in enumerate(board)}
    for x, y in combinations(chain, 2):
        key = x ^ y
        for i, a in enumerate(board):
            if position.get(a ^ key, -1) > i:
                yield (a, a ^ key, x, y)
