"""The "classic" Set table: the physical game's rules played in real time."""

from __future__ import annotations

import itertools
import json

import pytest

from cards.engine.card import parse_card
from cards.engine.classic import ClassicRules
from cards.engine.deck import new_deck
from cards.engine.rules import find_set, is_set
from cards.engine.table import ClassicState, Result, TableError, TableState

R = ClassicRules
T = 1_700_000_000_000


def texts(attributes: int = 4) -> list[str]:
    """Return every card of the deck as the text a state stores, in code order."""
    cards = sorted(new_deck(attributes, rng=0), key=lambda card: card.code)
    return [card.protocol for card in cards]


def text_is_set(trio, attributes: int = 4) -> bool:
    return is_set(*(parse_card(t, attributes) for t in trio))


def has_set(cards, attributes: int = 4) -> bool:
    return find_set([parse_card(t, attributes) for t in cards]) is not None


def a_set(cards, attributes: int = 4) -> list[str]:
    found = find_set([parse_card(t, attributes) for t in cards])
    assert found is not None
    return [card.protocol for card in found]


def count_sets(cards, attributes: int = 4) -> int:
    return sum(text_is_set(trio, attributes) for trio in itertools.combinations(cards, 3))


def no_set_cards(size: int, start=(), attributes: int = 4) -> list[str]:
    """Return ``size`` cards, in code order, that form no set with each other or with ``start``."""
    chosen = list(start)
    for text in texts(attributes):
        if text in chosen:
            continue
        pairs = itertools.combinations(chosen, 2)
        if not any(text_is_set([a, b, text], attributes) for a, b in pairs):
            chosen.append(text)
            if len(chosen) == len(start) + size:
                return chosen[len(start) :]
    raise AssertionError("not enough cards")


def deck_starting(first, attributes: int = 4) -> list[str]:
    return list(first) + [t for t in texts(attributes) if t not in set(first)]


def js(state: ClassicState) -> dict:
    """Return the state's stored (JSON) form: what the platform keeps, and what these tests read."""
    return state.to_json()


def new(deck=None, **options) -> dict:
    if deck is not None:
        options["deck"] = deck
    return R.new_state(options=options, seed=0, now_ms=T)


def do(state: dict, player: str, kind: str, now: int = T, **fields) -> Result:
    before = js(state)
    result = R.apply(state, player, {"type": kind, **fields}, now)
    assert js(state) == before
    assert TableState.from_json(json.loads(json.dumps(js(result.state)))) == result.state
    return result


def refused(state: dict, player: str, kind: str, **fields) -> TableError:
    before = js(state)
    with pytest.raises(TableError) as caught:
        R.apply(state, player, {"type": kind, **fields}, T + 1)
    assert js(state) == before
    return caught.value


def seated(state: dict, *names: str) -> dict:
    for name in names:
        state = do(state, name, "join").state
    return state


# --- creation -------------------------------------------------------------------------------------


@pytest.mark.parametrize("attributes, size, board", [(3, 27, 9), (4, 81, 12), (5, 243, 15)])
def test_a_fresh_table_deals_the_standard_board_of_the_whole_deck(attributes, size, board):
    state = R.new_state(options={"attributes": attributes}, seed=3, now_ms=T)
    assert len(js(state)["board"]) >= board and len(js(state)["board"]) % 3 == 0
    assert has_set(js(state)["board"], attributes)
    assert sorted(js(state)["board"] + js(state)["deck"]) == sorted(texts(attributes))
    assert state == R.new_state(options={"attributes": attributes}, seed=3, now_ms=T)
    assert state.board != R.new_state(options={"attributes": attributes}, seed=4, now_ms=T).board


def test_the_default_is_four_attributes_and_twelve_cards():
    state = R.new_state(options={}, seed=0, now_ms=T)
    assert js(state)["attributes"] == 4 and js(state)["board_size"] == 12


@pytest.mark.parametrize(
    "options",
    [
        {"attributes": 6},
        {"attributes": 2},
        {"attributes": "4"},
        {"board_size": 10},
        {"board_size": 0},
        {"board_size": 84},
        {"declare_ms": 5000},
        {"deck": ["ONE/RED/SOLID/DIAMOND"] * 12},
        {"deck": "all"},
    ],
)
def test_bad_options_are_refused(options):
    with pytest.raises(TableError) as caught:
        R.new_state(options=options, seed=0, now_ms=T)
    assert caught.value.code == "bad_option"


