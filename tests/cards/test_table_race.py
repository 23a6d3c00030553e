"""Set-N races at a classic table (cards.engine.table.race): the game ends at the N-th set
found, not before; its options are refused with a sentence; its view shows the target, the sets
and the time; random play never goes past N sets and keeps the JSON form lossless."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.bot import set_table_actions
from cards.engine.classic import ClassicRules as R
from cards.engine.fast import find_set_codes
from cards.engine.table import TableError, TableState
from cards.engine.table.codes import is_set, texts_of
from cards.rules import SetTable
from games.errors import RuleError

T = 1_700_000_000_000


def race(target: int, *players: str, seed: int = 7, **options):
    state = R.new_state(options={"race": target, **options}, seed=seed, now_ms=T)
    for name in players:
        state = R.apply(state, name, {"type": "join"}, T).state
    return state


def take_a_set(state, player, at):
    cards = find_set_codes(state.board, state.attributes)
    return R.apply(state, player, {"type": "claim", "cards": texts_of(cards, 4)}, at).state


@pytest.mark.parametrize("target", [10, 20, 30])
def test_a_race_ends_at_its_nth_set_and_not_before(target):
    state = race(target, "ann")
    for found in range(1, target + 1):
        assert not state.over, f"still running before set {found}"
        state = take_a_set(state, "ann", T + 1000 * found)
        assert len(state.board) <= 12 or find_set_codes(state.board[:12], 4) is None
    assert state.over and state.ended_ms == T + 1000 * target
    assert state.scores["ann"] == target
    with pytest.raises(TableError, match="The game is over"):
        take_a_set(state, "ann", T + 1000 * (target + 1))
    view = R.view(state, "ann", T + 999_999)
    assert view["race"]["result"] == {
        "finished": True,
        "ms": 1000 * target,
        "winner": "ann",
        "order": ["ann"],
    }
    assert view["race"]["elapsed_ms"] == 1000 * target  # the clock stopped at the N-th set


def test_a_race_to_thirty_runs_past_the_81_cards_by_shuffling_the_found_sets_back():
    state = race(30, "ann", seed=11)
    dealt = sorted(state.board + state.deck)
    for found in range(30):
        state = take_a_set(state, "ann", T + found + 1)
        assert sorted(state.board + state.deck + state.taken) == dealt, "no card lost or doubled"
    assert state.over and state.scores["ann"] == 30


def test_the_view_shows_the_target_the_sets_and_the_time_so_far():
    state = race(10, "ann", "bo")
    view = R.view(state, "ann", T + 2500)
    assert view["race"]["target"] == 10
    assert view["race"]["found"] == 0
    assert view["race"]["elapsed_ms"] == 2500
    assert view["race"]["result"] is None
    state = take_a_set(state, "bo", T + 4000)
    view = R.view(state, None, T + 5000)
    assert view["race"]["found"] == 1
    assert view["race"]["sets"] == [{"player": "bo", "ms": 4000}]
    assert view["race"]["players"] == {
        "ann": {"sets": 0, "last_ms": None},
        "bo": {"sets": 1, "last_ms": 4000},
    }
    assert "race" not in R.view(R.new_state(seed=7, now_ms=T), None, T)


def test_a_waiting_race_has_no_time_until_its_deal():
    state = race(10, "ann", start="wait")
    assert R.view(state, "ann", T + 10)["race"]["elapsed_ms"] is None
    state = R.apply(state, "ann", {"type": "start"}, T + 100).state
    started = state.starts_ms
    assert R.view(state, "ann", started + 700)["race"]["elapsed_ms"] == 700


def test_a_tie_of_sets_goes_to_whoever_found_their_last_set_first():
    state = race(10, "ann", "bo")
    for found in range(10):
        state = take_a_set(state, ["ann", "bo"][found % 2], T + 1000 * (found + 1))
    view = R.view(state, None, T + 20_000)
    # 5 each; bo's last set came at 10 s, ann's at 9 s: ann wins.
    assert view["race"]["players"]["ann"] == {"sets": 5, "last_ms": 9000}
    assert view["race"]["result"]["winner"] == "ann"
    assert view["result"]["winners"] == ["ann"]


def test_a_wrong_claim_neither_counts_nor_ends_a_race():
    state = race(10, "ann", "bo")
    wrong = next(c for c in combinations(state.board, 3) if not is_set(c, 4))
    state = R.apply(state, "ann", {"type": "claim", "cards": texts_of(wrong, 4)}, T + 5).state
    assert R.view(state, None, T + 6)["race"]["found"] == 0 and not state.over


def test_a_race_always_reaches_its_target_even_from_a_small_deck():
    deck = ["ONE/RED/SOLID/OVAL", "TWO/RED/SOLID/OVAL", "THREE/RED/SOLID/OVAL"]
    deck += ["ONE/GREEN/OPEN/OVAL", "ONE/GREEN/STRIPED/OVAL", "ONE/PURPLE/OPEN/SQUIGGLE"]
    state = race(10, "ann", deck=deck, board_size=3)
    for found in range(10):  # the set found goes back into the pile: there is always a set
        state = take_a_set(state, "ann", T + found + 1)
    assert state.over and R.view(state, "ann", T + 20)["race"]["result"]["finished"]


def test_a_chosen_deck_with_no_set_at_all_ends_an_unfinished_race_with_no_time():
    deck = ["ONE/RED/SOLID/OVAL", "TWO/RED/SOLID/OVAL", "ONE/GREEN/OPEN/OVAL"]
    state = race(10, "ann", deck=deck, board_size=3)
    assert state.over
    result = R.view(state, "ann", T + 600)["race"]["result"]
    assert result == {"finished": False, "ms": None, "winner": None, "order": []}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"race": 15}, "The race option is 10, 20 or 30 (sets to find); got 15."),
        ({"race": "10"}, "The race option is 10, 20 or 30 (sets to find); got '10'."),
        ({"race": True}, "The race option is 10, 20 or 30 (sets to find); got True."),
        ({"race": None}, "The race option is 10, 20 or 30 (sets to find); got None."),
        ({"race": 10, "mode": "ultra"}, "A race is played in the normal mode only"),
        ({"race": 10, "mode": "puzzle"}, "A race is played in the normal mode only"),
        ({"race": 10, "practice": True}, "A race is timed: it cannot be a practice table"),
    ],
)
def test_bad_race_options_are_refused_with_a_sentence(options, message):
    with pytest.raises(TableError, match=message.replace("(", r"\(").replace(")", r"\)")):
        R.clean_options(options)
    with pytest.raises(RuleError) as caught:
        SetTable().options({"rules": "classic", **options})
    assert message in caught.value.message


def test_a_declare_table_is_no_race():
    with pytest.raises(RuleError) as caught:
        SetTable().options({"rules": "declare", "race": 10})
    assert caught.value.message == (
        "A race is played at a classic table (claims of three cards at once), not a declare table."
    )


def test_the_platform_stores_the_race_and_never_rates_it():
    rules = SetTable()
    options = rules.options({"rules": "classic", "race": 20})
    assert options == {"rules": "classic", "race": 20, "start": "wait"}
    assert rules.rating_mode(options) is None
    assert "race" in rules.unrated_options(options).lower()
    assert rules.describe(options) == "Classic, Set-20 race"


@settings(max_examples=40, deadline=None)
@given(
    target=st.sampled_from([10, 20, 30]),
    seed=st.integers(0, 2**32),
    steps=st.lists(
        st.tuples(
            st.sampled_from(["ann", "bo"]),
            st.sampled_from(["good", "good", "good", "random", "hint"]),
            st.lists(st.integers(0, 30), min_size=3, max_size=3),
        ),
        max_size=80,
    ),
)
def test_random_races_never_go_past_n_sets_and_round_trip_through_json(target, seed, steps):
    state = race(target, "ann", "bo", seed=seed)
    dealt = sorted(state.board + state.deck)
    now = T
    for player, kind, picks in steps:
        now += 100
        previous, before = state, state.to_json()
        if kind == "hint":
            action = {"type": "hint"}
        elif kind == "good":
            actions = set_table_actions(state, player)
            if not actions:
                continue
            action = actions[0]
        else:
            pool = state.board + state.taken[-3:]
            action = {"type": "claim", "cards": texts_of([pool[i % len(pool)] for i in picks], 4)}
        try:
            result = R.apply(state, player, action, now)
        except TableError:
            assert state.to_json() == before, "a refused claim changes nothing"
            continue
        state = result.state
        assert sorted(state.board + state.deck + state.taken) == dealt
        assert sum(state.scores.values()) == len(state.race.sets) <= target
        assert state.over == (len(state.race.sets) == target)
        assert TableState.from_json(json.loads(json.dumps(state.to_json()))) == state
        assert TableState.from_json(state.to_json(like=(previous, before))) == state


def test_the_table_log_ends_a_race_with_its_winner_and_time():
    from cards.story import table_story

    state = race(10, "ann", "bo")
    moves = []
    for found in range(10):
        player = ["ann", "bo"][found % 2]
        cards = find_set_codes(state.board, 4)
        at = T + 1000 * (found + 1)
        result = R.apply(state, player, {"type": "claim", "cards": texts_of(cards, 4)}, at)
        state = result.state
        moves.append((found, player, {"type": "claim"}, result.outcome, at))
    stored = state.to_json()
    options = {"rules": "classic", "race": 10}
    entries = table_story(options, moves, viewer=None, over=True, state=stored)
    assert entries[-1]["text"] == (
        "Set-10 race over in 10.00 s: ann wins with 5 sets (first to their last set)."
    )
    alone = race(10, "ann")
    for found in range(10):
        alone = take_a_set(alone, "ann", T + 500 * (found + 1))
    entries = table_story(options, moves[-1:], viewer=None, over=True, state=alone.to_json())
    assert entries[-1]["text"] == "Set-10 race over: ann found 10 sets in 5.00 s."
