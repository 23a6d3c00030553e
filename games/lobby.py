"""The lobby's lists of tables as the page and the lobby socket both show them: one reader, one
shape (plain JSON rows), so the HTML of the first render and the frames pushed after it cannot
disagree.

A table is live until it ends; one nobody has played at (no move, no join) for
``LOBBY_IDLE_AFTER_S``, and where no player has the table open (games.presence), is idle: it
leaves the live list for a list of its own, where it can still be opened and finished. Anyone
sees the open tables; a player also sees the private tables they sit at.
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.contrib import auth
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.timesince import timesince

from games import presence, selectors
from games.auth import SESSION_PLAYER_KEY
from games.models import Game, Player
from games.rules import get_rules

LIST_LIMIT = 30


def idle_after() -> datetime.timedelta:
    """How long a table may go without a move or a join before it is shown as idle."""
    return datetime.timedelta(seconds=settings.LOBBY_IDLE_AFTER_S)


def idle_minutes() -> int:
    return int(idle_after().total_seconds() // 60)


def idle_games(games, now: datetime.datetime) -> set[int]:
    """The ids of the idle games among `games`: nobody has played at them (no move, no join)
    for the idle time, and no player has one open (a seat's socket: games.presence; when the
    last one leaves, the lobby is told, games.consumers)."""
    quiet = [game.pk for game in games if game.updated < now - idle_after()]
    return set(quiet) - presence.tables_with_someone_here(quiet)


def lobby_tables(player: Player | None, *, now: datetime.datetime | None = None) -> dict:
    """The live and the idle tables `player` (None: a visitor with no name) is shown, newest
    move first, each a `table_row`; `idle_at`, when the first live table turns idle (None: no
    live table), so a socket can redraw then; and the latest finished games (`finished_row`)."""
    now = now or timezone.now()
    live = Game.objects.exclude(status=Game.Status.OVER).prefetch_related(
        selectors.seats_with_players()
    )
    visible = Q(is_open=True)
    if player is not None:
        visible |= Q(seats__player=player)
    games = list(live.filter(visible).distinct().order_by("-updated")[:LIST_LIMIT])
    # The ratings beside the names at the rated tables: one query for all of them.
    rated = selectors.seat_ratings_of(games)
    idle_ids = idle_games(games, now)
    tables, idle, idle_at = [], [], None
    for game in games:
        row = table_row(game, player, rated.get(game.pk, {}), now=now)
        if game.pk in idle_ids:
            idle.append(row)
            continue
        tables.append(row)
        if game.updated >= now - idle_after():
            turns_idle = game.updated + idle_after()
            idle_at = turns_idle if idle_at is None else min(idle_at, turns_idle)
    seen = selectors.visible_to(selectors.Seated(players=(player.pk,) if player else ()))
    finished = (
        Game.objects.filter(seen, status=Game.Status.OVER)
        .prefetch_related(selectors.seats_with_players())
        .order_by("-finished", "-id")[:LIST_LIMIT]
    )
    return {
        "tables": tables,
        "idle": idle,
        "idle_at": idle_at,
        "finished": [finished_row(game, now=now) for game in finished],
    }


JUST_NOW = datetime.timedelta(minutes=1)


def ago(moment: datetime.datetime, now: datetime.datetime) -> str:
    """How long ago `moment` was, as a list says it: "just now" within the minute (never "0
    minutes ago"), else "5 minutes ago", "1 hour, 2 minutes ago"."""
    if now - moment < JUST_NOW:
        return "just now"
    return f"{timesince(moment, now)} ago"


def finished_row(game: Game, *, now: datetime.datetime) -> dict:
    """A finished game as the lobby lists it (JSON): its seats with their scores, its winners
    (the best score), when it ended (``ended``, ISO 8601, and ``ended_ago``: "just now", "5
    minutes ago") and where to replay it."""
    seats = selectors.seats_shown(game, {})
    best = max((seat["score"] for seat in seats), default=None)
    describe = getattr(get_rules(game.kind), "describe", None)
    play_url = selectors.page_url(game.kind, game.pk)
    return {
        "id": game.pk,
        "kind": game.kind,
        "kind_label": game.get_kind_display(),
        "description": describe(game.options or {}) if describe is not None else "",
        "badges": selectors.game_badges(game),
        "seats": seats,
        "winners": [seat["name"] for seat in seats if seats and seat["score"] == best],
        "ended": game.finished.isoformat() if game.finished else None,
        "ended_ago": ago(game.finished, now) if game.finished else None,
        # Set War's own page is its round-by-round replay.
        "replay_url": play_url
        if game.kind == Game.Kind.SETWAR
        else reverse("replay", args=[game.pk]),
    }


def table_row(
    game: Game, player: Player | None, shown_ratings: dict, *, now: datetime.datetime
) -> dict:
    """A table as the lobby lists it (JSON): its seats as every list shows them
    (selectors.seats_shown), whether `player` sits there, and where to play, join or watch."""
    seats = list(game.seats.all())
    play_url = selectors.page_url(game.kind, game.pk)
    describe = getattr(get_rules(game.kind), "describe", None)
    rated, unrated = selectors.rated_now(game)
    return {
        "id": game.pk,
        "kind": game.kind,
        "kind_label": game.get_kind_display(),
        "description": describe(game.options or {}) if describe is not None else "",
        "badges": selectors.game_badges(game),
        "is_open": game.is_open,
        # Whether it rates, as far as is known now, and why not at one created rated.
        "rated": rated,
        "unrated": unrated,
        "status": game.status,
        "status_label": game.get_status_display(),
        "seats": selectors.seats_shown(game, shown_ratings),
        "mine": player is not None and any(seat.player_id == player.pk for seat in seats),
        "play_url": play_url,
        # Set War's own page is its round-by-round replay: there is nothing to join.
        "join_url": play_url + "?join=1" if game.kind != Game.Kind.SETWAR else play_url,
        "updated": game.updated.isoformat(),
        "quiet_for": timesince(game.updated, now),
    }


def session_lobby_player(session) -> Player | None:
    """The player of a lobby socket's session, as games.auth.session_player finds a browser's
    (the socket has the session, not the request): a guest's named by the session, or the
    signed-in account's (the one this browser played with, or its first)."""
    player_id = session.get(SESSION_PLAYER_KEY)
    user_id = session.get(auth.SESSION_KEY)
    players = Player.objects.select_related("user")
    if user_id is None:
        return players.filter(pk=player_id, user__isnull=True).first() if player_id else None
    player = players.filter(pk=player_id, user_id=user_id).first() if player_id else None
    return player or players.filter(user_id=user_id).order_by("pk").first()


def shown_as(player: Player) -> tuple[str, str | None]:
    """How the lobby's "Online now" names a player: the name, and its account's profile
    (None for a guest)."""
    if player.user_id is None:
        return player.name, None
    try:
        return player.name, reverse("profile", args=[player.user.get_username()])
    except NoReverseMatch:  # a site without the accounts' pages
        return player.name, None
