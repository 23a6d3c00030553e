"""The fork's Set modes (set-modes.md §4): junior, ultrachain, ultra9, megaset, ghostset,
shuffle, deckpuzzle (the fork's plain Puzzle) and ultra9puzzle.

Each spec example is a test: the valid and invalid claims, the growth sequences (§3 "Dealing and
growth"), the refill positions (§3 "After a valid claim"), the chain and puzzle messages; then
random play under hypothesis keeps the invariants in every mode (no card lost or doubled, a
refused claim changes nothing, the JSON round trip, a replay of the log equals the state), and a
computer plays every mode to its end within the spec's §7 ranges.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.bot import set_table_actions
from cards.engine.classic import ClassicRules as R
from cards.engine.table import TableError, TableState
from cards.engine.table.codes import code_of, texts_of
from cards.engine.table.modes import MODES, claim_why, count_claims, find_claim
from cards.rules import SetTable
from games.errors import RuleError
from tests.cards.test_table_modes import check_seat_views

T = 1_700_000_000_000
# The 4Set modes and Memory have tests of their own (test_four_modes.py).
FORK = [
    key
    for key, mode in MODES.items()
    if mode.attributes is not None and mode.values == 3 and not mode.face_down
]


def c(*texts: str) -> tuple[int, ...]:
    """Cards in the spec's notation (a digit per attribute) as codes."""
    return tuple(int(text, 3) for text in texts)


def deck_of(mode: str, first: tuple[int, ...], size: int | None = None) -> list[str]:
    """A deck option: ``first`` in order, then the rest of the mode's deck in code order, cut to
    a multiple of 3 (``size`` cards, or the whole deck)."""
    attributes = MODES[mode].attributes
    rest = [card for card in range(3**attributes) if card not in first]
    cards = list(first) + rest
    size = size or len(cards)
    return texts_of(cards[: size - size % 3], attributes)


def table(mode: str, *players: str, seed: int = 7, **options):
    state = R.new_state(options={"mode": mode, "start": "now", **options}, seed=seed, now_ms=T)
    for name in players or ("ann",):
        state = R.apply(state, name, {"type": "join"}, T).state
    return state


def claim(state, cards, player="ann", at=T + 1):
    action = {"type": "claim", "cards": texts_of(cards, state.attributes)}
    return R.apply(state, player, action, at)


def refused(state, cards, player="ann") -> TableError:
    before = state.to_json()
    with pytest.raises(TableError) as caught:
        claim(state, cards, player)
    assert state.to_json() == before
    return caught.value


def free_of(mode: str, count: int) -> list[int]:
    """``count`` cards holding no claim of ``mode``, found greedily from a seeded shuffle."""
    attributes = MODES[mode].attributes
    for seed in range(200):
        cards = list(range(3**attributes))
        random.Random(seed).shuffle(cards)
        chosen: list[int] = []
        for card in cards:
            if find_claim(mode, [*chosen, card], attributes) is None:
                chosen.append(card)
                if len(chosen) == count:
                    return chosen
    raise AssertionError(f"no {count} cards free of a {mode} claim")


# --- options -------------------------------------------------------------------------------------


def test_every_fork_mode_is_a_mode_of_the_classic_table():
    for mode in FORK:
        assert SetTable().options({"mode": mode})["mode"] == mode


@pytest.mark.parametrize(
    "options, message",
    [
        ({"mode": "fork"}, "The mode option must be one of normal, ultra, chain, puzzle, junior"),
        (
            {"mode": "junior", "attributes": 4},
            "Junior has a deck of its own: 3 attributes (27 cards), not 4",
        ),
        (
            {"mode": "megaset", "attributes": 4},
            "MegaSet has a deck of its own: 5 attributes (243 cards), not 4",
        ),
        ({"mode": "ghostset", "board_size": 12}, "GhostSet deals a board of 10 cards"),
        ({"mode": "deckpuzzle", "day": "2026-11-25"}, "The day option is for the puzzle mode"),
    ],
)
def test_bad_fork_mode_options_are_refused_with_a_sentence(options, message):
    with pytest.raises(RuleError) as caught:
        SetTable().options(options)
    assert message in str(caught.value) and caught.value.code == "bad_option"


