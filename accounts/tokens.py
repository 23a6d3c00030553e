"""Personal API tokens: make one (shown once), revoke one, and find the account a token names."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from rest_framework import exceptions

from accounts.models import AccessToken
from games import services

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
    asks this), noting when it was used; AuthenticationFailed naming what is wrong otherwise."""
    row = None
    if len(token) <= MAX_TOKEN_LENGTH:
        row = AccessToken.objects.select_related("user").filter(digest=digest_of(token)).first()
    if row is None:
        raise exceptions.AuthenticationFailed("That account token is not valid.")
    if row.revoked is not None:
        raise exceptions.AuthenticationFailed("That account token was revoked.")
    if not row.user.is_active:
        raise exceptions.AuthenticationFailed("That token's account is disabled.")
    now = timezone.now()
    if row.last_used is None or now - row.last_used >= LAST_USED_EVERY:
        AccessToken.objects.filter(pk=row.pk).update(last_used=now)
    return row.user, credential_of(row.pk)
