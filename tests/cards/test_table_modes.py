"""The other ways to play a classic Set table: UltraSet, Set-Chain and the (daily) puzzle.

Each is tested like the card game itself: its rules one by one, random play under hypothesis
keeping the invariants, and, on the platform, a game played to its end over the API whose log
replays to its stored state.
"""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.bot import set_table_actions
from cards.engine.classic import ClassicRules as R
from cards.engine.fast import all_sets_codes, count_sets_codes
from cards.engine.table import TableError, TableState
from cards.engine.table.codes import codes_of, is_set, texts_of
from cards.engine.table.modes import find_claim, is_ultra, puzzle_board
from cards.engine.table.state import ModeState
from cards.rules import SetTable
from games.errors import RuleError

T = 1_700_000_000_000


def table(mode: str, *players: str, seed: int = 7, **options) -> ModeState:
    state = R.new_state(options={"mode": mode, **options}, seed=seed, now_ms=T)
    for name in players:
        state = R.apply(state, name, {"type": "join"}, T).state
    return state


def claim(state, player, cards, at=T + 1):
    return R.apply(state, player, {"type": "claim", "cards": texts_of(cards, state.attributes)}, at)


def refused(state, player, cards) -> TableError:
    with pytest.raises(TableError) as caught:
        claim(state, player, cards)
    return caught.value


def a_non_set(board, attributes):
    return next(c for c in combinations(board, 3) if not is_set(c, attributes))


# --- options -------------------------------------------------------------------------------------


def test_a_mode_implies_the_classic_rules_and_normal_is_stored_as_before():
    rules = SetTable()
    wait = {"start": "wait"}  # a table waits for its start unless it says otherwise
    assert rules.options({"mode": "ultra"}) == {"rules": "classic", "mode": "ultra", **wait}
    assert rules.options({"rules": "classic", "mode": "normal"}) == {"rules": "classic", **wait}
    assert rules.options({"rules": "declare", "mode": "normal"}) == {"rules": "declare", **wait}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"mode": "speed"}, "The mode option must be one of normal, ultra, chain, puzzle"),
        ({"mode": 3}, "The mode option must be one of"),
        ({"rules": "declare", "mode": "chain"}, "The mode option is for classic tables"),
        ({"mode": "puzzle", "board_size": 15}, "A puzzle's board is always 12 cards"),
        ({"mode": "puzzle", "attributes": 5}, "The attributes option must be 3 or 4"),
        ({"mode": "puzzle", "day": "25/11/2026"}, "The day option is a date like 2026-11-25"),
        ({"mode": "puzzle", "day": 20261125}, "The day option is a date like 2026-11-25"),
        ({"mode": "ultra", "day": "2026-11-25"}, "The day option is for the puzzle mode only"),
        ({"mode": "puzzle", "day": "2026-11-25", "deck": []}, "from its day or its deck"),
    ],
)
def test_bad_mode_options_are_refused_with_a_sentence(options, message):
    with pytest.raises(RuleError) as caught:
        SetTable().options(options)
    assert message in str(caught.value)
    assert caught.value.code == "bad_option"


def test_a_puzzle_deck_must_be_twelve_cards_holding_six_sets():
    board = texts_of(puzzle_board(1, 4), 4)
    assert SetTable().options({"mode": "puzzle", "deck": board})["deck"] == board
    other = texts_of(next(puzzle_board(s, 4) for s in range(2, 9)), 4)
    five_sets = next(
        board[:11] + [card]
        for card in other
        if card not in board and count_sets_codes(codes_of(board[:11] + [card], 4), 4) != 6
    )
    with pytest.raises(RuleError, match="exactly 6 sets; this one has 12 cards and"):
        SetTable().options({"mode": "puzzle", "deck": five_sets})


# --- UltraSet ------------------------------------------------------------------------------------


def test_an_ultra_is_two_pairs_with_the_same_completing_card():
    four = codes_of(
        [
            "ONE/RED/SOLID/OVAL",
            "THREE/RED/SOLID/OVAL",
            "TWO/GREEN/SOLID/OVAL",
            "TWO/PURPLE/SOLID/OVAL",
        ],
        4,
    )
    assert is_ultra(four, 4)
    assert is_ultra(four[::-1], 4)
    assert not is_ultra(four[:3] + codes_of(["ONE/RED/OPEN/OVAL"], 4), 4)