def test_a_board_without_a_set_gets_three_more_cards_until_it_has_one():
    cap = no_set_cards(16)
    state = new(deck_starting(cap))
    # 12 and 15 cards hold no set: deal on until the board holds one (18 cards or more).
    board = js(state)["board"]
    assert len(board) >= 18 and board[:16] == cap
    assert has_set(board) and not has_set(board[:-3])


# --- joining --------------------------------------------------------------------------------------


def test_join_seats_a_player_once():
    first = do(new(), "alice", "join")
    assert first.event and first.outcome["joined"] is True
    assert js(first.state)["scores"] == {"alice": 0}
    again = do(first.state, "alice", "join", T + 5)
    assert not again.event and again.outcome["joined"] is False
    assert js(again.state)["last_seen"]["alice"] == T + 5


def test_claims_and_hints_need_a_seat_and_look_does_not_seat():
    state = new()
    assert refused(state, "bob", "claim", cards=a_set(js(state)["board"])).code == "not_seated"
    assert refused(state, "bob", "hint").code == "not_seated"
    look = do(state, "bob", "look")
    assert look.state == state and not look.event


def test_bad_names_and_actions_are_refused():
    state = new()
    assert refused(state, "bo b", "join").code == "bad_player"
    assert refused(state, "alice", "declare").code == "bad_action"


# --- claims ---------------------------------------------------------------------------------------


def test_a_set_scores_one_and_is_replaced_in_place_in_claim_order():
    state = seated(new(), "alice")
    trio = a_set(js(state)["board"])
    positions = [js(state)["board"].index(t) for t in trio]
    result = do(state, "alice", "claim", T + 10, cards=trio)
    assert result.event
    out = result.outcome
    assert (out["claim"], out["points"], out["score"], out["board"]) == ("set", 1, 1, "replaced")
    assert out["cards"] == trio and out["positions"] == positions
    assert js(result.state)["scores"] == {"alice": 1}
    deck = js(state)["deck"]
    board = js(result.state)["board"]
    if out["dealt"] == 0:
        assert [board[p] for p in positions] == deck[:3]
        assert len(board) == 12
    assert js(result.state)["taken"] == trio
    assert js(result.state)["tally"]["alice"]["sets"] == 1


def test_claims_accept_digit_strings_and_store_card_text():
    state = seated(new(), "alice")
    trio = a_set(js(state)["board"])
    digits = [parse_card(t, 4).digits for t in trio]
    result = do(state, "alice", "claim", cards=digits)
    assert result.outcome["cards"] == trio


@pytest.mark.parametrize(
    "cards",
    [None, [], ["ONE/RED/SOLID/DIAMOND"] * 3, ["A", "B", "C"], [1, 2, 3], "0000 1111 2222"],
)
def test_malformed_claims_are_refused(cards):
    state = seated(new(), "alice")
    assert refused(state, "alice", "claim", cards=cards).code == "bad_claim"


def test_a_claim_of_cards_still_in_the_deck_is_not_on_the_board():
    state = seated(new(), "alice")
    error = refused(state, "alice", "claim", cards=js(state)["deck"][:3])
    assert error.code == "not_on_board"


def test_a_claim_that_loses_the_race_for_its_cards_is_just_taken():
    state = seated(new(), "alice", "bob")
    trio = a_set(js(state)["board"])
    after = do(state, "alice", "claim", T + 10, cards=trio).state
    error = refused(after, "bob", "claim", cards=trio)
    assert error.code == "just_taken" and str(error) == "Those cards were just taken."
    # Overlapping: one card gone, two still there (maybe) - still just taken, bob not locked out.
    overlap = [trio[0]] + [t for t in js(after)["board"] if t not in trio][:2]
    assert refused(after, "bob", "claim", cards=overlap).code == "just_taken"
    assert js(after)["locked"] == []


