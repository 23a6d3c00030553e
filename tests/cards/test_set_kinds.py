"""Kinds of set (how many attributes differ among three cards) and the classic table's favour
option, which deals the chosen kinds more often, the same way for the same seed."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.classic import ClassicRules
from cards.engine.fast import all_sets_codes, digits_of, third_code
from cards.engine.table import TableError
from cards.engine.table.codes import texts_of
from cards.engine.table.kinds import (
    differing,
    favoured_deck,
    kind_key,
    kind_of,
    sets_by_kind,
)


def test_kinds_in_a_whole_deck_are_as_counted_by_hand():
    # C(4, d) choices of the differing attributes, 3 ** (4 - d) values for the alike ones and
    # 6 ** (d - 1) unordered ways to spread the differing ones.
    assert sets_by_kind(range(81), 4) == Counter({1: 108, 2: 324, 3: 432, 4: 216})
    assert sum(sets_by_kind(range(243), 5).values()) == 243 * 242 // 6


def test_a_wrong_claim_has_a_kind_too():
    one, two, four = int("0000", 3), int("0001", 3), int("1001", 3)
    assert differing([one, two, four], 4) == 2  # number and shape are not all alike


@given(
    attributes=st.sampled_from([3, 4, 5]),
    data=st.data(),
)
def test_a_sets_kind_is_where_its_first_two_cards_differ(attributes, data):
    size = 3**attributes
    a = data.draw(st.integers(0, size - 1))
    b = data.draw(st.integers(0, size - 1).filter(lambda code: code != a))
    c = third_code(a, b, attributes)
    apart = sum(
        x != y for x, y in zip(digits_of(a, attributes), digits_of(b, attributes), strict=True)
    )
    assert differing([a, b, c], attributes) == apart
    assert 1 <= differing([a, b, c], attributes) <= attributes
    assert differing([c, a, b], attributes) == differing([a, b, c], attributes)


@given(attributes=st.sampled_from([3, 4, 5]), key=st.text(max_size=12))
def test_only_differ_names_within_the_deck_are_kinds(attributes, key):
    count = kind_of(key, attributes)
    assert count is None or (key == kind_key(count) and 1 <= count <= attributes)


@pytest.mark.parametrize("attributes", [3, 4, 5])
def test_every_kind_name_round_trips(attributes):
    for count in range(1, attributes + 1):
        assert kind_of(kind_key(count), attributes) == count
    assert kind_of(kind_key(attributes + 1), attributes) is None
    assert kind_of("differ-0", attributes) is None


def _sets_dealt(options, seed, boards=6):
    """The kinds of the sets on the first boards of a table, a set taken from each."""
    state = ClassicRules.new_state(options={"start": "now", **options}, seed=seed)
    state = ClassicRules.apply(state, "p", {"type": "join"}, 1).state
    seen: Counter[int] = Counter()
    for _ in range(boards):
        if state.over:
            break
        seen.update(sets_by_kind(state.board, state.attributes))
        cards = texts_of(all_sets_codes(state.board, state.attributes)[0], state.attributes)
        state = ClassicRules.apply(state, "p", {"type": "claim", "cards": cards}, 2).state
    return seen


@pytest.mark.parametrize("seed", range(5))
def test_a_favoured_deal_holds_more_sets_of_its_kinds(seed):
    plain = _sets_dealt({}, seed)
    favoured = _sets_dealt({"favour": ["differ-1"]}, seed)
    share = lambda counts: counts[1] / sum(counts.values())  # noqa: E731
    assert share(favoured) > share(plain)
    assert share(favoured) >= 0.4  # a whole deck has 10% of them


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    kinds=st.sets(
        st.sampled_from(["differ-1", "differ-2", "differ-3", "differ-4"]), min_size=1, max_size=3
    ),
)
def test_a_favoured_deal_is_the_same_for_the_same_seed_and_keeps_every_card(seed, kinds):
    options = {"favour": sorted(kinds)}
    first = ClassicRules.new_state(options=options, seed=seed)
    again = ClassicRules.new_state(options=options, seed=seed)
    assert first.to_json() == again.to_json()
    cards = first.board + first.deck
    assert sorted(cards) == list(range(81))
    # The first board's cards come as whole sets of the chosen kinds.
    for start in range(0, 12, 3):
        trio = first.board[start : start + 3]
        if third_code(trio[0], trio[1], 4) == trio[2]:
            assert kind_key(differing(trio, 4)) in kinds


def test_the_favoured_order_is_a_pure_function_of_the_deck():
    deck = list(range(81))[::-1]
    assert favoured_deck(deck, 4, ["differ-2"]) == favoured_deck(deck, 4, ["differ-2"])
    trios = [favoured_deck(deck, 4, ["differ-2"])[i : i + 3] for i in range(0, 81, 3)]
    whole = [t for t in trios if third_code(t[0], t[1], 4) == t[2]]
    assert len(whole) >= 20 and all(differing(t, 4) == 2 for t in whole)


@pytest.mark.parametrize(
    ("favour", "words"),
    [
        ([], "list of kinds of set"),
        ("differ-1", "list of kinds of set"),
        (["differ-0"], "'differ-0'"),
        (["differ-5"], "\"differ-4\"; got 'differ-5'"),
        ([1], "got 1"),
        (["differ-1", "differ-2", "differ-3", "differ-4"], "leave out at least one kind"),
    ],
)
def test_bad_favour_values_are_refused_with_a_sentence(favour, words):
    with pytest.raises(TableError) as caught:
        ClassicRules.new_state(options={"favour": favour}, seed=1)
    assert caught.value.code == "bad_option"
    assert words in str(caught.value)


def test_favour_is_for_the_shuffled_deck_of_a_normal_table():
    with pytest.raises(TableError, match="leave out the mode and deck options"):
        ClassicRules.clean_options({"favour": ["differ-1"], "mode": "ultra"})
    assert ClassicRules.clean_options({"favour": ["differ-2", "differ-1", "differ-2"]}) == {
        "favour": ["differ-1", "differ-2"]
    }


def test_no_pair_of_cards_is_dealt_twice():
    deck = favoured_deck(range(27), 3, ["differ-3"])
    assert len(set(deck)) == 27
    assert all(a != b for a, b in combinations(deck, 2))
