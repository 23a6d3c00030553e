"""Plain-data game state: status codes, reasons, actions, placements and the frozen GameState.

Everything here is immutable and round-trips through JSON-native dicts (``to_dict`` /
``from_dict``) without loss; the rules that move a game from one state to the next live in
:mod:`squaregame.engine.game`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import cached_property
from typing import Any, NamedTuple

from squaregame.engine.board import Board
from squaregame.engine.errors import SquareGameError
from squaregame.engine.pieces import PIECE_CODES, Point, Segment, piece_segments

STATE_FORMAT = 1
"""Version of the :meth:`GameState.to_dict` layout (not the original save format)."""


class Status(IntEnum):
    """Name the status codes every action returns (spec §13; code 4 is unused)."""

    ERROR = -1
    PASSED = 0
    AGAIN = 1
    NEXT = 2
    FINAL_ROUND = 3
    GAME_OVER = 5


class Reason(StrEnum):
    """Say why an action returned -1 (spec §7 reason ids, plus this project's own three)."""

    GAME_OVER = "game_over"
    NOT_STARTED = "not_started"
    NOT_YOUR_TURN = "not_your_turn"
    PIECE_UNAVAILABLE = "piece_unavailable"
    BAD_PERMUTATION = "bad_permutation"
    OUT_OF_BOUNDS = "out_of_bounds"
    LINE_TAKEN = "line_taken"
    NO_NEW_SQUARE = "no_new_square"
    NO_CONTACT = "no_contact"
    CROSSING = "crossing"
    #: An opening after the game has started (this project's name).
    ALREADY_STARTED = "already_started"
    #: An opening whose zero point is not (15, 15) (this project's name).
    OPENING_POSITION = "opening_position"
    #: An action that is not a well-formed action dict (this project's name).
    MALFORMED = "malformed"


class ActionType(StrEnum):
    """Name the kinds of action: the opening, a placement and a pass ("give up")."""

    OPENING = "opening"
    PLACE = "place"
    PASS = "pass"


class PlacementKind(StrEnum):
    """Say how a piece came onto the board."""

    OPENING = "opening"
    PRELOAD = "preload"
    REGULAR = "regular"


def _int(data: dict[str, Any], key: str, *, optional: bool = False) -> int | None:
    """Read an integer field of a dict, refusing bools and other look-alikes."""
    if key not in data or (optional and data[key] is None):
        if optional:
            return None
        raise SquareGameError(f"field {key!r} is missing")
    value = data[key]
    if type(value) is not int:
        raise SquareGameError(f"field {key!r} must be an integer, not {value!r}")
    return value


def _mapping(data: object, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise SquareGameError(f"{what} must be a JSON object, not {type(data).__name__}")
    return data


class Move(NamedTuple):
    """Name one legal placement ``(piece, permutation, x, y)``, as listed by the query (§12).

    A :class:`Move` is a plain tuple, so lists of them sort as the spec asks.

    >>> Move(9, 1, 16, 16).to_action()
    {'type': 'place', 'piece': 9, 'permutation': 1, 'x': 16, 'y': 16}
    """

    piece: int
    permutation: int
    x: int
    y: int

    def to_action(self) -> dict[str, Any]:
        """Return the action dict that makes this placement."""
        return {"type": "place", **self._asdict()}


@dataclass(frozen=True, slots=True)
class Action:
    """Hold one action a seat asks for: place a piece, pass, or make the opening.

    The dict form is what clients send: ``{"type": "place", "piece": 9, "permutation": 1,
    "x": 16, "y": 16}``, ``{"type": "pass"}`` or ``{"type": "opening", "piece": 13,
    "permutation": 4}``.

    >>> Action.from_dict({"type": "place", "piece": 9, "permutation": 1, "x": 16, "y": 16})
    Action(type=<ActionType.PLACE: 'place'>, piece=9, permutation=1, x=16, y=16)
    """

    type: ActionType
    piece: int | None = None
    permutation: int | None = None
    x: int | None = None
    y: int | None = None

    @classmethod
    def from_dict(cls, data: object) -> Action:
        """Parse an action dict; raise :class:`SquareGameError` naming what is wrong."""
        data = _mapping(data, "an action")
        kind = data.get("type")
        if kind == ActionType.PASS:
            return cls(ActionType.PASS)
        if kind not in (ActionType.PLACE, ActionType.OPENING):
            raise SquareGameError(
                f"unknown action type {kind!r}: expected 'place', 'pass' or 'opening'"
            )
        return cls(
            ActionType(kind),
            _int(data, "piece"),
            _int(data, "permutation"),
            _int(data, "x", optional=True),
            _int(data, "y", optional=True),
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the action as a JSON-native dict (fields that are unset are left out)."""
        data: dict[str, Any] = {"type": str(self.type)}
        for key in ("piece", "permutation", "x", "y"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


@dataclass(frozen=True, slots=True)
class Played:
    """Record one successful action and the seat that made it (what a save file lists)."""

    seat: int
    action: Action

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-native dict."""
        return {"seat": self.seat, **self.action.to_dict()}

    @classmethod
    def from_dict(cls, data: object) -> Played:
        """Parse a record written by :meth:`to_dict`."""
        data = _mapping(data, "a history entry")
        return cls(_int(data, "seat"), Action.from_dict(data))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Placement:
    """Hold one piece on the board: who laid it, where, how, and the squares it closed.

    ``id`` numbers placements from 1 in the order they were laid; the crossing rule compares
    these ids. ``squares`` lists the cells this placement newly closed (spec §8): the spec
    neither scores nor stores them, the state keeps them so a viewer can show who closed what.
    """

    id: int
    seat: int
    piece: int
    permutation: int
    x: int
    y: int
    kind: PlacementKind = PlacementKind.REGULAR
    squares: tuple[Point, ...] = ()

    @property
    def segments(self) -> tuple[Segment, ...]:
        """Return the unit segments this placement laid."""
        return piece_segments(self.piece, self.permutation, self.x, self.y)

    def to_dict(self) -> dict[str, Any]:
        """Return the placement as a JSON-native dict."""
        return {
            "id": self.id,
            "seat": self.seat,
            "piece": self.piece,
            "permutation": self.permutation,
            "x": self.x,
            "y": self.y,
            "kind": str(self.kind),
            "squares": [list(cell) for cell in self.squares],
        }

    @classmethod
    def from_dict(cls, data: object) -> Placement:
        """Parse a placement written by :meth:`to_dict`."""
        data = _mapping(data, "a placement")
        return cls(
            id=_int(data, "id"),  # type: ignore[arg-type]
            seat=_int(data, "seat"),  # type: ignore[arg-type]
            piece=_int(data, "piece"),  # type: ignore[arg-type]
            permutation=_int(data, "permutation"),  # type: ignore[arg-type]
            x=_int(data, "x"),  # type: ignore[arg-type]
            y=_int(data, "y"),  # type: ignore[arg-type]
            kind=PlacementKind(data["kind"]),
            squares=tuple((int(cx), int(cy)) for cx, cy in data["squares"]),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """Hold the result of one action: the status code, and why it was refused, if it was.

    ``squares`` lists the cells a placement newly closed; ``message`` says what happened in a
    sentence a player can read.
    """

    status: Status
    seat: int | None
    action: Action | None
    message: str
    reason: Reason | None = None
    squares: tuple[Point, ...] = ()

    @property
    def ok(self) -> bool:
        """Say whether the action was accepted (any status but -1)."""
        return self.status is not Status.ERROR

    def to_dict(self) -> dict[str, Any]:
        """Return the outcome as a JSON-native dict."""
        return {
            "status": int(self.status),
            "seat": self.seat,
            "action": None if self.action is None else self.action.to_dict(),
            "reason": None if self.reason is None else str(self.reason),
            "message": self.message,
            "squares": [list(cell) for cell in self.squares],
        }

    @classmethod
    def from_dict(cls, data: object) -> Outcome:
        """Parse an outcome written by :meth:`to_dict`."""
        data = _mapping(data, "an outcome")
        action = data.get("action")
        reason = data.get("reason")
        return cls(
            status=Status(data["status"]),
            seat=_int(data, "seat", optional=True),
            action=None if action is None else Action.from_dict(action),
            message=str(data["message"]),
            reason=None if reason is None else Reason(reason),
            squares=tuple((int(cx), int(cy)) for cx, cy in data["squares"]),
        )


@dataclass(frozen=True)
class GameState:
    """Hold a whole Square Game as immutable plain data (spec §5).

    Seats are 1..``players``; ``hands[seat - 1]`` is that seat's pieces, sorted. ``current``
    is the seat to act: seat N before the opening (it makes the opening), ``None`` once the
    game is over. ``final_round`` counts the turns left in the final round (``None`` until
    someone empties their hand). ``history`` lists every successful action, in order, and
    ``last`` is the outcome of the latest one. ``seed`` is kept for the platform: the rules
    themselves use no randomness. ``left`` lists the seats that left the game (`leave`: it
    ended there, they rank last); a state where nobody left stores no such key.

    Every rule function returns a new state; an illegal action returns the very same one.
    """

    players: int
    hands: tuple[tuple[int, ...], ...]
    active: tuple[int, ...]
    current: int | None
    placements: tuple[Placement, ...] = ()
    history: tuple[Played, ...] = ()
    moves_left: int = 1
    started: bool = False
    over: bool = False
    final_round: int | None = None
    winners: tuple[int, ...] = ()
    dead_position: bool = False
    last: Outcome | None = None
    seed: int | None = None
    left: tuple[int, ...] = ()

    @classmethod
    def new(cls, players: int, seed: int | None = None) -> GameState:
        """Set up a game for 2-4 seats, each holding pieces 1-16, awaiting seat N's opening."""
        if type(players) is not int or not 2 <= players <= 4:
            raise SquareGameError(f"a Square Game has 2 to 4 players, not {players!r}")
        if seed is not None and type(seed) is not int:
            raise SquareGameError(f"the seed must be an integer, not {seed!r}")
        return cls(
            players=players,
            hands=tuple(PIECE_CODES for _ in range(players)),
            active=tuple(range(1, players + 1)),
            current=players,
            seed=seed,
        )

    @cached_property
    def board(self) -> Board:
        """Return the board index of this state's placements (built once, never mutated)."""
        return Board.build((p.id, p.piece, p.permutation, p.x, p.y) for p in self.placements)

    @property
    def seats(self) -> range:
        """Return the seat numbers 1..N."""
        return range(1, self.players + 1)

    def hand(self, seat: int) -> tuple[int, ...]:
        """Return the pieces still in ``seat``'s hand."""
        return self.hands[seat - 1]

    @property
    def to_move(self) -> int | None:
        """Return the seat expected to act now (seat N for the opening), or ``None`` if over."""
        return None if self.over else self.current

    def squares_closed(self, seat: int) -> int:
        """Return how many squares ``seat``'s placements newly closed (a tally, not a score)."""
        return sum(len(p.squares) for p in self.placements if p.seat == seat)

    def to_dict(self) -> dict[str, Any]:
        """Return the state as a JSON-native dict; :meth:`from_dict` restores it exactly."""
        return {
            "format": STATE_FORMAT,
            "players": self.players,
            "seed": self.seed,
            "hands": [list(hand) for hand in self.hands],
            "active": list(self.active),
            "current": self.current,
            "placements": [p.to_dict() for p in self.placements],
            "history": [played.to_dict() for played in self.history],
            "moves_left": self.moves_left,
            "started": self.started,
            "over": self.over,
            "final_round": self.final_round,
            "winners": list(self.winners),
            "dead_position": self.dead_position,
            "last": None if self.last is None else self.last.to_dict(),
        } | ({"left": list(self.left)} if self.left else {})

    @classmethod
    def from_dict(cls, data: object) -> GameState:
        """Restore a state written by :meth:`to_dict`; raise :class:`SquareGameError` if bad."""
        try:
            data = _mapping(data, "a Square Game state")
            if data.get("format") != STATE_FORMAT:
                raise SquareGameError(f"unknown state format {data.get('format')!r}")
            last = data.get("last")
            state = cls(
                players=_int(data, "players"),  # type: ignore[arg-type]
                seed=_int(data, "seed", optional=True),
                hands=tuple(tuple(sorted(int(p) for p in hand)) for hand in data["hands"]),
                active=tuple(int(seat) for seat in data["active"]),
                current=_int(data, "current", optional=True),
                placements=tuple(Placement.from_dict(p) for p in data["placements"]),
                history=tuple(Played.from_dict(h) for h in data["history"]),
                moves_left=_int(data, "moves_left"),  # type: ignore[arg-type]
                started=bool(data["started"]),
                over=bool(data["over"]),
                final_round=_int(data, "final_round", optional=True),
                winners=tuple(int(seat) for seat in data["winners"]),
                dead_position=bool(data["dead_position"]),
                last=None if last is None else Outcome.from_dict(last),
                left=tuple(int(seat) for seat in data.get("left", ())),
            )
        except SquareGameError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise SquareGameError(f"not a Square Game state: {error}") from None
        if not 2 <= state.players <= 4 or len(state.hands) != state.players:
            raise SquareGameError("not a Square Game state: wrong number of players or hands")
        return state


class IllegalMoveError(SquareGameError):
    """Report an action the rules refuse (status -1); the game state is unchanged.

    ``reason`` is the spec's reason id (e.g. ``Reason.CROSSING``) and ``outcome`` the full
    refused :class:`Outcome`, so callers can answer with both.
    """

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome

    @property
    def reason(self) -> Reason | None:
        """Return why the action was refused (a spec reason id)."""
        return self.outcome.reason