def test_a_wrong_claim_locks_the_player_out_until_another_finds_a_set():
    state = seated(new(), "alice", "bob", "carol")
    wrong = next(
        list(trio)
        for trio in itertools.combinations(js(state)["board"], 3)
        if not text_is_set(trio)
    )
    result = do(state, "alice", "claim", T + 10, cards=wrong)
    assert result.event and result.outcome["claim"] == "not_set"
    assert result.outcome["locked_out"] is True
    assert (
        js(result.state)["board"] == js(state)["board"] and js(result.state)["scores"]["alice"] == 0
    )
    assert js(result.state)["locked"] == ["alice"]
    assert R.view(result.state, "alice", T)["locked_out"] is True
    assert R.view(result.state, "bob", T)["locked"] == ["alice"]
    locked = result.state
    assert refused(locked, "alice", "claim", cards=a_set(js(locked)["board"])).code == "locked_out"
    freed = do(locked, "bob", "claim", T + 20, cards=a_set(js(locked)["board"])).state
    assert js(freed)["locked"] == []
    again = do(freed, "alice", "claim", T + 30, cards=a_set(js(freed)["board"]))
    assert again.outcome["claim"] == "set"


def test_when_everyone_is_locked_out_the_lockouts_are_lifted():
    state = seated(new(), "alice", "bob")
    wrong = next(
        list(trio)
        for trio in itertools.combinations(js(state)["board"], 3)
        if not text_is_set(trio)
    )
    state = do(state, "alice", "claim", cards=wrong).state
    result = do(state, "bob", "claim", cards=wrong)
    assert result.outcome["released"] is True and js(result.state)["locked"] == []
    solo = seated(new(), "alice")
    assert do(solo, "alice", "claim", cards=wrong).state.locked == ()


def test_a_set_from_a_large_board_is_removed_not_replaced():
    cap = no_set_cards(12)
    state = seated(new(deck_starting(cap)), "alice")
    assert len(js(state)["board"]) > 12
    trio = a_set(js(state)["board"])
    result = do(state, "alice", "claim", cards=trio)
    assert result.outcome["board"] == "removed"
    assert len(js(result.state)["deck"]) == len(js(state)["deck"]) - result.outcome["dealt"]
    if result.outcome["dealt"] == 0:
        assert js(result.state)["board"] == [t for t in js(state)["board"] if t not in trio]


def test_a_claim_that_leaves_no_set_deals_more_at_once():
    s = texts()[:3]  # ONE/RED/SOLID/* is a set
    assert text_is_set(s)
    cap = no_set_cards(9, start=s)
    follow = no_set_cards(3, start=s + cap)  # the replacements keep the board without a set
    deck = deck_starting(s + cap + follow)
    state = seated(new(deck), "alice")
    assert len(js(state)["board"]) == 12
    result = do(state, "alice", "claim", cards=s)
    assert result.outcome["dealt"] >= 3
    assert has_set(js(result.state)["board"])
    assert len(js(result.state)["board"]) == 12 + result.outcome["dealt"]


# --- the end of the game --------------------------------------------------------------------------


def two_sets_deck() -> tuple[list[str], list[str], list[str]]:
    """Return a 12-card deck whose only sets are two disjoint ones, and those two sets."""
    all_cards = texts()
    first = all_cards[:3]
    for second in itertools.combinations(all_cards[3:], 3):
        if text_is_set(second) and count_sets(first + list(second)) == 2:
            break
    second = list(second)
    rest = no_set_cards(6, start=first + second)
    return first + second + rest, first, second


def test_the_game_ends_when_the_deck_is_empty_and_no_set_remains_ties_share_the_win():
    deck, first, second = two_sets_deck()
    state = seated(new(deck), "alice", "bob")
    assert js(state)["deck"] == [] and not js(state)["over"]
    state = do(state, "alice", "claim", T + 10, cards=first).state
    assert not js(state)["over"] and len(js(state)["board"]) == 9
    result = do(state, "bob", "claim", T + 20, cards=second)
    assert result.event and result.outcome["over"] is True
    final = result.state
    assert R.is_over(final) and js(final)["ended_ms"] == T + 20
    assert R.result(final)["winners"] == ["alice", "bob"]
    view = R.view(final, None, T + 30)
    assert view["over"] and view["result"]["scores"] == {"alice": 1, "bob": 1}
    assert refused(final, "alice", "claim", cards=js(final)["board"][:3]).code == "game_over"
    for kind in ("join", "look", "hint"):
        answer = do(final, "carol", kind)
        assert answer.state == final and not answer.event and answer.outcome["over"]