def test_a_mode_takes_its_own_attribute_count_as_an_option():
    assert SetTable().options({"mode": "junior", "attributes": 3})["mode"] == "junior"
    assert table("megaset").attributes == 5 and len(table("junior").deck) == 27 - 9


# --- the claims of §4 ----------------------------------------------------------------------------

VALID = {
    "junior": [c("012", "111", "210")],
    "ultra9": [c("0000", "1120", "0102", "1021")],
    "megaset": [c("01201", "12012", "20120")],
    "ghostset": [c("0000", "0011", "1100", "2200", "1200", "2122")],
    "shuffle": [c("0120", "1201", "2012"), c("0000", "0111", "0222")],
}
INVALID = {
    "junior": (c("012", "111", "211"), "Not a Set", ["shading: "]),
    "ultra9": (c("0000", "1120", "0102", "1012"), "Not an UltraSet", ["1st+2nd need"]),
    "megaset": (c("01201", "12012", "20121"), "Not a Set", ["border: "]),
    "ghostset": (
        c("0000", "0011", "1100", "2200", "1200", "2121"),
        "Not a GhostSet",
        ["shape: diamond ×4, squiggle ×2 — the counts must be 2-2-2, 3-3-0, 4-1-1 or 6-0-0"],
    ),
    "shuffle": (c("0120", "1201", "2011"), "Not a Set", ["shape: "]),
}


@pytest.mark.parametrize("mode", list(VALID))
def test_the_spec_s_valid_claims_score_one_point(mode):
    for cards in VALID[mode]:
        state = table(mode, deck=deck_of(mode, cards))
        result = claim(state, cards)
        assert result.outcome["claim"] == "set" and result.outcome["points"] == 1
        assert result.state.scores["ann"] == 1
        assert not set(cards) & set(result.state.board), "the claim's cards leave the board"


@pytest.mark.parametrize("mode", list(INVALID))
def test_the_spec_s_invalid_claims_are_explained(mode):
    cards, message, why = INVALID[mode]
    state = table(mode, "ann", "bo", deck=deck_of(mode, cards))
    result = claim(state, cards)
    assert result.outcome["claim"] == "not_set" and result.outcome["message"] == message
    for start, line in zip(why, result.outcome["why"], strict=False):
        assert line.startswith(start)
    assert result.state.locked == ("ann",) and result.state.board == state.board


def test_a_claim_of_the_wrong_size_is_refused_naming_the_size():
    state = table("ghostset")
    error = refused(state, state.board[:3])
    assert error.code == "bad_claim" and str(error) == "A claim names exactly six cards."


# --- UltraSet-Chain (§4.5) -----------------------------------------------------------------------


def chained(chain, board_cards):
    """An UltraSet-Chain table whose chain is ``chain`` and whose board starts with
    ``board_cards`` (the chain's cards are off the board, taken out of the deck)."""
    deck = [card for card in deck_of("ultrachain", board_cards) if int_of(card) not in chain]
    state = table("ultrachain", deck=deck[: len(deck) - len(deck) % 3])
    return state.evolve(chain=chain)


def int_of(text: str) -> int:
    return code_of(text, 4)


def test_ultrachain_claims_take_exactly_two_chain_cards():
    chain = c("0000", "1120", "0102", "1021")
    board = c("2222", "2201", "1201", "0111", "2012")
    state = chained(chain, board)
    for cards in (c("0000", "1120", "2222", "2201"), c("0000", "1201", "1120", "0111")):
        result = claim(state, cards)
        assert result.outcome["claim"] == "set"
        assert result.state.chain == cards
        # the two chain cards not reused are gone for good; the two board cards became the chain
        assert set(chain) - set(cards) <= set(result.state.taken)
        assert not set(cards) & set(result.state.board)
    error = refused(state, c("0000", "0102", "1120", "2012"))
    assert error.code == "not_chained"
    assert str(error).startswith("2 cards must be from the previous UltraSet")
    assert claim_why(c("0000", "0102", "1120", "2012"), 4, "ultrachain", chain=chain) == [
        "2 cards must be from the previous UltraSet"
    ]


