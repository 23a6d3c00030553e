"""The API of challenges between accounts, of an account's event stream, and of the bots online.

Views only translate: accounts.challenges decides, accounts.events streams; errors become 4xx
JSON sentences in the one exception handler (games.errors).
"""

from __future__ import annotations

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import challenges, events
from accounts.selectors import account_named
from games import selectors
from games.auth import BearerAuthentication, credential_of
from games.errors import RuleError
from games.parsers import NDJSON, AnyAccept
from games.schema import JSON_BODY, JSON_BODY_RESPONSES, error_response

TAGS = ["Challenges"]
AUTH = [BearerAuthentication, SessionAuthentication]
SIGNED_IN = {
    401: error_response(
        "No account: send 'Authorization: Bearer <token>' (an account's personal token), or "
        "sign in (a browser's session, with its CSRF token for a POST)."
    ),
}
NO_ACCOUNT = (
    "No account: send 'Authorization: Bearer <token>' (an account's personal token), or sign in."
)


class AccountView(APIView):
    """A view for an account (its token, or its signed-in browser): anyone else is a 401 that
    says what to send."""

    authentication_classes = AUTH
    permission_classes = [IsAuthenticated]

    def check_permissions(self, request):
        # A body that is not JSON is named as such (415, 400) whoever sends it, as on every
        # other POST of the API.
        if request.method == "POST":
            request.data  # noqa: B018 (parsed now: its errors are the answer)
        super().check_permissions(request)

    def permission_denied(self, request, message=None, code=None):
        if request.authenticators and not request.successful_authenticator:
            raise exceptions.NotAuthenticated(NO_ACCOUNT)
        super().permission_denied(request, message, code)


NO_CHALLENGE = {404: error_response("There is no challenge with that id for you.")}


class ChallengeRequest(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=list(challenges.KINDS), help_text="The table to play: Set or the Square Game."
    )
    options = serializers.DictField(
        required=False,
        default=dict,
        help_text=(
            "The table's options, as `POST /api/games/` takes them and checked by the same code "
            "(a 400 names a bad one), and `rated` (true or false, default false). A Square Game "
            "challenge seats two players."
        ),
    )


class ChallengeOut(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="The challenge in the API (accept, decline, cancel).")
    status = serializers.CharField(
        help_text="created (waiting for its answer), accepted, declined, canceled, or expired "
        "(unanswered in time)."
    )
    challenger = serializers.CharField()
    dest = serializers.CharField(help_text="The account challenged.")
    kind = serializers.CharField()
    options = serializers.DictField(help_text="The table's options as checked, and `rated`.")
    created = serializers.DateTimeField()
    expires = serializers.DateTimeField(help_text="Unanswered by then, it has expired.")
    reason = serializers.CharField(required=False, help_text="Why it was declined.")
    reason_text = serializers.CharField(required=False)
    game = serializers.IntegerField(required=False, help_text="The table an accept made.")


class ChallengeListOut(serializers.Serializer):
    incoming = ChallengeOut(many=True)
    outgoing = ChallengeOut(many=True)


class DeclineRequest(serializers.Serializer):
    reason = serializers.CharField(
        required=False,
        default="generic",
        help_text="One of: " + ", ".join(challenges.DECLINE_REASONS) + " (default generic).",
    )


class AcceptOut(serializers.Serializer):
    game = serializers.IntegerField(help_text="The table made: both accounts sit there.")
    url = serializers.CharField(help_text="Its page (a private table's link, with its key).")


class OnlineBotOut(serializers.Serializer):
    name = serializers.CharField()
    url = serializers.CharField(help_text="The account's profile page.")


CHALLENGE_EXAMPLE = OpenApiExample(
    "A challenge",
    response_only=True,
    value={
        "id": 3,
        "url": "/api/challenge/3",
        "status": "created",
        "challenger": "ada",
        "dest": "bob",
        "kind": "set",
        "options": {"rules": "classic", "attributes": 4, "start": "wait", "rated": True},
        "created": "2026-11-26T21:30:00.000000+00:00",
        "expires": "2026-11-26T21:31:00.000000+00:00",
    },
)


