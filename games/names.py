"""The one rule of a player's name, for accounts and guests alike, on every way in but the text
protocol (whose grammar, ``[A-Za-z0-9_]+``, is its own): 1 to 20 characters, letters of any
script, digits, ``_`` and ``-``, in Unicode's NFC form. A name that breaks it is refused with a
sentence naming the rule, never cut. Two names that look alike are one name: they have the same
`name_key` (Unicode's confusable skeleton, UTS #39, of the case-folded name).

>>> [check_name(name) for name in ("Zoë", "李雷", "Ólafur", "ada_l", "x-1")]
['Zoë', '李雷', 'Ólafur', 'ada_l', 'x-1']
>>> check_name("a b")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
games.names.BadName: A name holds only letters (of any script), digits, '_' and '-': no spaces...
"""

from __future__ import annotations

import re
import unicodedata

from glyphguard import skeleton

MAX_LENGTH = 20
# \w is Unicode-aware: letters and digits of every script, and "_".
CHARACTERS = re.compile(r"[\w-]+\Z")
RULE = (
    f"A name is 1 to {MAX_LENGTH} letters (of any script), digits, '_' or '-', with no spaces "
    "(like ada_l or Zoë)."
)


class BadName(ValueError):
    """A name the rule refuses; the message says which part of the rule and is shown as it is."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def check_name(value: str) -> str:
    """Return the name in NFC form, or refuse it (BadName) with a sentence naming the rule."""
    name = unicodedata.normalize("NFC", value)
    if not name:
        raise BadName(f"Please choose a name. {RULE}", "name_empty")
    if len(name) > MAX_LENGTH:
        raise BadName(
            f"A name has at most {MAX_LENGTH} characters; this one has {len(name)}.",
            "name_too_long",
        )
    if not CHARACTERS.match(name):
        raise BadName(
            "A name holds only letters (of any script), digits, '_' and '-': "
            "no spaces or other signs.",
            "name_characters",
        )
    return name


def is_plain_name(value: str) -> bool:
    """Whether a name is valid as it is sent (already NFC): checked without making an error."""
    return (
        len(value) <= MAX_LENGTH
        and CHARACTERS.match(value) is not None
        and unicodedata.is_normalized("NFC", value)
    )


def name_key(name: str) -> str:
    """Return the key names are compared by: two names that look alike have the same key.

    The key is Unicode's confusable skeleton (UTS #39, the tables of the pinned glyphguard
    release) of the name in NFC form, case-folded, and case-folded again (a few prototypes are
    capitals: "0" looks like "O"). It is for comparing only, never for showing: `Tim` and `TIM`
    are one name, and so are `ada`, a Cyrillic `аda` and a fullwidth `ａｄａ`. Stored keys
    (accounts' names) are made again by a migration when the tables change.

    >>> name_key("Tim") == name_key("TIM") == name_key("tim")
    True
    >>> name_key("ada") == name_key("\u0430d\u0430") == name_key("\uff41\uff44\uff41")
    True
    >>> name_key("Zoë") == name_key("ZOË") == name_key("Zoe\u0308")
    True
    >>> name_key("Straße") == name_key("STRASSE")
    True
    >>> name_key("bob") == name_key("b0b")  # a zero looks like an O
    True
    >>> name_key("ann") == name_key("anne"), name_key("Ólafur") == name_key("olafur")
    (False, False)
    """
    return skeleton(unicodedata.normalize("NFC", name).casefold()).casefold()
