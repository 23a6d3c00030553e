"""Challenges between accounts: one account asks another to play a table of a kind and options;
the other accepts (the table is made, both are seated and it starts), declines, or lets it
expire; the challenger may cancel it.

Each change is told to both accounts' followers (games.realtime.publish_account: their event
streams, accounts.events, and their browsers' lobby sockets) as ``{"type": "challenge",
"challenge": {...}}``, ``challengeCanceled`` or ``challengeDeclined``; an accepted challenge as
``{"type": "gameStart", "game": {"id", "kind", "url", "challenge"}}``.

A challenge waits CHALLENGE_EXPIRES_S for its answer. Expiry is read, not written: a challenge
still "created" after that reads as "expired", and its accept or decline is refused (410).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework import status

from accounts.models import Challenge
from games import limits, manners, moderation, realtime, runtime, services
from games.auth import account_players
from games.errors import Conflict, Forbidden, GameError, NotFound, RuleError
from games.selectors import unique_row

#: Why a challenge is declined (the body's "reason"), and the sentence the challenger is told.
DECLINE_REASONS = {
    "generic": "I'm not accepting challenges at the moment.",
    "later": "This is not the right time for me, please ask again later.",
    "tooFast": "This time control is too fast for me, please challenge again with a slower game.",
    "tooSlow": "This time control is too slow for me, please challenge again with a faster game.",
    "rated": "Please send me a rated challenge instead.",
    "casual": "Please send me a casual challenge instead.",
    "variant": "I'm not willing to play this variant right now.",
}
#: The kinds a challenge may propose: the tables two accounts play against each other.
KINDS = ("set", "square")
# A challenge between accounts one of which blocked the other (games.moderation): refused,
# without saying who blocked whom.
BLOCKED = "You cannot challenge this account, and it cannot challenge you."
EXPIRED = "expired"


def expires_at(challenge: Challenge) -> datetime.datetime:
    return challenge.created + datetime.timedelta(seconds=settings.CHALLENGE_EXPIRES_S)


def status_of(challenge: Challenge, now: datetime.datetime | None = None) -> str:
    """The challenge's status as read now: "expired" for one unanswered past its time."""
    now = timezone.now() if now is None else now
    if challenge.status == Challenge.Status.CREATED and now >= expires_at(challenge):
        return EXPIRED
    return challenge.status


def challenge_url(challenge_id: int) -> str:
    return f"/api/challenge/{challenge_id}"


def challenge_json(challenge: Challenge, now: datetime.datetime | None = None) -> dict:
    """A challenge as the API, the event stream and the lobby socket show it."""
    body = {
        "id": challenge.pk,
        "url": challenge_url(challenge.pk),
        "status": status_of(challenge, now),
        "challenger": challenge.challenger.get_username(),
        "dest": challenge.dest.get_username(),
        "kind": challenge.kind,
        "options": {**challenge.options, "rated": challenge.rated},
        # ISO 8601 text: a message between processes is msgpack, not JSON.
        "created": challenge.created.isoformat(),
        "expires": expires_at(challenge).isoformat(),
    }
    if challenge.decline_reason:
        body["reason"] = challenge.decline_reason
        body["reason_text"] = DECLINE_REASONS[challenge.decline_reason]
    if challenge.game_id is not None:
        body["game"] = challenge.game_id
    return body


def _tell(challenge: Challenge, kind: str) -> None:
    """Tell both accounts (their streams and lobby sockets) what became of the challenge."""
    event = {"type": kind, "challenge": challenge_json(challenge)}
    for user_id in {challenge.challenger_id, challenge.dest_id}:
        # The challenger's pages show what it sent; its event stream tells only what comes to it.
        sent = user_id == challenge.challenger_id and kind == "challenge"
        transaction.on_commit(
            lambda u=user_id, sent=sent: realtime.publish_account(u, event, sent=sent)
        )


def challenge_create(*, challenger, dest, kind: str, options: dict, rated: bool) -> Challenge:
    """Challenge `dest` to a table of `kind` with `options` (checked by the same code as a
    table's creation, nothing made), as `challenger`; counted in the challenger's rate. A
    challenge to oneself, a kind that is no two-player table or options a table would refuse
    are a 400 naming what is wrong."""
    if dest.pk == challenger.pk:
        raise GameError("You cannot challenge yourself.")
    if kind not in KINDS:
        raise RuleError(
            f"A challenge is to a table of Set or the Square Game (kind 'set' or 'square'), "
            f"not {kind!r}.",
            "bad_kind",
        )
    if not dest.is_active:
        raise NotFound(f"There is no account named {dest.get_username()!r}.")
    # Neither of a blocked pair challenges the other; a banned account plays no game: neither
    # sends nor gets a challenge (why and until when).
    moderation.check_pair(
        challenger.pk, dest.pk, blocked=BLOCKED, named={dest.pk: dest.get_username()}
    )
    limits.check("challenges", f"account:{challenger.pk}")
    if kind == "square" and options.get("players", 2) != 2:
        raise RuleError(
            "A challenge seats two players: a Square Game challenge has players 2.", "bad_option"
        )
    game = services.planned_create(kind=kind, options=options, now=services.now_ms(), rated=rated)
    if rated:  # a challenger who left rated games too often waits (games.manners)
        manners.check_rated_wait(challenger.pk)
    with transaction.atomic():
        challenge = Challenge.objects.create(
            challenger=challenger,
            dest=dest,
            kind=kind,
            options=game.options,
            rated=rated,
            created=timezone.now(),
        )
        _tell(challenge, "challenge")
    return challenge


