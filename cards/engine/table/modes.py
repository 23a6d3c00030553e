"""The ways to play a classic Set table besides the card game itself: UltraSet, Set-Chain and
the puzzle.

A mode changes what a claim is and what happens to the cards it names; everything else (seats,
lockouts, hints, presence, the end when no claim is left and the deck is empty) is the classic
table's (`cards.engine.classic`). This module answers, for each mode, the questions the table
asks: how many cards a claim names, whether some claim is possible now (`find_claim`: the
dealer deals while none is, the game ends when none is left), how many are (`count_claims`),
and which board to deal a puzzle.

- **ultra** (UltraSet): a claim is four cards that split into two pairs whose completing third
  card is the same (that card need not be on the board). The four are replaced like a set's
  three.
- **chain** (Set-Chain): the first claim is any set on the board. Its three cards leave the board
  but stay on the table as the chain; every later set takes exactly one card of the chain and
  two from the board, and becomes the chain in its turn (the two chain cards not reused are
  taken).
- **puzzle**: a fixed board of 12 cards holding exactly 6 sets, and no deck; find them all. A set
  found stays on the board and counts once, for whoever found it first.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum
from itertools import combinations

from cards.engine.card import all_cards
from cards.engine.fast import all_sets_codes, count_sets_codes, find_set_codes, tables
from cards.engine.rules import why_not_set_of, why_not_ultra_of

__all__ = [
    "PUZZLE_BOARD",
    "PUZZLE_SETS",
    "Mode",
    "claim_size",
    "claim_why",
    "count_claims",
    "find_claim",
    "is_ultra",
    "puzzle_board",
]


class Mode(StrEnum):
    """Name a way to play a classic table, as its ``mode`` option says."""

    NORMAL = "normal"
    ULTRA = "ultra"
    CHAIN = "chain"
    PUZZLE = "puzzle"


#: A puzzle's board size and how many sets it holds.
PUZZLE_BOARD = 12
PUZZLE_SETS = 6


def claim_size(mode: Mode) -> int:
    """Return how many cards a claim names in ``mode``: 4 for UltraSet, 3 otherwise."""
    return 4 if mode == Mode.ULTRA else 3


def is_ultra(cards: Sequence[int], attributes: int) -> bool:
    """Tell whether four distinct cards split into two pairs with the same completing card.

    >>> from cards.engine.table.codes import codes_of
    >>> four = codes_of(["ONE/RED/SOLID/OVAL", "THREE/RED/SOLID/OVAL",
    ...                  "TWO/GREEN/SOLID/OVAL", "TWO/PURPLE/SOLID/OVAL"], 4)
    >>> is_ultra(four, 4)  # both pairs complete with TWO/RED/SOLID/OVAL
    True
    >>> is_ultra(four[:3] + codes_of(["ONE/RED/OPEN/OVAL"], 4), 4)
    False
    """
    a, b, c, d = cards
    t = tables(attributes)
    third, size = t.third, t.size
    return (
        third[a * size + b] == third[c * size + d]
        or third[a * size + c] == third[b * size + d]
        or third[a * size + d] == third[b * size + c]
    )


def _ultras(board: Sequence[int], attributes: int):
    """Yield the board's ultras (four cards each), the first found first."""
    t = tables(attributes)
    third, size = t.third, t.size
    seen: dict[int, list[tuple[int, int]]] = {}
    for a, b in combinations(board, 2):
        pairs = seen.setdefault(third[a * size + b], [])
        for c, d in pairs:
            if a not in (c, d) and b not in (c, d):
                yield (c, d, a, b)
        pairs.append((a, b))


def _chain_sets(board: Sequence[int], chain: Sequence[int], attributes: int):
    """Yield the sets of one chain card and two board cards: (board, board, chain)."""
    t = tables(attributes)
    third, size = t.third, t.size
    on_board = set(board)
    for link in chain:
        for i, a in enumerate(board):
            b = third[link * size + a]
            if b in on_board and board.index(b) > i:
                yield (a, b, link)


