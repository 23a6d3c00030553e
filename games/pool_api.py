"""The API of Play now: ``POST /api/pool`` waits in a pool, ``DELETE /api/pool`` leaves it,
``GET /api/pool`` says where one waits and how many wait in each pool.

Views only translate: games.pool decides; errors become 4xx JSON sentences in the one exception
handler (games.errors).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from games import limits, pool, runtime, tournaments
from games.auth import (
    AccountGrant,
    BearerAuthentication,
    account_player,
    credential_of,
    joining_player,
    session_player,
)
from games.schema import (
    JSON_BODY,
    JSON_BODY_RESPONSES,
    RATE_LIMITED_RESPONSES,
    error_response,
)

TAGS = ["Play now"]
NOBODY = (
    "Nobody to seat: send 'Authorization: Bearer <token>' (an account's personal token), sign "
    "in, or choose a name in the lobby first (a guest plays casual)."
)
WHO = {401: error_response(NOBODY)}


class PoolRequest(serializers.Serializer):
    kind = serializers.CharField(help_text="The game: 'set' or 'square'.")
    options = serializers.DictField(
        required=False,
        default=dict,
        help_text=(
            "`mode`: a rated mode of the kind, as `GET /api/pool` lists them under `modes` "
            "(default its first: set-classic, square); `rated`: true or false (default false; "
            "rated pools are for accounts)."
        ),
    )


class WaitingOut(serializers.Serializer):
    pool = serializers.CharField(help_text="The pool's key: kind:mode:rated or kind:mode:casual.")
    kind = serializers.CharField()
    mode = serializers.CharField()
    rated = serializers.BooleanField()
    rating = serializers.IntegerField(help_text="Your rating in the mode, as pairing reads it.")
    since = serializers.DateTimeField()
    waited_s = serializers.FloatField()


class SeatedOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    url = serializers.CharField(help_text="Its page (with its key: a Play now table is private).")
    pool = serializers.CharField()


class PoolOut(serializers.Serializer):
    waiting = WaitingOut(allow_null=True, help_text="Where you wait; null: nowhere.")
    seated = SeatedOut(
        allow_null=True, help_text="The table a pool seated you at last, while it is played."
    )
    pools = serializers.DictField(
        child=serializers.IntegerField(), help_text="How many wait in each pool (those not empty)."
    )
    modes = serializers.DictField(help_text="The kinds and modes of Play now, with their names.")
    kinds = serializers.DictField(
        child=serializers.CharField(), help_text="The kinds of Play now, with their names."
    )
    wait_limit_s = serializers.FloatField(
        help_text="After this wait, whoever of 2 or more is closest in rating sits down."
    )


class LeftOut(serializers.Serializer):
    left = serializers.BooleanField(help_text="Whether you were waiting (false: nowhere).")


STATE_EXAMPLE = OpenApiExample(
    "Waiting in a pool",
    response_only=True,
    value={
        "waiting": {
            "pool": "set:set-classic:rated",
            "kind": "set",
            "mode": "set-classic",
            "rated": True,
            "rating": 1500,
            "since": "2026-11-27T03:00:00.000000+00:00",
            "waited_s": 2.4,
        },
        "seated": None,
        "pools": {"set:set-classic:rated": 3, "square:square:casual": 1},
        "modes": {"set": {"set-classic": "Set classic"}, "square": {"square": "Square Game"}},
        "kinds": {"set": "Set", "square": "Square Game"},
        "wait_limit_s": 10.0,
    },
)


def _player(request, *, write: bool):
    """Who the request is: its account's player (an account's token, a signed-in browser), or
    its browser's guest player; a 401 for a request with neither."""
    if write:  # a browser's write carries its CSRF token
        player = joining_player(request)
    elif isinstance(request.auth, AccountGrant):
        player = account_player(request.auth.user, create=True)
    else:
        player = session_player(request)
    if player is None:
        raise exceptions.NotAuthenticated(NOBODY)
    return player


class PoolView(APIView):
    authentication_classes = [BearerAuthentication, SessionAuthentication]
    permission_classes = []
    parser_classes = JSON_BODY

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        pool.pool_resume()  # after a restart, the first pool request pairs who still waits

    @extend_schema(
        tags=TAGS,
        summary="Where you wait, and how many wait in each pool",
        responses={200: PoolOut, **WHO},
        examples=[STATE_EXAMPLE],
    )
    def get(self, request):
        return Response(pool.pool_state(_player(request, write=False)))

    @extend_schema(
        tags=TAGS,
        summary="Play now: wait in a pool for a table",
        description=(
            "Puts you in the pool of a kind and mode, rated or casual, and answers 202 at once. "
            "You are seated with players close in rating, 2 to 4 at a table: a table starts as "
            "soon as 4 wait, or once someone has waited POOL_WAIT_LIMIT_S (10 s) with whoever "
            "of 2 or more is closest; the rating gap accepted widens the longer one waits. "
            "Two accounts of whom one blocked the other never sit together. When you are "
            'seated, your event stream (`GET /api/stream/event`) and open pages get `{"type": '
            '"gameStart", "game": {"id", "kind", "url", "pool"}}`; `GET /api/pool` says it '
            "too (`seated`). You wait in one pool at most: a second POST moves you.\n\n"
            "Try it: `curl -X POST -H 'Authorization: Bearer $TOKEN' -H 'Content-Type: "
            'application/json\' -d \'{"kind": "set", "options": {"mode": "set-classic", '
            '"rated": true}}\' http://127.0.0.1:8000/api/pool`.'
        ),
        request=PoolRequest,
        responses={
            202: PoolOut,
            **JSON_BODY_RESPONSES,
            **WHO,
            403: error_response(
                "A rated pool for a guest, a banned account, or an account that left rated "
                "games too often and waits (`until`)."
            ),
            **RATE_LIMITED_RESPONSES,
        },
        examples=[
            OpenApiExample(
                "Rated Set classic",
                request_only=True,
                value={"kind": "set", "options": {"mode": "set-classic", "rated": True}},
            ),
            OpenApiExample(
                "A casual Square Game",
                request_only=True,
                value={"kind": "square", "options": {"mode": "square", "rated": False}},
            ),
            STATE_EXAMPLE,
        ],
    )
    def post(self, request):
        # A body that is not JSON is named as such (415, 400) whoever sends it, as on every
        # other POST of the API.
        request.data  # noqa: B018 (parsed now: its errors are the answer)
        player = _player(request, write=True)
        checked = PoolRequest(data=request.data)
        checked.is_valid(raise_exception=True)
        pool.play_now_pool(checked.validated_data["kind"], checked.validated_data["options"])
        limits.check("joins", limits.client_address(request.META))
        # Out of its arenas for the while (games.tournaments), in the transaction that puts it
        # in the pool: a Play now refused (a ban, a rated wait) leaves its arenas as they were.
        with runtime.write_transaction():
            if player.user_id is not None:
                tournaments.arenas_pause(user=player.user)
            pool.play_now_enter(
                player=player,
                kind=checked.validated_data["kind"],
                options=checked.validated_data["options"],
                credential=credential_of(request),
            )
        return Response(pool.pool_state(player), status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        tags=TAGS,
        summary="Leave the pool you wait in",
        request=None,
        responses={200: LeftOut, **WHO},
        examples=[OpenApiExample("Left", response_only=True, value={"left": True})],
    )
    def delete(self, request):
        player = _player(request, write=True)
        return Response({"left": pool.pool_leave(player=player) > 0})
