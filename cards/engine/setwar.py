"""Set War: the Set card deck, the game and the command-line input format.

Set War (specs/setwar.md) is a zero-decision game: the deal decides everything. Players turn
over the top card of their pile onto *the line*; whoever plays a card that makes a set with two
cards already in the line takes the whole line under their pile and starts the next round. A
player who plays their last card without winning is out; the last player holding cards wins.

>>> result = play_setwar(2, "0000 1111 1000 2222 1112 0001 0120 2220".split())
>>> result.final_line
'Player 0 won in 4 rounds.'
>>> [(play.player, play.card) for play in result.log[0].plays]
[(0, '0120'), (1, '2220'), (0, '1112'), (1, '0001')]
>>> result.log[0].taker, result.log[0].set_cards, result.log[0].piles
(1, ('2220', '1112', '0001'), (2, 6))

Everything here is pure Python: the platform stores `SetWarResult.to_dict()` as JSON.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any, NamedTuple

from cards.engine.deck_adt import DeckOfCards
from cards.engine.errors import SetError

__all__ = [
    "ALL_CARDS",
    "ROUND_LIMIT",
    "DuplicateCardError",
    "InvalidCardError",
    "InvalidPlayerCountError",
    "MissingPlayerCountError",
    "NoCardsError",
    "Play",
    "Round",
    "SetDeck",
    "SetWarError",
    "SetWarResult",
    "SetWarTable",
    "check_card",
    "check_cards",
    "describe_card",
    "is_card",
    "is_set",
    "parse_input",
    "parse_player_count",
    "play_setwar",
    "shuffled_deck",
    "third_card",
]

ALL_CARDS: tuple[str, ...] = tuple("".join(digits) for digits in product("012", repeat=4))
"""The 81 Set War cards, `0000` to `2222` in counting order."""

ROUND_LIMIT = 10_000
"""The most rounds a game may last; winning a set in this round makes the game a draw."""

# A card's index is its value in base 3, so ALL_CARDS[CARD_INDEX[card]] == card.
_CARD_INDEX: dict[str, int] = {card: index for index, card in enumerate(ALL_CARDS)}

# For a player count with more digits than this, the exact value cannot matter (it is far
# beyond any deck) and converting it would be slow, so it is read as 10**_COUNT_DIGITS.
_COUNT_DIGITS = 100


def _third_index(a: int, b: int) -> int:
    """Return the index of the card completing a set with the cards at indexes a and b."""
    third, weight = 0, 1
    for _ in range(4):
        third += (-(a % 3) - (b % 3)) % 3 * weight
        a, b, weight = a // 3, b // 3, weight * 3
    return third


# _THIRD[a][b] is the index of the third card of the set through cards a and b. A lookup
# table makes the per-card set test of the game a few C-level operations per line card.
_THIRD: tuple[tuple[int, ...], ...] = tuple(
    tuple(_third_index(a, b) for b in range(len(ALL_CARDS))) for a in range(len(ALL_CARDS))
)


# _PARTNER_GETTERS[c](x) is the card completing a set with cards c and x: the game's set
# test maps it over the line, so it is kept as a ready-made C-level lookup per card.
_PARTNER_GETTERS: dict[str, Callable[[str], str]] = {
    card: {
        other: ALL_CARDS[_THIRD[index][other_index]] for other_index, other in enumerate(ALL_CARDS)
    }.__getitem__
    for index, card in enumerate(ALL_CARDS)
}


class SetWarError(SetError):
    """Report a Set War input that cannot be played; the message is the spec's error text."""


class MissingPlayerCountError(SetWarError):
    """Refuse an input without any token: there is not even a player count."""

    def __init__(self) -> None:
        super().__init__("missing player count")


class InvalidPlayerCountError(SetWarError):
    """Refuse a player count that is not a whole number of at least 1."""

    def __init__(self, token: object) -> None:
        super().__init__(f"invalid player count: {token}")
        self.token = token


class NoCardsError(SetWarError):
    """Refuse a game without cards: no one could play, so no one could win."""

    def __init__(self) -> None:
        super().__init__("no cards")


class InvalidCardError(SetWarError):
    """Refuse a card that is not exactly four characters from `0`, `1` and `2`."""

    def __init__(self, card: object) -> None:
        super().__init__(f"invalid card: {card}")
        self.card = card


