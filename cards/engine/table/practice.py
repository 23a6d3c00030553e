"""Practice: a classic table for learners and classrooms, with a pause, hints without end and
"show me" (`cards.engine.classic` calls these; the state is `cards.engine.table.state.Practice`).

The rules (this project's, after the fork's practice mode, ``specs/set-modes.md`` §5):

- **The option** ``practice`` (true or false) of a classic table, in any mode. The platform
  keeps a practice table private and unrated.
- **Pause and resume** (``{"type": "pause"}``, ``{"type": "resume"}``): only the table's host,
  its first player, may (``not_host``). Pausing a paused table (``already_paused``) or resuming a
  running one (``not_paused``) is refused and changes nothing. While paused the board is hidden
  from every view (no card is sent), and claims, hints, counts and "show me" are refused ("The
  game is paused.", ``paused``). The time paused is kept in the state (``paused_at``,
  ``paused_ms``), so the view's ``elapsed_ms`` stands still while paused and never counts it.
- **Hints**: each press reveals one more card of the same claim, up to its size (3, or 4 for an
  ultra); the count starts again at any claim at the table.
- **Show me** (``{"type": "show"}``): each press draws one more of the board's claims (sets, or
  the mode's claims), in a fixed order, until all are shown; it too starts again at any claim.

>>> from cards.engine.classic import ClassicRules
>>> state = ClassicRules.new_state(options={"practice": True, "attributes": 3}, seed=2, now_ms=0)
>>> state = ClassicRules.apply(state, "ann", {"type": "join"}, 0).state
>>> state = ClassicRules.apply(state, "ann", {"type": "pause"}, 1000).state
>>> view = ClassicRules.view(state, "ann", 61_000)
>>> view["paused"], view["elapsed_ms"], view["board"]
(True, 1000, [])
>>> state = ClassicRules.apply(state, "ann", {"type": "resume"}, 61_000).state
>>> ClassicRules.view(state, "ann", 62_000)["elapsed_ms"]
2000
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cards.engine.fast import all_sets_codes
from cards.engine.table.base import TableError
from cards.engine.table.codes import text_of
from cards.engine.table.modes import MODES, claims_now
from cards.engine.table.shared import Claims, record_hint
from cards.engine.table.state import ClassicState, ModeState, Practice, TableState, with_entry

__all__ = [
    "PAUSED",
    "PRACTICE_ACTIONS",
    "board_claims",
    "elapsed_ms",
    "pause_table",
    "practice_actions",
    "practice_claimed",
    "practice_hint",
    "practice_option",
    "practice_seat_view",
    "practice_view",
    "refuse_while_paused",
    "show_claim",
]

#: The actions only a practice table knows.
PRACTICE_ACTIONS = ("pause", "resume", "show")
#: What a move that needs the cards is told while the table is paused.
PAUSED = "The game is paused."
#: The actions a paused table refuses: each needs the cards.
_NEEDS_CARDS = frozenset({"claim", "hint", "count", "show"})


def practice_option(options: dict) -> bool:
    """Return the ``practice`` option (False when absent), refusing anything but a boolean.

    >>> practice_option({}), practice_option({"practice": True})
    (False, True)
    """
    value = options.get("practice", False)
    if not isinstance(value, bool):
        raise TableError(
            f"The practice option must be true or false; got {value!r:.60}.", "bad_option"
        )
    return value


def practice_actions(
    state: TableState, action: object, actions: tuple[str, ...]
) -> tuple[str, ...]:
    """Return the actions ``state``'s table knows: ``actions``, and a practice table's own too.
    Refuse a practice table's action anywhere else with a sentence that says why."""
    if state.practice is not None:
        return (*actions, *PRACTICE_ACTIONS)
    kind = action.get("type") if isinstance(action, dict) else None
    if kind in ("pause", "resume"):
        verb = "paused" if kind == "pause" else "resumed"
        raise TableError(f"Only a practice table can be {verb}.", "bad_action")
    if kind == "show":
        raise TableError('"Show me" is for practice tables.', "bad_action")
    return actions


def refuse_while_paused(state: TableState, kind: str) -> None:
    """Refuse an action that needs the cards while the table is paused (``paused``)."""
    if state.practice is not None and state.practice.paused and kind in _NEEDS_CARDS:
        raise TableError(PAUSED, "paused")


