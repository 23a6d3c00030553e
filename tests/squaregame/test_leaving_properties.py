"""Random Square Games where a seat may be said to have left (issue 28, item 4): the engine's
`leave` ends the game with the leaver last and the others winning, a refused "end_left" changes
nothing, the state round-trips through JSON, and replaying the move log through the adapter
gives the same state."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from games.errors import RuleError
from squaregame.engine import GameState, leave, legal_placements, new_game, play
from squaregame.rules import SquareKind

T = 1_700_000_000_000
KIND = SquareKind()
NAMES = ("ann", "bo", "cy", "dee")


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seat=st.integers(1, 4), opened=st.booleans())
def test_the_engine_ends_a_game_a_seat_left_with_the_others_winning(players, seat, opened):
    state = new_game(players)
    if opened:  # after the opening, or before it
        state = play(state, players, legal_placements(state)[0].to_action())[0]
    seat = (seat - 1) % players + 1
    ended = leave(state, seat)
    assert ended.over and ended.to_move is None and ended.left == (seat,)
    assert set(ended.winners) == set(state.seats) - {seat}
    assert GameState.from_dict(json.loads(json.dumps(ended.to_dict()))) == ended
    assert not state.over  # the state passed in is never changed


steps = st.lists(
    st.tuples(
        st.sampled_from(["move", "move", "end_left"]),
        st.integers(0, 3),  # who asks (an index into the seats)
        st.integers(0, 3),  # whom the end_left names
        st.integers(0, 200_000),  # ms since the last step
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 1000), steps=steps)
def test_random_play_with_leaves_replays_to_the_same_state(players, seed, steps):
    options = KIND.options({"players": players, "away_ms": 60_000})
    state = KIND.new(options=options, seed=seed, now_ms=T)
    log = []
    now = T
    for name in NAMES[:players]:
        state = KIND.join(state, name, now).state
        log.append(("join", name, {"type": "join"}, now))
    for kind, asker, named, dt in steps:
        now += dt
        engine = KIND.engine(state)
        if engine.over:
            break
        if kind == "move":
            mover = KIND._name(state, engine.to_move)
            moves = legal_placements(engine)
            action = moves[0].to_action() if moves else {"type": "pass"}
            actor = mover
        else:
            actor = NAMES[asker % players]
            action = {"type": "end_left", "seat": NAMES[named % players]}
        before = json.dumps(state, sort_keys=True)
        try:
            result = KIND.apply(state, actor, action, now)
        except RuleError as error:
            assert kind == "end_left"
            assert error.code in {"bad_action", "not_away", "game_over"}
            assert json.dumps(state, sort_keys=True) == before
            continue
        if kind == "end_left":
            gone = action["seat"]
            assert gone != actor and engine.to_move == KIND.seat_of(state, gone)
            assert result.outcome["left"] == gone and gone not in result.outcome["winner_names"]
            assert KIND.rating({}, result.state)[1][gone] == max(
                KIND.rating({}, result.state)[1].values()
            )
        state = result.state
        log.append(("act", actor, result.action or action, now))
    replayed = KIND.new(options=options, seed=seed, now_ms=T)
    for step, actor, action, at in log:
        if step == "join":
            replayed = KIND.join(replayed, actor, at).state
        else:
            replayed = KIND.apply(replayed, actor, action, at).state
    assert replayed == state
    assert json.loads(json.dumps(state)) == state
