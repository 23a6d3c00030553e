"""A Set table's options, checked by the engine: types, the one-day bound of the clocks, the
board size within the deck, and a deck in canonical form (``clean_options`` of each rule set)."""

from __future__ import annotations

import pytest

from cards.engine import parse_card
from cards.engine.classic import ClassicRules
from cards.engine.table import MAX_CLOCK_MS, DeclareRules, TableError
from tests.examples import EXAMPLE_DECK


def test_the_clock_bound_is_one_day():
    assert MAX_CLOCK_MS == 24 * 60 * 60 * 1000


@pytest.mark.parametrize("rules", [DeclareRules, ClassicRules])
@pytest.mark.parametrize("value", [MAX_CLOCK_MS + 1, 2**63, 10**40])
def test_away_ms_beyond_a_day_is_refused(rules, value):
    with pytest.raises(TableError) as caught:
        rules.new_state(options={"away_ms": value}, seed=0, now_ms=0)

    assert caught.value.code == "bad_option"
    assert "away_ms" in str(caught.value) and str(MAX_CLOCK_MS) in str(caught.value)


@pytest.mark.parametrize("value", [MAX_CLOCK_MS + 1, 2**63, 10**40])
def test_declare_ms_beyond_a_day_is_refused(value):
    with pytest.raises(TableError, match="declare_ms"):
        DeclareRules.clean_options({"declare_ms": value})


def test_a_day_is_accepted():
    state = DeclareRules.new_state(
        options={"declare_ms": MAX_CLOCK_MS, "away_ms": MAX_CLOCK_MS}, seed=0, now_ms=0
    )
    assert (state.declare_ms, state.away_ms) == (MAX_CLOCK_MS, MAX_CLOCK_MS)


def test_a_huge_number_is_shown_briefly():
    with pytest.raises(TableError) as caught:
        DeclareRules.clean_options({"declare_ms": 10**400})

    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("rules", [DeclareRules, ClassicRules])
@pytest.mark.parametrize("deck", [None, 12, {"a": 1}, "0000 1111 2222"])
def test_a_deck_that_is_not_a_list_is_refused_even_null(rules, deck):
    with pytest.raises(TableError, match="deck"):
        rules.clean_options({"deck": deck})


def test_a_deck_longer_than_the_whole_deck_is_refused_before_reading_its_cards():
    with pytest.raises(TableError, match="81"):
        DeclareRules.clean_options({"deck": ["not a card"] * 10_000})


@pytest.mark.parametrize(("attributes", "largest"), [(3, 27), (4, 81), (5, 243)])
def test_board_size_is_bounded_by_the_whole_deck(attributes, largest):
    assert ClassicRules.clean_options({"attributes": attributes, "board_size": largest}) == {
        "attributes": attributes,
        "board_size": largest,
    }
    with pytest.raises(TableError, match="board_size"):
        ClassicRules.clean_options({"attributes": attributes, "board_size": largest + 3})


def test_only_the_options_given_are_returned_and_the_deck_in_protocol_texts():
    sent = [parse_card(text).phrase for text in EXAMPLE_DECK[:12]]

    assert DeclareRules.clean_options({}) == {}
    assert DeclareRules.clean_options({"deck": sent}) == {"deck": EXAMPLE_DECK[:12]}
    assert ClassicRules.clean_options({"deck": sent, "away_ms": 7}) == {
        "deck": EXAMPLE_DECK[:12],
        "away_ms": 7,
    }


def test_clean_options_gives_the_same_table_as_the_options_themselves():
    options = {"attributes": 4, "deck": [parse_card(t).digits for t in EXAMPLE_DECK]}

    cleaned = DeclareRules.clean_options(options)

    assert DeclareRules.new_state(options=cleaned, seed=1, now_ms=5) == DeclareRules.new_state(
        options=options, seed=1, now_ms=5
    )
