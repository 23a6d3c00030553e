"""Reads of accounts: an account by its name, and whether a name is taken. Names are compared
by `games.names.name_key` (names that look alike, in any case, are one name), through
AccountName's index."""

from __future__ import annotations

from accounts.models import AccountName
from games.errors import NotFound
from games.names import name_key
from games.selectors import unique_row

# No account's name is longer (the user table's column): a longer text is no account's name.
LONGEST = 150


def account_named(name: str):
    """The account of that name, or of a name that looks like it, or the not-found error."""
    if len(name) <= LONGEST and "\x00" not in name:  # PostgreSQL refuses a NUL in a query
        found = unique_row(AccountName.objects.filter(key=name_key(name)).select_related("user"))
        if found is not None:
            return found.user
    raise NotFound(f"There is no account named {name!r}.")


def name_taken(name: str, *, other_than=None) -> bool:
    """Whether an account (other than `other_than`, a user) has this name or one that looks
    like it."""
    if len(name) > LONGEST or "\x00" in name:
        return False
    taken = AccountName.objects.filter(key=name_key(name))
    if other_than is not None and other_than.pk is not None:
        taken = taken.exclude(user=other_than)
    return taken.exists()
