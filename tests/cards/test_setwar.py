"""Set War: card strings, SetDeck, the game (specs/setwar.md 1-3, 5, 6) and its result.

The game is checked three ways: the spec's known games and worked trace, a spec-literal
reference implementation on small decks (hypothesis), and a replay of every round log that
proves the cards are conserved and each play was the top of its player's pile.
"""

import doctest
import json
import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine import setwar
from cards.engine.deck_adt import DeckOfCards
from cards.engine.errors import SetError
from cards.engine.setwar import (
    ALL_CARDS,
    ROUND_LIMIT,
    DuplicateCardError,
    InvalidCardError,
    InvalidPlayerCountError,
    MissingPlayerCountError,
    NoCardsError,
    Play,
    Round,
    SetDeck,
    SetWarError,
    SetWarResult,
    check_card,
    check_cards,
    describe_card,
    is_card,
    is_set,
    parse_input,
    parse_player_count,
    play_setwar,
    shuffled_deck,
    third_card,
)

DECK_A = (
    "0020 2220 1222 0211 2112 1012 1020 1000 1121 1110 1111 0200 0201 0220 0021 0001 2022 "
    "0000 1210 2120 2021 1100 2122 2102 1212 0222 0110 1022 0202 2201 2210 0122 2101 1202 "
    "2020 0101 0011 0112 0012 1220 2221 1002 1201 1101 2011 1021 0102 0210 2010 2222 0121 "
    "2212 0002 2000 1221 0221 1211 1120 1200 1010 0010 1011 2211 2111 2202 2012 1112 2121 "
    "0022 1122 1102 2110 0111 2100 2002 2200 0120 1001 0212 0100 2001"
)
# Deck A rotated to start at its 54th card, 2000.
DECK_B = " ".join(DECK_A.split()[53:] + DECK_A.split()[:53])

KNOWN_GAMES = {
    "c1": (4, DECK_A, "Player 1 won in 110 rounds."),
    "c2": (4, DECK_B, "Player 0 won in 210 rounds."),
    "c3": (
        2,
        "2001 0100 0212 1001 0120 2200 2002 2100 0111 2110 1102",
        "Player 0 won in 1 round.",
    ),
    "c4": (2, DECK_A, "Player 1 won in 22 rounds."),
    "c5": (2, "0000 1111 1000 2222 1112 0001 0120 2220", "Player 0 won in 4 rounds."),
    "c6": (2, "2220 0120 0001 1112 2222 1000 1111 0000", "Player 0 won in 4 rounds."),
    "s1": (
        9,
        "2210 2202 0002 0011 2201 0202 2000 2121 0001 0100",
        "Player 8 won in 2 rounds.",
    ),
}

# Found by searching seeded decks: these 9 cards cycle forever among 4 players.
DRAW_GAME = (4, "1102 2221 0010 2212 0002 2222 0210 0121 1011")

small_decks = st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=24, unique=True)


def plays_of(round_):
    return [(play.player, play.card) for play in round_.plays]


# --- Cards ------------------------------------------------------------------------------------


def test_the_deck_is_the_81_strings_in_counting_order():
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 81
    assert ALL_CARDS[0] == "0000" and ALL_CARDS[-1] == "2222"
    assert list(ALL_CARDS) == sorted(ALL_CARDS)
    assert all(is_card(card) for card in ALL_CARDS)


@pytest.mark.parametrize(
    "bad", ["0123", "012", "00000", "", " 000", "0 00", "０１２０", "abcd", 120, None, b"0000"]
)
def test_anything_but_four_digits_from_012_is_not_a_card(bad):
    assert not is_card(bad)
    with pytest.raises(InvalidCardError, match="^invalid card: "):
        check_card(bad)


def test_third_card_follows_the_spec_example_and_rule():
    assert third_card("2220", "1112") == "0001"
    assert third_card("1112", "2220") == "0001"
    assert third_card("0120", "0120") == "0120"  # equal digits stay equal


@given(st.sampled_from(ALL_CARDS), st.sampled_from(ALL_CARDS))
def test_third_card_completes_a_set_digit_by_digit(a, b):
    c = third_card(a, b)
    assert all((int(x) + int(y) + int(z)) % 3 == 0 for x, y, z in zip(a, b, c, strict=True))
    assert is_set(a, b, c) and is_set(c, a, b) and is_set(b, c, a)
    if a != b:
        assert c not in (a, b)


