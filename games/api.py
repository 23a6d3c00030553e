"""The games JSON API: create, list, join, read, act, read the log, export.

Views only translate HTTP into service and selector calls; errors become 4xx JSON bodies in
games.errors.api_exception_handler.
"""

from __future__ import annotations

from django.http import JsonResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from games import limits, runtime, selectors, services
from games import serializers as s
from games.auth import SeatTokenAuthentication, acting_seat, session_player
from games.models import Game, Player
from games.schema import ERROR_RESPONSES, FORBIDDEN_RESPONSES, NOT_FOUND_RESPONSES

AUTH = [SeatTokenAuthentication, SessionAuthentication]
NOT_FOUND = NOT_FOUND_RESPONSES


def _optional_seat(request, game: Game):
    try:
        return acting_seat(request, game)
    except services.Forbidden:
        return None


class GameListView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="List games",
        parameters=[
            OpenApiParameter("kind", str, enum=["set", "setwar", "square"]),
            OpenApiParameter("status", str, enum=[c for c, _ in Game.Status.choices]),
            OpenApiParameter("open", bool, description="Only open (protocol) tables."),
            OpenApiParameter("limit", int, description="At most this many (default 50, max 200)."),
        ],
        responses={200: s.GameOut(many=True), **ERROR_RESPONSES},
    )
    def get(self, request):
        kind = request.query_params.get("kind") or None
        game_status = request.query_params.get("status") or None
        if game_status and game_status not in Game.Status.values:
            raise services.GameError(
                f"Unknown status {game_status!r}; use waiting, active or over."
            )
        is_open = request.query_params.get("open")
        is_open = None if is_open in (None, "") else is_open.lower() in ("1", "true", "yes")
        try:
            limit = min(max(int(request.query_params.get("limit", 50)), 1), 200)
        except ValueError:
            raise services.GameError("limit must be a whole number.") from None
        games = selectors.game_list(kind=kind, status=game_status, is_open=is_open)[:limit]
        return Response([selectors.game_summary(game) for game in games])

    @extend_schema(
        tags=["Games"],
        summary="Create a game",
        request=s.GameCreateRequest,
        responses={201: s.GameOut, **ERROR_RESPONSES},
    )
    def post(self, request):
        limits.check("joins", limits.client_address(request.META))
        data = s.GameCreateRequest(data=request.data)
        data.is_valid(raise_exception=True)
        game = services.game_create(
            kind=data.validated_data["kind"],
            options=data.validated_data["options"],
            seed=data.validated_data.get("seed"),
            is_open=data.validated_data["open"],
        )
        return Response(selectors.game_summary(game), status=status.HTTP_201_CREATED)


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

    @extend_schema(
        tags=["Games"],
        summary="Join a game",
        description="Returns the seat token: send it as 'Authorization: Token <token>' to act.",
        request=s.JoinRequest,
        responses={201: s.JoinOut, **ERROR_RESPONSES, **NOT_FOUND, **FORBIDDEN_RESPONSES},
    )
    def post(self, request, game_id: int):
        game = selectors.game_get(game_id)
        limits.check("joins", limits.client_address(request.META))
        data = s.JoinRequest(data=request.data)
        data.is_valid(raise_exception=True)
        name = data.validated_data["name"]
        player = session_player(request) or Player.objects.create(name=name)
        seat = services.game_join(game_id=game.pk, player=player, name=name)
        game.refresh_from_db()
        return Response(
            {
                "token": seat.token,
                "seat": selectors.seat_json(seat),
                "game": selectors.game_summary(game),
            },
            status=status.HTTP_201_CREATED,
        )


class ComputerView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Seat a computer player",
        description=(
            "Only a seated player may add computers. The computer finds a set after a delay "
            "around its speed and plays through the same rules as a person."
        ),
        request=s.ComputerRequest,
        responses={201: s.SeatOut, **ERROR_RESPONSES, **NOT_FOUND, **FORBIDDEN_RESPONSES},
    )
    def post(self, request, game_id: int):
        game = selectors.game_get(game_id)
        acting_seat(request, game)
        limits.check("joins", limits.client_address(request.META))
        data = s.ComputerRequest(data=request.data)
        data.is_valid(raise_exception=True)
        seat = services.seat_add_computer(game_id=game.pk, speed=data.validated_data["speed"])
        return Response(selectors.seat_json(seat), status=status.HTTP_201_CREATED)


class MovesView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Read the move log",
        parameters=[OpenApiParameter("since", int, description="Only moves after this seq.")],
        responses={200: s.MoveOut(many=True), **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id)
        try:
            since = int(request.query_params.get("since", 0))
        except ValueError:
            raise services.GameError("since must be a whole number.") from None
        moves = selectors.moves_list(game, since=since).select_related("seat")
        return Response([selectors.move_json(move) for move in moves])

    @extend_schema(
        tags=["Games"],
        summary="Submit an action for your seat",
        request=s.ActionRequest,
        responses={200: s.ActionOut, **ERROR_RESPONSES, **NOT_FOUND, **FORBIDDEN_RESPONSES},
    )
    def post(self, request, game_id: int):
        game = selectors.game_get(game_id)
        seat = acting_seat(request, game)
        limits.check("moves", f"seat:{seat.pk}")
        data = s.ActionRequest(data=request.data)
        data.is_valid(raise_exception=True)
        now = services.now_ms()
        result = services.move_submit(
            game_id=game.pk, seat=seat, action=data.validated_data, now=now
        )
        return Response(
            {
                "outcome": result.outcome,
                "event": result.event,
                "version": result.game.version,
                "view": selectors.game_view(result.game, seat_name=seat.name, now=now),
            }
        )


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
        parameters=[
            OpenApiParameter("start", int, description="The first step to return (default 0)."),
            OpenApiParameter(
                "limit",
                int,
                description="Steps per page (default 200, at most 1000). Without `start` and "
                "`limit`, every step is returned.",
            ),
        ],
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
