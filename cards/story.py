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
from cards.engine.table.modes import MODES, claim_why
from cards.engine.table.race import race_result
from cards.engine.table.shared import winners
from cards.engine.table.state import ClassicState, TableState

_NUMBERS = {3: "three", 4: "four", 6: "six"}


def _cells(texts, attributes: int, base: int = 3) -> list[dict]:
    """The cards of an outcome as a view's board cells ({card, digits, code})."""
    try:
        codes = codes_of(texts or (), attributes, base)
    except (SetError, ValueError, TypeError):
        return []
    cards = described(attributes, base)
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
    mode = options.get("mode", "normal")
    rules = MODES[mode if mode in MODES else "normal"]
    claim = rules.claim
    # A mode with a deck of its own (4Set Junior: 3 attributes of 4 values) names its cards so.
    attributes = rules.attributes or options.get("attributes", 4)
    base = rules.values
    noun = claim.a
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
                cards = _cells(event["cards"], attributes, base)
                at_override = event.get("at")
                add("add", "Three cards were added.", None, cards=cards, at_override=at_override)
        if outcome.get("joined") or (kind == "join" and "joined" not in outcome):
            add("join", f"{actor} joined the table.")
        if kind == "leave":
            add("leave", f"{actor} left the table.")
        if kind == "end_left":
            gone = outcome.get("left") or action.get("seat")
            add("leave", f"{gone} left the game ({actor} ended it there).")
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
                cards=_cells(outcome.get("cards"), attributes, base),
                points=outcome.get("points"),
            )
            if outcome.get("cleared"):  # a deck puzzle's board done: the next one is dealt
                cleared = outcome["cleared"]
                names = claim.name if cleared == 1 else f"{claim.name}s"
                add("clear", f"Board clear: {cleared} {names}", None)
        elif judged == "not_set":
            cards = outcome.get("cards") or []
            why = outcome.get("why")
            if why is None:  # logged before claims said why
                try:
                    why = claim_why(codes_of(cards, attributes, base), attributes, mode)
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
            add("wrong", text, cards=_cells(cards, attributes, base), why=list(why), points=points)
        if outcome.get("vote") == "recorded":
            add("vote", f"{actor} voted to add cards.")
        if outcome.get("added"):
            add("add", "Three cards were added.", None, cards=_cells(outcome["added"], attributes))
        if outcome.get("action") == "hint":
            unrated = " A hint makes this rated game unrated." if rated else ""
            hint = outcome.get("hint")
            if isinstance(hint, dict) and hint.get("card"):
                # A practice table's hint reveals one card more each time: all of them.
                shown = hint.get("cards") if isinstance(hint.get("cards"), list) else [hint]
                cards = _cells([card.get("card") for card in shown], attributes, base)
                add("hint", f"{actor} took a hint.{unrated}", cards=cards)
            elif "hint" in outcome:  # seen, and there was nothing to show
                add("hint", f"{actor} asked for a hint: there is none on the board.{unrated}")
            else:
                add("hint", f"{actor} took a hint.{unrated}")
        if outcome.get("action") in ("pause", "resume"):
            add(outcome["action"], f"{actor} {outcome['action']}d the game.")
        if outcome.get("action") == "show":
            show = outcome.get("show")
            what = "ultra" if mode == "ultra" else "set"
            if isinstance(show, dict) and show.get("sets"):
                count, total = len(show["sets"]), show.get("total")
                cards = _cells([card.get("card") for card in show["sets"][-1]], attributes)
                add("show", f"{actor} was shown {what} {count} of {total}.", cards=cards)
            elif "show" in outcome:  # seen, and there was nothing to show
                add("show", f"{actor} asked to be shown a {what}: there is none on the board.")
            else:
                add("show", f"{actor} asked to be shown a {what}.")
        if outcome.get("action") == "count" and isinstance(outcome.get("count"), int):
            count = outcome["count"]
            plural = claim.one if count == 1 else claim.many
            add("count", f"{actor} asked how many {claim.many} there are: {count} {plural}.")
        if outcome.get("over") and not ended:  # nothing is logged after the end
            ended = True
            add("end", _end_text(state, declare), None)
    for entry in entries:  # time's events happened at their own moment, before the move
        at = entry.pop("at_override", None)
        if at is not None:
            entry["at"] = at
    return entries


def _end_text(state: dict | None, declare: bool) -> str:
    """Say who won a finished table (its scores now; a race's winner and time)."""
    if state and "race" in state:
        told = _race_end_text(state)
        if told:
            return told
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


def _race_end_text(state: dict) -> str | None:
    """Say how a finished race ended: its winner (a tie of sets going to the earlier last set)
    and its time; None when it is unfinished or cannot be read."""
    try:
        typed = TableState.from_json(state)
    except SetError:
        return None
    result = race_result(typed) if isinstance(typed, ClassicState) else None
    if not result or not result["finished"] or result["winner"] is None:
        return None
    target = typed.race.target
    seconds = f"{result['ms'] / 1000:.2f} s"
    if len(typed.players) == 1:
        return f"Set-{target} race over: {result['winner']} found {target} sets in {seconds}."
    sets = typed.scores[result["winner"]]
    tied = [name for name in typed.players if typed.scores[name] == sets]
    tie = " (first to their last set)" if len(tied) > 1 else ""
    return (
        f"Set-{target} race over in {seconds}: {result['winner']} wins with {sets} "
        f"{'set' if sets == 1 else 'sets'}{tie}."
    )
