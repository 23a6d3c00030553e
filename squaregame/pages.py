"""The Square Game's pages: ``/square/`` (start a game, continue a save) and ``/square/<id>/``.

The game is played in the browser (static/js/pages/square.js) over the WebSocket ``/ws/games/<id>/``
and the JSON API; the browser's session names its player, which is how the socket and the API
know the seat. Views only turn forms into service calls and choose what the template shows; a
bad form comes back with a message naming what was wrong (status 400), never a 500.
"""

from __future__ import annotations

import json

from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import limits, lobby, moderation, selectors, services
from games.auth import session_player, session_player_save, table_maker
from games.errors import GameError, RuleError
from games.models import Game, Player
from games.pages import (
    FormError,
    _choice,
    _clean_name,
    _int_choice,
    form_status,
    game_or_404,
    live_page_context,
    with_query,
)
from squaregame.engine import piece_shapes
from squaregame.rules import (
    SAVE_PLAYERS_DEFAULT,
    SEAT_COLOURS,
    STATUS_MEANINGS,
    clean_save,
)

PLAYER_COUNTS = (2, 3, 4)
SPEEDS = ("fast", "medium", "slow", "instant")
SPEED_LABELS = {
    "fast": "Fast (about 3 s a move)",
    "medium": "Medium (about 7 s)",
    "slow": "Slow (about 12 s)",
    "instant": "Instant (a demo)",
}
MAX_SAVE_BYTES = 1_000_000
LIST_LIMIT = 20


def _games_context(request, player: Player | None, **extra) -> dict:
    # The seats with their players, whose accounts mark the guests.
    seated = selectors.Seated(players=(player.pk,) if player is not None else ())
    squares = Game.objects.filter(
        selectors.visible_to(seated), kind=Game.Kind.SQUARE
    ).prefetch_related(selectors.seats_with_players())
    waiting = list(squares.filter(status=Game.Status.WAITING).order_by("-id")[:LIST_LIMIT])
    mine = (
        list(squares.filter(seats__player=player).distinct().order_by("-id")[:LIST_LIMIT])
        if player is not None
        else []
    )
    finished = list(
        squares.filter(status=Game.Status.OVER).order_by("-finished", "-id")[:LIST_LIMIT]
    )
    # The ratings beside the names in the rated games still played: one query for all lists.
    rated = selectors.seat_ratings_of(
        [game for game in (*waiting, *mine) if game.status != Game.Status.OVER]
    )
    # An idle game leaves the waiting list for a list of its own, as in the lobby (games.lobby).
    idle_ids = lobby.idle_games(waiting, timezone.now())
    idle = [game for game in waiting if game.pk in idle_ids]
    waiting = [game for game in waiting if game.pk not in idle_ids]
    idle_title = f"Idle games: nobody has played at them for {lobby.idle_minutes()} minutes"
    lists = [
        ("square-waiting", "Games waiting for players", waiting, "No game is waiting for players."),
        ("square-idle", idle_title, idle, None),
        ("square-mine", "Your games", mine, "You have not played yet."),
        ("square-finished", "Finished games", finished, "No game has finished yet."),
    ]
    context = {
        "game": None,
        "player": player,
        "game_lists": [
            {
                "id": key,
                "title": title,
                "rows": [_row(game, player, rated) for game in games],
                "empty": empty,
            }
            for key, title, games, empty in lists
            if (player is not None or key != "square-mine") and (games or empty is not None)
        ],
        "player_counts": PLAYER_COUNTS,
        "speeds": [(key, SPEED_LABELS[key]) for key in SPEEDS],
        "form": {"players": "2", "computers": "1", "speed": "fast", "import_players": "4"},
        "errors": {},
    }
    context.update(extra)
    return context


def _row(game: Game, player: Player | None, rated: dict[int, dict]) -> dict:
    seats = list(game.seats.all())
    winners = []
    if game.status == Game.Status.OVER:
        names = [seat.name for seat in seats]
        winners = [
            names[seat - 1] for seat in game.state["game"]["winners"] if seat - 1 < len(names)
        ]
    # As the Set lobby says it: rated while it still rates, else why not (one judge).
    is_rated, unrated = selectors.rated_now(game)
    return {
        "rated": is_rated,
        "unrated": unrated,
        "game": game,
        "players": game.options.get("players"),
        "seats": seats,
        "seat_list": selectors.seats_shown(game, rated.get(game.pk, {})),
        "imported": "save" in game.options,
        "mine": player is not None and any(seat.player_id == player.pk for seat in seats),
        "winners": winners,
        "url": reverse("square-game", args=[game.pk]),
        "replay_url": reverse("replay", args=[game.pk]),
    }


