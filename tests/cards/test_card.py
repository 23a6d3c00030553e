"""Cards, their text forms, reading them back, and shuffled decks."""

import dataclasses
import doctest
import importlib
import pickle
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine import (
    OVAL,
    PURPLE,
    SQUIGGLE,
    STRIPED,
    TWO,
    Card,
    CardError,
    RepeatedCardError,
    SetError,
    all_cards,
    new_deck,
    parse_card,
    parse_cards,
)

DECK_SIZES = {3: 27, 4: 81, 5: 243}


def test_the_example_card_in_every_form():
    card = Card(TWO, PURPLE, STRIPED, OVAL)
    assert str(card) == card.protocol == "TWO/PURPLE/STRIPED/OVAL"
    assert card.digits == "1212"
    assert card.code == int("1212", 3)
    assert card.words == ("two", "striped", "purple", "oval")
    assert card.phrase == "two purple striped ovals"
    assert Card.from_code(int("1201", 3)).phrase == "two purple solid squiggles"
    assert parse_card("0000").phrase == "one red solid diamond"


def test_three_and_five_attribute_cards():
    small = Card(0, 1, 2, attributes=3)
    assert small.shape == SQUIGGLE
    assert small.protocol == "ONE/GREEN/OPEN/SQUIGGLE"
    assert small.digits == "012"
    assert small.words == ("one", "open", "green", "squiggle")
    big = Card(1, 2, 1, 2, border=1)
    assert big.attributes == 5
    assert big.protocol == "TWO/PURPLE/STRIPED/OVAL/GREEN"
    assert big.digits == "12121"
    assert big.words == ("two", "striped", "purple", "oval", "green")
    assert big.phrase == "two purple striped ovals with a green border"


@pytest.mark.parametrize("attributes", [3, 4, 5])
def test_decks_hold_every_card_once_in_code_order(attributes):
    cards = all_cards(attributes)
    assert len(cards) == DECK_SIZES[attributes] == len(set(cards))
    assert [card.code for card in cards] == list(range(len(cards)))
    assert all(card.attributes == attributes for card in cards)
    assert sorted(reversed(cards)) == list(cards)
    assert len({card.digits for card in cards}) == len(cards)
    assert all(len(card.digits) == attributes for card in cards)


@pytest.mark.parametrize("attributes", [3, 4, 5])
def test_every_text_form_round_trips(attributes):
    for card in all_cards(attributes):
        forms = [card.protocol, card.digits, card.words, list(card.words), card.phrase]
        forms += [card.protocol.lower(), card.phrase.upper(), str(card), card]
        for form in forms:
            assert parse_card(form, attributes) == card, form
        # Without a deck size, every form but the 27-card deck's is unambiguous.
        assert parse_card(card.digits) == card
        if attributes != 3:
            for form in forms:
                assert parse_card(form) == card, form


def test_a_form_without_shape_is_the_27_card_deck():
    assert parse_card("ONE/RED/SOLID").attributes == 3
    assert parse_card("one red solid").attributes == 3
    assert parse_card(("one", "solid", "red")).attributes == 3
    assert parse_card("ONE/RED/SOLID/SQUIGGLE").attributes == 4


def test_phrases_accept_any_word_order_and_seed_wordings():
    card = parse_card("three striped green diamonds")  # seed 001 says it this way
    assert card == parse_card("THREE/GREEN/STRIPED/DIAMOND")
    assert parse_card("two red empty squiggles") == parse_card("TWO/RED/OPEN/SQUIGGLE")
    assert parse_card("  Two, Red, Solid, Squiggles ").digits == "1001"


def test_the_documented_error_message():
    with pytest.raises(CardError) as caught:
        parse_card("FOUR/RED/SOLID/OVAL")
    assert str(caught.value) == (
        "'FOUR/RED/SOLID/OVAL' is not a card: 'FOUR' is not a number (ONE, TWO, THREE)"
    )
    assert isinstance(caught.value, SetError)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("1231", "'3' is not a digit"),
        ("12", "3, 4 or 5 digits"),
        ("121212", "3, 4 or 5 digits"),
        ("ONE/RED", "3, 4 or 5 attributes"),
        ("ONE/BLUE/SOLID/OVAL", "'BLUE' is not a color (RED, GREEN, PURPLE)"),
        ("ONE/RED/SOLID/OVAL/BLUE", "'BLUE' is not a border"),
        ("two red solid hearts", "'hearts' is not a number, color, shading or shape"),
        ("two red green ovals", "'red' and 'green' are both a color"),
        ("red solid ovals", "names no number"),
        ("one red oval", "names no shading"),
        (("one", "red", "solid", "oval"), "'red' is not a shading"),
        (("one", "solid", "red", "oval", "pink"), "'pink' is not a border"),
        (("one", 2, "red"), "words must be strings"),
        (1201, "expected text or a list of words"),
        (None, "expected text or a list of words"),
    ],
)
def test_malformed_cards_raise_naming_the_card(value, reason):
    with pytest.raises(CardError) as caught:
        parse_card(value)
    message = str(caught.value)
    assert message.startswith(f"{value!r} is not a card: ")
    assert reason in message


