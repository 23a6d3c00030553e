"""A computer player for the Set table: what it would do now, in either rule set.

The computer plays through the same actions as a person; the platform decides *when* (after a
delay drawn around the seat's chosen speed), this module decides *what*. It looks at the board
as it is when its turn to think comes, so it can be beaten by a faster person.
"""

from __future__ import annotations

from cards.engine.table import find_set_in


def set_table_actions(state: dict, player: str) -> list[dict] | None:
    """Return the actions that take one set for ``player`` now, or None when there is nothing to do.

    Declare tables: declare, then pick the three cards (only when nobody else is declaring).
    Classic tables: claim the three cards at once (unless locked out).
    """
    if state.get("over"):
        return None
    if state["rules"] == "declare":
        if state["declarer"] not in (None, player):
            return None
        cells = [[r, c] for r, row in enumerate(state["board"]) for c in range(len(row))]
        cards = [text for row in state["board"] for text in row]
        found = find_set_in(cards, state["attributes"])
        if found is None:
            return None
        picks = [{"type": "pick", "row": cells[i][0], "col": cells[i][1]} for i in found]
        # A declarer who already picked some cards starts again from a clean selection.
        unpick = [{"type": "pick", "row": r, "col": c} for r, c in state["picks"]]
        declare = [] if state["declarer"] == player else [{"type": "declare"}]
        return declare + unpick + picks
    if player in state.get("locked", ()) or player not in state["scores"]:
        return None
    found = find_set_in(state["board"], state["attributes"])
    if found is None:
        return None
    return [{"type": "claim", "cards": [state["board"][i] for i in found]}]