class ChallengeCreateView(AccountView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Challenge an account to a table",
        description=(
            "Asks the account named to play a table of Set or the Square Game with these "
            "options. The account is told at once: its event stream "
            '(`GET /api/stream/event`) and its open pages get `{"type": "challenge", '
            '"challenge": {...}}`. It accepts, declines, or lets the challenge expire after '
            "CHALLENGE_EXPIRES_S (60 s by default); you may cancel it. Each account sends at "
            "most RATE_LIMIT_CHALLENGES challenges (20 a minute by default): beyond, 429 with "
            "Retry-After. The name is compared as names are (one that looks like it, in any "
            "case, finds the account).\n\n"
            "Try it: `curl -X POST -H 'Authorization: Bearer $TOKEN' -H 'Content-Type: "
            'application/json\' -d \'{"kind": "set", "options": {"rated": true}}\' '
            "http://127.0.0.1:8000/api/challenge/bob`."
        ),
        request=ChallengeRequest,
        responses={
            201: ChallengeOut,
            **JSON_BODY_RESPONSES,
            400: error_response(
                "You cannot challenge yourself; or the kind or an option is refused (as a "
                "table's creation would refuse it), named in `detail`."
            ),
            **SIGNED_IN,
            403: error_response(challenges.BLOCKED + " (one of you blocked the other)"),
            404: error_response("There is no account with that name."),
            429: error_response(
                "Too many challenges from this account (RATE_LIMIT_CHALLENGES); the "
                "Retry-After header says how many seconds to wait."
            ),
        },
        examples=[
            OpenApiExample(
                "A rated Set table",
                request_only=True,
                value={"kind": "set", "options": {"rules": "classic", "rated": True}},
            ),
            OpenApiExample(
                "A Square Game", request_only=True, value={"kind": "square", "options": {}}
            ),
            CHALLENGE_EXAMPLE,
        ],
    )
    def post(self, request, name: str):
        checked = ChallengeRequest(data=request.data)
        checked.is_valid(raise_exception=True)
        options = dict(checked.validated_data["options"])
        rated = options.pop("rated", False)
        if not isinstance(rated, bool):
            raise RuleError("options.rated is true or false.", "bad_option")
        dest = account_named(name)
        challenge = challenges.challenge_create(
            challenger=request.user,
            dest=dest,
            kind=checked.validated_data["kind"],
            options=options,
            rated=rated,
        )
        return Response(challenges.challenge_json(challenge), status=status.HTTP_201_CREATED)


class ChallengeListView(AccountView):
    @extend_schema(
        tags=TAGS,
        summary="Your challenges waiting for an answer",
        description="Those sent to you (`incoming`) and those you sent (`outgoing`), oldest first.",
        responses={200: ChallengeListOut, **SIGNED_IN},
    )
    def get(self, request):
        waiting = [challenges.challenge_json(c) for c in events.open_challenges(request.user.pk)]
        me = request.user.get_username()
        return Response(
            {
                "incoming": [c for c in waiting if c["dest"] == me],
                "outgoing": [c for c in waiting if c["challenger"] == me],
            }
        )


ANSWER_ERRORS = {
    **JSON_BODY_RESPONSES,
    **SIGNED_IN,
    **NO_CHALLENGE,
    409: error_response("The challenge was answered already (accepted, declined, canceled)."),
    410: error_response("The challenge expired: nobody answered it in time."),
}


class ChallengeAcceptView(AccountView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Accept a challenge sent to you",
        description=(
            "Makes the table (a private one, rated if the challenge is), seats the challenger "
            "and you, and starts it (a Set table counts down 3 s and deals; a Square Game "
            'starts as its two seats fill). Both accounts are told `{"type": "gameStart", '
            '"game": {"id", "kind", "url", "challenge"}}`. Play with your account\'s token '
            "(`Authorization: Bearer`): it acts for your seat. 403 for the challenger (only the "
            "account challenged accepts)."
        ),
        request=None,
        responses={
            200: AcceptOut,
            **ANSWER_ERRORS,
            403: error_response(
                "Only the account challenged can accept it; or one of you blocked the other "
                "since: " + challenges.BLOCKED
            ),
        },
        examples=[
            OpenApiExample(
                "The table",
                response_only=True,
                value={"game": 12, "url": "/play/12/?key=Hx3..."},
            )
        ],
    )
    def post(self, request, challenge_id: int):
        _, game = challenges.challenge_accept(challenge_id=challenge_id, user=request.user)
        url = selectors.keyed_url(selectors.page_url(game.kind, game.pk), game.link_key)
        return Response({"game": game.pk, "url": url})


class ChallengeDeclineView(AccountView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Decline a challenge sent to you",
        description=(
            "With an optional reason, one of "
            + ", ".join(f"`{r}`" for r in challenges.DECLINE_REASONS)
            + ' (default `generic`). The challenger is told `{"type": "challengeDeclined", '
            '"challenge": {..., "reason", "reason_text"}}`.'
        ),
        request=DeclineRequest,
        responses={
            200: ChallengeOut,
            **JSON_BODY_RESPONSES,
            400: error_response("That is not one of the reasons to decline."),
            **ANSWER_ERRORS,
            403: error_response("Only the account challenged can decline it."),
        },
        examples=[OpenApiExample("Later", request_only=True, value={"reason": "later"})],
    )
    def post(self, request, challenge_id: int):
        checked = DeclineRequest(data=request.data if request.data else {})
        checked.is_valid(raise_exception=True)
        challenge = challenges.challenge_decline(
            challenge_id=challenge_id, user=request.user, reason=checked.validated_data["reason"]
        )
        return Response(challenges.challenge_json(challenge))