def pause_table(state: TableState, player: str, kind: str, now_ms: int) -> tuple[TableState, dict]:
    """Pause (``kind`` "pause") or resume the table for ``player``; return the new state and
    the outcome. Refuse anyone but the host, a table that is not a practice table, one over,
    and a pause of a paused table or a resume of a running one."""
    practice = state.practice
    assert practice is not None  # practice_actions refused it at any other table
    if state.over:
        raise TableError("The game is over.", "game_over")
    if player not in state.scores:
        raise TableError("Join the table first.", "not_seated")
    host = state.players[0]
    if player != host:
        raise TableError(f"Only {host}, who made the table, can {kind} the game.", "not_host")
    if kind == "pause":
        if practice.paused:
            raise TableError("The game is paused already.", "already_paused")
        changed = Practice(now_ms, practice.paused_ms, practice.hints, practice.shown)
    else:
        if not practice.paused:
            raise TableError("The game is not paused.", "not_paused")
        paused_for = max(now_ms - practice.paused_at, 0)  # type: ignore[operator]
        changed = Practice(None, practice.paused_ms + paused_for, practice.hints, practice.shown)
    return state.evolve(practice=changed), {"action": kind, "paused": changed.paused}


def elapsed_ms(state: TableState, now_ms: int) -> int | None:
    """Return the game's time at ``now_ms`` without the time paused: from the deal to the end
    (or to now), less every pause (a pause going on counts up to now); None before the deal.

    >>> from cards.engine.classic import ClassicRules
    >>> state = ClassicRules.new_state(options={"practice": True}, seed=1, now_ms=500)
    >>> elapsed_ms(state, 2500)
    2000
    """
    started = state.started_ms
    if started is None:
        return None
    end = state.ended_ms if state.ended_ms is not None else now_ms
    practice = state.practice
    paused = 0
    if practice is not None:
        paused = practice.paused_ms
        if practice.paused_at is not None:
            paused += max(end - practice.paused_at, 0)
    return max(end - started - paused, 0)


def practice_claimed(state: ClassicState) -> ClassicState:
    """Return the state after a claim at a practice table: every hint and "show me" count
    starts again (the same state when none was taken)."""
    practice = state.practice
    if practice is None or (not practice.hints and not practice.shown):
        return state
    return state.evolve(practice=Practice(practice.paused_at, practice.paused_ms))


def practice_hint(
    state: ClassicState, player: str, positions: Sequence[Any], claims: Claims | None
) -> tuple[ClassicState, dict]:
    """Reveal one more card of a claim to ``player`` (the first press: one card of a claim, as
    every hint; each later press one more of the same claim, up to its size)."""
    practice = state.practice
    assert practice is not None
    board = state.board
    count = practice.hints.get(player, 0)
    hint = state.hints.get(player)
    if (
        count
        and hint is not None
        and (claims.is_open(hint.set) if claims else all(card in board for card in hint.set))
    ):
        count = min(count + 1, len(hint.set))
    else:
        state, outcome = record_hint(state, player, board, positions, claim=claims)
        if outcome["hint"] is None:
            return state, outcome
        hint, count = state.hints[player], 1
        practice = state.practice
    state = state.evolve(
        practice=Practice(
            practice.paused_at,
            practice.paused_ms,
            with_entry(practice.hints, player, count),
            practice.shown,
        )
    )
    cards = _placed(state, hint.set[:count], positions)
    noun = claims.noun if claims else "a set"
    shown = ", ".join(card["card"] for card in cards)
    return state, {
        "hint": {**cards[0], "cards": cards},
        "message": f"{count} of the {len(hint.set)} cards of {noun} on the board: {shown}.",
    }


def board_claims(state: ClassicState) -> list[tuple[int, ...]]:
    """Return every claim possible on the board now, each once, in a fixed order: its sets (a
    mode's own claims: ultras, ghostsets, claims through the chain, a puzzle's not found yet)."""
    board, attributes = state.board, state.attributes
    if isinstance(state, ModeState):
        seen: dict[frozenset, tuple[int, ...]] = {}
        found = claims_now(state.mode, board, attributes, chain=state.chain, found=state.found)
        for cards in found:
            seen.setdefault(frozenset(cards), cards)
        return list(seen.values())
    return list(all_sets_codes(board, attributes))


