"""The games JSON API: create, list, join, read, act, read the log, export.

Views only translate HTTP into service and selector calls; errors become 4xx JSON bodies in
games.errors.api_exception_handler.
"""

from __future__ import annotations

from django.conf import settings
from django.http import (
    HttpResponse,
    HttpResponsePermanentRedirect,
    JsonResponse,
    StreamingHttpResponse,
)
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from games import (
    follow,
    ghosts,
    limits,
    moderation,
    option_rules,
    ratings,
    runtime,
    selectors,
    services,
    story,
)
from games import serializers as s
from games.auth import (
    AccountGrant,
    BearerAuthentication,
    SeatTokenAuthentication,
    account_player,
    acting_seat,
    check_guest_name,
    check_reach,
    credential_of,
    joining_player,
    may_reach,
    reader_account_id,
    reader_seat,
    reader_seats,
    session_player,
    session_player_for_write,
    table_maker,
)
from games.errors import Conflict, Forbidden, RuleError
from games.models import Game
from games.parsers import NDJSON, AnyAccept
from games.schema import (
    ERROR_RESPONSES,
    FORBIDDEN_RESPONSES,
    GAME_KEY,
    JSON_BODY,
    JSON_BODY_RESPONSES,
    NOT_FOUND_RESPONSES,
    RATE_LIMITED_RESPONSES,
    TOKEN_RESPONSES,
    error_response,
)
from games.store import SeatRef

AUTH = [SeatTokenAuthentication, BearerAuthentication, SessionAuthentication]
NOT_FOUND = {**NOT_FOUND_RESPONSES, **TOKEN_RESPONSES}
"""Every view that reads a seat token may also answer 401 for a token that is not valid."""


def create_game(data, client: str | None, request=None) -> dict:
    """Create a game: the body's checks, then the client's join is counted, then the rules
    (services.create); the new game's summary. The one way the API creates a game. A ghost race
    (the option ``ghost``) is dealt as the game it races, which `request` must be able to see
    (games.ghosts.race_deal)."""
    checked = s.GameCreateRequest(data=data)
    checked.is_valid(raise_exception=True)
    if request is not None:  # a banned account makes no table (nor joins one, nor moves)
        moderation.check_ban_account(reader_account_id(request))
    options = checked.validated_data["options"]
    seed = checked.validated_data.get("seed")
    if "ghost" in options:
        options, seed = ghosts.race_deal(
            kind=checked.validated_data["kind"],
            options=options,
            seed=seed,
            may_see=lambda game: request is not None and may_reach(request, game.pk, game.link_key),
        )
    made = services.run(
        services.create(
            kind=checked.validated_data["kind"],
            options=options,
            seed=seed,
            is_open=checked.validated_data["open"],
            rated=checked.validated_data["rated"],
            client=client,
            maker=table_maker(request) if request is not None else "",
        )
    )
    if "ghost" in options:
        ghosts.remember_race(made[0].pk, options["ghost"])
        ghosts.ghost_of(options["ghost"])
    return created_answer(made, rated=checked.validated_data["rated"])


def created_answer(made, *, rated: bool = False) -> dict:
    """The API's answer to a create (GameListView and games.api_fast): the new game's summary,
    from what the create wrote (no read). A game created `rated` rates, as far as is known now:
    its options were accepted as rated, and nobody sits there yet."""
    head, created, options = made
    game = Game(
        pk=head.pk,
        kind=head.kind,
        options=options,
        status=head.status,
        version=head.version,
        is_open=head.is_open,
        is_default=head.is_default,
        link_key=head.link_key,
        created=created,
        updated=created,
        finished=created if head.status == Game.Status.OVER else None,
    )
    return {**selectors.game_summary(game, seats=[]), "rated": rated, "unrated": None}


