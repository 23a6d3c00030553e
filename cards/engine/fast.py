"""The int-code core: Set cards as small ints, and tables that make the hot paths fast.

Everything here works on **card codes** and does no validation: callers (``rules``,
``solitaire``, ``simulate``, the benchmarks) pass distinct, in-range codes of one deck size.

Card codes
----------
A card with ``attributes`` attributes (3, 4 or 5) is the int whose base-3 digits, most
significant first, are its values: number, color, shading[, shape][, border], each 0, 1 or 2.
So the Set War string ``"1201"`` is ``int("1201", 3) == 46`` and a deck is ``range(3**attributes)``.

A set is three cards whose digits sum to 0 mod 3 in every place, so two cards ``a`` and ``b``
have exactly one third card, digit by digit ``(-a - b) % 3``.

The tables
----------
``tables(attributes)`` builds (once, on first use) a :class:`CodeTables`:

* ``third``: a flat list of ``size * size`` ints, ``third[a * size + b]`` is the card completing
  ``a`` and ``b``; the diagonal holds ``size``, a sentinel that is never on a board, so a pair
  lookup never needs an ``a != b`` test.
* ``pattern``, ``shift``, ``bit``, ``card_at``: the *board integer*. Each card owns a *spot* in a
  grid with five places per attribute (``spot = sum(digit * 5**k)``). A board is one Python int,
  the sum of its cards' ``pattern``: the low ``5**attributes`` bits hold a 1 at each card's spot,
  the high part holds the spots of each card's *mirror* (its digits negated) repeated at every
  offset of 3 that still fits in the grid. Shifting the board right by ``shift[x]`` lines the
  mirrors up so that, ANDed with the board itself, a bit is left exactly at each card that
  completes a set with ``x`` and some card of the board (``x`` itself always shows up, since
  ``third(x, x) == x``). Three big-int operations therefore test one card against the whole
  board, all inside C; see :func:`sets_through`. ``bit[x]`` is ``x``'s own low bit and
  ``card_at[n]`` the card whose bit is ``1 << (n - 1)``, i.e. the card of a one-bit mask's
  ``bit_length()``. (``shift[x]`` is ``5**attributes + spot``; no carry can cross places,
  because a place holds at most 2 + 2, so no bit lands where it does not belong.)

Hot functions
-------------
:func:`find_set_codes`, :func:`count_sets_codes`, :func:`all_sets_codes`, :func:`is_set_codes`
and :func:`third_code` answer questions about boards of codes; :func:`play_codes` plays a whole
solitaire game; :func:`shuffled_codes` is a fast, seeded shuffle of a whole deck.

>>> find_set_codes([int("0020", 3), int("2220", 3), int("1112", 3), int("0001", 3)])
(78, 41, 1)
>>> count_sets_codes(range(81))
1080
"""

from __future__ import annotations

import random
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import product

__all__ = [
    "ATTRIBUTE_COUNTS",
    "CodeTables",
    "all_sets_codes",
    "count_sets_codes",
    "deck_size",
    "digits_of",
    "find_set_codes",
    "is_set_codes",
    "play_codes",
    "sets_through",
    "shuffled_codes",
    "tables",
    "third_code",
]

#: The deck sizes the engine knows: 27, 81 and 243 cards.
ATTRIBUTE_COUNTS = (3, 4, 5)


def deck_size(attributes: int) -> int:
    """Return the number of cards in a deck of ``attributes`` attributes (``3**attributes``)."""
    return 3**attributes


def digits_of(code: int, attributes: int) -> tuple[int, ...]:
    """Return the card's values, most significant first (number, color, shading, ...).

    >>> digits_of(46, 4)
    (1, 2, 0, 1)
    """
    values = []
    for _ in range(attributes):
        code, value = divmod(code, 3)
        values.append(value)
    return tuple(reversed(values))


def _code_of(values: Iterable[int]) -> int:
    code = 0
    for value in values:
        code = code * 3 + value
    return code


