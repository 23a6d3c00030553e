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
    MODES,
    PUZZLE_BOARD,
    PUZZLE_SETS,
    Mode,
    ModeRules,
    count_claims,
    find_claim,
)
from cards.engine.table.shared import Claims, clean_deck, option_int
from cards.engine.table.state import ClassicState, ModeState

__all__ = [
    "CARD_NUMBERS",
    "Finder",
    "claims_count",
    "claims_of",
    "finder",
    "fork_options",
    "mode_option",
    "mode_view",
    "puzzle_options",
]

#: The number of cards a claim names, in words.
CARD_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}

#: Finds one claim possible on a board, or None.
Finder = Callable[[Sequence[int]], "tuple[int, ...] | None"]


def finder(
    mode: Mode, attributes: int, chain: Sequence[int] = (), found: Sequence[tuple] = ()
) -> Finder:
    """Return how a table in ``mode`` finds a claim on a board (its chain and found sets as
    given)."""
    return lambda board: find_claim(mode, board, attributes, chain=chain, found=found)


def nothing_message(rules: ModeRules, chained: bool) -> str:
    """Say that no claim is possible now (a hint that finds none)."""
    one = rules.claim.one
    if rules.chain and chained:
        return f"There is no {one} through the chain."
    if rules.puzzle:
        return f"Every {one} on the board has been found."
    return f"There is no {one} on the board."


def claims_of(state: ModeState) -> Claims:
    """Say what a claim is at ``state``'s table, for hints."""
    board, chain, rules = state.board, state.chain, MODES[state.mode]
    chained = bool(rules.chain and chain)
    if chained:
        links = rules.chain

        def is_open(cards: tuple[int, ...]) -> bool:
            on = sum(card in chain for card in cards)
            return on == links and all(card in board or card in chain for card in cards)

    elif rules.puzzle:

        def is_open(cards: tuple[int, ...]) -> bool:
            return tuple(sorted(cards)) not in state.found and all(c in board for c in cards)

    else:

        def is_open(cards: tuple[int, ...]) -> bool:
            return all(card in board for card in cards)

    return Claims(
        find=lambda: finder(state.mode, state.attributes, chain, state.found)(board),
        is_open=is_open,
        noun=rules.claim.a,
        nothing=nothing_message(rules, chained),
    )


def mode_option(options: dict) -> Mode:
    """Return the table's mode option (normal when absent), refusing an unknown one."""
    value = options.get("mode", "normal")
    if not isinstance(value, str) or value not in MODES:
        names = ", ".join(MODES)
        message = f"The mode option must be one of {names}; got {value!r:.60}."
        raise TableError(message, "bad_option")
    return Mode(value)


def fork_options(options: dict, rules: ModeRules) -> dict[str, Any]:
    """Return the options of a mode with its own deck and board (the fork's modes) checked:
    ``attributes`` only as the mode's, no ``board_size`` or ``day``, and a ``deck`` of at least
    the mode's board."""
    attributes = rules.attributes
    assert attributes is not None and rules.board is not None
    title = rules.title
    if "attributes" in options:
        option_int(options, "attributes", attributes)
        if options["attributes"] != attributes:
            raise TableError(
                f"{title} has a deck of its own: {attributes} attributes "
                f"({rules.values**attributes} cards), not {options['attributes']!r:.20}.",
                "bad_option",
            )
    if "board_size" in options:
        raise TableError(
            f"{title} deals a board of {rules.board} cards (more while no "
            f"{rules.claim.one} is on it): leave out board_size.",
            "bad_option",
        )
    if "day" in options:
        raise TableError("The day option is for the puzzle mode only.", "bad_option")
    if "deck" in options:
        return {"deck": clean_deck(options["deck"], attributes, min(rules.board, 3), rules.values)}
    return {}


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
    """Return what a view shows of a table in another mode: the mode (its title and claim),
    how many cards a claim names, a chain table's chain and a puzzle's claims found and to
    find."""
    rules = MODES[state.mode]
    claim = rules.claim
    size = claim.size
    view: dict[str, Any] = {
        "mode": state.mode.value,
        "mode_title": rules.title,
        # How many values an attribute has (4 in the 4Set decks): the page's deck of cards.
        "values": rules.values,
        "claim_size": size,
        # How pages name a claim, and how many cards it names, in words.
        "claim_words": {
            "one": claim.one,
            "a": claim.a,
            "many": claim.many,
            "cards": CARD_NUMBERS[size],
        },
        "claim_name": claim.name,
    }
    view["mode_blurb"] = rules.blurb
    view["prompt"] = f"Find {claim.a}: {claim.how}."
    if rules.chain:
        view["chain"] = [{**cards[card], "position": None} for card in state.chain]
        view["chain_count"] = rules.chain
        if state.chain:
            links = f"{CARD_NUMBERS.get(rules.chain, rules.chain)} card" + "s" * (rules.chain > 1)
            rest = CARD_NUMBERS.get(size - rules.chain, size - rules.chain)
            view["prompt"] = (
                f"Find {claim.a} through the chain: {links} of the chain and {rest} from the board."
            )
    if rules.puzzle:
        view["found"] = [[cards[card]["card"] for card in found] for found in state.found]
        view["sets_total"] = total = claim.counted(state.board, state.attributes)
        left = total - len(state.found)
        view["prompt"] = (
            f"Find the {claim.many}: {left} {claim.one if left == 1 else claim.many} still to find."
        )
    if rules.fixed:
        view["started_ms"] = state.started_ms
        view["elapsed_ms"] = (
            None
            if state.ended_ms is None or state.started_ms is None
            else state.ended_ms - state.started_ms
        )
        view["wrong"] = {name: tally.wrong for name, tally in state.tally.items()}
    return view
