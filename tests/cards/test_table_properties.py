"""Random play on both Set table rule sets keeps the tables' invariants.

Several players send random actions at random moments; after every step the cards are conserved
(board + deck + taken = the dealt deck), the board has no holes, scores are never negative and
equal the history, the state reads back from its JSON form unchanged (and the JSON drawn from
the state before it, sharing the parts a move kept, is the same as the JSON drawn afresh), a
refused action leaves its input as it was, and an action is a /watch event exactly when it
changes what watchers can see.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.classic import ClassicRules
from cards.engine.deck import new_deck
from cards.engine.protocol_text import board_text, scores_text
from cards.engine.table import (
    ClassicState,
    DeclareRules,
    DeclareState,
    TableError,
    TableState,
)
from cards.engine.table.codes import set_at, texts_of
from tests.cards.test_table_modes import check_seat_views

T = 1_700_000_000_000
PLAYERS = ("ann", "bo", "cy", "dee")
CODES = {
    "bad_pick",
    "bad_claim",
    "not_seated",
    "locked_out",
    "just_taken",
    "not_on_board",
    "game_over",
}
PROPERTY_SETTINGS = settings(max_examples=50, deadline=None)


def a_set_in(cards, attributes: int) -> list[int] | None:
    found = set_at(tuple(cards), attributes)
    return None if found is None else list(found)


def check_json(state: TableState, before: TableState | None = None) -> None:
    """The state reads back from JSON as it was; drawn like the state before, the same JSON."""
    stored = state.to_json()
    assert TableState.from_json(json.loads(json.dumps(stored))) == state
    assert json.dumps(TableState.from_json(stored).to_json()) == json.dumps(stored)
    if before is not None:
        assert json.dumps(state.to_json(like=(before, before.to_json()))) == json.dumps(stored)
        read = json.loads(json.dumps(before.to_json()))  # as read back from the database
        assert json.dumps(state.to_json(like=(before, read))) == json.dumps(stored)
        reordered = dict(sorted(read.items()))  # as PostgreSQL's jsonb orders its keys
        assert json.dumps(state.to_json(like=(before, reordered))) == json.dumps(stored)


def check_common(state: TableState, dealt: list[int], board: tuple[int, ...]) -> None:
    assert sorted(board + state.deck + state.taken) == dealt
    assert all(0 <= card < 3**state.attributes for card in board)
    assert all(score >= 0 for score in state.scores.values())
    assert set(state.tally) <= set(state.players)
    assert sorted(state.players) == sorted(state.scores) == sorted(state.last_seen)
    assert all(state.hinted_cards.values())
    if state.over:
        assert not state.deck


# --- declare --------------------------------------------------------------------------------------

declare_steps = st.lists(
    st.tuples(
        st.sampled_from(PLAYERS),
        st.sampled_from(
            [
                "look",
                "declare",
                "declare",
                "pick",
                "pick",
                "stray",
                "set",
                "set",
                "set",
                "add",
                "hint",
                "tick",
                "touch",
                "bad",
            ]
        ),
        st.integers(0, 2),
        st.integers(0, 3),
        # Mostly quick requests, sometimes long enough for a timeout or an away player.
        st.sampled_from([0, 1, 10, 50, 100, 200, 300, 500, 0, 1, 10, 100, 1000, 6000, 25_000]),
    ),
    min_size=20,
    max_size=80,
)


def declare_observable(state: DeclareState) -> tuple:
    stored = state.to_json()
    return tuple(
        json.dumps(stored[key], sort_keys=True)
        for key in (
            "board",
            "scores",
            "votes",
            "declarer",
            "deadline",
            "picks",
            "players",
            "over",
            "tally",
        )
    )


def check_declare(state: DeclareState, dealt: list[int]) -> None:
    rows = state.board
    assert len(rows) == 3 and len({len(row) for row in rows}) == 1
    check_common(state, dealt, state.board_cards)
    declaring = state.declaring
    if declaring is not None:
        assert declaring.declarer not in declaring.queue
        assert len(set(declaring.queue)) == len(declaring.queue)
        assert len(declaring.picks) <= 2
        assert all(0 <= r < 3 and 0 <= c < len(rows[0]) for r, c in declaring.picks)
    assert set(state.votes) <= set(state.players)
    if state.over:
        assert state.votes == () and declaring is None
    for score in state.scores.values():
        assert score % 5 == 0


@PROPERTY_SETTINGS
@given(
    seed=st.integers(0, 2**32),
    attributes=st.sampled_from([3, 3, 4]),
    cut=st.sampled_from([None, 0, 3, 6]),
    steps=declare_steps,
)
def test_random_declare_play_keeps_the_invariants(seed, attributes, cut, steps):
    R = DeclareRules
    options = {"attributes": attributes, "away_ms": 20_000}
    if cut is not None:  # a short deck, so that games also end
        deck = [card.protocol for card in new_deck(attributes, rng=seed)]
        options["deck"] = deck[: 3 * attributes + cut]
    state = R.new_state(options=options, seed=seed, now_ms=T)
    dealt = sorted(state.board_cards + state.deck)
    check_json(state)
    now = T
    logged: dict[str, int] = {}  # every score change the outcomes report, per player

    def log(outcome: dict, player: str) -> None:
        for expired in outcome.get("expired", ()):
            if expired["kind"] == "timeout":
                logged[expired["player"]] = logged.get(expired["player"], 0) + expired["delta"]
        if "delta" in outcome:
            logged[player] = logged.get(player, 0) + outcome["delta"]

    for player, kind, row, col, dt in steps:
        now += dt
        before = state.to_json()
        declaring = state.declaring
        if kind == "tick":
            result = R.tick(state, now)
        elif kind == "touch":
            ticked = R.tick(state, now)
            log(ticked.outcome, player)
            state = R.touch(ticked.state, player, now)
            check_declare(state, dealt)
            check_json(state, ticked.state)
            continue
        else:
            action: dict = {"type": kind}
            if kind in ("pick", "stray", "bad", "set"):
                action = {"type": "pick", "row": row, "col": col}
            if kind == "pick" and declaring is not None:
                player = declaring.declarer  # a pick, maybe a deselect, by the declarer
            if kind == "bad":
                action["col"] = -1 if col % 2 else state.cols + col
            if kind == "set" and declaring is not None:
                player = declaring.declarer  # the declarer goes for a set on the board
                found = a_set_in(state.board_cards, attributes)
                if found is not None:
                    cells = [divmod(i, state.cols) for i in found]
                    todo = [cell for cell in cells if cell not in declaring.picks]
                    if todo:
                        action["row"], action["col"] = todo[0]
            try:
                result = R.apply(state, player, action, now)
            except TableError as error:
                assert error.code in CODES
                assert state.to_json() == before
                continue
        assert state.to_json() == before
        assert result.event == (declare_observable(state) != declare_observable(result.state))
        check_json(result.state, state)
        state = result.state
        log(result.outcome, player)
        check_declare(state, dealt)
        # Scores equal what the log says (every change is in some move's outcome).
        assert {p: s for p, s in state.scores.items() if s} == {
            p: s for p, s in logged.items() if s
        }
        for viewer in (player, None):
            assert json.loads(json.dumps(R.view(state, viewer, now)))
            board_text(state, viewer)
        scores_text(state)


# --- classic --------------------------------------------------------------------------------------

classic_steps = st.lists(
    st.tuples(
        st.sampled_from(PLAYERS),
        st.sampled_from(["join", "join", "look", "set", "set", "set", "random", "stale", "hint"]),
        st.lists(st.integers(0, 30), min_size=3, max_size=3),
        st.integers(0, 3000),
    ),
    min_size=20,
    max_size=80,
)


def classic_observable(state: ClassicState) -> tuple:
    stored = state.to_json()
    return tuple(
        json.dumps(stored[key], sort_keys=True)
        for key in ("board", "scores", "players", "locked", "over", "tally")
    )


def check_classic(state: ClassicState, dealt: list[int]) -> None:
    board = state.board
    assert len(board) % 3 == 0
    check_common(state, dealt, board)
    assert set(state.locked) <= set(state.players)
    if state.players:
        assert set(state.locked) != set(state.players)
    if state.deck:
        assert len(board) >= state.board_size
    if not state.over:
        assert a_set_in(board, state.attributes) is not None
    sets = {p: state.tally[p].sets if p in state.tally else 0 for p in state.players}
    assert sets == state.scores


@PROPERTY_SETTINGS
@given(
    seed=st.integers(0, 2**32),
    attributes=st.sampled_from([3, 3, 4, 5]),
    steps=classic_steps,
)
def test_random_classic_play_keeps_the_invariants(seed, attributes, steps):
    R = ClassicRules
    state = R.new_state(options={"attributes": attributes}, seed=seed, now_ms=T)
    dealt = sorted(state.board + state.deck)
    check_json(state)
    for player in PLAYERS[:2]:
        state = R.apply(state, player, {"type": "join"}, T).state
    now = T
    for player, kind, picks, dt in steps:
        now += dt
        before = state.to_json()
        board = texts_of(state.board or state.taken, attributes)  # a 27-card game may end bare
        if kind in ("join", "look", "hint"):
            action = {"type": kind}
        elif kind == "set":
            found = a_set_in(state.board, attributes) or [0, 1, 2]
            action = {"type": "claim", "cards": [board[i % len(board)] for i in found]}
        elif kind == "random":
            action = {"type": "claim", "cards": [board[i % len(board)] for i in picks]}
        else:
            pool = texts_of(state.taken[-3:], attributes) + board
            action = {"type": "claim", "cards": [pool[i % len(pool)] for i in picks]}
        try:
            result = R.apply(state, player, action, now)
        except TableError as error:
            assert error.code in CODES
            assert state.to_json() == before
            continue
        assert state.to_json() == before
        assert result.event == (classic_observable(state) != classic_observable(result.state))
        check_json(result.state, state)
        state = result.state
        check_classic(state, dealt)
        assert json.loads(json.dumps(R.view(state, player, now)))
        check_seat_views(R, state, (*PLAYERS, "nobody"), now)


def play_declare_to_the_end(seed: int, attributes: int) -> tuple[DeclareState, int]:
    """Play a whole declare game: one player finds every set, everyone votes when none is left."""
    R = DeclareRules
    state = R.new_state(options={"attributes": attributes}, seed=seed, now_ms=T)
    dealt = sorted(state.board_cards + state.deck)
    now = T
    while not state.over:
        now += 10
        found = a_set_in(state.board_cards, attributes)
        player = PLAYERS[now // 10 % 3]
        if found is None:
            for voter in PLAYERS[:3]:
                state = R.apply(state, voter, {"type": "add"}, now).state
            continue
        state = R.apply(state, player, {"type": "declare"}, now).state
        for r, c in [divmod(i, state.cols) for i in found]:
            state = R.apply(state, player, {"type": "pick", "row": r, "col": c}, now).state
        check_declare(state, dealt)
    return state, now


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    attributes=st.sampled_from([3, 4]),
    requests=st.lists(
        st.tuples(
            st.sampled_from((*PLAYERS, "newcomer")),
            st.sampled_from(["look", "watch", "declare", "pick", "add", "hint", "join"]),
        ),
        max_size=10,
    ),
)
def test_a_finished_declare_table_answers_everything_unchanged(seed, attributes, requests):
    R = DeclareRules
    final, now = play_declare_to_the_end(seed, attributes)
    assert final.deck == () and final.votes == () and final.declaring is None
    cards = final.board_cards
    assert a_set_in(cards, attributes) is None
    for player, kind in requests:
        now += 1000
        action = {"type": kind, "row": 0, "col": 0}
        if kind == "pick" and not cards:
            continue
        result = R.apply(final, player, action, now)
        assert result.state == final and not result.event
    assert R.tick(final, now + 10**6).state == final