def join_game(game_id, data, client: str | None, player=None, credential: str = "") -> dict:
    """Seat a player: the body's checks, then the client's join is counted, then the rules
    (services.join); the token, the seat and the game. `player` is a browser's or an account
    token's, if any, and `credential` what the token is handed to (auth.credential_of). The
    caller has checked that the request may reach the game."""
    game_id = selectors.game_id_of(game_id)
    checked = s.JoinRequest(data=data)
    checked.is_valid(raise_exception=True)
    name = checked.validated_data["name"]
    if player is not None and player.user_id is not None:
        # A banned account joins nothing (read from the database here: the request's thread).
        moderation.check_ban_account(player.user_id)
        name = player.name  # an account plays under its own name, as on the pages
    else:
        check_guest_name(name)  # a guest may not take an account's name (409, nothing saved)
    written = services.run(
        services.join(
            game_id=game_id,
            name=name,
            player_id=player.pk if player is not None else None,
            client=client,
            reached=True,
            credential=credential,
        )
    )
    guest = player is None or player.user_id is None
    # Which seats bots play: a query only when an account sits there (a computer is a bot).
    accounts = not guest or any(seat.account and not seat.is_computer for seat in written.seats)
    bots = selectors.bot_seat_numbers(game_id) if accounts else None
    return join_answer(written, guest=guest, bots=bots)


def join_answer(written, *, guest: bool = True, bots: set[int] | None = None) -> dict:
    """The API's answer to a join (JoinView and games.api_fast): the token, the seat and the
    game, from what the join read and wrote (the seats already there, and whether each is an
    account's); `guest` says whether the new seat's is a guest, and `bots` which seats bots
    play, by number (selectors.bot_seat_numbers; None: the computers' only)."""
    change, head, row = written.change, written.after, written.row
    new = change.new_seat
    bots = bots or set()
    seats = [
        {
            "number": seat.number,
            "name": seat.name,
            "score": change.scores.get(seat.name, seat.score),
            "is_computer": seat.is_computer,
            "guest": not seat.is_computer and not seat.account,
            "bot": seat.is_computer or seat.number in bots,
        }
        for seat in written.seats
    ]
    seat = {
        "number": new.number,
        "name": new.name,
        "score": 0,
        "is_computer": new.is_computer,
        "guest": guest and not new.is_computer,
        "bot": new.is_computer or new.number in bots,
    }
    game = Game(
        pk=head.pk,
        kind=head.kind,
        options=row.options,
        status=head.status,
        version=head.version,
        is_open=head.is_open,
        is_default=head.is_default,
        link_key=head.link_key,
        created=row.created,
        updated=written.updated,
        finished=written.updated if change.ended else row.finished,
    )
    summary = selectors.game_summary(game, seats=[*seats, seat])
    if written.value:  # created rated (services.join): the seats are accounts (it checked)
        why = ratings.unrated_reason(head.kind, row.options, head.state, [], over=False)
        summary.update(rated=why is None, unrated=why)
    return {"token": new.token, "seat": seat, "game": summary}


def _optional_seat(request, game: Game):
    try:
        return acting_seat(request, game.pk)
    except Forbidden:
        return None


def _seat_id(request, game: Game) -> int | None:
    """The reader's seat at a game (a watcher: None), for what a seat alone may read; a game
    that is over hides nothing, so nobody is looked up."""
    if game.status == Game.Status.OVER:
        return None
    seat = _optional_seat(request, game)
    return seat.pk if seat is not None else None


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
            seated=reader_seats(request),
        )[: min(max(query.validated_data["limit"], 1), 200)]
        return Response([selectors.game_summary(game) for game in games])

    @extend_schema(
        tags=["Games"],
        summary="Create a game",
        description=(
            "A public table (`open`) counts against its maker's public tables an hour (an "
            "account by its token or session, a guest by its session, anyone else by address): "
            "at most `PUBLIC_TABLES_PER_HOUR` (4 by default) unfinished ones made in the last "
            "hour; beyond, 429 with Retry-After. Private tables (by link) are not counted. A "
            "rated table made by an account that left rated games too often "
            "(LEAVE_FREE_PER_DAY, LEAVE_WAIT_MINUTES) is refused with 403: the games it left "
            "and `until`, when it may play rated again."
        ),
        request=s.GAME_CREATE_REQUEST,
        responses={
            201: s.GameOut,
            **JSON_BODY_RESPONSES,
            **TOKEN_RESPONSES,
            429: error_response(
                "Too many joins or moves from this client, or too many unfinished public games "
                "were recently created by this player; the Retry-After header says how many "
                "seconds to wait."
            ),
            **NOT_FOUND_RESPONSES,  # a ghost race of no game
        },
    )
    def post(self, request):
        client = limits.client_address(request.META)
        return Response(create_game(request.data, client, request), status=status.HTTP_201_CREATED)