class DuplicateCardError(SetWarError):
    """Refuse a card that appears twice: a Set deck holds each card at most once."""

    def __init__(self, card: str) -> None:
        super().__init__(f"duplicate card: {card}")
        self.card = card


_NUMBERS = ("one", "two", "three")
_COLORS = ("red", "green", "purple")
_SHADINGS = ("solid", "striped", "open")
_SHAPES = ("diamond", "squiggle", "oval")


def describe_card(card: str) -> str:
    """Return a card in words: number, color, shading, shape (the project's display rule).

    The game never needs this (it compares digits), but a person reading a log does.

    >>> describe_card("0020"), describe_card("2121")
    ('one red open diamond', 'three green open squiggles')
    """
    number, color, shading, shape = (int(digit) for digit in check_card(card))
    plural = "s" if number else ""
    return f"{_NUMBERS[number]} {_COLORS[color]} {_SHADINGS[shading]} {_SHAPES[shape]}{plural}"


def is_card(card: object) -> bool:
    """Return whether `card` is a Set War card string: four characters from `0`, `1`, `2`.

    >>> is_card("0120"), is_card("0123"), is_card("012"), is_card(120)
    (True, False, False, False)
    """
    return isinstance(card, str) and card in _CARD_INDEX


def check_card(card: object) -> str:
    """Return `card` if it is a Set War card string, else raise `InvalidCardError`."""
    if isinstance(card, str) and card in _CARD_INDEX:
        return card
    raise InvalidCardError(card)


def check_cards(cards: Iterable[object]) -> tuple[str, ...]:
    """Return the cards as a tuple if all are valid and distinct, else raise.

    Every card is checked for its form before any is checked for repeats, so the first
    malformed card is reported even when a repeat comes earlier (the spec's order).
    """
    cards = tuple(cards)
    for card in cards:
        check_card(card)
    if len(set(cards)) != len(cards):
        seen: set[str] = set()
        for card in cards:
            if card in seen:
                raise DuplicateCardError(card)
            seen.add(card)
    return cards


def third_card(a: str, b: str) -> str:
    """Return the card that completes a set with `a` and `b`.

    At each position the digit is `(-a - b) mod 3`: the common digit if a and b agree there,
    otherwise the digit that is neither.

    >>> third_card("2220", "1112")
    '0001'
    """
    return ALL_CARDS[_THIRD[_CARD_INDEX[check_card(a)]][_CARD_INDEX[check_card(b)]]]


def is_set(a: str, b: str, c: str) -> bool:
    """Return whether three cards form a set: at every position all equal or all different.

    >>> is_set("0000", "1111", "2222"), is_set("0000", "1111", "2221")
    (True, False)
    """
    first, second, last = (_CARD_INDEX[check_card(card)] for card in (a, b, c))
    return _THIRD[first][second] == last


class SetDeck(DeckOfCards):
    """Hold Set War cards: a `DeckOfCards` whose cards are valid, distinct card strings.

    The cards it is built from are checked (form first, then repeats); single cards added
    later are checked for their form, and piles that are not `SetDeck`s card by card. Apart
    from refusing what is not a card, it behaves exactly like `DeckOfCards`.

    >>> SetDeck("0000 1111").dealTop()
    '0000'
    >>> SetDeck("0000 0003")
    Traceback (most recent call last):
    ...
    cards.engine.setwar.InvalidCardError: invalid card: 0003
    """

    __slots__ = ()

    def __init__(self, cards: str | Iterable[str] | None = None) -> None:
        if isinstance(cards, str):
            cards = cards.split()
        DeckOfCards.__init__(self, check_cards(cards) if cards is not None else None)

    def addTop(self, card: str) -> None:
        """Put a valid card on top; anything else raises `InvalidCardError`."""
        super().addTop(check_card(card))

    def addBottom(self, card: str) -> None:
        """Put a valid card at the bottom; anything else raises `InvalidCardError`."""
        super().addBottom(check_card(card))

    def addPileTop(self, pile: DeckOfCards) -> None:
        """Lay `pile` on top, as `DeckOfCards` does, checking the cards of a non-SetDeck."""
        if not isinstance(pile, SetDeck):
            _check_pile_cards(pile)
        DeckOfCards.addPileTop(self, pile)

    def addPileBottom(self, pile: DeckOfCards) -> None:
        """Put `pile` under the deck, as `DeckOfCards` does, checking a non-SetDeck's cards."""
        if not isinstance(pile, SetDeck):
            _check_pile_cards(pile)
        DeckOfCards.addPileBottom(self, pile)


