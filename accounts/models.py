"""What the accounts app stores beside Django's users: personal API tokens, and each account's
name as names are compared (games.names.name_key)."""

from __future__ import annotations

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


class AccountName(models.Model):
    """An account's name as names are compared (`games.names.name_key`: the confusable skeleton
    of the case-folded name), unique, so no two accounts have names that look alike (`Ada` and
    `ada`, `ada` and a Cyrillic `аda`), and indexed, so a name is found in one look-up on any
    database. Kept by a receiver whenever a user's name is saved, in the user's transaction.

    Two accounts made before this rule whose names look alike keep both their names: the later
    one's key is its name's key followed by ``#<user id>`` (no name's key holds a "#"): it still
    logs in, but its name finds the older account (profiles, guests' names) until an admin
    renames one of them (migration 0003 names them)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_name"
    )
    key = models.CharField(max_length=600, unique=True)  # a skeleton can lengthen a name

    def __str__(self) -> str:
        return self.key


class Challenge(models.Model):
    """One account asking another to play (accounts.challenges): the kind and the options of the
    table to make, checked when it was sent. It waits for its answer CHALLENGE_EXPIRES_S from
    `created`; one still "created" after that is expired, as read (no job ends it)."""

    class Status(models.TextChoices):
        CREATED = "created", "Waiting for an answer"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        CANCELED = "canceled", "Canceled"

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    dest = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    kind = models.CharField(max_length=16)
    # The table's options as its kind's rules cleaned them, and whether it is rated.
    options = models.JSONField(default=dict, blank=True)
    rated = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.CREATED)
    decline_reason = models.CharField(max_length=16, blank=True, default="")
    # The table an accepted challenge made (the platform's game id).
    game_id = models.BigIntegerField(null=True, blank=True)
    created = models.DateTimeField()
    answered = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["dest", "status"], name="challenge_dest_status"),
            models.Index(fields=["challenger", "status"], name="challenge_from_status"),
        ]

    def __str__(self) -> str:
        return f"{self.challenger} -> {self.dest} ({self.kind}, {self.status})"
