"""The rules through the public API: opening, placements, turns, the end, queries and views."""

import json
import random

import pytest

from squaregame.engine import (
    PASS,
    GameState,
    IllegalMoveError,
    Move,
    Reason,
    SquareGameError,
    Status,
    apply,
    choose_move,
    has_legal_placement,
    legal_placements,
    new_game,
    play,
    run_test_file,
    start_from_board,
    view,
)


def place(piece, permutation, x, y):
    return {"type": "place", "piece": piece, "permutation": permutation, "x": x, "y": y}


@pytest.fixture
def opened():
    """Return a 4-player game after seat 4's opening 13/4 (seat 1 to move)."""
    return play(new_game(4), 4, place(13, 4, 15, 15))[0]


# -- creation and the opening ---------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 1, 5, "4", None, True])
def test_a_game_has_two_to_four_players(players):
    with pytest.raises(SquareGameError, match="2 to 4 players"):
        new_game(players)


def test_a_new_game_waits_for_the_last_seat_to_open():
    state = new_game(3, seed=9)
    assert state.current == 3 and not state.started and state.seed == 9
    assert all(state.hand(seat) == tuple(range(1, 17)) for seat in state.seats)
    assert len(legal_placements(state)) == 128
    assert {(m.x, m.y) for m in legal_placements(state)} == {(15, 15)}


def test_the_opening_is_not_a_turn_and_returns_2(opened):
    assert opened.started and opened.current == 1 and opened.moves_left == 1
    assert 13 not in opened.hand(4)
    assert opened.last.status is Status.NEXT


@pytest.mark.parametrize(
    ("seat", "action", "reason"),
    [
        (1, PASS, Reason.NOT_STARTED),
        (4, PASS, Reason.NOT_STARTED),
        (1, place(13, 4, 15, 15), Reason.NOT_STARTED),
        (2, {"type": "opening", "piece": 13, "permutation": 4}, Reason.NOT_YOUR_TURN),
        (4, place(13, 4, 16, 15), Reason.OPENING_POSITION),
        (4, place(13, 9, 15, 15), Reason.BAD_PERMUTATION),
        (4, place(17, 1, 15, 15), Reason.PIECE_UNAVAILABLE),
    ],
)
def test_before_the_opening_only_seat_n_may_open(seat, action, reason):
    state = new_game(4)
    after, outcome = play(state, seat, action)
    assert (outcome.status, outcome.reason) == (Status.ERROR, reason)
    assert after is state


def test_an_opening_after_the_start_returns_minus_1(opened):
    outcome = play(opened, 4, {"type": "opening", "piece": 1, "permutation": 1})[1]
    assert outcome.reason is Reason.ALREADY_STARTED


# -- regular placements ---------------------------------------------------------------------


def test_legal_placements_after_the_opening_match_the_spec_check_value(opened):
    moves = legal_placements(opened)
    assert len(moves) == 135
    assert moves == sorted(moves)
    assert Move(9, 1, 16, 16) in moves and Move(9, 3, 15, 14) in moves


@pytest.mark.parametrize(
    ("seat", "action", "reason"),
    [
        (2, place(9, 1, 16, 16), Reason.NOT_YOUR_TURN),
        (1, place(13, 4, 15, 15), Reason.LINE_TAKEN),
        (1, place(9, 1, 25, 25), Reason.NO_NEW_SQUARE),
        (1, place(15, 5, 15, 15), Reason.CROSSING),
        (1, place(9, 1, 0, 0), Reason.OUT_OF_BOUNDS),
        (1, place(9, 0, 16, 16), Reason.BAD_PERMUTATION),
        (1, place(0, 1, 16, 16), Reason.PIECE_UNAVAILABLE),
        (1, {"type": "place", "piece": 9, "permutation": 1}, Reason.MALFORMED),
        (1, {"type": "jump"}, Reason.MALFORMED),
        (1, "pass", Reason.MALFORMED),
        ("1", PASS, Reason.MALFORMED),
    ],
)
def test_refused_actions_say_why_and_change_nothing(opened, seat, action, reason):
    before = opened.to_dict()
    after, outcome = play(opened, seat, action)
    assert (outcome.status, outcome.reason) == (Status.ERROR, reason)
    assert outcome.message
    assert after is opened and after.to_dict() == before
    with pytest.raises(IllegalMoveError) as caught:
        apply(opened, seat, action)
    assert caught.value.reason is reason
    assert str(caught.value) == outcome.message


def test_a_piece_can_be_used_once_per_player(opened):
    state = play(opened, 1, place(9, 1, 16, 16))[0]
    outcome = play(state, 1, place(9, 3, 15, 14))[1]
    assert outcome.reason is Reason.PIECE_UNAVAILABLE
    assert "already played" in outcome.message


def test_apply_returns_the_outcome_and_where_the_game_stands(opened):
    state, outcome = apply(opened, 1, place(9, 1, 16, 16))
    json.dumps(outcome)
    assert outcome["status"] == 1 and outcome["to_move"] == 1 and outcome["moves_left"] == 1
    assert sorted(map(tuple, outcome["squares"])) == [(15, 14), (16, 14)]
    assert "moves again" in outcome["message"]


