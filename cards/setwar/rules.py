"""Set War as a game kind: a game with no decisions, stored with its rounds as moves.

The deal decides a Set War game, so nobody sits at it and nobody acts. The platform still keeps
the move log as the truth: one move per round, action ``{"type": "round", "number": k}``, whose
outcome is that round's log entry (`cards.engine.setwar.Round.to_dict()`: the cards played per
player, who took the line, the pile sizes after it). Replaying the rounds from the options and
the seed gives the stored state back.

Options: ``players`` (a whole number of at least 1) and, optionally, ``cards`` (the cards top
first, as a list of card strings). Without ``cards`` the deck is the 81 cards shuffled by the
game's seed (`shuffled_deck(seed)`).

A game is made and played to the end in one go by `cards.setwar.services.setwar_run`
(``POST /api/setwar/``). The generic ``POST /api/games/`` refuses the kind with a message that
says so: a game created there would have nobody to play its rounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cards.engine.setwar import (
    InvalidPlayerCountError,
    SetWarError,
    SetWarTable,
    check_cards,
    is_card,
    parse_player_count,
    shuffled_deck,
)
from games.errors import RuleError
from games.rules import Result, register

MAX_PLAYERS = 1_000_000
"""The most players a game may name: beyond a deck's 81 cards extra players only sit out."""

CARDS_FORM = (
    "Cards are a text of cards separated by spaces or newlines, or a list of card strings, "
    "each four digits from 0, 1, 2 (like 0120)"
)


PLAYERS_RULE = f"give a whole number from 1 to {MAX_PLAYERS:,}"


def clean_players(value: object) -> int:
    """Return the player count `value` stands for, or refuse it with a sentence.

    A whole number or a string of ASCII digits (the command line's rule) of at least 1. The
    command line keeps the spec's messages (``invalid player count: 0``); the pages and the API
    say what is wrong in a sentence.

    >>> clean_players(4), clean_players("04")
    (4, 4)
    """
    try:
        if isinstance(value, str):
            players = parse_player_count(value.strip())
        elif isinstance(value, int) and not isinstance(value, bool):
            players = value
        else:
            raise InvalidPlayerCountError(value)
        if players < 1:
            raise InvalidPlayerCountError(value)
    except InvalidPlayerCountError:
        message = f"The number of players is {value!r}: {PLAYERS_RULE}."
        raise RuleError(message, "bad_option") from None
    if players > MAX_PLAYERS:
        raise RuleError(
            f"The number of players is {value!r}: at most {MAX_PLAYERS:,} (a deck holds 81 "
            "cards, so players after the 81st are never dealt one).",
            "bad_option",
        )
    return players


def clean_cards(value: object) -> list[str] | None:
    """Return the cards, top first, of a card string or list; `None` means "shuffle".

    Checked in the command line's order (no cards, then each card's form, then repeats), but
    said in sentences that name the card by its place: "Card 3 is 'abcd': a card is four
    digits 0-2."

    >>> clean_cards("0000 1111\\n2222"), clean_cards(None)
    (['0000', '1111', '2222'], None)
    """
    if value is None:
        return None
    if isinstance(value, str):
        value = value.split()
    elif not isinstance(value, list | tuple):
        raise RuleError(f"{CARDS_FORM}; a {type(value).__name__} is neither.", "bad_option")
    if not value:
        raise RuleError(
            "No cards were given: give at least one card, or leave the cards out to play the "
            "81 cards shuffled.",
            "bad_option",
        )
    for place, card in enumerate(value, 1):
        if not is_card(card):
            shown = repr(card) if len(repr(card)) <= 20 else repr(card)[:17] + "..."
            raise RuleError(f"Card {place} is {shown}: a card is four digits 0-2.", "bad_option")
    seen: dict[str, int] = {}
    for place, card in enumerate(value, 1):
        if card in seen:
            raise RuleError(
                f"Card {place} is {card!r} again (card {seen[card]} too): a deck holds each "
                "card once.",
                "bad_option",
            )
        seen[card] = place
    return list(check_cards(value))