#: Why a Set-Chain claim is wrong when it does not take exactly one card of the chain.
NOT_CHAINED = "not chained to the last set: a set takes exactly one of its cards"
#: Why a puzzle's claim is wrong when its set was found already.
FOUND_ALREADY = "that set was found already"


def claim_why(
    cards: Sequence[int],
    attributes: int,
    mode: Mode = Mode.NORMAL,
    *,
    chain: Sequence[int] = (),
    found: Sequence[tuple[int, ...]] = (),
) -> list[str]:
    """Say why a claim of ``cards`` (codes) is wrong in ``mode``, in short lines for a person;
    an empty list for a good claim.

    A set (or an ultra) is judged attribute by attribute (`why_not_set`, `why_not_ultra`); a
    Set-Chain claim must also take one card of the chain, and a puzzle's set counts once.

    >>> from cards.engine.table.codes import codes_of
    >>> three = codes_of(["ONE/RED/SOLID/OVAL", "TWO/RED/SOLID/OVAL", "THREE/GREEN/SOLID/OVAL"], 4)
    >>> claim_why(three, 4)
    ['color: red, red, green — two alike, one different']
    >>> claim_why(three, 4, Mode.CHAIN, chain=codes_of(["ONE/RED/OPEN/OVAL"], 4))
    ['not chained to the last set: a set takes exactly one of its cards']
    """
    if not isinstance(mode, Mode):  # a name: its member, compared by identity below
        mode = Mode(mode)
    if mode is Mode.CHAIN and chain and sum(card in chain for card in cards) != 1:
        return [NOT_CHAINED]
    if mode is Mode.PUZZLE and tuple(sorted(cards)) in set(found):
        return [FOUND_ALREADY]
    deck = all_cards(attributes)
    shown = [deck[card] for card in cards]
    if mode is Mode.ULTRA:
        return why_not_ultra_of(*shown)
    return why_not_set_of(*shown)


def find_claim(
    mode: Mode,
    board: Sequence[int],
    attributes: int,
    *,
    chain: Sequence[int] = (),
    found: Sequence[tuple[int, ...]] = (),
) -> tuple[int, ...] | None:
    """Return the cards of one claim possible now in ``mode`` (board cards first), or None.

    ``chain`` is a chain table's last set (empty before the first); ``found`` the sets a puzzle
    has had found (each sorted).
    """
    if mode == Mode.ULTRA:
        return next(_ultras(board, attributes), None)
    if mode == Mode.CHAIN and chain:
        return next(_chain_sets(board, chain, attributes), None)
    if mode == Mode.PUZZLE:
        done = set(found)
        return next(
            (s for s in all_sets_codes(board, attributes) if tuple(sorted(s)) not in done), None
        )
    return find_set_codes(board, attributes)


def count_claims(
    mode: Mode,
    board: Sequence[int],
    attributes: int,
    *,
    chain: Sequence[int] = (),
    found: Sequence[tuple[int, ...]] = (),
) -> int:
    """Return how many claims are possible now in ``mode`` (the "How many?" help)."""
    if mode == Mode.ULTRA:
        return len({frozenset(cards) for cards in _ultras(board, attributes)})
    if mode == Mode.CHAIN and chain:
        return sum(1 for _ in _chain_sets(board, chain, attributes))
    if mode == Mode.PUZZLE:
        return count_sets_codes(board, attributes) - len(found)
    return count_sets_codes(board, attributes)


def puzzle_board(seed: int, attributes: int) -> tuple[int, ...]:
    """Deal a puzzle from ``seed``: 12 cards holding exactly 6 sets.

    Boards are drawn until one holds exactly 6 sets (about one in 40 with 4 attributes, one in
    25 with 3), so the same seed always gives the same board.

    >>> from cards.engine.fast import count_sets_codes
    >>> board = puzzle_board(7, 4)
    >>> len(board), count_sets_codes(board, 4)
    (12, 6)
    """
    rng = random.Random(seed)
    cards = range(3**attributes)
    while True:
        board = tuple(rng.sample(cards, PUZZLE_BOARD))
        if count_sets_codes(board, attributes) == PUZZLE_SETS:
            return board
