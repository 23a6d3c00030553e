"""The pages a person uses: the lobby, a Set table, solitaire and the replay of a finished game.

Views only turn forms into service calls and choose what the templates show. The game itself is
played in the browser (static/js/table.js) over the WebSocket ``/ws/games/<id>/`` and the JSON
API; the browser's session names its player (``SESSION_PLAYER_KEY``), which is how the socket and
the API know the seat.

Bad input never raises: a form comes back with a message naming what was wrong (status 400), or,
when it was sent from a table page, the message is shown there after a redirect.
"""

from __future__ import annotations

import random
import re

from django.contrib import messages
from django.db.models import Q
from django.http import Http404
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cards.engine.deck import new_deck
from games import limits, selectors, services
from games.auth import session_player, session_player_save
from games.errors import GameError
from games.models import Game, Player

# The Set rules know a player by a name of letters, digits and underscores (the protocol's).
NAME_PATTERN = re.compile(r"[A-Za-z0-9_]{1,20}")
NAME_RULE = "A name is 1 to 20 letters, digits or underscores, with no spaces (like ada_l)."

RULE_SETS = {
    "declare": ("Declare", (3, 4)),
    "classic": ("Classic", (3, 4, 5)),
}
SPEEDS = ("slow", "medium", "fast")
MAX_COMPUTERS = 3
# How many cards a game deals in all; a quick game ends after a few sets.
LENGTHS = {"full": ("Whole deck", None), "quick": ("Quick: 18 cards", 18)}
LIST_LIMIT = 30


def form_status(error: Exception) -> int:
    """A refused form answers 400, or 429 when the visitor is over a rate limit."""
    return error.http_status if isinstance(error, limits.RateLimited) else 400


class FormError(ValueError):
    """A form field a person must correct; the message says how."""


# --- helpers -----------------------------------------------------------------------------------


def _clean_name(raw) -> str:
    name = (raw or "").strip()
    if not name:
        raise FormError("Please choose a name. " + NAME_RULE)
    if not NAME_PATTERN.fullmatch(name):
        raise FormError(f"{name[:40]!r} cannot be used. {NAME_RULE}")
    return name


