"""Random play with "end_left" at both Set table rule sets (issue 28, item 4): a refused leave
changes nothing, an accepted one ends the game with the leaver last and no winner, the state
reads back from JSON, and replaying the log of accepted actions gives the same state."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.classic import ClassicRules
from cards.engine.table import DeclareRules, TableError, TableState

T = 1_700_000_000_000
PLAYERS = ("ann", "bo", "cy")
AWAY = 20_000

steps = st.lists(
    st.tuples(
        st.sampled_from(PLAYERS),
        st.sampled_from(["join", "look", "end_left", "end_left"]),
        st.sampled_from((*PLAYERS, "zed")),
        st.integers(0, 15_000),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(rules=st.sampled_from([ClassicRules, DeclareRules]), seed=st.integers(0, 2**32), steps=steps)
def test_leaving_a_set_table_at_random_replays_to_the_same_state(rules, seed, steps):
    options = {"away_ms": AWAY}
    state = rules.new_state(options=options, seed=seed, now_ms=T)
    log = []
    now = T
    for player, kind, seat, dt in steps:
        now += dt
        action = {"type": kind} if kind != "end_left" else {"type": kind, "seat": seat}
        before = state.to_json()
        try:
            result = rules.apply(state, player, action, now)
        except TableError as error:
            assert error.code in {"bad_action", "not_away", "not_seated", "game_over"}
            assert state.to_json() == before  # a refusal changes nothing
            continue
        if kind == "end_left":
            ended = result.state
            assert ended.over and ended.left == (seat,) and seat != player
            assert now - state.last_seen[seat] >= AWAY  # away past the table's limit
            assert seat not in result.outcome["result"]["winners"]
            assert result.outcome["result"]["left"] == [seat]
        log.append((player, action, now))
        state = result.state
        assert TableState.from_json(json.loads(json.dumps(state.to_json()))) == state
    replayed = rules.new_state(options=options, seed=seed, now_ms=T)
    for player, action, at in log:
        replayed = rules.apply(replayed, player, action, at).state
    assert replayed.to_json() == state.to_json()
