"""The accounts JSON API, for programs: make an account, get a personal token for one, and
download an account's finished games."""

from __future__ import annotations

import datetime
import json
import unicodedata
from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.contrib.auth import authenticate, get_user_model, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import logins
from accounts import serializers as s
from accounts.selectors import account_named, name_taken
from accounts.tokens import token_create
from accounts.validators import NameTaken, validate_username
from games import bots, limits, profiles, selectors
from games.auth import BearerAuthentication
from games.errors import Conflict
from games.models import BotAccount, Game, Seat
from games.parsers import NDJSON, AnyAccept
from games.schema import (
    ERROR_RESPONSES,
    JSON_BODY,
    JSON_BODY_RESPONSES,
    RATE_LIMITED_RESPONSES,
    error_response,
)

TAGS = ["Accounts"]
API_TOKEN_NAME = "api"


def _credentials(data) -> tuple[str, str]:
    checked = s.CredentialsRequest(data=data)
    checked.is_valid(raise_exception=True)
    username = unicodedata.normalize("NFC", checked.validated_data["username"])
    return username, checked.validated_data["password"]


class AuthTokenView(APIView):
    authentication_classes = []  # the body carries the credentials; no session, no CSRF
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Get a personal token for an account",
        description=(
            "Checks the account's name and password and makes a new personal token named "
            f'"{API_TOKEN_NAME}" (the account can revoke it on /accounts/tokens/). Failed logins '
            "are counted per account and per client address, with the log-in form's and the "
            "admin's (RATE_LIMIT_ACCOUNT_LOGINS, RATE_LIMIT_LOGINS): over either, every login is "
            "refused with a 429 and Retry-After, a correct password too, until the window ends."
        ),
        auth=[],
        request=s.CredentialsRequest,
        responses={
            200: s.TokenOut,
            **JSON_BODY_RESPONSES,
            401: error_response("No account has that name and password."),
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request):
        username, password = _credentials(request.data)
        logins.login_check(request=request._request, username=username)
        user = authenticate(request._request, username=username, password=password)
        if user is None:
            raise exceptions.AuthenticationFailed("No account has that name and password.")
        _, token = token_create(user=user, name=API_TOKEN_NAME)
        return Response({"token": token})

    def get_authenticate_header(self, request):
        # A 401 stays a 401 (DRF answers 403 where no scheme is named).
        return "Bearer"


class AccountListView(APIView):
    authentication_classes = []
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Create an account",
        description=(
            "A name of 1 to 20 characters (letters of any script, digits, '_' and '-'), unique "
            "among accounts (names that look alike, in any case, are one name: Unicode's "
            "confusable skeletons), and a password the site's password rules accept. Counted "
            "with the sign-up form's in the client address's sign-up limit (RATE_LIMIT_SIGNUPS). "
            "Answers the account's name and a personal token for it."
        ),
        auth=[],
        request=s.CredentialsRequest,
        responses={
            201: s.AccountOut,
            **JSON_BODY_RESPONSES,
            409: error_response("An account already has that name, or one that looks like it."),
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request):
        username, password = _credentials(request.data)
        limits.check("signups", limits.client_address(request.META))
        try:
            validate_username(username)
        except DjangoValidationError as exc:
            raise exceptions.ValidationError({"username": list(exc.messages)}) from None
        users = get_user_model()
        taken = NameTaken(username).message
        if name_taken(username):
            raise Conflict(taken)
        try:
            password_validation.validate_password(password, user=users(username=username))
        except DjangoValidationError as exc:
            raise exceptions.ValidationError({"password": list(exc.messages)}) from None
        try:
            # The account, its name row (accounts.signals) and its token, or nothing.
            with transaction.atomic():
                user = users.objects.create_user(username=username, password=password)
                _, token = token_create(user=user, name=API_TOKEN_NAME)
        except (IntegrityError, NameTaken):
            raise Conflict(taken) from None  # made meanwhile by another request
        return Response(
            {"username": user.get_username(), "token": token}, status=status.HTTP_201_CREATED
        )


class UserView(APIView):
    authentication_classes = []  # public, as the profile page is

    @extend_schema(
        tags=TAGS,
        summary="An account's ratings and statistics",
        description=(
            "The account's rating in each rated mode it has played, and its totals over its "
            "finished games, as its profile page (/u/{name}) shows them. The name is compared "
            "as names are (a name that looks like it, in any case, finds it)."
        ),
        auth=[],
        responses={
            200: s.UserOut,
            **ERROR_RESPONSES,
            404: error_response("No account has that name."),
        },
        examples=[
            OpenApiExample(
                "An account",
                response_only=True,
                value={
                    "name": "Zoë",
                    "bot": False,
                    "computer_speed": None,
                    "ratings": {"set-declare": {"rating": 1612, "games": 7}},
                    "stats": {
                        "games_played": 9,
                        "games_won": 5,
                        "sets_found": 112,
                        "wrong_claims": 6,
                        "seconds_per_set": {"count": 112, "mean": 7.41, "best": 0.9},
                        "solitaire_seconds": {"count": 2, "mean": 388.5, "best": 341.2},
                        "puzzle_seconds": {"count": 3, "mean": 74.2, "best": 41.5},
                    },
                },
            )
        ],
    )
    def get(self, request, name: str):
        user = account_named(name)
        bot = BotAccount.objects.filter(user=user).first()
        return Response(
            {
                "name": user.get_username(),
                "bot": bot is not None,
                "computer_speed": (bot.speed or None) if bot is not None else None,
                "ratings": profiles.account_ratings(user),
                "stats": profiles.account_stats(user),
            }
        )


