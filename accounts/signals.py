"""A guest who signs up or logs in keeps the games played in that browser: the session's player
becomes the account's."""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from games.auth import session_player_claim


@receiver(user_logged_in, dispatch_uid="accounts.claim_session_player")
def claim_session_player(sender, request, user, **kwargs):
    # Django sends this after the login has rotated the session key; the session's data, the
    # guest player's id among it, is carried over (allauth's sign-up logs in through it too).
    if request is not None and hasattr(request, "session"):
        session_player_claim(request, user)