def challenge_of(challenge_id, user, *, lock: bool = False) -> Challenge:
    """One of `user`'s challenges (sent or received); to anyone else it does not exist.
    `lock`: its row locked until the transaction ends (an answer to it)."""
    found = None
    if isinstance(challenge_id, int) or str(challenge_id).isdigit():
        # Locked: the challenge's row only, not its accounts'.
        rows = Challenge.objects.select_for_update(of=("self",)) if lock else Challenge.objects
        found = unique_row(rows.select_related("challenger", "dest").filter(pk=int(challenge_id)))
    if found is None or user.pk not in (found.challenger_id, found.dest_id):
        raise NotFound(f"There is no challenge with id {challenge_id} for you.")
    return found


def _answerable(challenge: Challenge) -> None:
    """Refuse an answer to a challenge that was answered already (409) or has expired (410)."""
    now = status_of(challenge)
    if now == EXPIRED:
        raise GameError(
            f"This challenge expired: it waited {settings.CHALLENGE_EXPIRES_S:g} s for an answer. "
            "Send a new one.",
            http_status=status.HTTP_410_GONE,
        )
    if now != Challenge.Status.CREATED:
        raise Conflict(f"This challenge was {now} already.")


def _locked(challenge_id: int, user) -> Challenge:
    return challenge_of(challenge_id, user, lock=True)  # read and locked in one query


def challenge_decline(*, challenge_id, user, reason: str = "generic") -> Challenge:
    """Decline a challenge sent to `user`, for one of DECLINE_REASONS."""
    if reason not in DECLINE_REASONS:
        raise RuleError(
            f"A decline's reason is one of {', '.join(DECLINE_REASONS)}; not {reason!r}.",
            "bad_reason",
        )
    with transaction.atomic():
        challenge = _locked(challenge_id, user)
        if challenge.dest_id != user.pk:
            raise Forbidden("Only the account challenged can decline it; cancel it instead.")
        _answerable(challenge)
        challenge.status = Challenge.Status.DECLINED
        challenge.decline_reason = reason
        challenge.answered = timezone.now()
        challenge.save(update_fields=["status", "decline_reason", "answered"])
        _tell(challenge, "challengeDeclined")
    return challenge


def challenge_cancel(*, challenge_id, user) -> Challenge:
    """Cancel a challenge `user` sent (an accepted one has its table: it cannot be)."""
    with transaction.atomic():
        challenge = _locked(challenge_id, user)
        if challenge.challenger_id != user.pk:
            raise Forbidden("Only the challenger can cancel a challenge; decline it instead.")
        if challenge.status != Challenge.Status.CREATED:
            raise Conflict(f"This challenge was {challenge.status} already.")
        challenge.status = Challenge.Status.CANCELED
        challenge.answered = timezone.now()
        challenge.save(update_fields=["status", "answered"])
        _tell(challenge, "challengeCanceled")
    return challenge


def challenge_accept(*, challenge_id, user) -> tuple[Challenge, Any]:
    """Accept a challenge sent to `user` (answered with the challenge and the table's head: its
    pk, kind, link_key, status...): the table is made through the one write path, a private
    table, rated if asked, with the challenger and `user` seated (the challenger first: theirs is
    the table) and started (a Set table with its start move, its countdown; a two-player Square
    Game as its seats fill), all in one write (services.create_seated). Both accounts are told
    ``gameStart``. One transaction from the challenge's row locked to it marked accepted with
    its table: a cancel or a second accept meanwhile waits, then finds it answered; a table
    refused leaves the challenge as it was."""
    with runtime.write_transaction():
        challenge = _locked(challenge_id, user)
        if challenge.dest_id != user.pk:
            raise Forbidden("Only the account challenged can accept it.")
        _answerable(challenge)
        moderation.check_pair(  # either may have been blocked or banned since it was sent
            user.pk,
            challenge.challenger_id,
            blocked=BLOCKED,
            named={challenge.challenger_id: challenge.challenger.get_username()},
        )
        if challenge.rated:  # either may have left rated games too often since (games.manners)
            manners.check_rated_wait(user.pk)
            manners.check_rated_wait(
                challenge.challenger_id, who=challenge.challenger.get_username()
            )
        game = _table_for(challenge)
        challenge.status = Challenge.Status.ACCEPTED
        challenge.answered = timezone.now()
        challenge.game_id = game.pk
        challenge.save(update_fields=["status", "answered", "game_id"])
    return challenge, game


def _table_for(challenge: Challenge):
    """The challenge's table, made seated (the challenger first) and started in one write
    (services.create_seated); both accounts hear its ``gameStart`` naming the challenge."""
    accounts = (challenge.challenger, challenge.dest)
    players = account_players(accounts)
    return services.run(
        services.create_seated(
            kind=challenge.kind,
            options=challenge.options,
            players=[
                services.Sitter(players[account.pk].pk, players[account.pk].name, account.pk)
                for account in accounts
            ],
            rated=challenge.rated,
            more={"challenge": challenge.pk},
        )
    )
