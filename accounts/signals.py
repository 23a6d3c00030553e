"""The accounts app's receivers: a guest who signs up or logs in keeps the games played in that
browser (the session's player becomes the account's); a log-out ends what the session opened;
every account's name is kept as names are compared (AccountName); and every failed login counts
against the login limits (accounts.logins)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.db import IntegrityError, transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts import logins
from accounts.models import AccountName
from accounts.validators import NameTaken
from games import services
from games.auth import session_credential, session_player_claim
from games.names import name_key


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


@receiver(user_login_failed, dispatch_uid="accounts.count_failed_login")
def count_failed_login(sender, credentials, request=None, **kwargs):
    # django.contrib.auth.authenticate() sends this for every way in that checks a password:
    # the log-in form, the API's token, the admin's log-in.
    logins.login_failed(request=request, username=credentials.get("username"))


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.account_name")
def keep_account_name(sender, instance, created=False, raw=False, update_fields=None, **kwargs):
    if raw or (update_fields is not None and "username" not in update_fields):
        return  # a fixture, or a save that leaves the name (a login's last_login)
    key = name_key(instance.get_username())
    row = AccountName.objects.filter(user=instance).first()
    # A key made unique by migration 0003 (two old accounts that look alike) stays as it is.
    if row is not None and row.key in (key, f"{key}#{instance.pk}"):
        return
    try:
        with transaction.atomic():
            AccountName.objects.update_or_create(user=instance, defaults={"key": key})
    except IntegrityError:
        if created and not transaction.get_connection().in_atomic_block:
            # Saved outside a transaction (manage.py createsuperuser): the user row is written
            # already; an account is made with its name row or not at all.
            instance.delete()
        raise NameTaken(instance.get_username()) from None