def test_is_set_needs_all_equal_or_all_different_at_every_position():
    assert is_set("0000", "1111", "2222")
    assert is_set("0120", "0121", "0122")
    assert not is_set("0000", "1111", "2221")
    with pytest.raises(InvalidCardError):
        is_set("0000", "1111", "3333")


def test_cards_read_as_number_color_shading_shape():
    assert describe_card("0020") == "one red open diamond"
    assert describe_card("2121") == "three green open squiggles"
    assert describe_card("1012") == "two red striped ovals"


# --- SetDeck ----------------------------------------------------------------------------------


def test_set_deck_is_a_deck_of_cards_built_from_a_string_or_a_list():
    assert list(SetDeck("0000 1111\n2222")) == ["0000", "1111", "2222"]
    assert list(SetDeck(["2222", "0000"])) == ["2222", "0000"]
    assert len(SetDeck()) == len(SetDeck([])) == 0
    assert isinstance(SetDeck(), DeckOfCards)


def test_set_deck_checks_card_form_before_repeats():
    with pytest.raises(DuplicateCardError, match="^duplicate card: 1111$"):
        SetDeck("0000 1111 2222 1111")
    with pytest.raises(InvalidCardError, match="^invalid card: 12$"):
        SetDeck("0000 0000 12")  # a bad card later still wins over an earlier repeat
    assert check_cards(iter(["0000", "1111"])) == ("0000", "1111")


def test_set_war_errors_are_one_family_of_value_errors():
    for error in (
        InvalidCardError,
        DuplicateCardError,
        InvalidPlayerCountError,
        MissingPlayerCountError,
        NoCardsError,
    ):
        assert issubclass(error, SetWarError)
    assert issubclass(SetWarError, SetError) and issubclass(SetWarError, ValueError)


def test_set_deck_refuses_single_bad_cards_and_stays_unchanged():
    deck = SetDeck("0000")
    for add in (deck.addTop, deck.addBottom):
        with pytest.raises(InvalidCardError):
            add("3333")
        with pytest.raises(InvalidCardError):
            add(5)
    deck.addTop("1111")
    deck.addBottom("2222")
    assert list(deck) == ["1111", "0000", "2222"]


def test_set_deck_checks_piles_that_are_not_set_decks():
    deck = SetDeck("0000")
    bad = DeckOfCards("1111 oops")
    for add in (deck.addPileTop, deck.addPileBottom):
        with pytest.raises(InvalidCardError, match="oops"):
            add(bad)
    assert list(deck) == ["0000"] and len(bad) == 2
    deck.addPileBottom(DeckOfCards("1111"))
    deck.addPileTop(SetDeck("2222"))
    assert list(deck) == ["2222", "0000", "1111"]


def test_set_deck_keeps_the_inherited_behaviour():
    deck = SetDeck(ALL_CARDS[:9])
    assert deck.dealTop() == "0000" and deck.dealBottom() == "0022"
    hands = deck.deal(3)
    assert all(type(hand) is SetDeck for hand in hands)
    assert [list(hand) for hand in hands] == [
        ["0021", "0011", "0001"],
        ["0012", "0002"],
        ["0020", "0010"],
    ]
    line = SetDeck()
    assert hands[0].moveTopToBottom(line) == "0021"
    with pytest.raises(InvalidCardError):
        DeckOfCards("9").moveTopToBottom(line)
    with pytest.raises(ValueError, match="itself"):
        line.addPileBottom(line)


# --- Known games and the worked trace ---------------------------------------------------------


@pytest.mark.parametrize("game", KNOWN_GAMES, ids=str)
def test_known_games(game):
    players, cards, line = KNOWN_GAMES[game]
    result = play_setwar(players, cards)
    assert result.final_line == line
    assert len(result.log) == result.rounds
    quiet = play_setwar(players, cards, record=False)
    assert (quiet.winner, quiet.rounds, quiet.log) == (result.winner, result.rounds, ())


