"""What a classic table played in another mode adds to the card game's rules
(`cards.engine.classic`): its options, how it finds and counts a claim, what a hint is about,
and what its view shows. The modes themselves are `cards.engine.table.modes`.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import Any

from cards.engine.table.base import TableError
from cards.engine.table.codes import code_of, count_sets
from cards.engine.table.modes import (
    PUZZLE_BOARD,
    PUZZLE_SETS,
    Mode,
    claim_size,
    count_claims,
    find_claim,
)
from cards.engine.table.shared import Claims, clean_deck
from cards.engine.table.state import ClassicState, ModeState

__all__ = [
    "CARD_NUMBERS",
    "CLAIM_WORDS",
    "NOTHING",
    "Finder",
    "claims_count",
    "claims_of",
    "finder",
    "mode_option",
    "mode_view",
    "puzzle_options",
]

#: A claim in words (an ultra, or a set) and the number of cards it names.
CLAIM_WORDS = {
    True: {"one": "ultra", "a": "an ultra", "many": "ultras"},
    False: {"one": "set", "a": "a set", "many": "sets"},
}
CARD_NUMBERS = {3: "three", 4: "four"}

#: Finds one claim possible on a board, or None.
Finder = Callable[[Sequence[int]], "tuple[int, ...] | None"]


def finder(
    mode: Mode, attributes: int, chain: Sequence[int] = (), found: Sequence[tuple] = ()
) -> Finder:
    """Return how a table in ``mode`` finds a claim on a board (its chain and found sets as
    given)."""
    return lambda board: find_claim(mode, board, attributes, chain=chain, found=found)


NOTHING = {
    Mode.ULTRA: "There is no ultra on the board.",
    Mode.CHAIN: "There is no set through the chain.",
    Mode.PUZZLE: "Every set on the board has been found.",
}


def claims_of(state: ModeState) -> Claims:
    """Say what a claim is at ``state``'s table, for hints."""
    board, chain = state.board, state.chain
    if state.mode == Mode.CHAIN and chain:

        def is_open(cards: tuple[int, ...]) -> bool:
            return cards[-1] in chain and all(card in board for card in cards[:-1])

    elif state.mode == Mode.PUZZLE:

        def is_open(cards: tuple[int, ...]) -> bool:
            return tuple(sorted(cards)) not in state.found

    else:

        def is_open(cards: tuple[int, ...]) -> bool:
            return all(card in board for card in cards)

    ultra = state.mode == Mode.ULTRA
    return Claims(
        find=lambda: finder(state.mode, state.attributes, chain, state.found)(board),
        is_open=is_open,
        noun="an ultra" if ultra else "a set",
        nothing=NOTHING.get(
            Mode.CHAIN if state.mode == Mode.CHAIN and chain else state.mode,
            "There is no set on the board.",
        ),
    )


def mode_option(options: dict) -> Mode:
    """Return the table's mode option (normal when absent), refusing an unknown one."""
    value = options.get("mode", Mode.NORMAL)
    if not isinstance(value, str) or value not in Mode.__members__.values():
        names = ", ".join(mode.value for mode in Mode)
        message = f"The mode option must be one of {names}; got {value!r:.60}."
        raise TableError(message, "bad_option")
    return Mode(value)


def puzzle_options(options: dict, attributes: int) -> dict[str, Any]:
    """Return a puzzle's own options checked: its ``day`` (an ISO date) or its ``deck`` (12
    cards holding exactly 6 sets), not both, and no ``board_size`` (a puzzle's board is 12)."""
    if "board_size" in options:
        raise TableError(
            f"A puzzle's board is always {PUZZLE_BOARD} cards: leave out board_size.", "bad_option"
        )
    if "day" in options and "deck" in options:
        raise TableError("A puzzle is dealt from its day or its deck, not both.", "bad_option")
    if "day" in options:
        day = options["day"]
        try:
            parsed = datetime.date.fromisoformat(day) if isinstance(day, str) else None
        except ValueError:
            parsed = None
        if parsed is None or len(day) != 10:
            raise TableError(
                f"The day option is a date like 2026-11-25; got {day!r:.60}.", "bad_option"
            )
        return {"day": parsed.isoformat()}
    if "deck" not in options:
        return {}
    deck = clean_deck(options["deck"], attributes, PUZZLE_BOARD)
    codes = [code_of(card, attributes) for card in deck]
    if len(codes) != PUZZLE_BOARD or count_sets(codes, attributes) != PUZZLE_SETS:
        raise TableError(
            f"A puzzle's deck is its board: {PUZZLE_BOARD} cards holding exactly {PUZZLE_SETS} "
            f"sets; this one has {len(codes)} cards and {count_sets(codes, attributes)} sets.",
            "bad_option",
        )
    return {"deck": deck}


def claims_count(state: ClassicState) -> int:
    """Return how many claims the board holds now (the "How many?" help)."""
    if isinstance(state, ModeState):
        return count_claims(
            state.mode, state.board, state.attributes, chain=state.chain, found=state.found
        )
    return count_sets(state.board, state.attributes)


def mode_view(state: ModeState, cards: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """Return what a view shows of a table in another mode: the mode, how many cards a claim
    names, a chain table's chain and a puzzle's sets found and to find."""
    size = claim_size(state.mode)
    view: dict[str, Any] = {
        "mode": state.mode.value,
        "claim_size": size,
        # How pages name a claim, and how many cards it names, in words.
        "claim_words": {**CLAIM_WORDS[state.mode == Mode.ULTRA], "cards": CARD_NUMBERS[size]},
    }
    if state.mode == Mode.CHAIN:
        view["chain"] = [{**cards[card], "position": None} for card in state.chain]
    if state.mode == Mode.PUZZLE:
        view["found"] = [[cards[card]["card"] for card in found] for found in state.found]
        view["sets_total"] = count_sets(state.board, state.attributes)
        view["started_ms"] = state.started_ms
        view["elapsed_ms"] = (
            None
            if state.ended_ms is None or state.started_ms is None
            else state.ended_ms - state.started_ms
        )
        view["wrong"] = {name: tally.wrong for name, tally in state.tally.items()}
    return view
