"""Seed 001's functions on cards written as four-word tuples."""

import doctest
import random

import pytest

import cards.tuples
from cards.engine import CardError, RepeatedCardError
from cards.tuples import DECK, features, isset, random_card, random_cards, sets
from tests.examples import PICTURE_001 as PICTURE


def test_every_example_of_the_seed_runs_as_a_doctest():
    result = doctest.testmod(cards.tuples)
    assert result.failed == 0
    assert result.attempted >= 13  # 3 features, 3 isset, 4 sets, and the random checks


def test_features_in_the_seed_order():
    assert features(
        ("one", "striped", "green", "oval"),
        ("two", "striped", "green", "squiggle"),
        ("three", "striped", "purple", "diamond"),
    ) == (
        {"one", "two", "three"},
        {"striped"},
        {"green", "purple"},
        {"oval", "diamond", "squiggle"},
    )


def test_isset_on_the_seed_examples():
    assert (
        isset(
            ("one", "open", "green", "diamond"),
            ("two", "open", "red", "diamond"),
            ("three", "open", "purple", "diamond"),
        )
        is True
    )
    assert (
        isset(
            ("one", "striped", "green", "oval"),
            ("two", "striped", "green", "squiggle"),
            ("three", "striped", "purple", "diamond"),
        )
        is False
    )


def test_the_pictured_table_holds_five_sets_whatever_the_collection():
    assert sets(PICTURE) == 5
    assert sets(tuple(PICTURE)) == 5
    assert sets(set(PICTURE)) == 5
    assert sets([]) == 0
    assert sets(DECK) == 1080


def test_the_deck_is_written_in_the_seed_order():
    assert len(DECK) == len(set(DECK)) == 81
    assert ("three", "striped", "green", "diamond") in DECK
    assert all(card[1] in ("solid", "striped", "open") for card in DECK)


def test_random_card_draws_a_card_of_the_deck():
    random.seed(1)
    drawn = {random_card() for _ in range(400)}
    assert drawn <= set(DECK)
    assert len(drawn) > 60  # not stuck on a few cards
    assert all(type(card) is tuple and len(card) == 4 for card in drawn)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 12, 81])
def test_random_cards_is_a_set_of_n_distinct_cards(n):
    hand = random_cards(n)
    assert type(hand) is set
    assert len(hand) == n
    assert hand <= set(DECK)


@pytest.mark.parametrize("n", [-1, 82, 2.0, "3", True, None])
def test_random_cards_refuses_impossible_counts(n):
    with pytest.raises(ValueError, match=f"can draw 0 to 81 distinct cards, not {n!r}"):
        random_cards(n)


def test_bad_cards_are_named():
    with pytest.raises(CardError, match="'blue' is not a color"):
        isset(("one", "open", "blue", "diamond"), DECK[0], DECK[1])
    with pytest.raises(CardError, match="'green' is not a shading"):
        features(("one", "green", "open", "diamond"), DECK[0], DECK[1])
    with pytest.raises(RepeatedCardError):
        sets([DECK[0], DECK[1], DECK[0]])