class ChallengeCancelView(AccountView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Cancel a challenge you sent",
        description=(
            'The account challenged is told `{"type": "challengeCanceled", "challenge": '
            "{...}}`. 409 once it was answered (an accepted challenge's table is played or "
            "resigned, not canceled)."
        ),
        request=None,
        responses={
            200: ChallengeOut,
            **JSON_BODY_RESPONSES,
            **SIGNED_IN,
            **NO_CHALLENGE,
            403: error_response("Only the challenger can cancel a challenge."),
            409: error_response("The challenge was answered already."),
        },
    )
    def post(self, request, challenge_id: int):
        challenge = challenges.challenge_cancel(challenge_id=challenge_id, user=request.user)
        return Response(challenges.challenge_json(challenge))


EVENT_LINES = (
    "One JSON object a line (`application/x-ndjson`). First a `gameStart` for each game you "
    "are seated at that is not finished, and a `challenge` for each challenge to you waiting "
    "for your answer; then, as they happen:\n\n"
    '- `{"type": "challenge", "challenge": {...}}`: a challenge to you;\n'
    '- `{"type": "challengeCanceled", "challenge": {...}}`, `{"type": "challengeDeclined", '
    '"challenge": {..., "reason"}}`;\n'
    '- `{"type": "gameStart", "game": {"id", "kind", "url"}}`: a game of yours starts (an '
    "accepted challenge's, or any table you sit at), once per game on a stream (told by the "
    "accept, it also names its `challenge`; by Play now or an arena, its `pool`); follow it "
    "with `GET /api/games/{id}/stream`;\n"
    '- `{"type": "gameFinish", "game": {"id", "kind", "url"}}`: told once, and before the '
    "start of the account's next game;\n"
    "- a bare newline after EVENT_STREAM_KEEPALIVE_S quiet seconds (7 by default): skip empty "
    "lines.\n\n"
    "It ends when the server restarts or the token is revoked (connect again), and after a "
    'last line `{"type": "error", "detail", "code": "unavailable"}` when the database or '
    "Redis stops answering."
)


class EventStreamView(AccountView):
    """The account's event stream (accounts.events.EventStream), read here on Django's thread
    as every API read is; the lines are sent from the event loop."""

    content_negotiation_class = AnyAccept

    @extend_schema(
        tags=TAGS,
        summary="Follow your account's events as a stream of JSON lines",
        description=(
            EVENT_LINES + "\n\nAt most EVENT_STREAMS_MAX_OPEN (4 by default) event streams may "
            "be open at once per account in each server process: beyond, 429; a stream frees "
            "its slot the moment it ends or its client goes.\n\nTry it: `curl -N -H "
            "'Authorization: Bearer $TOKEN' http://127.0.0.1:8000/api/stream/event`."
        ),
        responses={
            (200, NDJSON): OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="The stream: each line one event (or a bare newline).",
                examples=[
                    OpenApiExample(
                        "gameStart",
                        response_only=True,
                        media_type=NDJSON,
                        value={
                            "type": "gameStart",
                            "game": {"id": 12, "kind": "set", "url": "/play/12/?key=Hx3..."},
                        },
                    ),
                    OpenApiExample(
                        "challenge",
                        response_only=True,
                        media_type=NDJSON,
                        value={"type": "challenge", "challenge": CHALLENGE_EXAMPLE.value},
                    ),
                    OpenApiExample(
                        "challengeDeclined",
                        response_only=True,
                        media_type=NDJSON,
                        value={
                            "type": "challengeDeclined",
                            "challenge": {
                                **CHALLENGE_EXAMPLE.value,
                                "status": "declined",
                                "reason": "later",
                                "reason_text": challenges.DECLINE_REASONS["later"],
                            },
                        },
                    ),
                    OpenApiExample(
                        "gameFinish",
                        response_only=True,
                        media_type=NDJSON,
                        value={
                            "type": "gameFinish",
                            "game": {"id": 12, "kind": "set", "url": "/play/12/?key=Hx3..."},
                        },
                    ),
                ],
            ),
            **SIGNED_IN,
            429: error_response(
                "Too many event streams open at once for this account: close one first."
            ),
        },
    )
    def get(self, request):
        if request.method == "HEAD":
            return HttpResponse(content_type=NDJSON)
        slot = events.event_slots.take(f"account:{request.user.pk}")
        credential = credential_of(request)
        stream = events.EventStream(request.user.pk, [credential] if credential else [], slot)
        response = StreamingHttpResponse(stream, content_type=NDJSON)
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


class BotsOnlineView(APIView):
    authentication_classes = ()
    permission_classes = ()

    @extend_schema(
        tags=TAGS,
        summary="The bots online: bot accounts with an event stream open",
        description="By name; each with its profile page. Challenge one with "
        "`POST /api/challenge/{name}`.",
        auth=[],
        responses={200: OnlineBotOut(many=True)},
        examples=[
            OpenApiExample(
                "Two bots", response_only=True, value=[{"name": "setbot", "url": "/u/setbot"}]
            )
        ],
    )
    def get(self, request):
        return Response(
            [
                {"name": user.get_username(), "url": f"/u/{user.get_username()}"}
                for user in events.bots_online()
            ]
        )
