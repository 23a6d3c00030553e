"""Set cards: the :class:`Card` value, its text forms, and :func:`parse_card` to read them back.

A card has 3, 4 or 5 attributes, each with three values numbered 0, 1, 2:

========  ===========  =========  ========  =========  ==========
value     number       color      shading   shape      border
========  ===========  =========  ========  =========  ==========
0         one          red        solid     diamond    red
1         two          green      striped   squiggle   green
2         three        purple     open      oval       purple
========  ===========  =========  ========  =========  ==========

* 4 attributes is the classic 81-card deck.
* 3 attributes is the Set table's 27-card deck: every shape is ``SQUIGGLE``.
* 5 attributes is the "multidimensional" 243-card variant: a border color is added.

The 4Set decks (``base=4``) give each attribute a fourth value, numbered 3: the number four,
orange, checkered shading and the hourglass shape. Their cards have 4 attributes (256 cards) or
3 (64 cards, every shape ``SQUIGGLE`` as in the 27-card deck), and their code reads the values in
base 4, so a 4Set deck's codes are 2 bits per attribute and a 4Set is four codes whose XOR is 0
(`cards.engine.fast4`):

>>> four = Card(FOUR, ORANGE, CHECKERED, HOURGLASS, base=4)
>>> four.protocol, four.digits, four.code, four.phrase
('FOUR/ORANGE/CHECKERED/HOURGLASS', '3333', 255, 'four orange checkered hourglasses')
>>> parse_card("0123", base=4)
Card(number=0, color=1, shading=2, shape=3, border=None, attributes=4, base=4)

A card's ``code`` reads its values as a base-3 number, most significant first: number, color,
shading[, shape][, border]. So the Set War digit string *is* the code in base 3.

Every card has four text forms, and :func:`parse_card` reads all of them:

>>> card = Card(TWO, PURPLE, STRIPED, OVAL)
>>> card.protocol, card.digits, card.code
('TWO/PURPLE/STRIPED/OVAL', '1212', 50)
>>> card.words
('two', 'striped', 'purple', 'oval')
>>> card.phrase
'two purple striped ovals'
>>> {parse_card(form) for form in (card.protocol, card.digits, card.words, card.phrase)}
{Card(number=1, color=2, shading=1, shape=2, border=None, attributes=4)}
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from cards.engine.errors import CardError, RepeatedCardError

__all__ = [
    "ATTRIBUTE_COUNTS",
    "ATTRIBUTE_NAMES",
    "BASES",
    "BORDERS",
    "CHECKERED",
    "COLORS",
    "DIAMOND",
    "FOUR",
    "GREEN",
    "HOURGLASS",
    "NUMBERS",
    "ONE",
    "OPEN",
    "ORANGE",
    "OVAL",
    "PURPLE",
    "RED",
    "SHADINGS",
    "SHAPES",
    "SOLID",
    "SQUIGGLE",
    "STRIPED",
    "THREE",
    "TWO",
    "VALUE_NAMES",
    "Card",
    "all_cards",
    "deck_table",
    "parse_card",
    "parse_cards",
]

ONE, TWO, THREE = 0, 1, 2
RED, GREEN, PURPLE = 0, 1, 2
SOLID, STRIPED, OPEN = 0, 1, 2
DIAMOND, SQUIGGLE, OVAL = 0, 1, 2
#: The fourth value of each attribute, in the 4Set decks only.
FOUR = ORANGE = CHECKERED = HOURGLASS = 3

NUMBERS = ("one", "two", "three")
COLORS = ("red", "green", "purple")
SHADINGS = ("solid", "striped", "open")
SHAPES = ("diamond", "squiggle", "oval")
BORDERS = COLORS
#: How many values an attribute has: 3 in every deck but the 4Set decks' 4.
BASES = (3, 4)
# Every value name of the 4Set decks; the first three are the classic deck's.
_FOURTH = {"number": "four", "color": "orange", "shading": "checkered", "shape": "hourglass"}

#: The attribute names in card order (number, color, shading, shape, border).
ATTRIBUTE_NAMES = ("number", "color", "shading", "shape", "border")
#: Attribute name -> its three value names, indexed by value.
VALUE_NAMES = {
    "number": NUMBERS,
    "color": COLORS,
    "shading": SHADINGS,
    "shape": SHAPES,
    "border": BORDERS,
}
#: The deck sizes: 3 (27 cards), 4 (81 cards) and 5 (243 cards) attributes.
ATTRIBUTE_COUNTS = (3, 4, 5)
#: The 4Set decks' sizes: 3 (64 cards) and 4 (256 cards) attributes.
ATTRIBUTE_COUNTS_4 = (3, 4)
#: Attribute name -> its value names in a deck of ``base`` values: ``VALUE_NAMES_BY_BASE[4]``
#: adds four, orange, checkered and hourglass.
VALUE_NAMES_BY_BASE = {
    3: VALUE_NAMES,
    4: {name: (*names, _FOURTH[name]) for name, names in VALUE_NAMES.items() if name != "border"},
}

_SHAPE_PLURALS = ("diamonds", "squiggles", "ovals", "hourglasses")
# Seed 000 calls the open shading "empty"; accept it when reading.
_SHADING_SYNONYMS = {"empty": OPEN}
# Seed 001's tuple order: number, shading, color, shape[, border].
_WORD_ORDER = ("number", "shading", "color", "shape", "border")


@dataclass(frozen=True, slots=True, init=False, order=False)
class Card:
    """One Set card: its attribute values (ints 0..2, or 0..3 in a 4Set deck), how many
    attributes its deck has and how many values each attribute has (``base``, 3 or 4).

    Build one from values (``Card(TWO, PURPLE, STRIPED, OVAL)``; add ``border=`` for a 5-attribute
    card, or ``attributes=3`` for the 27-card deck, whose shape is always ``SQUIGGLE``, the
    default shape), from a
    code (:meth:`from_code`) or from text (:func:`parse_card`). Cards compare equal when all their
    values and their deck match, and sort by ``(base, attributes, code)``. A 4Set deck's card
    is built with ``base=4``: ``Card(FOUR, ORANGE, CHECKERED, HOURGLASS, base=4)``.
    """

    number: int
    color: int
    shading: int
    shape: int
    border: int | None
    attributes: int
    base: int
    code: int = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        number: int,
        color: int,
        shading: int,
        shape: int = SQUIGGLE,
        border: int | None = None,
        *,
        attributes: int | None = None,
        base: int = 3,
    ) -> None:
        if attributes is None:
            attributes = 4 if border is None else 5
        values = (number, color, shading, shape) + (() if border is None else (border,))
        if base not in BASES:
            raise CardError(f"an attribute has 3 or 4 values, not {base!r}")
        for name, value in zip(ATTRIBUTE_NAMES, values, strict=False):
            if type(value) is not int or not 0 <= value < base:
                use = "0, 1 or 2" if base == 3 else "0, 1, 2 or 3"
                raise CardError(f"{value!r} is not a {name} value: use {use}")
        if attributes not in (ATTRIBUTE_COUNTS if base == 3 else ATTRIBUTE_COUNTS_4):
            if base == 4:
                raise CardError(f"a 4Set card has 3 or 4 attributes, not {attributes!r}")
            raise CardError(f"a card has 3, 4 or 5 attributes, not {attributes!r}")
        if attributes == 3 and shape != SQUIGGLE:
            raise CardError("a 3-attribute card's shape is always SQUIGGLE")
        if (attributes == 5) != (border is not None):
            raise CardError("a card has a border exactly when it has 5 attributes")
        code = 0
        for value in values[:3] if attributes == 3 else values:
            code = code * base + value
        set_ = object.__setattr__
        set_(self, "number", number)
        set_(self, "color", color)
        set_(self, "shading", shading)
        set_(self, "shape", shape)
        set_(self, "border", border)
        set_(self, "attributes", attributes)
        set_(self, "base", base)
        set_(self, "code", code)

    def __repr__(self) -> str:
        # The classic decks' cards read as they always did; a 4Set card says its base.
        fields = (
            f"number={self.number}, color={self.color}, shading={self.shading}, "
            f"shape={self.shape}, border={self.border}, attributes={self.attributes}"
        )
        return f"Card({fields}{', base=4' if self.base == 4 else ''})"

    @classmethod
    def from_code(cls, code: int, attributes: int = 4, base: int = 3) -> Card:
        """Return the card with this code in the deck of ``attributes`` attributes (of ``base``
        values each).

        >>> Card.from_code(46)
        Card(number=1, color=2, shading=0, shape=1, border=None, attributes=4)
        >>> Card.from_code(0b00011011, 4, base=4).digits
        '0123'
        """
        deck = all_cards(attributes, base)
        if type(code) is not int or not 0 <= code < len(deck):
            raise CardError(f"{code!r} is not a card code: use 0 to {len(deck) - 1}")
        return deck[code]

    @property
    def values(self) -> tuple[int, ...]:
        """Return the values that vary in this card's deck, in card order (3, 4 or 5 of them)."""
        if self.attributes == 3:
            return (self.number, self.color, self.shading)
        if self.attributes == 4:
            return (self.number, self.color, self.shading, self.shape)
        return (self.number, self.color, self.shading, self.shape, self.border)  # type: ignore[return-value]

    @property
    def protocol(self) -> str:
        """Return the Set table text, ``NUMBER/COLOR/SHADING/SHAPE[/BORDER]``.

        3-attribute cards keep the ``SQUIGGLE`` field, as the Set table spec writes them.
        """
        names = VALUE_NAMES_BY_BASE[self.base]
        texts = [
            names["number"][self.number],
            names["color"][self.color],
            names["shading"][self.shading],
            names["shape"][self.shape],
        ]
        if self.border is not None:
            texts.append(BORDERS[self.border])
        return "/".join(texts).upper()

    @property
    def digits(self) -> str:
        """Return the Set War digit string: one digit per varying attribute, in card order."""
        return "".join(map(str, self.values))

    @property
    def words(self) -> tuple[str, ...]:
        """Return seed 001's tuple: number, shading, color, shape (then the border, if any)."""
        names = VALUE_NAMES_BY_BASE[self.base]
        words = (
            names["number"][self.number],
            names["shading"][self.shading],
            names["color"][self.color],
            names["shape"][self.shape],
        )
        if self.border is not None:
            words += (BORDERS[self.border],)
        return words

    @property
    def phrase(self) -> str:
        """Return the card as people say it: ``"one red solid diamond"``, ``"two red ovals"``...

        The shape is plural from two on; a 5-attribute card adds ``"with a green border"``.
        """
        names = VALUE_NAMES_BY_BASE[self.base]
        shape = names["shape"][self.shape] if self.number == ONE else _SHAPE_PLURALS[self.shape]
        number, color = names["number"][self.number], names["color"][self.color]
        text = f"{number} {color} {names['shading'][self.shading]} {shape}"
        if self.border is not None:
            text += f" with a {BORDERS[self.border]} border"
        return text

    def __str__(self) -> str:
        return self.protocol

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return _order(self) < _order(other)

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return _order(self) <= _order(other)

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return _order(self) > _order(other)

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return _order(self) >= _order(other)


