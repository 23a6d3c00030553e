"""Properties of random legal play: the invariants no game may ever break."""

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squaregame.engine import (
    PASS,
    GameState,
    Move,
    PlacementKind,
    choose_move,
    from_save_json,
    legal_placements,
    new_game,
    piece_segments,
    play,
    to_save_json,
)
from squaregame.engine.game import is_legal

PROFILE = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def closed_cells(segments):
    """Return every cell with four sides in ``segments`` (computed from scratch)."""
    cells = set()
    for (x1, y1), (_, y2) in segments:
        if y1 == y2:
            for cell in ((x1, y1), (x1, y1 - 1)):
                cx, cy = cell
                sides = [
                    ((cx, cy), (cx + 1, cy)),
                    ((cx, cy + 1), (cx + 1, cy + 1)),
                    ((cx, cy), (cx, cy + 1)),
                    ((cx + 1, cy), (cx + 1, cy + 1)),
                ]
                if all(side in segments for side in sides):
                    cells.add(cell)
    return cells


def check_invariants(state: GameState) -> None:
    laid = [segment for p in state.placements for segment in p.segments]
    owner = {}
    for p in state.placements:
        for segment in p.segments:
            owner[segment] = p
    # segments never overlap
    assert len(laid) == len(set(laid)) == len(state.board)
    # squares credited to placements are exactly the cells completed by a regular placement
    # that had an earlier side to close against
    credited = Counter(cell for p in state.placements for cell in p.squares)
    assert all(count == 1 for count in credited.values())
    expected = set()
    for cell in closed_cells(set(laid)):
        cx, cy = cell
        sides = [
            ((cx, cy), (cx + 1, cy)),
            ((cx, cy + 1), (cx + 1, cy + 1)),
            ((cx, cy), (cx, cy + 1)),
            ((cx + 1, cy), (cx + 1, cy + 1)),
        ]
        layers = {owner[side].id for side in sides}
        closer = max(layers)
        last = next(p for p in state.placements if p.id == closer)
        if len(layers) > 1 and last.kind is PlacementKind.REGULAR:
            expected.add(cell)
    assert set(credited) == expected
    assert sum(state.squares_closed(seat) for seat in state.seats) == len(expected)
    # every piece is in its owner's hand or on the board, never both
    for seat in state.seats:
        on_board = [p.piece for p in state.placements if p.seat == seat]
        assert sorted(on_board + list(state.hand(seat))) == list(range(1, 17))
    # a seat that emptied its hand has won and is out of the turn order
    for seat in state.seats:
        if not state.hand(seat):
            assert seat in state.winners and seat not in state.active
    assert state.over == (state.current is None)
    # state and save round trips
    assert GameState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    assert from_save_json(json.loads(json.dumps(to_save_json(state))), state.players) == state


@st.composite
def games(draw, max_steps=40):
    """Play a random game of legal placements and passes; return the states visited."""
    players = draw(st.integers(2, 4))
    state = new_game(players)
    state = play(state, players, draw(st.sampled_from(legal_placements(state))).to_action())[0]
    states = [state]
    for _ in range(draw(st.integers(1, max_steps))):
        if state.over:
            break
        moves = legal_placements(state)
        index = draw(st.integers(-1, len(moves) - 1)) if moves else -1
        action = PASS if index < 0 else moves[index].to_action()
        state, outcome = play(state, state.current, action)
        assert outcome.ok
        states.append(state)
    return states


@PROFILE
@given(games())
def test_random_legal_play_keeps_every_invariant(states):
    for state in {states[0], states[len(states) // 2], states[-1]}:
        check_invariants(state)


actions = st.one_of(
    st.just(PASS),
    st.builds(
        lambda piece, permutation, x, y: Move(piece, permutation, x, y).to_action(),
        st.integers(0, 17),
        st.integers(0, 9),
        st.integers(-2, 34),
        st.integers(-2, 34),
    ),
)


@PROFILE
@given(games(max_steps=25), st.integers(0, 5), st.lists(actions, min_size=1, max_size=20))
def test_any_action_is_accepted_exactly_when_legal(states, seat, tries):
    state = states[-1]
    before = state.to_dict()
    legal = set(legal_placements(state))
    for action in tries:
        after, outcome = play(state, seat, action)
        if action["type"] == "place" and outcome.ok:
            assert seat == state.current
            assert Move(action["piece"], action["permutation"], action["x"], action["y"]) in legal
        if action["type"] == "place" and seat == state.current and not state.over:
            move = Move(action["piece"], action["permutation"], action["x"], action["y"])
            assert outcome.ok == (move in legal)
        if not outcome.ok:
            assert after is state and state.to_dict() == before


@PROFILE
@given(games(max_steps=30), st.randoms(use_true_random=False))
def test_every_listed_placement_is_accepted(states, rng):
    state = states[-1]
    moves = legal_placements(state)
    for move in rng.sample(moves, min(len(moves), 12)):
        after, outcome = play(state, state.current, move.to_action())
        assert outcome.ok, outcome.message
        assert after.placements[-1].squares == outcome.squares


def test_the_query_finds_everything_near_the_board():
    """Try every piece, permutation and zero point near the board in a few bot games."""
    rng = random.Random(5)
    for players in (2, 4):
        state = new_game(players)
        for step in range(40):
            if state.over:
                break
            state = play(state, state.current, choose_move(state, rng))[0]
            if step % 13 != 12:
                continue
            points = {point for p in state.placements for s in p.segments for point in s}
            zeros = {
                (x + dx, y + dy) for x, y in points for dx in range(-2, 3) for dy in range(-2, 3)
            }
            found = {
                Move(piece, permutation, x, y)
                for piece in state.hand(state.current)
                for permutation in range(1, 9)
                for x, y in zeros
                if all(
                    0 <= a <= 32 and 0 <= b <= 32
                    for s in piece_segments(piece, permutation, x, y)
                    for a, b in s
                )
                and is_legal(state, state.current, Move(piece, permutation, x, y).to_action())
            }
            assert found == set(legal_placements(state))


def test_complete_random_games_keep_every_invariant():
    """Play seeded random games to the very end, through the final round."""
    ends = set()
    for seed in range(4):
        rng = random.Random(seed)
        state = new_game(2 + seed % 3)
        state = play(state, state.players, choose_move(state, rng))[0]
        while not state.over:
            moves = legal_placements(state)
            action = rng.choice(moves).to_action() if moves and rng.random() < 0.9 else PASS
            state, outcome = play(state, state.current, action)
            assert outcome.ok
        check_invariants(state)
        ends.add(outcome.status)
        assert state.winners
    assert ends == {5}
