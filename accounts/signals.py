"""The accounts app's receivers: a guest who signs up or logs in keeps the games played in that
browser (the session's player becomes the account's); a log-out ends what the session opened;
and every account's name is kept as names are compared (AccountName)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import AccountName, folded
from games import services
from games.auth import session_credential, session_player_claim


@receiver(user_logged_in, dispatch_uid="accounts.claim_session_player")
def claim_session_player(sender, request, user, **kwargs):
    # Django sends this after the login has rotated the session key; the session's data, the
    # guest player's id among it, is carried over (allauth's sign-up logs in through it too).
    if request is not None and hasattr(request, "session"):
        session_player_claim(request, user)


@receiver(user_logged_out, dispatch_uid="accounts.end_session_credential")
def end_session_credential(sender, request, user, **kwargs):
    # Sent before the session is flushed: what this browser opened while signed in ends with it
    # (its sockets close, the seat tokens it was handed act no more).
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if session_key:
        services.credential_revoke(credential=session_credential(session_key))


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.account_name")
def keep_account_name(sender, instance, raw=False, **kwargs):
    # In the user's own transaction: a name another account has (ignoring case) fails the save.
    if not raw:
        AccountName.objects.update_or_create(
            user=instance, defaults={"folded": folded(instance.get_username())}
        )
