"""The rules of an account's name (issue 16): the site's one name rule (games.names), 1 to 20
characters, letters of any script, digits, ``_`` and ``-``. A name that breaks one is refused
with a sentence naming the rule, never cut."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from games.names import MAX_LENGTH, BadName, check_name

__all__ = ["MAX_LENGTH", "USERNAME_VALIDATORS", "NameTaken", "validate_username"]


def validate_username(value: str) -> None:
    """Refuse a name that is too long or holds anything but letters, digits, "_" and "-"."""
    try:
        check_name(value)
    except BadName as error:
        code = {"name_too_long": "username_too_long"}.get(error.code, "username_characters")
        raise ValidationError(str(error), code=code) from None


USERNAME_VALIDATORS = [validate_username]


class NameTaken(ValidationError):
    """An account has this name, or one that looks like it: raised when saving a user whose
    name row (accounts.models.AccountName) another account's holds, so a sign-up that lost a
    race is told so instead of failing."""

    def __init__(self, name: str):
        super().__init__(
            f"An account named {name!r} already exists (names that look alike, in any case, "
            "are one name).",
            code="username_taken",
        )
        self.name = name
