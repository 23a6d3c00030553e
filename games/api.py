"""The games JSON API: create, list, join, read, act, read the log, export.

Views only translate HTTP into service and selector calls; errors become 4xx JSON bodies in
games.errors.api_exception_handler.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from games import limits, runtime, selectors, services
from games import serializers as s
from games.auth import SeatTokenAuthentication, acting_seat, session_player_for_write
from games.errors import Forbidden
from games.models import Game, Player
from games.schema import (
    ERROR_RESPONSES,
    FORBIDDEN_RESPONSES,
    JSON_BODY,
    JSON_BODY_RESPONSES,
    NOT_FOUND_RESPONSES,
    RATE_LIMITED_RESPONSES,
    TOKEN_RESPONSES,
)

AUTH = [SeatTokenAuthentication, SessionAuthentication]
NOT_FOUND = {**NOT_FOUND_RESPONSES, **TOKEN_RESPONSES}
"""Every view that reads a seat token may also answer 401 for a token that is not valid."""


def create_game(request, data) -> dict:
    """Create a game (GameListView.post, and games.api_fast in front of Django): the new game's
    summary. A join of the client's (limits), then the body's checks, then the write."""
    limits.check_join(request)
    checked = s.GameCreateRequest(data=data)
    checked.is_valid(raise_exception=True)
    game = services.game_create(
        kind=checked.validated_data["kind"],
        options=checked.validated_data["options"],
        seed=checked.validated_data.get("seed"),
        is_open=checked.validated_data["open"],
    )
    return selectors.game_summary(game)


def join_game(request, game_id, data, session_player) -> dict:
    """Seat a player (JoinView.post, and games.api_fast): the token, the seat and the game.
    `session_player(request)` is the browser's player, if any; else a new player is made."""
    game_id = selectors.existing_game_id(game_id)
    limits.check_join(request)
    checked = s.JoinRequest(data=data)
    checked.is_valid(raise_exception=True)
    name = checked.validated_data["name"]
    player = session_player(request) or Player.objects.create(name=name)
    return join_answer(game_id, player, name)


def join_answer(game_id: int, player: Player, name: str) -> dict:
    """Seat the player and answer as the API does: the token, the seat and the game."""
    seat = services.game_join(game_id=game_id, player=player, name=name)
    return {
        "token": seat.token,
        "seat": selectors.seat_json(seat),
        "game": selectors.game_summary(selectors.game_row(game_id)),
    }


def _optional_seat(request, game: Game):
    try:
        return acting_seat(request, game.pk)
    except Forbidden:
        return None


