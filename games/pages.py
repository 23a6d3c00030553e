"""The pages every kind shares: a game's own address, the start of every live game page, and the
replay of any game; the forms' helpers. Each game app has its own pages (cards.pages,
squaregame.pages).

Views only turn forms into service calls and choose what the templates show. The game itself is
played in the browser (static/js/table.js) over the WebSocket ``/ws/games/<id>/`` and the JSON
API; the browser's session names its player (``SESSION_PLAYER_KEY``), which is how the socket and
the API know the seat.

Bad input never raises: a form comes back with a message naming what was wrong (status 400), or,
when it was sent from a table page, the message is shown there after a redirect.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import Http404
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from games import ghosts, limits, ratings, selectors, services
from games.auth import (
    ACCOUNT_NAME_TAKEN,
    is_account_name,
    is_guest,
    may_reach,
    reader_account_id,
    session_player,
    session_player_save,
)
from games.errors import GameError, NotFound
from games.models import CHAT_MAX_LENGTH, Game, Player
from games.names import BadName, check_name
from games.rules import get_rules

# What each kind adds to its pages' script config (the words and drawings of its cards...),
# registered by the kind's app when Django is ready: the platform knows no game's shapes.
_PAGE_CONFIG: dict[str, Callable[[dict], dict]] = {}


def register_page_config(kind: str, build: Callable[[dict], dict]) -> None:
    """Let ``kind``'s pages get ``build(options)`` in their script config."""
    _PAGE_CONFIG[kind] = build


def page_config(game: Game) -> dict:
    """What ``game``'s kind adds to a page's script config (nothing for most kinds)."""
    build = _PAGE_CONFIG.get(game.kind)
    return build(game.options) if build else {}


def form_status(error: Exception) -> int:
    """A refused form answers 400, or 429 when the visitor is over a rate limit."""
    return error.http_status if getattr(error, "http_status", 400) == 429 else 400


class FormError(ValueError):
    """A form field a person must correct; the message says how, and `field` (a form field's
    name, or None: the whole form) which control it is shown beside."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


# --- helpers -----------------------------------------------------------------------------------


def _clean_name(raw, request=None) -> str:
    """A valid player name; with the `request` of a guest (no account signed in), one that no
    account has (ignoring case)."""
    try:
        name = check_name((raw or "").strip())
    except BadName as error:
        raise FormError(str(error), "name") from None
    if request is not None and is_guest(request) and is_account_name(name):
        raise FormError(ACCOUNT_NAME_TAKEN, "name")
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
        raise FormError(f"Choose the {label} among {names}; {value!r} is not one of them.", key)
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
        raise FormError(f"Choose the {label} among {names}; {raw[:20]!r} is not one of them.", key)
    return value


def _winners(seats) -> list[str]:
    if not seats:
        return []
    best = max(seat.score for seat in seats)
    return [seat.name for seat in seats if seat.score == best]


def _describe(game: Game) -> str:
    """A short description of a game's options for lists, as its kind words it (or nothing)."""
    describe = getattr(get_rules(game.kind), "describe", None)
    return describe(game.options or {}) if describe is not None else ""


def game_url(game: Game) -> str:
    """A game's own page: its kind's (`page`, a URL name), else the replay page."""
    return selectors.page_url(game.kind, game.pk)


def share_path(game: Game) -> str:
    """The link that invites to a game: its page, joining; a private game's carries its key."""
    return selectors.keyed_url(f"{game_url(game)}?join=1", game.link_key)


def game_row(game: Game, player: Player | None) -> dict:
    seats = list(game.seats.all())
    mine = player is not None and any(seat.player_id == player.pk for seat in seats)
    play_url = game_url(game)
    rated, unrated = selectors.rated_now(game)  # the seats are fetched already
    return {
        "game": game,
        # Rated means rated: a game created rated that a hint (or a guest) unrated is not.
        "rated": rated,
        "unrated": unrated,
        "kind": game.get_kind_display(),
        "description": _describe(game),
        "badges": selectors.game_badges(game),
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


def game_or_404(request, game_id: int) -> Game:
    """The game a page shows, or the site's 404 page: for a game that does not exist, and for a
    private game this visitor may not see (games.auth.may_reach). A visitor who brings the
    key (its link) is remembered, so the page's own requests and socket need no key."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not may_reach(request, game.pk, game.link_key, remember=True):
        raise Http404(f"There is no game with id {game_id}.")
    return game


def with_query(request, url: str) -> str:
    """`url` with the request's query string (a private game's key goes where the page goes)."""
    query = request.META.get("QUERY_STRING", "")
    return f"{url}?{query}" if query else url


# --- the lobby ---------------------------------------------------------------------------------


@require_GET
def game_page(request, game_id: int):
    """A game's own address: each kind opens its own page (a Set table, a Set War viewer...)."""
    return redirect(with_query(request, game_url(game_or_404(request, game_id))))


# --- playing -----------------------------------------------------------------------------------