class BotUpgradeView(APIView):
    # The account's own token only: a browser never makes its account a bot by a stray click.
    authentication_classes = [BearerAuthentication]
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Make the account a bot, for good",
        description=(
            "Turns the account of the Bearer token into a bot account: it plays by program, "
            "through the API only (its browser sessions may not take a seat or play from the "
            "pages), never writes in the lobby's chat, and is marked BOT wherever its name shows "
            "(seats' `bot`, lists, its profile); leaderboards list people by default and bots "
            "with `?bots=1`. Only an account that has played no game can become one, and there "
            "is no way back."
        ),
        request=s.BotUpgradeRequest,
        responses={
            200: s.BotOut,
            **JSON_BODY_RESPONSES,
            400: error_response(
                f"{bots.PLAYED} Or: {bots.ALREADY} Or a malformed body: `detail` says how."
            ),
            401: error_response("Authentication credentials were not provided."),
        },
        examples=[
            OpenApiExample("Upgraded", response_only=True, value={"name": "setbot-9", "bot": True})
        ],
    )
    def post(self, request):
        s.BotUpgradeRequest(data=request.data).is_valid(raise_exception=True)  # a JSON object
        if not getattr(request.user, "is_authenticated", False):
            raise exceptions.NotAuthenticated()
        bots.bot_upgrade(user=request.user)
        return Response({"name": request.user.get_username(), "bot": True})


GAMES_PER_BATCH = 50
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def _finished_games(user, *, since_ms: int | None, private: bool):
    """The account's finished games, newest first: one of their seats is one of its players;
    its `private` ones (by link only) only when asked by the account itself."""
    games = Game.objects.filter(
        status=Game.Status.OVER,
        finished__isnull=False,
        pk__in=Seat.objects.filter(player__user=user).values("game_id"),
    )
    if not private:
        games = games.filter(link_key="")
    if since_ms is not None:
        games = games.filter(finished__gte=EPOCH + datetime.timedelta(milliseconds=since_ms))
    return games.prefetch_related(
        selectors.seats_with_players(), selectors.moves_with_seats(), selectors.chat_with_games()
    ).order_by("-finished", "-id")


def _batches(games, limit: int | None) -> Iterator[list[str]]:
    """The games' NDJSON lines, a batch of games at a time (at most `limit` games in all).

    Each batch is a query of its own that starts after the last game sent (newest first, by
    finish and id), so no cursor is held open between batches: under ASGI every request's sync
    code shares one thread and its database connection (config.asgi), and other requests run
    between two batches of a long download. A batch's moves are one query (moves_with_seats), and
    so is its chat (chat_with_games).
    """
    sent = 0
    after = None
    while limit is None or sent < limit:
        batch = games
        if after is not None:
            finished, pk = after
            batch = batch.filter(Q(finished__lt=finished) | Q(finished=finished, pk__lt=pk))
        size = GAMES_PER_BATCH if limit is None else min(GAMES_PER_BATCH, limit - sent)
        rows = list(batch[:size])
        if not rows:
            return
        yield [
            json.dumps(selectors.game_export(game, full=True), cls=DjangoJSONEncoder) + "\n"
            for game in rows
        ]
        sent += len(rows)
        after = (rows[-1].finished, rows[-1].pk)


def _lines(games, limit: int | None) -> Iterator[str]:
    for batch in _batches(games, limit):
        yield from batch


async def _alines(games, limit: int | None) -> AsyncIterator[str]:
    """The lines for an ASGI server: Django would read a sync iterator whole before sending."""
    batches = _batches(games, limit)
    while True:
        batch = await sync_to_async(next)(batches, None)
        if batch is None:
            return
        for line in batch:
            yield line


class UserGamesView(APIView):
    # Public, as the games and their exports are; the account itself (its token, or its signed-in
    # browser) also gets its private games.
    authentication_classes = [BearerAuthentication, SessionAuthentication]
    content_negotiation_class = AnyAccept

    @extend_schema(
        tags=TAGS,
        summary="Download an account's finished games as NDJSON",
        description=(
            "Streams every finished game one of the account's players sat at, newest first (by "
            "when it finished), as NDJSON: one game a line, each as "
            "`GET /api/games/{game_id}/export` answers it (seed, options, state, the whole "
            "move log and the chat). Its private games (by link only) come only to the account "
            "itself (its token, or its signed-in browser). The account's name is compared as "
            "names are. The download "
            "is streamed, so a year of games comes without the server holding it; an account "
            "without "
            "finished games answers an empty body."
        ),
        auth=[],
        parameters=[s.UserGamesQuery],
        responses={
            (200, NDJSON): OpenApiResponse(
                OpenApiTypes.STR,
                description="One game a line, each a JSON object as the game's export.",
            ),
            **ERROR_RESPONSES,
            404: error_response("No account has that name."),
        },
    )
    def get(self, request, name: str):
        user = account_named(name)
        query = s.UserGamesQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        reader = request.user if getattr(request.user, "is_authenticated", False) else None
        own = reader is not None and (reader.pk == user.pk or reader.is_staff)
        games = _finished_games(user, since_ms=query.validated_data.get("since"), private=own)
        limit = query.validated_data.get("max")
        if isinstance(request._request, ASGIRequest):
            lines = _alines(games, limit)
        else:
            lines = _lines(games, limit)
        response = StreamingHttpResponse(lines, content_type=NDJSON)
        response["Content-Disposition"] = f'attachment; filename="games-{user.pk}.ndjson"'
        return response