def _order(card: Card) -> tuple[int, int, int]:
    return (card.base, card.attributes, card.code)


def _build_deck(attributes: int, base: int = 3) -> tuple[Card, ...]:
    cards = []
    for code in range(base**attributes):
        values = []
        rest = code
        for _ in range(attributes):
            rest, value = divmod(rest, base)
            values.append(value)
        values.reverse()
        if attributes == 3:
            values.append(SQUIGGLE)
        cards.append(Card(*values, attributes=attributes, base=base))
    return tuple(cards)


# Every card exists once per deck; from_code and new_deck hand out these instances.
_DECKS = {attributes: _build_deck(attributes) for attributes in ATTRIBUTE_COUNTS}
_DECKS_4 = {attributes: _build_deck(attributes, 4) for attributes in ATTRIBUTE_COUNTS_4}


def all_cards(attributes: int = 4, base: int = 3) -> tuple[Card, ...]:
    """Return the whole deck of ``attributes`` attributes (of ``base`` values each) in code
    order (not shuffled)."""
    try:
        return (_DECKS if base == 3 else _DECKS_4)[attributes]
    except (KeyError, TypeError):
        if base == 4:
            raise CardError(f"a 4Set card has 3 or 4 attributes, not {attributes!r}") from None
        raise CardError(f"a card has 3, 4 or 5 attributes, not {attributes!r}") from None