def clean_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return validated options (``players`` and, when given, ``cards``), or raise."""
    if not isinstance(options, Mapping):
        raise RuleError("Set War options are a JSON object: players and cards.", "bad_option")
    unknown = sorted(set(options) - {"players", "cards"})
    if unknown:
        raise RuleError(
            f"Unknown Set War option {unknown[0]!r}; the options are players and cards.",
            "bad_option",
        )
    if "players" not in options:
        raise RuleError("Set War needs the number of players (players).", "bad_option")
    players = clean_players(options["players"])
    cards = clean_cards(options.get("cards"))
    return {"players": players} if cards is None else {"players": players, "cards": cards}


def deck_of(options: Mapping[str, Any], seed: int) -> list[str]:
    """Return the deck a game is dealt: its own cards, or the 81 shuffled by its seed."""
    cards = options.get("cards")
    return list(cards) if cards is not None else shuffled_deck(seed)


def _rule_error(error: SetWarError) -> RuleError:
    return RuleError(str(error), "bad_option")


class SetWarKind:
    """The platform's view of Set War: rounds are its only moves, and nobody has a seat."""

    kind = "setwar"
    page = "setwar-game"  # a game's own page (a URL name)
    replay_page = "setwar-game"  # its replay: the viewer steps through the rounds
    min_seats = 0
    max_seats = 0
    join_while_active = False

    def options(self, options: dict) -> dict:
        """Refuse the generic creation path: a Set War game is played as it is created."""
        raise RuleError(
            "Set War plays itself from the deal: create and play a game with POST /api/setwar/ "
            '{"players": 4, "cards": "0000 1111 ...", "seed": 7} (cards and seed optional).',
            "bad_kind",
        )

    def clean_options(self, options: Mapping[str, Any]) -> dict:
        try:
            return clean_options(options)
        except SetWarError as error:
            raise _rule_error(error) from error

    def new(self, *, options: dict, seed: int, now_ms: int) -> dict:
        try:
            return SetWarTable.new(options["players"], deck_of(options, seed))
        except SetWarError as error:
            raise _rule_error(error) from error

    def join(self, state: dict, name: str, now_ms: int) -> Result:
        raise RuleError(
            "Nobody sits at a Set War game: the deal decides it, round by round.", "no_seats"
        )

    def apply(self, state: dict, actor: str, action: dict, now_ms: int) -> Result:
        """Play the next round; the only action is ``{"type": "round", "number": k}``."""
        kind = action.get("type")
        if kind != "round":
            raise RuleError(
                f"Set War has no {kind!r} action: its only moves are its rounds "
                '({"type": "round", "number": k}).',
                "bad_action",
            )
        if state["over"]:
            raise RuleError(f"The game is over: {state['final_line']}", "over")
        expected = state["round"] + 1
        number = action.get("number")
        if isinstance(number, bool) or number != expected:
            raise RuleError(f"The next round is round {expected}, not {number!r}.", "bad_round")
        new_state, round_ = SetWarTable.step(state)
        return Result(new_state, round_, event=True)

    def tick(self, state: dict, now_ms: int) -> Result:
        return Result(state, {}, event=False)

    def next_deadline(self, state: dict) -> int | None:
        return None

    def view(self, state: dict, actor: str | None, now_ms: int) -> dict:
        """Everyone sees the same: the round, the last round's log, pile sizes, the result."""
        piles = [len(pile) for pile in state["piles"]]
        return {
            "kind": self.kind,
            "players": state["players"],
            "cards": state["cards"],
            "round": state["round"],
            "round_limit": state["round_limit"],
            "piles": piles,
            "in": [player for player, size in enumerate(piles) if size],
            "starter": None if state["over"] else state["starter"],
            "last_round": state["last_round"],
            "over": state["over"],
            "winner": state["winner"],
            "draw": state["draw"],
            "final_line": state["final_line"],
        }

    def status(self, state: dict) -> str:
        return "over" if state.get("over") else "active"

    def scores(self, state: dict) -> dict[str, int]:
        return {}


register(SetWarKind())
