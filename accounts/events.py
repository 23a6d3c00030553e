"""An account's event stream, ``GET /api/stream/event`` (accounts.challenge_api.EventStreamView):
what concerns the account as it happens, one JSON object a line (``application/x-ndjson``)::

    {"type": "gameStart", "game": {"id": 7, "kind": "set", "url": "/play/7/?key=..."}}
    {"type": "challenge", "challenge": {"id": 3, "challenger": "ada", "dest": "bob", ...}}
    {"type": "challengeCanceled", "challenge": {...}}
    {"type": "challengeDeclined", "challenge": {..., "reason": "later"}}
    {"type": "gameFinish", "game": {"id": 7, "kind": "set", "url": "/play/7/?key=..."}}

On connect it first sends a ``gameStart`` for each game the account is seated at that is not
finished, then a ``challenge`` for each challenge to it waiting for its answer, then the events
as they come (a ``challenge``: one to the account; the answers: to it or from it), and a bare
newline after EVENT_STREAM_KEEPALIVE_S quiet seconds. Each game's start and end are told once,
and a game's end before the account's next game's start (`finished_events`).

The events come through the channel layer (the account's group, games.realtime.account_group),
so an event made on one server process reaches a stream held on another. A stream holds one of
its account's EVENT_STREAMS_MAX_OPEN slots until it ends, and counts its account as having a
stream open (games.presence, shared by every process; `bots_online`: the bots among them). It
ends when the server stops, when its token is revoked, and after an ``error`` line when the
database or Redis stops answering, as a game's stream does (games.follow).
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts import challenges
from accounts.models import Challenge
from games import follow, presence, realtime, runtime, services
from games.bots import bot_users
from games.errors import unavailable
from games.models import Game

#: The open event streams of each account, in this process.
event_slots = follow.StreamSlots("EVENT_STREAMS_MAX_OPEN", "event streams")

_arrive = sync_to_async(presence.stream_arrive, thread_sensitive=False)
_leave = sync_to_async(presence.stream_leave, thread_sensitive=False)


def first_events(user_id: int) -> list[dict]:
    """What a stream sends first: the account's games not finished, then the challenges to it
    waiting for its answer."""
    events = []
    games = (
        Game.objects.filter(seats__player__user_id=user_id)
        .exclude(status=Game.Status.OVER)
        .distinct()
        .order_by("id")
    )
    for game in games.only("id", "kind", "link_key"):
        events.append(
            services.game_event(
                "gameStart", game.pk, kind_of_game=game.kind, link_key=game.link_key
            )
        )
    for challenge in open_challenges(user_id).filter(dest_id=user_id):  # those to answer
        events.append({"type": "challenge", "challenge": challenges.challenge_json(challenge)})
    return events


def finished_events(game_ids) -> list[dict]:
    """A ``gameFinish`` for each of these games that is over. A stream tells a game's end
    before the account's next game's start: the end may come from another process a moment
    after a start made in this one (the pairing seats a player as soon as their game is
    over)."""
    games = Game.objects.filter(pk__in=game_ids, status=Game.Status.OVER).order_by("id")
    return [
        services.game_event("gameFinish", game.pk, kind_of_game=game.kind, link_key=game.link_key)
        for game in games.only("id", "kind", "link_key")
    ]


def open_challenges(user_id: int):
    """The account's challenges (sent or received) still waiting for their answer, oldest
    first."""
    since = timezone.now() - datetime.timedelta(seconds=settings.CHALLENGE_EXPIRES_S)
    mine = Challenge.objects.filter(challenger_id=user_id) | Challenge.objects.filter(
        dest_id=user_id
    )
    return (
        mine.filter(status=Challenge.Status.CREATED, created__gt=since)
        .select_related("challenger", "dest")
        .order_by("id")
    )


def bots_online() -> list:
    """The bot accounts (games.bots) with an event stream open now (in any process), by name."""
    users = get_user_model().objects.filter(
        pk__in=bot_users(presence.streams_open()), is_active=True
    )
    return sorted(users, key=lambda user: user.get_username().casefold())


class EventStream(follow.NdjsonStream):
    """The lines of one account's event stream (the module's docstring); it counts the account
    as having a stream open while it lasts."""

    prefix = "events."

    def __init__(self, user_id: int, credentials, slot: follow.Slot) -> None:
        super().__init__(credentials, slot)
        self.user_id = user_id

    def groups(self) -> list[str]:
        return [realtime.account_group(self.user_id)]

    async def follow(self, channel: str, inbox: asyncio.Queue) -> AsyncIterator[bytes]:
        await _arrive(channel, self.user_id)
        loop = asyncio.get_running_loop()
        arrived = loop.time()
        timer: asyncio.TimerHandle | None = None
        games: set[int] = set()  # the games whose gameStart was sent (each once)
        ended: set[int] = set()  # the games whose gameFinish was sent (each once)
        offered: set[int] = set()  # the challenges sent
        try:
            for event in await runtime.run_db(first_events, self.user_id):
                if _seen(event, games, ended, offered):
                    continue
                yield _line(event)
            keepalive = settings.EVENT_STREAM_KEEPALIVE_S
            quiet_until = loop.time() + keepalive
            timer = loop.call_at(quiet_until, follow.wake, inbox)
            while True:
                message = await inbox.get()
                kind = message.get("type")
                if kind == follow.WAKE["type"]:
                    if loop.time() >= quiet_until:
                        yield b"\n"
                        quiet_until = loop.time() + keepalive
                        if loop.time() - arrived >= settings.LOBBY_HEARTBEAT_S:
                            # Still open: said as often as the lobby's sockets say it (each
                            # saying rewrites every stream's entry).
                            await _arrive(channel, self.user_id)
                            arrived = loop.time()
                    timer.cancel()
                    timer = loop.call_at(quiet_until, follow.wake, inbox)
                    continue
                if kind in (realtime.RESTART, "access.ended"):
                    return  # the server stops, the token was revoked: the client comes back
                if kind != "account.event":
                    continue
                event = message.get("event") or {}
                if message.get("sent"):
                    continue  # a challenge this account sent: its pages show it, not its stream
                if _seen(event, games, ended, offered):
                    continue
                playing = games - ended - {(event.get("game") or {}).get("id")}
                if event.get("type") == "gameStart" and playing:
                    # Its earlier games' ends first, if they are over and not told yet.
                    for finish in await runtime.run_db(finished_events, sorted(playing)):
                        _seen(finish, games, ended, offered)
                        yield _line(finish)
                yield _line(event)
                quiet_until = loop.time() + keepalive
        finally:
            if timer is not None:
                timer.cancel()
            try:
                await _leave(channel)
            except Exception as exc:  # its entry runs out by itself
                if unavailable(exc) is None:
                    raise


def _seen(event: dict, games: set[int], ended: set[int], offered: set[int]) -> bool:
    """Whether the stream sent this already (a game's start is told by its table's start and
    by the challenge that made it; the first lines and a live event may cross; a game's end
    may have been told before the next game's start): note it."""
    kind = event.get("type")
    if kind in ("gameStart", "gameFinish"):
        game_id = (event.get("game") or {}).get("id")
        told = games if kind == "gameStart" else ended
        if game_id in told:
            return True
        told.add(game_id)
    elif kind == "challenge":
        challenge_id = (event.get("challenge") or {}).get("id")
        if challenge_id in offered:
            return True
        offered.add(challenge_id)
    return False


def _line(event: dict) -> bytes:
    return runtime.json_text(event).encode() + b"\n"