@cache
def deck_table(
    attributes: int = 4, *, key: str = "protocol", base: int = 3
) -> dict[str, list[str]]:
    """Describe a whole deck for a page: each card's ``key`` text -> [digits, phrase].

    Pages draw cards from their digits and say them with their phrase; they get both from here
    rather than knowing card names themselves. ``key`` is ``"protocol"`` (the Set table's texts)
    or ``"digits"`` (Set War's). Made once per deck and shared: read it, never change it.

    >>> deck_table(3)["ONE/RED/SOLID/SQUIGGLE"]
    ['000', 'one red solid squiggle']
    >>> deck_table(4, key="digits")["1201"]
    ['1201', 'two purple solid squiggles']
    >>> deck_table(3, base=4)["FOUR/ORANGE/CHECKERED/SQUIGGLE"]
    ['333', 'four orange checkered squiggles']
    """
    return {getattr(card, key): [card.digits, card.phrase] for card in all_cards(attributes, base)}


# ---------------------------------------------------------------------------------------------
# Reading cards


def _vocabulary() -> dict[str, tuple[str, int]]:
    """Map every word a phrase may use to (attribute, value); colors map to ``color``."""
    words = {}
    for name in ("number", "color", "shading", "shape"):
        for value, word in enumerate(VALUE_NAMES_BY_BASE[4][name]):
            words[word] = (name, value)
    for value, word in enumerate(_SHAPE_PLURALS):
        words[word] = ("shape", value)
    for word, value in _SHADING_SYNONYMS.items():
        words[word] = ("shading", value)
    return words