def test_ultrachain_hints_counts_and_the_end_follow_the_chain():
    chain = c("0000", "1120", "0102", "1021")
    state = chained(chain, c("2222", "2201"))
    found = find_claim("ultrachain", state.board, 4, chain=chain)
    assert found is not None and sum(card in chain for card in found) == 2
    count = R.apply(state, "ann", {"type": "count"}, T).outcome["count"]
    assert count == count_claims("ultrachain", state.board, 4, chain=chain) >= 1
    hint = R.apply(state, "ann", {"type": "hint"}, T).outcome["hint"]
    assert hint["card"] in texts_of(state.board, 4)


# --- growth (§3) ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mode, free, sizes",
    [
        ("junior", 9, [12]),
        ("ultra9", 9, [12]),
        ("megaset", 21, [24]),
        ("ghostset", 10, [12]),
        ("ghostset", 12, [15]),
    ],
)
def test_a_board_without_a_claim_grows_to_the_next_multiple_of_three(mode, free, sizes):
    cards = free_of(mode, free)
    state = table(mode, deck=deck_of(mode, tuple(cards)))
    attributes = MODES[mode].attributes
    assert len(state.board) in sizes
    assert find_claim(mode, state.board, attributes) is not None
    # Every size on the way held no claim: 16 -> 18 -> 21 -> 24, 10 -> 12 -> 15.
    size, board = MODES[mode].board, MODES[mode].board
    while size < len(state.board):
        assert find_claim(mode, state.board[:size], attributes) is None
        size += 3 - size % 3
        board = size
    assert board == len(state.board)


def test_megaset_grows_16_18_21_24():
    cards = free_of("megaset", 21)
    state = table("megaset", deck=deck_of("megaset", tuple(cards)))
    steps, size = [], 16
    while find_claim("megaset", state.board[:size], 5) is None:
        steps.append(size)
        size += 3 - size % 3
    assert [*steps, size] == [16, 18, 21, 24] and len(state.board) == 24


# --- refill (§3 "After a valid claim") -----------------------------------------------------------


def test_megaset_18_with_a_set_taken_keeps_15_and_draws_1_to_16():
    cards = free_of("megaset", 16)
    # Cards 17 and 18 make a set with board cards 2 and 5: the board grows to 18.
    a, b = cards[2], cards[5]
    third = next(x for x in range(243) if c_set(a, b, x))
    extra = next(x for x in range(243) if x not in cards and x != third)
    first = (*cards, extra, third)
    state = table("megaset", deck=deck_of("megaset", first))
    assert len(state.board) == 18 and state.board == first
    deck = state.deck
    result = claim(state, (a, b, third))
    board = result.state.board
    assert len(board) == 16
    # Slot 17 (overflow) closed up; holes 2 and 5 took the overflow card of slot 16, then the
    # first card of the pile, lowest hole first; nothing else moved.
    assert board[2] == extra and board[5] == deck[0]
    assert [board[i] for i in range(16) if i not in (2, 5)] == [
        cards[i] for i in range(16) if i not in (2, 5)
    ]
    assert result.state.deck == deck[1:]


def c_set(a: int, b: int, x: int) -> bool:
    return len({a, b, x}) == 3 and find_claim("megaset", (a, b, x), 5) is not None


def test_a_claim_from_a_minimum_board_is_replaced_slot_for_slot():
    state = table("junior", seed=3)
    cards = find_claim("junior", state.board, 3)
    positions = [state.board.index(card) for card in cards]
    result = claim(state, cards)
    new = result.state.board
    assert len(new) == 9
    assert sorted(new[p] for p in positions) == sorted(state.deck[:3])
    assert all(new[i] == state.board[i] for i in range(9) if i not in positions)


def test_when_fewer_than_m_cards_remain_the_last_cards_move_into_the_holes():
    # A GhostSet table of 12 cards: 10 on the board, 2 in the pile; a GhostSet taken leaves 6.
    ghost = c("0000", "0011", "1100", "2200", "1200", "2122")
    others = tuple(card for card in range(81) if card not in ghost)[:6]
    first = (ghost[0], *others[:4], *ghost[1:], others[4], others[5])
    state = table("ghostset", deck=texts_of(first, 4))
    assert state.board == first[:10] and state.deck == first[10:]
    result = claim(state, ghost)
    # cutoff = 12 - 6 = 6: holes below 6 (slots 0 and 5) take the cards at 6 and beyond that are
    # left (the board's last cards, then the pile), lowest hole first.
    assert result.state.board == (others[4], *others[:4], others[5])
    assert result.state.deck == ()


