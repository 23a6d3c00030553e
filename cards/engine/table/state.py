"""A Set table's state: small frozen dataclasses, and their JSON form.

`DeclareState` and `ClassicState` hold one table each, for the two rule sets; what both keep
(the deck, the players and their scores, presence, tallies and hints, the end) is their base
`TableState`. Cards are int codes (see `cards.engine.table.codes`); a player is their name.
Nothing here changes: a rule builds the next state with `TableState.evolve` (as
`dataclasses.replace` does), and a new tuple or mapping only for what the move changed, so the
rest is shared with the state before. The per-player mappings are read-only
(`types.MappingProxyType`); `with_entry` and `without_entry` make changed copies.

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

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from cards.engine.table.base import TableError
from cards.engine.table.codes import codes_of, stored_codes, texts
from cards.engine.table.modes import MODES, Mode

__all__ = [
    "ClassicState",
    "DeclareState",
    "Declaring",
    "ModeState",
    "Hint",
    "Race",
    "Practice",
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
S = TypeVar("S", bound="TableState")
#: Reads card texts as codes.
_Codes = Callable[[Iterable[str]], tuple[int, ...]]

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
    claims, declare timeouts, and hints taken (a hint taken makes a rated table unrated, even
    when its set is then found by someone else).

    The state keeps counts, not a list of events: the move log holds every event with its
    outcome, and a state that grew with every move would make every move slower.
    """

    sets: int = 0
    hinted: int = 0
    wrong: int = 0
    timeouts: int = 0
    hints: int = 0

    def add(
        self, *, sets: int = 0, hinted: int = 0, wrong: int = 0, timeouts: int = 0, hints: int = 0
    ) -> Tally:
        """Return this tally with the given counts added.

        >>> Tally().add(sets=1, hinted=1).add(wrong=1)
        Tally(sets=1, hinted=1, wrong=1, timeouts=0, hints=0)
        """
        return Tally(
            self.sets + sets,
            self.hinted + hinted,
            self.wrong + wrong,
            self.timeouts + timeouts,
            self.hints + hints,
        )

    def to_json(self) -> dict[str, int]:
        """Return the tally as stored: ``{"sets", "hinted", "wrong", "timeouts"}``, and
        ``"hints"`` once a hint was taken (a tally of none is stored as before hints were
        counted)."""
        data = {
            "sets": self.sets,
            "hinted": self.hinted,
            "wrong": self.wrong,
            "timeouts": self.timeouts,
        }
        if self.hints:
            data["hints"] = self.hints
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, int]) -> Tally:
        """Read a stored tally."""
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Hint:
    """Remember the last hint a player was shown: the ``card`` of the set ``set`` it came from.

    It is shown again while its whole set is on the board, so asking twice reveals no more.
    """

    card: int
    set: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Race:
    """Hold a Set-N race: the ``target`` (how many sets end it) and, in the order found, each
    set's finder and the time it was found (Unix ms): the times say who wins a tie (the earlier
    last set) and how long the race took.
    """

    target: int
    sets: tuple[tuple[str, int], ...] = ()

    def with_set(self, player: str, at_ms: int) -> Race:
        """Return this race with one more set, found by ``player`` at ``at_ms``."""
        return Race(self.target, (*self.sets, (player, at_ms)))

    def to_json(self) -> dict[str, Any]:
        """Return the race as stored: ``{"target": N, "sets": [[player, at_ms], ...]}``."""
        return {"target": self.target, "sets": [list(found) for found in self.sets]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Race:
        """Read a stored race."""
        return cls(data["target"], tuple((name, at) for name, at in data["sets"]))


@dataclass(frozen=True, slots=True)
class Practice:
    """Hold what a practice table keeps besides the game (`cards.engine.table.practice`).

    ``paused_at`` is when the table was paused (None while it runs) and ``paused_ms`` the time
    it spent paused before, so a clock that leaves paused time out is computed from the state
    alone. ``hints`` counts the cards of a claim each player has had revealed, and ``shown`` the
    board's claims each player has had drawn ("show me"); both start again at any claim.
    """

    paused_at: int | None = None
    paused_ms: int = 0
    hints: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    shown: Mapping[str, int] = field(default_factory=lambda: _EMPTY)

    @property
    def paused(self) -> bool:
        """Tell whether the table is paused now."""
        return self.paused_at is not None

    def to_json(self) -> dict[str, Any]:
        """Return the stored form: ``{"paused_at", "paused_ms", "hints", "shown"}``."""
        return {
            "paused_at": self.paused_at,
            "paused_ms": self.paused_ms,
            "hints": dict(self.hints),
            "shown": dict(self.shown),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Practice:
        """Read the stored form (`to_json`)."""
        return cls(
            paused_at=data["paused_at"],
            paused_ms=data["paused_ms"],
            hints=MappingProxyType(dict(data["hints"])),
            shown=MappingProxyType(dict(data["shown"])),
        )


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

    def with_picks(self, picks: tuple[Position, ...]) -> Declaring:
        """Return this declare with the declarer's picks now ``picks``."""
        return Declaring(self.declarer, self.deadline, self.queue, picks)

    def with_queue(self, queue: tuple[str, ...]) -> Declaring:
        """Return this declare with ``queue`` waiting to declare next."""
        return Declaring(self.declarer, self.deadline, queue, self.picks)


@dataclass(frozen=True, kw_only=True)
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
    _json_keys: ClassVar[list[str]]

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
    waiting: bool = False
    starts_ms: int | None = None
    #: A practice table's pause, hints and "show me" (None: not a practice table).
    practice: Practice | None = None
    #: The players who left the game (ended by ``end_left``: away past ``away_ms``); they rank
    #: last. Stored only when there are some (a table's JSON form is as it was before).
    left: tuple[str, ...] = ()

    @property
    def started_ms(self) -> int | None:
        """Return when the cards were dealt, or None while the table waits."""
        if self.waiting:
            return None
        return self.created_ms if self.starts_ms is None else self.starts_ms

    def _start_json(self) -> dict[str, Any] | None:
        """Return the stored ``waiting`` and ``starts_ms``, or None for a table dealt when made
        (whose JSON form is as it was before tables could wait)."""
        if not self.waiting and self.starts_ms is None:
            return None
        return {"waiting": self.waiting, "starts_ms": self.starts_ms}

    @property
    def board_cards(self) -> tuple[int, ...]:
        """Return the board's cards in the order views and hints address them."""
        raise NotImplementedError

    @property
    def base(self) -> int:
        """Return how many values each attribute has: 3, or 4 in a 4Set mode's deck."""
        return 3

    def evolve(self: S, **changes: Any) -> S:
        """Return a copy of this state with ``changes``, as `dataclasses.replace` does, but a
        few times as fast: the new state's attributes are the old ones' dict, copied at once
        with the changes (a move replaces a state once or twice, and every move counts; for
        this the state classes keep their attributes in a dict, not in slots).

        >>> from cards.engine.table import DeclareRules
        >>> state = DeclareRules.new_state(seed=1)
        >>> state.evolve(votes=("ann",)) == dataclasses.replace(state, votes=("ann",))
        True
        >>> state.evolve(vote=("ann",))
        Traceback (most recent call last):
        ...
        TypeError: DeclareState has no field vote
        """
        if not changes.keys() <= _FIELDS[type(self)]:
            unknown = ", ".join(sorted(set(changes) - _FIELDS[type(self)]))
            raise TypeError(f"{type(self).__name__} has no field {unknown}")
        new = _new(type(self))
        # Set as the frozen class's own __init__ sets its fields. A dict built afresh, not a
        # copy of the old one (which may share its keys with the class), is one whose entries
        # Python reads as quickly as slots.
        _set(new, "__dict__", {**self.__dict__, **changes})
        return new

    def __copy__(self) -> TableState:
        """Return the state itself: nothing in it ever changes."""
        return self

    def __deepcopy__(self, memo: dict) -> TableState:
        """Return the state itself: nothing in it ever changes."""
        return self

    def __reduce__(self) -> tuple:
        """Pickle a state as its JSON form (its read-only mappings cannot be pickled)."""
        return (TableState.from_json, (self.to_json(),))

    def to_json(self, like: tuple[TableState, dict] | None = None) -> dict[str, Any]:
        """Return the state as the platform stores it: a new JSON-able dict of card texts.

        ``like`` is an earlier state and its JSON form (as this method returned it, or as stored
        and read back): the dict returned is then a copy of that JSON with only the parts the
        two states do not share (the same object, as `evolve` keeps it) drawn again, so a move
        that changed one part of a table converts that part only. A form whose keys are not this
        method's, in its order, lends nothing: the whole state is drawn. The JSON returned is
        never changed by anyone, so parts of it may be shared by several such dicts.
        """
        text = texts(self.attributes, self.base).__getitem__
        start = self._start_json()
        if like is None:
            return self._with_start(self._with_race(self._drawn(text)), start)
        before, old = like
        keys = [*old]
        if keys[-1:] == [_PRACTICE_KEY]:
            keys = keys[:-1]
        if keys[-2:] == _START_KEYS:
            keys = keys[:-2]
        if keys[-1:] == _RACE_KEYS:
            keys = keys[:-1]
        if (
            type(before) is not type(self)
            or before.attributes != self.attributes
            or keys != self._json_keys
        ):
            return self._with_start(self._with_race(self._drawn(text)), start)
        data = old.copy()
        data["away_ms"] = self.away_ms
        data["created_ms"] = self.created_ms
        if self.deck is not before.deck:
            data["deck"] = list(map(text, self.deck))
        if self.taken is not before.taken:
            data["taken"] = list(map(text, self.taken))
        if self.players is not before.players:
            data["players"] = list(self.players)
        if self.scores is not before.scores:
            data["scores"] = self.scores.copy()  # type: ignore[attr-defined]
        if self.last_seen is not before.last_seen:
            data["last_seen"] = self.last_seen.copy()  # type: ignore[attr-defined]
        if self.hints is not before.hints:
            data["hints"] = _hints_json(self.hints, text)
        if self.hinted_cards is not before.hinted_cards:
            data["hinted_cards"] = _hinted_json(self.hinted_cards, text)
        if self.tally is not before.tally:
            data["tally"] = _tally_json(self.tally)
        data["over"] = self.over
        data["ended_ms"] = self.ended_ms
        self._redraw(data, before, text)
        return self._with_start(self._with_race(data), start)

    def _with_start(self, data: dict[str, Any], start: dict[str, Any] | None) -> dict[str, Any]:
        """Return ``data`` with the start's keys last, or without them (a table dealt when made),
        and a practice table's ``practice`` after all (no such key at any other table)."""
        data.pop(_PRACTICE_KEY, None)
        if start is None:
            data.pop("waiting", None)
            data.pop("starts_ms", None)
        else:
            data.update(start)
        if self.practice is not None:
            data[_PRACTICE_KEY] = self.practice.to_json()  # a few numbers: drawn every time
        return data

    def _with_race(self, data: dict[str, Any]) -> dict[str, Any]:
        """Return ``data`` with a race's key after the rule set's own (a table that is no race
        has none, so its JSON form is as it was before races)."""
        race = getattr(self, "race", None)
        if race is not None:
            data["race"] = race.to_json()
        if self.left:
            data["left"] = list(self.left)
        return data

    def _drawn(self, text: Callable[[int], str]) -> dict[str, Any]:
        """Return the whole JSON form, every part drawn."""
        raise NotImplementedError

    def _redraw(self, data: dict[str, Any], before: Any, text: Callable[[int], str]) -> None:
        """Draw into ``data`` (``before``'s JSON) this rule set's own parts that changed."""
        raise NotImplementedError

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> TableState:
        """Read a stored state of either rule set (its ``rules`` key, "declare" if absent).

        Raise `TableError` (code ``bad_state``) for data that is not a table state.
        """
        rules = data.get("rules", RuleSet.DECLARE) if isinstance(data, Mapping) else None
        kind = _KINDS.get(rules) if isinstance(rules, str) else None
        if kind is ClassicState and "mode" in data:
            kind = ModeState
        if kind is None:
            raise TableError(f"Not a Set table state: rules {rules!r}.", "bad_state")
        try:
            attributes = data["attributes"]
            base = MODES[data["mode"]].values if kind is ModeState else 3
            try:
                return kind._read(data, stored_codes(attributes, base))
            except KeyError:  # a card text in another form, or a key missing: read it slowly
                return kind._read(data, lambda given: codes_of(given, attributes, base))
        except TableError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise TableError(f"Not a Set table state: {error!r}.", "bad_state") from None

    @classmethod
    def _read(cls, data: Mapping[str, Any], codes: _Codes) -> TableState:
        raise NotImplementedError

    # -- shared parts of the JSON form -------------------------------------------------------

    @staticmethod
    def _common(data: Mapping[str, Any], codes: _Codes) -> dict[str, Any]:
        """Read the keys both rule sets store, as keyword arguments of the state class."""
        hints = data["hints"]
        hinted_cards = data["hinted_cards"]
        return {
            "attributes": data["attributes"],
            "away_ms": data["away_ms"],
            "created_ms": data["created_ms"],
            "deck": codes(data["deck"]),
            "taken": codes(data["taken"]),
            "players": tuple(data["players"]),
            "scores": MappingProxyType(dict(data["scores"])),
            "last_seen": MappingProxyType(dict(data["last_seen"])),
            "hints": MappingProxyType(
                {
                    name: Hint(codes((hint["card"],))[0], codes(hint["set"]))  # type: ignore[arg-type]
                    for name, hint in hints.items()
                }
                if hints
                else {}
            ),
            "hinted_cards": MappingProxyType(
                {name: codes(cards) for name, cards in hinted_cards.items()} if hinted_cards else {}
            ),
            "tally": MappingProxyType(
                {name: Tally.from_json(t) for name, t in data["tally"].items()}
            ),
            "over": data["over"],
            "ended_ms": data["ended_ms"],
            # A table stored without them was dealt when it was made.
            "waiting": data.get("waiting", False),
            "starts_ms": data.get("starts_ms"),
            "left": tuple(data.get("left", ())),
            # Only a practice table stores it.
            "practice": (
                Practice.from_json(data[_PRACTICE_KEY]) if _PRACTICE_KEY in data else None
            ),
        }


#: The keys a table made to wait stores after all others, and before them a race's.
_START_KEYS = ["waiting", "starts_ms"]
_RACE_KEYS = ["race"]
#: The key a practice table stores after those.
_PRACTICE_KEY = "practice"


def _hints_json(hints: Mapping[str, Hint], text: Callable[[int], str]) -> dict[str, Any]:
    return {
        name: {"card": text(hint.card), "set": list(map(text, hint.set))}
        for name, hint in hints.items()
    }


def _hinted_json(
    hinted_cards: Mapping[str, tuple[int, ...]], text: Callable[[int], str]
) -> dict[str, list[str]]:
    return {name: list(map(text, cards)) for name, cards in hinted_cards.items()}


def _tally_json(tally: Mapping[str, Tally]) -> dict[str, dict[str, int]]:
    return {name: counts.to_json() for name, counts in tally.items()}


def _declaring_json(declaring: Declaring | None) -> tuple[str | None, int | None, list, list]:
    """Return the stored ``declarer``, ``deadline``, ``queue`` and ``picks`` of a declare."""
    if declaring is None:
        return None, None, [], []
    return (
        declaring.declarer,
        declaring.deadline,
        list(declaring.queue),
        list(map(list, declaring.picks)),
    )


@dataclass(frozen=True, kw_only=True)
class DeclareState(TableState):
    """Hold a "declare" table (see `cards.engine.table.DeclareRules`).

    ``board`` is 3 rows of equal length, row 0 on top; ``default_cols`` the columns of a fresh
    board (D = attributes). ``declare_ms`` is a declarer's time to pick. ``votes`` lists the
    players who voted to add cards, in vote order; ``declaring`` is the declare in progress, or
    None when nobody is declaring.
    """

    rules: ClassVar[RuleSet] = RuleSet.DECLARE
    #: The keys of the JSON form, in order.
    _json_keys: ClassVar[list[str]] = [
        "rules",
        "attributes",
        "default_cols",
        "declare_ms",
        "away_ms",
        "created_ms",
        "board",
        "deck",
        "taken",
        "players",
        "scores",
        "votes",
        "last_seen",
        "declarer",
        "deadline",
        "queue",
        "picks",
        "hints",
        "hinted_cards",
        "tally",
        "over",
        "ended_ms",
    ]

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

    def _drawn(self, text: Callable[[int], str]) -> dict[str, Any]:
        declarer, deadline, queue, picks = _declaring_json(self.declaring)
        return {
            "rules": self.rules.value,
            "attributes": self.attributes,
            "default_cols": self.default_cols,
            "declare_ms": self.declare_ms,
            "away_ms": self.away_ms,
            "created_ms": self.created_ms,
            "board": [list(map(text, row)) for row in self.board],
            "deck": list(map(text, self.deck)),
            "taken": list(map(text, self.taken)),
            "players": list(self.players),
            "scores": self.scores.copy(),  # type: ignore[attr-defined]
            "votes": list(self.votes),
            "last_seen": self.last_seen.copy(),  # type: ignore[attr-defined]
            "declarer": declarer,
            "deadline": deadline,
            "queue": queue,
            "picks": picks,
            "hints": _hints_json(self.hints, text),
            "hinted_cards": _hinted_json(self.hinted_cards, text),
            "tally": _tally_json(self.tally),
            "over": self.over,
            "ended_ms": self.ended_ms,
        }

    def _redraw(
        self, data: dict[str, Any], before: DeclareState, text: Callable[[int], str]
    ) -> None:
        data["default_cols"] = self.default_cols
        data["declare_ms"] = self.declare_ms
        if self.board is not before.board:
            data["board"] = [list(map(text, row)) for row in self.board]
        if self.votes is not before.votes:
            data["votes"] = list(self.votes)
        if self.declaring is not before.declaring:
            declarer, deadline, queue, picks = _declaring_json(self.declaring)
            data["declarer"] = declarer
            data["deadline"] = deadline
            data["queue"] = queue
            data["picks"] = picks

    @classmethod
    def _read(cls, data: Mapping[str, Any], codes: _Codes) -> DeclareState:
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
            **TableState._common(data, codes),
            default_cols=data["default_cols"],
            declare_ms=data["declare_ms"],
            board=tuple(map(codes, data["board"])),
            votes=tuple(data["votes"]),
            declaring=declaring,
        )


@dataclass(frozen=True, kw_only=True)
class ClassicState(TableState):
    """Hold a "classic" table (see `cards.engine.classic.ClassicRules`).

    ``board`` is a flat tuple of cards with no holes (position ``i`` is drawn at row ``i % 3``,
    column ``i // 3``); ``board_size`` is the standard board. ``locked`` lists the players
    locked out by a wrong claim, in order. ``race`` is a Set-N race's target and sets found
    (None: the table is no race; see `cards.engine.table.race`).
    """

    rules: ClassVar[RuleSet] = RuleSet.CLASSIC
    #: The keys of the JSON form, in order.
    _json_keys: ClassVar[list[str]] = [
        "rules",
        "attributes",
        "board_size",
        "away_ms",
        "created_ms",
        "board",
        "deck",
        "taken",
        "players",
        "scores",
        "last_seen",
        "locked",
        "hints",
        "hinted_cards",
        "tally",
        "over",
        "ended_ms",
    ]

    board_size: int
    board: tuple[int, ...]
    locked: tuple[str, ...] = ()
    race: Race | None = None

    @property
    def board_cards(self) -> tuple[int, ...]:
        """Return the board's cards by position."""
        return self.board

    def _drawn(self, text: Callable[[int], str]) -> dict[str, Any]:
        return {
            "rules": self.rules.value,
            "attributes": self.attributes,
            "board_size": self.board_size,
            "away_ms": self.away_ms,
            "created_ms": self.created_ms,
            "board": list(map(text, self.board)),
            "deck": list(map(text, self.deck)),
            "taken": list(map(text, self.taken)),
            "players": list(self.players),
            "scores": self.scores.copy(),  # type: ignore[attr-defined]
            "last_seen": self.last_seen.copy(),  # type: ignore[attr-defined]
            "locked": list(self.locked),
            "hints": _hints_json(self.hints, text),
            "hinted_cards": _hinted_json(self.hinted_cards, text),
            "tally": _tally_json(self.tally),
            "over": self.over,
            "ended_ms": self.ended_ms,
        }

    def _redraw(
        self, data: dict[str, Any], before: ClassicState, text: Callable[[int], str]
    ) -> None:
        data["board_size"] = self.board_size
        if self.board is not before.board:
            data["board"] = list(map(text, self.board))
        if self.locked is not before.locked:
            data["locked"] = list(self.locked)

    @classmethod
    def _read(cls, data: Mapping[str, Any], codes: _Codes, **more: Any) -> ClassicState:
        """Read a stored classic table (``more``: a subclass's own fields, read already)."""
        return cls(
            **TableState._common(data, codes),
            board_size=data["board_size"],
            board=codes(data["board"]),
            locked=tuple(data["locked"]),
            race=Race.from_json(data["race"]) if "race" in data else None,
            **more,
        )


@dataclass(frozen=True, kw_only=True)
class ModeState(ClassicState):
    """Hold a classic table played in another mode (`cards.engine.table.modes`): UltraSet,
    Set-Chain or the puzzle.

    ``mode`` names it; ``chain`` is a chain table's last claim, off the board (empty before the
    first); ``found`` the claims a puzzle's board has had found, each sorted, in the order found;
    ``rng`` a shuffling table's generator seed (None elsewhere). Its JSON form is the classic one
    with ``mode``, ``chain`` and ``found`` after it (and ``rng`` last, for a shuffling table), so a
    table of the card game itself is stored as it always was.
    """

    _json_keys: ClassVar[list[str]] = [*ClassicState._json_keys, "mode", "chain", "found"]

    mode: Mode
    chain: tuple[int, ...] = ()
    found: tuple[tuple[int, ...], ...] = ()
    rng: int | None = None

    @property
    def base(self) -> int:
        """Return how many values each attribute has in this mode's deck (4 in the 4Sets')."""
        return MODES[self.mode].values

    def _drawn(self, text: Callable[[int], str]) -> dict[str, Any]:
        data = {
            **super()._drawn(text),
            "mode": self.mode.value,
            "chain": list(map(text, self.chain)),
            "found": [list(map(text, cards)) for cards in self.found],
        }
        if self.rng is not None:  # a shuffling table's generator (stored by those alone)
            data["rng"] = self.rng
        return data

    def _redraw(self, data: dict[str, Any], before: ModeState, text: Callable[[int], str]) -> None:
        super()._redraw(data, before, text)
        if self.chain is not before.chain:
            data["chain"] = list(map(text, self.chain))
        if self.found is not before.found:
            data["found"] = [list(map(text, cards)) for cards in self.found]

    @classmethod
    def _read(cls, data: Mapping[str, Any], codes: _Codes, **more: Any) -> ModeState:
        return super()._read(  # type: ignore[return-value]
            data,
            codes,
            mode=Mode(data["mode"]),
            chain=codes(data["chain"]),
            found=tuple(map(codes, data["found"])),
            rng=data.get("rng"),
            **more,
        )


_FIELDS = {
    cls: frozenset(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    for cls in (DeclareState, ClassicState, ModeState)
}
_new = object.__new__
_set = object.__setattr__
_KINDS: dict[str, type[TableState]] = {"declare": DeclareState, "classic": ClassicState}