def test_worked_trace_of_c5_round_by_round():
    players, cards, _ = KNOWN_GAMES["c5"]
    one, two, three, four = play_setwar(players, cards).log

    assert plays_of(one) == [(0, "0120"), (1, "2220"), (0, "1112"), (1, "0001")]
    assert (one.taker, one.set_cards, one.piles, one.out) == (
        1,
        ("2220", "1112", "0001"),
        (2, 6),
        (),
    )

    assert plays_of(two) == [(1, "2222"), (0, "1000"), (1, "1111"), (0, "0000")]
    assert (two.taker, two.set_cards, two.piles) == (0, ("2222", "1111", "0000"), (4, 4))

    assert [card for _, card in plays_of(three)] == [
        "2222",
        "0120",
        "1000",
        "2220",
        "1111",
        "1112",
        "0000",
    ]
    assert [player for player, _ in plays_of(three)] == [0, 1, 0, 1, 0, 1, 0]
    assert (three.taker, three.set_cards, three.piles) == (0, ("2222", "1111", "0000"), (7, 1))

    assert plays_of(four) == [(0, "2222"), (1, "0001")]
    assert (four.taker, four.set_cards, four.out, four.piles) == (0, None, (1,), (8, 0))


def test_s1_the_last_card_winner_stays_in_and_outs_keep_the_line():
    players, cards, _ = KNOWN_GAMES["s1"]
    one, two = play_setwar(players, cards).log
    assert plays_of(one) == [
        (0, "0100"),
        (1, "2202"),
        (2, "0002"),
        (3, "0011"),
        (4, "2201"),
        (5, "0202"),
        (6, "2000"),
        (7, "2121"),
        (8, "0001"),
    ]
    assert one.out == (1, 2, 3, 4, 5, 6, 7)
    assert (one.taker, one.set_cards, one.piles) == (
        8,
        ("0100", "0202", "0001"),
        (1,) + (0,) * 7 + (9,),
    )
    assert plays_of(two) == [(8, "0100"), (0, "2210")]
    assert (two.taker, two.out, two.piles) == (8, (0,), (0,) * 8 + (10,))


def test_c3_has_no_set_and_ends_when_player_1_runs_out_on_the_10th_card():
    players, cards, _ = KNOWN_GAMES["c3"]
    (only,) = play_setwar(players, cards).log
    assert len(only.plays) == 10 and only.plays[-1].player == 1
    assert (only.taker, only.set_cards, only.out, only.piles) == (0, None, (1,), (11, 0))


# --- Edge cases of the rules --------------------------------------------------------------------


def test_a_lone_card_holder_wins_round_1_without_playing():
    for players, cards in [(1, DECK_A), (1, ["1111"]), (5, ["1111"])]:
        result = play_setwar(players, cards)
        assert result.final_line == "Player 0 won in 1 round."
        (only,) = result.log
        assert (only.number, only.plays, only.taker) == (1, (), 0)
        assert only.piles == (len(result.cards),)


def test_players_without_cards_are_out_from_the_start():
    result = play_setwar(100, ["0000", "1111", "2221"])
    assert result.final_line == "Player 2 won in 1 round."
    assert result.players == 100 and result.log[0].piles == (0, 0, 3)
    huge = play_setwar(10**100, ["0000", "1111", "2221"])
    assert huge.final_line == result.final_line


def test_a_game_ending_by_elimination_in_the_last_allowed_round_is_won():
    players, cards, _ = KNOWN_GAMES["c5"]  # a set in rounds 1-3, elimination in round 4
    assert play_setwar(players, cards, round_limit=4).final_line == "Player 0 won in 4 rounds."
    limited = play_setwar(players, cards, round_limit=3)
    assert limited.draw and limited.final_line == "Draw after 3 rounds."
    assert limited.log[-1].set_cards == ("2222", "1111", "0000")


def test_a_set_won_in_round_10000_is_a_draw():
    result = play_setwar(*DRAW_GAME)
    assert ROUND_LIMIT == 10_000
    assert result.draw and result.winner is None and result.rounds == 10_000
    assert result.final_line == "Draw after 10000 rounds."
    assert len(result.log) == 10_000 and result.log[-1].set_cards is not None
    assert play_setwar(*DRAW_GAME, record=False).final_line == "Draw after 10000 rounds."


# More games that cycle for ever, found by searching seeded random decks.
CYCLING_GAMES = [
    DRAW_GAME,
    (2, "2012 0120 2022 0012 1222 0110 1110 1012 0020 1201 2112 2011"),
    (3, "2002 2100 2102 1011 2202 1200 1000 2110 0220 1021 0120 1010"),
    (5, "1100 1012 1210 0012 1221 0202 2220 2100 1110 1002 0000 0001"),
]


@pytest.mark.parametrize(("players", "cards"), CYCLING_GAMES)
def test_a_detected_cycle_gives_exactly_the_played_out_draw(players, cards):
    played_out = play_setwar(players, cards, detect_cycles=False)
    assert played_out.final_line == "Draw after 10000 rounds."
    assert play_setwar(players, cards) == played_out
    replay_log(played_out)


