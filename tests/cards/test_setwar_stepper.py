"""Set War one round at a time: `SetWarTable` on JSON state gives exactly `play_setwar`.

The platform stores a Set War game with its rounds as moves and rebuilds it by stepping, so
the stepper must agree with the engine round for round: on the spec's known games, the
10000-round draw, and hypothesis decks (small ones with round limits, whole shuffled decks).
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.setwar import (
    ALL_CARDS,
    ROUND_LIMIT,
    InvalidCardError,
    SetWarError,
    SetWarTable,
    play_setwar,
    shuffled_deck,
)
from tests.cards.test_setwar import CYCLING_GAMES, DRAW_GAME, KNOWN_GAMES

small_decks = st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=24, unique=True)


def step_through(players, cards, round_limit=ROUND_LIMIT, *, via_json=False):
    """Step a game to its end; return the final state and every round's log entry."""
    state = SetWarTable.new(players, cards, round_limit=round_limit)
    log = []
    while not state["over"]:
        if via_json:  # as the platform stores it between rounds
            state = json.loads(json.dumps(state))
        state, round_ = SetWarTable.step(state)
        log.append(round_)
    return state, log


def assert_same_game(players, cards, round_limit=ROUND_LIMIT, *, via_json=False):
    state, log = step_through(players, cards, round_limit, via_json=via_json)
    result = play_setwar(players, cards, round_limit=round_limit)
    assert log == [round_.to_dict() for round_ in result.log]
    assert (state["winner"], state["round"], state["draw"]) == (
        result.winner,
        result.rounds,
        result.draw,
    )
    assert state["final_line"] == result.final_line
    assert state["last_round"] == log[-1]
    assert sum(map(len, state["piles"])) == len(result.cards)  # no card lost or made
    return state, log


@pytest.mark.parametrize("game", KNOWN_GAMES, ids=str)
def test_stepping_the_known_games_gives_the_programs_line_and_log(game):
    players, cards, line = KNOWN_GAMES[game]
    state, log = assert_same_game(players, cards.split(), via_json=True)
    assert state["final_line"] == line
    assert len(log) == state["round"]


def test_the_worked_trace_of_c5_step_by_step():
    players, cards, _ = KNOWN_GAMES["c5"]
    state = SetWarTable.new(players, cards)
    assert state["piles"] == [["0120", "1112", "1000", "0000"], ["2220", "0001", "2222", "1111"]]
    assert (state["round"], state["starter"], state["over"]) == (0, 0, False)

    state, first = SetWarTable.step(state)
    assert [(p["player"], p["card"]) for p in first["plays"]] == [
        (0, "0120"),
        (1, "2220"),
        (0, "1112"),
        (1, "0001"),
    ]
    assert first["set_cards"] == ["2220", "1112", "0001"]
    assert state["piles"] == [["1000", "0000"], ["2222", "1111", "0120", "2220", "1112", "0001"]]
    assert (state["round"], state["starter"]) == (1, 1)

    state, _ = SetWarTable.step(state)
    state, _ = SetWarTable.step(state)
    assert state["piles"][1] == ["0001"] and state["starter"] == 0
    state, last = SetWarTable.step(state)
    assert last["out"] == [1] and last["set_cards"] is None and last["piles"] == [8, 0]
    assert (state["over"], state["winner"], state["draw"]) == (True, 0, False)
    assert state["final_line"] == "Player 0 won in 4 rounds."


def test_the_10000_round_draw_steps_to_the_same_draw():
    state, log = assert_same_game(*DRAW_GAME)
    assert len(log) == ROUND_LIMIT == state["round"]
    assert state["draw"] and state["winner"] is None
    assert state["final_line"] == "Draw after 10000 rounds."


@pytest.mark.parametrize(("players", "cards"), CYCLING_GAMES[1:])
def test_other_cycling_games_step_to_the_same_draw(players, cards):
    assert_same_game(players, cards, round_limit=500)


def test_a_lone_card_holder_wins_in_one_round_without_a_play():
    state, log = assert_same_game(5, ["1111"])
    assert log == [
        {"number": 1, "plays": [], "taker": 0, "piles": [1], "set_cards": None, "out": []}
    ]
    assert state["final_line"] == "Player 0 won in 1 round."


def test_players_without_cards_sit_out():
    state = SetWarTable.new(10**100, ["0000", "1111", "2221"])
    assert len(state["piles"]) == 3 and state["players"] == 10**100
    assert_same_game(100, ["0000", "1111", "2221"])


def test_a_set_won_in_the_last_allowed_round_is_a_draw():
    players, cards, _ = KNOWN_GAMES["c5"]
    state, _ = assert_same_game(players, cards, round_limit=3)
    assert state["draw"] and state["final_line"] == "Draw after 3 rounds."
    state, _ = assert_same_game(players, cards, round_limit=4)
    assert state["final_line"] == "Player 0 won in 4 rounds."


def test_step_never_changes_the_state_it_is_given():
    players, cards, _ = KNOWN_GAMES["c1"]
    state = SetWarTable.new(players, cards)
    while not state["over"]:
        before = copy.deepcopy(state)
        following, _ = SetWarTable.step(state)
        assert state == before
        state = following


def test_a_finished_game_cannot_step():
    state, _ = step_through(2, KNOWN_GAMES["c5"][1])
    with pytest.raises(SetWarError, match="the game is over: Player 0 won in 4 rounds."):
        SetWarTable.step(state)


@pytest.mark.parametrize(
    ("players", "cards", "message"),
    [
        (0, "0000 1111", "invalid player count: 0"),
        (True, "0000 1111", "invalid player count: True"),
        (2, "", "no cards"),
        (2, "0000 0003 1111 1111", "invalid card: 0003"),
        (2, "0000 1111 0000", "duplicate card: 0000"),
    ],
)
def test_new_refuses_what_the_program_refuses(players, cards, message):
    with pytest.raises(SetWarError) as raised:
        SetWarTable.new(players, cards)
    assert str(raised.value) == message
    with pytest.raises(type(raised.value)):
        play_setwar(players, cards)


def test_a_corrupt_state_is_refused_with_the_bad_card():
    state = SetWarTable.new(2, "0000 1111 2222 1201")
    state["piles"][0][0] = "0009"
    with pytest.raises(InvalidCardError, match="invalid card: 0009"):
        SetWarTable.step(state)


@settings(max_examples=150, deadline=None)
@given(players=st.integers(1, 12), cards=small_decks, round_limit=st.integers(1, 300))
def test_stepping_equals_play_setwar_on_small_decks(players, cards, round_limit):
    assert_same_game(players, cards, round_limit)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_stepping_equals_play_setwar_on_shuffled_decks(players, seed):
    assert_same_game(players, shuffled_deck(seed), via_json=True)
