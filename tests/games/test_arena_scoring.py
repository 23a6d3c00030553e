"""Arena scoring (issue 29, item 2), pure: placement points, ties, streaks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from games.arena_scoring import placement_points, places, score_game

ranks_st = st.dictionaries(
    st.text("abcdefgh", min_size=1, max_size=3), st.integers(0, 3), min_size=1, max_size=4
)


def test_a_table_of_n_gives_n_minus_one_to_the_first_down_to_zero():
    assert placement_points({"a": 0, "b": 1, "c": 2, "d": 3}) == {"a": 3, "b": 2, "c": 1, "d": 0}
    assert placement_points({"a": 1, "b": 0}) == {"a": 0, "b": 1}


def test_tied_players_share_the_mean_of_their_places_points():
    assert placement_points({"a": 0, "b": 0, "c": 1}) == {"a": 1.5, "b": 1.5, "c": 0}
    assert placement_points({"a": 0, "b": 1, "c": 1, "d": 1}) == {"a": 3, "b": 1, "c": 1, "d": 1}
    assert places({"a": 0, "b": 0, "c": 1}) == {"a": 0, "b": 0, "c": 2}


@given(ranks_st)
def test_a_game_gives_the_same_points_in_all_tie_or_not(ranks):
    n = len(ranks)
    points = placement_points(ranks)
    assert sum(points.values()) == n * (n - 1) / 2
    assert all(p * 2 == int(p * 2) for p in points.values())  # whole or halves
    for a in ranks:
        for b in ranks:
            if ranks[a] < ranks[b]:
                assert points[a] > points[b]
            if ranks[a] == ranks[b]:
                assert points[a] == points[b]


def test_two_wins_in_a_row_double_the_points_until_a_game_not_won():
    streak, got = 0, []
    for first in [True, True, True, False, True]:
        ((me, _),) = [
            tuple(score_game({"me": 0 if first else 1, "you": 1 if first else 0}, {"me": streak}))
        ]
        got.append((me.points, me.on_fire))
        streak = me.streak
    assert got == [(1, False), (1, False), (2, True), (0, True), (1, False)]


def test_a_tie_for_first_is_no_win_and_ends_the_streak():
    me, _ = score_game({"me": 0, "you": 0}, {"me": 2})
    assert me.on_fire and me.points == 1.0 and me.streak == 0


@given(st.lists(st.tuples(ranks_st, st.integers(0, 3)), max_size=12))
def test_points_equal_the_sum_of_the_games_and_fire_follows_two_wins(games):
    streaks: dict = {}
    totals: dict = {}
    for ranks, _ in games:
        for score in score_game(ranks, streaks):
            assert score.on_fire == (streaks.get(score.who, 0) >= 2)
            assert score.points == score.placement * (2 if score.on_fire else 1)
            streaks[score.who] = score.streak
            totals.setdefault(score.who, []).append(score.points)
    given_in_all = sum(sum(points) for points in totals.values())
    placed = sum(len(r) * (len(r) - 1) / 2 for r, _ in games)
    assert placed <= given_in_all <= 2 * placed