def test_most_sets_wins():
    deck, first, second = two_sets_deck()
    state = seated(new(deck), "alice", "bob")
    state = do(state, "alice", "claim", cards=first).state
    final = do(state, "alice", "claim", cards=second).state
    assert R.result(final)["winners"] == ["alice"]
    assert R.scores(final) == {"alice": 2, "bob": 0}


@pytest.mark.parametrize("attributes", [3, 4, 5])
def test_a_whole_game_plays_out(attributes):
    state = R.new_state(options={"attributes": attributes}, seed=11, now_ms=T)
    state = seated(state, "alice", "bob")
    turn = 0
    while not js(state)["over"]:
        player = ("alice", "bob")[turn % 2]
        claim = {"type": "claim", "cards": a_set(js(state)["board"], attributes)}
        state = R.apply(state, player, claim, T + turn).state
        turn += 1
        assert len(js(state)["board"]) % 3 == 0
    assert sum(js(state)["scores"].values()) == turn
    assert sorted(js(state)["board"] + js(state)["taken"]) == sorted(texts(attributes))
    assert not has_set(js(state)["board"], attributes)


# --- hints and views ------------------------------------------------------------------------------


def test_a_hint_shows_one_card_and_marks_the_set():
    state = seated(new(), "alice", "bob")
    result = do(state, "alice", "hint", T + 5)
    # Everyone is told that a hint was taken (it unrates a rated table), never its card.
    assert result.event
    assert js(result.state)["tally"]["alice"]["hints"] == 1
    again = do(result.state, "alice", "hint", T + 6)  # the same hint, shown again: not counted
    assert not again.event and js(again.state)["tally"]["alice"]["hints"] == 1
    hint = result.outcome["hint"]
    assert js(result.state)["board"][hint["position"]] == hint["card"]
    assert R.view(result.state, "alice", T)["hint"] == hint
    assert R.view(result.state, "bob", T)["hint"] is None
    board = js(result.state)["board"]
    trio = next(
        list(t) for t in itertools.combinations(board, 3) if hint["card"] in t and text_is_set(t)
    )
    scored = do(result.state, "alice", "claim", T + 10, cards=trio)
    assert scored.outcome["hinted"] is True
    assert js(scored.state)["tally"]["alice"]["hinted"] == 1
    unhinted = do(result.state, "bob", "claim", T + 10, cards=trio)
    assert unhinted.outcome["hinted"] is False


def test_the_view_lays_positions_out_in_columns_of_three():
    state = seated(new(), "alice")
    view = R.view(state, "alice", T)
    assert view["rules"] == "classic" and (view["rows"], view["cols"]) == (3, 4)
    assert [(p["position"], p["row"], p["col"]) for p in view["board"][:4]] == [
        (0, 0, 0),
        (1, 1, 0),
        (2, 2, 0),
        (3, 0, 1),
    ]
    assert view["board"][0]["card"] == js(state)["board"][0]
    assert view["deck_left"] == 69 and view["locked"] == [] and view["locked_out"] is False
    assert view["present"] == ["alice"] and R.view(state, "alice", T + 60_000)["away"] == ["alice"]
    text = json.dumps(view)
    assert not any(f'"{card}"' in text for card in js(state)["deck"])


def test_time_never_changes_a_classic_table():
    state = seated(new(), "alice")
    assert R.next_deadline(state) is None
    assert R.tick(state, T + 10**9).event is False
    assert R.tick(state, T + 10**9).state == state
    assert R.touch(state, "alice", T + 50).last_seen["alice"] == T + 50
    assert R.touch(state, "zed", T + 50) == state
    assert R.players(seated(state, "bob")) == ["alice", "bob"]


def test_views_of_one_board_share_no_card_description():
    state = R.new_state(options={}, seed=3, now_ms=T)
    first, second = R.view(state, None, T), R.view(state, None, T)
    first["board"][0]["code"] = "changed by a client of the first view"
    first["board"][0]["digits"] = "0000"
    assert second["board"][0] != first["board"][0]
    assert R.view(state, None, T)["board"][0] == second["board"][0]
