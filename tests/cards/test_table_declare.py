"""The "declare" Set table: every rule of specs/set-table-protocol.md, and its worked example."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from cards.engine.card import parse_card
from cards.engine.protocol_text import board_text, parse_request, scores_text
from cards.engine.rules import find_set, is_set
from cards.engine.table import (
    DeclareRules,
    DeclareState,
    Result,
    TableError,
    TableState,
    is_present,
)
from tests.examples import COLORS, EXAMPLE_BOARD, NUMBERS, SHADINGS, SHAPES

R = DeclareRules
T = 1_700_000_000_000


def all_texts(attributes: int = 4) -> list[str]:
    """Return every card of the deck as protocol text, in digit order."""
    shapes = SHAPES if attributes == 4 else ("SQUIGGLE",)
    return ["/".join(p) for p in itertools.product(NUMBERS, COLORS, SHADINGS, shapes)]


def deck_starting(first: list[str], attributes: int = 4) -> list[str]:
    """Return ``first`` then every other card of the deck in digit order."""
    return first + [t for t in all_texts(attributes) if t not in set(first)]


def text_is_set(texts, attributes: int = 4) -> bool:
    return is_set(*(parse_card(t, attributes) for t in texts))


def has_set(texts, attributes: int = 4) -> bool:
    return find_set([parse_card(t, attributes) for t in texts]) is not None


def cap(size: int, seed: int = 1, start: tuple[str, ...] = ()) -> list[str]:
    """Return ``size`` 4-attribute cards that form no new set, even together with ``start``."""
    for attempt in range(seed, seed + 200):
        order = [t for t in all_texts() if t not in start]
        random.Random(attempt).shuffle(order)
        chosen = list(start)
        for text in order:
            if not any(text_is_set([a, b, text]) for a, b in itertools.combinations(chosen, 2)):
                chosen.append(text)
                if len(chosen) == len(start) + size:
                    return chosen[len(start) :]
    raise AssertionError(f"no cap of {size} cards found")


def js(state: DeclareState) -> dict:
    """Return the state's stored (JSON) form: what the platform keeps, and what these tests read."""
    return state.to_json()


def new(deck: list[str] | None = None, now: int = T, **options) -> dict:
    if deck is not None:
        options["deck"] = deck
    return R.new_state(options=options, seed=0, now_ms=now)


def example() -> dict:
    return new(deck_starting(EXAMPLE_BOARD))


def do(state: dict, player: str, kind: str, now: int, **fields) -> Result:
    """Apply one action, checking that the input state is left as it was."""
    before = js(state)
    result = R.apply(state, player, {"type": kind, **fields}, now)
    assert js(state) == before
    assert TableState.from_json(json.loads(json.dumps(js(result.state)))) == result.state
    return result


def play(state: dict, now: int, *steps) -> dict:
    """Apply (player, kind, fields...) steps one millisecond apart; return the final state."""
    for i, (player, kind, *rest) in enumerate(steps):
        fields = rest[0] if rest else {}
        state = do(state, player, kind, now + i, **fields).state
    return state


def pick(row: int, col: int) -> dict:
    return {"row": row, "col": col}


def declare_and_pick(state, player, now, *positions) -> Result:
    """Declare, then pick each position; return the last result."""
    result = do(state, player, "declare", now)
    for i, (r, c) in enumerate(positions, 1):
        result = do(result.state, player, "pick", now + i, row=r, col=c)
    return result


class Server:
    """A minimal stand-in for the platform: paths in, (body, event) out, one table."""

    def __init__(self, state: dict) -> None:
        self.state = state

    def get(self, path: str, now: int) -> tuple[str, bool]:
        request = parse_request(path)
        action = request.action()
        if action is None:
            result = R.tick(self.state, now)
            event = result.event
        else:
            result = R.apply(self.state, request.player, action, now)
            event = result.event
        self.state = result.state
        if request.reply == "SCORES":
            return scores_text(self.state), event
        return board_text(self.state, request.player), event


# --- §11 worked example ---------------------------------------------------------------------------


def board_reply(declare: str, spots: list[str]) -> str:
    return "3x4\n" + declare + "\n" + "".join(s + "\n" for s in spots)