_VOCABULARY = _vocabulary()


def _value_of(attribute: str, word: str, upper: bool, base: int = 3) -> int:
    """Return the value a word names for one attribute, or raise naming the word."""
    found = _VOCABULARY.get(word.strip().lower())
    if attribute == "border":
        found = ("border", found[1]) if found and found[0] == "color" else None
    if found is None or found[0] != attribute or found[1] >= base:
        names = ", ".join(VALUE_NAMES_BY_BASE[base][attribute])
        if upper:
            names = names.upper()
        raise _NotAValue(f"{word!r} is not a {attribute} ({names})")
    return found[1]


class _NotAValue(Exception):
    """Why one part of a card's text is wrong; parse_card adds which card it was."""


def _make(values: dict[str, int], described: int, wanted: int | None, base: int = 3) -> Card:
    """Build the card from named values; ``described`` is how many attributes the text gave."""
    attributes = described if wanted is None else wanted
    if wanted is not None and wanted != described:
        if not (described == 4 and wanted == 3):
            raise _NotAValue(f"it has {described} attributes, not {wanted}")
        if values["shape"] != SQUIGGLE:
            raise _NotAValue("in the 3-attribute deck every shape is SQUIGGLE")
    return Card(
        values["number"],
        values["color"],
        values["shading"],
        values.get("shape", SQUIGGLE),
        values.get("border"),
        attributes=attributes,
        base=base,
    )


def _positional(
    words: list[str], order: tuple[str, ...], upper: bool, base: int = 3
) -> tuple[dict[str, int], int]:
    """Read words given in a fixed attribute order (Set table text or seed 001's tuple)."""
    if not 3 <= len(words) <= 5:
        raise _NotAValue(f"a card has 3, 4 or 5 attributes, not {len(words)}")
    return {
        name: _value_of(name, word, upper, base) for name, word in zip(order, words, strict=False)
    }, len(words)


_BORDER_CLAUSE = re.compile(r"^(?P<body>.*?)\s+with\s+an?\s+(?P<border>\S+)\s+border$")


def _phrase(text: str, base: int = 3) -> tuple[dict[str, int], int]:
    text = " ".join(text.replace(",", " ").lower().split())
    values: dict[str, int] = {}
    described = 4
    clause = _BORDER_CLAUSE.match(text)
    if clause:
        text = clause["body"]
        values["border"] = _value_of("border", clause["border"], upper=False)
        described = 5
    seen: dict[str, str] = {}
    for word in text.split():
        found = _VOCABULARY.get(word)
        if found is None or found[1] >= base:
            raise _NotAValue(f"{word!r} is not a number, color, shading or shape")
        name, value = found
        if name in seen:
            raise _NotAValue(f"{seen[name]!r} and {word!r} are both a {name}")
        seen[name] = word
        values[name] = value
    for name in ("number", "color", "shading"):
        if name not in values:
            raise _NotAValue(f"it names no {name}")
    if "shape" not in values:
        if described == 5:
            raise _NotAValue("it names no shape")
        described = 3
    return values, described


