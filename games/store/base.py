"""What the store's parts share: a game's head and a seat as a write knows them, the operations a
job yields, the cache of seats by token, and the running of a job."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from games import runtime
from games.models import Game


@dataclass(frozen=True)
class TableHead:
    """What a write and a live view need of a game: the row's few columns and the state. Read
    with one small SQL query (the ORM costs ten times more per query here), and kept per game
    by runtime.remember_head: a cached head is shared by every reader, so neither it nor its
    state is ever changed in place."""

    pk: int
    kind: str
    is_open: bool
    status: str
    version: int
    deadline_ms: int | None
    state: dict
    is_default: bool = False
    has_computers: bool = False
    link_key: str = ""  # a private game's key ("" for a game anyone may see)
    rated: bool = False  # created rated (never changes: games.ratings)


def head_of(game: Game, state: dict | None = None) -> TableHead:
    """A game row's head (with `state`, or the game's own)."""
    return TableHead(
        game.pk,
        game.kind,
        game.is_open,
        game.status,
        game.version,
        game.deadline_ms,
        game.state if state is None else state,
        game.is_default,
        game.has_computers,
        game.link_key,
        game.rated,
    )


HEAD_COLUMNS = (
    "id",
    "kind",
    "is_open",
    "status",
    "version",
    "deadline_ms",
    "is_default",
    "has_computers",
    "link_key",
    "rated",
)


def head_from_row(row, state: dict) -> TableHead:
    """A head from a row of HEAD_COLUMNS (SQLite gives its booleans as integers)."""
    pk, kind, is_open, status, version, deadline_ms, is_default, has_computers, link_key, rated = (
        row
    )
    return TableHead(
        pk,
        kind,
        bool(is_open),
        status,
        version,
        deadline_ms,
        state,
        bool(is_default),
        bool(has_computers),
        link_key,
        bool(rated),
    )


_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what models.new_token makes (token_urlsafe)


def is_token(token) -> bool:
    """Whether a value could be a seat token (anything else is refused unasked)."""
    return isinstance(token, str) and _TOKEN.fullmatch(token) is not None


dumps = runtime.json_text  # as Django's JSONField stores it on SQLite, compact


def utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class SeatRef(NamedTuple):
    """A seat as the write path knows it: what never changes about it (a tuple of plain values,
    which Python's collector stops tracking: the cache holds thousands)."""

    pk: int
    game_id: int
    player_id: int
    number: int
    name: str
    token: str
    is_computer: bool
    protocol: bool  # joined by name over the text protocol: the only seats played by name
    # What its token was handed to (games.models.Seat.credential): a seat with one is never kept
    # in the cache of seats by token, since that credential may end and take the token with it.
    credential: str = ""


class SeatRow(NamedTuple):
    """A seat as a write plans with it: who sits where, their score, and a computer's clock."""

    pk: int
    number: int
    name: str
    score: int
    is_computer: bool
    protocol: bool
    computer: dict
    account: bool = False  # its player has an account (a guest's seat: False)


@dataclass(frozen=True)
class GameRow:
    """What a game's summary shows beyond its head."""

    options: dict
    is_default: bool
    created: datetime.datetime
    updated: datetime.datetime
    finished: datetime.datetime | None


# -- the operations a job yields ---------------------------------------------------------------


@dataclass(frozen=True)
class ReadHead:
    """The game's head as it is now (None: no such game); with `seats`, also its row and its
    seats: (head, GameRow, [SeatRow]), else (head, None, None). With `lock`, nobody else writes
    the game until the job ends (a write that lost a race asks for it: it cannot lose again)."""

    game_id: int
    seats: bool = False
    lock: bool = False


@dataclass(frozen=True)
class IsCurrent:
    """Whether the game is still at `head`'s version (a plan made on it still stands)."""

    head: TableHead


@dataclass(frozen=True)
class WriteChange:
    """Write a change if the game is still at its `from_version`: the time written, or None
    when the game had moved on (nothing written)."""

    change: Any  # planning.Change


@dataclass(frozen=True)
class InsertGame:
    """Insert a new game (and the moves of a game played as it is made): (id, created time)."""

    game: Any  # planning.NewGame


@dataclass(frozen=True)
class ReadRated:
    """Whether the game was created rated: (rated, options, seats as games.ratings.Seated);
    the seats only for a rated game (a game that does not exist is not rated)."""

    game_id: int


@dataclass(frozen=True)
class ReadSeating:
    """What a new seat needs known at a table created rated, which seats accounts only, each
    once (games.ratings.seat_refusal): (rated, the account of `player_id` or None, the accounts
    seated there). A game not created rated, or none of that id: (False, None, ())."""

    game_id: int
    player_id: int | None


@dataclass(frozen=True)
class ReadAccounts:
    """The accounts seated at the game (user ids): who hears that it started or finished."""

    game_id: int


@dataclass(frozen=True)
class ReadRatings:
    """The ratings of these accounts in a mode: {user id: (mu, sigma, games)}, held until the
    job ends. An account with no rating in the mode gets one first, `start` (mu, sigma) with no
    game, so that there is a row to hold: two games ending at once for a new account then rate
    one after the other, and neither overwrites the other's rating."""

    mode: str
    user_ids: tuple[int, ...]  # sorted: jobs take the rows in one order, so never deadlock
    start: tuple[float, float]


@dataclass(frozen=True)
class WriteRatings:
    """Write a rated game's changes (ratings.Rated) and the accounts' new ratings; False (and
    nothing written) when the game has rated already."""

    game_id: int
    mode: str
    changes: tuple


@dataclass(frozen=True)
class ReadArena:
    """Whether the game was played in a tournament and not scored yet (games.arena): None, or
    (tournament id, options, seats as (name, user id), {user id: streak of wins}); the players'
    rows held until the job ends, so two of their games ending at once score one after the
    other."""

    game_id: int


@dataclass(frozen=True)
class WriteArena:
    """Give a tournament game's points (arena_scoring.GameScore rows, `who` a user id): its
    score rows, and each player's points, games, wins and streak; False (nothing written)
    when the game was scored already."""

    game_id: int
    tournament_id: int
    scores: tuple


@dataclass(frozen=True)
class Announce:
    """Tell the game's listeners of a written change, once the transaction has committed."""

    message: dict


@dataclass
class Ran:
    value: Any
    announced: list[dict] = field(default_factory=list)


def _json(value):
    """A JSON column's value as read: text (SQLite, Django's PostgreSQL) or already decoded."""
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def _head(row, cached) -> TableHead:
    """A head from a `_HEAD` row: the state read, or the cached one when it was current."""
    *columns, state = row
    return head_from_row(columns, cached.state if state is None else _json(state))


def _seat_row(row) -> SeatRow:
    pk, number, name, score, is_computer, protocol, computer, account = row
    return SeatRow(
        pk, number, name, score, bool(is_computer), bool(protocol), _json(computer), bool(account)
    )


def _seat_ref(row) -> SeatRef:
    return SeatRef(*row[:6], bool(row[6]), bool(row[7]), row[8])


# Seat refs by token: a seat's game, player, number, name and token never change.
_seats: dict[str, SeatRef] = {}


def remember_seat(seat: SeatRef) -> None:
    if seat.credential:  # its token ends with its credential (services.credential_revoke)
        return
    if len(_seats) > 100_000:
        _seats.clear()
    _seats[seat.token] = seat


def forget_seats() -> None:
    _seats.clear()


def _dispatch(cls) -> dict:
    return {
        ReadHead: cls.read_head,
        IsCurrent: cls.is_current,
        WriteChange: cls.write_change,
        InsertGame: cls.insert_game,
        ReadRated: cls.read_rated,
        ReadSeating: cls.read_seating,
        ReadAccounts: cls.read_accounts,
        ReadRatings: cls.read_ratings,
        WriteRatings: cls.write_ratings,
        ReadArena: cls.read_arena,
        WriteArena: cls.write_arena,
    }


def _next(job, answer, announced: list):
    """Hand the job the answer to its last operation; its next operation to run (what it
    announces is kept for after the commit)."""
    op = job.send(answer)
    while type(op) is Announce:
        announced.append(op.message)
        op = job.send(None)
    return op


def _drive(job, ops, announced: list):
    """Run a job to its end with synchronous operations; its value."""
    answer = None
    try:
        while True:
            answer = ops.do(_next(job, answer, announced))
    except StopIteration as stop:
        return stop.value


async def _adrive(job, ops, announced: list):
    """Run a job to its end with asynchronous operations; its value."""
    answer = None
    try:
        while True:
            answer = await ops.do(_next(job, answer, announced))
    except StopIteration as stop:
        return stop.value
