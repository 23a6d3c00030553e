"""The API of arena tournaments: the lists, one tournament with its standings page by page, its
results as NDJSON, and making, joining, pausing and leaving one (an account's).

Views only translate: games.tournaments decides, games.tournament_reads reads; errors become 4xx
JSON sentences in the one exception handler (games.errors).
"""

from __future__ import annotations

import datetime

import orjson
from django.http import HttpResponse
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.challenge_api import AUTH, SIGNED_IN, AccountView
from games import tournament_reads, tournaments
from games.errors import RuleError
from games.parsers import NDJSON, AnyAccept
from games.schema import JSON_BODY, JSON_BODY_RESPONSES, error_response

TAGS = ["Tournaments"]
STATUSES = [s.value for s in tournaments.Status]
NO_TOURNAMENT = {404: error_response("There is no tournament with that id.")}
# Anyone reads; a signed-in reader (its token, its session) is also shown its own entry.
BAD_TOKEN = {
    401: error_response(
        "An Authorization header that is no account's token: send none, or a good one."
    )
}


class TournamentRequest(serializers.Serializer):
    kind = serializers.CharField(help_text="set or square.")
    options = serializers.DictField(
        required=False,
        default=dict,
        help_text=(
            "The tables' options: `mode`, a rated mode's name (`set-classic`, `set-declare`, "
            "`set-classic-3`, `set-ultra`..., `square`: `GET /api/leaderboard/<mode>` names "
            "them), and any other table option as `POST /api/games/` takes it."
        ),
    )
    starts_at = serializers.CharField(help_text="ISO 8601 with its zone: 2030-01-01T18:00:00Z.")
    minutes = serializers.JSONField(help_text="10 to 120.")
    rated = serializers.BooleanField(required=False, default=False)
    bots = serializers.BooleanField(
        required=False, default=False, help_text="Open to bot accounts too (else people only)."
    )
    recurring = serializers.CharField(
        required=False, help_text="Staff only: the key of a recurring arena (made once)."
    )
    name = serializers.CharField(required=False, max_length=80)


class PlayerOut(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 first; equal points and wins share a rank.")
    name = serializers.CharField()
    url = serializers.CharField()
    points = serializers.FloatField(help_text="Whole or halves (tied places share).")
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    streak = serializers.IntegerField(help_text="Wins in a row.")
    on_fire = serializers.BooleanField(help_text="Two wins in a row: the next games count double.")
    paused = serializers.BooleanField()
    withdrawn = serializers.BooleanField()
    playing = serializers.IntegerField(allow_null=True, help_text="The game played now.")


class TournamentOut(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="Its page.")
    api_url = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.CharField()
    mode = serializers.CharField()
    mode_name = serializers.CharField()
    options = serializers.DictField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    minutes = serializers.IntegerField()
    rated = serializers.BooleanField()
    bots = serializers.BooleanField()
    recurring = serializers.BooleanField()
    status = serializers.CharField(help_text="upcoming, running or finished.")
    ended_early = serializers.BooleanField()
    made_by = serializers.CharField(allow_null=True)
    seconds_left = serializers.FloatField(help_text="To the start while upcoming, to the end.")
    players = serializers.IntegerField(required=False)


class TournamentDetailOut(TournamentOut):
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    standings = PlayerOut(many=True)
    podium = PlayerOut(many=True, help_text="The first three, once finished.")
    games_playing = serializers.IntegerField()
    me = serializers.DictField(allow_null=True, help_text="Your entry, signed in and joined.")
    player_games = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="With ?player=: that player's games (game, url, place, points, on_fire).",
    )


class TournamentListOut(serializers.Serializer):
    running = TournamentOut(many=True, required=False)
    upcoming = TournamentOut(many=True, required=False)
    finished = TournamentOut(many=True, required=False)


class EntryOut(serializers.Serializer):
    tournament = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.FloatField()
    games = serializers.IntegerField()
    paused = serializers.BooleanField()
    withdrawn = serializers.BooleanField()


