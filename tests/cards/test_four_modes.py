"""The 4Set modes (4set, 4setjr, 4setjrchain, 4setjrpuzzle) and Memory on the classic table:
every example of set-modes.md §4.9-4.11, 4.14 and 4.16, properties of random play, and a
computer playing each mode to its end within §7's ranges."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.bot import set_table_actions
from cards.engine.card import all_cards
from cards.engine.classic import ClassicRules as R
from cards.engine.fast4 import find_4set_codes
from cards.engine.table import TableError, TableState
from cards.engine.table.codes import codes_of, texts_of
from cards.engine.table.modes import find_claim
from cards.engine.table.state import ModeState
from cards.rules import SetTable

T = 1_700_000_000_000
FOUR_MODES = ["4set", "4setjr", "4setjrchain", "4setjrpuzzle"]


def table(mode: str, *players: str, seed: int = 7, **options) -> ModeState:
    state = R.new_state(options={"mode": mode, **options}, seed=seed, now_ms=T)
    for name in players:
        state = R.apply(state, name, {"type": "join"}, T).state
    return state


def with_deck(mode: str, first: list[str], attributes: int) -> list[str]:
    """A whole 4-valued deck in code order with ``first`` (digits) at its front."""
    front = [card for card in all_cards(attributes, 4) if card.digits in first]
    front.sort(key=lambda card: first.index(card.digits))
    rest = [card for card in all_cards(attributes, 4) if card.digits not in first]
    return [card.protocol for card in front + rest]


def digits(*texts: str) -> list[str]:
    """The protocol texts of 4-valued cards given as digits."""
    attributes = len(texts[0])
    by_digits = {card.digits: card.protocol for card in all_cards(attributes, 4)}
    return [by_digits[text] for text in texts]


def claim(state, player, cards, at=T + 1):
    return R.apply(state, player, {"type": "claim", "cards": cards}, at)


def refusal(state, player, action) -> TableError:
    before = state.to_json()
    with pytest.raises(TableError) as caught:
        R.apply(state, player, action, T + 5)
    assert state.to_json() == before
    return caught.value


# --- the deck and the options ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "attributes", "board", "deck"),
    [("4set", 4, 15, 256), ("4setjr", 3, 11, 64), ("4setjrchain", 3, 11, 64)],
)
def test_each_4set_mode_deals_its_deck_and_board(mode, attributes, board, deck):
    state = table(mode)
    assert state.attributes == attributes and state.base == 4
    assert len(state.board) >= board and len(state.board) + len(state.deck) == deck
    view = R.view(state, None, T)
    assert view["values"] == 4 and view["claim_size"] == 4 and view["claim_name"] == "4Set"
    assert view["claim_words"] == {"one": "4Set", "a": "a 4Set", "many": "4Sets", "cards": "four"}


def test_the_api_options_name_the_4set_modes_and_refuse_a_wrong_deck():
    rules = SetTable()
    assert rules.options({"mode": "4setjr"}) == {  # stored with its deck's attributes
        "rules": "classic",
        "attributes": 3,
        "mode": "4setjr",
        "start": "wait",
    }
    with pytest.raises(ValueError, match="3 attributes"):
        rules.options({"mode": "4setjr", "attributes": 4})
    with pytest.raises(ValueError, match="board_size"):
        rules.options({"mode": "4set", "board_size": 12})
    with pytest.raises(ValueError, match="not a digit 0, 1, 2 or 3"):
        rules.options({"mode": "4setjr", "deck": ["012", "104", "230"]})


# --- §4.9 4Set -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "four", [["0011", "0022", "1111", "1122"], ["0123", "1032", "2301", "3210"]]
)
def test_4set_valid_examples_score_and_are_replaced(four):
    state = table("4set", "ann", deck=with_deck("4set", four, 4))
    result = claim(state, "ann", digits(*four))
    assert result.outcome["claim"] == "set" and result.outcome["score"] == 1
    assert result.outcome["cards"] == digits(*four)
    after = result.state
    assert not set(codes_of(digits(*four), 4, 4)) & set(after.board)
    assert len(after.board) >= 15 and len(after.deck) == 256 - 15 - 4 - (len(after.board) - 15)


def test_4set_invalid_example_is_wrong_and_says_why():
    four = ["0011", "0022", "1111", "1123"]
    state = table("4set", "ann", "bo", deck=with_deck("4set", four, 4))
    result = claim(state, "ann", digits(*four))
    assert result.outcome["claim"] == "not_set"
    assert result.outcome["message"] == "Not a 4Set"
    assert result.outcome["why"] == [
        "shape: squiggle, oval, squiggle, hourglass — two alike, two different"
    ]
    assert result.state.locked == ("ann",)


# --- §4.10 4Set Junior -----------------------------------------------------------------------


def test_4setjr_examples():
    good = ["012", "103", "230", "321"]
    bad = ["012", "103", "230", "320"]
    state = table("4setjr", "ann", "bo", deck=with_deck("4setjr", [*good, "320"], 3))
    wrong = claim(state, "ann", digits(*bad))
    assert wrong.outcome["claim"] == "not_set"
    assert wrong.outcome["why"] == [
        "shading: open, checkered, solid, solid — two alike, two different"
    ]
    right = claim(state, "bo", digits(*good))
    assert right.outcome["claim"] == "set"


def no_4set(attributes: int, count: int) -> list[int]:
    """``count`` cards of the 4-valued deck holding no 4Set, found greedily in code order."""
    board: list[int] = []
    for code in range(4**attributes):
        if find_4set_codes([*board, code]) is None:
            board.append(code)
        if len(board) == count:
            return board
    raise AssertionError(f"no {count} cards without a 4Set found")


def test_4set_grows_15_to_18_while_no_4set_shows():
    board = no_4set(4, 15)
    rest = [code for code in range(256) if code not in board]
    state = table("4set", deck=[all_cards(4, 4)[c].protocol for c in board + rest])
    assert len(state.board) == 18
    assert find_4set_codes(state.board) is not None


def test_4setjr_never_needs_to_grow_beyond_its_11():
    # At most 9 cards of the 64 hold no 4Set (a Sidon set of F_2^6 has at most 9 elements), so
    # a board of 11 always holds one: the 11 -> 12 -> 15 growth of §3 never happens here.
    board = no_4set(3, 9)
    assert all(find_4set_codes([*board, c]) is not None for c in range(64) if c not in board)
    state = table(
        "4setjr",
        deck=[
            all_cards(3, 4)[c].protocol for c in board + [c for c in range(64) if c not in board]
        ],
    )
    assert len(state.board) == 11


# --- §4.11 4Set Jr-Chain ---------------------------------------------------------------------


def test_4setjrchain_examples():
    chain = ["012", "103", "230", "321"]
    state = table(
        "4setjrchain",
        "ann",
        deck=with_deck("4setjrchain", [*chain, "000", "111", "001", "002", "011"], 3),
    )
    state = claim(state, "ann", digits(*chain)).state
    assert texts_of(state.chain, 3, 4) == digits(*chain)
    assert R.view(state, None, T)["chain_count"] == 2
    # A 4Set with only 1 chain card.
    error = refusal(state, "ann", {"type": "claim", "cards": digits("012", "001", "002", "011")})
    assert str(error).startswith("2 cards must be from the previous 4Set")
    # Three chain cards cannot work: the fourth card would be the chain's own.
    error = refusal(state, "ann", {"type": "claim", "cards": digits("012", "103", "230", "000")})
    assert str(error).startswith("2 cards must be from the previous 4Set")
    result = claim(state, "ann", digits("012", "103", "000", "111"))
    assert result.outcome["claim"] == "set"
    after = result.state
    assert texts_of(after.chain, 3, 4) == digits("012", "103", "000", "111")
    assert not set(codes_of(digits("000", "111"), 3, 4)) & set(after.board)
    # The two chain cards not reused are gone for good.
    assert set(codes_of(digits("230", "321"), 3, 4)) <= set(after.taken)


# --- §4.14 4Set Jr-Puzzle --------------------------------------------------------------------


def test_4setjrpuzzle_repeat_is_refused_and_a_clear_board_deals_the_next_11():
    state = table("4setjrpuzzle", "ann", seed=3)
    first_board = state.board
    found = find_claim("4setjrpuzzle", state.board, 3)
    texts = texts_of(found, 3, 4)
    state = claim(state, "ann", texts).state
    assert state.board == first_board  # nothing moves
    again = refusal(state, "ann", {"type": "claim", "cards": list(reversed(texts))})
    assert str(again) == "This 4Set was already found."
    cleared = None
    while state.board == first_board:
        cards = find_claim("4setjrpuzzle", state.board, 3, found=state.found)
        result = claim(state, "ann", texts_of(cards, 3, 4))
        state = result.state
        cleared = result.outcome.get("cleared")
    assert cleared and cleared == state.scores["ann"]
    assert state.found == () and len(state.board) >= 11
    assert not set(state.board) & set(first_board)


def test_4setjrpuzzle_deals_five_boards_of_11_then_the_9_cards_left():
    state = table("4setjrpuzzle", "cpu", seed=2)
    boards, now = [len(state.board)], T
    while not state.over:
        now += 10
        result = R.apply(state, "cpu", set_table_actions(state, "cpu")[0], now)
        if result.outcome.get("cleared"):
            boards.append(len(result.state.board))
        state = result.state
    assert boards[:6] == [11, 11, 11, 11, 11, 9]


# --- the computer plays each mode to its end -------------------------------------------------

RANGES = {  # spec §7, claims a game (Memory's 24 or 25 widened by one: 27 sets at most)
    "4set": (60, 64),
    "4setjr": (13, 16),
    "4setjrchain": (24, 31),
    "4setjrpuzzle": (19, 35),
    "memory": (22, 26),
}


def check(state: ModeState, dealt: list[int]) -> None:
    on_table = state.board + state.deck + state.taken + state.chain
    assert sorted(on_table) == dealt, "cards are neither lost nor doubled"
    assert TableState.from_json(json.loads(json.dumps(state.to_json()))) == state


@pytest.mark.parametrize("mode", [*FOUR_MODES, "memory"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_computer_plays_each_mode_to_its_end(mode, seed):
    state = table(mode, "cpu", seed=seed)
    dealt = sorted(state.board + state.deck)
    now, claims = T, 0
    while not state.over:
        now += 10
        (action,) = set_table_actions(state, "cpu")
        result = R.apply(state, "cpu", action, now)
        assert result.outcome["claim"] == "set"
        state = result.state
        claims += 1
        check(state, dealt)
    low, high = RANGES[mode]
    assert low <= claims <= high
    assert set_table_actions(state, "cpu") is None


# --- random play: hypothesis ------------------------------------------------------------------


@pytest.mark.parametrize("mode", [*FOUR_MODES, "memory"])
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    steps=st.lists(
        st.tuples(
            st.sampled_from(["ann", "bo"]),
            st.sampled_from(["good", "good", "random", "hint", "count", "reveal"]),
            st.lists(st.integers(0, 30), min_size=4, max_size=4),
        ),
        max_size=40,
    ),
)
def test_random_play_keeps_the_invariants_and_replays(mode, seed, steps):
    state = table(mode, "ann", "bo", seed=seed)
    start = state
    dealt = sorted(state.board + state.deck)
    size = 3 if mode == "memory" else 4
    now = T
    applied = []
    for player, kind, picks in steps:
        now += 100
        before = state.to_json()
        if kind in ("hint", "count"):
            action = {"type": kind}
        elif kind == "reveal":
            action = {"type": "reveal", "position": picks[0]}
        elif kind == "good":
            actions = set_table_actions(state, player)
            if not actions:
                continue
            action = actions[0]
        elif mode == "memory":
            action = {"type": "claim", "positions": picks[:size]}
        else:
            pool = state.board + state.chain + state.taken[-3:]
            cards = [pool[i % len(pool)] for i in picks[:size]]
            action = {"type": "claim", "cards": texts_of(cards, state.attributes, 4)}
        try:
            result = R.apply(state, player, action, now)
        except TableError:
            assert state.to_json() == before, "a refused action changes nothing"
            continue
        applied.append((player, action, now))
        state = result.state
        check(state, dealt)
    replayed = start
    for player, action, at in applied:
        replayed = R.apply(replayed, player, action, at).state
    assert replayed == state and replayed.to_json() == state.to_json()


# --- §4.16 Memory ----------------------------------------------------------------------------


def test_memory_deals_21_face_down_cards_that_no_view_shows():
    state = table("memory", "ann")
    assert len(state.board) == 21 and state.board_size == 21
    for viewer in (None, "ann", "cy"):
        view = R.view(state, viewer, T)
        assert view["face_down"] is True
        assert all(
            cell == {"position": i, "row": i % 3, "col": i // 3, "face_down": True}
            for i, cell in enumerate(view["board"])
        )
        shown = json.dumps(view)
        assert not any(text in shown for text in texts_of(state.board, 4))


def test_a_reveal_tells_its_player_the_card_and_changes_nothing_at_the_table():
    state = table("memory", "ann", "bo")
    result = R.apply(state, "ann", {"type": "reveal", "position": 5}, T + 1)
    assert result.outcome["card"] == texts_of(state.board[5:6], 4)[0]
    assert result.outcome["position"] == 5 and result.event is False
    assert result.state.board == state.board and result.state.scores == state.scores
    # Only its seat reads the card while the game is played.
    assert set(SetTable().private_fields(result.outcome)) == {"card", "digits"}


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"type": "reveal"}, "A reveal names the position"),
        ({"type": "reveal", "position": 21}, "from 0 to 20"),
        ({"type": "reveal", "position": "1"}, "whole number"),
        ({"type": "claim", "positions": [0, 1]}, "exactly 3 positions"),
        ({"type": "claim", "positions": [0, 1, 1]}, "3 different positions"),
    ],
)
def test_memory_bad_input_is_refused_with_a_sentence(action, message):
    state = table("memory", "ann")
    assert message in str(refusal(state, "ann", action))


def test_a_reveal_only_in_memory_and_only_seated():
    assert "Only Memory" in str(
        refusal(table("normal", "ann"), "ann", {"type": "reveal", "position": 0})
    )
    assert "Join" in str(refusal(table("memory"), "cy", {"type": "reveal", "position": 0}))


def test_a_non_set_is_refused_not_a_set_with_no_penalty():
    state = table("memory", "ann", "bo")
    three = next(
        p
        for p in combinations(range(21), 3)
        if find_claim("normal", [state.board[i] for i in p], 4) is None
    )
    error = refusal(state, "ann", {"type": "claim", "positions": list(three)})
    assert str(error) == "Not a Set" and error.code == "not_set"
    assert state.locked == ()


def test_a_set_claimed_by_places_scores_leaves_face_up_and_new_cards_come_face_down():
    state = table("memory", "ann", "bo")
    cards = find_claim("memory", state.board, 4)
    positions = [state.board.index(card) for card in cards]
    result = R.apply(state, "bo", {"type": "claim", "positions": positions}, T + 2)
    assert result.outcome["claim"] == "set"
    assert result.outcome["cards"] == texts_of(cards, 4)  # everyone sees the set as it goes
    after = result.state
    assert len(after.board) == 21 and after.scores["bo"] == 1
    seen = R.view(after, "ann", T + 3)
    assert all(cell.get("face_down") for cell in seen["board"])
    assert seen["last_set"] == texts_of(cards, 4)  # the set left face up for everyone


def test_a_finished_memory_game_shows_every_card():
    state = table("memory", "cpu", seed=4)
    now = T
    while not state.over:
        now += 10
        (action,) = set_table_actions(state, "cpu")
        state = R.apply(state, "cpu", action, now).state
    view = R.view(state, None, now)
    assert "face_down" not in view
    assert [cell["card"] for cell in view["board"]] == texts_of(state.board, 4)
    assert SetTable().private_fields({"action": "reveal"})  # withheld only while played


def test_a_memory_claim_naming_cards_is_refused_it_names_places():
    state = table("memory", "ann")
    cards = texts_of(find_claim("memory", state.board, 4), 4)
    error = refusal(state, "ann", {"type": "claim", "cards": cards})
    assert error.code == "bad_claim" and '"positions"' in str(error)
    (action,) = set_table_actions(state, "ann")  # the computer claims places too
    assert set(action) == {"type", "positions"}


@pytest.mark.parametrize("mode", FOUR_MODES)
def test_hints_and_counts_speak_of_4sets(mode):
    state = table(mode, "ann", seed=5)
    counted = R.apply(state, "ann", {"type": "count"}, T + 1).outcome["count"]
    from cards.engine.fast4 import count_4sets_codes

    assert counted == count_4sets_codes(state.board)  # a chain's first claim is any 4Set
    hinted = R.apply(state, "ann", {"type": "hint"}, T + 2)
    card = hinted.outcome["hint"]["card"]
    assert "One card of a 4Set on the board" in hinted.outcome["message"]
    found = find_claim(mode, state.board, state.attributes)
    assert card in texts_of(found, state.attributes, 4)
    view = R.view(hinted.state, "ann", T + 3)
    assert view["hint"]["card"] == card
