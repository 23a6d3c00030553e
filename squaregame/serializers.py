"""Shapes of the Square Game's requests: a save of the original simulator, and the options of a
game created through POST /api/games/ (added to the games API's documented body)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.serializers import ACTIONS, CREATE_REQUESTS, GameCreateCommon
from squaregame.rules import MAX_SAVE_ENTRIES

# The ranges the rules accept (specs/squaregame.md): seats 1-4, pieces 1-16, permutations 1-8,
# and a zero point on the board's lattice, 0-32 on both axes. Anything else is refused by name.
SEAT = {"type": "integer", "minimum": 1, "maximum": 4}
PIECE = {"type": "integer", "minimum": 1, "maximum": 16}
PERMUTATION = {"type": "integer", "minimum": 1, "maximum": 8}
COORDINATE = {"type": "integer", "minimum": 0, "maximum": 32}

SAVE_BOARD_ENTRY = {
    "type": "object",
    "required": ["player_num", "piece_num", "permutation", "x", "y"],
    "properties": {
        "player_num": SEAT,
        "piece_num": PIECE,
        "permutation": PERMUTATION,
        "x": COORDINATE,
        "y": COORDINATE,
    },
}
SAVE_MOVE_ENTRY = {
    "anyOf": [
        {
            "title": "The opening (move 0 of a save without a board)",
            "type": "object",
            "required": ["piece_num", "permutation"],
            "properties": {"piece_num": PIECE, "permutation": PERMUTATION},
        },
        {
            "title": "A pass",
            "type": "object",
            "required": ["type", "player_num"],
            "properties": {"type": {"type": "integer", "enum": [0]}, "player_num": SEAT},
        },
        {
            "title": "A placement",
            "type": "object",
            "required": ["type", "player_num", "piece_num", "permutation", "x", "y"],
            "properties": {
                "type": {"type": "integer", "enum": [1]},
                "player_num": SEAT,
                "piece_num": PIECE,
                "permutation": PERMUTATION,
                "x": COORDINATE,
                "y": COORDINATE,
            },
        },
    ]
}
SQUARE_SAVE = {
    "type": "object",
    "required": ["board", "moves"],
    "properties": {
        "board": {"type": "array", "items": SAVE_BOARD_ENTRY, "maxItems": MAX_SAVE_ENTRIES},
        "moves": {"type": "array", "items": SAVE_MOVE_ENTRY, "maxItems": MAX_SAVE_ENTRIES},
    },
    "description": "A save of the original simulator; the rules replay it and name any entry "
    "they refuse.",
}


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "players": {
                "type": "integer",
                "minimum": 2,
                "maximum": 4,
                "default": 2,
                "nullable": True,
                "description": "2 to 4 (omitted or null: 2).",
            },
            "save": {**SQUARE_SAVE, "nullable": True},
            "away_ms": {
                "type": "integer",
                "minimum": 10_000,
                "maximum": 86_400_000,
                "default": 120_000,
                "nullable": True,
                "description": "How long a seat may stay away on its turn (no move, no page "
                "open) before another seat may end a rated game because it left (end_left); "
                "two minutes by default.",
            },
        },
    }
)
class SquareOptionsField(serializers.DictField):
    """The options of a Square Game (checked by its rules)."""


class SquareGameCreateRequest(GameCreateCommon):
    kind = serializers.ChoiceField(choices=["square"])
    options = SquareOptionsField(required=False, help_text="Players, and a save to continue.")


class PassAction(serializers.Serializer):
    type = serializers.ChoiceField(choices=["pass"], help_text="Square Game: pass.")


class PlaceAction(serializers.Serializer):
    type = serializers.ChoiceField(
        choices=["place", "opening"],
        help_text="Square Game: place a piece; the opening is the last seat's first placement, "
        "at (15, 15), so x and y may be left out.",
    )
    piece = serializers.IntegerField(min_value=1, max_value=16)
    permutation = serializers.IntegerField(min_value=1, max_value=8)
    x = serializers.IntegerField(required=False, allow_null=True)
    y = serializers.IntegerField(required=False, allow_null=True)


CREATE_REQUESTS["square"] = SquareGameCreateRequest
ACTIONS.extend([PassAction, PlaceAction])