def test_worked_example_exactly():
    deck = deck_starting(EXAMPLE_BOARD)
    server = Server(new(deck))
    up = ["up " + t for t in EXAMPLE_BOARD]

    # 1. alice joins and sees the board above.
    body, event = server.get("/look/alice", T)
    assert body == board_reply("none", up)
    assert event
    assert scores_text(server.state) == "alice 0 none\n"

    # 2. alice declares: her line 2 is "my 1700000005100".
    body, event = server.get("/declare/alice", T + 100)
    assert body.splitlines()[1] == "my 1700000005100"
    assert event

    # 3. bob joins and is queued; his line 2 is "up 1700000005100".
    body, event = server.get("/declare/bob", T + 200)
    assert body == board_reply("up 1700000005100", up)
    assert event  # bob's join is the event; being queued is not
    assert scores_text(server.state) == "alice 0 none\nbob 0 none\n"

    # 4. alice's first spot becomes "my ...", bob still sees "up ...".
    body, event = server.get("/pick/alice/0,0", T + 300)
    assert body == board_reply("my 1700000005100", ["my ONE/RED/SOLID/DIAMOND"] + up[1:])
    assert board_text(server.state, "bob") == board_reply("up 1700000005100", up)
    assert event

    # 5. bob is not the declarer: ignored, 200 + BOARD, no event.
    before = js(server.state)
    body, event = server.get("/pick/bob/1,1", T + 400)
    assert body == board_reply("up 1700000005100", up)
    assert not event
    assert {k: v for k, v in js(server.state).items() if k != "last_seen"} == {
        k: v for k, v in before.items() if k != "last_seen"
    }

    # 6. second pick.
    body, event = server.get("/pick/alice/0,2", T + 500)
    mine = ["my ONE/RED/SOLID/DIAMOND", up[1], "my THREE/PURPLE/OPEN/OVAL"] + up[3:]
    assert body == board_reply("my 1700000005100", mine)
    assert event

    # 7. a set: alice 10, queue cleared, (0,0), (0,2), (0,1) get the next 3 deck cards.
    body, event = server.get("/pick/alice/0,1", T + 600)
    assert event
    board = list(EXAMPLE_BOARD)
    board[0], board[2], board[1] = deck[12], deck[13], deck[14]
    assert body == board_reply("none", ["up " + t for t in board])

    # 8. scores.
    body, event = server.get("/scores", T + 700)
    assert body == "alice 10 none\nbob 0 none\n"
    assert not event

    # 9. bob must declare again (the queue was cleared); his three picks are not a set.
    body, event = server.get("/declare/bob", T + 1000)
    assert body.splitlines()[1] == "my 1700000006000"
    assert event
    assert not text_is_set([board[4], board[8], board[9]])
    for i, spot in enumerate(("1,0", "2,0", "2,1"), 1):
        body, event = server.get(f"/pick/bob/{spot}", T + 1000 + i * 100)
        assert event
    assert body == board_reply("none", ["up " + t for t in board])
    assert server.get("/scores", T + 1400)[0] == "alice 10 none\nbob 0 none\n"

    # 10. alice declares and makes no picks: the timeout fires at T+7000.
    body, _ = server.get("/declare/alice", T + 2000)
    assert body.splitlines()[1] == "my 1700000007000"
    assert R.next_deadline(server.state) == T + 7000
    assert not R.tick(server.state, T + 6999).event
    ticked = R.tick(server.state, T + 7000)
    assert ticked.event
    assert ticked.outcome["expired"][0] == {
        "kind": "timeout",
        "at": T + 7000,
        "player": "alice",
        "delta": -5,
        "score": 5,
        "declarer": None,
    }
    assert scores_text(ticked.state) == "alice 5 none\nbob 0 none\n"

    # 11. (the server applies the timeout itself before the request.)
    body, event = server.get("/add/alice", T + 8000)
    assert body == "alice 5 add\nbob 0 none\n"
    assert event

    # 12. unanimous: the board becomes 3x5.
    body, event = server.get("/add/bob", T + 8100)
    assert body == "alice 5 none\nbob 0 none\n"
    assert event
    rows = [board[0:4] + [deck[15]], board[4:8] + [deck[16]], board[8:12] + [deck[17]]]
    expected = "3x5\nnone\n" + "".join("up " + t + "\n" for row in rows for t in row)
    assert board_text(server.state, "alice") == expected


def test_worked_example_sets_are_as_stated():
    b = EXAMPLE_BOARD
    assert text_is_set([b[0], b[1], b[2]])
    assert text_is_set([b[1], b[3], b[7]])
    assert text_is_set([b[2], b[5], b[8]])


def test_watch_variant_early_watch_joins_and_step_3_only_queues():
    server = Server(example())
    assert server.get("/look/alice", T)[1]
    # /watch/bob at T+50 joins him: an event for the others.
    _, event = server.get("/watch/bob", T + 50)
    assert event
    # Step 2 wakes bob; he is answered with his own view.
    body, event = server.get("/declare/alice", T + 100)
    assert event
    assert board_text(server.state, "bob").splitlines()[1] == "up 1700000005100"
    # Step 3 only queues him: not an event.
    body, event = server.get("/declare/bob", T + 200)
    assert not event
    assert body.splitlines()[1] == "up 1700000005100"


def test_watch_variant_step_4_is_an_event_and_step_5_is_not():
    server = Server(example())
    server.get("/look/alice", T)
    server.get("/declare/alice", T + 100)
    server.get("/declare/bob", T + 200)
    assert server.get("/pick/alice/0,0", T + 300)[1]
    assert not server.get("/pick/bob/1,1", T + 400)[1]


# --- creation and options -------------------------------------------------------------------------


def test_fresh_table_deals_row_by_row_from_a_seeded_shuffle():
    a = R.new_state(options={}, seed=7, now_ms=T)
    b = R.new_state(options={}, seed=7, now_ms=T)
    c = R.new_state(options={}, seed=8, now_ms=T)
    assert a == b
    assert js(a)["board"] != js(c)["board"]
    cards = [t for row in js(a)["board"] for t in row] + js(a)["deck"]
    assert sorted(cards) == sorted(all_texts())
    assert len(js(a)["board"]) == 3 and all(len(row) == 4 for row in js(a)["board"])
    assert board_text(a, "x").startswith("3x4\nnone\n")


