"""The Square Game's one exception family.

Every error the engine raises is a :class:`SquareGameError` (a ``ValueError``), so a caller
can catch the whole family in one place and show the message to a person as it is. (A refused
move, `IllegalMoveError`, carries its `Outcome` and lives beside it in squaregame.engine.state.)
"""

from __future__ import annotations


class SquareGameError(ValueError):
    """Report anything the Square Game engine refuses, in words a player can read."""


class SaveFormatError(SquareGameError):
    """Report a saved game or test file that is not in the original JSON format."""
