"""The story of a Square Game in words: joins, the opening, placements, passes and the end.

`game_story` is the Square Game's ``story`` hook (games.rules); the platform builds the table
log's entries from what it says of each logged move.
"""

from __future__ import annotations


def _squares(count: int) -> str:
    return f"{count} {'square' if count == 1 else 'squares'}"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def game_story(
    options: dict,
    moves,
    *,
    viewer: str | None,
    over: bool,
    rated: bool = False,
    state: dict | None = None,
) -> list[dict]:
    """Tell each move of ``moves`` (``version, actor, action, outcome, at_ms``) in words.

    >>> moves = [
    ...     (1, "ann", {"type": "join"}, {"seat": 1, "name": "ann", "started": False}, 10),
    ...     (2, "bo", {"type": "join"}, {"seat": 2, "name": "bo", "started": True}, 20),
    ...     (3, "bo", {"type": "opening", "piece": 13, "permutation": 4},
    ...      {"status": 2, "squares": [], "over": False}, 30),
    ... ]
    >>> [entry["text"] for entry in game_story({"players": 2}, moves, viewer=None, over=False)]
    ['ann joined (seat 1).', 'bo joined (seat 2).', 'Every seat is taken: the game begins.', \
'bo opened with piece 13.']
    """
    entries: list[dict] = []
    for version, actor, action, outcome, at in moves:
        kind = action.get("type") if isinstance(action, dict) else None
        outcome = outcome if isinstance(outcome, dict) else {}
        done = outcome.get("action")
        if kind == "place" and isinstance(done, dict) and done.get("type") == "opening":
            kind = "opening"  # the first placement is the opening, however it was sent
        told: list[tuple[str, str, str | None, dict]] = []
        if kind == "join":
            seat = outcome.get("seat")
            told.append(("join", f"{actor} joined (seat {seat}).", actor, {}))
            if outcome.get("started"):
                told.append(("start", "Every seat is taken: the game begins.", None, {}))
        elif kind == "leave":
            told.append(("leave", f"{actor} left the game.", actor, {}))
        elif kind in ("opening", "place"):
            squares = len(outcome.get("squares") or ())
            piece = action.get("piece")
            if kind == "opening":
                text = f"{actor} opened with piece {piece}."
            else:
                text = f"{actor} placed piece {piece} at ({action.get('x')}, {action.get('y')})"
                text += f" and closed {_squares(squares)}." if squares else "."
            if outcome.get("status") == 1:
                text += f" {actor} moves again."
            elif outcome.get("status") == 3:
                text += f" {actor} emptied their hand: the final round begins."
            told.append(("place", text, actor, {"points": squares or None}))
        elif kind == "pass":
            told.append(("pass", f"{actor} passed.", actor, {}))
        elif kind == "end_left":
            gone = outcome.get("left") or action.get("seat")
            told.append(("leave", f"{gone} left the game ({actor} ended it there).", actor, {}))
        if outcome.get("over"):
            winners = [name for name in outcome.get("winner_names") or () if name]
            if winners:
                verb = "wins" if len(winners) == 1 else "win"
                text = f"The game is over: {_names(winners)} {verb}."
            else:
                text = "The game is over."
            told.append(("end", text, None, {}))
        for type_, text, who, more in told:
            entries.append(
                {"version": version, "at": at, "type": type_, "actor": who, "text": text, **more}
            )
    return entries
