"""Personal API tokens: make one (shown once), revoke one, and find the account a token names."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from functools import cache

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone
from rest_framework import exceptions

from accounts.models import AccessToken
from games import moderation, services
from games.models import Player, Sanction, Seat

MAX_TOKEN_LENGTH = 100  # made tokens have 43 characters; anything longer is no token of ours
LAST_USED_EVERY = timedelta(minutes=1)  # a busy program writes its "last used" once a minute


def digest_of(token: str) -> str:
    # A token carries 256 random bits: a plain hash keeps it safe at rest, and lets the lookup
    # be one indexed query.
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_create(*, user, name: str) -> tuple[AccessToken, str]:
    """Make a token for `user` named `name`: its row, and the token itself (never stored)."""
    token = secrets.token_urlsafe(32)
    row = AccessToken.objects.create(user=user, name=name, digest=digest_of(token))
    return row, token


def credential_of(token_id: int) -> str:
    """A token as the platform names the credential its seats are handed to."""
    return f"token-{token_id}"


def token_revoke(*, user, token_id: int) -> bool:
    """Revoke one of `user`'s tokens, and with it everything it opened: the seat tokens handed
    out to it act no more, and its sockets close (services.credential_revoke); False when it
    has no such live token."""
    with transaction.atomic():
        revoked = AccessToken.objects.filter(pk=token_id, user=user, revoked__isnull=True).update(
            revoked=timezone.now()
        )
        if revoked:
            services.credential_revoke(credential=credential_of(token_id))
    return bool(revoked)


def token_account(token: str):
    """The account an ``Authorization: Bearer`` token acts as, and its credential (games.auth
    asks this), noting when it was used; AuthenticationFailed naming what is wrong otherwise.
    One statement, compiled once (`_token_account_sql`: every API request by a token asks it);
    the account comes with its id, name and flags, the rest of its fields read if asked."""
    row = None
    now = timezone.now()
    if len(token) <= MAX_TOKEN_LENGTH:
        cutoff = connection.ops.adapt_datetimefield_value(now - LAST_USED_EVERY)
        with connection.cursor() as cursor:
            cursor.execute(_token_account_sql(), (cutoff, digest_of(token)))
            row = cursor.fetchone()
    fields = _account_fields()
    pk, revoked, stale, *account = row or (None,) * (3 + len(fields))
    read = {
        field.attname: bool(value) if field.get_internal_type() == "BooleanField" else value
        for field, value in zip(fields, account, strict=True)
    }
    _check(row is not None, revoked is not None, read["is_active"])
    if stale:
        _note_used(pk, now)
    user = get_user_model().from_db(connection.alias, list(read), list(read.values()))
    return user, credential_of(pk)


# The account's fields `token_account` reads (the others are deferred: read if asked).
_ACCOUNT_READ = {"id", "username", "is_active", "is_staff", "is_superuser"}


@cache
def _account_fields() -> list:
    """The account's fields `token_account` reads, in the model's order (as `from_db` takes
    them)."""
    model = get_user_model()
    names = _ACCOUNT_READ | {model.USERNAME_FIELD}
    return [f for f in model._meta.concrete_fields if f.attname in names]


@cache
def _token_account_sql() -> str:
    """`token_account`'s statement (parameters: the "last used" cutoff, the digest): the token's
    row, whether its "last used" is due, and its account's `_account_fields`."""
    tokens, users = AccessToken._meta.db_table, get_user_model()._meta.db_table
    columns = ", ".join(f"u.{field.column}" for field in _account_fields())
    return (
        f"SELECT t.id, t.revoked, "
        f"CASE WHEN t.last_used IS NULL OR t.last_used < %s THEN 1 ELSE 0 END, {columns} "
        f"FROM {tokens} t JOIN {users} u ON u.id = t.user_id WHERE t.digest = %s"
    )


def token_seat(token: str, game_id: int) -> str | None:
    """What a bot's move asks (games.auth.bearer_seat): the token of the seat an ``Authorization:
    Bearer`` token's account holds at a game (games.auth.account_seats' first), or None, read
    with the token, its account and whether the account is banned in one statement, compiled
    once (a move's lookup was three ORM queries, each built anew: most of its cost); noting when
    it was used, as `token_account`; AuthenticationFailed as `token_account` for a token it
    would refuse; a banned account's Sanctioned, why and until when, read from the database as
    its new tables' bans are (games.moderation.check_ban_account), whatever the cache holds."""
    row = None
    now = timezone.now()
    if len(token) <= MAX_TOKEN_LENGTH:
        cutoff = connection.ops.adapt_datetimefield_value(now - LAST_USED_EVERY)
        at = connection.ops.adapt_datetimefield_value(now)
        with connection.cursor() as cursor:
            ban = Sanction.Kind.BAN.value
            cursor.execute(_token_seat_sql(), (cutoff, ban, at, game_id, digest_of(token)))
            row = cursor.fetchone()
    pk, user_id, revoked, active, stale, banned, seat_token = row or (None,) * 7
    _check(row is not None, revoked is not None, active)
    if stale:
        _note_used(pk, now)
    if banned:
        moderation.check_ban_account(user_id)
    return seat_token


def _check(found: bool, revoked: bool, active) -> None:
    """Refuse a token that is unknown, revoked, or of a disabled account, saying which."""
    if not found:
        raise exceptions.AuthenticationFailed("That account token is not valid.")
    if revoked:
        raise exceptions.AuthenticationFailed("That account token was revoked.")
    if not active:
        raise exceptions.AuthenticationFailed("That token's account is disabled.")


def _note_used(token_id: int, now) -> None:
    AccessToken.objects.filter(pk=token_id).update(last_used=now)


@cache
def _token_seat_sql() -> str:
    """`token_seat`'s statement (parameters: the "last used" cutoff, the ban's kind, now, the
    game, the digest): the token's row and account, the account's `is_active`, whether the
    token's "last used" is due, whether the account has a ban in force (games.moderation's
    sanctions), and the account's seat at the game in the order of games.auth.account_seats
    (its players', the first's first)."""
    tokens, users = AccessToken._meta.db_table, get_user_model()._meta.db_table
    seats, players = Seat._meta.db_table, Player._meta.db_table
    sanctions = Sanction._meta.db_table
    return (
        f"SELECT t.id, t.user_id, t.revoked, u.is_active, "
        f"CASE WHEN t.last_used IS NULL OR t.last_used < %s THEN 1 ELSE 0 END, "
        f"(SELECT 1 FROM {sanctions} b WHERE b.user_id = t.user_id AND b.kind = %s "
        f"AND b.until > %s LIMIT 1), "
        f"(SELECT s.token FROM {seats} s JOIN {players} p ON p.id = s.player_id "
        f"WHERE s.game_id = %s AND p.user_id = t.user_id ORDER BY s.player_id, s.number LIMIT 1) "
        f"FROM {tokens} t JOIN {users} u ON u.id = t.user_id WHERE t.digest = %s"
    )