def _form_player(request) -> Player:
    """The session's player, named from the form's ``name`` field when it has one."""
    if request.POST.get("name") is not None:
        return session_player_save(request, _clean_name(request.POST.get("name"), request))
    player = session_player(request)
    if player is None:
        raise FormError("Choose a name before starting a game.")
    return player


@require_http_methods(["GET", "POST"])
def square_home(request):
    """Start a Square Game: how many players, how many of them computers, and how fast."""
    player = session_player(request)
    if request.method == "GET":
        return render(request, "square.html", _games_context(request, player))
    form = {key: (request.POST.get(key) or "")[:40] for key in request.POST}
    try:
        players = _int_choice(request.POST, "players", PLAYER_COUNTS, "number of players", 2)
        computers = _int_choice(
            request.POST, "computers", range(players), f"number of computers (0-{players - 1})", 1
        )
        speed = _choice(request.POST, "speed", SPEEDS, "computer speed", "fast")
        limits.check_join(request)
        player = _form_player(request)
        moderation.check_ban(player.pk)  # before the game is made: a banned account makes none
        game = services.game_create(
            kind=Game.Kind.SQUARE,
            options={"players": players},
            is_open=True,  # listed here for anyone to join, as every Square Game page's game
            # Only an account's game can be rated: a guest's box is ignored (it is not shown).
            rated=request.user.is_authenticated and request.POST.get("rated") == "on",
            maker=table_maker(request),
        )
        services.game_join(game_id=game.pk, player=player, name=player.name)
        for _ in range(computers):
            services.seat_add_computer(game_id=game.pk, speed=speed)
    except (FormError, GameError) as error:
        message = error.message if isinstance(error, GameError) else str(error)
        context = _games_context(request, session_player(request), errors={"create": message})
        context["form"].update(form)
        return render(request, "square.html", context, status=form_status(error))
    return redirect("square-game", game_id=game.pk)


@require_POST
def square_import(request):
    """Continue a saved game: the upload becomes a new game the visitor sits at as seat 1."""
    form = {"import_players": (request.POST.get("import_players") or "")[:4]}
    try:
        players = _int_choice(
            request.POST, "import_players", PLAYER_COUNTS, "number of players", SAVE_PLAYERS_DEFAULT
        )
        upload = request.FILES.get("save_file")
        if upload is None:
            raise FormError("Choose a save file (.json) to continue.")
        if upload.size > MAX_SAVE_BYTES:
            raise FormError(f"The file is too large: a save is at most {MAX_SAVE_BYTES} bytes.")
        try:
            data = json.loads(upload.read().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            raise FormError(f"The file is not a JSON save file ({error}).") from None
        try:
            save = clean_save(data)
        except RuleError as error:
            raise FormError(str(error)) from None
        limits.check_join(request)
        player = _form_player(request)
        game = services.game_create(
            kind=Game.Kind.SQUARE, options={"players": players, "save": save}, is_open=True
        )
        if game.status != Game.Status.OVER:  # a save of a finished game is only watched
            services.game_join(game_id=game.pk, player=player, name=player.name)
    except (FormError, GameError) as error:
        message = error.message if isinstance(error, GameError) else str(error)
        context = _games_context(request, session_player(request), errors={"import": message})
        context["form"].update(form)
        return render(request, "square.html", context, status=form_status(error))
    return redirect("square-game", game_id=game.pk)


@require_GET
def square_game(request, game_id: int):
    """Play a Square game: the board, your pieces, the ghost; ``?join=1`` seats the visitor."""
    game = game_or_404(request, game_id)
    if game.kind != Game.Kind.SQUARE:
        return redirect(with_query(request, reverse("game-page", args=[game.pk])))
    context = live_page_context(request, game)
    context["config"].update(
        save_url=reverse("game-save", args=[game.pk]),
        colours=list(SEAT_COLOURS),
        meanings={str(code): text for code, text in STATUS_MEANINGS.items()},
        # The pieces as the engine lays them, so the page draws them from no copy of its own.
        pieces=piece_shapes(),
        # A rated game offers "End the game: X left" once the seat to move has been away on
        # its turn for the table's away time (the end_left action; the server judges).
        rated=bool(game.rated),
    )
    return render(
        request,
        "square.html",
        {
            **context,
            "imported": "save" in game.options,
            "meanings": sorted(STATUS_MEANINGS.items()),
        },
    )
