"""The ways to play a classic Set table, as ONE table of modes (`MODES`).

A mode changes what a claim is (its `ClaimType`: a Set of 3, an UltraSet of 4, a GhostSet of 6),
the deck (attributes × values), the board it starts from (``board``, the fork's M), how many
cards of the last claim each claim reuses (``chain``) and a few flags (a puzzle's claims stay on
the board, a shuffle re-lays the board after each claim, a face-down board). Everything else
(seats, lockouts, hints, presence, the end when no claim is left) is the classic table's
(`cards.engine.classic`), which reads this table for every rule: the deal and its growth, the
refill after a claim, the end test, hints, counts, why a claim is wrong, the views and the
computer players. A new mode is one entry of `MODES`; a new kind of claim one `ClaimType`.

The modes (their keys are the ``mode`` option; ``../shared/specs/set-modes.md`` has the rules):

- **normal**: the card game. **ultra** (UltraSet), **chain** (Set-Chain) and **puzzle** (one
  fixed board of 12 cards holding exactly 6 sets, the daily puzzle) are this site's own, on any
  deck of 3, 4 or 5 attributes and the table's ``board_size``.
- The fork's modes, each on its own deck and board: **junior** (27 cards, board 9), **ultrachain**
  (UltraSet, each claim reusing exactly 2 cards of the last), **ultra9** (UltraSet on 9 cards),
  **megaset** (243 cards, board 16), **ghostset** (6-card claims, board 10), **shuffle** (normal,
  the board re-laid after each claim), **deckpuzzle** (the fork's plain Puzzle, named apart from
  ours: consecutive boards of the deck, every set of a board to find, cards stay) and
  **ultra9puzzle** (its UltraSet puzzle on 9-card boards).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from itertools import combinations

from cards.engine.card import ATTRIBUTE_NAMES, VALUE_NAMES, all_cards
from cards.engine.fast import (
    all_sets_codes,
    count_sets_codes,
    digits_of,
    find_set_codes,
    tables,
)
from cards.engine.fast4 import count_4sets_codes
from cards.engine.rules import why_not_4set_of, why_not_set_of, why_not_ultra_of

__all__ = [
    "CLAIMS",
    "MODES",
    "PUZZLE_BOARD",
    "PUZZLE_SETS",
    "ClaimType",
    "Mode",
    "ModeRules",
    "chain_message",
    "claim_size",
    "claim_why",
    "count_claims",
    "find_claim",
    "found_message",
    "is_ghost",
    "is_ultra",
    "puzzle_board",
    "rules_of",
]

Cards = Sequence[int]

#: A puzzle's board size and how many sets it holds.
PUZZLE_BOARD = 12
PUZZLE_SETS = 6


# --- the claim types ------------------------------------------------------------------------------


@cache
def _sums(attributes: int) -> tuple[list[int], list[int]]:
    """Return the digit-wise sum table (``add[a * size + b]``, mod 3) and negation (``neg``)."""
    t = tables(attributes)
    size, third = t.size, t.third
    # third(a, b) = -(a + b), so a + b = -third(a, b); -x = third(x, 0) (x itself for x = 0),
    # and a + a = -a.
    neg = [0] + [third[x * size] for x in range(1, size)]
    add = [neg[a] if a == b else neg[third[a * size + b]] for a in range(size) for b in range(size)]
    return add, neg


def is_set(cards: Cards, attributes: int) -> bool:
    """Tell whether three distinct cards form a set."""
    a, b, c = cards
    t = tables(attributes)
    return t.third[a * t.size + b] == c


def is_ultra(cards: Cards, attributes: int) -> bool:
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


def is_ghost(cards: Cards, attributes: int) -> bool:
    """Tell whether six distinct cards form a GhostSet: every position sums to 0 mod 3.

    >>> is_ghost([int(t, 3) for t in "0000 0011 1100 2200 1200 2122".split()], 4)
    True
    >>> is_ghost([int(t, 3) for t in "0000 0011 1100 2200 1200 2121".split()], 4)
    False
    """
    add, _ = _sums(attributes)
    size = 3**attributes
    total = 0
    for card in cards:
        total = add[total * size + card]
    return total == 0


def _sets(board: Cards, attributes: int) -> Iterator[tuple[int, ...]]:
    return iter(all_sets_codes(board, attributes))


def _ultras(board: Cards, attributes: int) -> Iterator[tuple[int, ...]]:
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


def _ghosts(board: Cards, attributes: int) -> Iterator[tuple[int, ...]]:
    """Yield the board's GhostSets (six cards each, each once): two disjoint triples whose sums
    cancel, found as soon as the second triple is reached (the end test needs only the first)."""
    add, neg = _sums(attributes)
    size = 3**attributes
    by_sum: dict[int, list[tuple[int, int, int]]] = {}
    seen: set[frozenset[int]] = set()
    for triple in combinations(range(len(board)), 3):
        i, j, k = triple
        total = add[add[board[i] * size + board[j]] * size + board[k]]
        for other in by_sum.get(neg[total], ()):
            if i not in other and j not in other and k not in other:
                six = frozenset(other + triple)
                if six not in seen:
                    seen.add(six)
                    yield tuple(board[x] for x in other + triple)
        by_sum.setdefault(total, []).append(triple)


def _set_completions(given: Cards, attributes: int) -> tuple[int, ...]:
    t = tables(attributes)
    a, b = given
    return (t.third[a * t.size + b],)


def _ultra_completions(given: Cards, attributes: int) -> tuple[int, ...]:
    # x + y = z + w for one pairing: w = x + y - z = third(third(x, y), z), and so on.
    t = tables(attributes)
    third, size = t.third, t.size
    x, y, z = given
    return (
        third[third[x * size + y] * size + z],
        third[third[x * size + z] * size + y],
        third[third[y * size + z] * size + x],
    )


def _ghost_completions(given: Cards, attributes: int) -> tuple[int, ...]:
    add, neg = _sums(attributes)
    size = 3**attributes
    total = 0
    for card in given:
        total = add[total * size + card]
    return (neg[total],)


def _why_set(cards: Cards, attributes: int) -> list[str]:
    deck = all_cards(attributes)
    return why_not_set_of(*(deck[card] for card in cards))


def _why_ultra(cards: Cards, attributes: int) -> list[str]:
    deck = all_cards(attributes)
    return why_not_ultra_of(*(deck[card] for card in cards))


def _why_ghost(cards: Cards, attributes: int) -> list[str]:
    """Per attribute whose six values do not cancel: how many of each value there are (a
    GhostSet's counts are equal mod 3: 2-2-2, 3-3-0, 4-1-1 or 6-0-0)."""
    why = []
    digits = [digits_of(card, attributes) for card in cards]
    for position in range(attributes):
        values = [d[position] for d in digits]
        if sum(values) % 3:
            name = ATTRIBUTE_NAMES[position]
            counts = ", ".join(
                f"{VALUE_NAMES[name][v]} ×{values.count(v)}" for v in range(3) if v in values
            )
            why.append(f"{name}: {counts} — the counts must be 2-2-2, 3-3-0, 4-1-1 or 6-0-0")
    return why


@dataclass(frozen=True)
class ClaimType:
    """What a claim is: its ``size`` (cards named), its ``name`` ("Set", "UltraSet"), how a
    page words it (``one``, ``a``, ``many``, and ``how`` to pick one) and the functions on card
    codes that judge it (``check``), list a board's claims, the first found first (``claims``;
    ``count`` counts them), complete ``size - 1`` cards (``completions``: every card that makes
    them a claim; the chain modes search with it) and say why cards are not one (``why``, per
    attribute)."""

    key: str
    name: str
    size: int
    one: str
    a: str
    many: str
    how: str
    check: Callable[[Cards, int], bool]
    claims: Callable[[Cards, int], Iterator[tuple[int, ...]]]
    completions: Callable[[Cards, int], tuple[int, ...]]
    why: Callable[[Cards, int], list[str]]
    count: Callable[[Cards, int], int] | None = None

    @property
    def article(self) -> str:
        """Return the name with its article: "a Set", "an UltraSet"."""
        return f"{'an' if self.name[0] in 'AEIOU' else 'a'} {self.name}"

    def counted(self, board: Cards, attributes: int) -> int:
        """Return how many claims ``board`` holds."""
        if self.count is not None:
            return self.count(board, attributes)
        return sum(1 for _ in self.claims(board, attributes))


#: The claim types, by key.
def is_4set(cards: Cards, attributes: int) -> bool:
    """Tell whether four distinct cards of a 4Set deck form a 4Set (`cards.engine.fast4`): at
    every attribute all alike, all different or two pairs, so their 2-bit codes XOR to 0.

    >>> is_4set([int(t, 4) for t in "012 103 230 321".split()], 3)
    True
    >>> is_4set([int(t, 4) for t in "012 103 230 320".split()], 3)
    False
    """
    a, b, c, d = cards
    return a ^ b ^ c ^ d == 0


def _4sets(board: Cards, attributes: int) -> Iterator[tuple[int, ...]]:
    """Yield the board's 4Sets, each once, the first found first: places i < j < k < m whose
    pairs (i, j) and (k, m) have one XOR, found when the pair ending at m is looked at."""
    seen: dict[int, list[tuple[int, int]]] = {}
    for m in range(1, len(board)):
        d = board[m]
        for k in range(m):
            key = board[k] ^ d
            pairs = seen.get(key)
            if pairs is not None:
                for i, j in pairs:
                    if j < k:
                        yield (board[i], board[j], board[k], d)
                pairs.append((k, m))
            else:
                seen[key] = [(k, m)]


def _4set_completions(given: Cards, attributes: int) -> tuple[int, ...]:
    a, b, c = given
    return (a ^ b ^ c,)


def _4set_count(board: Cards, attributes: int) -> int:
    return count_4sets_codes(board)


def _why_4set(cards: Cards, attributes: int) -> list[str]:
    deck = all_cards(attributes, 4)
    return why_not_4set_of(*(deck[card] for card in cards))


CLAIMS = {
    claim.key: claim
    for claim in (
        ClaimType(
            "set", "Set", 3, "set", "a set", "sets", "select three cards",
            is_set, _sets, _set_completions, _why_set, count_sets_codes,
        ),
        ClaimType(
            "ultra", "UltraSet", 4, "ultra", "an ultra", "ultras",
            "select four cards, two pairs that need the same third card",
            is_ultra, _ultras, _ultra_completions, _why_ultra,
        ),
        ClaimType(
            "ghost", "GhostSet", 6, "ghostset", "a ghostset", "ghostsets",
            "select six cards, three pairs whose third cards form a set",
            is_ghost, _ghosts, _ghost_completions, _why_ghost,
        ),
        ClaimType(
            "4set", "4Set", 4, "4Set", "a 4Set", "4Sets",
            "select four cards, each attribute all alike, all different or two pairs",
            is_4set, _4sets, _4set_completions, _why_4set, _4set_count,
        ),
    )
}  # fmt: skip


# --- the table of modes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ModeRules:
    """One way to play a classic table: one entry of `MODES`.

    ``claim`` is its claim type; ``attributes`` and ``values`` its deck (``attributes`` None: the
    table's option, 3, 4 or 5); ``board`` the board it deals (the fork's M; None: the table's
    ``board_size``, 3 × attributes); ``chain`` how many cards of the last claim each claim
    reuses (0: none). Flags: ``puzzle`` (claims stay on the board, a claim counts once; the
    board once cleared gives way to the next deal), ``fixed`` (this site's puzzle: one board of
    12 holding 6 sets, no deck), ``shuffle`` (the board re-laid after each claim), ``face_down``
    and ``fork`` (refill as the fork does, slots kept and the overflow first; this site's own
    modes close up a grown board instead). ``title`` and ``blurb`` are what the lobby shows.

    ``values`` is 3, or 4 for the 4Set modes: their cards' codes are 2 bits an attribute
    (`cards.engine.fast4`), their claim type the 4Set, and a table's texts and views read the
    deck as ``(attributes, values)`` (`cards.engine.table.codes`).

    >>> MODES["megaset"].claim.name, MODES["megaset"].attributes, MODES["megaset"].board
    ('Set', 5, 16)
    >>> MODES["ultrachain"].size, MODES["ultrachain"].chain
    (4, 2)
    >>> MODES["4setjrchain"].claim.name, MODES["4setjrchain"].values, MODES["4setjrchain"].chain
    ('4Set', 4, 2)
    """

    key: str
    title: str
    blurb: str
    claim: ClaimType
    attributes: int | None = None
    values: int = 3
    board: int | None = None
    chain: int = 0
    puzzle: bool = False
    fixed: bool = False
    shuffle: bool = False
    face_down: bool = False
    fork: bool = False

    @property
    def size(self) -> int:
        """Return how many cards a claim names."""
        return self.claim.size


_SET, _ULTRA, _GHOST = CLAIMS["set"], CLAIMS["ultra"], CLAIMS["ghost"]
_FOUR = CLAIMS["4set"]

#: Every mode, by its key (the ``mode`` option), in the order the lobby offers them.
MODES: dict[str, ModeRules] = {
    rules.key: rules
    for rules in (
        ModeRules("normal", "The card game", "Find 3 cards that form a set.", _SET),
        ModeRules(
            "ultra",
            "UltraSet",
            "Find 4 cards: two pairs completed by the same third card.",
            _ULTRA,
        ),
        ModeRules(
            "chain",
            "Set-Chain",
            "Every set reuses exactly 1 card of the set before it.",
            _SET,
            chain=1,
        ),
        ModeRules(
            "puzzle",
            "Puzzle",
            "One board of 12 cards holding 6 sets: find them all.",
            _SET,
            puzzle=True,
            fixed=True,
        ),
        # The fork's modes (set-modes.md §4), each on its own deck and board.
        ModeRules(
            "junior",
            "Junior",
            "27 cards of 3 attributes on a board of 9: find 3 cards that form a set.",
            _SET,
            attributes=3,
            board=9,
            fork=True,
        ),
        ModeRules(
            "ultrachain",
            "UltraSet-Chain",
            "UltraSets where each reuses exactly 2 cards of the UltraSet before it.",
            _ULTRA,
            attributes=4,
            board=12,
            chain=2,
            fork=True,
        ),
        ModeRules(
            "ultra9",
            "Ultra9",
            "UltraSet with only 9 cards dealt (more while there is none).",
            _ULTRA,
            attributes=4,
            board=9,
            fork=True,
        ),
        ModeRules(
            "megaset",
            "MegaSet",
            "243 cards of 5 attributes (a border too) on a board of 16.",
            _SET,
            attributes=5,
            board=16,
            fork=True,
        ),
        ModeRules(
            "ghostset",
            "GhostSet",
            "Find 6 cards: three pairs whose completing cards form a set.",
            _GHOST,
            attributes=4,
            board=10,
            fork=True,
        ),
        ModeRules(
            "shuffle",
            "Shuffle",
            "The card game, but the board is shuffled after every set.",
            _SET,
            attributes=4,
            board=12,
            shuffle=True,
            fork=True,
        ),
        ModeRules(
            "deckpuzzle",
            "Deck Puzzle",
            "Find every set of each board; cards stay, then the next 12 are dealt.",
            _SET,
            attributes=4,
            board=12,
            puzzle=True,
            fork=True,
        ),
        ModeRules(
            "ultra9puzzle",
            "Ultra9 Puzzle",
            "Find every UltraSet of each 9-card board; cards stay, then the next 9.",
            _ULTRA,
            attributes=4,
            board=9,
            puzzle=True,
            fork=True,
        ),
        # The 4Set family (§4.9-4.11, 4.14): four values an attribute (`cards.engine.fast4`).
        ModeRules(
            "4set",
            "4Set",
            "256 cards of 4 values: find 4 cards, each attribute all alike, all different or "
            "two pairs.",
            _FOUR,
            attributes=4,
            values=4,
            board=15,
            fork=True,
        ),
        ModeRules(
            "4setjr",
            "4Set Junior",
            "64 cards of 3 attributes with 4 values on a board of 11: find 4Sets.",
            _FOUR,
            attributes=3,
            values=4,
            board=11,
            fork=True,
        ),
        ModeRules(
            "4setjrchain",
            "4Set Jr-Chain",
            "4Set Junior where each 4Set reuses exactly 2 cards of the 4Set before it.",
            _FOUR,
            attributes=3,
            values=4,
            board=11,
            chain=2,
            fork=True,
        ),
        ModeRules(
            "4setjrpuzzle",
            "4Set Jr-Puzzle",
            "Find every 4Set of each 11-card board; cards stay, then the next 11.",
            _FOUR,
            attributes=3,
            values=4,
            board=11,
            puzzle=True,
            fork=True,
        ),
        # Memory (§4.16): the card game on 21 cards dealt face down (cards.engine.table.memory).
        ModeRules(
            "memory",
            "Memory",
            "21 cards face down: turn up 3 at a time; only you see yours.",
            _SET,
            attributes=4,
            board=21,
            face_down=True,
            fork=True,
        ),
    )
}


def _mode_names() -> dict[str, str]:
    return {key.upper().replace("-", "_"): key for key in MODES}


#: A mode's key as a value: ``Mode("ultra")``, ``Mode.ULTRA``; the same strings as `MODES`' keys.
Mode = StrEnum("Mode", _mode_names())  # type: ignore[misc]
Mode.__doc__ = "Name a way to play a classic table, as its ``mode`` option says."


def rules_of(mode: str) -> ModeRules:
    """Return the table entry of ``mode`` (a key or a `Mode`)."""
    return MODES[mode]


def claim_size(mode: str) -> int:
    """Return how many cards a claim names in ``mode``: 3, 4 or 6."""
    return MODES[mode].claim.size


def chain_message(rules: ModeRules) -> str:
    """Say what a chain claim must reuse: "1 card must be from the previous Set"."""
    cards = "card" if rules.chain == 1 else "cards"
    return f"{rules.chain} {cards} must be from the previous {rules.claim.name}"


def found_message(rules: ModeRules) -> str:
    """Say that a puzzle's claim was found already: "This Set was already found" (this site's
    own puzzle says it as it always has)."""
    if rules.fixed:
        return "That set has been found already."
    return f"This {rules.claim.name} was already found"


#: Why a Set-Chain claim is wrong when it does not take exactly one card of the chain.
NOT_CHAINED = chain_message(MODES["chain"])
#: Why a puzzle's claim is wrong when its set was found already.
FOUND_ALREADY = found_message(MODES["puzzle"])


def _chained(rules: ModeRules, board: Cards, chain: Cards, attributes: int):
    """Yield the claims of ``rules.chain`` cards of the chain and the rest from the board (board
    cards first), each once."""
    on_board = {card: i for i, card in enumerate(board)}
    complete = rules.claim.completions
    rest = rules.claim.size - rules.chain - 1
    for links in combinations(chain, rules.chain):
        if rest == 1:  # one board card given (Set-Chain, UltraSet-Chain): no combinations
            for i, a in enumerate(board):
                for card in complete((*links, a), attributes):
                    at = on_board.get(card)
                    if at is not None and at > i:
                        yield (a, card, *links)
            continue
        for others in combinations(range(len(board)), rest):
            given = [board[i] for i in others]
            last = others[-1] if others else -1
            for card in complete((*links, *given), attributes):
                at = on_board.get(card)
                if at is not None and at > last:
                    yield (*given, card, *links)


def claim_why(
    cards: Cards,
    attributes: int,
    mode: str = "normal",
    *,
    chain: Cards = (),
    found: Sequence[tuple[int, ...]] = (),
) -> list[str]:
    """Say why a claim of ``cards`` (codes) is wrong in ``mode``, in short lines for a person;
    an empty list for a good claim.

    A claim is judged attribute by attribute by its claim type; a chain claim must also reuse
    the mode's count of chain cards, and a puzzle's claim counts once.

    >>> from cards.engine.table.codes import codes_of
    >>> three = codes_of(["ONE/RED/SOLID/OVAL", "TWO/RED/SOLID/OVAL", "THREE/GREEN/SOLID/OVAL"], 4)
    >>> claim_why(three, 4)
    ['color: red, red, green — two alike, one different']
    >>> claim_why(three, 4, "chain", chain=codes_of(["ONE/RED/OPEN/OVAL"], 4))
    ['1 card must be from the previous Set']
    """
    rules = MODES[mode]
    if rules.chain and chain and sum(card in chain for card in cards) != rules.chain:
        return [chain_message(rules)]
    if rules.puzzle and tuple(sorted(cards)) in set(found):
        return [found_message(rules)]
    return rules.claim.why(cards, attributes)


def claims_now(
    mode: str,
    board: Cards,
    attributes: int,
    *,
    chain: Cards = (),
    found: Sequence[tuple[int, ...]] = (),
) -> Iterator[tuple[int, ...]]:
    """Yield the claims possible now in ``mode`` (board cards first), each once."""
    rules = MODES[mode]
    if rules.chain and chain:
        return _chained(rules, board, chain, attributes)
    claims = rules.claim.claims(board, attributes)
    if rules.puzzle and found:
        done = set(found)
        return (c for c in claims if tuple(sorted(c)) not in done)
    return claims


def find_claim(
    mode: str,
    board: Cards,
    attributes: int,
    *,
    chain: Cards = (),
    found: Sequence[tuple[int, ...]] = (),
) -> tuple[int, ...] | None:
    """Return the cards of one claim possible now in ``mode`` (board cards first), or None.

    ``chain`` is a chain table's last claim (empty before the first); ``found`` the claims a
    puzzle's board has had found (each sorted).
    """
    rules = MODES[mode]
    if rules.claim is _SET and not rules.chain and not rules.puzzle:
        return find_set_codes(board, attributes)  # the hot path, inside C
    return next(claims_now(mode, board, attributes, chain=chain, found=found), None)


def count_claims(
    mode: str,
    board: Cards,
    attributes: int,
    *,
    chain: Cards = (),
    found: Sequence[tuple[int, ...]] = (),
) -> int:
    """Return how many claims are possible now in ``mode`` (the "How many?" help)."""
    rules = MODES[mode]
    if rules.chain and chain:
        return sum(1 for _ in _chained(rules, board, chain, attributes))
    return rules.claim.counted(board, attributes) - (len(found) if rules.puzzle else 0)


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
