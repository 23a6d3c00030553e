"""The 4Set decks: cards with four values an attribute, their texts, and the 4Set rule (spec
set-modes.md §2, Notation, §4.9-4.11), against the rule's own definition."""

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.card import (
    CHECKERED,
    FOUR,
    HOURGLASS,
    ORANGE,
    Card,
    all_cards,
    deck_table,
    parse_card,
    parse_cards,
)
from cards.engine.errors import CardError, SetError
from cards.engine.fast4 import (
    all_4sets_codes,
    chain_4sets_codes,
    count_4sets_codes,
    digits_of,
    find_4set_codes,
    fourth_code,
    is_4set_codes,
)
from cards.engine.rules import (
    all_4sets,
    count_4sets,
    find_4set,
    fourth_card,
    is_4set,
    why_not_4set,
)


def cards(*texts: str) -> list[Card]:
    return parse_cards(texts, base=4)


def by_definition(*four: Card) -> bool:
    """A 4Set: at every attribute, all alike, all different, or two pairs."""
    for values in zip(*(card.values for card in four), strict=True):
        if sorted(Counter(values).values()) not in ([4], [1, 1, 1, 1], [2, 2]):
            return False
    return True


# --- The cards and their texts -------------------------------------------------------------


def test_the_decks_hold_256_and_64_cards_each_once():
    for attributes, size in ((4, 256), (3, 64)):
        deck = all_cards(attributes, base=4)
        assert len(deck) == len(set(deck)) == size
        assert [card.code for card in deck] == list(range(size))
        assert len({card.protocol for card in deck}) == size


def test_the_fourth_values_are_four_orange_checkered_and_hourglass():
    card = Card(FOUR, ORANGE, CHECKERED, HOURGLASS, base=4)
    assert card.protocol == "FOUR/ORANGE/CHECKERED/HOURGLASS"
    assert card.phrase == "four orange checkered hourglasses"
    assert card.words == ("four", "checkered", "orange", "hourglass")
    assert card.digits == "3333"
    assert parse_card("one orange checkered hourglass", base=4).digits == "0333"


def test_a_64_card_deck_card_is_a_squiggle_like_the_27_card_deck():
    card = parse_card("321", attributes=3, base=4)
    assert card.protocol == "FOUR/PURPLE/STRIPED/SQUIGGLE"
    assert deck_table(3, base=4)["FOUR/PURPLE/STRIPED/SQUIGGLE"] == ["321", card.phrase]


def test_a_code_is_two_bits_an_attribute():
    card = parse_card("0123", base=4)
    assert card.code == 0b00011011
    assert digits_of(card.code, 4) == (0, 1, 2, 3)
    assert Card.from_code(card.code, 4, base=4) == card


@pytest.mark.parametrize("form", ["protocol", "digits", "phrase", "words"])
def test_every_text_form_reads_back(form):
    for card in all_cards(4, base=4):
        assert parse_card(getattr(card, form), base=4) == card


def test_a_four_valued_card_is_not_a_classic_card():
    assert parse_card("0120", base=4) != parse_card("0120")
    with pytest.raises(CardError, match="'3' is not a digit 0, 1 or 2"):
        parse_card("0123")
    with pytest.raises(CardError, match="is not a number"):
        parse_card("FOUR/RED/SOLID/OVAL")
    with pytest.raises(CardError, match="'4' is not a digit 0, 1, 2 or 3"):
        parse_card("0124", base=4)
    with pytest.raises(CardError, match="3 or 4 attributes"):
        parse_card("01230", base=4)
    with pytest.raises(CardError, match="card of 3 values an attribute"):
        parse_card(parse_card("0120"), base=4)


# --- The 4Set rule: the spec's examples ----------------------------------------------------


@pytest.mark.parametrize(
    "texts",
    [
        ("0011", "0022", "1111", "1122"),  # §4.9: pairs at every position
        ("0123", "1032", "2301", "3210"),  # §4.9: all different
        ("012", "103", "230", "321"),  # §4.10
        ("012", "103", "000", "111"),  # §4.11: two chain cards and two board cards
        ("012", "001", "002", "011"),  # §4.11: a 4Set, refused there for its chain count only
    ],
)
def test_the_spec_s_4sets_are_4sets(texts):
    assert is_4set(*cards(*texts))
    assert why_not_4set(*cards(*texts)) == []


