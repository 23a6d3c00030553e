"""A table that waits for its players (issue 24): no cards until a seated player starts it, a
countdown, then the deal, through the rules' tick like every time-driven change. Both rule sets,
every mode; a table dealt when made is stored as it always was."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.classic import ClassicRules
from cards.engine.table import AWAY_MS, DeclareRules, TableError, TableState
from cards.engine.table.base import START_MS

T = 1_700_000_000_000
RULES = {"declare": DeclareRules, "classic": ClassicRules}
TABLES = [
    ("declare", {}),
    ("declare", {"attributes": 3}),
    ("classic", {}),
    ("classic", {"mode": "ultra"}),
    ("classic", {"mode": "chain"}),
    ("classic", {"mode": "puzzle"}),
]


def waiting(rules_name, options, seed=7):
    rules = RULES[rules_name]
    state = rules.new_state(options={**options, "start": "wait"}, seed=seed, now_ms=T)
    state = rules.apply(state, "ann", {"type": "join"}, T + 1).state
    return rules, rules.apply(state, "bo", {"type": "join"}, T + 2).state


@pytest.mark.parametrize("rules_name, options", TABLES)
def test_a_waiting_table_deals_what_a_table_dealt_at_once_deals(rules_name, options):
    rules, state = waiting(rules_name, options)
    view = rules.view(state, "ann", T + 3)
    assert view["status"] == "waiting" and view["board"] == []
    assert view["host"] == "ann" and view["may_start"] is True
    assert view["starts_at"] is None and view["started_at"] is None and view["now"] == T + 3
    assert rules.view(state, "bo", T + 3)["may_start"] is False  # ann is here: hers to press
    assert rules.next_deadline(state) is None

    started = rules.apply(state, "ann", {"type": "start"}, T + 10)
    assert started.event and started.outcome["starts_ms"] == T + 10 + START_MS
    state = started.state
    assert rules.next_deadline(state) == T + 10 + START_MS
    assert rules.view(state, "ann", T + 11)["may_start"] is False
    assert rules.tick(state, T + 10 + START_MS - 1).state is state  # not yet

    dealt = rules.tick(state, T + 10 + START_MS)
    assert dealt.event and dealt.outcome["expired"][0] == {
        "kind": "dealt",
        "at": T + 10 + START_MS,
        "over": False,
    }
    at_once = rules.new_state(options=options, seed=7, now_ms=T)
    assert dealt.state.board == at_once.board and dealt.state.deck == at_once.deck
    view = rules.view(dealt.state, "bo", T + 10 + START_MS)
    assert view["status"] == "active" and view["board"]
    assert view["started_at"] == T + 10 + START_MS and view["host"] is None
    assert TableState.from_json(dealt.state.to_json()) == dealt.state


@pytest.mark.parametrize("rules_name", ["declare", "classic"])
def test_a_table_dealt_at_once_is_stored_as_before_and_says_it_is_active(rules_name):
    rules = RULES[rules_name]
    state = rules.new_state(options={"start": "now"}, seed=3, now_ms=T)
    assert state == rules.new_state(options={}, seed=3, now_ms=T)
    assert "waiting" not in state.to_json() and "starts_ms" not in state.to_json()
    view = rules.view(state, None, T)
    assert (view["status"], view["started_at"], view["starts_at"], view["host"]) == (
        "active",
        T,
        None,
        None,
    )


@pytest.mark.parametrize("rules_name", ["declare", "classic"])
def test_who_may_start_and_what_a_second_start_gets(rules_name):
    rules, state = waiting(rules_name, {})
    with pytest.raises(TableError) as caught:
        rules.apply(state, "bo", {"type": "start"}, T + 5)
    assert caught.value.code == "not_host" and caught.value.refusal == "forbidden"
    assert "Only ann" in str(caught.value)
    with pytest.raises(TableError) as caught:
        rules.apply(state, "cy", {"type": "start"}, T + 5)
    assert caught.value.code == "not_seated"
    # Once the host is away, anyone seated may start.
    later = T + 2 + AWAY_MS
    state = rules.apply(state, "bo", {"type": "look"}, later).state
    assert rules.view(state, "bo", later)["may_start"] is True
    state = rules.apply(state, "bo", {"type": "start"}, later).state
    for when in (later + 1, later + START_MS + 1):  # counting down, then dealt
        with pytest.raises(TableError) as caught:
            rules.apply(state, "ann", {"type": "start"}, when)
        assert caught.value.code == "already_started" and caught.value.refusal == "conflict"


@pytest.mark.parametrize("rules_name", ["declare", "classic"])
def test_a_move_before_the_deal_is_refused_by_name(rules_name):
    rules, state = waiting(rules_name, {})
    moves = [{"type": "hint"}, {"type": "count"}]
    moves += (
        [{"type": "declare"}, {"type": "add"}, {"type": "pick", "row": 0, "col": 0}]
        if rules_name == "declare"
        else [{"type": "claim", "cards": ["ONE/RED/SOLID/OVAL"] * 3}]
    )
    for move in moves:
        with pytest.raises(TableError) as caught:
            rules.apply(state, "ann", move, T + 5)
        assert caught.value.code == "not_started" and caught.value.refusal == "conflict"
        assert "has not started yet" in str(caught.value)


def test_the_start_option_is_now_or_wait():
    for rules in RULES.values():
        assert rules.clean_options({"start": "wait"}) == {"start": "wait"}
        with pytest.raises(TableError) as caught:
            rules.clean_options({"start": "later"})
        assert caught.value.code == "bad_option" and "'now'" in str(caught.value)


ACTIONS = st.sampled_from(
    [
        {"type": "join"},
        {"type": "look"},
        {"type": "hint"},
        {"type": "count"},
        {"type": "declare"},
        {"type": "add"},
        {"type": "pick", "row": 0, "col": 1},
        {"type": "claim", "cards": ["ONE/RED/SOLID/OVAL", "TWO/RED/SOLID/OVAL"]},
        {"type": "watch"},
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    rules_name=st.sampled_from(["declare", "classic"]),
    seed=st.integers(0, 2**32),
    moves=st.lists(
        st.tuples(st.sampled_from(["ann", "bo", "cy"]), ACTIONS, st.integers(0, 10 * AWAY_MS)),
        max_size=12,
    ),
)
def test_no_move_before_the_deal_touches_the_cards_and_every_state_reads_back(
    rules_name, seed, moves
):
    rules = RULES[rules_name]
    state = rules.new_state(options={"start": "wait"}, seed=seed, now_ms=T)
    deck, now = state.deck, T
    for player, action, wait in moves:
        now += wait
        try:
            state = rules.apply(state, player, action, now).state
        except TableError as error:
            assert error.code in ("not_started", "bad_action", "not_seated", "bad_pick")
        assert state.waiting and state.deck == deck and not state.board_cards
        assert set(state.scores.values()) <= {0} and not state.tally and not state.hints
        assert TableState.from_json(state.to_json()) == state
    if state.players:
        host = state.players[0]
        state = rules.apply(state, host, {"type": "start"}, now).state
        dealt = rules.tick(state, now + START_MS).state
        assert not dealt.waiting and dealt.board_cards and dealt.started_ms == now + START_MS
        assert TableState.from_json(dealt.to_json()) == dealt
