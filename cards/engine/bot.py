"""A computer player for the Set table: what it would do now, in either rule set.

The computer plays through the same actions as a person; the platform decides *when* (after a
delay drawn around the seat's chosen speed), this module decides *what*. It looks at the board
as it is when its turn to think comes, so it can be beaten by a faster person.
"""

from __future__ import annotations

from cards.engine.table.codes import set_at, texts_of
from cards.engine.table.modes import MODES, find_claim
from cards.engine.table.state import ClassicState, DeclareState, ModeState, TableState


def set_table_actions(state: TableState, player: str) -> list[dict] | None:
    """Return the actions that take one set for ``player`` now, or None when there is nothing to do.

    Declare tables: declare, then pick the three cards (only when nobody else is declaring).
    Classic tables: claim the three cards at once (unless locked out); in another mode, the
    claim that mode asks for (`cards.engine.table.modes.find_claim`: four cards of an ultra,
    six of a GhostSet, a claim through the chain, a puzzle's claim not found yet).
    """
    if state.over or state.waiting:
        return None
    if state.practice is not None and state.practice.paused:
        return None  # a paused practice table: nothing to see, until its host resumes it
    if isinstance(state, DeclareState):
        declaring = state.declaring
        if declaring is not None and declaring.declarer != player:
            return None
        found = set_at(state.board_cards, state.attributes)
        if found is None:
            return None
        cols = state.cols
        picks = [{"type": "pick", "row": i // cols, "col": i % cols} for i in found]
        if declaring is None:
            return [{"type": "declare"}, *picks]
        # A declarer who already picked some cards starts again from a clean selection.
        unpick = [{"type": "pick", "row": r, "col": c} for r, c in declaring.picks]
        return unpick + picks
    assert isinstance(state, ClassicState)
    if player in state.locked or player not in state.scores:
        return None
    if isinstance(state, ModeState):
        cards = find_claim(
            state.mode, state.board, state.attributes, chain=state.chain, found=state.found
        )
        if cards is None:
            return None
        if MODES[state.mode].face_down:  # Memory: a claim names board places
            return [{"type": "claim", "positions": [state.board.index(card) for card in cards]}]
        return [{"type": "claim", "cards": texts_of(cards, state.attributes, state.base)}]
    found = set_at(state.board, state.attributes)
    if found is None:
        return None
    return [{"type": "claim", "cards": texts_of((state.board[i] for i in found), state.attributes)}]