def test_three_attribute_table_has_27_cards_and_a_3x3_board():
    state = R.new_state(options={"attributes": 3}, seed=1, now_ms=T)
    cards = [t for row in js(state)["board"] for t in row] + js(state)["deck"]
    assert len(cards) == 27 and set(cards) == set(all_texts(3))
    assert [len(row) for row in js(state)["board"]] == [3, 3, 3]
    assert all(t.endswith("/SQUIGGLE") for t in cards)


def test_given_deck_is_dealt_in_order():
    state = example()
    assert js(state)["board"] == [EXAMPLE_BOARD[0:4], EXAMPLE_BOARD[4:8], EXAMPLE_BOARD[8:12]]
    assert js(state)["deck"] == deck_starting(EXAMPLE_BOARD)[12:]


@pytest.mark.parametrize(
    "options",
    [
        {"attributes": 5},
        {"attributes": 2},
        {"attributes": "4"},
        {"attributes": True},
        {"away_ms": 0},
        {"declare_ms": -1},
        {"declare_ms": 1.5},
        {"colour": "red"},
        {"deck": "ONE/RED/SOLID/DIAMOND"},
        {"deck": EXAMPLE_BOARD + EXAMPLE_BOARD[:3]},  # a card twice
        {"deck": EXAMPLE_BOARD + ["ONE/RED/SOLID/SQUARE", "A", "B"]},
        {"deck": EXAMPLE_BOARD[:9]},  # fewer cards than the board
        {"deck": deck_starting(EXAMPLE_BOARD)[:13]},  # not a multiple of 3
        {"deck": [1, 2, 3]},
    ],
)
def test_bad_options_are_refused_with_a_clear_message(options):
    with pytest.raises(TableError) as caught:
        R.new_state(options=options, seed=0, now_ms=T)
    assert caught.value.code == "bad_option"
    assert str(caught.value)


def test_options_default_and_none_is_accepted():
    state = R.new_state(options=None, seed=0, now_ms=T)
    assert (js(state)["attributes"], js(state)["declare_ms"], js(state)["away_ms"]) == (
        4,
        5000,
        60000,
    )


# --- players, names and actions -------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["look", "join", "watch", "declare", "add", "hint"])
def test_every_action_joins_a_new_player_with_score_0_and_is_an_event(kind):
    result = do(example(), "alice", kind, T)
    assert js(result.state)["scores"] == {"alice": 0}
    assert result.outcome["joined"] is True
    assert result.event


def test_a_pick_joins_a_new_player_even_when_ignored():
    result = do(example(), "bob", "pick", T, row=0, col=0)
    assert js(result.state)["scores"] == {"bob": 0}
    assert result.outcome["pick"] == "ignored"
    assert result.event


def test_look_by_a_known_player_only_marks_presence_and_is_no_event():
    state = do(example(), "alice", "look", T).state
    result = do(state, "alice", "look", T + 10)
    assert not result.event
    assert js(result.state)["last_seen"]["alice"] == T + 10
    assert {k: v for k, v in js(result.state).items() if k != "last_seen"} == {
        k: v for k, v in js(state).items() if k != "last_seen"
    }


@pytest.mark.parametrize("name", ["", "bo b", "bob!", "b/ob", "<b>", "bob\n", None, 7])
def test_player_names_are_letters_digits_underscores_and_dashes(name):
    with pytest.raises(TableError) as caught:
        R.apply(example(), name, {"type": "look"}, T)
    assert caught.value.code == "bad_player"


@pytest.mark.parametrize("name", ["élan", "٣", "李雷", "Zoë", "x-1"])
def test_player_names_may_be_of_any_script(name):
    assert name in R.apply(example(), name, {"type": "join"}, T).state.scores


@pytest.mark.parametrize("action", [{}, {"type": "fly"}, "look", None, {"type": 3}])
def test_unknown_actions_are_refused(action):
    with pytest.raises(TableError) as caught:
        R.apply(example(), "alice", action, T)
    assert caught.value.code == "bad_action"


# --- declaring and the queue ----------------------------------------------------------------------


def test_declare_makes_the_declarer_with_a_5_second_deadline():
    result = do(example(), "alice", "declare", T)
    assert js(result.state)["declarer"] == "alice"
    assert js(result.state)["deadline"] == T + 5000
    assert result.outcome["declare"] == "declarer"
    assert R.view(result.state, "alice", T)["declare"] == {
        "state": "my",
        "declarer": "alice",
        "deadline": T + 5000,
    }
    assert R.view(result.state, "bob", T)["declare"]["state"] == "up"


def test_repeated_declares_change_nothing_and_are_no_events():
    state = play(example(), T, ("alice", "declare"), ("bob", "look"), ("bob", "declare"))
    again = do(state, "alice", "declare", T + 10)
    assert not again.event and again.outcome["declare"] == "already"
    assert js(again.state)["deadline"] == js(state)["deadline"]
    queued_again = do(state, "bob", "declare", T + 10)
    assert not queued_again.event and queued_again.outcome["declare"] == "already"
    assert js(queued_again.state)["queue"] == ["bob"]