def _check_pile_cards(pile: object) -> None:
    """Check every card of a deck that does not check its own cards."""
    if isinstance(pile, DeckOfCards):
        for card in pile:
            check_card(card)


class Play(NamedTuple):
    """One card turned over onto the line, and who played it."""

    player: int
    card: str


class Round(NamedTuple):
    """Record one round: the plays in order, who took the line and the piles afterwards.

    `piles[p]` is player p's pile size after the round. What else a viewer shows (the set
    that won, who ran out) follows from these, so it is derived rather than stored twice.

    Rounds and plays are named tuples rather than frozen dataclasses because a drawn game
    logs 10,000 rounds: a named tuple is made several times faster, and is as immutable.
    """

    number: int
    plays: tuple[Play, ...]
    taker: int
    piles: tuple[int, ...]

    @property
    def set_cards(self) -> tuple[str, str, str] | None:
        """Return the set that won the round, in the order played, or `None`.

        A round is won by a set exactly when its last card was played by the player who
        took the line; a game's last round ends instead when all but one player are out.
        If the last card completes several sets, the one with the earliest card is given.
        """
        if not self.plays or self.plays[-1].player != self.taker:
            return None
        *line, last = (play.card for play in self.plays)
        in_line = set(line)
        for card in line:
            partner = third_card(card, last)
            if partner in in_line:
                return card, partner, last
        return None

    @property
    def out(self) -> tuple[int, ...]:
        """Return the players who ran out during the round, in the order they did."""
        last_plays = dict.fromkeys(play.player for play in reversed(self.plays))
        return tuple(reversed([player for player in last_plays if not self.piles[player]]))

    def to_dict(self) -> dict[str, Any]:
        """Return the round as JSON-able data, derived facts included for viewers."""
        set_cards = self.set_cards
        return {
            "number": self.number,
            "plays": [{"player": play.player, "card": play.card} for play in self.plays],
            "taker": self.taker,
            "piles": list(self.piles),
            "set_cards": list(set_cards) if set_cards is not None else None,
            "out": list(self.out),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Round:
        """Rebuild a round from `to_dict()` output (the derived keys are not needed)."""
        return cls(
            number=data["number"],
            plays=tuple(Play(play["player"], play["card"]) for play in data["plays"]),
            taker=data["taker"],
            piles=tuple(data["piles"]),
        )


@dataclass(frozen=True, slots=True)
class SetWarResult:
    """The outcome of a game: the winner (`None` for a draw), the rounds and their log.

    `rounds` is the number of the round in which the game ended (sets won + 1), or the
    round limit (`ROUND_LIMIT` unless the game was given another) for a draw. `log` has one
    `Round` per round played, or is empty when the game was played without recording.
    Piles are listed for players 0 to `min(players, len(cards)) - 1`: the players after
    them are never dealt a card.
    """

    players: int
    cards: tuple[str, ...]
    winner: int | None
    rounds: int
    log: tuple[Round, ...] = ()

    @property
    def draw(self) -> bool:
        """Return whether the game reached the round limit without a winner."""
        return self.winner is None

    @property
    def final_line(self) -> str:
        """Return the line the command-line program prints, without the newline."""
        if self.winner is None:
            return f"Draw after {self.rounds} rounds."
        if self.rounds == 1:
            return f"Player {self.winner} won in 1 round."
        return f"Player {self.winner} won in {self.rounds} rounds."

    def to_dict(self) -> dict[str, Any]:
        """Return the result as JSON-able data (`from_dict` reads it back)."""
        return {
            "players": self.players,
            "cards": list(self.cards),
            "winner": self.winner,
            "rounds": self.rounds,
            "draw": self.draw,
            "final_line": self.final_line,
            "log": [round_.to_dict() for round_ in self.log],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SetWarResult:
        """Rebuild a result from `to_dict()` output."""
        return cls(
            players=data["players"],
            cards=tuple(data["cards"]),
            winner=data["winner"],
            rounds=data["rounds"],
            log=tuple(Round.from_dict(round_) for round_ in data["log"]),
        )


def shuffled_deck(seed: int | str | bytes | None) -> list[str]:
    """Return the 81 card strings shuffled by `random.Random(seed)`, reproducibly.

    >>> shuffled_deck(7) == shuffled_deck(7), sorted(shuffled_deck(7)) == list(ALL_CARDS)
    (True, True)
    """
    cards = list(ALL_CARDS)
    random.Random(seed).shuffle(cards)
    return cards


def parse_player_count(token: str) -> int:
    """Return the player count a token spells, or raise `InvalidPlayerCountError`.

    Only ASCII digits are accepted and the value must be at least 1. A count with more than
    100 significant digits is read as 10**100: it exceeds any deck either way.

    >>> parse_player_count("004")
    4
    """
    if not (token.isascii() and token.isdigit()):
        raise InvalidPlayerCountError(token)
    digits = token.lstrip("0")
    if not digits:
        raise InvalidPlayerCountError(token)
    if len(digits) > _COUNT_DIGITS:
        return 10**_COUNT_DIGITS
    return int(digits)


def parse_input(text: str) -> tuple[int, tuple[str, ...]]:
    """Return the player count and the cards of a program input, or raise `SetWarError`.

    The text is split on whitespace: the first token is the player count, the rest are the
    cards, top of the deck first. Errors are checked in the spec's order (count, no cards,
    card form, repeats) and the first is raised, its message the spec's text.

    >>> parse_input("2\\n0000 1111 2222\\n")
    (2, ('0000', '1111', '2222'))
    """
    tokens = text.split()
    if not tokens:
        raise MissingPlayerCountError()
    players = parse_player_count(tokens[0])
    if len(tokens) == 1:
        raise NoCardsError()
    return players, check_cards(tokens[1:])


def play_setwar(
    players: int,
    cards: str | Iterable[str],
    *,
    record: bool = True,
    round_limit: int = ROUND_LIMIT,
    detect_cycles: bool = True,
) -> SetWarResult:
    """Play a game of Set War for `players` players dealt `cards` (top first).

    Raises `SetWarError` for a player count below 1, no cards, or a card that is malformed
    or repeated. With `record=False` the round log is left empty, which makes long games
    faster (the command-line program needs no log); the outcome is the same.
    `round_limit` replaces the spec's 10000 rounds, for viewers and tests of the limit.

    The game is deterministic, so once a round starts exactly as an earlier one did (same
    starting player, same piles) it repeats for ever and can only end as a draw. With
    `detect_cycles` (the default) such a game stops there and the rest of the log is
    copied from the cycle; the result is identical to playing every round, which
    `detect_cycles=False` does.
    """
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise InvalidPlayerCountError(players)
    if round_limit < 1:
        raise ValueError(f"the round limit must be at least 1, not {round_limit}")
    deck = SetDeck(cards)
    cards = tuple(deck)
    if not cards:
        raise NoCardsError()
    # Players numbered from len(cards) upwards are never dealt a card, so they take no part.
    hands = deck.deal(min(players, len(cards)))
    winner, rounds, log = _play_rounds(hands, record, round_limit, detect_cycles)
    return SetWarResult(players=players, cards=cards, winner=winner, rounds=rounds, log=log)


def _play_rounds(
    hands: list[SetDeck], record: bool, round_limit: int, detect_cycles: bool
) -> tuple[int | None, int, tuple[Round, ...]]:
    """Play dealt hands (each holding a card) to the end; return winner, rounds and log.

    The winner is `None` for a draw. This is the hot loop of long games, so it keeps the
    players still in as a ring of indexes, tests for a set with C-level set operations, and
    only builds the log when asked to.

    Cycles are found with Brent's method: the position at the start of a round is compared
    with one marked position, and the mark moves forward after 1, 2, 4, 8, ... rounds, so a
    cycle is seen within about twice its start plus its length, and a position (every
    pile, card by card) is copied only about log2(rounds) times.
    """
    log: list[Round] = []
    seats = len(hands)
    if seats == 1:
        # At most one player holds cards: player 0 wins without a card being played.
        if record:
            log.append(Round(1, (), 0, (len(hands[0]),)))
        return 0, 1, tuple(log)
    # The players still in, as a ring: a player who runs out is unlinked in O(1).
    after = [(seat + 1) % seats for seat in range(seats)]
    before = [(seat - 1) % seats for seat in range(seats)]
    left = seats
    line = SetDeck()
    in_line: set[str] = set()  # the line's cards again, for the set test
    partner_in = _PARTNER_GETTERS
    # Plays are immutable, so each (player, card) pair is made once and shared.
    play_of: list[dict[str, Play]] = [{} for _ in hands]
    plays: list[Play] = []
    # The log's pile sizes, copied from each hand that changes: cheaper than reading all.
    sizes = [len(hand) for hand in hands]
    player = 0
    number = 1
    # The marked round start (Brent's tortoise): its number, starter, starter's pile size
    # (a cheap first test) and whole position.
    mark_number, mark_player, mark_size = 1, 0, len(hands[0])
    mark_position = _position(hands, 0) if detect_cycles else ()
    mark_span = 1
    while True:
        hand = hands[player]
        card = hand.moveTopToBottom(line)
        if record:
            try:
                plays.append(play_of[player][card])
            except KeyError:
                play_of[player][card] = play = Play(player, card)
                plays.append(play)
            sizes[player] = hand._size
        # partner_in[card](x) completes the set through card and x: the card wins the
        # round exactly when some line card's partner is in the line too.
        if not in_line.isdisjoint(map(partner_in[card], in_line)):
            hand.addPileBottom(line)
            in_line.clear()
            if record:
                sizes[player] = hand._size
                log.append(Round(number, tuple(plays), player, tuple(sizes)))
                plays = []
            if number == round_limit:
                return None, number, tuple(log)
            number += 1
            # The round's winner starts the next round, unless the game is in a cycle.
            if detect_cycles:
                if (
                    player == mark_player
                    and hand._size == mark_size
                    and _position(hands, player) == mark_position
                ):
                    if record:
                        _repeat_cycle(log, number - mark_number, number, round_limit)
                    return None, round_limit, tuple(log)
                if number - mark_number == mark_span:
                    mark_number, mark_player, mark_size = number, player, hand._size
                    mark_position = _position(hands, player)
                    mark_span *= 2
            continue
        in_line.add(card)
        following = after[player]
        if not hand._size:  # len(hand), without a Python-level call on every play
            left -= 1
            previous = before[player]
            after[previous], before[following] = following, previous
            if left == 1:
                hands[following].addPileBottom(line)
                if record:
                    sizes[following] = hands[following]._size
                    log.append(Round(number, tuple(plays), following, tuple(sizes)))
                return following, number, tuple(log)
        player = following


def _position(hands: list[SetDeck], starter: int) -> tuple[Any, ...]:
    """Return what decides the rest of a game at a round start: the starter and every pile.

    The line is empty between rounds, and a player is out exactly when their pile is.
    """
    return (starter, *map(tuple, hands))


def _repeat_cycle(log: list[Round], period: int, start: int, round_limit: int) -> None:
    """Log rounds `start` to `round_limit` as repeats of the rounds `period` earlier."""
    for number in range(start, round_limit + 1):
        earlier = log[number - period - 1]
        log.append(Round(number, earlier.plays, earlier.taker, earlier.piles))


class SetWarTable:
    """Play Set War one round at a time on a state that is plain JSON data.

    `play_setwar` plays a whole game in one call. A server that stores a game with its rounds
    as moves, or a viewer, needs the game *between* rounds: `new` deals and returns the
    state, `step` plays the next round and returns the new state with that round's log entry
    (`Round.to_dict()`). Stepping to the end gives exactly `play_setwar`'s result and log.

    Between rounds the line is empty, so the state is small: every pile's cards (top first),
    who starts the next round, how many rounds were played, and the outcome once over. No
    function mutates the state it is given.

    >>> state = SetWarTable.new(2, "0000 1111 1000 2222 1112 0001 0120 2220")
    >>> state["piles"]
    [['0120', '1112', '1000', '0000'], ['2220', '0001', '2222', '1111']]
    >>> state, first = SetWarTable.step(state)
    >>> first["taker"], first["set_cards"], first["piles"], state["starter"]
    (1, ['2220', '1112', '0001'], [2, 6], 1)
    >>> for state, round_ in SetWarTable.rounds(state):
    ...     pass
    >>> state["round"], state["winner"], state["final_line"]
    (4, 0, 'Player 0 won in 4 rounds.')
    """

    @staticmethod
    def new(
        players: int, cards: str | Iterable[str], *, round_limit: int = ROUND_LIMIT
    ) -> dict[str, Any]:
        """Deal `cards` (top first) to `players` players and return the state before round 1.

        Raises `SetWarError` for the inputs `play_setwar` refuses, in the same order.
        """
        if isinstance(players, bool) or not isinstance(players, int) or players < 1:
            raise InvalidPlayerCountError(players)
        if isinstance(round_limit, bool) or not isinstance(round_limit, int) or round_limit < 1:
            raise ValueError(f"the round limit must be at least 1, not {round_limit}")
        deck = SetDeck(cards)
        if not len(deck):
            raise NoCardsError()
        hands = deck.deal(min(players, len(deck)))
        return {
            "players": players,
            "cards": sum(map(len, hands)),
            "round_limit": round_limit,
            "round": 0,
            "starter": 0,
            "piles": [list(hand) for hand in hands],
            "over": False,
            "winner": None,
            "draw": False,
            "final_line": None,
            "last_round": None,
        }

    @staticmethod
    def step(state: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Play the next round; return the new state and the round (`Round.to_dict()`).

        Raises `SetWarError` when the game is already over.
        """
        if state["over"]:
            raise SetWarError(f"the game is over: {state['final_line']}")
        number = state["round"] + 1
        hands = SetWarTable._hands(state["piles"])
        seats = len(hands)
        winner: int | None = None
        over = False
        plays: list[Play] = []
        if seats == 1:
            # At most one player holds cards: player 0 wins without a card being played.
            taker, winner, over = 0, 0, True
        else:
            taker, winner = SetWarTable._play_round(hands, state["starter"], plays)
            over = winner is not None or number == state["round_limit"]
        round_ = Round(number, tuple(plays), taker, tuple(map(len, hands))).to_dict()
        rounds = number
        result = SetWarResult(players=state["players"], cards=(), winner=winner, rounds=rounds)
        new_state = {
            **state,
            "round": number,
            "starter": taker,
            "piles": [list(hand) for hand in hands],
            "over": over,
            "winner": winner,
            "draw": over and winner is None,
            "final_line": result.final_line if over else None,
            "last_round": round_,
        }
        return new_state, round_

    @staticmethod
    def _hands(piles: list[list[str]]) -> list[SetDeck]:
        """Return the piles as decks, after checking that they hold distinct valid cards.

        Valid piles, the usual case, are checked with two set operations; only a bad state
        goes through `check_cards` for its message. The decks are then linked without
        checking each card again.
        """
        cards = [card for pile in piles for card in pile]
        distinct = set(cards)
        if len(distinct) != len(cards) or not distinct <= _CARD_INDEX.keys():
            check_cards(cards)
        hands = []
        for pile in piles:
            hand = SetDeck()
            DeckOfCards.__init__(hand, pile)
            hands.append(hand)
        return hands

    @staticmethod
    def _play_round(
        hands: list[SetDeck], starter: int, plays: list[Play]
    ) -> tuple[int, int | None]:
        """Play one round on dealt hands (changing them); return the taker and the winner.

        The winner is `None` unless the round ended the game by leaving one player with
        cards. At a round start at least two players hold cards; a player is in exactly
        while their pile holds cards (the one playing their last card is decided at once).
        """
        seats = len(hands)
        left = sum(1 for hand in hands if hand._size)
        line = SetDeck()
        in_line: set[str] = set()
        partner_in = _PARTNER_GETTERS
        player = starter
        while True:
            hand = hands[player]
            card = hand.moveTopToBottom(line)
            plays.append(Play(player, card))
            if not in_line.isdisjoint(map(partner_in[card], in_line)):
                hand.addPileBottom(line)
                return player, None
            in_line.add(card)
            following = (player + 1) % seats
            while not hands[following]._size:
                following = (following + 1) % seats
            if not hand._size:
                left -= 1
                if left == 1:
                    hands[following].addPileBottom(line)
                    return following, following
            player = following

    @staticmethod
    def rounds(state: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Yield `(state, round)` after each round from `state` to the end of the game."""
        while not state["over"]:
            state, round_ = SetWarTable.step(state)
            yield state, round_
