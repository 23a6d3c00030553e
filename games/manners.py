"""The site's manners that are gates, read before a write (issue 28, item 3): who may write in
the lobby's chat yet. Reads only; the services ask here and refuse with the sentence given.

- The lobby's chat opens to an account once it has finished LOBBY_CHAT_MIN_GAMES games (0: open
  to every named player, guests too). Until then, and for a guest, chat is at the tables one sits
  at (a table's chat is its seated players' only: services.chat_post).
- A player (an account, a guest's player, an API client without either by its address) may have
  at most PUBLIC_TABLES_PER_HOUR unfinished public tables made in the last hour (0: no limit), as
  the most used Set site does; beyond, `TooManyTables` (429, Retry-After: when the oldest of them
  is an hour old). Private tables (by link) and finished ones are not counted.
- An account that left rated games (another seat ended the game with ``end_left`` once its seat
  had been away past the table's limit) more than LEAVE_FREE_PER_DAY times in 24 hours waits
  LEAVE_WAIT_MINUTES after the last leave, doubled for each leave more, before it sits at a rated
  table again (`RatedWait`, 403 with ``until``); its profile shows why and until when.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import F
from django.db.models.fields.json import KT
from django.utils import timezone
from rest_framework import status

from games.errors import GameError
from games.models import Game, Move, Player, Seat

HOUR = dt.timedelta(hours=1)


def lobby_chat_min_games() -> int:
    return max(0, int(getattr(settings, "LOBBY_CHAT_MIN_GAMES", 3) or 0))


def finished_games(player: Player) -> int:
    """How many finished games the player (an account: all of its players) sat at."""
    seats = Seat.objects.filter(is_computer=False, game__status=Game.Status.OVER)
    if player.user_id is not None:
        seats = seats.filter(player__user_id=player.user_id)
    else:
        seats = seats.filter(player_id=player.pk)
    return seats.values("game_id").distinct().count()


def lobby_chat_refusal(player: Player | None) -> str | None:
    """Why `player` may not write in the lobby's chat yet, in a sentence; None if it may."""
    needed = lobby_chat_min_games()
    if needed == 0 or player is None:
        return None  # nameless: the chat's own sentence (services.NAMELESS) says what to do
    games = "game" if needed == 1 else "games"
    if player.user_id is None:
        return (
            f"The lobby chat is for accounts that have finished {needed} {games}: sign in and "
            "play. Meanwhile you can chat at the tables you sit at."
        )
    more = needed - finished_games(player)
    if more <= 0:
        return None
    return (
        f"The lobby chat opens once you have finished {needed} {games}: "
        f"{more} more to go. Meanwhile you can chat at the tables you sit at."
    )


# -- public tables made per hour ------------------------------------------------------------------


class TooManyTables(GameError):
    """Too many unfinished public tables made in the last hour (429, with Retry-After)."""

    http_status = status.HTTP_429_TOO_MANY_REQUESTS

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def public_tables_per_hour() -> int:
    return max(0, int(getattr(settings, "PUBLIC_TABLES_PER_HOUR", 4) or 0))