# --- shuffle (§4.15) -----------------------------------------------------------------------------


def test_shuffle_relays_the_board_after_each_claim_from_the_game_s_seed():
    state = table("shuffle", seed=11)
    cards = find_claim("shuffle", state.board, 4)
    one, two = claim(state, cards).state, claim(state, cards).state
    assert one == two, "the same seed, the same shuffle"
    kept = set(state.board) - set(cards)
    assert kept <= set(one.board) and set(one.board) - kept == set(state.deck[:3])
    assert one.deck == state.deck[3:], "the pile's order does not change"
    assert one.rng != state.rng
    positions = [one.board.index(card) for card in kept]
    assert positions != [state.board.index(card) for card in kept], "the layout changed"
    other = claim(table("shuffle", seed=12, deck=texts_of(state.board + state.deck, 4)), cards)
    assert other.state.board != one.board, "another game's generator lays it out otherwise"


# --- the fork's puzzles (§4.12, §4.13) -----------------------------------------------------------


def test_deckpuzzle_finds_each_set_once_then_the_board_is_clear():
    board = c("0000", "0001", "0002", "0010", "0020", "0011")
    state = table("deckpuzzle", deck=texts_of(board, 4))
    assert state.board == board and R.view(state, "ann", T)["sets_total"] == 3
    state = claim(state, c("0000", "0001", "0002")).state
    assert state.board == board, "cards stay"
    error = refused(state, c("0002", "0000", "0001"))
    assert error.code == "already_found" and str(error) == "This Set was already found."
    assert claim_why(c("0001", "0002", "0000"), 4, "deckpuzzle", found=state.found) == [
        "This Set was already found"
    ]
    state = claim(state, c("0000", "0010", "0020")).state
    result = claim(state, c("0002", "0011", "0020"))
    assert result.outcome["cleared"] == 3 and result.state.over
    assert result.state.scores["ann"] == 3 and result.state.board == ()
    story = SetTable().story(
        {"mode": "deckpuzzle"},
        [(1, "ann", {"type": "claim"}, result.outcome, T)],
        viewer=None,
        over=True,
    )
    assert "Board clear: 3 Sets" in [entry["text"] for entry in story]


def test_a_cleared_puzzle_board_gives_way_to_the_next_deal():
    state = table("deckpuzzle", seed=5)
    first, deck = state.board, state.deck
    while state.board == first:
        state = claim(state, find_claim("deckpuzzle", state.board, 4, found=state.found)).state
    assert state.found == () and set(first) <= set(state.taken)
    assert state.board == deck[: len(state.board)] and len(state.board) >= 12


def test_ultra9puzzle_refuses_a_repeat():
    state = table("ultra9puzzle", seed=2)
    cards = find_claim("ultra9puzzle", state.board, 4)
    board = state.board
    state = claim(state, cards).state
    assert state.board == board and len(board) == 9, "the board is not clear yet: cards stay"
    error = refused(state, cards[::-1])
    assert error.code == "already_found" and str(error) == "This UltraSet was already found."


# --- random play keeps the invariants in every mode -----------------------------------------------


def check(state, dealt: list[int]) -> None:
    on_table = state.board + state.deck + state.taken + state.chain
    assert sorted(on_table) == dealt, "cards are neither lost nor doubled"
    assert TableState.from_json(json.loads(json.dumps(state.to_json()))) == state
    if state.deck and not MODES[state.mode].puzzle:
        assert len(state.board) >= state.board_size, "the board is dealt back to its size"
    if not state.over:
        assert find_claim(
            state.mode, state.board, state.attributes, chain=state.chain, found=state.found
        )
    else:
        assert not state.deck