def test_the_queue_is_first_in_first_out():
    state = play(
        example(),
        T,
        ("bob", "look"),
        ("carol", "look"),
        ("alice", "declare"),
        ("bob", "declare"),
        ("carol", "declare"),
    )
    assert js(state)["queue"] == ["bob", "carol"]
    # alice's wrong set hands over to bob, deadline = now + 5000.
    wrong = [(1, 0), (2, 0), (2, 1)]
    for i, (r, c) in enumerate(wrong):
        state = do(state, "alice", "pick", T + 100 + i, row=r, col=c).state
    assert js(state)["declarer"] == "bob" and js(state)["deadline"] == T + 102 + 5000
    assert R.view(state, "bob", T + 200)["declare"]["state"] == "my"
    # bob times out: carol is next, at the old deadline + 5000.
    ticked = R.tick(state, T + 102 + 5000)
    assert js(ticked.state)["declarer"] == "carol"
    assert js(ticked.state)["deadline"] == T + 102 + 10000
    assert js(ticked.state)["queue"] == []


def test_a_chain_of_timeouts_is_applied_before_a_request():
    state = play(
        example(),
        T,
        ("alice", "declare"),  # deadline T+5000
        ("bob", "declare"),
        ("carol", "declare"),
    )
    half = R.tick(state, T + 12_000)
    assert [e["player"] for e in half.outcome["expired"]] == ["alice", "bob"]
    assert [e["at"] for e in half.outcome["expired"]] == [T + 5000, T + 10_000]
    assert js(half.state)["declarer"] == "carol" and js(half.state)["deadline"] == T + 15_000
    result = do(state, "dave", "look", T + 20_000)
    assert [e["at"] for e in result.outcome["expired"]] == [T + 5000, T + 10_000, T + 15_000]
    assert js(result.state)["declarer"] is None and js(result.state)["deadline"] is None
    assert board_text(result.state, "dave").splitlines()[1] == "none"
    assert result.event


def test_timeout_fires_at_the_deadline_and_a_late_pick_is_ignored():
    state = play(example(), T, ("alice", "declare"), ("alice", "pick", pick(0, 0)))
    state = play(state, T + 2, ("alice", "pick", pick(0, 1)))
    late = do(state, "alice", "pick", T + 5000, row=0, col=2)
    assert late.outcome["expired"][0]["kind"] == "timeout"
    assert late.outcome["pick"] == "ignored"
    assert js(late.state)["scores"]["alice"] == 0
    assert js(late.state)["picks"] == [] and js(late.state)["board"] == js(state)["board"]


def test_timeout_keeps_the_board_and_clears_the_picks():
    state = play(example(), T, ("alice", "declare"), ("alice", "pick", pick(0, 0)))
    ticked = R.tick(state, T + 6000)
    assert js(ticked.state)["picks"] == []
    assert js(ticked.state)["board"] == js(state)["board"]
    assert js(ticked.state)["declarer"] is None


def test_tick_with_nothing_due_is_no_event():
    state = do(example(), "alice", "declare", T).state
    assert R.tick(state, T + 4999) == Result(state, R.tick(state, T + 4999).outcome, False)
    assert R.tick(state, T + 4999).outcome["expired"] == []


# --- picks ----------------------------------------------------------------------------------------


def test_picks_are_kept_in_order_and_a_second_pick_deselects():
    state = play(
        example(),
        T,
        ("alice", "declare"),
        ("alice", "pick", pick(0, 0)),
        ("alice", "pick", pick(0, 1)),
    )
    assert js(state)["picks"] == [[0, 0], [0, 1]]
    result = do(state, "alice", "pick", T + 10, row=0, col=0)
    assert result.event and result.outcome["pick"] == "deselected"
    assert js(result.state)["picks"] == [[0, 1]]
    assert board_text(result.state, "alice").splitlines()[2:4] == [
        "up ONE/RED/SOLID/DIAMOND",
        "my TWO/GREEN/STRIPED/SQUIGGLE",
    ]
    # (0,1) (0,3) (1,3) is a set, replaced in pick order.
    state = play(result.state, T + 20, ("alice", "pick", pick(0, 3)))
    done = do(state, "alice", "pick", T + 30, row=1, col=3)
    assert done.outcome["pick"] == "set"
    deck = deck_starting(EXAMPLE_BOARD)
    assert js(done.state)["board"][0][1] == deck[12]
    assert js(done.state)["board"][0][3] == deck[13]
    assert js(done.state)["board"][1][3] == deck[14]
    assert js(done.state)["board"][0][0] == "ONE/RED/SOLID/DIAMOND"


@pytest.mark.parametrize("who", ["bob", "carol", "dave"])
def test_picks_by_anyone_but_the_declarer_are_ignored(who):
    # bob is queued, carol is seated, dave is new.
    state = play(example(), T, ("carol", "look"), ("alice", "declare"), ("bob", "declare"))
    result = do(state, who, "pick", T + 10, row=1, col=1)
    assert result.outcome["pick"] == "ignored"
    assert js(result.state)["picks"] == []
    assert result.event == (who == "dave")  # only dave's join is an event


