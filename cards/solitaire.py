"""Set solitaire with the physical rules (seed 000's ``SetGame``), on top of the fast core.

The dealer lays out 12 cards. While a set shows, it is taken and the board is refilled to 12
(a board of 15 or more is not refilled: taking a set from 15 leaves 12). While no set shows,
3 more cards are dealt (15, 18, 21...). The game ends when the deck is empty and no set is
left. The same seed always plays the same game.

>>> from cards.engine import is_set
>>> game = SetGame(seed=2024)
>>> found, sets = game.play_quiet()
>>> found == len(sets) and all(is_set(*taken) for taken in sets)
True
>>> game.play_quiet() == SetGame(seed=2024).play_quiet()
True
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from cards.engine.card import ATTRIBUTE_COUNTS, Card
from cards.engine.deck import new_deck
from cards.engine.errors import SetError
from cards.engine.fast import play_codes

__all__ = ["BOARD_SIZE", "SetGame", "Turn"]

#: The dealer refills the board to this many cards.
BOARD_SIZE = 12


@dataclass(frozen=True, slots=True)
class Turn:
    """One look at the board: the cards in table order, the cards still in the deck, and what
    happened: ``taken`` is the set removed, or None when the board held no set (then 3 more
    cards are dealt, or the game ends if the deck is empty)."""

    board: tuple[Card, ...]
    deck_left: int
    taken: tuple[Card, Card, Card] | None


class SetGame:
    """One game of Set solitaire, decided by its seed.

    ``seed`` is an int (None picks one at random, kept in ``self.seed`` so the game can be
    replayed); ``attributes`` is 3, 4 or 5 (27, 81 or 243 cards). ``self.deck`` is the shuffled
    deck, top card first.
    """

    def __init__(self, seed: int | None = None, attributes: int = 4) -> None:
        if attributes not in ATTRIBUTE_COUNTS:
            raise SetError(f"a Set deck has 3, 4 or 5 attributes, not {attributes!r}")
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        elif not isinstance(seed, int) or isinstance(seed, bool):
            raise SetError(f"{seed!r} is not a seed: give an int or None")
        self.seed = seed
        self.attributes = attributes
        self.deck: list[Card] = new_deck(attributes, random.Random(seed))

    def __repr__(self) -> str:
        return f"SetGame(seed={self.seed}, attributes={self.attributes})"

    def _sets(self) -> list[tuple[Card, Card, Card]]:
        """Play the game in the int-code core; return the sets taken, each in deal order."""
        order = {card: i for i, card in enumerate(self.deck)}
        taken, _ = play_codes([card.code for card in self.deck], self.attributes)
        by_code = {card.code: card for card in self.deck}
        return [
            tuple(sorted((by_code[code] for code in codes), key=order.__getitem__))  # type: ignore[misc]
            for codes in taken
        ]

    def play_quiet(self) -> tuple[int, list[tuple[Card, Card, Card]]]:
        """Play the whole game silently; return the number of sets found and the sets, in the
        order they were taken."""
        sets = self._sets()
        return len(sets), sets

    def turns(self) -> Iterator[Turn]:
        """Replay the game one look at the board at a time, with the cards where they lie.

        New cards fill the places of a taken set while the board is refilled to 12; otherwise
        the remaining cards close up in order, and extra cards go at the end.
        """
        sets = self._sets()
        board = list(self.deck[:BOARD_SIZE])
        next_card = BOARD_SIZE
        for taken in sets:
            while not set(taken) <= set(board):
                # The core dealt more here, which it does only when no set shows.
                yield Turn(tuple(board), len(self.deck) - next_card, None)
                board.extend(self.deck[next_card : next_card + 3])
                next_card += 3
            yield Turn(tuple(board), len(self.deck) - next_card, taken)
            if len(board) == BOARD_SIZE and next_card < len(self.deck):
                for card in taken:
                    board[board.index(card)] = self.deck[next_card]
                    next_card += 1
            else:
                board = [card for card in board if card not in taken]
        while True:
            yield Turn(tuple(board), len(self.deck) - next_card, None)
            if next_card == len(self.deck):
                return
            board.extend(self.deck[next_card : next_card + 3])
            next_card += 3

    def play(self, out: TextIO | None = None) -> tuple[int, list[tuple[Card, Card, Card]]]:
        """Play the whole game aloud: print each board and each set taken; return what
        :meth:`play_quiet` returns."""
        out = out or sys.stdout
        size = len(self.deck)
        out.write(f"Set solitaire: {size} cards, seed {self.seed}.\n")
        sets = []
        for turn in self.turns():
            out.write(f"\nBoard: {len(turn.board)} cards, {turn.deck_left} left in the deck.\n")
            self.display_cards(turn.board, out=out)
            if turn.taken is not None:
                sets.append(turn.taken)
                out.write(f"Set! {', '.join(card.phrase for card in turn.taken)}.\n")
            elif turn.deck_left:
                out.write("No set here: dealing 3 more cards.\n")
            else:
                out.write("No set here and the deck is empty: the game is over.\n")
        left = size - 3 * len(sets)
        out.write(f"\nSets discovered: {len(sets)}. Cards left on the table: {left}.\n")
        return len(sets), sets

    @staticmethod
    def display_cards(cards: Iterable[Card], out: TextIO | None = None) -> None:
        """Print cards one per line, numbered, as people say them (``two purple striped ovals``)."""
        out = out or sys.stdout
        for number, card in enumerate(cards, start=1):
            out.write(f"  {number:2d}. {card.phrase}\n")
