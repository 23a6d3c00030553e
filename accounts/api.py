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
from games import bots, insights, limits, profiles, selectors
from games.auth import BearerAuthentication
from games.errors import Conflict, GameError
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
                        "race_10_seconds": {"count": 4, "mean": 52.31, "best": 38.07},
                        "race_20_seconds": {"count": 0, "mean": None, "best": None},
                        "race_30_seconds": {"count": 0, "mean": None, "best": None},
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


def _reader_owns(request, user) -> bool:
    """Whether the request is the account's own (its token or signed-in browser) or staff's:
    they see its private games (by link only) counted too."""
    reader = request.user if getattr(request.user, "is_authenticated", False) else None
    return reader is not None and (reader.pk == user.pk or reader.is_staff)


INSIGHTS_EXAMPLE_ROW = {
    "sets": 41,
    "seconds_per_set": 6.8,
    "wrong_claims": 3,
    "wrong_share": 0.068,
    "earlier": {"sets": 19, "seconds_per_set": 7.9, "wrong_claims": 2, "wrong_share": 0.095},
    "later": {"sets": 22, "seconds_per_set": 5.9, "wrong_claims": 1, "wrong_share": 0.043},
}


class InsightsView(APIView):
    # Public, as the profile is; the account itself (or staff) also has its private games counted.
    authentication_classes = [BearerAuthentication, SessionAuthentication]

    @extend_schema(
        tags=TAGS,
        summary="A player's insights: where their sets come fast or slow, and what they miss",
        description=(
            "Over the account's last `games` finished Set games of the normal game (not practice, "
            "other modes, nor tables that favour kinds of set), newest by when they ended: the "
            "totals, then `splits` by kind of set (`differ-1`... how many attributes differ "
            "among the three cards), by board size (`12` for 12 cards or fewer, `15`, `18+`) and "
            "by time since the last deal (`0-5`, `5-15`, `15-30`, `30+` seconds), each row with "
            "sets found, mean seconds per set, wrong claims and their share of claims, for all "
            "the games and for their `earlier` and `later` halves; the `trend` over the games in "
            "up to 10 chunks, oldest first; the three kinds the player `missed` most (its share "
            "of their sets against its share of the sets on the boards they saw) and the options "
            "of a `practice` table that deals those more often (POST /api/games with them). "
            "`definitions` says each figure in a sentence, as the profile page does. Private "
            "games count only for the account itself (its token or signed-in browser)."
        ),
        auth=[],
        parameters=[s.InsightsQuery],
        responses={
            200: s.InsightsOut,
            400: error_response(
                "`games` is not one of 20, 50 or 200; `detail` names the value and the choices."
            ),
            404: error_response("No account has that name."),
        },
        examples=[
            OpenApiExample(
                "Insights over the last 50 games",
                response_only=True,
                value={
                    "name": "Zoë",
                    "games_asked": 50,
                    "games_counted": 2,
                    "choices": list(insights.GAME_CHOICES),
                    "kinds": [
                        {
                            "kind": "set",
                            "games": [812, 640],
                            "definitions": {"kind": "A kind of set is how many attributes..."},
                            "totals": {
                                "games": 2,
                                "sets": 41,
                                "seconds_per_set": 6.8,
                                "wrong_claims": 3,
                                "wrong_share": 0.068,
                            },
                            "splits": [
                                {
                                    "key": "kind",
                                    "title": "By kind of set",
                                    "rows": [
                                        {
                                            "key": "differ-1",
                                            "label": "1 attribute differs",
                                            **INSIGHTS_EXAMPLE_ROW,
                                        }
                                    ],
                                }
                            ],
                            "trend": [
                                {
                                    "games": [1, 1],
                                    "sets": 19,
                                    "seconds_per_set": 7.9,
                                    "wrong_claims": 2,
                                    "wrong_share": 0.095,
                                }
                            ],
                            "missed": [
                                {
                                    "key": "differ-1",
                                    "label": "1 attribute differs",
                                    "sets_found": 2,
                                    "sets_seen": 30,
                                    "found_share": 0.049,
                                    "seen_share": 0.1,
                                    "ratio": 0.488,
                                }
                            ],
                            "practice": {
                                "rules": "classic",
                                "practice": True,
                                "attributes": 4,
                                "favour": ["differ-1"],
                            },
                        }
                    ],
                },
            )
        ],
    )
    def get(self, request, name: str):
        user = account_named(name)
        try:
            games = insights.games_choice(request.query_params.get("games"))
        except insights.BadGames as error:
            raise GameError(str(error)) from None
        answer = insights.account_insights(user, games, private=_reader_owns(request, user))
        return Response(
            {"name": user.get_username(), "choices": list(insights.GAME_CHOICES), **answer}
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


def _batches(
    games, limit: int | None, hidden_players: frozenset = frozenset()
) -> Iterator[list[str]]:
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
            json.dumps(
                selectors.game_export(game, full=True, hidden_players=hidden_players),
                cls=DjangoJSONEncoder,
            )
            + "\n"
            for game in rows
        ]
        sent += len(rows)
        after = (rows[-1].finished, rows[-1].pk)


def _lines(games, limit: int | None, hidden: frozenset = frozenset()) -> Iterator[str]:
    for batch in _batches(games, limit, hidden):
        yield from batch


async def _alines(games, limit: int | None, hidden: frozenset = frozenset()) -> AsyncIterator[str]:
    """The lines for an ASGI server: Django would read a sync iterator whole before sending."""
    batches = _batches(games, limit, hidden)
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
        # The chat of the accounts the reader blocked is left out, as everywhere it reads chat.
        hidden = selectors.blocked_players(reader.pk if reader is not None else None)
        if isinstance(request._request, ASGIRequest):
            lines = _alines(games, limit, hidden)
        else:
            lines = _lines(games, limit, hidden)
        response = StreamingHttpResponse(lines, content_type=NDJSON)
        response["Content-Disposition"] = f'attachment; filename="games-{user.pk}.ndjson"'
        return response
