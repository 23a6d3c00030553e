"""Memory: a classic table whose board lies face down (spec set-modes.md §4.16).

The rules are Normal's on a 21-card board. What Memory adds is who sees which card:

- **The board is hidden from everyone while the game is played**, players and watchers alike:
  a view's board names each place (``position``, ``row``, ``col``) with ``"face_down": true``
  and no card (`hidden_board`). The state itself is never shown while a game is played (the
  platform leaves a running game's state and seed out of every export), so nothing else tells.
- **A player turns a card up for themselves alone** with ``{"type": "reveal", "position": i}``
  (`reveal`). Its outcome names the card (``card``, its text, and ``digits``); those fields are
  private to the player's seat until the game is over (`PRIVATE_FIELDS`, read by the Set kind's
  ``private_fields``), so the log, the sockets, the story and the exports of a running game show
  everyone else only that a card was turned up, and where. A reveal changes nothing at the
  table: which cards a browser holds up is that browser's (the page keeps them, a turned card
  cannot be turned down, any claim by anyone turns them all down).
- **A claim names board places**: ``{"type": "claim", "positions": [i, j, k]}``
  (`claimed_cards`; any classic table takes it). A Memory claim naming cards is refused
  (`CLAIM_BY_PLACES`): with no penalty for a wrong claim, naming cards would find the sets of a
  board nobody has turned up. A Set scores and leaves face up for everyone
  (the claim's outcome names its cards), the new cards come face down. A claim that is not a
  Set is refused, ``Not a Set``, with no penalty and no lockout: nothing changes (`NOT_A_SET`).
- A view of a Memory table says ``last_set``: the cards of the last set found, which left the
  board face up for everyone.
- Once the game is over, every view, replay and export shows everything.
"""

from __future__ import annotations

from typing import Any

from cards.engine.table.base import TableError
from cards.engine.table.codes import described

__all__ = [
    "CLAIM_BY_PLACES",
    "NOT_A_SET",
    "PRIVATE_FIELDS",
    "claimed_cards",
    "hidden_board",
    "reveal_outcome",
]

#: What a refused Memory claim says (the fork's words).
NOT_A_SET = "Not a Set"
#: Why a Memory claim that names cards is refused: a client could find the face-down board's
#: sets by naming cards (a wrong claim costs nothing there).
CLAIM_BY_PLACES = (
    'At a Memory table a claim names the board positions of its cards: {"type": "claim", '
    '"positions": [i, j, k]}.'
)
#: The fields of a reveal's outcome that only the revealing seat reads while the game is played.
PRIVATE_FIELDS = ("card", "digits")


def hidden_board(count: int) -> list[dict[str, Any]]:
    """Return a face-down board of ``count`` places as a view draws it: no card anywhere.

    >>> hidden_board(4)[3]
    {'position': 3, 'row': 0, 'col': 1, 'face_down': True}
    """
    return [{"position": i, "row": i % 3, "col": i // 3, "face_down": True} for i in range(count)]


def _position(value: Any, board: tuple[int, ...]) -> int:
    if type(value) is not int or not 0 <= value < len(board):
        raise TableError(
            f"A position is a whole number from 0 to {len(board) - 1}; got {value!r:.40}.",
            "bad_pick",
        )
    return value


def reveal_outcome(
    board: tuple[int, ...], action: dict, attributes: int, base: int = 3
) -> dict[str, Any]:
    """Return what turning up the card at ``action["position"]`` tells its player: the place,
    and the card (its text, digits and phrase); refuse a place off the board.

    >>> reveal_outcome((5, 7), {"type": "reveal", "position": 1}, 4)
    {'action': 'reveal', 'position': 1, 'card': 'ONE/RED/OPEN/SQUIGGLE', 'digits': '0021'}
    """
    if "position" not in action:
        raise TableError("A reveal names the position of a card on the board.", "bad_pick")
    position = _position(action["position"], board)
    card = described(attributes, base)[board[position]]
    return {
        "action": "reveal",
        "position": position,
        "card": card["card"],
        "digits": card["digits"],
    }


def claimed_cards(board: tuple[int, ...], action: dict, size: int) -> tuple[int, ...]:
    """Return the cards at a claim's ``positions`` (distinct places on the board).

    >>> claimed_cards((10, 11, 12, 13), {"type": "claim", "positions": [3, 0, 1]}, 3)
    (13, 10, 11)
    """
    positions = action.get("positions")
    if not isinstance(positions, list | tuple) or len(positions) != size:
        raise TableError(f"A claim names exactly {size} positions on the board.", "bad_claim")
    places = [_position(value, board) for value in positions]
    if len(set(places)) != size:
        raise TableError(f"A claim names {size} different positions.", "bad_claim")
    return tuple(board[i] for i in places)
