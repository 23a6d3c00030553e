"""Why a claim is not a set: attribute by attribute, short, and only for claims that are wrong."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.card import all_cards, parse_card
from cards.engine.classic import ClassicRules
from cards.engine.rules import is_set, why_not_set, why_not_ultra
from cards.engine.table import DeclareRules
from cards.engine.table.codes import codes_of, texts_of
from cards.engine.table.modes import FOUND_ALREADY, NOT_CHAINED, Mode, claim_why, is_ultra

T = 1_700_000_000_000


def codes_are_a_set(codes) -> bool:
    return is_set(*(all_cards(4)[code] for code in codes))


def cards(*texts):
    return [parse_card(text) for text in texts]


def test_each_broken_attribute_is_named_with_its_values_in_claim_order():
    # number and shape are all different (fine); color and shading have two alike.
    assert why_not_set(*cards("0000", "1001", "2112")) == [
        "color: red, red, green — two alike, one different",
        "shading: solid, solid, striped — two alike, one different",
    ]
    assert why_not_set(*cards("2112", "0000", "1001")) == [
        "color: green, red, red — two alike, one different",
        "shading: striped, solid, solid — two alike, one different",
    ]


def test_numbers_and_shapes_use_the_card_words():
    assert why_not_set(*cards("0000", "0001", "1002")) == [
        "number: one, one, two — two alike, one different"
    ]
    assert why_not_set(*cards("0000", "1000", "2001")) == [
        "shape: diamond, diamond, squiggle — two alike, one different"
    ]


def test_three_and_five_attributes():
    three = [parse_card(text, 3) for text in ("000", "001", "012")]
    assert why_not_set(*three) == ["color: red, red, green — two alike, one different"]
    five = cards("00000", "11111", "22220")
    assert why_not_set(*five) == ["border: red, green, red — two alike, one different"]


def test_a_set_has_no_why():
    assert why_not_set(*cards("2220", "1112", "0001")) == []


@settings(max_examples=300, deadline=None)
@given(attributes=st.sampled_from([3, 4, 5]), data=st.data())
def test_a_why_is_given_exactly_for_non_sets(attributes, data):
    deck = all_cards(attributes)
    picked = data.draw(st.lists(st.sampled_from(deck), min_size=3, max_size=3, unique=True))
    why = why_not_set(*picked)
    assert (why == []) == is_set(*picked)
    for line in why:
        name = line.split(":")[0]
        values = {getattr(card, name) for card in picked}
        assert len(values) == 2 and line.endswith("two alike, one different")


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_an_ultra_why_is_given_exactly_for_non_ultras(data):
    codes = data.draw(st.lists(st.integers(0, 80), min_size=4, max_size=4, unique=True))
    why = why_not_ultra(*(all_cards(4)[code] for code in codes))
    assert (why == []) == is_ultra(codes, 4)
    assert len(why) in (0, 3)


def test_an_ultra_why_says_what_each_pairing_needs():
    four = cards("1000", "2000", "0010", "0222")
    assert why_not_ultra(*four) == [
        "1st+2nd need one red solid diamond, 3rd+4th need one green solid squiggle",
        "1st+3rd need three red open diamonds, 2nd+4th need two green striped squiggles",
        "1st+4th need three green striped squiggles, 2nd+3rd need two red open diamonds",
    ]


def test_a_chain_claim_off_the_chain_and_a_puzzle_set_found_twice():
    a, b, c = codes_of(["ONE/RED/SOLID/OVAL", "TWO/RED/SOLID/OVAL", "THREE/RED/SOLID/OVAL"], 4)
    elsewhere = codes_of(["ONE/GREEN/OPEN/DIAMOND"], 4)
    assert claim_why((a, b, c), 4, Mode.CHAIN, chain=elsewhere) == [NOT_CHAINED]
    assert claim_why((a, b, c), 4, Mode.CHAIN, chain=(c,)) == []
    assert claim_why((a, b, c), 4, Mode.PUZZLE, found=[tuple(sorted((a, b, c)))]) == [FOUND_ALREADY]
    assert claim_why((a, b, c), 4, Mode.PUZZLE) == []


def test_a_wrong_classic_claim_carries_its_why():
    state = ClassicRules.new_state(options={"board_size": 12}, seed=3, now_ms=T)
    state = ClassicRules.apply(state, "ann", {"type": "join"}, T).state
    wrong = next(c for c in combinations(state.board, 3) if not codes_are_a_set(c))
    action = {"type": "claim", "cards": texts_of(wrong, 4)}
    outcome = ClassicRules.apply(state, "ann", action, T + 1).outcome
    assert outcome["claim"] == "not_set"
    assert outcome["why"] == why_not_set(*(all_cards(4)[x] for x in wrong))
    assert outcome["why"]


@pytest.mark.parametrize("mode", ["ultra", "chain"])
def test_a_wrong_claim_in_a_mode_carries_its_why(mode):
    state = ClassicRules.new_state(options={"mode": mode}, seed=5, now_ms=T)
    state = ClassicRules.apply(state, "ann", {"type": "join"}, T).state
    size = 4 if mode == "ultra" else 3
    judge = (lambda c: is_ultra(c, 4)) if mode == "ultra" else codes_are_a_set
    wrong = next(c for c in combinations(state.board, size) if not judge(c))
    action = {"type": "claim", "cards": texts_of(wrong, 4)}
    outcome = ClassicRules.apply(state, "ann", action, T + 1).outcome
    assert outcome["claim"] == "not_set"
    assert outcome["why"] == claim_why(wrong, 4, Mode(mode))
    assert outcome["why"]


def test_a_wrong_declared_pick_carries_its_why():
    state = DeclareRules.new_state(seed=2, now_ms=T)
    state = DeclareRules.apply(state, "ann", {"type": "declare"}, T).state
    positions = [(r, c) for r in range(3) for c in range(4)]
    board = state.board
    picks = next(
        p
        for p in combinations(positions, 3)
        if not is_set(*(all_cards(4)[board[r][c]] for r, c in p))
    )
    for r, c in picks:
        result = DeclareRules.apply(state, "ann", {"type": "pick", "row": r, "col": c}, T + 1)
        state = result.state
    assert result.outcome["pick"] == "not_set"
    assert result.outcome["why"] == why_not_set(*(all_cards(4)[board[r][c]] for r, c in picks))
