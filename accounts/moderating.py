"""What moderators do to accounts that the accounts app owns: renaming an offensive name (names
are compared and kept here: accounts.models.AccountName). Logged in the platform's moderation
log (games.moderation) as every moderator's action is."""

from __future__ import annotations

from django.db import transaction

from accounts.selectors import name_taken
from accounts.validators import NameTaken
from games import moderation
from games.errors import Conflict, GameError
from games.models import ModerationLogEntry, Player
from games.names import BadName, check_name


def account_rename(*, moderator, user, name, reason, report=None):
    """Give `user` the name `name` (the site's name rule; no other account's name, nor one that
    looks like it), its players too, logged with why. Seats keep the name they were played
    under."""
    moderation.check_moderator(moderator)
    reason = moderation._why(reason)
    if not isinstance(name, str):
        raise GameError('The new name is text: {"name": "...", "reason": "..."}.')
    try:
        name = check_name(name.strip())
    except BadName as error:
        raise GameError(str(error)) from None
    old = user.get_username()
    if name == old:
        raise GameError(f"The account is named {old!r} already.")
    if name_taken(name, other_than=user):
        raise Conflict(f"An account named {name!r}, or one that looks like it, exists already.")
    try:
        with transaction.atomic():
            user.username = name
            user.save(update_fields=["username"])
            Player.objects.filter(user=user).update(name=name)
            moderation.log_write(
                moderator=moderator,
                action=ModerationLogEntry.Action.RENAME,
                target=old,
                detail=f"{old} -> {name}",
                reason=reason,
                report=report,
            )
    except NameTaken as taken:
        raise Conflict(str(taken)) from None
    return user