def _read_now(request, game_id: int):
    """The game as it is now, for a reader who may reach it: its head (deadlines due applied),
    the reader's seat (None: a watcher), its row, and the time it was read at."""
    check_reach(request, selectors.game_row(game_id))
    now = services.now_ms()
    head = services.game_fresh(game_id, now)
    return head, _optional_seat(request, head), selectors.game_row(head.pk), now


class GameDetailView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Read a game as your seat sees it",
        description="Without a token (or session seat) you see what a watcher sees.",
        parameters=[GAME_KEY],
        responses={200: s.GameDetailOut, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        head, seat, game, now = _read_now(request, game_id)
        body = selectors.game_summary(game)
        body["view"] = selectors.game_view(head, seat_name=seat.name if seat else None, now=now)
        # The row was read after the head: a move committed between the two would make the
        # summary say "over" beside a view that is not. The status and version are the view's.
        body["status"], body["version"] = head.status, head.version
        body["seat"] = next((s for s in body["seats"] if seat and s["number"] == seat.number), None)
        body["watching"] = runtime.watchers(head.pk)
        body["ratings"] = selectors.seat_ratings(game)
        return Response(body)


STREAM_LINES = (
    "One JSON object a line (`application/x-ndjson`), as they happen:\n\n"
    '- `{"type": "gameFull", "id", "kind", "version", "seat", "view"}` first: the game and '
    "your view of it (`seat`: your seat's name, null when you watch);\n"
    '- `{"type": "gameState", "version", "view"}` after every change: the same view as the '
    "WebSocket's `state` frames and `GET /api/games/<id>/`, drawn by the same code;\n"
    '- `{"type": "chatLine", "id", "name", "text", "at"}` for every chat message;\n'
    "- a bare newline after GAME_STREAM_KEEPALIVE_S seconds (7 by default) without a line, to "
    "keep the connection open: skip empty lines.\n\n"
    "The stream ends after the state that ends the game (a finished game: after its "
    "`gameFull`), when the token it was opened with is revoked, when the server restarts "
    "(connect again: the next `gameFull` says where the game is), and when the database or "
    'Redis stops answering, after a last line `{"type": "error", "detail", "code": '
    '"unavailable"}` (connect again in a few seconds). Every view is whole: a gap in '
    "versions only says that changes came together."
)
STREAM_EXAMPLES = [
    OpenApiExample(
        "gameFull",
        value={
            "type": "gameFull",
            "id": 7,
            "kind": "square",
            "version": 4,
            "seat": "ada",
            "view": {
                "players": 2,
                "viewer": 1,
                "phase": "opening",
                "to_move": 2,
                "board": [],
                "...": "the rest of the seat's view, as GET /api/games/7/ has it",
            },
        },
        response_only=True,
        media_type=NDJSON,
    ),
    OpenApiExample(
        "gameState",
        value={
            "type": "gameState",
            "version": 5,
            "view": {"players": 2, "viewer": 1, "phase": "playing", "to_move": 1, "...": "..."},
        },
        response_only=True,
        media_type=NDJSON,
    ),
    OpenApiExample(
        "chatLine",
        value={
            "type": "chatLine",
            "id": 3,
            "name": "bob",
            "text": "Good game!",
            "at": "2026-11-25T02:51:05.123Z",
        },
        response_only=True,
        media_type=NDJSON,
    ),
]


class GameStreamView(APIView):
    """The game's NDJSON stream (games.follow.GameStream). The request is read here, on Django's
    thread, as every API read is (who is reading, whether they may reach the game, the errors of
    the one exception handler); the lines are then sent from the event loop by Django's ASGI
    handler, which cancels the stream when the client goes away."""

    authentication_classes = AUTH
    content_negotiation_class = AnyAccept  # its refusals are JSON, whatever Accept asks

    @extend_schema(
        tags=["Games"],
        summary="Follow a game as a stream of JSON lines",
        description=(
            "Send a seat's token (`Authorization: Token <token>`) or its account's "
            "(`Authorization: Bearer <token>`) to see what the seat sees, or nothing to watch; "
            "a private game needs its `key` (or a seat). " + STREAM_LINES + "\n\nAt most "
            f"{settings.GAME_STREAMS_MAX_OPEN} streams (GAME_STREAMS_MAX_OPEN) may be open at "
            "once per account, per seat token, or per client address for watchers, in each "
            "server process; a stream frees its slot the moment it ends or its client goes.\n\n"
            "Try it: `curl -N http://127.0.0.1:8000/api/games/7/stream`."
        ),
        parameters=[GAME_KEY],
        responses={
            (200, NDJSON): OpenApiResponse(
                s.GameStreamLineOut,
                description="The stream: each line one of these objects (or a bare newline).",
                examples=STREAM_EXAMPLES,
            ),
            **NOT_FOUND,
            403: error_response("That seat token belongs to another game."),
            429: error_response(
                "Too many game streams open at once for this account, seat or client address: "
                "close one first."
            ),
        },
    )
    def get(self, request, game_id: int):
        game_id = selectors.game_id_of(game_id)
        # A seat is at its game (its row need not be read); others may not reach a private one.
        if isinstance(request.auth, SeatRef):
            seat = acting_seat(request, game_id)  # 403 for a token of another game
        else:
            seat = reader_seat(request, game_id)
            if seat is None:
                check_reach(request, selectors.game_row(game_id))  # 404: no such game
        if request.method == "HEAD":  # the answer's headers only: no stream is opened
            return HttpResponse(content_type=NDJSON)
        slot = follow.stream_slots.take(_stream_owner(request, seat))
        credential = credential_of(request)
        stream = follow.GameStream(
            game_id,
            seat.name if seat else None,
            [credential] if credential else [],
            slot,
            reader=reader_account_id(request),
        )
        response = StreamingHttpResponse(stream, content_type=NDJSON)
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # a proxy in front (nginx) passes each line on
        return response


def _stream_owner(request, seat) -> str:
    """Whose open streams a stream counts among: its account's (a Bearer token), its seat's, or
    its client address's (a watcher)."""
    grant = request.auth if isinstance(request.auth, AccountGrant) else None
    if grant is not None:
        return f"account:{grant.user.pk}"
    if seat is not None:
        return f"seat:{seat.pk}"
    return f"client:{limits.client_address(request.META)}"


class LeaderboardView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Ratings"],
        summary="The leaderboard of a rated mode",
        description=(
            "The top 100 accounts of a rated mode (`set-classic`, `set-declare`, "
            "`set-classic-3`, `set-declare-3`, `set-classic-5`, `set-ultra`, `set-chain`, "
            "`square`), best first; an account appears once it has played 5 rated games in the "
            "mode. People only, unless `?bots=1`: then the bots only (bot accounts and the "
            "built-in computers, one account per speed). An unknown mode is a 404 naming the "
            "rated modes."
        ),
        parameters=[s.LeaderboardQuery],
        responses={
            200: s.LeaderboardOut,
            400: error_response("`bots` is 1 or 0 (true or false)."),
            **NOT_FOUND_RESPONSES,
        },
    )
    def get(self, request, mode: str):
        query = s.LeaderboardQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(selectors.leaderboard(mode, bots=query.validated_data["bots"]))