@dataclass(frozen=True, slots=True, eq=False)
class CodeTables:
    """Lookup tables for one deck size; see the module docstring for what each one holds."""

    attributes: int
    size: int
    third: list[int]
    bit: list[int]
    pattern: list[int]
    shift: list[int]
    card_at: list[int]


@cache
def tables(attributes: int) -> CodeTables:
    """Build (once per deck size) and return the lookup tables of the int-code core."""
    if attributes not in ATTRIBUTE_COUNTS:
        raise ValueError(f"a Set deck has 3, 4 or 5 attributes, not {attributes!r}")
    size = 3**attributes
    grid = 5**attributes
    digits = [digits_of(code, attributes) for code in range(size)]
    third = []
    for a in range(size):
        da = digits[a]
        for b in range(size):
            if a == b:
                third.append(size)
            else:
                third.append(_code_of((-x - y) % 3 for x, y in zip(da, digits[b], strict=True)))
    # Digit k (most significant first) sits at place 5**k of the grid; any fixed order works.
    spots = [sum(d * 5**k for k, d in enumerate(ds)) for ds in digits]
    bit = [1 << spot for spot in spots]
    pattern = []
    for ds, own in zip(digits, bit, strict=True):
        mirror = [(-d) % 3 for d in ds]
        replicas = [(m, m + 3) if m + 3 < 5 else (m,) for m in mirror]
        high = sum(1 << sum(p * 5**k for k, p in enumerate(place)) for place in product(*replicas))
        pattern.append((high << grid) | own)
    shift = [grid + spot for spot in spots]
    card_at = [size] * (grid + 1)
    for code, own in enumerate(bit):
        card_at[own.bit_length()] = code
    return CodeTables(attributes, size, third, bit, pattern, shift, card_at)


def third_code(a: int, b: int, attributes: int = 4) -> int:
    """Return the code of the card completing ``a`` and ``b`` (the sentinel ``3**attributes``
    when ``a == b``).

    >>> third_code(int("2220", 3), int("1112", 3)) == int("0001", 3)
    True
    """
    t = tables(attributes)
    return t.third[a * t.size + b]


def is_set_codes(a: int, b: int, c: int, attributes: int = 4) -> bool:
    """Tell whether three distinct codes form a set."""
    t = tables(attributes)
    return t.third[a * t.size + b] == c


def sets_through(x: int, board_int: int, t: CodeTables) -> int:
    """Return the bits of the board's cards completing a set with ``x`` (``x``'s own bit too).

    ``board_int`` is the sum of ``t.pattern`` over the board, which must hold ``x``. The result
    equals ``t.bit[x]`` exactly when no set on the board contains ``x``.
    """
    return (board_int >> t.shift[x]) & board_int


def find_set_codes(board: Sequence[int], attributes: int = 4) -> tuple[int, int, int] | None:
    """Return one set on the board as three codes, or None when the board holds no set.

    The first card of the answer is the earliest card of ``board`` that belongs to a set.
    """
    t = tables(attributes)
    shift = t.shift
    bit = t.bit
    whole = sum(map(t.pattern.__getitem__, board))
    for x in board:
        own = bit[x]
        hits = (whole >> shift[x]) & whole
        if hits != own:
            c = t.card_at[(hits ^ own).bit_length()]
            return x, c, t.third[x * t.size + c]
    return None


def count_sets_codes(board: Iterable[int], attributes: int = 4) -> int:
    """Return the number of sets on the board.

    Each card ``x`` sees its own bit plus two bits per set through it, so the popcounts over
    the board add up to ``n + 6 * sets``; the whole sum runs in C.
    """
    t = tables(attributes)
    board = board if isinstance(board, list | tuple) else list(board)
    whole = sum(map(t.pattern.__getitem__, board))
    hits = map(whole.__and__, map(whole.__rshift__, map(t.shift.__getitem__, board)))
    return (sum(map(int.bit_count, hits)) - len(board)) // 6


def all_sets_codes(board: Sequence[int], attributes: int = 4) -> list[tuple[int, int, int]]:
    """Return every set on the board as code triples in board order, sorted by board position."""
    t = tables(attributes)
    size = t.size
    third = t.third
    position = {code: i for i, code in enumerate(board)}
    found = []
    for i, a in enumerate(board):
        row = a * size
        for j in range(i + 1, len(board)):
            k = position.get(third[row + board[j]], -1)
            if k > j:
                found.append((a, board[j], board[k]))
    return found