def test_final_line_wording():
    def line(winner, rounds):
        return SetWarResult(players=2, cards=("0000",), winner=winner, rounds=rounds).final_line

    assert line(0, 18) == "Player 0 won in 18 rounds."
    assert line(3, 1) == "Player 3 won in 1 round."
    assert line(None, 10_000) == "Draw after 10000 rounds."


@pytest.mark.parametrize(
    ("players", "cards", "error", "message"),
    [
        (0, ["0000"], InvalidPlayerCountError, "invalid player count: 0"),
        (-2, ["0000"], InvalidPlayerCountError, "invalid player count: -2"),
        (True, ["0000"], InvalidPlayerCountError, "invalid player count: True"),
        (2, [], NoCardsError, "no cards"),
        (2, "", NoCardsError, "no cards"),
        (2, ["0000", "0003"], InvalidCardError, "invalid card: 0003"),
        (2, ["0000", "0000"], DuplicateCardError, "duplicate card: 0000"),
    ],
)
def test_games_that_cannot_be_played(players, cards, error, message):
    with pytest.raises(error) as raised:
        play_setwar(players, cards)
    assert str(raised.value) == message


def test_round_limit_must_be_positive():
    with pytest.raises(ValueError, match="round limit"):
        play_setwar(2, ["0000", "1111"], round_limit=0)


# --- Result data ------------------------------------------------------------------------------


def test_result_is_frozen_json_data_that_reads_back():
    players, cards, _ = KNOWN_GAMES["c5"]
    result = play_setwar(players, cards)
    with pytest.raises(AttributeError):
        result.winner = 1
    data = json.loads(json.dumps(result.to_dict()))
    assert data["final_line"] == "Player 0 won in 4 rounds." and data["draw"] is False
    assert data["log"][0]["plays"][0] == {"player": 0, "card": "0120"}
    assert data["log"][0]["set_cards"] == ["2220", "1112", "0001"]
    assert data["log"][3]["out"] == [1]
    assert SetWarResult.from_dict(data) == result


def test_draw_result_to_dict():
    data = play_setwar(*DRAW_GAME, round_limit=5).to_dict()
    assert (data["winner"], data["rounds"], data["draw"]) == (None, 5, True)
    assert Round.from_dict(data["log"][0]).plays[0] == Play(0, "1011")


def test_shuffled_deck_is_a_seeded_permutation():
    deck = shuffled_deck(42)
    expected = list(ALL_CARDS)
    random.Random(42).shuffle(expected)
    assert deck == expected == shuffled_deck(42)
    assert sorted(deck) == list(ALL_CARDS)
    assert shuffled_deck(43) != deck and shuffled_deck("42") == shuffled_deck("42")


# --- Input parsing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("", MissingPlayerCountError, "missing player count"),
        (" \n\t ", MissingPlayerCountError, "missing player count"),
        ("x 0000", InvalidPlayerCountError, "invalid player count: x"),
        ("0 0000", InvalidPlayerCountError, "invalid player count: 0"),
        ("000", InvalidPlayerCountError, "invalid player count: 000"),
        ("-1 0000", InvalidPlayerCountError, "invalid player count: -1"),
        ("+2 0000", InvalidPlayerCountError, "invalid player count: +2"),
        ("2.0 0000", InvalidPlayerCountError, "invalid player count: 2.0"),
        ("٣ 0000", InvalidPlayerCountError, "invalid player count: ٣"),
        ("²", InvalidPlayerCountError, "invalid player count: ²"),
        ("4", NoCardsError, "no cards"),
        ("4\n\n", NoCardsError, "no cards"),
        ("2 0000 1111 000", InvalidCardError, "invalid card: 000"),
        ("2 0000 0000 abcd", InvalidCardError, "invalid card: abcd"),
        ("2 0000 1111 0000 1111", DuplicateCardError, "duplicate card: 0000"),
    ],
)
def test_parse_input_reports_the_first_failing_rule(text, error, message):
    with pytest.raises(error) as raised:
        parse_input(text)
    assert str(raised.value) == message


def test_parse_input_reads_any_whitespace_layout():
    assert parse_input("2\n0000 1111\n") == (2, ("0000", "1111"))
    assert parse_input("  02\t0000\r\n1111") == (2, ("0000", "1111"))


def test_player_counts_of_any_length():
    assert parse_player_count("0001") == 1
    assert parse_player_count("9" * 30) == int("9" * 30)
    assert parse_player_count("7" * 5000) == 10**100  # far beyond any deck all the same