class OptionRulesView(APIView):
    authentication_classes = ()
    permission_classes = ()

    @extend_schema(
        tags=["Games"],
        summary="The rules of each kind's options: what is accepted, what can be rated",
        description=(
            "Said before a game is made, from the kinds' own rules (games.option_rules): for "
            "each kind its seats, whether it is rated and how (`rated.seats`: a rated table "
            "seats accounts only; `rated.min_players`; `rated.unrated_by`: what unrates it "
            "once played, a hint at a Set table), and each choice of its lobby form "
            "(`choices`: the Set table's rules, mode, attributes and length) accepted or "
            "refused (`refused`: the server's sentence), rated or not (`unrated`: why not). "
            "A create with `rated` and a choice whose `rated` is false is a 400, code "
            "`not_rated`. The lobby embeds the Set kind's part as JSON (id `option-rules`)."
        ),
        responses={200: s.OptionRulesOut},
    )
    def get(self, request):
        return Response(option_rules.option_rules())


class JoinView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Games"],
        summary="Join a game",
        description=(
            "Returns the seat token: send it as 'Authorization: Token <token>' to act. With an "
            "account's token ('Authorization: Bearer <token>') the seat is the account's, under "
            "its own name, and that token acts for it too. A guest (no account token, no "
            "signed-in browser) may not take an account's name, whatever its case: 409."
        ),
        request=s.JoinRequest,
        parameters=[GAME_KEY],
        responses={
            201: s.JoinOut,
            **JSON_BODY_RESPONSES,
            **NOT_FOUND,
            **FORBIDDEN_RESPONSES,
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request, game_id: int):
        check_reach(request, selectors.game_row(game_id))
        player = joining_player(request)
        client = limits.client_address(request.META)
        answer = join_game(game_id, request.data, client, player, credential_of(request))
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
        seat = acting_seat(request, game_id)
        data = s.ComputerRequest(data=request.data)
        data.is_valid(raise_exception=True)
        written = services.run(
            services.add_computer(
                game_id=seat.game_id,
                speed=data.validated_data["speed"],
                client=limits.client_address(request.META),
            )
        )
        new = written.change.new_seat
        return Response(selectors.seat_json(new), status=status.HTTP_201_CREATED)