def test_an_ultra_table_takes_four_cards_and_deals_four():
    state = table("ultra", "ann")
    view = R.view(state, "ann", T)
    assert view["claim_size"] == 4
    assert view["claim_words"] == {
        "one": "ultra",
        "a": "an ultra",
        "many": "ultras",
        "cards": "four",
    }
    with pytest.raises(TableError, match="A claim names exactly four cards."):
        R.apply(state, "ann", {"type": "claim", "cards": texts_of(state.board[:3], 4)}, T)
    found = find_claim("ultra", state.board, 4)
    result = claim(state, "ann", found)
    assert result.outcome["claim"] == "set" and result.state.scores["ann"] == 1
    assert len(result.state.board) == len(state.board)
    assert len(result.state.deck) == len(state.deck) - 4
    assert set(found).isdisjoint(result.state.board)
    assert result.state.taken == found


def test_four_cards_that_are_no_ultra_are_a_wrong_claim_that_locks_out():
    state = table("ultra", "ann", "bo")
    wrong = next(c for c in combinations(state.board, 4) if not is_ultra(c, 4))
    result = claim(state, "ann", wrong)
    assert result.outcome["claim"] == "not_set"
    assert result.state.locked == ("ann",)
    assert result.state.tally["ann"].wrong == 1


# --- Set-Chain -----------------------------------------------------------------------------------


def test_a_chain_set_takes_one_card_of_the_last_set_which_stays_on_the_table():
    state = table("chain", "ann")
    first = find_claim("chain", state.board, 4)
    state = claim(state, "ann", first).state
    view = R.view(state, "ann", T)
    assert [card["card"] for card in view["chain"]] == texts_of(first, 4)
    assert set(first).isdisjoint(state.board)
    assert state.taken == ()

    unchained = next(s for s in all_sets_codes(state.board, 4))
    error = refused(state, "ann", unchained)
    assert error.code == "not_chained"
    assert "exactly one card of the chain" in str(error)

    second = find_claim("chain", state.board, 4, chain=state.chain)
    link = second[-1]
    assert link in first
    after = claim(state, "ann", second).state
    assert after.chain == second  # the reused card stays, now in the new chain
    assert sorted(after.taken) == sorted(c for c in first if c != link)
    assert after.scores["ann"] == 2


def test_a_chain_claim_of_two_chain_cards_is_refused():
    state = table("chain", "ann")
    state = claim(state, "ann", find_claim("chain", state.board, 4)).state
    two_links = (*state.chain[:2], state.board[0])
    assert refused(state, "ann", two_links).code == "not_chained"


# --- the puzzle ----------------------------------------------------------------------------------


def test_a_puzzle_is_its_seeds_board_of_twelve_cards_holding_six_sets():
    a = table("puzzle", "ann", seed=5)
    assert a.board == table("puzzle", "bo", seed=5).board == puzzle_board(5, 4)
    assert count_sets_codes(a.board, 4) == 6 and not a.deck
    assert table("puzzle", seed=6).board != a.board


def test_a_puzzle_is_over_when_its_six_sets_are_found_and_knows_its_time():
    state = table("puzzle", "ann")
    sets = all_sets_codes(state.board, 4)
    for i, found in enumerate(sets):
        view = R.view(state, "ann", T)
        assert view["sets_total"] == 6 and len(view["found"]) == i
        state = claim(state, "ann", found, at=T + 1000 * (i + 1)).state
        assert state.board == table("puzzle").board  # a puzzle's board never changes
    assert state.over and state.scores["ann"] == 6
    view = R.view(state, "ann", T)
    assert view["elapsed_ms"] == 6000
    assert len(view["found"]) == 6


def test_a_puzzle_set_found_already_is_refused_and_costs_nothing():
    state = table("puzzle", "ann", "bo")
    found = all_sets_codes(state.board, 4)[0]
    state = claim(state, "ann", found).state
    error = refused(state, "bo", found[::-1])
    assert error.code == "already_found" and str(error) == "That set has been found already."
    wrong = claim(state, "bo", a_non_set(state.board, 4)).state
    assert wrong.tally["bo"].wrong == 1 and wrong.scores == {"ann": 1, "bo": 0}


@pytest.mark.parametrize("mode, noun", [("ultra", "an ultra"), ("puzzle", "a set")])
def test_hints_and_counts_speak_of_the_mode(mode, noun):
    state = table(mode, "ann")
    result = R.apply(state, "ann", {"type": "hint"}, T)
    assert result.outcome["message"].startswith(f"One card of {noun} on the board")
    assert result.outcome["hint"]["card"] in texts_of(state.board, 4)
    count = R.apply(state, "ann", {"type": "count"}, T).outcome["count"]
    assert count == (6 if mode == "puzzle" else len(list(_ultras(state.board))))


def _ultras(board):
    return [c for c in combinations(board, 4) if is_ultra(c, 4)]


