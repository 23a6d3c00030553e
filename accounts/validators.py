"""The rules of an account's name (issue 16): 1 to 20 characters, letters of any script, digits,
``_`` and ``-``. A name that breaks one is refused with a sentence naming the rule, never cut."""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError

MAX_LENGTH = 20
# \w is Unicode-aware: letters and digits of every script, and "_".
NAME_CHARACTERS = re.compile(r"[\w-]+\Z")


def validate_username(value: str) -> None:
    """Refuse a name that is too long or holds anything but letters, digits, "_" and "-"."""
    length = len(unicodedata.normalize("NFC", value))
    if length > MAX_LENGTH:
        raise ValidationError(
            f"A name has at most {MAX_LENGTH} characters; this one has {length}.",
            code="username_too_long",
        )
    if not NAME_CHARACTERS.match(unicodedata.normalize("NFC", value)):
        raise ValidationError(
            "A name holds only letters (of any script), digits, '_' and '-': "
            "no spaces or other signs.",
            code="username_characters",
        )


USERNAME_VALIDATORS = [validate_username]