class RematchView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Games"],
        summary="Play a finished game again",
        description=(
            "A player of a finished game (its seat token, an account's Bearer token, or the "
            "browser's session) asks to play it again. The first to ask makes a new game of the "
            "same kind and options, dealt anew, rated and open as the old one; everyone who asks "
            "is seated at that same game under the name they had, and the old game's sockets "
            'are told (`{"type": "rematch", "game": <new id>, "url", "by"}`). Answers the new '
            "seat as a join does: 201 when seated now, 200 when seated there already. 409 while "
            "the game is not over; 403 for someone who did not play it."
        ),
        request=s.RematchRequest,
        responses={
            200: s.RematchOut,
            201: s.RematchOut,
            **JSON_BODY_RESPONSES,
            **NOT_FOUND,
            **FORBIDDEN_RESPONSES,
            409: error_response("The game is not over yet."),
        },
    )
    def post(self, request, game_id: int):
        s.RematchRequest(data=request.data).is_valid(raise_exception=True)  # a JSON object
        try:
            seat = acting_seat(request, game_id)
        except Forbidden:
            if isinstance(request.auth, SeatRef):
                raise  # a seat token of another game: that is what is wrong
            # A spectator (a page watching the game): no word of tokens, what they can do.
            raise Forbidden(services.WATCHERS_REMATCH) from None
        game, ref, seated_now = services.game_rematch(
            game_id=seat.game_id, player_id=seat.player_id, credential=credential_of(request)
        )
        body = {
            "token": ref.token,
            "seat": selectors.seat_json(
                game.seats.select_related(*selectors.SEAT_PLAYER).get(pk=ref.pk)
            ),
            "game": selectors.game_summary(game),
            "url": selectors.keyed_url(selectors.page_url(game.kind, game.pk), game.link_key),
        }
        return Response(body, status=status.HTTP_201_CREATED if seated_now else status.HTTP_200_OK)