def test_a_pick_when_nobody_declares_is_ignored():
    state = do(example(), "alice", "look", T).state
    result = do(state, "alice", "pick", T + 1, row=0, col=0)
    assert result.outcome["pick"] == "ignored" and not result.event


@pytest.mark.parametrize(
    "row, col", [(3, 0), (0, 4), (-1, 0), (0, -1), ("0", 0), (0, None), (True, 0), (0.0, 1)]
)
def test_an_off_board_or_malformed_pick_is_refused(row, col):
    state = do(example(), "alice", "declare", T).state
    with pytest.raises(TableError) as caught:
        R.apply(state, "bob", {"type": "pick", "row": row, "col": col}, T + 1)
    assert caught.value.code == "bad_pick"
    assert str(caught.value) == "Your requested pick was not valid."


def test_a_wrong_set_costs_5_keeps_the_board_and_hands_over():
    state = play(example(), T, ("alice", "declare"), ("bob", "declare"), ("alice", "add"))
    state = play(state, T + 10, ("carol", "look"))
    result = declare_and_pick(state, "alice", T + 20, (1, 0), (2, 0), (2, 1))
    assert result.outcome["pick"] == "not_set"
    assert result.outcome["cards"] == [EXAMPLE_BOARD[4], EXAMPLE_BOARD[8], EXAMPLE_BOARD[9]]
    assert js(result.state)["board"] == js(state)["board"]
    assert js(result.state)["votes"] == ["alice"]  # a wrong set keeps the votes
    assert js(result.state)["declarer"] == "bob"
    assert js(result.state)["deadline"] == T + 23 + 5000


def test_scores_never_go_below_zero():
    state = do(example(), "alice", "look", T).state
    set_done = declare_and_pick(state, "alice", T + 10, (0, 0), (0, 1), (0, 2))
    assert js(set_done.state)["scores"]["alice"] == 10
    state = set_done.state
    seen, deltas = [], [set_done.outcome["delta"]]
    for i in range(3):
        wrong = declare_and_pick(state, "alice", T + 100 * (i + 1), (1, 0), (2, 0), (2, 1))
        assert wrong.outcome["points"] == -5
        state = wrong.state
        seen.append(js(state)["scores"]["alice"])
        deltas.append(wrong.outcome["delta"])
    assert seen == [5, 0, 0]
    state = do(state, "alice", "declare", T + 1000).state
    timed_out = R.tick(state, T + 10_000)
    state = timed_out.state
    assert js(state)["scores"]["alice"] == 0
    deltas.append(timed_out.outcome["expired"][0]["delta"])
    assert deltas == [10, -5, -5, 0, 0]
    assert js(state)["tally"]["alice"] == {"sets": 1, "hinted": 0, "wrong": 3, "timeouts": 1}
    assert scores_text(state) == "alice 0 none\n"


def test_a_correct_set_clears_queue_votes_declarer_and_picks():
    state = play(
        example(),
        T,
        ("carol", "look"),
        ("bob", "add"),
        ("alice", "declare"),
        ("bob", "declare"),
    )
    result = declare_and_pick(state, "alice", T + 10, (0, 0), (0, 1), (0, 2))
    assert result.outcome["pick"] == "set" and result.outcome["points"] == 10
    assert js(result.state)["queue"] == [] and js(result.state)["votes"] == []
    assert js(result.state)["declarer"] is None and js(result.state)["picks"] == []
    assert js(result.state)["taken"] == EXAMPLE_BOARD[0:3]


# --- the board after a set (§6) -------------------------------------------------------------------


def test_reflow_matches_the_spec_example():
    # Letters of the spec's 3x5 example; B, G, O is a set.
    b, g, o = "ONE/RED/SOLID/DIAMOND", "TWO/RED/SOLID/DIAMOND", "THREE/RED/SOLID/DIAMOND"
    others = [t for t in all_texts() if t not in (b, g, o)][:12]
    a, c, d, e, f, h, i, j, k, ll, m, n = others
    deck = deck_starting([a, b, c, d, f, g, h, i, k, ll, m, n, e, j, o])
    state = do(new(deck), "alice", "add", T).state  # alone: unanimous
    assert js(state)["board"] == [[a, b, c, d, e], [f, g, h, i, j], [k, ll, m, n, o]]
    result = declare_and_pick(state, "alice", T + 10, (0, 1), (1, 1), (2, 4))
    assert result.outcome["board"] == "reflowed"
    assert js(result.state)["board"] == [[a, c, d, e], [f, h, i, j], [k, ll, m, n]]
    assert len(js(result.state)["deck"]) == len(js(state)["deck"])  # nothing drawn
    # Back at the default width with cards left: the next set is replaced in place.
    later = declare_and_pick(result.state, "alice", T + 100, *_find_positions(result.state))
    assert later.outcome["board"] == "replaced"
    assert [len(row) for row in js(later.state)["board"]] == [4, 4, 4]


def _find_positions(state):
    cells = [(r, c) for r, row in enumerate(js(state)["board"]) for c in range(len(row))]
    texts = [js(state)["board"][r][c] for r, c in cells]
    for x, y, z in itertools.combinations(range(len(cells)), 3):
        if text_is_set([texts[x], texts[y], texts[z]]):
            return cells[x], cells[y], cells[z]
    raise AssertionError("no set on the board")


