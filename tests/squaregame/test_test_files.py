"""The test files of the original format: the simulator's 8, and this project's own."""

import json

import pytest

from squaregame.engine import load, replay, run_test_file
from squaregame.engine.runner import run_suite

ORIGINAL_FILES = {
    "3_squares.json",
    "add_same_piece.json",
    "crossing_pieces.json",
    "full_game.json",
    "load_board.json",
    "no_closed_square.json",
    "tested_store.json",
    "turns_management.json",
}

#: Why each refused move of our own files is refused (None: accepted), so that a file cannot
#: pass by returning -1 for the wrong reason.
REASONS = {
    "bounds_left_edge.json": ["out_of_bounds", None],
    "bounds_right_edge.json": ["out_of_bounds", None],
    "bounds_bottom_edge.json": ["out_of_bounds", None],
    "bounds_top_edge.json": ["out_of_bounds", None],
    "crossing_spec_example.json": ["crossing", None],
    "crossing_positions.json": ["crossing"] * 8 + [None],
    "crossing_straight_run_of_two_placements.json": [None],
    "junctions_t_and_corners.json": [None] * 7,
    "opening_permutation_6.json": [None, "no_new_square", None],
    "opening_permutation_8.json": [None, "line_taken", None],
    "final_last_seat_ends_game.json": [None, None, None, None, "game_over", "game_over"],
    "final_two_seats_finish_in_one_round.json": [None] * 5 + ["game_over"] * 2,
    "final_first_seat_finishes.json": [None, "not_your_turn", None, None, None, "game_over"],
    "dead_position.json": [None, "game_over", "game_over", "game_over"],
    "malformed_moves.json": [None] + ["malformed"] * 7 + [None],
    "piece_and_permutation_range.json": [
        None,
        "piece_unavailable",
        "piece_unavailable",
        "bad_permutation",
        "bad_permutation",
        None,
        "piece_unavailable",
    ],
    "board_entry_needs_no_square.json": ["not_your_turn", None, None],
}


def test_all_eight_original_test_files_pass(shared_tests):
    files = sorted(shared_tests.glob("*.json"))
    assert {path.name for path in files} == ORIGINAL_FILES
    for path in files:
        result = run_test_file(path)
        assert result.passed, f"{path.name}: expected {result.expected}, got {result.actual}"


def test_full_game_ends_with_seat_3_the_only_winner(shared_tests):
    state = run_test_file(shared_tests / "full_game.json").state
    assert state.over and not state.dead_position
    assert state.winners == (3,)
    assert [len(state.hand(seat)) for seat in state.seats] == [9, 7, 0, 9]


def test_3_squares_extra_moves_add_up(shared_tests):
    outcomes = replay(json.loads((shared_tests / "3_squares.json").read_text())).outcomes
    assert [len(o.squares) for o in outcomes] == [3, 1, 0, 2]
    assert outcomes[2].reason == "not_your_turn"


def test_own_json_files_all_pass(json_tests):
    report = run_suite([json_tests])
    assert len(report.results) >= 25
    assert report.passed, "\n".join(line for line in report.lines if line.startswith("FAIL"))


@pytest.mark.parametrize("name", sorted(REASONS))
def test_own_json_files_fail_for_the_stated_reason(json_tests, name):
    data = json.loads((json_tests / name).read_text())
    result = replay(data)
    assert result.statuses == data["expect"]
    assert [o.reason for o in result.outcomes] == REASONS[name]


def test_dead_position_file_ends_the_game_and_shares_the_win(json_tests):
    state = run_test_file(json_tests / "dead_position.json").state
    assert state.over and state.dead_position
    # nobody emptied a hand: the seats with the fewest pieces left share the win
    assert [len(hand) for hand in state.hands] == [2, 1, 1, 3]
    assert state.winners == (2, 3)


def test_two_seats_finishing_in_one_round_both_win_in_order(json_tests):
    state = run_test_file(json_tests / "final_two_seats_finish_in_one_round.json").state
    assert state.winners == (2, 3)
    assert state.active == (1, 4)


def test_the_last_seat_finishing_ends_the_game_at_once(json_tests):
    state = run_test_file(json_tests / "final_last_seat_ends_game.json").state
    assert state.winners == (4,) and state.final_round == 0


def test_a_failing_board_entry_fails_the_whole_setup(json_tests):
    for path in sorted(json_tests.glob("board_entry_*.json")):
        if path.name != "board_entry_needs_no_square.json":
            assert load(json.loads(path.read_text())) == [-1], path.name


def test_a_test_run_with_another_player_count(shared_tests):
    # seat 4 does not exist with 2 players: a board preloaded for it cannot be set up
    assert run_test_file(shared_tests / "3_squares.json", players=2).actual == [-1]
    # the opening is seat N's, whoever N is, and seat 1 plays next
    assert run_test_file(shared_tests / "tested_store.json", players=2).passed