def live_page_context(request, game: Game) -> dict:
    """What every live game page starts from: the visitor's player and seat, their view of the
    game now, the share link, and the page script's config (addresses, CSRF token, names)."""
    player = session_player(request)
    seat = game.seats.filter(player=player).first() if player is not None else None
    now = services.now_ms()
    head = services.game_fresh(game.pk, now)  # a deadline passed is applied first
    if head.version != game.version:
        game.refresh_from_db()
    view = selectors.game_view(head, seat_name=seat.name if seat else None, now=now)
    join_requested = request.GET.get("join") == "1"
    rated, unrated = selectors.rated_now(game, head.state)
    config = {
        "game": game.pk,
        "version": game.version,
        "ws_url": f"/ws/games/{game.pk}/?presence=1",
        "api_url": reverse("game-detail", args=[game.pk]),
        "join_url": reverse("game-join", args=[game.pk]),
        "moves_url": reverse("game-moves", args=[game.pk]),
        "computers_url": reverse("game-computers", args=[game.pk]),
        "replay_url": reverse("replay", args=[game.pk]),
        "rematch_url": reverse("game-rematch", args=[game.pk]),
        "chat_url": reverse("game-chat", args=[game.pk]),
        "page_url": game_url(game),
        "csrf": get_token(request),
        "name": player.name if player else None,
        "seat": seat.name if seat else None,
        "auto_join": join_requested and player is not None and seat is None,
        "server_now": now,
        # As the game's JSON says (GET api_url): whether it rates, and why not when unrated.
        "rated": rated,
        "unrated": unrated,
        "computers": list(game.seats.filter(is_computer=True).values_list("name", flat=True)),
        "guests": list(
            game.seats.filter(is_computer=False, player__user__isnull=True).values_list(
                "name", flat=True
            )
        ),
        # Who plays by program (a computer, a bot account): marked BOT beside the name.
        "bots": sorted(
            seat.name
            for seat in game.seats.filter(is_computer=False, player__user__bot__isnull=False)
        )
        + list(game.seats.filter(is_computer=True).values_list("name", flat=True)),
    }
    return {
        "game": game,
        "player": player,
        "seat": seat,
        "view": view,
        "config": config,
        "share_url": request.build_absolute_uri(share_path(game)),
        "join_requested": join_requested,
        "seat_ratings": selectors.seat_ratings(game),
        "badges": selectors.game_badges(game),
        "rated": rated,
        "unrated": unrated,
        # A finished game played again already: where (its players may still join it).
        "rematch_url": selectors.rematch_url(game) if game.status == Game.Status.OVER else None,
        # The chat's latest lines (escaped by the template), and whether this visitor writes.
        "chat": [
            selectors.chat_json(message)
            for message in selectors.chat_recent(
                game.pk,
                reader=reader_account_id(request),
                viewer_id=player.pk if player is not None else None,
            )
        ],
        "chat_max": CHAT_MAX_LENGTH,
        "can_chat": seat is not None and not seat.is_computer,
    }


# --- watching it again -------------------------------------------------------------------------


@require_GET
def replay_page(request, game_id: int):
    """Step through a game's moves with the board as it was after each one; a kind with a
    viewer of its own (``replay_page``: Set War's rounds) is sent to it."""
    game = game_or_404(request, game_id)
    viewer = getattr(get_rules(game.kind), "replay_page", None)
    if viewer is not None:
        return redirect(with_query(request, reverse(viewer, args=[game.pk])))
    seats = list(game.seats.select_related("player"))  # whose accounts mark the guests
    return render(
        request,
        "replay.html",
        {
            "game": game,
            "chat": [
                selectors.chat_json(m)
                for m in selectors.chat_log(
                    game.pk, limit=10_000, reader=reader_account_id(request)
                )
            ],
            "seats": seats,
            "winners": _winners(seats) if game.status == Game.Status.OVER else [],
            "description": _describe(game),
            "badges": selectors.game_badges(game),
            "raceable": ghosts.raceable(game),
            "config": {
                "game": game.pk,
                "kind": game.kind,
                "data_url": reverse("game-replay", args=[game.pk]),
                "table_url": reverse("game-page", args=[game.pk]),
                **page_config(game),
            },
        },
    )


@require_POST
def race_page(request, game_id: int):
    """Race a finished solo run ("Race this run", "Race"): a new game of its deal with its sets
    as a ghost (games.ghosts), the visitor seated; open it. A refusal goes back to the page the
    button was on, with its sentence."""
    back = _safe_next(request, reverse("replay", args=[game_id]))
    try:
        player = session_player(request)
        if player is None or request.POST.get("name") is not None:
            player = session_player_save(request, _clean_name(request.POST.get("name"), request))
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise Http404(f"There is no game with id {game_id} to race.")
        options, seed = ghosts.race_deal(
            kind=game.kind,
            options={"ghost": game.pk},
            may_see=lambda recorded: may_reach(request, recorded.pk, recorded.link_key),
        )
        limits.check_join(request)
        race = services.game_create(kind=game.kind, options=options, seed=seed)
        ghosts.remember_race(race.pk, game.pk)
        services.game_join(game_id=race.pk, player=player, name=player.name)
    except (FormError, GameError) as error:
        messages.error(request, error.message if isinstance(error, GameError) else str(error))
        return redirect(back)
    return redirect(game_url(race))


@require_GET
def leaderboard_page(request, mode: str | None = None):
    """The top accounts of one rated mode, with a tab (a link) for each mode, and one for the
    people (the default) and one for the bots (``?bots=1``)."""
    names = ratings.mode_names()
    mode = next(iter(names)) if mode is None else mode
    bots = request.GET.get("bots") == "1"
    try:
        board = selectors.leaderboard(mode, bots=bots)
    except NotFound as error:
        raise Http404(str(error)) from None
    return render(
        request,
        "leaderboard.html",
        {
            "mode": mode,
            "modes": list(names.items()),
            "mode_name": names[mode],
            "players": board["players"],
            "bots": bots,
            "min_games": ratings.MIN_GAMES,
        },
    )