class MovesView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Games"],
        summary="Read the move log",
        parameters=[s.MovesQuery, GAME_KEY],
        responses={200: s.MoveOut(many=True), **ERROR_RESPONSES, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        game = selectors.game_row(game_id)
        check_reach(request, game)
        query = s.MovesQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        since = query.validated_data["since"]
        moves = selectors.moves_list(game, since=since).select_related("seat")
        shown = selectors.outcomes_for(game, _seat_id(request, game))
        return Response(selectors.moves_json(moves, shown))

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
        work = services.move(game_id=seat.game_id, seat=seat, action=data.validated_data, now=now)
        result = services.run(work)
        return Response(selectors.move_reply(result, seat_name=seat.name, now=now))


class StartView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Games"],
        summary="Start a waiting Set table",
        description=(
            'A Set table made with `options.start` `"wait"` (the default) deals no cards until '
            "a seated player starts it: its creator's seat, or any seated player once the "
            "creator is away. The answer is the start's move (as `POST .../moves` with "
            '`{"type": "start"}` answers it): `outcome.starts_ms` is when the cards are dealt '
            "(3 s later, a countdown everyone's view shows as `starts_at`). Send the seat token, "
            "an account's Bearer token, or the seated browser's session with its CSRF token. "
            "409 when the table has started already (or is counting down); 403 for someone "
            "without a seat, or a seated player while the creator is here; 404 for a game the "
            "request cannot reach."
        ),
        request=s.StartRequest,
        responses={
            200: s.ActionOut,
            **JSON_BODY_RESPONSES,
            **NOT_FOUND,
            **FORBIDDEN_RESPONSES,
            **RATE_LIMITED_RESPONSES,
            409: error_response("The game has already started."),
        },
    )
    def post(self, request, game_id: int):
        seat = acting_seat(request, game_id)
        s.StartRequest(data=request.data).is_valid(raise_exception=True)  # a JSON object
        now = services.now_ms()
        action = {"type": "start"}
        work = services.move(game_id=seat.game_id, seat=seat, action=action, now=now)
        try:
            result = services.run(work)
        except RuleError as error:
            if error.http_status != status.HTTP_400_BAD_REQUEST:
                raise
            # The request is well formed: it is the game (over, or one that starts by itself
            # when its seats are full) that has no Start now.
            raise Conflict(f"This game cannot be started: {error.message}") from None
        return Response(selectors.move_reply(result, seat_name=seat.name, now=now))


class ReplayView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Replay a game step by step",
        description=(
            "Rebuilds the game from its seed, options and move log; step 0 is the deal, then one "
            "step per move, each with the board as a watcher saw it. Long games (a Set War "
            "draw has 10,001 steps) read best page by page: give `start` and/or `limit`. A "
            "paused Set practice table's replay is a 409 until it resumes (its last step holds "
            "the hidden cards)."
        ),
        parameters=[s.ReplayQuery, GAME_KEY],
        responses={
            200: s.ReplayOut,
            409: error_response("The game's cards are hidden now (a paused practice table)."),
            **ERROR_RESPONSES,
            **NOT_FOUND,
        },
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id)
        check_reach(request, game)
        page = {}
        if "start" in request.query_params or "limit" in request.query_params:
            query = s.ReplayQuery(data=request.query_params)
            query.is_valid(raise_exception=True)
            page = query.validated_data
        reader = reader_account_id(request)  # its chat without the lines of those it blocked
        return Response(
            selectors.game_replay(game, seat_id=_seat_id(request, game), reader=reader, **page)
        )