def test_a_pass_forfeits_extra_moves_and_never_returns_1(opened):
    state = play(opened, 1, place(9, 1, 16, 16))[0]
    assert state.moves_left == 1
    state, outcome = play(state, 1, PASS)
    assert outcome.status is Status.PASSED
    assert state.current == 2 and state.moves_left == 1


def test_passes_go_round_the_table_and_the_game_goes_on(opened):
    state = opened
    for seat in (1, 2, 3, 4, 1):
        state, outcome = play(state, seat, PASS)
        assert outcome.status is Status.PASSED
    assert state.current == 2 and not state.over


# -- the end --------------------------------------------------------------------------------


def preloaded(keep):
    """Return a started game where each seat in ``keep`` holds only its kept pieces."""
    spots = iter((2 + 3 * i, 2 + 4 * j) for j in range(8) for i in range(11))
    entries = []
    for seat, kept in keep.items():
        entries += [(seat, piece, 1, *next(spots)) for piece in range(1, 17) if piece not in kept]
    return start_from_board(4, entries)


def test_finishing_starts_a_final_round_for_the_seats_after(opened):
    state = preloaded({2: {9}})
    state = play(state, 1, PASS)[0]
    move = legal_placements(state)[0]
    state, outcome = play(state, 2, move.to_action())
    assert outcome.status is Status.FINAL_ROUND
    assert state.winners == (2,) and state.active == (1, 3, 4)
    assert state.final_round == 2 and state.current == 3
    state = play(state, 3, PASS)[0]
    state, outcome = play(state, 4, PASS)
    assert outcome.status is Status.GAME_OVER and state.over and state.to_move is None
    assert legal_placements(state) == []
    assert play(state, 1, PASS)[1].reason is Reason.GAME_OVER


def test_the_dead_position_rule_needs_every_active_seat_stuck():
    state = preloaded({2: {9}})
    assert has_legal_placement(state, 2)
    assert not state.over


def test_choose_move_takes_the_most_squares_and_is_reproducible(opened):
    action = choose_move(opened, random.Random(3))
    assert action == choose_move(opened, random.Random(3))
    best = play(opened, 1, action)[1]
    assert len(best.squares) == 3  # 13/2 at (16,14) closes 3: the most there is
    assert all(
        len(play(opened, 1, move.to_action())[1].squares) <= 3 for move in legal_placements(opened)
    )


def test_choose_move_passes_when_nothing_fits(json_tests):
    # the board of dead_position.json, just before the game was declared over
    final = run_test_file(json_tests / "dead_position.json").state
    stuck = GameState.from_dict({**final.to_dict(), "over": False, "current": 2})
    assert legal_placements(stuck) == []
    assert choose_move(stuck, random.Random(0)) == PASS


def test_choose_move_opens_the_game_and_refuses_after_the_end():
    state = new_game(2)
    action = choose_move(state, random.Random(1))
    assert play(state, 2, action)[1].status is Status.NEXT
    over = GameState.from_dict({**state.to_dict(), "over": True, "current": None})
    with pytest.raises(SquareGameError, match="over"):
        choose_move(over, random.Random(1))


def test_a_whole_bot_game_ends_with_winners():
    rng = random.Random(11)
    state = new_game(3, seed=11)
    while not state.over:
        state, outcome = apply(state, state.to_move, choose_move(state, rng))
    assert state.winners and outcome["status"] == 5 and outcome["winners"] == list(state.winners)


# -- state as data --------------------------------------------------------------------------


def test_view_shows_board_squares_hands_turn_and_last_status(opened):
    state = play(opened, 1, place(9, 1, 16, 16))[0]
    seen = view(state, 2)
    json.dumps(seen)
    assert seen["viewer"] == 2 and seen["phase"] == "playing" and seen["to_move"] == 1
    assert len(seen["board"]) == 5 + 3
    assert {tuple(s["cell"]): s["seat"] for s in seen["squares"]} == {(15, 14): 1, (16, 14): 1}
    assert seen["seats"][0]["squares"] == 2 and 9 not in seen["seats"][0]["hand"]
    assert seen["last"]["status"] == 1 and seen["winners"] == []


def test_view_before_the_opening_and_after_the_end():
    assert view(new_game(2))["phase"] == "opening"
    state = preloaded({4: {9}})
    for seat in (1, 2, 3):
        state = play(state, seat, PASS)[0]
    state = play(state, 4, legal_placements(state)[0].to_action())[0]
    seen = view(state)
    assert seen["phase"] == "over" and seen["winners"] == [4] and seen["to_move"] is None


def test_state_round_trips_through_json(opened):
    state = play(opened, 1, place(9, 1, 16, 16))[0]
    again = GameState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again == state
    assert legal_placements(again) == legal_placements(state)


@pytest.mark.parametrize(
    "broken",
    [None, [], {"format": 2}, {"format": 1}, {"format": 1, "players": 9}],
)
def test_a_broken_state_dict_is_refused_in_words(broken):
    with pytest.raises(SquareGameError):
        GameState.from_dict(broken)


def test_a_preloaded_board_skips_square_and_contact_checks_but_not_crossing():
    state = start_from_board(4, [(4, 13, 4, 15, 15), (1, 9, 1, 3, 3)])
    assert state.started and state.current == 1 and state.moves_left == 1
    with pytest.raises(IllegalMoveError, match="board entry 2: .*cross"):
        start_from_board(4, [(4, 15, 7, 10, 20), (1, 15, 2, 10, 20)])
