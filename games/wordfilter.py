"""The chat's word filter (issue 28, item 3): whether a line says a blocked word.

Pure Python (no Django): `blocked_words(text, words)` is given the list (settings'
CHAT_BLOCKED_WORDS). A word is matched whole, and in its common disguises:

- any case and accents (``FÜCK`` and ``fuck`` alike: letters are compared without their marks);
- letters repeated (``fuuuck``): each run of a letter in the word matches that many or more;
- digits and signs for letters (``sh1t``, ``4ss``, ``@``, ``$``): 1→i, 3→e, 0→o, 4→a, 5→s,
  7→t, @→a, $→s;
- letters apart (``f.u.c.k``, ``f u c k``, ``f-u-c-k``): single letters one separator apart
  are read as one word.

A word in the list that ends with ``*`` also matches the words it begins (``fuck*``: fucking).
Ordinary words that contain a blocked word are not matched (``class``, ``assistant``,
``Scunthorpe``): only whole words are.

>>> blocked_words("what a f.u.u.c.k", ["fuck"])
['fuck']
>>> blocked_words("the class assistant", ["ass"])
[]
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

LOOK_ALIKES = str.maketrans(
    {"1": "i", "3": "e", "0": "o", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
_TOKEN = re.compile(r"[\w@$]+")
# Letters apart: three or more single characters, each the same separator (a dot, a dash, a
# space...) from the next ("a f.u.c.k" is "a" and "fuck").
_APART = re.compile(
    r"(?<![\w@$])[\w@$](?P<sep>[\s.\-_*+~|/\\,:;'\"]{1,2})[\w@$](?![\w@$])"
    r"(?:(?P=sep)[\w@$](?![\w@$]))+"
)


def fold(text: str) -> str:
    """`text` in lower case without accents (ß as ss, œ as oe: casefold's)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@functools.lru_cache(maxsize=64)
def _patterns(words: tuple[str, ...]) -> tuple[tuple[str, re.Pattern], ...]:
    made = []
    for word in words:
        prefix = word.endswith("*")
        folded = fold(word.rstrip("*")).translate(LOOK_ALIKES)
        folded = "".join(_TOKEN.findall(folded))
        if not folded:
            continue
        runs = [(m.group(0)[0], len(m.group(0))) for m in re.finditer(r"(.)\1*", folded)]
        body = "".join(f"{re.escape(c)}{{{n},}}" for c, n in runs)
        made.append((word, re.compile(body + (r"\w*" if prefix else ""))))
    return tuple(made)


def candidates(text: str) -> list[str]:
    """The words `text` says, folded and with look-alikes read as letters: each word, and each
    run of letters written apart."""
    folded = fold(text)
    found = [t.translate(LOOK_ALIKES) for t in _TOKEN.findall(folded)]
    for apart in _APART.finditer(folded):
        found.append("".join(_TOKEN.findall(apart.group(0))).translate(LOOK_ALIKES))
    return [word.replace("_", "") for word in found if word]


def blocked_words(text: str, words: Iterable[str]) -> list[str]:
    """The words of `words` that `text` says (in the list's spelling, each once, in list order)."""
    patterns = _patterns(tuple(words))
    if not patterns:
        return []
    said = candidates(text)
    return [word for word, pattern in patterns if any(pattern.fullmatch(w) for w in said)]
