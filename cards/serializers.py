"""Serializers of the Set toolkit API: cards in any text form in, plain JSON out."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cards.engine import Card, SetError, parse_card, parse_cards
from cards.engine.table import AWAY_MS, DECLARE_MS, MAX_CLOCK_MS
from cards.engine.table.modes import MODES
from games.serializers import (
    ACTIONS,
    CREATE_REQUESTS,
    GameCreateCommon,
    StrictBooleanField,
    StrictChoiceField,
    StrictIntegerField,
)

ATTRIBUTE_CHOICES = [3, 4, 5]

CARD_SCHEMA = {
    "oneOf": [
        {"type": "string", "minLength": 1, "example": "TWO/PURPLE/STRIPED/OVAL"},
        {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 3,
            "maxItems": 5,
            "example": ["two", "striped", "purple", "oval"],
        },
    ],
    "description": (
        "A card as protocol text (`TWO/PURPLE/STRIPED/OVAL`), Set War digits (`1201`), "
        "seed-001 words in their order number, shading, color, shape "
        '(`["two", "striped", "purple", "oval"]`) or a phrase (`two purple striped ovals`).'
    ),
}


@extend_schema_field(CARD_SCHEMA)
class CardField(serializers.Field):
    """One card in any of the text forms the specs use."""

    def to_internal_value(self, data) -> Card:
        if not isinstance(data, str | list | tuple):
            raise serializers.ValidationError(
                f"{data!r} is not a card: expected text or a list of words."
            )
        try:
            return parse_card(data)
        except SetError as exc:
            raise serializers.ValidationError(str(exc)) from exc

    def to_representation(self, card: Card) -> dict:
        return card_json(card)


def card_json(card: Card) -> dict:
    """Describe a card in every text form, so clients can pick the one they speak."""
    return {
        "text": card.protocol,
        "digits": card.digits,
        "words": list(card.words),
        "phrase": card.phrase,
    }


class CardListField(serializers.ListField):
    """A list of distinct cards of one size (3, 4 or 5 attributes)."""

    child = CardField()

    def to_internal_value(self, data):
        if not isinstance(data, list):
            raise serializers.ValidationError("Expected a list of cards.")
        # Parse the raw values together so a repeated card or mixed sizes get one clear message.
        for index, value in enumerate(data):
            if not isinstance(value, str | list | tuple):
                raise serializers.ValidationError(
                    f"Card {index + 1}: {value!r} is not a card: expected text or a list of words."
                )
        try:
            return parse_cards(data)
        except SetError as exc:
            raise serializers.ValidationError(str(exc)) from exc


@extend_schema_field(
    {"type": "array", "items": CARD_SCHEMA, "minItems": 3, "maxItems": 3, "uniqueItems": True}
)
class ThreeCardsField(CardListField):
    """Three distinct cards of one size."""


@extend_schema_field({"type": "array", "items": CARD_SCHEMA, "maxItems": 243, "uniqueItems": True})
class BoardField(CardListField):
    """A board: distinct cards of one size (at most a whole 5-attribute deck)."""


class CheckRequest(serializers.Serializer):
    cards = ThreeCardsField(help_text="Exactly three distinct cards of one size.")

    def validate_cards(self, cards):
        if len(cards) != 3:
            raise serializers.ValidationError(f"A set has exactly 3 cards; got {len(cards)}.")
        return cards


class AttributeVerdict(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=["same", "different", "neither"], **kwargs)


class CardOut(serializers.Serializer):
    text = serializers.CharField(help_text="Protocol text, e.g. TWO/PURPLE/STRIPED/OVAL.")
    digits = serializers.CharField(help_text="Set War digits, e.g. 1201.")
    words = serializers.ListField(child=serializers.CharField(), help_text="Seed 001 words.")
    phrase = serializers.CharField(help_text="For people, e.g. two purple striped ovals.")


class CheckResponse(serializers.Serializer):
    is_set = serializers.BooleanField()
    cards = CardOut(many=True)
    attributes = serializers.DictField(
        child=AttributeVerdict(),
        help_text="Per attribute: all the same, all different, or neither (which breaks the set).",
    )


class FindRequest(serializers.Serializer):
    cards = BoardField(help_text="The board: distinct cards of one size.")
    all = StrictBooleanField(
        default=False, help_text="Return every set on the board instead of the first one found."
    )


class FindResponse(serializers.Serializer):
    found = serializers.BooleanField()
    count = serializers.IntegerField(help_text="How many sets the board holds.")
    set = CardOut(many=True, allow_null=True, help_text="One set, or null when there is none.")
    sets = serializers.ListField(
        child=CardOut(many=True), required=False, help_text="Every set (only with all=true)."
    )


class SolitaireRequest(serializers.Serializer):
    seed = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=2**63 - 1,
        help_text="Shuffle seed; omitted means a random one (returned in the answer).",
    )
    attributes = StrictChoiceField(choices=ATTRIBUTE_CHOICES, default=4)


class SolitaireResponse(serializers.Serializer):
    seed = serializers.IntegerField()
    attributes = serializers.IntegerField()
    found = serializers.IntegerField()
    cards_left = serializers.IntegerField()
    sets = serializers.ListField(child=CardOut(many=True))


# --- creating a Set table through POST /api/games/ ---------------------------------------------

CARD_TEXT = {
    "type": "string",
    "minLength": 1,
    "description": "A card: protocol text (TWO/PURPLE/STRIPED/OVAL), digits (1201) or a phrase.",
}


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "rules": {"type": "string", "enum": ["declare", "classic"], "default": "declare"},
            "attributes": {
                "type": "integer",
                "enum": [3, 4, 5],
                "default": 4,
                "description": "3 or 4 on a declare table; 3, 4 or 5 on a classic one.",
            },
            "deck": {
                "type": "array",
                "items": CARD_TEXT,
                "uniqueItems": True,
                "minItems": 3,
                "maxItems": 243,
                "description": "The cards in deal order (distinct, of the table's size, a "
                "multiple of 3, at least a board, at most the whole deck: 27, 81 or 243 cards); "
                "shuffled by the seed when omitted.",
            },
            "board_size": {
                "type": "integer",
                "minimum": 3,
                "maximum": 243,
                "multipleOf": 3,
                "description": "Classic tables: cards on the board (default 3 × attributes), at "
                "most the whole deck (27, 81 or 243 cards for 3, 4 or 5 attributes).",
            },
            "mode": {
                "type": "string",
                "enum": list(MODES),
                "default": "normal",
                "description": "Classic tables (a mode implies the classic rules): "
                + "; ".join(f"`{key}` ({mode.title}: {mode.blurb})" for key, mode in MODES.items())
                + ". `puzzle` is this site's fixed board (3 or 4 attributes, no board_size, its "
                "deck is its 12 cards); `deckpuzzle` is the fork's plain Puzzle. The fork's modes "
                "(junior and after) have their own deck and board: no board_size, and attributes "
                "only as the mode's own.",
            },
            "practice": {
                "type": "boolean",
                "default": False,
                "description": "A practice table (classic rules, any mode; it implies classic): "
                "private and unrated, so a create with `open` or `rated` true is a 400 that "
                "says why (code `private_only` or `not_rated`). Its host (the first to sit) "
                'pauses and resumes it (`{"type": '
                '"pause"}`, `{"type": "resume"}`): while paused no card is sent (the view\'s '
                "`board` is empty, `paused` true), `elapsed_ms` stands still, and claims, "
                'hints, counts and "show me" are a 409 "The game is paused.". Each hint press '
                "reveals one more card of the same claim (the view's `hint.cards`), and "
                '`{"type": "show"}` draws one more of the board\'s sets (the view\'s `show`: '
                "`sets` drawn so far and their `total`); both start again at any claim. Left "
                "out of ratings, stats and profiles' records.",
            },
            "race": {
                "type": "integer",
                "enum": [10, 20, 30],
                "description": "Classic tables in the normal mode (a race implies the classic "
                "rules): a Set-N race, which ends at the N-th set found at the table; the found "
                "sets are shuffled back into an empty deck, so it always gets there. Its view's "
                "`race` has the target, each set's finder and time, the clock and the result "
                "(the most sets wins, a tie going to the earlier last set). Never rated; a race "
                "alone, with the whole deck and no hint, is a best time: GET /api/races/best.",
            },
            "favour": {
                "type": "array",
                "items": {"type": "string", "enum": [f"differ-{n}" for n in range(1, 6)]},
                "minItems": 1,
                "uniqueItems": True,
                "description": "Classic tables of the normal mode, shuffled (not with deck): kinds "
                "of set to deal more often, each by how many attributes differ among its three "
                "cards (`differ-1` up to the table's attributes; not every kind at once). The "
                "shuffled deck is re-ordered so that each deal brings whole sets of those kinds; "
                "the same seed gives the same deal. It implies classic, and such a table is not "
                "rated. A profile's insights offer it for the kinds one misses most (with "
                "`practice`).",
                "example": ["differ-1", "differ-2"],
            },
            "day": {
                "type": "string",
                "format": "date",
                "description": "Puzzle tables: deal the daily puzzle of this day (YYYY-MM-DD), "
                "the same board for everyone; not with deck.",
            },
            "away_ms": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_CLOCK_MS,
                "default": AWAY_MS,
                "description": "Milliseconds without a request before a player is away, at "
                "most one day (86400000).",
            },
            "start": {
                "type": "string",
                "enum": ["wait", "now"],
                "default": "wait",
                "description": "`wait` (the default; `now` for a daily puzzle, `day`): the table "
                "opens waiting, with no cards, while players join and chat; a seated player (its "
                "creator, or anyone once the creator is away) starts it with POST "
                '/api/games/<id>/start or the action `{"type": "start"}`, and the cards are dealt '
                "3 s later. `now`: the cards are dealt as the table is made (solitaire, a table "
                "of computers, a table for the text protocol). A rated table takes no new "
                "player once dealt.",
            },
            "ghost": {
                "type": "integer",
                "minimum": 1,
                "maximum": 2**63 - 1,
                "description": "A ghost race: the id of a finished solo game (one person's, "
                "classic or declare, any mode) to race on its own deal. The new table takes "
                "that game's options and seed (send no other option, or the same values: else "
                'a 400) and waits for its Start; its views carry `ghost` (`{"game", '
                '"player", "sets": [{"at_ms", "cards"}]}`: the recording\'s sets, '
                'each its time since the deal) and, once over, `ghost_result` (`{"sets": '
                '[{"set", "you_ms", "ghost_ms", "ahead"}], "winner", '
                '"lines", "summary"}`: who was ahead at each set). A 400 names why a game '
                "cannot be raced (not over, not solo, private to the requester, another kind or "
                "other options); a 404 when there is no such game. Not rated, and no solitaire "
                "or daily-puzzle time.",
            },
            "declare_ms": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_CLOCK_MS,
                "default": DECLARE_MS,
                "description": "Declare tables: milliseconds a declarer has to pick three "
                "cards, at most one day (86400000).",
            },
        },
    }
)
class SetOptionsField(serializers.DictField):
    """The options of a Set table (checked, bounded and stored in canonical form by its rules,
    `cards.rules.SetTable.options`: anything else is a 400 naming the option)."""


class SetGameCreateRequest(GameCreateCommon):
    kind = serializers.ChoiceField(choices=["set"])
    options = SetOptionsField(required=False, help_text="The table's rules (all optional).")


# --- a Set table's actions (POST /api/games/<id>/moves) -----------------------------------------


@extend_schema_field(
    {"type": "array", "items": CARD_TEXT, "minItems": 3, "maxItems": 6, "uniqueItems": True}
)
class ClaimCardsField(serializers.ListField):
    """Three different cards (four at an UltraSet table, six at a GhostSet table)."""


class SetSimpleAction(serializers.Serializer):
    type = serializers.ChoiceField(
        choices=[
            "declare",
            "add",
            "hint",
            "count",
            "look",
            "watch",
            "start",
            "pause",
            "resume",
            "show",
        ],
        help_text="Declare tables: declare, add, hint, count, look, watch. Classic tables: hint, "
        "count, look. Both: start (a waiting table's Start: its cards are dealt 3 s later; "
        "before that every action but join, look, watch and start is a 409). Practice tables "
        "(the option `practice`): pause and resume (the host only, else 403; pausing a paused "
        'table or resuming a running one is a 409), and show ("show me": one more of the '
        "board's sets drawn each time).",
    )


class PickAction(serializers.Serializer):
    type = serializers.ChoiceField(choices=["pick"])
    row = serializers.IntegerField(min_value=0, help_text="Set declare tables: the card's row.")
    col = serializers.IntegerField(min_value=0, help_text="And its column.")


class ClaimAction(serializers.Serializer):
    type = serializers.ChoiceField(choices=["claim"])
    cards = ClaimCardsField(
        required=False,
        help_text="Set classic tables: three different cards on the board (UltraSet modes and "
        "the 4Set modes: four; ghostset: six; chain modes: the view's chain_count of them from "
        "the chain, once there is one; the view's claim_size says how many).",
    )
    positions = serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        min_length=3,
        max_length=6,
        required=False,
        help_text="Instead of cards: the board positions of the claim's cards (Memory's board "
        "lies face down, so its claims name places). A Memory claim that is not a set is a "
        '400 "Not a Set", with no penalty.',
    )


class RevealAction(serializers.Serializer):
    type = serializers.ChoiceField(choices=["reveal"])
    position = serializers.IntegerField(
        min_value=0,
        help_text="Memory tables: turn up the card at this board position for yourself alone: "
        "the outcome's card and digits (withheld from everyone else until the game ends). "
        "Nothing changes at the table.",
    )


class EndLeftAction(serializers.Serializer):
    type = serializers.ChoiceField(choices=["end_left"])
    seat = serializers.CharField(
        help_text="Rated tables (Set classic and declare, the Square Game): end the game "
        "because this seat left: away (no request, no open socket) for longer than the table's "
        "away_ms (a Set table's: a minute by default; a Square Game's: two minutes on its turn, "
        "a seat waiting for its turn has not left). Any other seated player may; the game is "
        "over at once and the leaver ranks last (the others win; the ratings move so). "
        "Refused (409, a sentence, nothing changed) while the seat is still here, at an "
        "unrated table, or for one's own seat (400). A leave counts: the third in 24 hours "
        "makes its account wait before it plays rated again (LEAVE_WAIT_MINUTES, doubling "
        "with each leave more)."
    )


CREATE_REQUESTS["set"] = SetGameCreateRequest
ACTIONS.extend([SetSimpleAction, PickAction, ClaimAction, RevealAction, EndLeftAction])


class RaceBestQuery(serializers.Serializer):
    n = serializers.ChoiceField(
        choices=[10, 20, 30],
        help_text="The race: 10, 20 or 30 sets.",
        error_messages={
            "required": "n is required: the race's number of sets, 10, 20 or 30.",
            "invalid_choice": "n is 10, 20 or 30 (the race's number of sets); got {input}.",
        },
    )
    period = serializers.ChoiceField(
        choices=["day", "all"],
        required=False,
        default="all",
        help_text="day: the races ended today (the server's date); all (the default): every race.",
        error_messages={
            "invalid_choice": "period is day or all; got {input}.",
        },
    )

    def to_internal_value(self, data):
        # A blank query value would be taken as absent (the default): it is named instead.
        if hasattr(data, "get") and data.get("period") == "":
            raise serializers.ValidationError({"period": ["period is day or all; got nothing."]})
        return super().to_internal_value(data)


class RaceTimeOut(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 for the fastest.")
    name = serializers.CharField(help_text="The account's name (its profile: /u/<name>).")
    ms = serializers.IntegerField(help_text="The time, from the deal to the N-th set, in ms.")
    seconds = serializers.FloatField(help_text="The same time in seconds, to the hundredth.")
    game = serializers.IntegerField(help_text="The game of that time (its replay).")
    finished = serializers.DateTimeField(help_text="When that race ended.")


class RaceBestOut(serializers.Serializer):
    n = serializers.IntegerField()
    period = serializers.CharField()
    day = serializers.DateField(help_text="The server's date today (the day of period=day).")
    times = RaceTimeOut(
        many=True,
        help_text="Each account's best time, fastest first (at most 20): races alone, of the "
        "standard game (81 cards), with no hint, by accounts that are not bots.",
    )