@settings(max_examples=25, deadline=None)
@given(
    mode=st.sampled_from(FORK),
    seed=st.integers(0, 2**32),
    steps=st.lists(
        st.tuples(
            st.sampled_from(["ann", "bo"]),
            st.sampled_from(["good", "good", "good", "random", "hint", "count"]),
            st.lists(st.integers(0, 40), min_size=6, max_size=6),
        ),
        max_size=40,
    ),
)
def test_random_play_in_every_fork_mode_keeps_the_invariants(mode, seed, steps):
    state = table(mode, "ann", "bo", seed=seed)
    start = state
    dealt = sorted(state.board + state.deck)
    size = MODES[mode].size
    log = []
    now = T
    for player, kind, picks in steps:
        now += 100
        before = state.to_json()
        if kind in ("hint", "count"):
            action = {"type": kind}
        elif kind == "good":
            actions = set_table_actions(state, player)
            if not actions:
                continue
            action = actions[0]
        else:
            pool = state.board + state.chain + state.taken[-3:]
            chosen = list(dict.fromkeys(pool[i % len(pool)] for i in picks))[:size]
            action = {"type": "claim", "cards": texts_of(chosen, state.attributes)}
        try:
            result = R.apply(state, player, action, now)
        except TableError:
            assert state.to_json() == before, "a refused claim changes nothing"
            continue
        log.append((player, action, now))
        state = result.state
        check(state, dealt)
        check_seat_views(R, state, ("ann", "bo", "cy"), now)
    replayed = start
    for player, action, at in log:
        replayed = R.apply(replayed, player, action, at).state
    assert replayed.to_json() == state.to_json(), "a replay of the log equals the state"


# --- a computer plays every mode to its end (§7 ranges) -------------------------------------------

CLAIMS = {
    "junior": (6, 10),
    "ultrachain": (36, 40),
    "ultra9": (18, 21),
    "megaset": (74, 79),
    "ghostset": (11, 14),
    "shuffle": (22, 26),
    "deckpuzzle": (12, 26),
    "ultra9puzzle": (30, 52),
}


@pytest.mark.parametrize("mode", FORK)
def test_a_computer_plays_every_fork_mode_to_its_end(mode):
    low, high = CLAIMS[mode]
    for seed in (1, 2):
        state = table(mode, "cpu", seed=seed)
        dealt = sorted(state.board + state.deck)
        claims = 0
        now = T
        while not state.over:
            now += 10
            (action,) = set_table_actions(state, "cpu")
            result = R.apply(state, "cpu", action, now)
            assert result.outcome["claim"] == "set", result.outcome
            state = result.state
            claims += 1
        check(state, dealt)
        assert low <= claims <= high, (mode, seed, claims)
        assert set_table_actions(state, "cpu") is None


# --- a game's options read right everywhere ------------------------------------------------------


def test_a_fork_mode_s_options_carry_its_deck_for_the_story_the_replay_and_a_rematch():
    rules = SetTable()
    options = rules.options({"mode": "megaset"})
    assert options["attributes"] == 5 and rules.describe(options) == "MegaSet, 5 attributes"
    state = table("megaset", "ann", "bo")
    wrong = next(
        cards
        for cards in combinations_of(state.board, 3)
        if find_claim("megaset", cards, 5) is None
    )
    outcome = claim(state, wrong).outcome
    story = rules.story(
        options, [(1, "ann", {"type": "claim"}, outcome, T)], viewer=None, over=False
    )
    assert story[-1]["text"] == "ann claimed three cards that are not a set. ann is locked out."
    assert len(story[-1]["cards"]) == 3 and story[-1]["why"] == outcome["why"]
    quick = rules.options({"mode": "junior", "deck": deck_of("junior", (), 18)})
    again = rules.options(rules.rematch_options(quick, seed=3))
    assert len(again["deck"]) == 18 and again["deck"] != quick["deck"]
    ghost = rules.story(
        {"mode": "ghostset"},
        [(1, "ann", {"type": "claim"}, {"claim": "not_set", "cards": [], "why": []}, T)],
        viewer=None,
        over=False,
    )
    assert "not a ghostset" in ghost[-1]["text"]


def combinations_of(cards, size):
    return itertools.combinations(cards, size)
