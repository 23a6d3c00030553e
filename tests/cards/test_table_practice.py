"""Practice tables: the pause, hints one card more a press, "show me", and the option's rules."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.classic import ClassicRules
from cards.engine.table import TableError, TableState
from cards.engine.table.codes import codes_of, is_set, texts_of
from cards.engine.table.modes import MODES, is_ultra
from cards.engine.table.practice import board_claims
from tests.cards.test_table_modes import check_seat_views

R = ClassicRules
T = 1_700_000_000_000


def practice(*players: str, seed: int = 3, **options):
    """A dealt practice table with ``players`` seated (the first is its host)."""
    state = R.new_state(options={"practice": True, **options}, seed=seed, now_ms=T)
    for name in players:
        state = R.apply(state, name, {"type": "join"}, T).state
    return state


def refused(state, player, action, now, code):
    """The action is refused with ``code`` and leaves the state as it was (JSON and all)."""
    before = json.dumps(state.to_json())
    with pytest.raises(TableError) as caught:
        R.apply(state, player, action, now)
    assert caught.value.code == code
    assert json.dumps(state.to_json()) == before
    return str(caught.value)


def first_claim_texts(state):
    return texts_of(board_claims(state)[0], state.attributes)


# --- the option -----------------------------------------------------------------------------


def test_the_option_is_kept_and_the_view_says_practice():
    assert R.clean_options({"practice": True}) == {"practice": True}
    assert R.clean_options({"practice": False}) == {}  # the default is not stored
    state = practice("ann")
    view = R.view(state, "ann", T)
    assert view["practice"] is True and view["paused"] is False
    assert "practice" not in R.view(R.new_state(seed=3, now_ms=T), None, T)


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_a_practice_option_that_is_not_a_boolean_is_refused(value):
    with pytest.raises(TableError, match="The practice option must be true or false"):
        R.clean_options({"practice": value})


@pytest.mark.parametrize("mode", ["ultra", "chain", "puzzle"])
def test_every_mode_can_be_practised(mode):
    state = practice("ann", mode=mode)
    assert R.view(state, "ann", T)["practice"] is True
    assert state.mode == mode


# --- pause and resume -------------------------------------------------------------------------


def test_pause_hides_the_board_and_stops_the_clock():
    state = practice("ann")
    assert R.view(state, "ann", T + 5000)["elapsed_ms"] == 5000
    cards = {card["card"] for card in R.view(state, None, T)["board"]}
    result = R.apply(state, "ann", {"type": "pause"}, T + 5000)
    assert result.event and result.outcome["paused"] is True
    paused = result.state
    for viewer in ("ann", None):
        view = R.view(paused, viewer, T + 65_000)
        assert view["paused"] is True
        assert view["board"] == [] and view["cols"] == 0 and view["hint"] is None
        assert view["elapsed_ms"] == 5000  # stands still
        assert view["paused_ms"] == 60_000
        # No card anywhere in the view.
        text = json.dumps(view)
        assert not any(card in text for card in cards)
    check_seat_views(R, paused, ["ann"], T + 65_000)
    resumed = R.apply(paused, "ann", {"type": "resume"}, T + 65_000).state
    view = R.view(resumed, "ann", T + 67_000)
    assert view["paused"] is False and view["elapsed_ms"] == 7000
    assert [c["card"] for c in view["board"]] == [
        c["card"] for c in R.view(state, None, T)["board"]
    ]


def test_no_card_text_is_sent_while_paused():
    state = practice("ann", "bo", mode="chain")
    claim = first_claim_texts(state)
    state = R.apply(state, "bo", {"type": "claim", "cards": claim}, T + 10).state
    assert state.chain  # the chain holds cards
    paused = R.apply(state, "ann", {"type": "pause"}, T + 20).state
    cards = set(R.view(state, None, T + 20)["board"][i]["card"] for i in range(len(state.board)))
    for viewer in ("ann", "bo", None):
        text = json.dumps(R.view(paused, viewer, T + 30))
        assert not any(card in text for card in cards)
        assert R.view(paused, viewer, T + 30)["chain"] == []


def test_only_the_host_pauses_and_resumes():
    state = practice("ann", "bo")
    message = refused(state, "bo", {"type": "pause"}, T + 1, "not_host")
    assert message == "Only ann, who made the table, can pause the game."
    refused(state, "cy", {"type": "pause"}, T + 1, "not_seated")
    paused = R.apply(state, "ann", {"type": "pause"}, T + 1).state
    assert "can resume the game" in refused(paused, "bo", {"type": "resume"}, T + 2, "not_host")


def test_pausing_twice_or_resuming_a_running_table_changes_nothing():
    state = practice("ann")
    assert (
        refused(state, "ann", {"type": "resume"}, T + 1, "not_paused") == "The game is not paused."
    )
    paused = R.apply(state, "ann", {"type": "pause"}, T + 1).state
    assert refused(paused, "ann", {"type": "pause"}, T + 2, "already_paused") == (
        "The game is paused already."
    )
    error = TableError("x", "already_paused")
    assert error.refusal == "conflict"


def test_only_a_practice_table_pauses():
    state = R.new_state(seed=3, now_ms=T)
    state = R.apply(state, "ann", {"type": "join"}, T).state
    assert refused(state, "ann", {"type": "pause"}, T, "bad_action") == (
        "Only a practice table can be paused."
    )
    refused(state, "ann", {"type": "show"}, T, "bad_action")


@pytest.mark.parametrize("kind", ["claim", "hint", "count", "show"])
def test_moves_that_need_the_cards_are_refused_while_paused(kind):
    state = practice("ann")
    action = {"type": kind}
    if kind == "claim":
        action["cards"] = first_claim_texts(state)
    paused = R.apply(state, "ann", {"type": "pause"}, T + 1).state
    assert refused(paused, "ann", action, T + 2, "paused") == "The game is paused."
    assert TableError("x", "paused").refusal == "conflict"


def test_a_computer_waits_while_the_table_is_paused():
    from cards.engine.bot import set_table_actions

    state = practice("ann", "cpu")
    assert set_table_actions(state, "cpu")
    paused = R.apply(state, "ann", {"type": "pause"}, T + 1).state
    assert set_table_actions(paused, "cpu") is None
    resumed = R.apply(paused, "ann", {"type": "resume"}, T + 2).state
    assert set_table_actions(resumed, "cpu")


def test_a_table_waiting_for_its_deal_cannot_be_paused():
    state = R.new_state(options={"practice": True, "start": "wait"}, seed=3, now_ms=T)
    state = R.apply(state, "ann", {"type": "join"}, T).state
    refused(state, "ann", {"type": "pause"}, T, "not_started")


# --- hints ---------------------------------------------------------------------------------


def test_each_hint_press_reveals_one_more_card_up_to_the_claim():
    state = practice("ann")
    shown = []
    for press in range(1, 6):
        result = R.apply(state, "ann", {"type": "hint"}, T + press)
        state = result.state
        cards = [c["card"] for c in result.outcome["hint"]["cards"]]
        assert len(cards) == min(press, 3)
        assert cards[: len(shown)] == shown  # the same claim, one card more
        shown = cards
        view_hint = R.view(state, "ann", T + press)["hint"]
        assert [c["card"] for c in view_hint["cards"]] == cards
        assert R.view(state, "bo", T + press)["hint"] is None  # nobody else's
    assert is_set(codes_of(shown, 4), 4)
    assert result.outcome["message"].startswith("3 of the 3 cards of a set on the board")


def test_hints_start_again_at_any_claim():
    state = practice("ann", "bo")
    for press in range(2):
        state = R.apply(state, "ann", {"type": "hint"}, T + press).state
    assert len(R.view(state, "ann", T)["hint"]["cards"]) == 2
    # A wrong claim by anyone: ann's count starts again.
    board = [c["card"] for c in R.view(state, None, T)["board"]]
    wrong = next(
        [a, b, c]
        for a, b, c in zip(board, board[1:], board[2:], strict=False)
        if not is_set(codes_of([a, b, c], 4), 4)
    )
    state = R.apply(state, "bo", {"type": "claim", "cards": wrong}, T + 5).state
    assert state.practice.hints == {}
    assert len(R.view(state, "ann", T)["hint"]["cards"]) == 1
    state = R.apply(state, "ann", {"type": "hint"}, T + 6).state
    assert len(R.apply(state, "ann", {"type": "hint"}, T + 7).outcome["hint"]["cards"]) == 2


def test_an_ultra_hint_reveals_four_cards():
    state = practice("ann", mode="ultra")
    for press in range(5):
        result = R.apply(state, "ann", {"type": "hint"}, T + press)
        state = result.state
    cards = [c["card"] for c in result.outcome["hint"]["cards"]]
    assert len(cards) == 4 and is_ultra(codes_of(cards, 4), 4)


# --- show me -------------------------------------------------------------------------------


def test_show_me_draws_the_boards_sets_one_by_one():
    state = practice("ann", seed=5)
    total = len(board_claims(state))
    assert total >= 1
    seen = []
    for press in range(1, total + 3):
        result = R.apply(state, "ann", {"type": "show"}, T + press)
        state = result.state
        show = result.outcome["show"]
        assert show["total"] == total
        assert len(show["sets"]) == min(press, total)
        sets = [[c["card"] for c in found] for found in show["sets"]]
        assert sets[: len(seen)] == seen
        seen = sets
        assert all(is_set(codes_of(found, 4), 4) for found in sets)
        assert R.view(state, "ann", T + press)["show"] == show
        assert R.view(state, None, T + press)["show"] is None
    assert len({tuple(sorted(found)) for found in seen}) == total  # each set once
    # Any claim starts it again.
    state = R.apply(state, "ann", {"type": "claim", "cards": seen[0]}, T + 99).state
    assert R.view(state, "ann", T + 99)["show"] is None


def test_show_me_needs_a_seat():
    state = practice("ann")
    refused(state, "cy", {"type": "show"}, T, "not_seated")


def test_a_puzzle_shows_only_the_sets_not_found():
    state = practice("ann", mode="puzzle")
    assert len(board_claims(state)) == 6
    state = R.apply(state, "ann", {"type": "claim", "cards": first_claim_texts(state)}, T + 1).state
    assert R.apply(state, "ann", {"type": "show"}, T + 2).outcome["show"]["total"] == 5


# --- the game to its end ---------------------------------------------------------------------


def test_a_practice_game_played_to_its_end_with_pauses_keeps_its_time_without_them():
    state = practice("ann", attributes=3)
    now = T
    paused_total = 0
    while not state.over:
        now += 1000
        state = R.apply(state, "ann", {"type": "pause"}, now).state
        now += 500
        paused_total += 500
        state = R.apply(state, "ann", {"type": "resume"}, now).state
        state = R.apply(
            state, "ann", {"type": "claim", "cards": first_claim_texts(state)}, now
        ).state
    assert state.practice.paused_ms == paused_total
    view = R.view(state, "ann", now + 10_000)
    assert view["elapsed_ms"] == now - T - paused_total
    refused(state, "ann", {"type": "pause"}, now + 1, "game_over")


# --- random play -----------------------------------------------------------------------------

MOVES = st.lists(
    st.tuples(
        st.sampled_from(["pause", "resume", "claim", "wrong", "hint", "show", "count"]),
        st.sampled_from(["ann", "bo"]),
        st.integers(min_value=0, max_value=5000),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(moves=MOVES, seed=st.integers(0, 50), mode=st.sampled_from(["normal", "ultra", "chain"]))
def test_random_play_never_counts_paused_time(moves, seed, mode):
    """Whatever is sent when: elapsed never counts paused time, a refused move changes nothing,
    the state reads back from its JSON form, and nothing is shown while paused."""
    options = {} if mode == "normal" else {"mode": mode}
    state = practice("ann", "bo", seed=seed, **options)
    now = T
    running = 0  # the time the table ran, counted here by the test
    for kind, player, wait in moves:
        if not state.practice.paused:
            running += wait
        now += wait
        action = {"type": kind}
        if kind in ("claim", "wrong"):
            claims = board_claims(state) if not state.practice.paused else []
            if kind == "claim" and claims:
                cards = claims[0]
            else:
                cards = state.board[: 4 if mode == "ultra" else 3]
            action = {"type": "claim", "cards": texts_of(cards, state.attributes)}
        before = state.to_json()
        try:
            state = R.apply(state, player, action, now).state
        except TableError:
            assert state.to_json() == before
        if state.over:
            break
        view = R.view(state, player, now)
        assert view["elapsed_ms"] == running
        if state.practice.paused:
            assert view["board"] == [] and view["hint"] is None and view["show"] is None
        stored = json.loads(json.dumps(state.to_json()))
        assert TableState.from_json(stored) == state
        check_seat_views(R, state, ["ann", "bo"], now)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_mode_hints_to_its_claims_size_shows_its_claims_and_hides_them_paused(mode):
    state = practice("ann", mode=mode)
    rules = MODES[mode]
    for press in range(rules.size + 1):
        result = R.apply(state, "ann", {"type": "hint"}, T + press)
        state = result.state
    if result.outcome["hint"] is not None:
        cards = [card["card"] for card in result.outcome["hint"]["cards"]]
        assert len(cards) == rules.size
        assert rules.claim.check(codes_of(cards, state.attributes, state.base), state.attributes)
    shown = R.apply(state, "ann", {"type": "show"}, T + 20).outcome["show"]
    if shown is not None:
        found = [c["card"] for c in shown["sets"][0]]
        assert rules.claim.check(codes_of(found, state.attributes, state.base), state.attributes)
    paused = R.apply(state, "ann", {"type": "pause"}, T + 30).state
    view = R.view(paused, "ann", T + 40)
    assert view["board"] == [] and view["hint"] is None and view["show"] is None
    assert view.get("chain", []) == [] and view.get("found", []) == []
    check_seat_views(R, paused, ["ann"], T + 40)