TOURNAMENT_EXAMPLE = {
    "id": 7,
    "url": "/tournaments/7/",
    "api_url": "/api/tournaments/7",
    "name": "Set classic arena",
    "kind": "set",
    "mode": "set-classic",
    "mode_name": "Set classic",
    "options": {"rules": "classic", "mode": "set-classic"},
    "starts_at": "2030-01-01T18:00:00+00:00",
    "ends_at": "2030-01-01T18:30:00+00:00",
    "minutes": 30,
    "rated": True,
    "bots": False,
    "recurring": False,
    "status": "upcoming",
    "ended_early": False,
    "made_by": "ada",
    "seconds_left": 3600.0,
}
PLAYER_EXAMPLE = {
    "rank": 1,
    "name": "ada",
    "url": "/u/ada",
    "points": 7.5,
    "games": 4,
    "wins": 3,
    "streak": 2,
    "on_fire": True,
    "paused": False,
    "withdrawn": False,
    "playing": 42,
}


def _entry(entry) -> dict:
    return {
        "tournament": entry.tournament_id,
        "name": entry.user.get_username(),
        "points": entry.points,
        "games": entry.games,
        "paused": entry.paused,
        "withdrawn": entry.withdrawn,
    }


class TournamentListView(AccountView):
    """Anyone reads the lists; an account makes a tournament."""

    parser_classes = JSON_BODY

    def get_permissions(self):
        return super().get_permissions() if self.request.method == "POST" else []

    @extend_schema(
        tags=TAGS,
        summary="The tournaments: running, upcoming, finished",
        operation_id="tournaments_list",
        description=(
            "Running ones soonest ending first, upcoming soonest first, finished latest first "
            "(50 of each). `?status=` one of " + ", ".join(STATUSES) + " for one list. The "
            "recurring arenas (an hourly Set classic arena, a daily one of each mode) are made "
            "ahead by this request when due."
        ),
        auth=[],
        parameters=[OpenApiParameter("status", str, enum=STATUSES, required=False)],
        responses={200: TournamentListOut, 400: error_response("That is no status."), **BAD_TOKEN},
        examples=[
            OpenApiExample(
                "Lists",
                response_only=True,
                value={"running": [], "upcoming": [{**TOURNAMENT_EXAMPLE, "players": 3}]},
            )
        ],
    )
    def get(self, request):
        wanted = request.query_params.get("status")
        if wanted is not None and wanted not in STATUSES:
            raise RuleError(f"status is one of {', '.join(STATUSES)}; not {wanted!r}.")
        tournaments.arenas_ensure()
        return Response(tournament_reads.tournament_list(wanted))

    @extend_schema(
        tags=TAGS,
        summary="Make a tournament",
        description=(
            "An account makes one (staff only for a recurring one). The tables are of the "
            "mode's options; the pool's pairing seats the players 2 to 4 a table while it "
            "runs; a table of n gives n-1 points to the first down to 0 (tied players share "
            "the mean of their places' points); two wins in a row double the points until a "
            "game not won."
        ),
        request=TournamentRequest,
        responses={
            201: TournamentOut,
            **JSON_BODY_RESPONSES,
            400: error_response("A field is refused, named in `detail`."),
            **SIGNED_IN,
            403: error_response("Only staff make recurring tournaments."),
        },
        examples=[
            OpenApiExample(
                "A Set classic arena",
                request_only=True,
                value={
                    "kind": "set",
                    "options": {"mode": "set-classic"},
                    "starts_at": "2030-01-01T18:00:00Z",
                    "minutes": 30,
                    "rated": True,
                    "bots": False,
                },
            ),
            OpenApiExample("Made", response_only=True, value=TOURNAMENT_EXAMPLE),
        ],
    )
    def post(self, request):
        checked = TournamentRequest(data=request.data)
        checked.is_valid(raise_exception=True)
        data = checked.validated_data
        starts_at = parse_datetime(data["starts_at"])
        if starts_at is None or starts_at.tzinfo is None:
            raise RuleError(
                f"starts_at is an ISO 8601 time with its zone (2030-01-01T18:00:00Z); not "
                f"{data['starts_at']!r}.",
                "bad_start",
            )
        made = tournaments.tournament_create(
            user=request.user,
            kind=data["kind"],
            options=data["options"],
            starts_at=starts_at.astimezone(datetime.UTC),
            minutes=data["minutes"],
            rated=data["rated"],
            open_to_bots=data["bots"],
            recurring=data.get("recurring"),
            name=data.get("name", ""),
        )
        return Response(tournament_reads.summary(made), status=status.HTTP_201_CREATED)


