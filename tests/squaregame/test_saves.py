"""The original JSON save format: saving, loading, replaying (spec §14, §15)."""

import json

import pytest

from squaregame.engine import (
    PASS,
    SaveFormatError,
    dumps_save,
    from_save_json,
    load,
    new_game,
    play,
    replay,
    run_test_file,
    start_from_board,
    to_save_json,
)

SAMPLE = {
    "board": [],
    "moves": [
        {"piece_num": 13, "permutation": 4},
        {"type": 0, "player_num": 1},
        {"type": 1, "player_num": 2, "piece_num": 9, "permutation": 1, "x": 16, "y": 16},
        {"type": 0, "player_num": 2},
    ],
}


def test_the_spec_sample_replays_with_four_players():
    assert load(SAMPLE) == [2, 0, 1, 0]


def test_saving_lists_successful_actions_only_in_the_original_shape():
    state = new_game(4)
    state = play(state, 4, {"type": "place", "piece": 13, "permutation": 4})[0]
    state = play(state, 1, PASS)[0]
    state = play(state, 1, PASS)[0]  # refused: not seat 1's turn any more
    state = play(state, 2, {"type": "place", "piece": 9, "permutation": 1, "x": 16, "y": 16})[0]
    state = play(state, 2, PASS)[0]
    assert to_save_json(state) == SAMPLE


def test_saving_does_not_alter_the_game_and_play_continues():
    state = from_save_json(SAMPLE)
    before = state.to_dict()
    text = dumps_save(state)
    assert state.to_dict() == before
    assert text.startswith('{\n    "board": [],\n    "moves": [\n        {\n')
    assert play(state, 3, PASS)[1].status == 0


def test_a_saved_game_loads_back_to_the_same_state():
    state = from_save_json(SAMPLE)
    assert from_save_json(json.loads(dumps_save(state))) == state
    # the format has no seed: the caller passes it back
    seeded = from_save_json(SAMPLE, seed=42)
    assert seeded.seed == 42 and from_save_json(to_save_json(seeded), seed=42) == seeded


def test_the_full_game_saves_back_to_its_own_moves(shared_tests):
    data = json.loads((shared_tests / "full_game.json").read_text())
    state = run_test_file(data).state
    assert to_save_json(state) == {"board": [], "moves": data["moves"]}


def test_a_preloaded_game_saves_its_board_and_no_opening():
    entries = [(4, 13, 4, 15, 15), (1, 9, 1, 16, 16)]
    state = start_from_board(4, entries)
    state = play(state, 1, PASS)[0]
    saved = to_save_json(state)
    assert saved == {
        "board": [
            {"player_num": 4, "piece_num": 13, "permutation": 4, "x": 15, "y": 15},
            {"player_num": 1, "piece_num": 9, "permutation": 1, "x": 16, "y": 16},
        ],
        "moves": [{"type": 0, "player_num": 1}],
    }
    assert from_save_json(saved) == state


def test_an_unopened_game_saves_as_empty_and_loads_back():
    assert to_save_json(new_game(2)) == {"board": [], "moves": []}
    assert load({"board": [], "moves": []}) == []
    assert from_save_json({"board": [], "moves": []}, players=2) == new_game(2)


def test_the_player_count_is_a_load_parameter():
    two = replay(SAMPLE, players=2)
    assert two.statuses == [2, 0, 1, 0]
    assert two.state.players == 2 and two.state.current == 1


def test_a_bad_opening_gives_minus_1_only():
    assert load({"board": [], "moves": [{"piece_num": 13, "permutation": 9}, PASS]}) == [-1]
    assert load({"board": [], "moves": [{"permutation": 1}]}) == [-1]
    assert load({"board": [], "moves": ["13/4"]}) == [-1]


def test_a_refused_move_in_a_save_is_reported_when_restoring():
    broken = {"board": [], "moves": [*SAMPLE["moves"], {"type": 0, "player_num": 1}]}
    with pytest.raises(SaveFormatError, match="move 4 .* refused: it is seat 3's turn"):
        from_save_json(broken)
    with pytest.raises(SaveFormatError, match="cannot be set up"):
        from_save_json({"board": [], "moves": [{"piece_num": 99, "permutation": 1}]})


@pytest.mark.parametrize(
    "data",
    [None, [], {"moves": []}, {"board": [], "moves": {}}, {"board": {}, "moves": []}],
)
def test_data_that_is_not_a_save_is_refused_in_words(data):
    with pytest.raises(SaveFormatError, match="'board' and 'moves'"):
        load(data)


def test_test_files_need_a_list_of_status_codes(tmp_path):
    with pytest.raises(SaveFormatError, match="'expect'"):
        run_test_file({**SAMPLE, "expect": "2, 0"})
    with pytest.raises(SaveFormatError, match="no such file"):
        run_test_file(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(SaveFormatError, match="not valid JSON"):
        run_test_file(tmp_path / "bad.json")
    (tmp_path / "deep.json").write_text("[" * 100_000)  # RecursionError in Python's json
    with pytest.raises(SaveFormatError, match="nested too deeply"):
        run_test_file(tmp_path / "deep.json")
    result = run_test_file({**SAMPLE, "expect": [2, 0, 1, 1]})
    assert not result.passed and result.actual == [2, 0, 1, 0]
