"""Persistence: the one module that writes games, seats and moves, on SQLite and on PostgreSQL.

A write is a *job*: a generator (games.services) that yields the operations below and receives
their answers. This module runs jobs, on whichever connection the caller is on:

- `run(job)`: on Django's own connection, in one transaction (`runtime.write_transaction`), so a
  Django view, a command or a test's transaction sees its own writes;
- `await arun(job)`: on the event loop with no thread hop. SQLite: the loop's own connection,
  under the process's write lock, in one IMMEDIATE transaction (if another thread of this process
  or another process holds the database, the job runs on a game-database thread instead, waiting
  there, never on the loop). PostgreSQL: psycopg's async connections (a psycopg_pool pool), one
  statement per write, which writes only if the game is still at the version it was planned on.

Both backends' statements are written once, here, and both ways of running them go through the
same operations: `ReadHead`, `IsCurrent`, `WriteChange`, `InsertGame`, `Announce`. What a job
announces is handed back once its transaction has committed (`Ran.announced`).

Values are stored as Django stores them (JSON text on SQLite and jsonb on PostgreSQL, UTC
times), so the ORM reads them back unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import re
import sqlite3
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, connections

from games import runtime
from games.errors import Conflict
from games.models import Game

log = logging.getLogger(__name__)


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
)


def head_from_row(row, state: dict) -> TableHead:
    """A head from a row of HEAD_COLUMNS (SQLite gives its booleans as integers)."""
    pk, kind, is_open, status, version, deadline_ms, is_default, has_computers = row
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


class SeatRow(NamedTuple):
    """A seat as a write plans with it: who sits where, their score, and a computer's clock."""

    pk: int
    number: int
    name: str
    score: int
    is_computer: bool
    protocol: bool
    computer: dict


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
class Announce:
    """Tell the game's listeners of a written change, once the transaction has committed."""

    message: dict


@dataclass
class Ran:
    value: Any
    announced: list[dict] = field(default_factory=list)


# -- statements -------------------------------------------------------------------------------

