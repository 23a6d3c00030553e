"""Whole solitaire games: valid sets, each card used once, and the physical dealing rules."""

import io
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine import SetError, all_cards
from cards.engine.fast import play_codes, shuffled_codes
from cards.solitaire import SetGame


def naive_is_set(a, b, c) -> bool:
    return all(len({x, y, z}) != 2 for x, y, z in zip(a.values, b.values, c.values, strict=True))


def naive_has_set(board) -> bool:
    return any(naive_is_set(*triple) for triple in combinations(board, 3))


def replay_checks(game: SetGame) -> None:
    """Deal the game's deck by hand, turn by turn, and check every turn obeys the rules."""
    deck = list(game.deck)
    board = deck[:12]
    deck = deck[12:]
    turns = list(game.turns())
    for number, turn in enumerate(turns):
        assert sorted(turn.board) == sorted(board), f"turn {number}: the board is not as dealt"
        assert turn.deck_left == len(deck)
        if turn.taken is not None:
            assert naive_is_set(*turn.taken)
            assert set(turn.taken) <= set(board)
            board = [card for card in board if card not in turn.taken]
            if len(board) < 12 and deck:  # refill to 12, never above
                board += deck[:3]
                deck = deck[3:]
        else:
            assert not naive_has_set(board), f"turn {number}: cards dealt while a set showed"
            if not deck:
                assert number == len(turns) - 1, "the game went on after it was over"
                break
            board += deck[:3]
            deck = deck[3:]
    assert not deck and not naive_has_set(board)
    assert turns[-1].taken is None


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**64), st.sampled_from([3, 4, 5]))
def test_a_whole_game_obeys_the_physical_rules(seed, attributes):
    game = SetGame(seed=seed, attributes=attributes)
    found, sets = game.play_quiet()
    assert found == len(sets)
    used = [card for taken in sets for card in taken]
    assert len(used) == len(set(used)), "a card was used twice"
    assert all(naive_is_set(*taken) for taken in sets)
    left = len(game.deck) - len(used)
    assert left % 3 == 0 and left != 3
    replay_checks(game)
    assert [turn.taken for turn in game.turns() if turn.taken] == sets


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**64))
def test_cards_left_are_a_multiple_of_3_but_never_3(seed):
    import random

    taken, left = play_codes(shuffled_codes(81, random.Random(seed)))
    assert left == 81 - 3 * len(taken)
    assert left % 3 == 0 and left != 3
    assert len({code for t in taken for code in t}) == 3 * len(taken)


def test_boards_grow_past_12_only_when_no_set_shows():
    # Find a seed whose game needs 15 cards at some point, then check it closely.
    for seed in range(200):
        game = SetGame(seed=seed)
        sizes = [len(turn.board) for turn in game.turns() if turn.deck_left]
        if 15 in sizes:
            break
    else:
        pytest.fail("no game with a 15-card board among 200 seeds")
    turns = list(game.turns())
    for before, after in zip(turns, turns[1:], strict=False):
        if len(after.board) > len(before.board):
            assert before.taken is None and len(after.board) == len(before.board) + 3
        if before.taken is not None and len(before.board) == 15:
            assert len(after.board) == 12  # taking from 15 leaves 12: no refill
    replay_checks(game)


def test_the_same_seed_plays_the_same_game():
    assert SetGame(seed=9).play_quiet() == SetGame(seed=9).play_quiet()
    assert SetGame(seed=9).deck != SetGame(seed=10).deck
    game = SetGame()
    assert isinstance(game.seed, int)
    assert SetGame(seed=game.seed).play_quiet() == game.play_quiet()


def test_play_is_chatty_and_returns_what_play_quiet_returns():
    game = SetGame(seed=11)
    out = io.StringIO()
    result = game.play(out=out)
    text = out.getvalue()
    assert result == game.play_quiet()
    found, sets = result
    assert "seed 11" in text
    assert text.count("Set! ") == found
    assert text.count("Board: ") == len(list(game.turns()))
    for taken in sets:
        assert f"Set! {', '.join(card.phrase for card in taken)}." in text
    assert f"Sets discovered: {found}. Cards left on the table: {81 - 3 * found}." in text
    assert "the game is over" in text


def test_display_cards_prints_each_card_readably(capsys):
    cards = all_cards(4)[:3]
    SetGame.display_cards(cards)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "   1. one red solid diamond",
        "   2. one red solid squiggle",
        "   3. one red solid oval",
    ]


def test_bad_games_are_refused():
    with pytest.raises(SetError, match="3, 4 or 5 attributes, not 6"):
        SetGame(attributes=6)
    with pytest.raises(SetError, match="not a seed"):
        SetGame(seed="1")  # type: ignore[arg-type]


def test_play_codes_counts_the_boards_it_looks_at():
    seen = [0] * 82
    empty = [0] * 82
    expected_seen = [0] * 82
    expected_empty = [0] * 82
    for seed in range(100):
        game = SetGame(seed=seed)
        play_codes([card.code for card in game.deck], 4, seen, empty)
        for turn in game.turns():
            if turn.deck_left:  # a deal decision
                expected_seen[len(turn.board)] += 1
                expected_empty[len(turn.board)] += turn.taken is None
    assert seen == expected_seen
    assert empty == expected_empty
    assert seen[12] > 100 * 20  # about 23 looks at 12 cards per game