def test_reflow_when_the_deck_is_empty_shrinks_below_the_default():
    s = ["ONE/RED/SOLID/DIAMOND", "TWO/RED/SOLID/DIAMOND", "THREE/RED/SOLID/DIAMOND"]
    rest = [t for t in all_texts() if t not in s][:9]
    board = [s[0], rest[0], rest[1], rest[2], rest[3], s[1], rest[4], rest[5]]
    board += [rest[6], rest[7], s[2], rest[8]]
    state = do(new(board), "alice", "look", T).state
    assert js(state)["deck"] == []
    result = declare_and_pick(state, "alice", T + 1, (0, 0), (1, 1), (2, 2))
    assert result.outcome["board"] == "reflowed"
    assert js(result.state)["board"] == [rest[0:3], rest[3:6], rest[6:9]]


# --- votes (§7) -----------------------------------------------------------------------------------


def test_a_vote_is_an_event_and_a_repeated_vote_is_not():
    state = play(example(), T, ("alice", "look"), ("bob", "look"))
    first = do(state, "alice", "add", T + 10)
    assert first.event and first.outcome["vote"] == "recorded"
    assert scores_text(first.state) == "alice 0 add\nbob 0 none\n"
    again = do(first.state, "alice", "add", T + 20)
    assert not again.event and again.outcome["vote"] == "repeated"
    assert js(again.state)["votes"] == ["alice"]


def test_unanimous_votes_add_one_card_per_row():
    state = play(example(), T, ("alice", "look"), ("bob", "add"))
    deck = js(state)["deck"]
    result = do(state, "alice", "add", T + 10)
    assert result.event
    assert result.outcome["added"] == deck[:3]
    assert [row[-1] for row in js(result.state)["board"]] == deck[:3]
    assert [row[:-1] for row in js(result.state)["board"]] == js(state)["board"]
    assert js(result.state)["votes"] == []
    assert js(result.state)["deck"] == deck[3:]
    assert board_text(result.state, "bob").startswith("3x5\n")


def test_there_is_no_upper_limit_on_the_width():
    state = do(example(), "alice", "look", T).state
    for i in range(4):
        state = do(state, "alice", "add", T + i).state
    assert [len(row) for row in js(state)["board"]] == [8, 8, 8]


def test_adding_cards_keeps_the_declarers_picks():
    state = play(
        example(),
        T,
        ("bob", "look"),
        ("alice", "declare"),
        ("alice", "pick", pick(0, 0)),
        ("alice", "add"),
    )
    result = do(state, "bob", "add", T + 10)
    assert result.outcome["added"]
    assert js(result.state)["picks"] == [[0, 0]] and js(result.state)["declarer"] == "alice"
    done = play(result.state, T + 20, ("alice", "pick", pick(0, 1)), ("alice", "pick", pick(0, 2)))
    assert js(done)["scores"]["alice"] == 10


def test_a_vote_with_an_empty_deck_is_ignored():
    s = ["ONE/RED/SOLID/DIAMOND", "TWO/RED/SOLID/DIAMOND", "THREE/RED/SOLID/DIAMOND"]
    board = s + [t for t in all_texts() if t not in s][:9]
    state = do(new(board), "alice", "look", T).state
    result = do(state, "alice", "add", T + 1)
    assert result.outcome["vote"] == "ignored"
    assert js(result.state)["votes"] == [] and not result.event
    assert scores_text(result.state) == "alice 0 none\n"


def test_a_timeout_keeps_the_votes():
    state = play(example(), T, ("bob", "look"), ("alice", "add"), ("alice", "declare"))
    assert R.tick(state, T + 10_000).state.votes == ("alice",)


def test_a_newcomer_blocks_the_add_until_they_vote():
    state = play(example(), T, ("alice", "look"), ("bob", "look"), ("alice", "add"))
    state = play(state, T + 10, ("carol", "look"), ("bob", "add"))
    assert js(state)["votes"] == ["alice", "bob"] and len(js(state)["board"][0]) == 4
    result = do(state, "carol", "add", T + 20)
    assert result.outcome["added"] and len(js(result.state)["board"][0]) == 5


def test_away_players_do_not_block_a_vote():
    state = play(example(), T, ("alice", "look"), ("bob", "look"))
    # bob last seen at T+1; away from T+60001 on.
    still = do(state, "alice", "add", T + 60_000)
    assert still.outcome["added"] is None
    result = do(state, "alice", "add", T + 60_001)
    assert result.outcome["added"]
    view = R.view(result.state, "alice", T + 60_001)
    assert view["away"] == ["bob"] and view["present"] == ["alice"]
    assert scores_text(result.state) == "alice 0 none\nbob 0 none\n"  # away stays in SCORES


