"""Serializers of the Set toolkit API: cards in any text form in, plain JSON out."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cards.engine import Card, SetError, parse_card, parse_cards
from cards.engine.table import AWAY_MS, DECLARE_MS, MAX_CLOCK_MS
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
                "enum": ["normal", "ultra", "chain", "puzzle"],
                "default": "normal",
                "description": "Classic tables (a mode implies the classic rules): `normal`, the "
                "card game; `ultra` (UltraSet: claim four cards, two pairs with the same "
                "completing card); `chain` (Set-Chain: after the first set, each set takes "
                "exactly one card of the last set found, shown beside the board); `puzzle` (a "
                "fixed board of 12 cards holding exactly 6 sets: find them all; 3 or 4 "
                "attributes, no board_size, its deck is its 12 cards).",
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
    {"type": "array", "items": CARD_TEXT, "minItems": 3, "maxItems": 4, "uniqueItems": True}
)
class ClaimCardsField(serializers.ListField):
    """Three different cards (four at an ultra table)."""


class SetSimpleAction(serializers.Serializer):
    type = serializers.ChoiceField(
        choices=["declare", "add", "hint", "count", "look", "watch", "start"],
        help_text="Declare tables: declare, add, hint, count, look, watch. Classic tables: hint, "
        "count, look. Both: start (a waiting table's Start: its cards are dealt 3 s later; "
        "before that every action but join, look, watch and start is a 409).",
    )


class PickAction(serializers.Serializer):
    type = serializers.ChoiceField(choices=["pick"])
    row = serializers.IntegerField(min_value=0, help_text="Set declare tables: the card's row.")
    col = serializers.IntegerField(min_value=0, help_text="And its column.")


class ClaimAction(serializers.Serializer):
    type = serializers.ChoiceField(choices=["claim"])
    cards = ClaimCardsField(
        help_text="Set classic tables: three different cards on the board (ultra: four; chain: "
        "one of them from the chain, once there is one; the view's claim_size says how many)."
    )


CREATE_REQUESTS["set"] = SetGameCreateRequest
ACTIONS.extend([SetSimpleAction, PickAction, ClaimAction])
