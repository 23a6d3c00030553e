"""A general deck of cards, kept as a hand-written doubly linked list.

`DeckOfCards` is the abstract data type of the Set War assignment (specs/setwar.md, section 2):
the top of the deck is the front of the list, and every operation except building a deck and
`deal` takes constant time, because a deck only ever changes at its two ends and piles are
spliced in whole. Neither `collections.deque` nor a Python list stores the cards.

The method names (`dealTop`, `addPileBottom`, ...) are the assignment's own, so code written
against the original ADT runs unchanged.

>>> deck = DeckOfCards("a b c")
>>> deck.addBottom("d")
>>> deck.dealTop(), deck.dealBottom(), len(deck)
('a', 'd', 2)
>>> pile = DeckOfCards(["x", "y"])
>>> deck.addPileTop(pile)
>>> list(deck), len(pile)
(['x', 'y', 'b', 'c'], 0)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from typing import Any, Self

from cards.engine.errors import SetError

__all__ = ["DeckError", "DeckOfCards", "EmptyDeckError"]


class DeckError(SetError):
    """Refuse a deck operation that cannot be carried out (a bad deal, a deck as its own pile).

    It is a `ValueError`, as the spec asks, and a `SetError`, so callers can catch every
    error of the Set engines with one clause.
    """


class EmptyDeckError(DeckError, IndexError):
    """Refuse to deal a card from an empty deck.

    It is an `IndexError` (the spec's rule, like popping an empty list) as well as a
    `DeckError`.
    """


class _Node:
    """Hold one card and the links to its neighbours; `prev` points towards the top."""

    __slots__ = ("card", "prev", "next")

    def __init__(self, card: Any, prev: _Node | None = None, next: _Node | None = None) -> None:
        self.card = card
        self.prev = prev
        self.next = next


class DeckOfCards:
    """Hold cards in order from top to bottom, changing only at the ends, in O(1).

    `L` is a string of whitespace-separated cards or any iterable of cards, top first;
    omitted, `None` or empty gives an empty deck. Cards are stored exactly as given: this
    general deck does not know what a card is (the assignment's tests also use ints).
    """

    __slots__ = ("_top", "_bottom", "_size")

    def __init__(self, L: str | Iterable[Any] | None = None) -> None:
        self._top: _Node | None = None
        self._bottom: _Node | None = None
        self._size = 0
        if L is None:
            return
        # Link the nodes here rather than through addBottom, which a subclass may override
        # with per-card checks that its own initialiser has already made.
        bottom = None
        for card in L.split() if isinstance(L, str) else L:
            node = _Node(card, bottom, None)
            if bottom is None:
                self._top = node
            else:
                bottom.next = node
            bottom = node
            self._size += 1
        self._bottom = bottom

    def __len__(self) -> int:
        """Return the number of cards, kept as a count so it is O(1)."""
        return self._size

    def __iter__(self) -> Iterator[Any]:
        """Yield the cards from top to bottom without removing them."""
        node = self._top
        while node is not None:
            yield node.card
            node = node.next

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"

    def dealTop(self) -> Any:
        """Remove and return the top card; an empty deck raises `EmptyDeckError`."""
        node = self._top
        if node is None:
            raise EmptyDeckError("cannot deal the top card of an empty deck")
        below = node.next
        self._top = below
        if below is None:
            self._bottom = None
        else:
            below.prev = None
        self._size -= 1
        return node.card

    def dealBottom(self) -> Any:
        """Remove and return the bottom card; an empty deck raises `EmptyDeckError`."""
        node = self._bottom
        if node is None:
            raise EmptyDeckError("cannot deal the bottom card of an empty deck")
        above = node.prev
        self._bottom = above
        if above is None:
            self._top = None
        else:
            above.next = None
        self._size -= 1
        return node.card

    def addTop(self, card: Any) -> None:
        """Put `card` on top of the deck."""
        node = _Node(card, None, self._top)
        if self._top is None:
            self._bottom = node
        else:
            self._top.prev = node
        self._top = node
        self._size += 1

    def addBottom(self, card: Any) -> None:
        """Put `card` at the bottom of the deck."""
        node = _Node(card, self._bottom, None)
        if self._bottom is None:
            self._top = node
        else:
            self._bottom.next = node
        self._bottom = node
        self._size += 1

    def moveTopToBottom(self, other: DeckOfCards) -> Any:
        """Move the top card to the bottom of `other` and return it, in O(1).

        This is one play of Set War (a hand's top card goes to the end of the line). Between
        decks of the same class the card's node is relinked rather than copied; otherwise
        the card goes through `other.addBottom`, so a subclass that checks cards still does.
        `other` may be this deck, which moves the top card to the bottom.
        """
        if type(other) is not type(self):
            if not isinstance(other, DeckOfCards):
                raise TypeError(f"cards can only move to a deck, not {type(other).__name__}")
            card = self.dealTop()
            try:
                other.addBottom(card)
            except BaseException:
                self.addTop(card)  # a refused card stays where it was
                raise
            return card
        node = self._top
        if node is None:
            raise EmptyDeckError("cannot move the top card of an empty deck")
        below = node.next
        self._top = below
        if below is None:
            self._bottom = None
        else:
            below.prev = None
            node.next = None
        self._size -= 1
        bottom = other._bottom
        node.prev = bottom
        if bottom is None:
            other._top = node
        else:
            bottom.next = node
        other._bottom = node
        other._size += 1
        return node.card

    def addPileTop(self, pile: DeckOfCards) -> None:
        """Lay the whole `pile` on top, order kept, and leave `pile` empty.

        The pile's bottom card ends up directly on the deck's former top card. The pile's
        nodes are spliced in, so this is O(1) whatever the sizes.
        """
        if pile is self or not isinstance(pile, DeckOfCards):
            self._refuse_pile(pile)
        if pile._top is None:
            return
        if self._top is None:
            self._bottom = pile._bottom
        else:
            pile._bottom.next = self._top
            self._top.prev = pile._bottom
        self._top = pile._top
        self._size += pile._size
        pile._top = pile._bottom = None  # the nodes now belong to this deck
        pile._size = 0

    def addPileBottom(self, pile: DeckOfCards) -> None:
        """Put the whole `pile` under the deck, order kept, and leave `pile` empty.

        The pile's top card ends up directly below the deck's former bottom card; this is
        how the winner of a Set War round takes the line. O(1), like `addPileTop`.
        """
        if pile is self or not isinstance(pile, DeckOfCards):
            self._refuse_pile(pile)
        if pile._top is None:
            return
        if self._bottom is None:
            self._top = pile._top
        else:
            self._bottom.next = pile._top
            pile._top.prev = self._bottom
        self._bottom = pile._bottom
        self._size += pile._size
        pile._top = pile._bottom = None  # the nodes now belong to this deck
        pile._size = 0

    def deal(self, nplayers: int, ncards: int | None = None) -> list[Self]:
        """Deal `ncards` cards in total (all of them if `None`) into `nplayers` hands.

        Cards leave the top of this deck one at a time, to hands 0, 1, ..., n-1, 0, ...,
        and each goes on the *top* of the hand that receives it, as people deal. Hands are
        decks of this deck's class. `nplayers < 1` or `ncards` outside 0..len raises
        `DeckError`.

        >>> [list(hand) for hand in DeckOfCards(range(7)).deal(2)]
        [[6, 4, 2, 0], [5, 3, 1]]
        """
        nplayers = operator.index(nplayers)
        if nplayers < 1:
            raise DeckError(f"cannot deal to {nplayers} players: at least 1 is needed")
        if ncards is None:
            ncards = self._size
        else:
            ncards = operator.index(ncards)
            if not 0 <= ncards <= self._size:
                raise DeckError(
                    f"cannot deal {ncards} cards from a deck of {self._size}: "
                    f"the count must be between 0 and {self._size}"
                )
        hands = [self._empty_like() for _ in range(nplayers)]
        for dealt in range(ncards):
            hands[dealt % nplayers]._push_node(self._pop_top_node())
        return hands

    def _empty_like(self) -> Self:
        """Return a new empty deck of this deck's class (the class of dealt hands)."""
        return type(self)()

    def _refuse_pile(self, pile: object) -> None:
        """Raise the error for a pile that is not another deck."""
        if pile is self:
            raise DeckError("a deck cannot be added to itself")
        raise TypeError(f"a pile must be a deck of cards, not {type(pile).__name__}")

    def _pop_top_node(self) -> _Node:
        """Unlink and return the top node of a non-empty deck, for `deal` to relink."""
        node = self._top
        self._top = node.next
        if self._top is None:
            self._bottom = None
        else:
            self._top.prev = None
        self._size -= 1
        node.next = None
        return node

    def _push_node(self, node: _Node) -> None:
        """Link an unattached node on top."""
        node.next = self._top
        if self._top is None:
            self._bottom = node
        else:
            self._top.prev = node
        self._top = node
        self._size += 1
