"""DeckOfCards: the spec's expectation table (specs/setwar.md 2.3), every operation and its
errors, the doubly linked structure, and a model-based property test against a list."""

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cards.engine import deck_adt
from cards.engine.deck_adt import DeckError, DeckOfCards, EmptyDeckError
from cards.engine.errors import SetError


def deal_all_top(deck):
    """Deal every card from the top, as the spec's table reads a deck."""
    return [deck.dealTop() for _ in range(len(deck))]


def assert_linked(deck, expected):
    """Check the deck holds `expected` top first, read both ways (prev and next links)."""
    assert len(deck) == len(expected)
    assert list(deck) == list(expected)
    backwards = []
    node = deck._bottom
    while node is not None:
        backwards.append(node.card)
        node = node.prev
    assert backwards == list(reversed(expected))


# --- The spec's table, row by row -------------------------------------------------------


def test_table_deal_top_four_then_empty():
    deck = DeckOfCards("a b c d".split())  # noqa: SIM905 (the spec's own call)
    assert deal_all_top(deck) == ["a", "b", "c", "d"]
    assert len(deck) == 0


def test_table_alternate_top_and_bottom():
    deck = DeckOfCards("111 222 333 444 555 666 777 888 999")
    calls = "TBTBTBBBT"
    dealt = [deck.dealTop() if call == "T" else deck.dealBottom() for call in calls]
    assert dealt == ["111", "999", "222", "888", "333", "777", "666", "555", "444"]
    assert len(deck) == 0


def test_table_add_top():
    deck = DeckOfCards([3, 4, 5, 6, 7, 8])
    deck.addTop(2)
    deck.addTop(1)
    assert [deck.dealTop() for _ in range(3)] == [1, 2, 3]


def test_table_add_bottom():
    deck = DeckOfCards([1, 2, 3])
    deck.addBottom(4)
    deck.addBottom(5)
    assert [deck.dealBottom() for _ in range(3)] == [5, 4, 3]


def test_table_add_pile_top():
    deck, pile = DeckOfCards([3, 4]), DeckOfCards([1, 2])
    deck.addPileTop(pile)
    assert len(pile) == 0
    assert deal_all_top(deck) == [1, 2, 3, 4]


def test_table_add_pile_bottom():
    deck, pile = DeckOfCards([1, 2]), DeckOfCards([3, 4])
    deck.addPileBottom(pile)
    assert len(pile) == 0
    assert deal_all_top(deck) == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("size", "players", "hands"),
    [
        (8, 2, [[6, 4, 2, 0], [7, 5, 3, 1]]),
        (7, 2, [[6, 4, 2, 0], [5, 3, 1]]),
        (9, 3, [[6, 3, 0], [7, 4, 1], [8, 5, 2]]),
    ],
)
def test_table_deal(size, players, hands):
    source = DeckOfCards(list(range(size)))
    dealt = source.deal(players)
    assert [deal_all_top(hand) for hand in dealt] == hands
    assert len(source) == 0


def test_table_string_cards_kept_as_given():
    deck = DeckOfCards("1 2 3 4 12 31 0 12")
    assert len(deck) == 8
    assert deal_all_top(deck) == ["1", "2", "3", "4", "12", "31", "0", "12"]


def test_table_add_pile_bottom_of_five_under_four():
    deck = DeckOfCards("10 20 30 40")
    deck.addPileBottom(DeckOfCards("100 200 300 400 500"))
    assert len(deck) == 9
    assert deal_all_top(deck) == ["10", "20", "30", "40", "100", "200", "300", "400", "500"]


# --- Construction -------------------------------------------------------------------------


@pytest.mark.parametrize("empty", [None, [], "", "  \n\t", ()])
def test_empty_constructions(empty):
    assert len(DeckOfCards(empty)) == 0
    assert len(DeckOfCards()) == 0


def test_any_iterable_and_any_whitespace():
    assert list(DeckOfCards(card for card in "xyz")) == ["x", "y", "z"]
    assert list(DeckOfCards("a\nb\t c  \r\nd")) == ["a", "b", "c", "d"]
    assert_linked(DeckOfCards(range(5)), [0, 1, 2, 3, 4])


def test_iteration_does_not_deal_and_repr_shows_cards():
    deck = DeckOfCards("a b")
    assert list(deck) == ["a", "b"] and len(deck) == 2
    assert repr(deck) == "DeckOfCards(['a', 'b'])"


