"""What every part of the Set table shares: its one exception, its clocks and its messages."""

from __future__ import annotations

from cards.engine.errors import SetError

__all__ = [
    "AWAY_MS",
    "BAD_NAME",
    "BAD_PICK",
    "DECLARE_MS",
    "MAX_CLOCK_MS",
    "PENALTY_POINTS",
    "SET_POINTS",
    "START_MS",
    "TableError",
]

#: How long a declarer has to pick three cards (§4).
DECLARE_MS = 5000
#: How long without any request before a player is away (§7).
AWAY_MS = 60_000
#: The longest ``declare_ms`` or ``away_ms`` a table may be given: one day. A deadline is
#: ``now + declare_ms`` (or ``last_seen + away_ms``) in Unix ms, stored in a 64-bit column, so an
#: unbounded option would overflow the database on the first move.
MAX_CLOCK_MS = 86_400_000
#: How long after a player starts a waiting table its cards are dealt: a countdown everyone sees.
START_MS = 3000
#: Points for a correct set and for a wrong one or a timeout (§5).
SET_POINTS = 10
PENALTY_POINTS = 5

#: The protocol's error messages that the engine raises too (§10).
BAD_NAME = "Your player name ID contains non-alphanumeric characters."
BAD_PICK = "Your requested pick was not valid."


class TableError(SetError):
    """Refuse an action or an option that the table's rules do not allow.

    ``str(error)`` is a sentence for a person; ``code`` is a short machine reason (``bad_pick``,
    ``bad_action``, ``bad_option``, ``bad_player``, ``not_seated``, ``locked_out``,
    ``just_taken``, ``not_on_board``, ``bad_claim``, ``game_over``, ``bad_state``,
    ``not_started``, ``already_started``, ``not_host``, ``not_away``; a practice table's ``paused``,
    ``already_paused``, ``not_paused``).

    ``refusal`` says what kind of no it is, for a platform that answers in those terms:
    ``"conflict"`` for an action the table's moment refuses (before the deal, a second start),
    ``"forbidden"`` for a player who may not do it, ``"invalid"`` otherwise.
    """

    CONFLICTS = frozenset(
        {"not_started", "already_started", "paused", "already_paused", "not_paused", "not_away"}
    )
    FORBIDDEN = frozenset({"not_host"})

    def __init__(self, message: str, code: str = "bad_action") -> None:
        super().__init__(message)
        self.code = code

    @property
    def refusal(self) -> str:
        """Return ``"conflict"``, ``"forbidden"`` or ``"invalid"`` (see the class)."""
        if self.code in self.CONFLICTS:
            return "conflict"
        if self.code in self.FORBIDDEN:
            return "forbidden"
        return "invalid"
