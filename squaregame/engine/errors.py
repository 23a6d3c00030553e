"""The Square Game's one exception family.

Every error the engine raises is a :class:`SquareGameError` (a ``ValueError``), so a caller
can catch the whole family in one place and show the message to a person as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from squaregame.engine.state import Outcome, Reason


class SquareGameError(ValueError):
    """Report anything the Square Game engine refuses, in words a player can read."""


class IllegalMoveError(SquareGameError):
    """Report an action the rules refuse (status -1); the game state is unchanged.

    ``reason`` is the spec's reason id (e.g. ``Reason.CROSSING``) and ``outcome`` the full
    refused :class:`~squaregame.engine.state.Outcome`, so callers can answer with both.
    """

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome

    @property
    def reason(self) -> Reason | None:
        """Return why the action was refused (a spec reason id)."""
        return self.outcome.reason


class SaveFormatError(SquareGameError):
    """Report a saved game or test file that is not in the original JSON format."""