def test_counting_ultras_counts_each_four_cards_once():
    state = table("ultra", "ann")
    count = R.apply(state, "ann", {"type": "count"}, T).outcome["count"]
    assert count == len(_ultras(state.board)) > 0


# --- random play keeps the invariants ---------------------------------------------------------


def check(state: ModeState, dealt: list[int]) -> None:
    on_table = state.board + state.deck + state.taken + state.chain
    assert sorted(on_table) == dealt, "cards are neither lost nor doubled"
    assert TableState.from_json(json.loads(json.dumps(state.to_json()))) == state
    if state.deck:
        assert len(state.board) >= state.board_size, "the board is dealt back to its size"
    if not state.over:
        assert find_claim(
            state.mode, state.board, state.attributes, chain=state.chain, found=state.found
        )
    else:
        assert not state.deck and not state.locked
    sets = {p: state.tally[p].sets if p in state.tally else 0 for p in state.players}
    assert sets == state.scores


@settings(max_examples=40, deadline=None)
@given(
    mode=st.sampled_from(["ultra", "chain", "puzzle"]),
    seed=st.integers(0, 2**32),
    attributes=st.sampled_from([3, 4]),
    steps=st.lists(
        st.tuples(
            st.sampled_from(["ann", "bo"]),
            st.sampled_from(["good", "good", "random", "hint", "count"]),
            st.lists(st.integers(0, 30), min_size=4, max_size=4),
        ),
        max_size=60,
    ),
)
def test_random_play_in_every_mode_keeps_the_invariants(mode, seed, attributes, steps):
    state = table(mode, "ann", "bo", seed=seed, attributes=attributes)
    dealt = sorted(state.board + state.deck)
    size = 4 if mode == "ultra" else 3
    now = T
    for player, kind, picks in steps:
        now += 100
        before = state.to_json()
        if kind in ("hint", "count"):
            action = {"type": kind}
        elif kind == "good":
            actions = set_table_actions(state, player)
            if not actions:
                continue
            action = actions[0]
        else:
            pool = state.board + state.chain + state.taken[-3:]
            action = {
                "type": "claim",
                "cards": texts_of([pool[i % len(pool)] for i in picks[:size]], attributes),
            }
        try:
            result = R.apply(state, player, action, now)
        except TableError:
            assert state.to_json() == before, "a refused claim changes nothing"
            continue
        state = result.state
        check(state, dealt)
        check_seat_views(R, state, ("ann", "bo", "cy"), now)


def check_seat_views(rules, state, players, now) -> None:
    """Each seat's view is a spectator's with its seat's fields (`seat_view`), key for key."""
    watcher = rules.view(state, None, now)
    for player in players:
        seen = rules.view(state, player, now)
        shared = {**watcher, **rules.seat_view(state, player, now)}
        assert seen == shared and list(seen) == list(shared)


@pytest.mark.parametrize("mode", ["ultra", "chain", "puzzle"])
@pytest.mark.parametrize("attributes", [3, 4])
@pytest.mark.parametrize("small", [False, True])
def test_a_computer_plays_every_mode_to_its_end(mode, attributes, small):
    if small and mode == "puzzle":
        return  # a puzzle's board is always 12
    sizes = {"board_size": 6} if small else {}
    state = table(mode, "cpu", attributes=attributes, **sizes)
    dealt = sorted(state.board + state.deck)
    now = T
    while not state.over:
        now += 10
        (action,) = set_table_actions(state, "cpu")
        result = R.apply(state, "cpu", action, now)
        assert result.outcome["claim"] == "set"
        state = result.state
        check(state, dealt)
    assert set_table_actions(state, "cpu") is None


# --- found by review ---------------------------------------------------------------------------


def test_a_chain_claim_of_the_set_just_taken_is_told_it_was_just_taken():
    state = table("chain", "ann", "bo")
    first = find_claim("chain", state.board, 4)
    state = claim(state, "ann", first).state  # bo claims the same three a moment later
    error = refused(state, "bo", first)
    assert error.code == "just_taken" and str(error) == "Those cards were just taken."


def test_a_puzzle_hint_is_spent_once_its_set_is_found():
    state = table("puzzle", "ann")
    shown = R.apply(state, "ann", {"type": "hint"}, T)
    state = shown.state
    hinted_set = state.hints["ann"].set
    state = claim(state, "ann", hinted_set).state
    assert state.tally["ann"].hinted == 1
    # Another set through the shown card is no longer hinted: that hint was spent.
    card = hinted_set[0]
    other = next(
        (
            s
            for s in all_sets_codes(state.board, 4)
            if card in s and sorted(s) != sorted(hinted_set)
        ),
        None,
    )
    if other is not None:
        assert claim(state, "ann", other).state.tally["ann"].hinted == 1