def parse_card(value: Any, attributes: int | None = None, base: int = 3) -> Card:
    """Read a card from any of its forms; infer the deck size when ``attributes`` is None.

    ``base=4`` reads a 4Set deck's card, whose values go up to four, orange, checkered and
    hourglass (digit 3); a 4Set card has 3 or 4 attributes.

    Accepted forms (words in any case):

    * a :class:`Card` (returned as is);
    * Set table text ``"TWO/PURPLE/STRIPED/OVAL"`` (3 to 5 fields, in card order);
    * Set War digits ``"1222"`` (3 to 5 digits 0-2, in card order);
    * seed 001's words, a list or tuple ``("two", "striped", "purple", "oval")`` in *its* order
      number, shading, color, shape (then border);
    * a phrase ``"two purple striped ovals"``, words in any order, ``"with a red border"`` at
      the end for 5 attributes.

    A form naming a shape is a 4-attribute card unless ``attributes=3`` asks for the 27-card
    deck, where the shape must be ``SQUIGGLE``; a form without a shape is a 3-attribute card.

    >>> parse_card("two purple striped ovals") == parse_card("1212")
    True
    >>> parse_card("one/red/solid/squiggle", attributes=3).digits
    '000'
    >>> parse_card("1231")
    Traceback (most recent call last):
    ...
    cards.engine.errors.CardError: '1231' is not a card: '3' is not a digit 0, 1 or 2
    >>> parse_card("1231", base=4).phrase
    'two purple checkered squiggles'
    """
    if base not in BASES:
        raise CardError(f"an attribute has 3 or 4 values, not {base!r}")
    if attributes is not None and attributes not in ATTRIBUTE_COUNTS:
        raise CardError(f"a card has 3, 4 or 5 attributes, not {attributes!r}")
    if isinstance(value, Card):
        if value.base != base:
            raise CardError(
                f"{value.protocol!r} is a card of {value.base} values an attribute, not of {base}"
            )
        if attributes is None or value.attributes == attributes:
            return value
        raise CardError(
            f"{value.protocol!r} is a {value.attributes}-attribute card, "
            f"not a {attributes}-attribute one"
        )
    try:
        if isinstance(value, str):
            text = value.strip()
            if not text:
                raise _NotAValue("it is empty")
            if "/" in text:
                values, described = _positional(
                    text.split("/"), ATTRIBUTE_NAMES, upper=True, base=base
                )
            elif text.isdigit():
                bad = next((digit for digit in text if digit not in "0123"[:base]), None)
                if bad is not None:
                    use = "0, 1 or 2" if base == 3 else "0, 1, 2 or 3"
                    raise _NotAValue(f"{bad!r} is not a digit {use}")
                if not 3 <= len(text) <= 5:
                    raise _NotAValue(f"a card has 3, 4 or 5 digits, not {len(text)}")
                described = len(text)
                values = dict(zip(ATTRIBUTE_NAMES, map(int, text), strict=False))
            else:
                values, described = _phrase(text, base)
        elif isinstance(value, list | tuple):
            if not all(isinstance(word, str) for word in value):
                raise _NotAValue("its words must be strings")
            values, described = _positional(list(value), _WORD_ORDER, upper=False, base=base)
        else:
            raise _NotAValue("expected text or a list of words")
        return _make(values, described, attributes, base)
    except _NotAValue as why:
        raise CardError(f"{value!r} is not a card: {why}") from None
    except CardError as why:
        raise CardError(f"{value!r} is not a card: {why}") from None


def parse_cards(values: Iterable[Any], attributes: int | None = None, base: int = 3) -> list[Card]:
    """Read several cards of one deck; raise if their sizes differ or a card is repeated.

    >>> [card.digits for card in parse_cards(["0000", "one green striped squiggle"])]
    ['0000', '0111']
    >>> try:  # doctest: +ELLIPSIS
    ...     parse_cards(["0000", "ONE/RED/SOLID/DIAMOND"])
    ... except RepeatedCardError as error:
    ...     print(error)
    'ONE/RED/SOLID/DIAMOND' repeats '0000' (both are ONE/RED/SOLID/DIAMOND): a deck holds ...
    """
    if isinstance(values, str | bytes):
        raise CardError(f"expected a list of cards, not the text {values!r}")
    given = list(values)
    cards = [parse_card(value, attributes, base) for value in given]
    if cards:
        first = cards[0]
        for value, card in zip(given, cards, strict=True):
            if card.attributes != first.attributes:
                raise CardError(
                    f"{value!r} is a {card.attributes}-attribute card but {given[0]!r} is a "
                    f"{first.attributes}-attribute one: all cards must come from one deck"
                )
    where: dict[Card, int] = {}
    for i, card in enumerate(cards):
        j = where.setdefault(card, i)
        if j != i:
            if given[i] == given[j]:
                message = f"{card.protocol} appears twice: a deck holds each card once"
            else:
                message = (
                    f"{given[i]!r} repeats {given[j]!r} (both are {card.protocol}): "
                    "a deck holds each card once"
                )
            raise RepeatedCardError(message)
    return cards
