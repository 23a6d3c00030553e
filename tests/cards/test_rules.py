"""The rules of Set: the exact facts of the deck, and the fast core against the definition."""

import random
from functools import cache
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine import (
    Card,
    CardError,
    RepeatedCardError,
    SetError,
    all_cards,
    all_sets,
    attribute_report,
    count_sets,
    find_set,
    is_set,
    parse_card,
    parse_cards,
    third_card,
)
from cards.engine.fast import (
    all_sets_codes,
    count_sets_codes,
    digits_of,
    find_set_codes,
    is_set_codes,
    sets_through,
    shuffled_codes,
    tables,
    third_code,
)


@cache
def values(code: int, attributes: int) -> tuple[int, ...]:
    return digits_of(code, attributes)


def naive_is_set(a: int, b: int, c: int, attributes: int) -> bool:
    """The definition: in every attribute, all the same or all different."""
    digits = zip(values(a, attributes), values(b, attributes), values(c, attributes), strict=True)
    return all(len(set(column)) != 2 for column in digits)


def naive_sets(board, attributes):
    return [t for t in combinations(board, 3) if naive_is_set(*t, attributes)]


@pytest.mark.parametrize(("attributes", "sets"), [(3, 117), (4, 1080), (5, 9801)])
def test_a_whole_deck_holds_the_known_number_of_sets(attributes, sets):
    deck = all_cards(attributes)
    assert count_sets(deck) == sets
    assert count_sets_codes(range(len(deck)), attributes) == sets
    assert len(all_sets_codes(list(range(len(deck))), attributes)) == sets
    # Each pair lies in exactly one set, so sets = pairs / 3.
    assert sets == len(deck) * (len(deck) - 1) // 6


def test_the_81_card_deck_has_1080_sets_by_the_definition():
    assert len(naive_sets(range(81), 4)) == 1080
    assert len(all_sets(all_cards(4))) == 1080


@pytest.mark.parametrize("attributes", [3, 4])
def test_every_pair_completes_to_exactly_one_card(attributes):
    size = 3**attributes
    for a, b in combinations(range(size), 2):
        thirds = [c for c in range(size) if c not in (a, b) and naive_is_set(a, b, c, attributes)]
        assert thirds == [third_code(a, b, attributes)]
        assert third_code(b, a, attributes) == thirds[0]


def test_the_243_card_table_matches_the_digit_rule():
    t = tables(5)
    for a in range(243):
        da = digits_of(a, 5)
        for b in range(243):
            expected = (
                243
                if a == b
                else sum(
                    ((-x - y) % 3) * 3**k
                    for k, (x, y) in enumerate(
                        reversed(list(zip(da, digits_of(b, 5), strict=True)))
                    )
                )
            )
            assert t.third[a * 243 + b] == expected


def test_the_spec_examples():
    # Set War spec: 2220 and 1112 are completed by 0001.
    assert third_card(parse_card("2220"), parse_card("1112")) == parse_card("0001")
    # Seed 000: the first triple is a set, the second is not.
    first = [
        parse_card(p)
        for p in ("two red solid squiggles", "one green solid diamond", "three purple solid ovals")
    ]
    second = [
        parse_card(p)
        for p in (
            "two red solid squiggles",
            "one green solid squiggles",
            "three purple solid ovals",
        )
    ]
    assert is_set(*first)
    assert not is_set(*second)
    assert attribute_report(*second) == {
        "number": "different",
        "color": "different",
        "shading": "same",
        "shape": "neither",
    }


def test_the_chance_of_no_set_among_12_random_cards_is_3_23_percent():
    """About 1 board in 31 has no set; 120,000 seeded boards give a standard error of 0.05%."""
    rng = random.Random(31)
    boards = without = 0
    while boards < 120_000:
        deck = shuffled_codes(81, rng)
        for start in range(0, 72, 12):  # six disjoint boards from each shuffled deck
            boards += 1
            if find_set_codes(deck[start : start + 12]) is None:
                without += 1
    assert without / boards == pytest.approx(0.0323, abs=0.0025)  # five standard errors


boards = st.integers(3, 5).flatmap(
    lambda attributes: st.tuples(
        st.just(attributes),
        st.lists(st.integers(0, 3**attributes - 1), unique=True, max_size=21),
    )
)


@settings(max_examples=150, deadline=None)
@given(boards)
def test_the_fast_core_agrees_with_the_definition(case):
    attributes, board = case
    expected = naive_sets(board, attributes)
    assert count_sets_codes(board, attributes) == len(expected)
    assert all_sets_codes(board, attributes) == expected
    found = find_set_codes(board, attributes)
    if expected:
        assert found is not None and set(found) <= set(board)
        assert naive_is_set(*found, attributes) and is_set_codes(*found, attributes)
    else:
        assert found is None
    t = tables(attributes)
    whole = sum(t.pattern[code] for code in board)
    for x in board:
        through = sum(x in triple for triple in expected)
        assert sets_through(x, whole, t).bit_count() == 1 + 2 * through


@settings(max_examples=100, deadline=None)
@given(boards)
def test_the_card_rules_agree_with_the_definition(case):
    attributes, codes = case
    board = [Card.from_code(code, attributes) for code in codes]
    expected = [
        tuple(Card.from_code(c, attributes) for c in t) for t in naive_sets(codes, attributes)
    ]
    assert all_sets(board) == expected
    assert count_sets(board) == len(expected)
    found = find_set(board)
    assert (found is None) == (not expected)
    if found:
        assert found in expected  # in board order
    for a, b, c in combinations(board[:6], 3):
        report = attribute_report(a, b, c)
        assert is_set(a, b, c) == ("neither" not in report.values())
        assert (
            list(report) == ["number", "color", "shading", "shape", "border"][: max(4, attributes)]
        )
        assert is_set(a, b, third_card(a, b))


def test_rules_refuse_wrong_counts_repeats_and_mixed_decks():
    a, b, c = parse_cards(["0000", "1111", "2222"])
    with pytest.raises(SetError, match="a set takes 3 cards, not 2"):
        is_set(a, b)
    with pytest.raises(SetError, match="third_card takes 2 cards, not 3"):
        third_card(a, b, c)
    with pytest.raises(RepeatedCardError, match="ONE/RED/SOLID/DIAMOND"):
        is_set(a, a, b)
    with pytest.raises(RepeatedCardError):
        third_card(a, a)
    with pytest.raises(RepeatedCardError):
        find_set([a, b, c, a])
    with pytest.raises(CardError, match="one deck"):
        count_sets([a, b, parse_card("012")])
    with pytest.raises(CardError, match="'bogus' is not a card"):
        is_set(a, b, "bogus")


def test_rules_read_text_and_handle_small_boards():
    assert is_set("0000", "1111", "2222")
    assert find_set([]) is None and count_sets([]) == 0 and all_sets(["0000", "1111"]) == []
    board = parse_cards(["1200", "0000", "0120", "1111", "2222"])
    assert find_set(board) == (board[1], board[3], board[4])
