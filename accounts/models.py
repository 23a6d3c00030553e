"""What the accounts app stores beside Django's users: personal API tokens, and each account's
name as names are compared."""

from __future__ import annotations

import unicodedata

from django.conf import settings
from django.db import models


class AccessToken(models.Model):
    """A personal API token of an account, sent as ``Authorization: Bearer <token>``. Only the
    token's SHA-256 digest is kept: the token itself is shown once, when it is made."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens"
    )
    name = models.CharField(max_length=40)
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"


def folded(name: str) -> str:
    """A name as names are compared: NFC, then case-folded (Unicode's caseless matching, so
    "ZOË" is "zoë", on every database)."""
    return unicodedata.normalize("NFC", name).casefold()


class AccountName(models.Model):
    """An account's name as names are compared (`folded`): unique, so two accounts never have
    names that differ only by case, and indexed, so a name is found in one look-up on any
    database (SQLite's and PostgreSQL's own case-insensitive comparisons differ). Kept by a
    receiver whenever a user is saved."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_name"
    )
    folded = models.CharField(max_length=600, unique=True)  # casefold can lengthen a name

    def __str__(self) -> str:
        return self.folded