def play_codes(
    deck: Sequence[int],
    attributes: int = 4,
    seen: list[int] | None = None,
    empty: list[int] | None = None,
) -> tuple[list[tuple[int, int, int]], int]:
    """Play one solitaire game with the physical rules; return the sets taken and the cards left.

    Deal 12 cards from the front of ``deck``; while a set shows, take it and refill to 12 (a
    board of 15 or more is not refilled); while none shows, deal 3 more; stop when the deck is
    empty and no set is left. ``len(deck)`` must be a multiple of 3.

    If ``seen`` and ``empty`` are given (lists indexed by board size, long enough for
    ``len(deck) + 1``), count every board looked at while the deck still had cards (each one
    is a deal decision) in ``seen`` and those with no set in ``empty``.

    Why it is fast: cards are tested *lazily*, each at most once, in deal order. ``checked``
    is the deck index of the first untested card. A tested card that is still on the board
    was in no set at its test, and any set that appeared later holds a newer card, so every set
    on the board contains an untested card: the search resumes at ``checked`` and the first
    hit is taken at once (all the other sets it saw contain the taken card, so nothing else is
    worth remembering).
    """
    t = tables(attributes)
    pattern = t.pattern
    shift = t.shift
    bit = t.bit
    card_at = t.card_at
    third = t.third
    size = t.size
    counting = seen is not None and empty is not None
    taken: list[tuple[int, int, int]] = []
    take = taken.append
    whole = 0
    on_board = 0
    checked = 0
    end = len(deck)
    for dealt in range(3, end + 3, 3):
        whole |= pattern[deck[dealt - 3]] | pattern[deck[dealt - 2]] | pattern[deck[dealt - 1]]
        on_board += 3
        if on_board < 12 and dealt < end:
            continue
        while on_board >= 12 or dealt == end:
            if counting and dealt < end:
                seen[on_board] += 1
            while checked < dealt:
                x = deck[checked]
                checked += 1
                own = bit[x]
                if whole & own:
                    hits = (whole >> shift[x]) & whole
                    if hits != own:
                        c = card_at[(hits ^ own).bit_length()]
                        d = third[x * size + c]
                        take((x, c, d))
                        whole ^= pattern[x] ^ pattern[c] ^ pattern[d]
                        on_board -= 3
                        break
            else:
                if counting and dealt < end:
                    empty[on_board] += 1
                break
    return taken, on_board


# A shuffle is a sort by random keys. Each key is an IEEE double in [1, 2): exponent fixed, 44
# random mantissa bits, and the card's code in the low byte so that the sorted keys carry the
# permutation with them. struct packs and unpacks them in C, and ``bytes[::8]`` reads the codes
# back. Ties between two random parts (probability below 2e-9 even for 243 cards) are the only
# departure from a uniform shuffle; they are broken by code.
@cache
def _shuffle_parts(size: int) -> tuple[struct.Struct, int, int, int]:
    if not 0 < size <= 256:
        raise ValueError(f"can shuffle 1 to 256 cards, not {size!r}")
    mask = 0
    base = 0
    for i in range(size):
        mask |= ((1 << 44) - 1) << (64 * i + 8)
        base |= (0x3FF << (64 * i + 52)) | (i << (64 * i))
    return struct.Struct(f"<{size}d"), mask, base, 64 * size


def shuffled_codes(size: int, rng: random.Random) -> bytes:
    """Return ``range(size)`` (size ≤ 256) in a random order drawn from ``rng``, as bytes.

    About three times faster than ``random.shuffle`` on a list of 81 ints, and determined by
    ``rng``'s state, so the same seed gives the same order.
    """
    packer, mask, base, bits = _shuffle_parts(size)
    keys = sorted(
        packer.unpack(((rng.getrandbits(bits) & mask) | base).to_bytes(bits // 8, "little"))
    )
    return packer.pack(*keys)[::8]
