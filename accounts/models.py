"""What the accounts app stores beside Django's users: personal API tokens."""

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
