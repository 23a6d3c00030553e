"""The story of a Set table in words: what each logged move did, for the table's log.

`table_story` is the Set table's ``story`` hook (games.rules): the platform hands it the moves of
the log as the reader may see them (a hint's card withheld from everyone but its seat while the
game is played) and builds the entries (games.story). Each entry names its move's ``version``,
``at`` (epoch ms), ``type``, ``actor``, a ``text`` a person reads, and where it helps the
``cards`` (as a view's board cells), the ``why`` of a wrong claim and the ``points``.
"""

from __future__ import annotations

from typing import Any

from cards.engine.errors import SetError
from cards.engine.table.codes import codes_of, described
from cards.engine.table.modes import Mode, claim_why
from cards.engine.table.shared import winners

_NUMBERS = {3: "three", 4: "four"}


def _cells(texts, attributes: int) -> list[dict]:
    """The cards of an outcome as a view's board cells ({card, digits, code})."""
    try:
        codes = codes_of(texts or (), attributes)
    except (SetError, ValueError, TypeError):
        return []
    cards = described(attributes)
    return [dict(cards[code]) for code in codes]


def _points(value: int) -> str:
    sign = "+" if value > 0 else "−" if value < 0 else ""
    return f"{sign}{abs(value)} {'point' if abs(value) == 1 else 'points'}"


def table_story(
    options: dict,
    moves,
    *,
    viewer: str | None,
    over: bool,
    rated: bool = False,
    state: dict | None = None,
) -> list[dict]:
    """Tell each move of ``moves`` (``version, actor, action, outcome, at_ms``) in words.

    ``state`` is the table now, for the end's winners; ``rated`` adds to a hint that it makes
    the game unrated. ``viewer`` and ``over`` are how the moves were shown (the platform has
    already withheld what the reader may not see).
    """
    attributes = options.get("attributes", 4)
    mode = options.get("mode", "normal")
    noun = "an ultra" if mode == "ultra" else "a set"
    declare = options.get("rules", "declare") == "declare"
    entries: list[dict] = []
    ended = False
    for version, actor, action, outcome, at in moves:
        kind = action.get("type") if isinstance(action, dict) else None
        if not isinstance(outcome, dict):
            outcome = {}

        def add(
            type_: str,
            text: str,
            who: str | None = actor or None,
            *,
            _version: int = version,
            _at: int = at,
            **more: Any,
        ) -> None:
            entry = {"version": _version, "at": _at, "type": type_, "actor": who, "text": text}
            entries.append({**entry, **more})

        for event in outcome.get("expired") or ():
            if event.get("kind") == "timeout":
                delta = event.get("delta", 0)
                lost = f": {_points(delta)}" if delta else "; the score stays at 0"
                add(
                    "timeout",
                    f"{event.get('player')} ran out of time to pick a set{lost}.",
                    event.get("player"),
                    points=delta,
                    at_override=event.get("at"),
                )
            elif event.get("kind") == "dealt":  # a waiting table's countdown ended
                add("start", "The cards are dealt.", None, at_override=event.get("at"))
            elif event.get("cards"):
                cards = _cells(event["cards"], attributes)
                at_override = event.get("at")
                add("add", "Three cards were added.", None, cards=cards, at_override=at_override)
        if outcome.get("joined") or (kind == "join" and "joined" not in outcome):
            add("join", f"{actor} joined the table.")
        if kind == "leave":
            add("leave", f"{actor} left the table.")
        if kind == "start" or outcome.get("action") == "start":
            starts = outcome.get("starts_ms")
            soon = ""
            if isinstance(starts, int) and starts > at:
                seconds = round((starts - at) / 1000)
                soon = (
                    f": the cards are dealt in {seconds} {'second' if seconds == 1 else 'seconds'}"
                )
            add("start", f"{actor} pressed Start{soon}." if actor else "The game starts.")
        if kind == "tick" and any(outcome.get(key) for key in ("deal", "dealt", "started")):
            add("start", "The cards are dealt.", None)
        if outcome.get("declare") == "declarer":
            add("declare", f"{actor} declared a set.")
        judged = outcome.get("claim") or outcome.get("pick")
        if judged == "set":
            hinted = " with a hint" if outcome.get("hinted") else ""
            add(
                "set",
                f"{actor} found {noun}{hinted}.",
                cards=_cells(outcome.get("cards"), attributes),
                points=outcome.get("points"),
            )
        elif judged == "not_set":
            cards = outcome.get("cards") or []
            why = outcome.get("why")
            if why is None:  # logged before claims said why
                try:
                    why = claim_why(codes_of(cards, attributes), attributes, Mode(mode))
                except (SetError, ValueError, TypeError):
                    why = []
            size = _NUMBERS.get(len(cards), str(len(cards)))
            if declare:
                points = outcome.get("delta", outcome.get("points", 0))
                cost = f": {_points(points)}" if points else "; the score stays at 0"
                text = f"{actor} picked {size} cards that are not {noun}{cost}."
            else:
                points = outcome.get("points") or 0
                locked = f" {actor} is locked out." if outcome.get("locked_out") else ""
                text = f"{actor} claimed {size} cards that are not {noun}.{locked}"
            add("wrong", text, cards=_cells(cards, attributes), why=list(why), points=points)
        if outcome.get("vote") == "recorded":
            add("vote", f"{actor} voted to add cards.")
        if outcome.get("added"):
            add("add", "Three cards were added.", None, cards=_cells(outcome["added"], attributes))
        if outcome.get("action") == "hint":
            unrated = " A hint makes this rated game unrated." if rated else ""
            hint = outcome.get("hint")
            if isinstance(hint, dict) and hint.get("card"):
                cards = _cells([hint["card"]], attributes)
                add("hint", f"{actor} took a hint.{unrated}", cards=cards)
            elif "hint" in outcome:  # seen, and there was nothing to show
                add("hint", f"{actor} asked for a hint: there is none on the board.{unrated}")
            else:
                add("hint", f"{actor} took a hint.{unrated}")
        if outcome.get("action") == "count" and isinstance(outcome.get("count"), int):
            count = outcome["count"]
            what = "ultra" if mode == "ultra" else "set"
            plural = what if count == 1 else f"{what}s"
            add("count", f"{actor} asked how many {what}s there are: {count} {plural}.")
        if outcome.get("over") and not ended:  # nothing is logged after the end
            ended = True
            add("end", _end_text(state, declare), None)
    for entry in entries:  # time's events happened at their own moment, before the move
        at = entry.pop("at_override", None)
        if at is not None:
            entry["at"] = at
    return entries


def _end_text(state: dict | None, declare: bool) -> str:
    """Say who won a finished table (its scores now)."""
    scores = (state or {}).get("scores") or {}
    best = winners(scores)
    if not best:
        return "The game is over."
    score = scores[best[0]]
    unit = ("point" if score == 1 else "points") if declare else ("set" if score == 1 else "sets")
    if len(best) == 1:
        return f"The game is over: {best[0]} wins with {score} {unit}."
    names = ", ".join(best[:-1]) + f" and {best[-1]}"
    return f"The game is over: {names} share the win with {score} {unit}."