class StoryView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Read the game's story: its table log in words, chat included",
        description=(
            "Told from the move log, so every reader (a reload, a late joiner, a watcher) gets "
            "the whole of it: joins, the start, each set found with its cards, each wrong claim "
            "with its cards and why it is not a set, hints and counts, declare timeouts with "
            "their points, the end with the winner, and the chat lines, in time order. Read "
            "with the same access as the game. While the game is being played a hint's card is "
            "shown only to the seat that asked; everyone else reads that a hint was taken. "
            'The game\'s sockets are sent the newer entries as `{"type": "story", "entries": '
            "[...]}` after each state."
        ),
        parameters=[GAME_KEY],
        responses={200: s.StoryOut, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        head, seat, game, _now = _read_now(request, game_id)
        viewer = seat.name if seat is not None else None
        body = story.game_story(
            game,
            state=head.state,
            version=head.version,
            viewer=viewer,
            reader=reader_account_id(request),
        )
        return Response(body)


class ExportView(APIView):
    authentication_classes = AUTH

    @extend_schema(
        tags=["Games"],
        summary="Export a game: seed, options, state and the whole move log",
        description=(
            "While the game is being played, the seed, a fixed deck and the state are withheld "
            "(they would tell the cards to come); they are included once it is over. The chat "
            "leaves out the lines of the accounts the reader blocked."
        ),
        parameters=[GAME_KEY],
        responses={200: s.ExportOut, **NOT_FOUND},
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id)
        check_reach(request, game)
        staff = bool(getattr(request.user, "is_staff", False))
        full = staff or game.status == Game.Status.OVER
        export = selectors.game_export(
            game,
            full=full,
            seat_id=_seat_id(request, game),
            hidden_players=selectors.blocked_players(reader_account_id(request)),
        )
        response = JsonResponse(export, json_dumps_params={"indent": 2})
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.json"'
        return response


CHAT_EXAMPLE = OpenApiExample(
    "A chat message",
    value={"id": 7, "name": "ada", "text": "Good game!", "at": "2026-11-25T02:51:05.123Z"},
    response_only=True,
)
CHAT_POST_EXAMPLE = OpenApiExample("Say something", value={"text": "Good game!"}, request_only=True)
CHAT_RATE_LIMITED = {
    429: error_response(
        "Too many chat messages from this player (RATE_LIMIT_CHAT, 10 per 10 seconds by "
        "default); the Retry-After header says how many seconds to wait."
    ),
}
CHAT_PUSHED = (
    "Every socket of the game (`/ws/games/<id>/`) is sent the new message as "
    '`{"type": "chat", "id", "name", "text", "at"}`; `at` is ISO 8601 in UTC. Chat is not a '
    "move: the game's version and move log stay as they are."
)


def chat_log_answer(request, game_id: int | None):
    query = s.ChatQuery(data=request.query_params)
    query.is_valid(raise_exception=True)
    messages = selectors.chat_log(
        game_id,
        since_id=query.validated_data["since"],
        reader=reader_account_id(request),
        viewer_id=chat_reader(request),
    )
    return Response([selectors.chat_json(message) for message in messages])


def chat_reader(request) -> int | None:
    """The player reading a chat (who reads their own hidden lines too), if any is known."""
    if isinstance(request.auth, AccountGrant):
        player = account_player(request.auth.user)
        return player.pk if player is not None else None
    if isinstance(request.auth, SeatRef):
        return request.auth.player_id
    player = session_player(request)
    return player.pk if player is not None else None


def chat_seat(request, game_id: int) -> SeatRef:
    """The seat a chat message at a game comes from; anyone else is a spectator (403), who may
    read the chat but not write in it."""
    try:
        return acting_seat(request, game_id)
    except Forbidden:
        if isinstance(request.auth, SeatRef):
            raise  # a seat token of another game: that is what is wrong
        raise Forbidden(services.SPECTATORS_READ) from None


class ChatView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Chat"],
        summary="Read a game's chat",
        description=(
            "Anyone who can watch the game may read its chat: the messages oldest first, at most "
            f"{selectors.CHAT_PAGE} at a time; `?since=<id>` reads those after a message."
        ),
        parameters=[s.ChatQuery, GAME_KEY],
        responses={200: s.ChatOut(many=True), **ERROR_RESPONSES, **NOT_FOUND},
        examples=[CHAT_EXAMPLE],
    )
    def get(self, request, game_id: int):
        game = selectors.game_row(game_id)
        check_reach(request, game)
        return chat_log_answer(request, game.pk)

    @extend_schema(
        tags=["Chat"],
        summary="Write in a game's chat",
        description=(
            "Only a seated player writes (a seat token, an account's Bearer token, or the "
            "browser's session); spectators read but may not write (403). The text is 1 to "
            f"{s.CHAT_MAX_LENGTH} characters once stripped, plain text. " + CHAT_PUSHED
        ),
        request=s.ChatRequest,
        responses={
            201: s.ChatOut,
            **JSON_BODY_RESPONSES,
            **NOT_FOUND,
            403: error_response("Spectators can read the chat but not write in it."),
            **CHAT_RATE_LIMITED,
        },
        examples=[CHAT_POST_EXAMPLE, CHAT_EXAMPLE],
    )
    def post(self, request, game_id: int):
        seat = chat_seat(request, game_id)
        body = s.ChatRequest(data=request.data)
        body.is_valid(raise_exception=True)
        message = services.chat_post(
            game_id=seat.game_id, player_id=seat.player_id, text=body.validated_data["text"]
        )
        return Response(selectors.chat_json(message), status=status.HTTP_201_CREATED)