def show_claim(
    state: ClassicState, player: str, positions: Sequence[Any]
) -> tuple[ClassicState, dict]:
    """Draw one more of the board's claims for ``player`` ("show me"), until all are shown."""
    practice = state.practice
    assert practice is not None
    claims = board_claims(state)
    noun = MODES[state.mode].claim.one if isinstance(state, ModeState) else "set"
    if not claims:
        return state, {"show": None, "message": f"There is no {noun} on the board."}
    count = min(practice.shown.get(player, 0) + 1, len(claims))
    if count != practice.shown.get(player):
        state = state.evolve(
            practice=Practice(
                practice.paused_at,
                practice.paused_ms,
                practice.hints,
                with_entry(practice.shown, player, count),
            )
        )
    shown = _show_view(state, player, positions)
    total = len(claims)
    message = (
        f"{noun.capitalize()} {count} of {total} on the board: "
        + ", ".join(card["card"] for card in shown["sets"][-1])
        + "."
    )
    return state, {"show": shown, "message": message}


def _show_view(state: ClassicState, player: str, positions: Sequence[Any]) -> dict | None:
    """Return the claims "show me" has drawn for ``player`` (first first) and how many the board
    holds, or None when none is drawn."""
    practice = state.practice
    count = practice.shown.get(player, 0) if practice is not None else 0
    if not count:
        return None
    claims = board_claims(state)
    return {
        "sets": [_placed(state, cards, positions) for cards in claims[:count]],
        "total": len(claims),
    }


def _placed(state: ClassicState, cards: Sequence[int], positions: Sequence[Any]) -> list[dict]:
    """Return each card's text and board position (None: a chain card, off the board)."""
    board = state.board
    return [
        {
            "card": text_of(card, state.attributes, state.base),
            "position": positions[board.index(card)] if card in board else None,
        }
        for card in cards
    ]


def practice_seat_view(
    state: ClassicState, player: str | None, positions: Sequence[Any], claims: Claims | None
) -> dict[str, Any]:
    """Return the fields of a practice table's view that are the viewer's own: ``hint`` (the
    cards revealed so far: ``card`` and ``position`` of the first, and ``cards``), ``show`` (the
    claims drawn by "show me") and ``may_pause`` (whether the viewer may pause and resume: the
    host). While paused, neither hint nor show: no card is sent."""
    practice = state.practice
    assert practice is not None
    may_pause = player is not None and bool(state.players) and player == state.players[0]
    if player is None or practice.paused:
        return {"hint": None, "show": None, "may_pause": may_pause}
    hint = state.hints.get(player)
    count = practice.hints.get(player, 0)
    open_ = hint is not None and (
        claims.is_open(hint.set) if claims else all(card in state.board for card in hint.set)
    )
    shown_hint = None
    if open_ and hint is not None:
        cards = _placed(state, hint.set[: max(count, 1)], positions)
        shown_hint = {**cards[0], "cards": cards}
    return {
        "hint": shown_hint,
        "show": _show_view(state, player, positions),
        "may_pause": may_pause,
    }


def practice_view(state: ClassicState, now_ms: int, view: dict[str, Any]) -> dict[str, Any]:
    """Return what a practice table's ``view`` changes for everyone: ``practice`` (true),
    ``paused``, ``paused_ms`` (time paused so far) and ``elapsed_ms`` (the game's time without
    it); while paused, an empty board (``board``, ``cols``, and the chain's ``chain`` and a
    puzzle's ``found`` that ``view`` has hold no card) so that no view, stream or socket sends a
    card."""
    practice = state.practice
    assert practice is not None
    paused_ms = practice.paused_ms
    if practice.paused_at is not None:
        paused_ms += max(now_ms - practice.paused_at, 0)
    fields: dict[str, Any] = {
        "practice": True,
        "paused": practice.paused,
        "paused_at": practice.paused_at,
        "paused_ms": paused_ms,
        "elapsed_ms": elapsed_ms(state, now_ms),
    }
    if practice.paused:
        fields.update(board=[], cols=0)
        fields.update((key, []) for key in ("chain", "found") if key in view)
    return fields
