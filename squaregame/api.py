"""The Square Game's own JSON routes: a game's save file, and a save imported as a new game.

``GET /api/games/<id>/save`` downloads a Square game, at any moment, in the original simulator's
save format (``{"board": [], "moves": [...]}``, indented by 4 as the original wrote it).
``POST /api/square/import`` takes such a save (plus ``players``, default 4 as in the original
format, and optionally ``seed``) and creates a live game at the loaded position, which people
and computers then join like any other (``POST /api/games/<id>/join``).

Everything else (create, join, moves, the view) is the generic games API with ``kind: square``.
Views only translate HTTP into service and selector calls; errors become 4xx JSON bodies.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from games import limits, selectors, services
from games.auth import BearerAuthentication, SeatTokenAuthentication, check_reach
from games.errors import GameError, RuleError
from games.models import Game
from games.rules import get_rules
from games.schema import (
    ERROR_RESPONSES,
    GAME_KEY,
    JSON_BODY,
    JSON_BODY_RESPONSES,
    NOT_FOUND_RESPONSES,
    RATE_LIMITED_RESPONSES,
    TOKEN_RESPONSES,
)
from games.serializers import GameOut, StrictBooleanField, StrictIntegerField
from squaregame.engine import GameState, dumps_save
from squaregame.rules import MAX_SAVE_ENTRIES, SAVE_PLAYERS_DEFAULT, clean_save
from squaregame.serializers import SAVE_BOARD_ENTRY, SAVE_MOVE_ENTRY

TAGS = ["Square Game"]
AUTH = [SeatTokenAuthentication, BearerAuthentication, SessionAuthentication]

SAMPLE_SAVE = {
    "board": [],
    "moves": [
        {"piece_num": 13, "permutation": 4},
        {"type": 0, "player_num": 1},
        {"type": 1, "player_num": 2, "piece_num": 9, "permutation": 1, "x": 16, "y": 16},
        {"type": 0, "player_num": 2},
    ],
}


class EntryListField(serializers.JSONField):
    """A list of save entries (JSON objects); their fields are checked with the whole save."""


@extend_schema_field({"type": "array", "items": SAVE_BOARD_ENTRY, "maxItems": MAX_SAVE_ENTRIES})
class BoardEntryListField(EntryListField):
    pass


@extend_schema_field({"type": "array", "items": SAVE_MOVE_ENTRY, "maxItems": MAX_SAVE_ENTRIES})
class MoveEntryListField(EntryListField):
    pass


class SquareSaveOut(serializers.Serializer):
    board = BoardEntryListField(
        help_text="Preloaded pieces {player_num, piece_num, permutation, x, y}; [] normally."
    )
    moves = MoveEntryListField(
        help_text=(
            "The successful actions in order: the opening {piece_num, permutation}, placements "
            "{type: 1, player_num, piece_num, permutation, x, y} and passes {type: 0, player_num}."
        )
    )


class SquareImportRequest(SquareSaveOut):
    players = StrictIntegerField(
        min_value=2,
        max_value=4,
        default=SAVE_PLAYERS_DEFAULT,
        help_text="How many seats the game has (a save does not record it; default 4).",
    )
    seed = StrictIntegerField(
        required=False,
        min_value=0,
        max_value=2**62,
        help_text="Seeds the computer players' choices (random if omitted).",
    )
    open = StrictBooleanField(
        default=False,
        help_text=(
            "Listed for anyone to watch and join; if not open (the default), the game is "
            "private: the answer's `key` is in its link, and joins send it as `?key=`."
        ),
    )

    def validate(self, attrs):
        try:
            save = clean_save({"board": attrs.get("board"), "moves": attrs.get("moves")})
        except RuleError as error:
            raise serializers.ValidationError(str(error)) from None
        return {**attrs, **save}


class SquareImportOut(GameOut):
    view = serializers.DictField(help_text="The loaded position, as a watcher sees it.")


def square_game(game_id) -> Game:
    """The Square game with this id, or a 404/400 naming what is wrong."""
    return square_only(selectors.game_get(game_id))


def square_only(game: Game) -> Game:
    """The game if it is a Square game, or a 400 naming what it is."""
    if game.kind != Game.Kind.SQUARE:
        raise GameError(
            f"Game {game.pk} is a {game.get_kind_display()} game; only Square games have a save "
            f"file (every game exports its log at /api/games/{game.pk}/export)."
        )
    return game


def save_text(game: Game) -> str:
    """The game's position as the original save file's text."""
    return dumps_save(GameState.from_dict(game.state["game"]))


def save_response(game: Game) -> HttpResponse:
    response = HttpResponse(save_text(game) + "\n", content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="square-game-{game.pk}.json"'
    return response


class SquareSaveView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=TAGS,
        summary="Download a Square game as the original save file",
        description=(
            "At any moment of the game; saving does not alter it. Nothing in the Square Game "
            "is hidden, so anyone who may see the game may download it (a private game: its "
            "seats and its link's `?key=`). Other kinds answer 400."
        ),
        parameters=[GAME_KEY],
        responses={
            200: SquareSaveOut,
            **ERROR_RESPONSES,
            **NOT_FOUND_RESPONSES,
            **TOKEN_RESPONSES,
        },
        examples=[OpenApiExample("A save", value=SAMPLE_SAVE, response_only=True)],
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id)
        check_reach(request, game)  # before its kind is named: a private game is no game
        return save_response(square_only(game))


class SquareImportView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Continue a saved Square game as a new live game",
        description=(
            "The body is a save file (board and moves) plus `players`. The new game starts at "
            "the loaded position and waits for `players` seats: the k-th to join "
            "(`POST /api/games/<id>/join`) plays seat k of the save. A save the rules refuse "
            "answers 400 naming the entry."
        ),
        request=SquareImportRequest,
        responses={
            201: SquareImportOut,
            **JSON_BODY_RESPONSES,
            **TOKEN_RESPONSES,
            **RATE_LIMITED_RESPONSES,
        },
        examples=[
            OpenApiExample(
                "A save for 4 players", value={**SAMPLE_SAVE, "players": 4}, request_only=True
            )
        ],
    )
    def post(self, request):
        data = SquareImportRequest(data=request.data)
        data.is_valid(raise_exception=True)
        limits.check_join(request)
        values = data.validated_data
        game = services.game_create(
            kind=Game.Kind.SQUARE,
            options={
                "players": values["players"],
                "save": {"board": values["board"], "moves": values["moves"]},
            },
            seed=values.get("seed"),
            is_open=values["open"],
        )
        body = selectors.game_summary(game)
        body["view"] = get_rules(game.kind).view(game.state, None, services.now_ms())
        return Response(body, status=status.HTTP_201_CREATED)