class GameListView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Games"],
        summary="List games",
        parameters=[s.GameListQuery],
        responses={200: s.GameOut(many=True), **ERROR_RESPONSES, **TOKEN_RESPONSES},
    )
    def get(self, request):
        query = s.GameListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        games = selectors.game_list(
            kind=query.validated_data.get("kind"),
            status=query.validated_data.get("status"),
            is_open=query.validated_data.get("open"),
        )[: min(max(query.validated_data["limit"], 1), 200)]
        return Response([selectors.game_summary(game) for game in games])

    @extend_schema(
        tags=["Games"],
        summary="Create a game",
        request=s.GAME_CREATE_REQUEST,
        responses={
            201: s.GameOut,
            **JSON_BODY_RESPONSES,
            **TOKEN_RESPONSES,
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request):
        return Response(create_game(request, request.data), status=status.HTTP_201_CREATED)


class GameDetailView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Read a game as your seat sees it",
        description="Without a token (or session seat) you see what a watcher sees.",
        responses={200: s.GameDetailOut, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        now = services.now_ms()
        game = selectors.game_fresh(game_id, now)
        seat = _optional_seat(request, game)
        body = selectors.game_summary(game)
        body["view"] = selectors.game_view(game, seat_name=seat.name if seat else None, now=now)
        body["seat"] = selectors.seat_json(seat) if seat else None
        body["watching"] = runtime.watchers(game.pk)
        return Response(body)


class JoinView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Games"],
        summary="Join a game",
        description="Returns the seat token: send it as 'Authorization: Token <token>' to act.",
        request=s.JoinRequest,
        responses={
            201: s.JoinOut,
            **JSON_BODY_RESPONSES,
            **NOT_FOUND,
            **FORBIDDEN_RESPONSES,
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request, game_id: int):
        answer = join_game(request, game_id, request.data, session_player_for_write)
        return Response(answer, status=status.HTTP_201_CREATED)


class ComputerView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Games"],
        summary="Seat a computer player",
        description=(
            "Only a seated player may add computers. The computer finds a set after a delay "
            "around its speed and plays through the same rules as a person."
        ),
        request=s.ComputerRequest,
        responses={
            201: s.SeatOut,
            **JSON_BODY_RESPONSES,
            **NOT_FOUND,
            **FORBIDDEN_RESPONSES,
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request, game_id: int):
        game = selectors.game_get(game_id)
        acting_seat(request, game.pk)
        limits.check_join(request)
        data = s.ComputerRequest(data=request.data)
        data.is_valid(raise_exception=True)
        seat = services.seat_add_computer(game_id=game.pk, speed=data.validated_data["speed"])
        return Response(selectors.seat_json(seat), status=status.HTTP_201_CREATED)


class MovesView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Games"],
        summary="Read the move log",
        parameters=[s.MovesQuery],
        responses={200: s.MoveOut(many=True), **ERROR_RESPONSES, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id)
        query = s.MovesQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        since = query.validated_data["since"]
        moves = selectors.moves_list(game, since=since).select_related("seat")
        return Response([selectors.move_json(move) for move in moves])

    @extend_schema(
        tags=["Games"],
        summary="Submit an action for your seat",
        request=s.ACTION_REQUEST,
        responses={
            200: s.ActionOut,
            **JSON_BODY_RESPONSES,
            **NOT_FOUND,
            **FORBIDDEN_RESPONSES,
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request, game_id: int):
        seat = acting_seat(request, game_id)
        data = s.ActionRequest(data=request.data)
        data.is_valid(raise_exception=True)
        now = services.now_ms()
        result = services.seat_move(game_id=game_id, seat=seat, action=data.validated_data, now=now)
        return Response(selectors.move_reply(result, seat_name=seat.name, now=now))


class ReplayView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Replay a game step by step",
        description=(
            "Rebuilds the game from its seed, options and move log; step 0 is the deal, then one "
            "step per move, each with the board as a watcher saw it. Long games (a Set War "
            "draw has 10,001 steps) read best page by page: give `start` and/or `limit`."
        ),
        parameters=[s.ReplayQuery],
        responses={200: s.ReplayOut, **ERROR_RESPONSES, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id)
        page = {}
        if "start" in request.query_params or "limit" in request.query_params:
            query = s.ReplayQuery(data=request.query_params)
            query.is_valid(raise_exception=True)
            page = query.validated_data
        return Response(selectors.game_replay(game, **page))


class ExportView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Export a game: seed, options, state and the whole move log",
        description=(
            "While the game is being played, the seed, a fixed deck and the state are withheld "
            "(they would tell the cards to come); they are included once it is over."
        ),
        responses={200: s.ExportOut, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id)
        staff = bool(getattr(request.user, "is_staff", False))
        full = staff or game.status == Game.Status.OVER
        export = selectors.game_export(game, full=full)
        response = JsonResponse(export, json_dumps_params={"indent": 2})
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.json"'
        return response


@csrf_exempt  # it changes nothing, and a POST to a wrong address deserves a JSON 404 too
def not_found(request, path: str = ""):
    """Any other address under /api/: a JSON 404 like the API's own, not Django's HTML page.

    It catches game ids that are not numbers (`/api/games/abc/`) too. As Django would for an
    address without one, a GET or HEAD that only lacks its final slash is redirected.
    """
    if settings.APPEND_SLASH and not request.path_info.endswith("/"):
        try:
            match = resolve(request.path_info + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not not_found:
            if request.method in ("GET", "HEAD"):
                query = request.META.get("QUERY_STRING", "")
                return HttpResponsePermanentRedirect(
                    request.path + "/" + (f"?{query}" if query else "")
                )
            return JsonResponse(
                {"detail": f"No API endpoint at {request.path}; did you mean {request.path}/?"},
                status=404,
            )
    return JsonResponse(
        {"detail": f"No API endpoint at {request.path}; the API is described at /api/docs/."},
        status=404,
    )