def test_storage_is_linked_nodes_not_a_list_or_deque():
    deck = DeckOfCards("a b c")
    assert not hasattr(deck, "__dict__")
    assert set(DeckOfCards.__slots__) == {"_top", "_bottom", "_size"}
    assert type(deck._top).__name__ == "_Node" and deck._top.next.next is deck._bottom


# --- Dealing from the ends ----------------------------------------------------------------


@pytest.mark.parametrize("method", ["dealTop", "dealBottom"])
def test_dealing_from_an_empty_deck_is_an_index_error(method):
    deck = DeckOfCards()
    with pytest.raises(IndexError, match="empty deck"):
        getattr(deck, method)()
    with pytest.raises(EmptyDeckError):
        getattr(deck, method)()


def test_empty_deck_error_is_in_the_set_family():
    assert issubclass(EmptyDeckError, IndexError)
    assert issubclass(EmptyDeckError, SetError) and issubclass(DeckError, ValueError)


def test_deal_last_card_leaves_a_usable_empty_deck():
    deck = DeckOfCards(["only"])
    assert deck.dealBottom() == "only"
    assert_linked(deck, [])
    deck.addBottom("again")
    deck.addTop("first")
    assert_linked(deck, ["first", "again"])


def test_add_to_empty_deck_from_either_end():
    top, bottom = DeckOfCards(), DeckOfCards()
    top.addTop(1)
    bottom.addBottom(1)
    assert_linked(top, [1])
    assert_linked(bottom, [1])


# --- Piles ----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["addPileTop", "addPileBottom"])
def test_pile_into_empty_deck_and_empty_pile(method):
    deck, pile = DeckOfCards(), DeckOfCards("a b")
    getattr(deck, method)(pile)
    assert_linked(deck, ["a", "b"])
    assert_linked(pile, [])
    getattr(deck, method)(DeckOfCards())
    assert_linked(deck, ["a", "b"])


def test_piles_keep_both_links_so_both_ends_still_deal():
    deck = DeckOfCards("c d")
    deck.addPileTop(DeckOfCards("a b"))
    deck.addPileBottom(DeckOfCards("e f"))
    assert_linked(deck, ["a", "b", "c", "d", "e", "f"])
    assert [deck.dealBottom() for _ in range(6)] == ["f", "e", "d", "c", "b", "a"]


def test_emptied_pile_can_be_reused():
    deck, pile = DeckOfCards("x"), DeckOfCards("a")
    deck.addPileBottom(pile)
    pile.addTop("b")
    assert_linked(pile, ["b"])
    assert_linked(deck, ["x", "a"])


@pytest.mark.parametrize("method", ["addPileTop", "addPileBottom"])
def test_a_deck_is_not_its_own_pile(method):
    deck = DeckOfCards("a b")
    with pytest.raises(ValueError, match="itself"):
        getattr(deck, method)(deck)
    assert_linked(deck, ["a", "b"])


@pytest.mark.parametrize("method", ["addPileTop", "addPileBottom"])
def test_a_pile_must_be_a_deck(method):
    with pytest.raises(TypeError, match="deck of cards, not list"):
        getattr(DeckOfCards(), method)(["a"])


class _UnwalkableDeck(DeckOfCards):
    """A deck that fails if anything walks it: splicing must not."""

    __slots__ = ()

    def __iter__(self):
        raise AssertionError("the pile was walked card by card")


@pytest.mark.parametrize("method", ["addPileTop", "addPileBottom"])
def test_piles_are_spliced_without_walking_them(method):
    pile = _UnwalkableDeck(range(100_000))
    deck = DeckOfCards("a")
    getattr(deck, method)(pile)
    assert len(deck) == 100_001 and len(pile) == 0


# --- deal -----------------------------------------------------------------------------------


def test_deal_hands_are_decks_of_the_source_class():
    class Named(DeckOfCards):
        __slots__ = ()

    hands = Named("a b c").deal(2)
    assert [type(hand) for hand in hands] == [Named, Named]
    assert_linked(hands[0], ["c", "a"])
    assert_linked(hands[1], ["b"])


def test_deal_some_cards_counts_the_total_and_leaves_the_rest():
    source = DeckOfCards(range(10))
    hands = source.deal(3, 5)
    assert [list(hand) for hand in hands] == [[3, 0], [4, 1], [2]]
    assert_linked(source, [5, 6, 7, 8, 9])


