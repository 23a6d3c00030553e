"""The solitaire simulator's report."""

import json

import pytest

from cards.engine import SetError
from cards.simulate import simulate
from cards.solitaire import SetGame


def test_the_report_adds_up():
    report = simulate(2000, seed=8)
    assert report.games == 2000 and report.attributes == 4 and report.seed == 8
    assert sum(report.leftover.values()) == 2000
    assert all(left % 3 == 0 and left != 3 for left in report.leftover)
    mean_left = sum(left * games for left, games in report.leftover.items()) / 2000
    assert report.mean_sets == pytest.approx((81 - mean_left) / 3)
    assert 23 < report.mean_sets < 26
    # In play, a 12-card board lacks a set about twice as often as 12 random cards do.
    assert 0.04 < report.p_no_set(12) < 0.09
    assert report.p_no_set(15) < report.p_no_set(12)
    assert report.seen[12] > 20 * 2000
    assert report.games_per_second > 0


def test_the_same_seed_gives_the_same_figures():
    first = simulate(300, seed=123).to_json()
    second = simulate(300, seed=123).to_json()
    for data in (first, second):
        data.pop("seconds")
        data.pop("games_per_second")
    assert first == second


def test_the_first_game_is_the_solitaire_game_of_the_same_seed():
    found, _ = SetGame(seed=77).play_quiet()
    report = simulate(1, seed=77)
    assert report.sets == found
    assert report.leftover == {81 - 3 * found: 1}


def test_the_json_has_the_documented_fields():
    data = simulate(50, seed=1, attributes=3).to_json()
    for key in (
        "games",
        "seconds",
        "games_per_second",
        "p_no_set_12",
        "p_no_set_15",
        "p_no_set_18",
        "leftover",
        "mean_sets",
    ):
        assert key in data
    assert json.loads(json.dumps(data)) == data
    assert sum(data["leftover"].values()) == 50


def test_progress_is_reported_until_every_game_is_played():
    ticks = []
    simulate(2500, seed=3, progress=ticks.append)
    assert sum(ticks) == 2500 and len(ticks) == 3


@pytest.mark.parametrize("games", [0, -5, 2.5, "10", True])
def test_the_number_of_games_must_be_a_positive_int(games):
    with pytest.raises(SetError, match="positive whole number"):
        simulate(games)


def test_the_deck_size_must_be_known():
    with pytest.raises(SetError, match="3, 4 or 5 attributes"):
        simulate(10, attributes=2)