_SEAT_REF = "id, game_id, player_id, number, name, token, is_computer, protocol"
_SEAT_BY_TOKEN = f"SELECT {_SEAT_REF} FROM games_seat WHERE token = %s"
_SEAT_BY_PLAYER = (
    f"SELECT {_SEAT_REF} FROM games_seat WHERE game_id = %s AND player_id = %s ORDER BY number"
)
# The head, and the state only when the cached one (of the version given) is not current.
_HEAD = (
    f"SELECT {', '.join(HEAD_COLUMNS)}, "
    "CASE WHEN version = %s THEN NULL ELSE state END FROM games_game WHERE id = %s"
)
_ROW = "SELECT options, is_default, created, updated, finished FROM games_game WHERE id = %s"
_SEATS = (
    "SELECT id, number, name, score, is_computer, protocol, computer FROM games_seat "
    "WHERE game_id = %s ORDER BY number"
)
_VERSION = "SELECT version FROM games_game WHERE id = %s"
_DEFAULT = "SELECT id FROM games_game WHERE is_default"
_INSERT_GAME = (
    "INSERT INTO games_game (kind, options, seed, status, version, state, is_open, is_default, "
    "deadline_ms, has_computers, created_ms, created, updated, finished) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_INSERT_PLAYER = (
    "INSERT INTO games_player (name, session_key, is_computer, created, user_id) "
    "VALUES (%s, '', %s, %s, NULL)"
)
_INSERT_SEAT = (
    "INSERT INTO games_seat (game_id, player_id, number, name, score, token, is_computer, "
    "protocol, computer, joined) VALUES (%s, %s, %s, %s, 0, %s, %s, %s, %s, %s)"
)
_INSERT_MOVE = (
    "INSERT INTO games_move (game_id, seq, seat_id, actor, action, outcome, at_ms, created) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
_UPDATE_SCORE = "UPDATE games_seat SET score = %s WHERE game_id = %s AND name = %s"
_UPDATE_COMPUTER = "UPDATE games_seat SET computer = %s WHERE game_id = %s AND name = %s"


def _update_game(change) -> str:
    extra = ""
    if change.ended:
        extra += ", finished = %s"
    if change.has_computers is not None:
        extra += ", has_computers = %s"
    if change.is_default is not None:
        extra += ", is_default = %s"
    return (
        "UPDATE games_game SET state = %s, version = %s, status = %s, deadline_ms = %s, "
        f"updated = %s{extra} WHERE id = %s AND version = %s"
    )


def _update_params(change, now, adapt) -> list:
    params = [adapt(change.state), change.version, change.status, change.deadline_ms, now]
    if change.ended:
        params.append(now)
    if change.has_computers is not None:
        params.append(change.has_computers)
    if change.is_default is not None:
        params.append(change.is_default)
    return [*params, change.game_id, change.from_version]


def _insert_params(game, now, adapt) -> tuple:
    return (
        game.kind,
        adapt(game.options),
        game.seed,
        game.status,
        len(game.steps),
        adapt(game.state),
        game.is_open,
        game.is_default,
        game.deadline_ms,
        False,
        game.created_ms,
        now,
        now,
        now if game.status == "over" else None,
    )


def _move_rows(game_id, change_or_game, first_seq, created, adapt, seat_of=lambda step: None):
    return [
        (
            game_id,
            first_seq + n,
            seat_of(step),
            step.actor,
            adapt(step.action),
            adapt(step.result.outcome),
            step.at,
            created,
        )
        for n, step in enumerate(change_or_game.steps, 1)
    ]


def _json(value):
    """A JSON column's value as read: text (SQLite, Django's PostgreSQL) or already decoded."""
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def _head(row, cached) -> TableHead:
    """A head from a `_HEAD` row: the state read, or the cached one when it was current; kept."""
    *columns, state = row
    head = head_from_row(columns, cached.state if state is None else _json(state))
    return head


def _seat_row(row) -> SeatRow:
    pk, number, name, score, is_computer, protocol, computer = row
    return SeatRow(pk, number, name, score, bool(is_computer), bool(protocol), _json(computer))


def _seat_ref(row) -> SeatRef:
    return SeatRef(*row[:6], bool(row[6]), bool(row[7]))


# Seat refs by token: a seat's game, player, number, name and token never change.
_seats: dict[str, SeatRef] = {}


def remember_seat(seat: SeatRef) -> None:
    if len(_seats) > 100_000:
        _seats.clear()
    _seats[seat.token] = seat


def forget_seats() -> None:
    _seats.clear()


# == SQLite: one set of statements, on the loop's connection or on Django's ======================


def _q(sql: str) -> str:
    return sql.replace("%s", "?")


def _sqlite_time(moment: datetime.datetime) -> str:
    """A UTC time as Django stores it on SQLite (adapt_datetimefield_value)."""
    return str(moment.astimezone(datetime.UTC).replace(tzinfo=None))


def _sqlite_read_time(value) -> datetime.datetime | None:
    """A time column as read: text (the loop's connection) or a naive datetime (Django's)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    return value.replace(tzinfo=datetime.UTC)


class SqliteOps:
    """The operations on one SQLite connection, inside a transaction the caller holds (the
    process's write lock is held: nobody else writes meanwhile, so a read is current)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def do(self, op):
        return _SQLITE[type(op)](self, op)

    def read_head(self, op: ReadHead):
        cached = runtime.cached_head(op.game_id)
        row = self.conn.execute(
            _q(_HEAD), (cached.version if cached else -1, op.game_id)
        ).fetchone()
        if row is None:
            return None, None, None
        head = _head(row, cached)
        if not op.seats:
            return head, None, None
        options, is_default, created, updated, finished = self.conn.execute(
            _q(_ROW), (op.game_id,)
        ).fetchone()
        game_row = GameRow(
            _json(options),
            bool(is_default),
            _sqlite_read_time(created),
            _sqlite_read_time(updated),
            _sqlite_read_time(finished),
        )
        seats = [_seat_row(r) for r in self.conn.execute(_q(_SEATS), (op.game_id,))]
        return head, game_row, seats

    def is_current(self, op: IsCurrent) -> bool:
        return True  # read in this transaction, under the write lock

    def write_change(self, op: WriteChange):
        change, conn = op.change, self.conn
        now = utc_now()
        at = _sqlite_time(now)
        new = change.new_seat
        if new is not None:
            if new.player_id is None:
                new.player_id = conn.execute(
                    _q(_INSERT_PLAYER), (new.name, new.is_computer, at)
                ).lastrowid
            params = (change.game_id, new.player_id, new.number, new.name, new.token)
            params += (new.is_computer, new.protocol, dumps(new.computer), at)
            try:
                new.pk = conn.execute(_q(_INSERT_SEAT), params).lastrowid
            except sqlite3.IntegrityError:
                raise Conflict(f"The name {new.name!r} is taken at this game.") from None
        cursor = conn.execute(_q(_update_game(change)), _update_params(change, at, dumps))
        if cursor.rowcount != 1:  # cannot happen under the lock; a guard all the same
            return None
        conn.executemany(
            _q(_INSERT_MOVE),
            _move_rows(change.game_id, change, change.from_version, at, dumps, lambda s: s.seat_id),
        )
        if change.scores:
            conn.executemany(
                _q(_UPDATE_SCORE),
                [(score, change.game_id, name) for name, score in change.scores.items()],
            )
        if change.computers:
            conn.executemany(
                _q(_UPDATE_COMPUTER),
                [(dumps(clock), change.game_id, name) for name, clock in change.computers.items()],
            )
        return now

    def insert_game(self, op: InsertGame):
        game = op.game
        now = utc_now()
        at = _sqlite_time(now)
        try:
            game_id = self.conn.execute(_q(_INSERT_GAME), _insert_params(game, at, dumps)).lastrowid
        except sqlite3.IntegrityError:
            raise Conflict("There is a default table already.") from None
        if game.steps:
            self.conn.executemany(_q(_INSERT_MOVE), _move_rows(game_id, game, 0, at, dumps))
        return game_id, now

    def seat_by_token(self, token: str) -> SeatRef | None:
        row = self.conn.execute(_q(_SEAT_BY_TOKEN), (token,)).fetchone()
        return None if row is None else _seat_ref(row)

    def seat_of_player(self, game_id: int, player_id: int) -> SeatRef | None:
        row = self.conn.execute(_q(_SEAT_BY_PLAYER), (game_id, player_id)).fetchone()
        return None if row is None else _seat_ref(row)

    def default_id(self) -> int | None:
        row = self.conn.execute(_DEFAULT).fetchone()
        return None if row is None else row[0]


# == PostgreSQL: one statement a write, from a thread or from the loop ============================


def _change_statement(change, now, jsonb) -> tuple[str, list]:
    """One statement: the game's row, if its version is still the planned one, and with it a
    join's player and seat, the moves, the scores and the computers' clocks (data-modifying
    CTEs run once, whether read or not; none writes if the row was not updated)."""
    sql = [f"WITH g AS ({_update_game(change)} RETURNING id)"]
    params = _update_params(change, now, jsonb)
    new = change.new_seat
    seat_id = "v.seat_id"
    if new is not None:
        if new.player_id is None:
            sql.append(
                ", p AS (INSERT INTO games_player (name, session_key, is_computer, created, "
                "user_id) SELECT %s, '', %s, %s, NULL FROM g RETURNING id)"
            )
            params += [new.name, new.is_computer, now]
            player = "p.id"
            source = "g, p"
        else:
            player, source = "%s", "g"
            params_player = [new.player_id]
        sql.append(
            ", ns AS (INSERT INTO games_seat (game_id, player_id, number, name, score, token, "
            f"is_computer, protocol, computer, joined) SELECT g.id, {player}, %s, %s, 0, %s, %s, "
            f"%s, %s, %s FROM {source} RETURNING id, player_id)"
        )
        if new.player_id is not None:
            params += params_player
        params += [new.number, new.name, new.token, new.is_computer, new.protocol]
        params += [jsonb(new.computer), now]
        seat_id = "CASE WHEN v.new THEN (SELECT id FROM ns) ELSE v.seat_id END"
    rows = ", ".join(
        ["(%s::integer, %s::bigint, %s::boolean, %s::varchar, %s::jsonb, %s::jsonb, %s::bigint)"]
        * len(change.steps)
    )
    sql.append(
        ", m AS (INSERT INTO games_move (game_id, seq, seat_id, actor, action, outcome, at_ms, "
        f"created) SELECT g.id, v.seq, {seat_id}, v.actor, v.action, v.outcome, v.at_ms, %s "
        f"FROM g, (VALUES {rows}) AS v(seq, seat_id, new, actor, action, outcome, at_ms))"
    )
    params.append(now)
    for n, step in enumerate(change.steps, 1):
        params += [
            change.from_version + n,
            None if step.seat is new else step.seat_id,
            new is not None and step.seat is new,
            step.actor,
            jsonb(step.action),
            jsonb(step.result.outcome),
            step.at,
        ]
    seats = sorted(set(change.scores) | set(change.computers))
    if seats:
        # One update of the seats: PostgreSQL applies only one of two updates of a row made
        # by one statement.
        values = ", ".join(["(%s::varchar, %s::integer, %s::jsonb)"] * len(seats))
        sql.append(
            ", s AS (UPDATE games_seat SET score = coalesce(v.score, games_seat.score), "
            "computer = coalesce(v.computer, games_seat.computer) "
            f"FROM g, (VALUES {values}) AS v(name, score, computer) "
            "WHERE games_seat.game_id = g.id AND games_seat.name = v.name)"
        )
        for name in seats:
            clock = change.computers.get(name)
            params += [name, change.scores.get(name), None if clock is None else jsonb(clock)]
    made = "(SELECT id FROM ns), (SELECT player_id FROM ns)" if new is not None else "NULL, NULL"
    sql.append(f" SELECT count(*), {made} FROM g")
    return "".join(sql), params


_JOIN_READ = (
    f"SELECT {', '.join(HEAD_COLUMNS)}, "
    "CASE WHEN version = %s THEN NULL ELSE state END, "
    "options, is_default, created, updated, finished, "
    "(SELECT coalesce(json_agg(json_build_array(s.id, s.number, s.name, s.score, s.is_computer, "
    "s.protocol, s.computer) ORDER BY s.number), '[]') FROM games_seat s "
    "WHERE s.game_id = games_game.id) FROM games_game WHERE id = %s"
)


def _pg_head(op: ReadHead, row, cached):
    if row is None:
        return None, None, None
    if not op.seats:
        return _head(row, cached), None, None
    *head, options, is_default, created, updated, finished, seats = row
    return (
        _head(head, cached),
        _pg_row((options, is_default, created, updated, finished)),
        [_seat_row(seat) for seat in _json(seats)],
    )


def _pg_locked_head(one, all_rows, op: ReadHead):
    """The head read with its row locked, then (a statement of its own, so it sees every seat
    committed before the lock was had) the row and the seats."""
    cached = runtime.cached_head(op.game_id)
    row = one(_HEAD + " FOR UPDATE", (cached.version if cached else -1, op.game_id))
    if row is None or not op.seats:
        return _pg_head(ReadHead(op.game_id), row, cached)
    return (
        _head(row, cached),
        _pg_row(one(_ROW, (op.game_id,))),
        [_seat_row(seat) for seat in all_rows(_SEATS, (op.game_id,))],
    )


async def _apg_locked_head(one, all_rows, op: ReadHead):
    """`_pg_locked_head` on the loop."""
    cached = runtime.cached_head(op.game_id)
    row = await one(_HEAD + " FOR UPDATE", (cached.version if cached else -1, op.game_id))
    if row is None or not op.seats:
        return _pg_head(ReadHead(op.game_id), row, cached)
    return (
        _head(row, cached),
        _pg_row(await one(_ROW, (op.game_id,))),
        [_seat_row(seat) for seat in await all_rows(_SEATS, (op.game_id,))],
    )


def _pg_row(row) -> GameRow:
    options, is_default, created, updated, finished = row
    return GameRow(_json(options), is_default, created, updated, finished)


def _pg_written(change, row, now):
    written, seat, player = row
    if written != 1:
        return None
    if change.new_seat is not None:
        change.new_seat.pk, change.new_seat.player_id = seat, player
    return now


def _jsonb(value):
    from psycopg.types.json import Jsonb

    return Jsonb(value, dumps=runtime.json_bytes)


class PostgresOps:
    """The operations on a psycopg connection of Django's, inside its transaction."""

    def __init__(self, conn) -> None:
        self.conn = conn

    def do(self, op):
        return _POSTGRES[type(op)](self, op)

    def _one(self, sql, params):
        return self.conn.execute(sql, params).fetchone()

    def read_head(self, op: ReadHead):
        # In Django's transaction: the row is locked at once, as the ORM's select_for_update.
        return _pg_locked_head(self._one, self._all, op)

    def _all(self, sql, params):
        return self.conn.execute(sql, params).fetchall()

    def is_current(self, op: IsCurrent) -> bool:
        row = self._one(_VERSION, (op.head.pk,))
        return row is not None and row[0] == op.head.version

    def write_change(self, op: WriteChange):
        now = utc_now()
        sql, params = _change_statement(op.change, now, _jsonb)
        return _pg_written(op.change, self._one(sql, params), now)

    def insert_game(self, op: InsertGame):
        return tuple(self._one(*_pg_insert(op.game)))

    def seat_by_token(self, token: str) -> SeatRef | None:
        row = self._one(_SEAT_BY_TOKEN, (token,))
        return None if row is None else _seat_ref(row)

    def seat_of_player(self, game_id: int, player_id: int) -> SeatRef | None:
        row = self._one(_SEAT_BY_PLAYER, (game_id, player_id))
        return None if row is None else _seat_ref(row)

    def default_id(self) -> int | None:
        row = self._one(_DEFAULT, ())
        return None if row is None else row[0]


def _pg_insert(game) -> tuple[str, list]:
    """A new game and its moves, in one statement."""
    now = utc_now()
    sql = f"WITH g AS ({_INSERT_GAME} RETURNING id, created)"
    params = list(_insert_params(game, now, _jsonb))
    if game.steps:
        rows = ", ".join(
            ["(%s::bigint, %s::varchar, %s::jsonb, %s::jsonb, %s::bigint)"] * len(game.steps)
        )
        sql += (
            ", m AS (INSERT INTO games_move (game_id, seq, seat_id, actor, action, outcome, "
            "at_ms, created) SELECT g.id, v.seq, NULL, v.actor, v.action, v.outcome, v.at_ms, "
            f"g.created FROM g, (VALUES {rows}) AS v(seq, actor, action, outcome, at_ms))"
        )
        for n, step in enumerate(game.steps, 1):
            params += [n, step.actor, _jsonb(step.action), _jsonb(step.result.outcome), step.at]
    return sql + " SELECT id, created FROM g", params


class AsyncPostgresOps(PostgresOps):
    """The same operations on an async psycopg connection of the loop's pool (autocommit: each
    statement is its own transaction, and a write checks the version it was planned on; a job
    that asks for a lock runs from there in a transaction, which `LoopPostgres.run` ends)."""

    def __init__(self, conn, *, planning: bool = True) -> None:
        super().__init__(conn)
        self.planning = planning
        self.in_transaction = False

    async def do(self, op):
        return await _ASYNC_POSTGRES[type(op)](self, op)

    async def _one(self, sql, params):
        return await (await self.conn.execute(sql, params)).fetchone()

    async def read_head(self, op: ReadHead):
        cached = runtime.cached_head(op.game_id)
        if cached is not None and not op.seats and not op.lock and self.planning:
            # Planned on the newest head this process knows: the write checks the version, and
            # a stale plan is made again on the game read then.
            return cached, None, None
        if op.lock:
            if not self.in_transaction:
                await self.conn.execute("BEGIN")
                self.in_transaction = True
            return await _apg_locked_head(self._one, self._all, op)
        sql = _JOIN_READ if op.seats else _HEAD
        row = await self._one(sql, (cached.version if cached else -1, op.game_id))
        found = _pg_head(op, row, cached)
        if found[0] is not None:
            runtime.remember_head(found[0])
        return found

    async def _all(self, sql, params):
        return await (await self.conn.execute(sql, params)).fetchall()

    async def is_current(self, op: IsCurrent) -> bool:
        row = await self._one(_VERSION, (op.head.pk,))
        return row is not None and row[0] == op.head.version

    async def write_change(self, op: WriteChange):
        now = utc_now()
        sql, params = _change_statement(op.change, now, _jsonb)
        return _pg_written(op.change, await self._one(sql, params), now)

    async def insert_game(self, op: InsertGame):
        return tuple(await self._one(*_pg_insert(op.game)))

    async def seat_by_token(self, token: str) -> SeatRef | None:
        row = await self._one(_SEAT_BY_TOKEN, (token,))
        return None if row is None else _seat_ref(row)

    async def seat_of_player(self, game_id: int, player_id: int) -> SeatRef | None:
        row = await self._one(_SEAT_BY_PLAYER, (game_id, player_id))
        return None if row is None else _seat_ref(row)

    async def default_id(self) -> int | None:
        row = await self._one(_DEFAULT, ())
        return None if row is None else row[0]


def _dispatch(cls) -> dict:
    return {
        ReadHead: cls.read_head,
        IsCurrent: cls.is_current,
        WriteChange: cls.write_change,
        InsertGame: cls.insert_game,
    }


_SQLITE = _dispatch(SqliteOps)
_POSTGRES = _dispatch(PostgresOps)
_ASYNC_POSTGRES = _dispatch(AsyncPostgresOps)


# == running a job ===============================================================================


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


def _django_ops():
    connection.ensure_connection()
    raw = connection.connection
    if connection.vendor == "sqlite":
        return SqliteOps(raw)
    if connection.vendor == "postgresql":
        return PostgresOps(raw)
    raise ImproperlyConfigured(f"The games run on SQLite or PostgreSQL, not {connection.vendor}.")


def run(job) -> Ran:
    """Run a job on Django's connection, in one transaction; what it announced is handed back
    for after the commit (a transaction of the caller's may still roll back: then never)."""
    announced: list[dict] = []
    with runtime.write_transaction():
        value = _drive(job, _django_ops(), announced)
        ran = Ran(value, announced)
    return ran


def read(name: str, *args):
    """A read of this module's (`"seat_by_token"`, `"seat_of_player"`) on Django's connection."""
    return getattr(_django_ops(), name)(*args)


async def arun(job) -> Ran:
    """Run a job from the event loop (see the module's docstring)."""
    return await store().run(job)


async def aread(name: str, *args):
    """A read of this module's from the event loop (`"seat_by_token"`, ...)."""
    return await store().read(name, *args)


def seat_by_token(token) -> SeatRef | None:
    """The seat a token acts for, from Django's thread (cached; anything that is not a token is
    refused unasked)."""
    seat = _seats.get(token) if isinstance(token, str) else None
    if seat is None and is_token(token):
        seat = read("seat_by_token", token)
        if seat is not None and not connection.in_atomic_block:
            remember_seat(seat)
    return seat


async def aseat_by_token(token) -> SeatRef | None:
    """`seat_by_token` on the event loop."""
    seat = _seats.get(token) if isinstance(token, str) else None
    if seat is None and is_token(token):
        seat = await aread("seat_by_token", token)
        if seat is not None:
            remember_seat(seat)
    return seat


# -- the loop's side -------------------------------------------------------------------------------

LOOP_BUSY_MS = 50
CHECKPOINT_EVERY_S = 1.0
_checkpointers: dict[str, threading.Event] = {}
_checkpointers_guard = threading.Lock()


def _busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _checkpoints(name: str) -> None:
    """Checkpoint the database's WAL once a second on a thread (started once per database):
    the loop's connection never checkpoints, and without this the WAL would grow for ever."""
    with _checkpointers_guard:
        if name in _checkpointers:
            return
        stop = _checkpointers[name] = threading.Event()
    threading.Thread(
        target=_checkpoint_until, args=(name, stop), name="games-checkpoints", daemon=True
    ).start()


def _checkpoint_until(name: str, stop: threading.Event) -> None:
    conn = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA busy_timeout=20000")
        while not stop.wait(CHECKPOINT_EVERY_S):
            # PASSIVE: copy what no reader still needs, waiting for no reader and no writer.
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    except sqlite3.Error:
        log.exception("Checkpoints of %s stopped", name)
    finally:
        conn.close()


class LoopSqlite:
    """The loop's SQLite: its own connection, and a game-database thread's when it must wait."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._local = threading.local()

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection. The loop's waits at most LOOP_BUSY_MS for another
        process's write (a command's, say): the loop must not sleep; a thread waits."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                asyncio.get_running_loop()
                busy_ms = LOOP_BUSY_MS
            except RuntimeError:
                busy_ms = 20_000
            conn = sqlite3.connect(self.name, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(f"PRAGMA busy_timeout={busy_ms}")
            # A commit that fills the WAL would copy it back to the database file and wait for
            # the disk, here on the event loop: the checkpoints run on a thread of their own.
            conn.execute("PRAGMA wal_autocheckpoint=0")
            _checkpoints(self.name)
            self._local.conn = conn
            _opened.append(conn)
        return conn

    async def run(self, job) -> Ran:
        lock = runtime.write_lock()
        if lock.acquire(blocking=False):
            try:
                return self._transaction(self._connection(), job)
            except _Busy:
                pass  # another process writes (it holds SQLite's own lock): wait on a thread
            finally:
                lock.release()

        def waiting():
            with lock:
                return self._transaction(self._connection(), job)

        return await asyncio.get_running_loop().run_in_executor(runtime.executor(), waiting)

    @staticmethod
    def _transaction(conn, job) -> Ran:
        """The job between BEGIN IMMEDIATE and COMMIT. Only BEGIN waits for SQLite's lock (in
        WAL mode a commit never does), so a busy database is found before the job starts."""
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if _busy(exc):
                raise _Busy from exc
            raise
        announced: list[dict] = []
        try:
            value = _drive(job, SqliteOps(conn), announced)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return Ran(value, announced)

    async def read(self, name: str, *args):
        return getattr(SqliteOps(self._connection()), name)(*args)

    def close_now(self) -> None:
        pass  # connections are per thread (close_all closes them)


class _Busy(Exception):
    pass


class LoopPostgres:
    """The loop's PostgreSQL: a pool of psycopg async connections."""

    def __init__(self, params: dict, size: int) -> None:
        self.params = params
        self.size = size
        self._pool = None
        self._opening: asyncio.Task | None = None
        self._connections: weakref.WeakSet = weakref.WeakSet()

    async def pool(self):
        if self._pool is None:
            if self._opening is None:
                self._opening = asyncio.get_running_loop().create_task(self._open())
            await asyncio.shield(self._opening)
        return self._pool

    async def _open(self) -> None:
        from psycopg_pool import AsyncConnectionPool

        pool = AsyncConnectionPool(
            kwargs=self.params,
            min_size=min(2, self.size),
            max_size=self.size,
            configure=self._configure,
            open=False,
            name="games-live",
        )
        try:
            await pool.open(wait=True, timeout=30)
        except BaseException:
            self._opening = None
            raise
        self._pool = pool

    async def run(self, job) -> Ran:
        pool = await self.pool()
        announced: list[dict] = []
        async with pool.connection() as conn:
            ops = AsyncPostgresOps(conn)
            try:
                value = await _adrive(job, ops, announced)
            except BaseException:
                if ops.in_transaction:
                    await conn.execute("ROLLBACK")
                raise
            if ops.in_transaction:
                await conn.execute("COMMIT")
        return Ran(value, announced)

    async def read(self, name: str, *args):
        pool = await self.pool()
        async with pool.connection() as conn:
            return await getattr(AsyncPostgresOps(conn, planning=False), name)(*args)

    async def _configure(self, conn) -> None:
        """Every pooled connection: JSON read by orjson, autocommit (one statement, one
        transaction), times in UTC."""
        from psycopg.types.json import set_json_loads

        set_json_loads(orjson.loads, context=conn)
        await conn.set_autocommit(True)
        # Times are read as UTC: the session must be in UTC whatever the server's time zone or
        # PGTZ, as Django sets its own connections.
        if conn.info.parameter_status("TimeZone") not in ("UTC", "Etc/UTC"):
            await conn.execute("SET TIME ZONE 'UTC'")
        self._connections.add(conn)

    def close_now(self) -> None:
        """Close the connections at once, from any thread: their event loop has ended (a
        server's never does; tests run many)."""
        for conn in list(self._connections):
            conn.pgconn.finish()


# One per event loop.
_stores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
_opened: list[sqlite3.Connection] = []


def store():
    """The running loop's side of the database Django is set up with."""
    loop = asyncio.get_running_loop()
    found = _stores.get(loop)
    if found is None:
        _close_ended()
        found = _stores[loop] = _make()
    return found


def _close_ended() -> None:
    for loop, ended in list(_stores.items()):
        if loop.is_closed():
            ended.close_now()
            _stores.pop(loop, None)


def _make():
    wrapper = connections["default"]
    if wrapper.vendor == "sqlite":
        return LoopSqlite(str(settings.DATABASES["default"]["NAME"]))
    if wrapper.vendor == "postgresql":
        params = wrapper.get_connection_params()
        params.pop("cursor_factory", None)  # Django's cursors are synchronous
        params["prepare_threshold"] = 5  # prepare what a connection runs again and again
        return LoopPostgres(params, runtime.db_threads())
    raise ImproperlyConfigured(f"The games run on SQLite or PostgreSQL, not {wrapper.vendor}.")


def close_all() -> None:
    """Close every loop's connections, stop the checkpoints, forget the seats (tests, between
    databases)."""
    for ended in list(_stores.values()):
        ended.close_now()
    _stores.clear()
    forget_seats()
    with _checkpointers_guard:
        for stop in _checkpointers.values():
            stop.set()
        _checkpointers.clear()
    while _opened:
        with contextlib.suppress(sqlite3.Error):
            _opened.pop().close()