def test_deal_none_or_zero_cards():
    source = DeckOfCards("a b")
    assert [list(hand) for hand in source.deal(2, 0)] == [[], []]
    assert [list(hand) for hand in source.deal(1, None)] == [["b", "a"]]


def test_more_players_than_cards_leaves_empty_hands():
    hands = DeckOfCards("a b").deal(4)
    assert [list(hand) for hand in hands] == [["a"], ["b"], [], []]


@pytest.mark.parametrize(("players", "cards"), [(0, None), (-1, None), (2, -1), (2, 4)])
def test_bad_deals_are_value_errors(players, cards):
    source = DeckOfCards("a b c")
    with pytest.raises(ValueError, match="cannot deal"):
        source.deal(players, cards)
    assert_linked(source, ["a", "b", "c"])


def test_deal_counts_must_be_whole_numbers():
    with pytest.raises(TypeError):
        DeckOfCards("a").deal(1.5)


# --- moveTopToBottom (the helper Set War plays with) --------------------------------------


def test_move_top_to_bottom_of_another_deck_and_of_itself():
    hand, line = DeckOfCards("a b c"), DeckOfCards("x")
    assert hand.moveTopToBottom(line) == "a"
    assert_linked(hand, ["b", "c"])
    assert_linked(line, ["x", "a"])
    assert hand.moveTopToBottom(hand) == "b"
    assert_linked(hand, ["c", "b"])
    single = DeckOfCards("z")
    assert single.moveTopToBottom(single) == "z"
    assert_linked(single, ["z"])


def test_move_last_card_empties_the_source():
    hand, line = DeckOfCards("a"), DeckOfCards()
    hand.moveTopToBottom(line)
    assert_linked(hand, [])
    assert_linked(line, ["a"])
    with pytest.raises(IndexError):
        hand.moveTopToBottom(line)
    with pytest.raises(TypeError):
        line.moveTopToBottom([])


def test_move_to_another_class_goes_through_its_add_bottom():
    class Refusing(DeckOfCards):
        __slots__ = ()

        def addBottom(self, card):
            raise ValueError(f"no {card}")

    hand = DeckOfCards("a b")
    with pytest.raises(ValueError, match="no a"):
        hand.moveTopToBottom(Refusing())
    assert_linked(hand, ["a", "b"])


# --- The whole ADT against a list model -------------------------------------------------

_OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "dealTop",
                "dealBottom",
                "addTop",
                "addBottom",
                "addPileTop",
                "addPileBottom",
                "deal",
                "moveTopToBottom",
            ]
        ),
        st.lists(st.integers(0, 99), max_size=4),
        st.integers(1, 4),
    ),
    max_size=40,
)


@given(start=st.lists(st.integers(0, 99), max_size=10), operations=_OPERATIONS)
def test_deck_behaves_like_a_list_model(start, operations):
    deck, model = DeckOfCards(start), list(start)  # model[0] is the top
    other, other_model = DeckOfCards(), []
    for name, cards, number in operations:
        if name in ("dealTop", "dealBottom"):
            if not model:
                with pytest.raises(IndexError):
                    getattr(deck, name)()
                continue
            expected = model.pop(0) if name == "dealTop" else model.pop()
            assert getattr(deck, name)() == expected
        elif name == "addTop":
            deck.addTop(number)
            model.insert(0, number)
        elif name == "addBottom":
            deck.addBottom(number)
            model.append(number)
        elif name == "addPileTop":
            deck.addPileTop(DeckOfCards(cards))
            model[:0] = cards
        elif name == "addPileBottom":
            deck.addPileBottom(DeckOfCards(cards))
            model.extend(cards)
        elif name == "deal":
            count = min(len(cards), len(model))
            hands = deck.deal(number, count)
            expected_hands = [[] for _ in range(number)]
            for dealt in range(count):
                expected_hands[dealt % number].insert(0, model.pop(0))
            assert [list(hand) for hand in hands] == expected_hands
        elif model:  # moveTopToBottom
            assert deck.moveTopToBottom(other) == model[0]
            other_model.append(model.pop(0))
        assert_linked(deck, model)
    assert_linked(other, other_model)


def test_module_doctests():
    assert doctest.testmod(deck_adt).failed == 0