@pytest.mark.parametrize(
    ("texts", "why"),
    [
        (
            ("0011", "0022", "1111", "1123"),
            ["shape: squiggle, oval, squiggle, hourglass — two alike, two different"],
        ),
        (
            ("012", "103", "230", "320"),
            ["shading: open, checkered, solid, solid — two alike, two different"],
        ),
    ],
)
def test_the_spec_s_non_4sets_are_refused_with_their_attribute(texts, why):
    assert not is_4set(*cards(*texts))
    assert why_not_4set(*cards(*texts)) == why


def test_three_alike_and_one_different_fails():
    assert why_not_4set(*cards("0000", "0001", "0002", "1003")) == [
        "number: one, one, one, two — three alike, one different",
    ]


def test_the_fourth_card_completes_any_three():
    assert fourth_card(*cards("0011", "0022", "1111")).digits == "1122"
    assert fourth_card(*cards("012", "103", "230")).digits == "321"
    with pytest.raises(SetError, match="takes 3 cards"):
        fourth_card(*cards("0011", "0022"))


def test_the_whole_deck_holds_the_counted_4sets():
    # Every 3 cards have one fourth card, and each 4Set is counted by its 4 triples.
    assert count_4sets_codes(range(256)) == 256 * 255 * 254 // 6 // 4
    assert count_4sets_codes(range(64)) == 64 * 63 * 62 // 6 // 4


# --- The fast core against the definition ---------------------------------------------------

boards = st.integers(min_value=3, max_value=4).flatmap(
    lambda attributes: st.lists(
        st.integers(min_value=0, max_value=4**attributes - 1), min_size=0, max_size=18, unique=True
    ).map(lambda codes: (attributes, codes))
)


@settings(max_examples=150, deadline=None)
@given(boards)
def test_the_finder_counter_and_lister_agree_with_the_definition(board):
    attributes, codes = board
    deck = all_cards(attributes, base=4)
    slow = [
        four for four in combinations(codes, 4) if by_definition(*(deck[code] for code in four))
    ]
    assert all_4sets_codes(codes) == sorted(slow, key=lambda f: [codes.index(c) for c in f])
    assert count_4sets_codes(codes) == len(slow)
    found = find_4set_codes(codes)
    assert (found is None) == (not slow)
    if found is not None:
        assert is_4set_codes(*found) and len(set(found)) == 4 and set(found) <= set(codes)
    shown = [deck[code] for code in codes]
    assert count_4sets(shown) == len(slow)
    assert (find_4set(shown) is None) == (not slow)
    assert len(all_4sets(shown)) == len(slow)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=3, max_size=3, unique=True))
def test_the_fourth_code_is_the_only_completion(three):
    deck = all_cards(4, base=4)
    fourth = fourth_code(*three)
    assert fourth not in three
    completions = [
        d for d in range(256) if d not in three and by_definition(*(deck[c] for c in (*three, d)))
    ]
    assert completions == [fourth]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=4, max_size=4, unique=True))
def test_why_not_is_empty_exactly_for_a_4set_and_names_each_broken_attribute(four):
    deck = all_cards(4, base=4)
    shown = [deck[code] for code in four]
    why = why_not_4set(*shown)
    assert (why == []) == is_4set(*shown) == by_definition(*shown)
    names = ("number", "color", "shading", "shape")
    broken = [
        name
        for name, values in zip(names, zip(*(c.values for c in shown), strict=True), strict=True)
        if sorted(Counter(values).values()) not in ([4], [1, 1, 1, 1], [2, 2])
    ]
    assert [line.split(":")[0] for line in why] == broken


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 63), min_size=4, max_size=15, unique=True),
    st.lists(st.integers(0, 63), min_size=3, max_size=3, unique=True),
)
def test_a_chain_4set_takes_exactly_two_chain_cards(board, three):
    chain = [*three, fourth_code(*three)]
    board = [card for card in board if card not in chain]
    found = list(chain_4sets_codes(board, chain))
    expected = {
        frozenset(four)
        for four in combinations(board + chain, 4)
        if is_4set_codes(*four) and sum(card in chain for card in four) == 2
    }
    assert {frozenset(four) for four in found} == expected
    assert len(found) == len(expected)
