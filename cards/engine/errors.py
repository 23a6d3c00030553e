"""The Set family's exceptions: every engine error is a :class:`SetError`, itself a ``ValueError``.

Messages are written for people: they name the bad input and say what was expected, so the
API, the protocol and the command line can show them as they are.
"""

from __future__ import annotations

__all__ = ["CardError", "RepeatedCardError", "SetError"]


class SetError(ValueError):
    """Base of every error raised by the Set engines (cards, rules, table, Set War)."""


class CardError(SetError):
    """A value that is not a card, or cards that do not belong to one deck.

    >>> from cards.engine import CardError, parse_card
    >>> try:
    ...     parse_card("FOUR/RED/SOLID/OVAL")
    ... except CardError as error:
    ...     print(error)
    'FOUR/RED/SOLID/OVAL' is not a card: 'FOUR' is not a number (ONE, TWO, THREE)
    """


class RepeatedCardError(SetError):
    """The same card given twice where a deck, a board or a set holds each card once."""