def test_becoming_away_completes_the_agreement_at_that_moment():
    state = play(example(), T, ("bob", "look"), ("alice", "add"))
    assert R.next_deadline(state) == T + 60_000
    assert not R.tick(state, T + 59_999).event
    ticked = R.tick(state, T + 70_000)
    assert ticked.event
    assert ticked.outcome["expired"] == [
        {"kind": "added", "at": T + 60_000, "cards": js(state)["deck"][:3], "over": False}
    ]
    assert js(ticked.state)["votes"] == [] and len(js(ticked.state)["board"][0]) == 5
    # The same happens first when bob himself comes back later.
    back = do(state, "bob", "look", T + 70_000)
    assert back.event and back.outcome["expired"][0]["kind"] == "added"
    assert R.next_deadline(back.state) is None


def test_an_away_voters_vote_stays_and_counts():
    state = play(example(), T, ("bob", "look"), ("carol", "look"), ("alice", "add"))
    assert js(state)["votes"] == ["alice"]
    state = play(state, T + 50_000, ("bob", "look"), ("carol", "look"))
    state = play(state, T + 65_000, ("carol", "look"), ("bob", "add"))
    assert not is_present(state, "alice", T + 65_001)
    assert js(state)["votes"] == ["alice", "bob"]  # alice is away, her vote stays
    result = do(state, "carol", "add", T + 66_000)
    assert result.outcome["added"]


def test_a_returning_player_is_present_again_and_blocks():
    state = play(example(), T, ("alice", "look"), ("bob", "look"), ("carol", "look"))
    state = play(state, T + 50_000, ("alice", "look"), ("bob", "look"))
    state = play(state, T + 70_000, ("carol", "look"), ("alice", "add"))
    result = do(state, "bob", "add", T + 70_010)
    assert result.outcome["added"] is None
    assert js(result.state)["votes"] == ["alice", "bob"]


def test_touch_keeps_a_waiting_watcher_present():
    state = play(example(), T, ("bob", "look"), ("alice", "add"))
    state = R.touch(state, "bob", T + 50_000)
    assert R.next_deadline(state) == T + 110_000
    assert not R.tick(state, T + 60_000).event
    assert R.touch(state, "nobody", T + 50_000) is state  # touching never joins


def test_next_deadline_is_the_earliest_of_declare_and_away():
    state = play(example(), T, ("bob", "look"), ("alice", "add"), ("alice", "declare"))
    assert R.next_deadline(state) == T + 2 + 5000
    assert R.next_deadline(example()) is None


# --- end of game (§8) -----------------------------------------------------------------------------


def _last_set_deck() -> tuple[list[str], list[str]]:
    """Return a 12-card deck of one set and a 9-card cap: after the set, no set remains."""
    s = ("ONE/RED/SOLID/DIAMOND", "TWO/RED/SOLID/DIAMOND", "THREE/RED/SOLID/DIAMOND")
    return [*s, *cap(9, start=s)], list(s)


def test_the_game_ends_when_the_deck_is_empty_and_no_set_remains():
    deck, _ = _last_set_deck()
    state = play(
        new(deck),
        T,
        ("alice", "hint"),
        ("bob", "look"),
        ("alice", "declare"),
        ("bob", "declare"),
    )
    result = play(state, T + 10, ("alice", "pick", pick(0, 0)), ("alice", "pick", pick(0, 1)))
    end = do(result, "alice", "pick", T + 20, row=0, col=2)
    assert end.event and end.outcome["over"] is True
    assert R.is_over(end.state)
    final = end.state
    assert js(final)["declarer"] is None and js(final)["queue"] == [] and js(final)["picks"] == []
    assert js(final)["votes"] == [] and js(final)["ended_ms"] == T + 20
    assert not has_set([t for row in js(final)["board"] for t in row])
    assert board_text(final, "alice") == "3x3\nnone\n" + "".join("up " + t + "\n" for t in deck[3:])
    view = R.view(final, "alice", T + 30)
    assert view["over"] is True
    assert view["result"]["winners"] == ["alice"]
    assert view["result"]["scores"] == {"alice": 10, "bob": 0}
    assert view["result"]["hinted"] == {"alice": 1, "bob": 0}
    assert R.result(final)["sets"] == {"alice": 1, "bob": 0}


def test_a_finished_table_answers_everything_and_changes_nothing():
    deck, _ = _last_set_deck()
    state = play(new(deck), T, ("alice", "declare"))
    final = play(state, T + 10, *[("alice", "pick", pick(0, c)) for c in range(3)])
    assert js(final)["over"]
    for player, kind, fields in [
        ("carol", "look", {}),
        ("carol", "watch", {}),
        ("alice", "declare", {}),
        ("alice", "add", {}),
        ("alice", "hint", {}),
        ("alice", "pick", pick(1, 1)),
        ("dave", "pick", pick(0, 0)),
    ]:
        result = do(final, player, kind, T + 100_000, **fields)
        assert result.state == final and not result.event
        assert result.outcome["over"] is True and result.outcome["changed"] is False
    assert R.tick(final, T + 10**9).state == final
    assert R.next_deadline(final) is None
    with pytest.raises(TableError):
        R.apply(final, "alice", {"type": "pick", "row": 0, "col": 3}, T + 100_000)


def test_the_game_can_end_after_an_add():
    deck = cap(15)
    assert not has_set(deck)
    state = play(new(deck), T, ("alice", "add"))
    assert js(state)["over"] and js(state)["ended_ms"] == T
    assert board_text(state, "alice").startswith("3x5\nnone\n")