def test_a_card_of_the_wrong_deck_is_refused():
    with pytest.raises(CardError, match="'ONE/RED/SOLID/OVAL' is not a card: .*SQUIGGLE"):
        parse_card("ONE/RED/SOLID/OVAL", attributes=3)
    with pytest.raises(CardError, match="has 3 attributes, not 4"):
        parse_card("012", attributes=4)
    with pytest.raises(CardError, match="5-attribute card, not a 4-attribute"):
        parse_card(Card(0, 0, 0, 0, border=0), attributes=4)
    with pytest.raises(CardError, match="3, 4 or 5 attributes, not 6"):
        parse_card("0000", attributes=6)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"number": 3, "color": 0, "shading": 0},
        {"number": -1, "color": 0, "shading": 0},
        {"number": True, "color": 0, "shading": 0},
        {"number": 0, "color": "red", "shading": 0},
        {"number": 0, "color": 0, "shading": 0, "shape": 0, "attributes": 3},
        {"number": 0, "color": 0, "shading": 0, "border": 0, "attributes": 4},
        {"number": 0, "color": 0, "shading": 0, "attributes": 5},
    ],
)
def test_cards_refuse_bad_values(kwargs):
    with pytest.raises(CardError):
        Card(**kwargs)


def test_cards_are_frozen_hashable_values():
    card = parse_card("1111")
    with pytest.raises(AttributeError):
        card.number = 0  # type: ignore[misc]
    assert card == Card(1, 1, 1, 1) and hash(card) == hash(Card(1, 1, 1, 1))
    assert card != parse_card("111")  # same values, other deck
    assert not hasattr(card, "__dict__")
    assert pickle.loads(pickle.dumps(card)) == card
    assert dataclasses.replace(card, number=0).digits == "0111"
    with pytest.raises(CardError):
        Card.from_code(81)


def test_parse_cards_refuses_repeats_and_mixed_decks():
    with pytest.raises(RepeatedCardError, match="TWO/PURPLE/STRIPED/OVAL") as caught:
        parse_cards(["0000", "1212", "two purple striped ovals"])
    assert "'two purple striped ovals' repeats '1212'" in str(caught.value)
    with pytest.raises(RepeatedCardError, match="ONE/RED/SOLID/DIAMOND appears twice"):
        parse_cards(["0000", "0000"])
    with pytest.raises(CardError, match="'012' is a 3-attribute card but '0000'"):
        parse_cards(["0000", "012"])
    with pytest.raises(CardError, match="not the text"):
        parse_cards("0000")
    assert parse_cards([]) == []
    assert parse_cards({"0000"}) == [Card(0, 0, 0, 0)]


@settings(max_examples=50)
@given(st.sets(st.integers(0, 80), max_size=20), st.data())
def test_parse_cards_reads_any_mix_of_forms(codes, data):
    cards = [Card.from_code(code) for code in sorted(codes)]
    forms = [
        data.draw(st.sampled_from([card.protocol, card.digits, card.words, card.phrase, card]))
        for card in cards
    ]
    assert parse_cards(forms) == cards


@pytest.mark.parametrize("attributes", [3, 4, 5])
def test_new_deck_is_a_shuffled_whole_deck(attributes):
    deck = new_deck(attributes, rng=random.Random(1))
    assert sorted(deck) == list(all_cards(attributes))
    assert deck != list(all_cards(attributes))


def test_the_same_seed_deals_the_same_deck():
    assert new_deck(rng=42) == new_deck(4, random.Random(42))
    assert new_deck(rng=42) != new_deck(rng=43)
    rng = random.Random(5)
    assert new_deck(rng=rng) != new_deck(rng=rng)  # one generator, two different decks
    assert len(new_deck()) == 81
    with pytest.raises(SetError, match="not a random source"):
        new_deck(rng="seed")  # type: ignore[arg-type]
    with pytest.raises(CardError):
        new_deck(6)


def test_shuffles_are_fair():
    """Every card is equally likely on top (chi-square, 80 degrees of freedom, seeded)."""
    rng = random.Random(2024)
    draws = 81 * 150
    tops = Counter(new_deck(rng=rng)[0].code for _ in range(draws))
    expected = draws / 81
    chi2 = sum((tops.get(code, 0) - expected) ** 2 / expected for code in range(81))
    assert chi2 < 150  # p ≈ 1e-5 for a fair deck


@pytest.mark.parametrize(
    "module",
    [
        "cards.engine",
        "cards.engine.card",
        "cards.engine.deck",
        "cards.engine.errors",
        "cards.engine.fast",
        "cards.engine.fast4",
        "cards.engine.rules",
        "cards.engine.table",
        "cards.engine.table.codes",
        "cards.engine.table.declare",
        "cards.engine.table.kinds",
        "cards.engine.table.memory",
        "cards.engine.table.modes",
        "cards.engine.table.shared",
        "cards.engine.table.state",
        "cards.engine.classic",
        "cards.engine.protocol_text",
        "cards.solitaire",
        "cards.simulate",
        "cards.insights",
    ],
)
def test_the_documentation_examples_hold(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0
    assert result.attempted > 0


@given(st.sampled_from((3, 4, 5)), st.data())
def test_a_claimed_card_is_read_alike_in_every_form(attributes, data):
    """A claim's card is the same card whether named by its digits, its protocol text or a
    phrase, and a form of another deck size is refused (code_of's quick table for digits and
    texts agrees with parse_card)."""
    from cards.engine.card import all_cards
    from cards.engine.errors import CardError
    from cards.engine.table.codes import code_of

    card = data.draw(st.sampled_from(all_cards(attributes)))
    for form in (card.digits, card.protocol, card.protocol.lower(), f" {card.digits} "):
        assert code_of(form, attributes) == card.code
    other = data.draw(st.sampled_from([a for a in (3, 4, 5) if a != attributes]))
    with pytest.raises(CardError):
        code_of(all_cards(other)[0].digits, attributes)
