"""The Set War JSON API: play and store a game, read it back, and read its rounds page by page.

``POST /api/setwar/`` plays a whole game (it has no decisions) and stores it with one move per
round; ``GET /api/setwar/<id>/`` is its summary and ``GET /api/setwar/<id>/rounds`` its round
log. Views only translate HTTP into service and selector calls; bad input becomes a 400 whose
``detail`` names the field and says what is wrong in a sentence (``cards: Card 2 is '0123': a
card is four digits 0-2.``); the command line keeps the spec's (``error: invalid card: 0123``).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response

from cards.api import SetView
from cards.engine.setwar import SetWarError
from cards.setwar import selectors
from cards.setwar.rules import MAX_PLAYERS, clean_cards, clean_players
from cards.setwar.services import setwar_run
from games import limits
from games.errors import RuleError
from games.schema import (
    ERROR_RESPONSES,
    JSON_BODY,
    JSON_BODY_RESPONSES,
    NOT_FOUND_RESPONSES,
    RATE_LIMITED_RESPONSES,
)
from games.serializers import QueryIntegerField, StrictIntegerField

TAGS = ["Set War"]
NOT_FOUND = {404: NOT_FOUND_RESPONSES[404]}


# --- request and response shapes ---------------------------------------------------------------


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer", "minimum": 1, "maximum": MAX_PLAYERS},
            {
                "type": "string",
                "pattern": r"^\s*0*([1-9][0-9]{0,5}|1000000)\s*$",
                "description": "Digits, as the command-line program reads them.",
            },
        ],
        "example": 2,
    }
)
class PlayerCountField(serializers.Field):
    """A whole number of players, at least 1 (a string of digits is read like the program)."""

    def to_internal_value(self, data):
        try:
            return clean_players(data)
        except (SetWarError, RuleError) as error:
            raise serializers.ValidationError(str(error)) from error

    def to_representation(self, value):
        return value


@extend_schema_field(
    {
        "oneOf": [
            {
                "type": "string",
                "pattern": r"^\s*[012]{4}(\s+[012]{4})*\s*$",
                "example": "0020 2220 1222 0211",
            },
            {
                "type": "array",
                "items": {"type": "string", "pattern": "^[012]{4}$", "example": "0020"},
                "minItems": 1,
                "maxItems": 81,
                "uniqueItems": True,
            },
        ]
    }
)
class CardsField(serializers.Field):
    """Cards, top of the deck first: one string separated by whitespace, or a list."""

    def to_internal_value(self, data):
        try:
            return clean_cards(data)
        except (SetWarError, RuleError) as error:
            raise serializers.ValidationError(str(error)) from error

    def to_representation(self, value):
        return value


class SetWarCreateRequest(serializers.Serializer):
    players = PlayerCountField(help_text="How many players, at least 1.")
    cards = CardsField(
        required=False,
        allow_null=True,
        default=None,
        help_text=(
            "The cards, top of the deck first, each four digits from 0, 1, 2 (number, color, "
            "shading, shape): a string separated by spaces or newlines, as the command-line "
            "program reads it, or a list. Omitted or null: the 81 cards shuffled by `seed`."
        ),
    )
    seed = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=2**62,
        help_text="Shuffle seed when no cards are given (random if omitted).",
    )


class SetWarPlayOut(serializers.Serializer):
    player = serializers.IntegerField(help_text="Who played the card (players count from 0).")
    card = serializers.CharField(help_text="The card, four digits (number, color, shading, shape).")


class SetWarRoundOut(serializers.Serializer):
    number = serializers.IntegerField(help_text="The round's number, from 1.")
    plays = SetWarPlayOut(many=True, help_text="The cards played onto the line, in order.")
    taker = serializers.IntegerField(help_text="The player who took the line.")
    piles = serializers.ListField(
        child=serializers.IntegerField(), help_text="Each player's pile size after the round."
    )
    set_cards = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="The set that won the round (null when it ended by elimination).",
    )
    out = serializers.ListField(
        child=serializers.IntegerField(), help_text="Players who ran out in this round."
    )


class SetWarGameOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.CharField()
    players = serializers.IntegerField()
    seed = serializers.IntegerField()
    shuffled = serializers.BooleanField(help_text="Whether the deck was shuffled by the seed.")
    deck = serializers.ListField(
        child=serializers.CharField(), help_text="The cards dealt, top of the deck first."
    )
    dealt = serializers.ListField(
        child=serializers.IntegerField(), help_text="Each player's pile size after the deal."
    )
    rounds = serializers.IntegerField(help_text="The round the game ended in (or 10000).")
    winner = serializers.IntegerField(allow_null=True, help_text="Null for a draw.")
    draw = serializers.BooleanField()
    final_line = serializers.CharField(
        help_text="What the command-line program prints: `Player 1 won in 110 rounds.`"
    )
    piles = serializers.ListField(
        child=serializers.IntegerField(), help_text="Each player's pile size at the end."
    )
    url = serializers.CharField(help_text="The browser viewer of this game.")
    api_url = serializers.CharField()
    rounds_url = serializers.CharField(help_text="The round log, page by page.")
    created = serializers.DateTimeField()


class SetWarRoundsQuery(serializers.Serializer):
    start = QueryIntegerField(
        required=False, default=0, min_value=0, help_text="Rounds to skip (0: from round 1)."
    )
    limit = QueryIntegerField(
        required=False,
        default=selectors.ROUNDS_LIMIT_DEFAULT,
        min_value=1,
        max_value=selectors.ROUNDS_LIMIT_MAX,
        help_text=(
            f"Rounds per page (default {selectors.ROUNDS_LIMIT_DEFAULT}, "
            f"at most {selectors.ROUNDS_LIMIT_MAX})."
        ),
    )


class SetWarRoundsOut(serializers.Serializer):
    game = serializers.IntegerField()
    start = serializers.IntegerField()
    limit = serializers.IntegerField()
    total = serializers.IntegerField(help_text="How many rounds the game has.")
    next = serializers.CharField(allow_null=True, help_text="The next page, or null.")
    rounds = SetWarRoundOut(many=True)


# --- views -------------------------------------------------------------------------------------


class SetWarCreateView(SetView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Play a game of Set War and store it",
        description=(
            "Deals the cards (or the 81 cards shuffled by the seed) to the players, plays the "
            "game to its end and stores it with one move per round. The answer has the result "
            "as the command-line program prints it and the address of the browser viewer."
        ),
        request=SetWarCreateRequest,
        responses={201: SetWarGameOut, **JSON_BODY_RESPONSES, **RATE_LIMITED_RESPONSES},
        examples=[
            OpenApiExample(
                "The worked example (c5)",
                value={"players": 2, "cards": "0000 1111 1000 2222 1112 0001 0120 2220"},
                request_only=True,
            ),
            OpenApiExample("A shuffled deck", value={"players": 4, "seed": 7}, request_only=True),
        ],
    )
    def post(self, request):
        limits.check_join(request)
        data = SetWarCreateRequest(data=request.data)
        data.is_valid(raise_exception=True)
        game = setwar_run(
            players=data.validated_data["players"],
            cards=data.validated_data.get("cards"),
            seed=data.validated_data.get("seed"),
        )
        return Response(selectors.setwar_summary(game), status=status.HTTP_201_CREATED)


class SetWarDetailView(SetView):
    @extend_schema(
        tags=TAGS,
        summary="Read a stored Set War game: the deal and the result",
        responses={200: SetWarGameOut, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        return Response(selectors.setwar_summary(selectors.setwar_get(game_id)))


class SetWarRoundsView(SetView):
    @extend_schema(
        tags=TAGS,
        summary="Read a Set War game's rounds, page by page",
        description=(
            "Each round lists the cards played (who played which, in order), who took the "
            "line, the set that won it and every pile size afterwards. Follow `next` for the "
            "following page."
        ),
        parameters=[SetWarRoundsQuery],
        responses={200: SetWarRoundsOut, **ERROR_RESPONSES, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        game = selectors.setwar_get(game_id)
        query = SetWarRoundsQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(
            selectors.setwar_rounds(
                game, start=query.validated_data["start"], limit=query.validated_data["limit"]
            )
        )