# --- Properties -------------------------------------------------------------------------------


def reference_game(players, cards, round_limit):
    """Play Set War the way the spec words it, with plain lists and an all-pairs test."""

    def makes_set(a, b, c):
        return all((int(x) + int(y) + int(z)) % 3 == 0 for x, y, z in zip(a, b, c, strict=True))

    seats = min(players, len(cards))
    piles = [[] for _ in range(seats)]  # index 0 is the top of a pile
    for position, card in enumerate(cards):
        piles[position % seats].insert(0, card)
    if seats == 1:
        return 0, 1, [([], 0, (len(cards),))]
    out, log, player = set(), [], 0
    for number in range(1, round_limit + 1):
        line, plays = [], []
        while True:
            card = piles[player].pop(0)
            plays.append((player, card))
            if any(makes_set(a, b, card) for a, b in combinations(line, 2)):
                piles[player].extend([*line, card])
                log.append((plays, player, tuple(map(len, piles))))
                break  # the winner starts the next round
            line.append(card)
            if not piles[player]:
                out.add(player)
                if len(out) == seats - 1:
                    (winner,) = set(range(seats)) - out
                    piles[winner].extend(line)
                    log.append((plays, winner, tuple(map(len, piles))))
                    return winner, number, log
            player = (player + 1) % seats
            while player in out:
                player = (player + 1) % seats
    return None, round_limit, log


def replay_log(result):
    """Rebuild every pile from the deal and the log; check each play and each pile size."""
    seats = min(result.players, len(result.cards))
    piles = [[] for _ in range(seats)]
    for position, card in enumerate(result.cards):
        piles[position % seats].insert(0, card)
    for number, round_ in enumerate(result.log, start=1):
        assert round_.number == number
        line = []
        for play in round_.plays:
            assert piles[play.player] and piles[play.player][0] == play.card
            line.append(piles[play.player].pop(0))
        piles[round_.taker].extend(line)
        assert round_.piles == tuple(map(len, piles))
        assert sum(round_.piles) == len(result.cards)  # no card is lost or made


@settings(max_examples=150, deadline=None)
@given(players=st.integers(1, 12), cards=small_decks)
def test_engine_matches_the_spec_literal_reference(players, cards):
    result = play_setwar(players, cards, round_limit=150)
    winner, rounds, log = reference_game(players, cards, 150)
    assert (result.winner, result.rounds) == (winner, rounds)
    assert [(plays_of(r), r.taker, r.piles) for r in result.log] == log


@settings(max_examples=150, deadline=None)
@given(players=st.integers(1, 6), cards=small_decks, round_limit=st.integers(1, 400))
def test_cycle_detection_never_changes_a_result(players, cards, round_limit):
    detected = play_setwar(players, cards, round_limit=round_limit)
    played_out = play_setwar(players, cards, round_limit=round_limit, detect_cycles=False)
    assert detected == played_out


@settings(max_examples=25, deadline=None)
@given(players=st.integers(1, 8), seed=st.integers(0, 2**32))
def test_full_deck_cards_are_conserved_every_round(players, seed):
    result = play_setwar(players, shuffled_deck(seed))
    replay_log(result)
    assert len(result.log) == result.rounds
    last = result.log[-1]
    if result.draw:
        assert last.set_cards is not None
    else:
        assert last.taker == result.winner and last.piles[result.winner] == 81


@settings(max_examples=40, deadline=None)
@given(players=st.integers(1, 90), cards=small_decks | st.permutations(ALL_CARDS))
def test_the_same_input_always_gives_the_same_result(players, cards):
    first = play_setwar(players, cards)
    assert play_setwar(players, list(cards)) == first
    assert SetWarResult.from_dict(json.loads(json.dumps(first.to_dict()))) == first
    quiet = play_setwar(players, cards, record=False)
    assert (quiet.winner, quiet.rounds) == (first.winner, first.rounds)


@settings(max_examples=30, deadline=None)
@given(players=st.integers(1, 12), cards=small_decks)
def test_every_round_won_by_a_set_names_a_real_set(players, cards):
    for round_ in play_setwar(players, cards, round_limit=100).log:
        if round_.set_cards is not None:
            a, b, c = round_.set_cards
            assert is_set(a, b, c) and c == round_.plays[-1].card
            assert {a, b} <= {play.card for play in round_.plays[:-1]}


def test_module_doctests():
    assert doctest.testmod(setwar).failed == 0
