"""Random play on both Set table rule sets keeps the tables' invariants.

Several players send random actions at random moments; after every step the cards are conserved
(board + deck + taken = the dealt deck), the board has no holes, scores are never negative and
equal the history, the state survives JSON unchanged, a refused action leaves its input as it
was, and an action is a /watch event exactly when it changes what watchers can see.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.classic import ClassicRules
from cards.engine.deck import new_deck
from cards.engine.protocol_text import board_text, scores_text
from cards.engine.table import DeclareRules, TableError, find_set_in

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


def a_set_in(texts: list[str], attributes: int) -> list[int] | None:
    found = find_set_in(texts, attributes)
    return None if found is None else list(found)


def check_common(state: dict, dealt: list[str], board: list[str]) -> None:
    assert json.loads(json.dumps(state)) == state
    assert sorted(board + state["deck"] + state["taken"]) == dealt
    assert all(isinstance(card, str) and card for card in board)
    assert all(score >= 0 for score in state["scores"].values())
    assert set(state["tally"]) <= set(state["players"])
    assert sorted(state["players"]) == sorted(state["scores"]) == sorted(state["last_seen"])
    if state["over"]:
        assert not state["deck"]


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


def declare_observable(state: dict) -> tuple:
    return tuple(
        json.dumps(state[key], sort_keys=True)
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


def check_declare(state: dict, dealt: list[str]) -> None:
    rows = state["board"]
    assert len(rows) == 3 and len({len(row) for row in rows}) == 1
    check_common(state, dealt, [card for row in rows for card in row])
    assert state["declarer"] not in state["queue"]
    assert len(set(state["queue"])) == len(state["queue"])
    assert len(state["picks"]) <= 2
    assert all(0 <= r < 3 and 0 <= c < len(rows[0]) for r, c in state["picks"])
    assert set(state["votes"]) <= set(state["players"])
    assert (state["declarer"] is None) == (state["deadline"] is None)
    if state["declarer"] is None:
        assert state["picks"] == [] and state["queue"] == []
    if state["over"]:
        assert state["votes"] == [] and state["declarer"] is None
    for score in state["scores"].values():
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
    dealt = sorted([card for row in state["board"] for card in row] + state["deck"])
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
        before = json.loads(json.dumps(state))
        if kind == "tick":
            result = R.tick(state, now)
        elif kind == "touch":
            ticked = R.tick(state, now)
            log(ticked.outcome, player)
            state = R.touch(ticked.state, player, now)
            check_declare(state, dealt)
            continue
        else:
            action: dict = {"type": kind}
            if kind in ("pick", "stray", "bad", "set"):
                action = {"type": "pick", "row": row, "col": col}
            if kind == "pick" and state["declarer"] is not None:
                player = state["declarer"]  # a pick, maybe a deselect, by the declarer
            if kind == "bad":
                action["col"] = -1 if col % 2 else len(state["board"][0]) + col
            if kind == "set" and state["declarer"] is not None:
                player = state["declarer"]  # the declarer goes for a set on the board
                cells = [
                    [r, c] for r, cards in enumerate(state["board"]) for c in range(len(cards))
                ]
                found = a_set_in([state["board"][r][c] for r, c in cells], attributes)
                if found is not None:
                    todo = [cells[i] for i in found if cells[i] not in state["picks"]]
                    if todo:
                        action["row"], action["col"] = todo[0]
            try:
                result = R.apply(state, player, action, now)
            except TableError as error:
                assert error.code in CODES
                assert state == before
                continue
        assert state == before
        assert result.event == (declare_observable(before) != declare_observable(result.state))
        state = result.state
        log(result.outcome, player)
        check_declare(state, dealt)
        # Scores equal what the log says (every change is in some move's outcome).
        assert {p: s for p, s in state["scores"].items() if s} == {
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


def classic_observable(state: dict) -> tuple:
    return tuple(
        json.dumps(state[key], sort_keys=True)
        for key in ("board", "scores", "players", "locked", "over", "tally")
    )


def check_classic(state: dict, dealt: list[str]) -> None:
    board = state["board"]
    assert len(board) % 3 == 0
    check_common(state, dealt, board)
    assert set(state["locked"]) <= set(state["players"])
    if state["players"]:
        assert set(state["locked"]) != set(state["players"])
    if state["deck"]:
        assert len(board) >= state["board_size"]
    if not state["over"]:
        assert a_set_in(board, state["attributes"]) is not None
    sets = {player: state["tally"].get(player, {}).get("sets", 0) for player in state["players"]}
    assert sets == state["scores"]


@PROPERTY_SETTINGS
@given(
    seed=st.integers(0, 2**32),
    attributes=st.sampled_from([3, 3, 4, 5]),
    steps=classic_steps,
)
def test_random_classic_play_keeps_the_invariants(seed, attributes, steps):
    R = ClassicRules
    state = R.new_state(options={"attributes": attributes}, seed=seed, now_ms=T)
    dealt = sorted(state["board"] + state["deck"])
    for player in PLAYERS[:2]:
        state = R.apply(state, player, {"type": "join"}, T).state
    now = T
    for player, kind, picks, dt in steps:
        now += dt
        before = json.loads(json.dumps(state))
        board = state["board"] or state["taken"]  # a finished 27-card game can end with no board
        if kind in ("join", "look", "hint"):
            action = {"type": kind}
        elif kind == "set":
            found = a_set_in(board, attributes) or [0, 1, 2]
            action = {"type": "claim", "cards": [board[i % len(board)] for i in found]}
        elif kind == "random":
            action = {"type": "claim", "cards": [board[i % len(board)] for i in picks]}
        else:
            pool = state["taken"][-3:] + board
            action = {"type": "claim", "cards": [pool[i % len(pool)] for i in picks]}
        try:
            result = R.apply(state, player, action, now)
        except TableError as error:
            assert error.code in CODES
            assert state == before
            continue
        assert state == before
        assert result.event == (classic_observable(before) != classic_observable(result.state))
        state = result.state
        check_classic(state, dealt)
        assert json.loads(json.dumps(R.view(state, player, now)))


def play_declare_to_the_end(seed: int, attributes: int) -> tuple[dict, int]:
    """Play a whole declare game: one player finds every set, everyone votes when none is left."""
    R = DeclareRules
    state = R.new_state(options={"attributes": attributes}, seed=seed, now_ms=T)
    dealt = sorted([card for row in state["board"] for card in row] + state["deck"])
    now = T
    while not state["over"]:
        now += 10
        cells = [[r, c] for r, cards in enumerate(state["board"]) for c in range(len(cards))]
        found = a_set_in([state["board"][r][c] for r, c in cells], attributes)
        player = PLAYERS[now // 10 % 3]
        if found is None:
            for voter in PLAYERS[:3]:
                state = R.apply(state, voter, {"type": "add"}, now).state
            continue
        state = R.apply(state, player, {"type": "declare"}, now).state
        for i in found:
            r, c = cells[i]
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
    assert final["deck"] == [] and final["votes"] == [] and final["declarer"] is None
    cards = [card for row in final["board"] for card in row]
    assert a_set_in(cards, attributes) is None
    for player, kind in requests:
        now += 1000
        action = {"type": kind, "row": 0, "col": 0}
        if kind == "pick" and not cards:
            continue
        result = R.apply(final, player, action, now)
        assert result.state == final and not result.event
    assert R.tick(final, now + 10**6).state == final