def check_public_tables(maker: str, *, now: dt.datetime | None = None) -> None:
    """Refuse (TooManyTables) a new public table by `maker` who has made PUBLIC_TABLES_PER_HOUR
    public tables in the last hour that are not finished yet."""
    allowed = public_tables_per_hour()
    if not maker or allowed == 0:
        return
    now = now or timezone.now()
    recent = list(
        Game.objects.filter(maker=maker, is_open=True, created__gt=now - HOUR)
        .exclude(status=Game.Status.OVER)
        .order_by("created")
        .values_list("created", flat=True)[:allowed]
    )
    if len(recent) < allowed:
        return
    wait = max(1, int((recent[0] + HOUR - now).total_seconds()) + 1)
    minutes = -(-wait // 60)
    raise TooManyTables(
        f"Too many unfinished public games were recently created: at most {allowed} an hour. "
        f"Finish one, make a private table (by link), or try again in {minutes} "
        f"minute{'s' if minutes != 1 else ''}.",
        wait,
    )


# -- leaving rated games ---------------------------------------------------------------------------

LEAVE_WINDOW = dt.timedelta(hours=24)


class RatedWait(GameError):
    """An account that left rated games too often waits before it plays rated again (403); the
    answer says why and `until` when."""

    http_status = status.HTTP_403_FORBIDDEN

    def __init__(self, message: str, until: dt.datetime):
        super().__init__(message)
        self.until = until


def leaves(user_id: int, *, now: dt.datetime | None = None) -> list[dict]:
    """The rated games the account left (ended by another seat's ``end_left`` naming its seat)
    in the last 24 hours, oldest first: ``{"game", "at"}``. The leave is the game's own move,
    written by the one write path: nothing else records it."""
    now = now or timezone.now()
    moves = _leave_moves([user_id], now).order_by("created").values_list("game_id", "created")
    return [{"game": game_id, "at": at} for game_id, at in moves.distinct()]


def _leave_moves(user_ids, now: dt.datetime):
    return Move.objects.annotate(gone=KT("action__seat")).filter(
        action__type="end_left",
        game__rated=True,
        created__gt=now - LEAVE_WINDOW,
        game__seats__name=F("gone"),
        game__seats__player__user_id__in=user_ids,
    )


def may_wait_rated(user_ids, *, now: dt.datetime | None = None) -> set[int]:
    """Among `user_ids`, the accounts that left a rated game in the last 24 hours (one query
    for all): the only ones `rated_wait` may make wait."""
    now = now or timezone.now()
    found = _leave_moves(list(user_ids), now).values_list("game__seats__player__user_id", flat=True)
    return set(found)


def rated_wait(user_id: int | None, *, now: dt.datetime | None = None) -> dict | None:
    """How long the account waits before it plays rated again, or None: ``{"until", "leaves",
    "minutes"}``. LEAVE_FREE_PER_DAY leaves in 24 hours are free; the next makes it wait
    LEAVE_WAIT_MINUTES after it, and each one more doubles the wait."""
    if user_id is None:
        return None
    now = now or timezone.now()
    left = leaves(user_id, now=now)
    free = max(0, int(getattr(settings, "LEAVE_FREE_PER_DAY", 2)))
    minutes = max(0, int(getattr(settings, "LEAVE_WAIT_MINUTES", 10)))
    if len(left) <= free or minutes == 0:
        return None
    wait = minutes * 2 ** (len(left) - free - 1)
    until = left[-1]["at"] + dt.timedelta(minutes=wait)
    if until <= now:
        return None
    return {"until": until, "leaves": left, "minutes": wait}


def minutes_left(wait: dict, *, now: dt.datetime | None = None) -> int:
    return max(1, -(-int((wait["until"] - (now or timezone.now())).total_seconds()) // 60))


def rated_wait_sentence(
    wait: dict, *, who: str | None = None, now: dt.datetime | None = None
) -> str:
    """Why and until when an account waits, said to it (or, `who`, about it to another)."""
    left = minutes_left(wait, now=now)
    games = ", ".join(f"#{leave['game']}" for leave in wait["leaves"])
    when = f"{left} minute{'s' if left != 1 else ''}, at {wait['until']:%H:%M} UTC"
    if who is not None:
        return (
            f"{who} left {len(wait['leaves'])} rated games in the last 24 hours ({games}) and "
            f"can play rated again in {when}. An unrated table is open to you both."
        )
    return (
        f"You left {len(wait['leaves'])} rated games in the last 24 hours ({games}): you can "
        f"play rated again in {when}. Unrated tables are open to you meanwhile."
    )


def check_rated_wait(user_id: int | None, *, who: str | None = None) -> None:
    """Refuse (RatedWait, 403) a rated table to an account that must wait (`who`: named, to
    another account that would sit with it)."""
    wait = rated_wait(user_id)
    if wait is not None:
        raise RatedWait(rated_wait_sentence(wait, who=who), wait["until"])


def check_rated_join(*, game_id: int, player_id: int) -> None:
    """Refuse a seat at a rated table to a player whose account must wait. The leaves are read
    first (most accounts have none): the table only for an account that waits."""
    user_id = Player.objects.filter(pk=player_id).values_list("user_id", flat=True).first()
    wait = rated_wait(user_id)
    if wait is not None and Game.objects.filter(pk=game_id, rated=True).exists():
        raise RatedWait(rated_wait_sentence(wait), wait["until"])