def test_a_dealt_table_with_no_set_and_no_deck_is_over_at_once():
    state = new(cap(12))
    assert js(state)["over"]


def test_the_board_can_end_empty_as_3x0():
    reds = [f"{n}/RED/{s}/SQUIGGLE" for n in NUMBERS for s in SHADINGS]
    state = do(new(reds, attributes=3), "alice", "look", T).state
    state = declare_and_pick(state, "alice", T + 10, (0, 0), (0, 1), (0, 2)).state
    assert [len(row) for row in js(state)["board"]] == [2, 2, 2]
    state = declare_and_pick(state, "alice", T + 20, (0, 0), (0, 1), (1, 0)).state
    assert [len(row) for row in js(state)["board"]] == [1, 1, 1]
    end = declare_and_pick(state, "alice", T + 30, (0, 0), (1, 0), (2, 0))
    assert js(end.state)["over"]
    assert board_text(end.state, "alice") == "3x0\nnone\n"
    assert scores_text(end.state) == "alice 30 none\n"
    with pytest.raises(TableError) as caught:
        R.apply(end.state, "alice", {"type": "pick", "row": 0, "col": 0}, T + 40)
    assert caught.value.code == "bad_pick"


# --- hints ----------------------------------------------------------------------------------------


def test_a_hint_shows_one_card_of_a_set_and_marks_the_set():
    state = play(example(), T, ("alice", "look"), ("bob", "look"))
    result = do(state, "alice", "hint", T + 10)
    assert result.event  # that a hint was taken is everyone's (never its card)
    assert js(result.state)["tally"]["alice"]["hints"] == 1
    hint = result.outcome["hint"]
    r, c = hint["position"]
    assert js(result.state)["board"][r][c] == hint["card"]
    cells = [(rr, cc) for rr in range(3) for cc in range(4)]
    sets = [
        trio
        for trio in itertools.combinations(cells, 3)
        if text_is_set([js(result.state)["board"][x][y] for x, y in trio])
    ]
    with_hint = [trio for trio in sets if (r, c) in trio]
    assert with_hint
    assert R.view(result.state, "alice", T + 10)["hint"] == hint
    assert R.view(result.state, "bob", T + 10)["hint"] is None
    assert do(result.state, "alice", "hint", T + 11).outcome["hint"] == hint
    # bob scores a set with alice's hinted card: not hinted for bob.
    bob = declare_and_pick(result.state, "bob", T + 20, *with_hint[0])
    assert bob.outcome["hinted"] is False
    # alice scores it herself: hinted.
    alice = declare_and_pick(result.state, "alice", T + 20, *with_hint[0])
    assert alice.outcome["hinted"] is True and alice.outcome["points"] == 10
    assert js(alice.state)["tally"]["alice"]["hinted"] == 1
    assert R.view(alice.state, "alice", T + 30)["hint"] is None


def test_a_hint_without_a_set_says_so():
    state = do(new(deck_starting(cap(12))), "alice", "hint", T)
    assert state.outcome["hint"] is None
    assert state.outcome["message"] == "There is no set on the board."


# --- views ----------------------------------------------------------------------------------------


def test_the_view_never_shows_the_queue_or_the_deck():
    state = play(
        example(), T, ("alice", "declare"), ("bob", "declare"), ("alice", "pick", pick(0, 0))
    )
    for viewer in ("alice", "bob", None):
        view = R.view(state, viewer, T + 10)
        text = json.dumps(view)
        assert "queue" not in view
        assert not any(f'"{card}"' in text for card in js(state)["deck"])
    assert R.view(state, "bob", T)["picks"] == []
    assert R.view(state, "alice", T)["picks"] == [[0, 0]]
    assert R.view(state, "alice", T)["board"][0][0]["picked"] is True
    assert R.view(state, "bob", T)["board"][0][0]["picked"] is False


def test_the_view_describes_the_table():
    state = play(example(), T, ("bob", "look"), ("alice", "add"))
    view = R.view(state, "bob", T + 5)
    assert view["rules"] == "declare" and view["attributes"] == 4
    assert (view["rows"], view["cols"]) == (3, 4)
    assert view["board"][0][0]["card"] == "ONE/RED/SOLID/DIAMOND"
    assert view["board"][0][0]["digits"] == "0000"
    assert view["scores"] == {"alice": 0, "bob": 0}
    assert view["votes"] == ["alice"]
    assert view["deck_left"] == 69
    assert view["declare"]["state"] == "none"
    assert view["over"] is False and view["result"] is None
    assert view["seated"] is True and R.view(state, "zed", T)["seated"] is False
    assert json.loads(json.dumps(view)) == view


def test_the_view_applies_due_deadlines_without_changing_the_state():
    state = do(example(), "alice", "declare", T).state
    before = js(state)
    assert R.view(state, "alice", T + 6000)["declare"]["state"] == "none"
    assert js(state) == before


def test_players_and_scores_accessors():
    state = play(example(), T, ("bob", "look"), ("alice", "look"))
    assert R.players(state) == ["bob", "alice"]
    assert R.scores(state) == {"bob": 0, "alice": 0}
    assert R.is_over(state) is False
