"""Reads of accounts: an account by its name."""

from __future__ import annotations

import unicodedata

from django.contrib.auth import get_user_model

from games.errors import NotFound


def account_named(name: str):
    """The account of that name, compared ignoring case as names are, or the not-found error."""
    users = get_user_model()
    # No account's name is that long or holds a NUL (PostgreSQL refuses one in a query).
    if len(name) <= users._meta.get_field(users.USERNAME_FIELD).max_length and "\x00" not in name:
        found = users.objects.filter(username__iexact=unicodedata.normalize("NFC", name)).first()
        if found is not None:
            return found
    raise NotFound(f"There is no account named {name!r}.")
