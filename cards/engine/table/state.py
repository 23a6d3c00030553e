"""A Set table's state: small frozen dataclasses, and their JSON form.

`DeclareState` and `ClassicState` hold one table each, for the two rule sets; what both keep
(the deck, the players and their scores, presence, tallies and hints, the end) is their base
`TableState`. Cards are int codes (see `cards.engine.table.codes`); a player is their name.
Nothing here changes: a rule builds the next state with `dataclasses.replace`, and a new tuple
or mapping only for what the move changed, so the rest is shared with the state before. The
per-player mappings are read-only (`types.MappingProxyType`); `with_entry` and `without_entry`
make changed copies.

The JSON form (`TableState.to_json`, `TableState.from_json`) is the dict of card texts that the
platform stores; its keys, their order and the card texts are those of every state stored
before the state was typed, so stored games read back unchanged and a replayed game's JSON
equals its stored snapshot:

>>> from cards.engine.table import DeclareRules
>>> deck = ["ONE/RED/SOLID/SQUIGGLE", "TWO/RED/SOLID/SQUIGGLE", "THREE/RED/SOLID/SQUIGGLE"]
>>> deck += ["ONE/GREEN/OPEN/SQUIGGLE", "ONE/PURPLE/OPEN/SQUIGGLE", "ONE/GREEN/SOLID/SQUIGGLE"]
>>> deck += ["TWO/GREEN/OPEN/SQUIGGLE", "TWO/PURPLE/STRIPED/SQUIGGLE", "ONE/RED/OPEN/SQUIGGLE"]
>>> state = DeclareRules.new_state(options={"attributes": 3, "deck": deck}, now_ms=0)
>>> state.board[0], state.declaring
((0, 9, 18), None)
>>> stored = state.to_json()
>>> stored["board"][0], list(stored)[:4]
(['ONE/RED/SOLID/SQUIGGLE', 'TWO/RED/SOLID/SQUIGGLE', 'THREE/RED/SOLID/SQUIGGLE'], ['rules', 'attributes', 'default_cols', 'declare_ms'])
>>> TableState.from_json(stored) == state
True
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from cards.engine.table.base import TableError
from cards.engine.table.codes import codes_of, texts

__all__ = [
    "ClassicState",
    "DeclareState",
    "Declaring",
    "Hint",
    "Position",
    "RuleSet",
    "TableState",
    "Tally",
    "with_entry",
    "without_entry",
]

#: A position on a declare board: (row, column), row 0 on top.
Position = tuple[int, int]

K = TypeVar("K")
V = TypeVar("V")

_EMPTY: Mapping[Any, Any] = MappingProxyType({})


def frozen(entries: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> Mapping[K, V]:
    """Return a read-only mapping of ``entries``, keeping their order."""
    return MappingProxyType(dict(entries))


def with_entry(mapping: Mapping[K, V], key: K, value: V) -> Mapping[K, V]:
    """Return ``mapping`` with ``key`` set to ``value``: in its place if there, else last.

    >>> with_entry(frozen({"ann": 1, "bo": 2}), "ann", 5)
    mappingproxy({'ann': 5, 'bo': 2})
    """
    entries = mapping.copy()  # type: ignore[attr-defined]
    entries[key] = value
    return MappingProxyType(entries)


def without_entry(mapping: Mapping[K, V], key: K) -> Mapping[K, V]:
    """Return ``mapping`` without ``key`` (the same mapping if it has no such key)."""
    if key not in mapping:
        return mapping
    entries = mapping.copy()  # type: ignore[attr-defined]
    del entries[key]
    return MappingProxyType(entries)


class RuleSet(StrEnum):
    """Name a table's rule set, as its JSON ``rules`` key and the platform's option say."""

    DECLARE = "declare"
    CLASSIC = "classic"


@dataclass(frozen=True, slots=True)
class Tally:
    """Count what one player did: sets found (and how many of them hinted), wrong picks or
    claims, and declare timeouts.

    The state keeps counts, not a list of events: the move log holds every event with its
    outcome, and a state that grew with every move would make every move slower.
    """

    sets: int = 0
    hinted: int = 0
    wrong: int = 0
    timeouts: int = 0

    def add(self, *, sets: int = 0, hinted: int = 0, wrong: int = 0, timeouts: int = 0) -> Tally:
        """Return this tally with the given counts added.

        >>> Tally().add(sets=1, hinted=1).add(wrong=1)
        Tally(sets=1, hinted=1, wrong=1, timeouts=0)
        """
        return Tally(
            self.sets + sets, self.hinted + hinted, self.wrong + wrong, self.timeouts + timeouts
        )

    def to_json(self) -> dict[str, int]:
        """Return the tally as stored: ``{"sets", "hinted", "wrong", "timeouts"}``."""
        return {
            "sets": self.sets,
            "hinted": self.hinted,
            "wrong": self.wrong,
            "timeouts": self.timeouts,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, int]) -> Tally:
        """Read a stored tally (a count it lacks is 0)."""
        return cls(
            data.get("sets", 0),
            data.get("hinted", 0),
            data.get("wrong", 0),
            data.get("timeouts", 0),
        )


@dataclass(frozen=True, slots=True)
class Hint:
    """Remember the last hint a player was shown: the ``card`` of the set ``set`` it came from.

    It is shown again while its whole set is on the board, so asking twice reveals no more.
    """

    card: int
    set: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Declaring:
    """Hold a declare in progress (§4): who declared, until when, who waits, what is picked.

    ``queue`` lists the players waiting to declare next, first first (never shown); ``picks``
    the declarer's picks in order (at most two: the third is judged at once).
    """

    declarer: str
    deadline: int
    queue: tuple[str, ...] = ()
    picks: tuple[Position, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    """Hold what both rule sets keep of a table.

    ``attributes`` (3, 4 or 5) sizes the deck; ``away_ms`` says when a silent player is away
    and ``created_ms`` when the table was dealt. ``deck`` holds the cards still to deal, front
    first; ``taken`` the cards of found sets, in order. ``players`` are the seated names in join
    order; ``scores`` and ``last_seen`` (ms of each player's last request) have an entry for each.
    ``hints`` keeps each player's last hint, ``hinted_cards`` the cards ever shown to a player
    that are still on the board, ``tally`` what each player did (an entry from their first set,
    wrong pick or timeout on). ``over`` and ``ended_ms`` tell whether and when the game ended.
    """

    rules: ClassVar[RuleSet]

    attributes: int
    away_ms: int
    created_ms: int
    deck: tuple[int, ...]
    taken: tuple[int, ...] = ()
    players: tuple[str, ...] = ()
    scores: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    last_seen: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    hints: Mapping[str, Hint] = field(default_factory=lambda: _EMPTY)
    hinted_cards: Mapping[str, tuple[int, ...]] = field(default_factory=lambda: _EMPTY)
    tally: Mapping[str, Tally] = field(default_factory=lambda: _EMPTY)
    over: bool = False
    ended_ms: int | None = None

    @property
    def board_cards(self) -> tuple[int, ...]:
        """Return the board's cards in the order views and hints address them."""
        raise NotImplementedError

    def __copy__(self) -> TableState:
        return self  # nothing in it ever changes

    def __deepcopy__(self, memo: dict) -> TableState:
        return self

    def __reduce__(self) -> tuple:
        """Pickle a state as its JSON form (its read-only mappings cannot be pickled)."""
        return (TableState.from_json, (self.to_json(),))

    def to_json(self, like: tuple[TableState, dict] | None = None) -> dict[str, Any]:
        """Return the state as the platform stores it: a new JSON-able dict of card texts.

        ``like`` is an earlier state and the JSON this method returned for it: whatever part the
        two states share (the same object, as `dataclasses.replace` keeps it) takes its JSON
        from there instead of being drawn again, so a move that changed one part of a table
        converts that part only. The JSON returned is never changed by anyone, so parts of it
        may be shared by several such dicts.
        """
        raise NotImplementedError

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> TableState:
        """Read a stored state of either rule set (its ``rules`` key, "declare" if absent).

        Raise `TableError` (code ``bad_state``) for data that is not a table state.
        """
        rules = data.get("rules", RuleSet.DECLARE) if isinstance(data, Mapping) else None
        kind = _KINDS.get(rules) if isinstance(rules, str) else None
        if kind is None:
            raise TableError(f"Not a Set table state: rules {rules!r}.", "bad_state")
        try:
            return kind._read(data)
        except TableError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise TableError(f"Not a Set table state: {error!r}.", "bad_state") from None

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> TableState:
        raise NotImplementedError

    # -- shared parts of the JSON form -------------------------------------------------------

    @staticmethod
    def _common(data: Mapping[str, Any], attributes: int) -> dict[str, Any]:
        """Read the keys both rule sets store, as keyword arguments of the state class."""
        hints = {
            name: Hint(codes_of((hint["card"],), attributes)[0], codes_of(hint["set"], attributes))
            for name, hint in data["hints"].items()
        }
        return {
            "attributes": attributes,
            "away_ms": data["away_ms"],
            "created_ms": data["created_ms"],
            "deck": codes_of(data["deck"], attributes),
            "taken": codes_of(data["taken"], attributes),
            "players": tuple(data["players"]),
            "scores": frozen(data["scores"]),
            "last_seen": frozen(data["last_seen"]),
            "hints": frozen(hints),
            "hinted_cards": frozen(
                (name, codes_of(cards, attributes)) for name, cards in data["hinted_cards"].items()
            ),
            "tally": frozen((name, Tally.from_json(t)) for name, t in data["tally"].items()),
            "over": data["over"],
            "ended_ms": data["ended_ms"],
        }


class _Json:
    """Draw a state's JSON parts, each from ``like``'s JSON when the part is shared with it."""

    __slots__ = ("state", "before", "old", "text")

    def __init__(self, state: TableState, like: tuple[TableState, dict] | None) -> None:
        self.state = state
        self.before, self.old = like if like is not None else (None, None)
        self.text = texts(state.attributes).__getitem__

    def kept(self, name: str) -> bool:
        """Tell whether part ``name`` is the very same object in the earlier state."""
        return self.before is not None and getattr(self.before, name) is getattr(self.state, name)

    def cards(self, name: str, key: str | None = None) -> list[str]:
        if self.kept(name):
            return self.old[key or name]
        return list(map(self.text, getattr(self.state, name)))

    def names(self, name: str) -> list[str]:
        return self.old[name] if self.kept(name) else list(getattr(self.state, name))

    def mapping(self, name: str) -> dict[str, Any]:
        return self.old[name] if self.kept(name) else dict(getattr(self.state, name))

    def hints(self) -> dict[str, Any]:
        if self.kept("hints"):
            return self.old["hints"]
        text = self.text
        return {
            name: {"card": text(hint.card), "set": list(map(text, hint.set))}
            for name, hint in self.state.hints.items()
        }

    def hinted_cards(self) -> dict[str, list[str]]:
        if self.kept("hinted_cards"):
            return self.old["hinted_cards"]
        text = self.text
        return {name: list(map(text, cards)) for name, cards in self.state.hinted_cards.items()}

    def tally(self) -> dict[str, dict[str, int]]:
        if self.kept("tally"):
            return self.old["tally"]
        return {name: tally.to_json() for name, tally in self.state.tally.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclareState(TableState):
    """Hold a "declare" table (see `cards.engine.table.DeclareRules`).

    ``board`` is 3 rows of equal length, row 0 on top; ``default_cols`` the columns of a fresh
    board (D = attributes). ``declare_ms`` is a declarer's time to pick. ``votes`` lists the
    players who voted to add cards, in vote order; ``declaring`` is the declare in progress, or
    None when nobody is declaring.
    """

    rules: ClassVar[RuleSet] = RuleSet.DECLARE

    default_cols: int
    declare_ms: int
    board: tuple[tuple[int, ...], ...]
    votes: tuple[str, ...] = ()
    declaring: Declaring | None = None

    @property
    def board_cards(self) -> tuple[int, ...]:
        """Return the board's cards row by row (§3 order)."""
        return tuple(card for row in self.board for card in row)

    @property
    def cols(self) -> int:
        """Return the board's column count (0 for a finished, empty 3x0 board)."""
        return len(self.board[0])

    def to_json(self, like: tuple[TableState, dict] | None = None) -> dict[str, Any]:
        """Return the stored form (see `TableState.to_json`)."""
        part = _Json(self, like)
        text = part.text
        if part.kept("board"):
            board = part.old["board"]
        else:
            board = [list(map(text, row)) for row in self.board]
        if part.kept("declaring"):
            old = part.old
            declarer, deadline = old["declarer"], old["deadline"]
            queue, picks = old["queue"], old["picks"]
        elif self.declaring is None:
            declarer, deadline, queue, picks = None, None, [], []
        else:
            declaring = self.declaring
            declarer, deadline = declaring.declarer, declaring.deadline
            queue, picks = list(declaring.queue), [[r, c] for r, c in declaring.picks]
        return {
            "rules": self.rules.value,
            "attributes": self.attributes,
            "default_cols": self.default_cols,
            "declare_ms": self.declare_ms,
            "away_ms": self.away_ms,
            "created_ms": self.created_ms,
            "board": board,
            "deck": part.cards("deck"),
            "taken": part.cards("taken"),
            "players": part.names("players"),
            "scores": part.mapping("scores"),
            "votes": part.names("votes"),
            "last_seen": part.mapping("last_seen"),
            "declarer": declarer,
            "deadline": deadline,
            "queue": queue,
            "picks": picks,
            "hints": part.hints(),
            "hinted_cards": part.hinted_cards(),
            "tally": part.tally(),
            "over": self.over,
            "ended_ms": self.ended_ms,
        }

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> DeclareState:
        attributes = data["attributes"]
        declarer = data["declarer"]
        if declarer is None:
            if data["deadline"] is not None or data["queue"] or data["picks"]:
                raise TableError(
                    "Not a Set table state: a deadline, queue or picks without a declarer.",
                    "bad_state",
                )
            declaring = None
        else:
            declaring = Declaring(
                declarer,
                data["deadline"],
                tuple(data["queue"]),
                tuple((r, c) for r, c in data["picks"]),
            )
        return cls(
            **TableState._common(data, attributes),
            default_cols=data["default_cols"],
            declare_ms=data["declare_ms"],
            board=tuple(codes_of(row, attributes) for row in data["board"]),
            votes=tuple(data["votes"]),
            declaring=declaring,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassicState(TableState):
    """Hold a "classic" table (see `cards.engine.classic.ClassicRules`).

    ``board`` is a flat tuple of cards with no holes (position ``i`` is drawn at row ``i % 3``,
    column ``i // 3``); ``board_size`` is the standard board. ``locked`` lists the players
    locked out by a wrong claim, in order.
    """

    rules: ClassVar[RuleSet] = RuleSet.CLASSIC

    board_size: int
    board: tuple[int, ...]
    locked: tuple[str, ...] = ()

    @property
    def board_cards(self) -> tuple[int, ...]:
        """Return the board's cards by position."""
        return self.board

    def to_json(self, like: tuple[TableState, dict] | None = None) -> dict[str, Any]:
        """Return the stored form (see `TableState.to_json`)."""
        part = _Json(self, like)
        return {
            "rules": self.rules.value,
            "attributes": self.attributes,
            "board_size": self.board_size,
            "away_ms": self.away_ms,
            "created_ms": self.created_ms,
            "board": part.cards("board"),
            "deck": part.cards("deck"),
            "taken": part.cards("taken"),
            "players": part.names("players"),
            "scores": part.mapping("scores"),
            "last_seen": part.mapping("last_seen"),
            "locked": part.names("locked"),
            "hints": part.hints(),
            "hinted_cards": part.hinted_cards(),
            "tally": part.tally(),
            "over": self.over,
            "ended_ms": self.ended_ms,
        }

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> ClassicState:
        attributes = data["attributes"]
        return cls(
            **TableState._common(data, attributes),
            board_size=data["board_size"],
            board=codes_of(data["board"], attributes),
            locked=tuple(data["locked"]),
        )


_KINDS: dict[str, type[TableState]] = {"declare": DeclareState, "classic": ClassicState}