def _safe_next(request, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def _choice(data, key: str, allowed, label: str, default=None):
    value = (data.get(key) or "").strip() or default
    if value not in allowed:
        names = ", ".join(str(item) for item in allowed)
        raise FormError(f"Choose the {label} among {names}; {value!r} is not one of them.")
    return value


def _int_choice(data, key: str, allowed, label: str, default: int) -> int:
    raw = (data.get(key) or "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value not in allowed:
        names = ", ".join(str(item) for item in allowed)
        raise FormError(f"Choose the {label} among {names}; {raw[:20]!r} is not one of them.")
    return value


def _table_form(data) -> dict:
    """Read the "new Set table" form into game options; raise FormError naming a bad field."""
    rules = _choice(data, "rules", tuple(RULE_SETS), "rule set", "classic")
    label, attribute_counts = RULE_SETS[rules]
    attributes = _int_choice(
        data, "attributes", attribute_counts, f"number of attributes for {label.lower()}", 4
    )
    visibility = _choice(data, "visibility", ("open", "private"), "visibility", "open")
    computers = _int_choice(
        data, "computers", range(MAX_COMPUTERS + 1), "number of computer opponents", 0
    )
    speed = _choice(data, "speed", SPEEDS, "computer speed", "medium")
    length = _choice(data, "length", tuple(LENGTHS), "game length", "full")
    options = {"rules": rules, "attributes": attributes}
    seed = random.SystemRandom().randrange(2**62)
    size = LENGTHS[length][1]
    if size is not None and size < 3**attributes:
        options["deck"] = [card.protocol for card in new_deck(attributes, rng=seed)[:size]]
    return {
        "options": options,
        "seed": seed,
        "is_open": visibility == "open",
        "computers": computers,
        "speed": speed,
    }


def _winners(seats) -> list[str]:
    if not seats:
        return []
    best = max(seat.score for seat in seats)
    return [seat.name for seat in seats if seat.score == best]


def _describe(game: Game) -> str:
    """A short description of a game's options for lists (rule set, attributes, deck)."""
    if game.kind != Game.Kind.SET:
        return ""
    options = game.options or {}
    parts = [str(options.get("rules", "declare")).capitalize()]
    if options.get("attributes"):
        parts.append(f"{options['attributes']} attributes")
    if options.get("deck"):
        parts.append(f"{len(options['deck'])} cards")
    return ", ".join(parts)


# Each kind's own page for one game (kinds without one use the replay page).
GAME_PAGES = {
    Game.Kind.SET: "table",
    Game.Kind.SETWAR: "setwar-game",
    Game.Kind.SQUARE: "square-game",
}


def game_url(game: Game) -> str:
    return reverse(GAME_PAGES.get(game.kind, "replay"), args=[game.pk])


def _game_row(game: Game, player: Player | None) -> dict:
    seats = list(game.seats.all())
    mine = player is not None and any(seat.player_id == player.pk for seat in seats)
    play_url = game_url(game)
    return {
        "game": game,
        "kind": game.get_kind_display(),
        "description": _describe(game),
        "seats": seats,
        "mine": mine,
        "play_url": play_url,
        "join_url": play_url + "?join=1" if game.kind != Game.Kind.SETWAR else play_url,
        # Set War's own page is its round-by-round replay (a draw has 10,000 rounds).
        "replay_url": play_url
        if game.kind == Game.Kind.SETWAR
        else reverse("replay", args=[game.pk]),
        "winners": _winners(seats),
    }


def _lobby_context(request, **extra) -> dict:
    player = session_player(request)
    live = Game.objects.exclude(status=Game.Status.OVER).prefetch_related("seats")
    visible = Q(is_open=True)
    if player is not None:
        visible |= Q(seats__player=player)
    tables = live.filter(visible).distinct().order_by("-updated")[:LIST_LIMIT]
    finished = (
        Game.objects.filter(status=Game.Status.OVER)
        .prefetch_related("seats")
        .order_by("-finished", "-id")[:LIST_LIMIT]
    )
    context = {
        "player": player,
        "tables": [_game_row(game, player) for game in tables],
        "finished": [_game_row(game, player) for game in finished],
        "rule_sets": [(key, label, counts) for key, (label, counts) in RULE_SETS.items()],
        "speeds": SPEEDS,
        "lengths": [(key, label) for key, (label, _size) in LENGTHS.items()],
        "computer_counts": range(MAX_COMPUTERS + 1),
        "form": {
            "rules": "classic",
            "attributes": "4",
            "visibility": "open",
            "computers": "0",
            "speed": "medium",
            "length": "full",
        },
        "errors": {},
    }
    context.update(extra)
    return context


def _game_or_404(game_id: int) -> Game:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise Http404(f"There is no game with id {game_id}.")
    return game


# --- the lobby ---------------------------------------------------------------------------------


@require_GET
def lobby(request):
    """The home page: your name, a new table, the open tables and the finished games."""
    return render(request, "lobby.html", _lobby_context(request))


@require_POST
def name_set(request):
    """Choose or change the session's player name, then go back where the form was sent from."""
    target = _safe_next(request, reverse("home"))
    try:
        name = _clean_name(request.POST.get("name"))
    except FormError as error:
        if target != reverse("home"):
            messages.error(request, str(error))
            return redirect(target)
        context = _lobby_context(request, errors={"name": str(error)})
        context["name_value"] = (request.POST.get("name") or "")[:40]
        return render(request, "lobby.html", context, status=400)
    session_player_save(request, name)
    messages.success(request, f"You play as {name}.")
    return redirect(target)


@require_POST
def table_create(request):
    """Create a Set table, seat its creator and its computer opponents, and open it."""
    form = {key: (request.POST.get(key) or "")[:40] for key in request.POST}
    try:
        limits.check_join(request)
        if request.POST.get("name") is not None:
            name = _clean_name(request.POST.get("name"))
        else:
            player = session_player(request)
            if player is None:
                raise FormError("Choose a name before creating a table.")
            name = player.name
        table = _table_form(request.POST)
        player = session_player_save(request, name)
        game = services.game_create(
            kind=Game.Kind.SET,
            options=table["options"],
            seed=table["seed"],
            is_open=table["is_open"],
        )
        services.game_join(game_id=game.pk, player=player, name=player.name)
        for _ in range(table["computers"]):
            services.seat_add_computer(game_id=game.pk, speed=table["speed"])
    except (FormError, GameError) as error:
        message = error.message if isinstance(error, GameError) else str(error)
        context = _lobby_context(request, errors={"table": message})
        context["form"].update(form)
        return render(request, "lobby.html", context, status=form_status(error))
    return redirect("table", game_id=game.pk)


@require_GET
def game_page(request, game_id: int):
    """A game's own address: each kind opens its own page (a Set table, a Set War viewer...)."""
    return redirect(game_url(_game_or_404(game_id)))


# --- playing -----------------------------------------------------------------------------------


def live_page_context(request, game: Game) -> dict:
    """What every live game page starts from: the visitor's player and seat, their view of the
    game now, the share link, and the page script's config (addresses, CSRF token, names)."""
    player = session_player(request)
    seat = game.seats.filter(player=player).first() if player is not None else None
    now = services.now_ms()
    game = selectors.game_fresh(game.pk, now)
    view = selectors.game_view(game, seat_name=seat.name if seat else None, now=now)
    join_requested = request.GET.get("join") == "1"
    config = {
        "game": game.pk,
        "version": game.version,
        "ws_url": f"/ws/games/{game.pk}/",
        "api_url": reverse("game-detail", args=[game.pk]),
        "join_url": reverse("game-join", args=[game.pk]),
        "moves_url": reverse("game-moves", args=[game.pk]),
        "computers_url": reverse("game-computers", args=[game.pk]),
        "replay_url": reverse("replay", args=[game.pk]),
        "page_url": game_url(game),
        "csrf": get_token(request),
        "name": player.name if player else None,
        "seat": seat.name if seat else None,
        "auto_join": join_requested and player is not None and seat is None,
        "server_now": now,
        "computers": list(game.seats.filter(is_computer=True).values_list("name", flat=True)),
    }
    return {
        "game": game,
        "player": player,
        "seat": seat,
        "view": view,
        "config": config,
        "share_url": request.build_absolute_uri(game_url(game) + "?join=1"),
        "join_requested": join_requested,
    }


def _table_context(request, game: Game, *, solitaire: bool = False) -> dict:
    context = live_page_context(request, game)
    game = context["game"]
    context["config"].update(
        rules=context["view"].get("rules"), solitaire=solitaire, started_ms=game.created_ms
    )
    return {
        **context,
        "solitaire": solitaire,
        "description": _describe(game),
        "keys": KEY_ROWS,
    }


KEY_ROWS = ["1 2 3 4 5 6 7 8 9 0", "q w e r t y u i o p", "a s d f g h j k l", "z x c v b n m"]


@require_GET
def table_page(request, game_id: int):
    """The Set table: cards, scores and the live game; ``?join=1`` seats the visitor."""
    game = _game_or_404(game_id)
    if game.kind != Game.Kind.SET:
        return redirect(game_url(game))
    return render(request, "table.html", _table_context(request, game))


@require_http_methods(["GET", "POST"])
def solitaire(request):
    """Start a solitaire game: one seat at a classic table, a whole deck against the clock."""
    player = session_player(request)
    context = {"player": player, "attribute_counts": RULE_SETS["classic"][1], "errors": {}}
    if request.method == "GET":
        context["mine"] = _solitaire_games(player)
        return render(request, "solitaire.html", context)
    try:
        limits.check_join(request)
        if request.POST.get("name") is not None or player is None:
            player = session_player_save(request, _clean_name(request.POST.get("name")))
        attributes = _int_choice(
            request.POST, "attributes", RULE_SETS["classic"][1], "number of attributes", 4
        )
        game = services.game_create(
            kind=Game.Kind.SET, options={"rules": "classic", "attributes": attributes}
        )
        services.game_join(game_id=game.pk, player=player, name=player.name)
    except (FormError, GameError) as error:
        context["errors"]["solitaire"] = (
            error.message if isinstance(error, GameError) else str(error)
        )
        context["player"] = session_player(request)
        context["mine"] = _solitaire_games(context["player"])
        return render(request, "solitaire.html", context, status=form_status(error))
    return redirect("solitaire-game", game_id=game.pk)


def _solitaire_games(player: Player | None) -> list[dict]:
    if player is None:
        return []
    games = (
        Game.objects.filter(kind=Game.Kind.SET, seats__player=player, options__rules="classic")
        .prefetch_related("seats")
        .order_by("-id")[:10]
    )
    return [_game_row(game, player) for game in games if len(game.seats.all()) == 1]


@require_GET
def solitaire_game(request, game_id: int):
    """Play a solitaire game: the classic table with a clock, "How many sets?" and "Show one"."""
    game = _game_or_404(game_id)
    if game.kind != Game.Kind.SET:
        return redirect(game_url(game))
    return render(request, "table.html", _table_context(request, game, solitaire=True))


# --- watching it again -------------------------------------------------------------------------


@require_GET
def replay_page(request, game_id: int):
    """Step through a game's moves with the board as it was after each one."""
    game = _game_or_404(game_id)
    seats = list(game.seats.all())
    return render(
        request,
        "replay.html",
        {
            "game": game,
            "seats": seats,
            "winners": _winners(seats) if game.status == Game.Status.OVER else [],
            "description": _describe(game),
            "config": {
                "game": game.pk,
                "kind": game.kind,
                "data_url": reverse("game-replay", args=[game.pk]),
                "table_url": reverse("game-page", args=[game.pk]),
            },
        },
    )