class LobbyChatView(APIView):
    authentication_classes = AUTH
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Chat"],
        summary="Read the lobby's chat",
        description=(
            f"The lobby's messages oldest first, at most {selectors.CHAT_PAGE} at a time; "
            "`?since=<id>` reads those after a message."
        ),
        parameters=[s.ChatQuery],
        responses={200: s.ChatOut(many=True), **ERROR_RESPONSES, **TOKEN_RESPONSES},
        examples=[CHAT_EXAMPLE],
    )
    def get(self, request):
        return chat_log_answer(request, None)

    @extend_schema(
        tags=["Chat"],
        summary="Write in the lobby's chat",
        description=(
            "A player with a name writes: a browser's session (with its CSRF token) whose "
            "player has chosen a name, an account's Bearer token, or a seat token (as the "
            "seat's player, under the player's name). The text is 1 to "
            f"{s.CHAT_MAX_LENGTH} characters once stripped, plain text. The lobby's sockets are "
            'sent it as `{"type": "chat", "id", "name", "text", "at"}`. The lobby chat opens to '
            "an account once it has finished `LOBBY_CHAT_MIN_GAMES` games (3 by default): "
            "before, and for a guest, a 403 says how many more (chat at your own tables meanwhile)."
        ),
        request=s.ChatRequest,
        responses={
            201: s.ChatOut,
            **JSON_BODY_RESPONSES,
            **TOKEN_RESPONSES,
            403: error_response(
                "No name to write under: choose one, or sign in. Or the lobby chat is not open to "
                "this player yet: it opens once you have finished 3 games (2 more to go)."
            ),
            **CHAT_RATE_LIMITED,
        },
        examples=[CHAT_POST_EXAMPLE, CHAT_EXAMPLE],
    )
    def post(self, request):
        if isinstance(request.auth, AccountGrant):
            player_id = account_player(request.auth.user, create=True).pk
        elif isinstance(request.auth, SeatRef):
            player_id = request.auth.player_id  # a seat's player, under its own name
        else:
            player = session_player_for_write(request)
            if player is None:
                raise Forbidden(services.NAMELESS)
            player_id = player.pk
        body = s.ChatRequest(data=request.data)
        body.is_valid(raise_exception=True)
        message = services.chat_post(
            game_id=None, player_id=player_id, text=body.validated_data["text"]
        )
        return Response(selectors.chat_json(message), status=status.HTTP_201_CREATED)


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