class TournamentDetailView(APIView):
    authentication_classes = AUTH
    permission_classes = ()

    @extend_schema(
        tags=TAGS,
        summary="A tournament and its standings, page by page",
        description=(
            f"`?page=` (1 first) of {tournament_reads.PAGE_SIZE} players, best first; the "
            "podium once finished; `me` your entry when signed in and joined. Its page's "
            "socket `/ws/tournaments/<id>/` pushes the same object as it changes."
        ),
        auth=[],
        parameters=[
            OpenApiParameter(
                "page", {"type": "integer", "minimum": 1}, required=False, description="1 first."
            ),
            OpenApiParameter(
                "player", str, required=False, description="Also this player's games."
            ),
        ],
        responses={
            200: TournamentDetailOut,
            **NO_TOURNAMENT,
            400: error_response("Bad page."),
            **BAD_TOKEN,
        },
        examples=[
            OpenApiExample(
                "Running",
                response_only=True,
                value={
                    **TOURNAMENT_EXAMPLE,
                    "status": "running",
                    "page": 1,
                    "pages": 1,
                    "players": 1,
                    "standings": [PLAYER_EXAMPLE],
                    "podium": [],
                    "games_playing": 1,
                    "me": None,
                },
            )
        ],
    )
    def get(self, request, tournament_id: int):
        page = request.query_params.get("page", "1")
        if not page.isdigit() or int(page) < 1:
            raise RuleError(f"page is a whole number from 1; not {page!r}.", "bad_page")
        tournament = tournaments.tick(tournaments.tournament_of(tournament_id))
        body = tournament_reads.tournament_detail(tournament, page=int(page), viewer=request.user)
        player = request.query_params.get("player")
        if player is not None:
            body["player_games"] = tournament_reads.player_games(tournament, player)
        return Response(body)


def _entry_view(action, summary: str, description: str):
    class EntryView(AccountView):
        parser_classes = JSON_BODY

        @extend_schema(
            tags=TAGS,
            summary=summary,
            description=description,
            request=None,
            responses={
                200: EntryOut,
                **JSON_BODY_RESPONSES,
                **SIGNED_IN,
                **NO_TOURNAMENT,
                403: error_response(tournaments.PEOPLE_ONLY),
                409: error_response("The tournament has finished, or you have not joined it."),
            },
            examples=[
                OpenApiExample(
                    "Your entry",
                    response_only=True,
                    value={
                        "tournament": 7,
                        "name": "ada",
                        "points": 0,
                        "games": 0,
                        "paused": False,
                        "withdrawn": False,
                    },
                )
            ],
        )
        def post(self, request, tournament_id: int):
            return Response(_entry(action(tournament_id=tournament_id, user=request.user)))

    EntryView.__name__ = EntryView.__qualname__ = f"Tournament{action.__name__.title()}View"
    return EntryView


TournamentJoinView = _entry_view(
    tournaments.tournament_join,
    "Join a tournament (or come back)",
    "Until it ends. While it runs you wait in its pool whenever you are at none of its tables, "
    "and are seated by the pairing: your event stream (`GET /api/stream/event`) and your "
    'pages get `{"type": "gameStart", "game": {"id", "kind", "url", "tournament"}}`. Play '
    "with your account's token. Joining after a pause or a leave brings you back.",
)
TournamentPauseView = _entry_view(
    tournaments.tournament_pause,
    "Pause in a tournament",
    "Out of the pool (no new table) until you join again; a game you play now finishes and counts.",
)
TournamentWithdrawView = _entry_view(
    tournaments.tournament_withdraw,
    "Leave a tournament",
    "Out of the pool; your points stay in the standings. Join again to come back.",
)


class TournamentResultsView(APIView):
    authentication_classes = ()
    permission_classes = ()
    content_negotiation_class = AnyAccept

    @extend_schema(
        tags=TAGS,
        summary="A tournament's results as JSON lines",
        description="One JSON object a line (`application/x-ndjson`), one player a line, the "
        "first rank first (final once the tournament has finished and its games ended).",
        responses={
            (200, NDJSON): OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="One player a line.",
                examples=[
                    OpenApiExample(
                        "A player", response_only=True, media_type=NDJSON, value=PLAYER_EXAMPLE
                    )
                ],
            ),
            **NO_TOURNAMENT,
        },
    )
    def get(self, request, tournament_id: int):
        tournament = tournaments.tick(tournaments.tournament_of(tournament_id))
        body = b"".join(orjson.dumps(line) + b"\n" for line in tournament_reads.results(tournament))
        return HttpResponse(body, content_type=NDJSON)
