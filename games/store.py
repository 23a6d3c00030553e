"""The event loop's own database access: what the hot paths (games.live) read and write, with
no hop to a thread.

A move, a join or a create over the API or a WebSocket used to cross to a game-database thread
and through Django's cursor wrappers: under load, the hops and the wrappers took more of the
server than the writes (bench/bench_load.py), and every statement on a thread waited for the
GIL behind the event loop. Here they run where the request is:

- **SQLite** (`SqliteStore`): on its own connection, synchronously on the loop, under the
  process's write lock (runtime.write_transaction's). A write is a few statements of tens of
  microseconds; it reads the game inside its transaction, so what it plans cannot be stale. If
  another thread of this process holds the lock, the same write runs on a game-database thread
  instead, waiting there, never on the loop.
- **PostgreSQL** (`PostgresStore`): psycopg's async connections (a psycopg_pool pool) on the
  loop. A change is one statement: the game's row is updated only if its version is still the
  one the change was planned on, and the moves and scores are written only with it; a game
  found stale is read again and the change planned again.

Both plan with the same functions as the services (services.plan_move, services.plan_join),
and a cached head (runtime.cached_head) spares the read of a game's state: a read sends the
state only when the cached one is not current.

Values are stored as Django stores them (JSON text on SQLite and jsonb on PostgreSQL, UTC
times), so the ORM reads them back unchanged (tests/games/test_live.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import sqlite3
import threading
import weakref
from dataclasses import dataclass
from typing import NamedTuple

import orjson
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections

from games import runtime, selectors
from games.errors import Conflict, GameError, NotFound
from games.services import Change, after

log = logging.getLogger(__name__)

MAX_TRIES = 8  # plans of one write on PostgreSQL, each on a newer game than the last

dumps = runtime.json_text  # as Django's JSONField stores it on SQLite, compact


def utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class SeatRef(NamedTuple):
    """A seat as the hot paths know it: what never changes about it. A tuple of plain values,
    which Python's collector stops tracking: the cache holds thousands."""

    pk: int
    game_id: int
    player_id: int
    number: int
    name: str
    token: str
    is_computer: bool


@dataclass(frozen=True)
class GameRow:
    """What a summary of the game shows beyond its head (services.game_summary's fields)."""

    options: dict
    is_default: bool
    created: datetime.datetime
    updated: datetime.datetime
    finished: datetime.datetime | None


@dataclass
class Written:
    """What a write found and did: the game's head before (`head`) and after (`after`) it,
    the change (None: nothing to write) and the plan's own answer (`value`)."""

    head: selectors.TableHead
    after: selectors.TableHead
    change: Change | None
    value: object
    row: GameRow | None = None
    seats: list[tuple] | None = None
    updated: datetime.datetime | None = None


_SEAT_COLUMNS = "id, game_id, player_id, number, name, token, is_computer"
_SEAT_BY_TOKEN = f"SELECT {_SEAT_COLUMNS} FROM games_seat WHERE token = %s"
# The head, and the state only when the cached one (of the version given) is not current.
_HEAD = (
    f"SELECT {', '.join(selectors.HEAD_COLUMNS)}, "
    "CASE WHEN version = %s THEN NULL ELSE state END FROM games_game WHERE id = %s"
)
_ROW = "SELECT options, is_default, created, updated, finished FROM games_game WHERE id = %s"
_SEATS = (
    "SELECT id, number, name, score, is_computer FROM games_seat WHERE game_id = %s ORDER BY number"
)
_INSERT_GAME = (
    "INSERT INTO games_game (kind, options, seed, status, version, state, is_open, is_default, "
    "deadline_ms, has_computers, created_ms, created, updated, finished) "
    "VALUES (%s, %s, %s, %s, 0, %s, %s, %s, %s, %s, %s, %s, %s, NULL)"
)
_INSERT_PLAYER = (
    "INSERT INTO games_player (name, session_key, is_computer, created, user_id) "
    "VALUES (%s, '', %s, %s, NULL)"
)
_INSERT_SEAT = (
    "INSERT INTO games_seat (game_id, player_id, number, name, score, token, is_computer, "
    "computer, joined) VALUES (%s, %s, %s, %s, 0, %s, %s, %s, %s)"
)
_INSERT_MOVE = (
    "INSERT INTO games_move (game_id, seq, seat_id, actor, action, outcome, at_ms, created) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
_UPDATE_SCORE = "UPDATE games_seat SET score = %s WHERE game_id = %s AND name = %s"


def _update_game(change) -> str:
    finished = ", finished = %s" if change.ended else ""
    return (
        "UPDATE games_game SET state = %s, version = %s, status = %s, deadline_ms = %s, "
        f"updated = %s{finished} WHERE id = %s AND version = %s"
    )


def _update_params(change, now, adapt) -> list:
    params = [adapt(change.state), change.version, change.status, change.deadline_ms, now]
    if change.ended:
        params.append(now)
    return [*params, change.game_id, change.from_version]


def _head_from(row, cached, load) -> selectors.TableHead:
    """A head from a `_HEAD` row: the state read, or the cached one when it was current."""
    *columns, state = row
    if state is None:
        state = cached.state
    else:
        state = load(state)
    head = selectors.head_from_row(columns, state)
    runtime.remember_head(head)
    return head


def _row_id(game_id) -> bool:
    """Whether a number can be a row's id (a 64-bit integer, as both databases keep them)."""
    return isinstance(game_id, int) and 0 < game_id < 2**63


class Store:
    """The loop's database, as the hot paths need it (one per event loop: `store()`)."""

    _seats: dict[str, SeatRef]

    def remember_seat(self, seat: SeatRef) -> None:
        if len(self._seats) > 100_000:
            self._seats.clear()
        self._seats[seat.token] = seat

    async def seat_by_token(self, token: str) -> SeatRef | None:
        """The seat a token acts for (seats never change what is cached here)."""
        seat = self._seats.get(token)
        if seat is None:
            if not isinstance(token, str) or not selectors.is_token(token):
                return None
            seat = await self._seat(token)
            if seat is not None:
                self.remember_seat(seat)
        return seat

    async def head(self, game_id: int) -> selectors.TableHead | None:
        """The game's head as it is now (its state from the cache when current); None for no
        such game (an id past a row id's 64 bits included: SQLite cannot even bind one)."""
        return await self._head_now(game_id) if _row_id(game_id) else None

    async def _head_now(self, game_id: int) -> selectors.TableHead | None:
        raise NotImplementedError

    async def create(self, *, kind, options, seed, state, status, deadline_ms, is_open, now_ms):
        """Insert a new game; return (its id, its creation time)."""
        raise NotImplementedError

    async def write(self, game_id: int, plan, *, join: bool = False) -> Written:
        """Plan a change on the game's newest head with `plan(head, seats)` (seats are read for
        a join: (id, number, name, score, is_computer) rows, else None) and store it.

        `plan` returns (change or None, value) or raises a GameError, which is passed on
        (nothing written). A join's new seat (change.new_seat) is inserted with a new player
        named as the seat, and its id set.
        """
        if not _row_id(game_id):
            raise NotFound(f"There is no game with id {game_id}.")
        return await self._write_now(game_id, plan, join)

    async def _write_now(self, game_id: int, plan, join: bool) -> Written:
        raise NotImplementedError

    def close_now(self) -> None:
        raise NotImplementedError


# == SQLite ========================================================================================


def _sqlite_time(moment: datetime.datetime) -> str:
    """A UTC time as Django stores it on SQLite (adapt_datetimefield_value)."""
    return str(moment.astimezone(datetime.UTC).replace(tzinfo=None))


def _sqlite_read_time(text: str | None) -> datetime.datetime | None:
    if text is None:
        return None
    return datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.UTC)


def _q(sql: str) -> str:
    return sql.replace("%s", "?")


LOOP_BUSY_MS = 50


def _busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


CHECKPOINT_EVERY_S = 1.0
_checkpointers: dict[str, threading.Event] = {}
_checkpointers_guard = threading.Lock()


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


class SqliteStore(Store):
    def __init__(self, name: str) -> None:
        self.name = name
        self._seats = {}
        self._local = threading.local()

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (the loop's, or a game-database thread's when the write
        lock was busy). The loop's waits at most LOOP_BUSY_MS for another process's write
        (a command's, say): the loop must not sleep; a thread waits as Django's do."""
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

    async def _seat(self, token: str) -> SeatRef | None:
        row = self._connection().execute(_q(_SEAT_BY_TOKEN), (token,)).fetchone()
        return None if row is None else SeatRef(*row[:-1], bool(row[-1]))

    def _head(self, conn, game_id: int) -> selectors.TableHead | None:
        cached = runtime.cached_head(game_id)
        row = conn.execute(_q(_HEAD), (cached.version if cached else -1, game_id)).fetchone()
        return None if row is None else _head_from(row, cached, orjson.loads)

    async def _head_now(self, game_id: int) -> selectors.TableHead | None:
        return self._head(self._connection(), game_id)

    async def create(self, *, kind, options, seed, state, status, deadline_ms, is_open, now_ms):
        now = utc_now()
        at = _sqlite_time(now)
        params = (
            kind,
            dumps(options),
            seed,
            status,
            dumps(state),
            is_open,
            False,
            deadline_ms,
            False,
            now_ms,
            at,
            at,
        )

        def insert(conn):
            return conn.execute(_q(_INSERT_GAME), params).lastrowid

        return await self._locked(insert), now

    async def _write_now(self, game_id: int, plan, join: bool) -> Written:
        return await self._locked(lambda conn: self._write(conn, game_id, plan, join))

    async def _locked(self, work):
        """Run `work(conn)` in one IMMEDIATE transaction under the process's write lock: here,
        if the lock is free, else on a game-database thread, which waits for it."""
        lock = runtime.write_lock()
        if lock.acquire(blocking=False):
            try:
                return self._transaction(self._connection(), work)
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
                # Another process writes (it holds SQLite's own lock): wait on a thread.
            finally:
                lock.release()

        def waiting():
            with lock:
                return self._transaction(self._connection(), work)

        return await asyncio.get_running_loop().run_in_executor(runtime.executor(), waiting)

    @staticmethod
    def _transaction(conn, work):
        """`work(conn)` between BEGIN IMMEDIATE and COMMIT. Only BEGIN waits for SQLite's
        lock (in WAL mode a commit never does), so a busy database raises before any work."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            value = work(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return value

    def _write(self, conn, game_id: int, plan, join: bool) -> Written:
        head = self._head(conn, game_id)
        if head is None:
            raise NotFound(f"There is no game with id {game_id}.")
        seats = conn.execute(_q(_SEATS), (game_id,)).fetchall() if join else None
        change, value = plan(head, seats)
        written = Written(head, head, change, value, seats=seats)
        if change is None:
            return written
        now = utc_now()
        at = _sqlite_time(now)
        new = change.new_seat
        if new is not None:
            new.player_id = conn.execute(
                _q(_INSERT_PLAYER), (new.name, new.is_computer, at)
            ).lastrowid
            new.pk = conn.execute(
                _q(_INSERT_SEAT),
                (
                    game_id,
                    new.player_id,
                    new.number,
                    new.name,
                    new.token,
                    new.is_computer,
                    "{}",
                    at,
                ),
            ).lastrowid
        cursor = conn.execute(_q(_update_game(change)), _update_params(change, at, dumps))
        if cursor.rowcount != 1:  # cannot happen under the lock; a guard all the same
            raise Conflict("The game changed while this move was being applied; try again.")
        conn.executemany(
            _q(_INSERT_MOVE),
            [
                (
                    game_id,
                    change.from_version + n,
                    step.seat_id,
                    step.actor,
                    dumps(step.action),
                    dumps(step.result.outcome),
                    step.at,
                    at,
                )
                for n, step in enumerate(change.steps, 1)
            ],
        )
        if change.scores:
            conn.executemany(
                _q(_UPDATE_SCORE),
                [(score, game_id, name) for name, score in change.scores.items()],
            )
        if join:
            options, is_default, created, updated, finished = conn.execute(
                _q(_ROW), (game_id,)
            ).fetchone()
            written.row = GameRow(
                orjson.loads(options),
                bool(is_default),
                _sqlite_read_time(created),
                _sqlite_read_time(updated),
                _sqlite_read_time(finished),
            )
        written.after = after(head, change)
        written.updated = now
        return written

    def close_now(self) -> None:
        pass  # connections are per thread (close_all closes them)


# == PostgreSQL ====================================================================================


class PostgresStore(Store):
    def __init__(self, params: dict, size: int) -> None:
        self.params = params
        self.size = size
        self._seats = {}
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

    async def _fetchone(self, sql: str, params):
        pool = await self.pool()
        async with pool.connection() as conn:
            cursor = await conn.execute(sql, params)
            return await cursor.fetchone()

    async def _seat(self, token: str) -> SeatRef | None:
        row = await self._fetchone(_SEAT_BY_TOKEN, (token,))
        return None if row is None else SeatRef(*row)

    async def _head_now(self, game_id: int) -> selectors.TableHead | None:
        cached = runtime.cached_head(game_id)
        row = await self._fetchone(_HEAD, (cached.version if cached else -1, game_id))
        return None if row is None else _head_from(row, cached, _no_load)

    async def create(self, *, kind, options, seed, state, status, deadline_ms, is_open, now_ms):
        from psycopg.types.json import Jsonb

        now = utc_now()
        params = (
            kind,
            Jsonb(options),
            seed,
            status,
            Jsonb(state),
            is_open,
            False,
            deadline_ms,
            False,
            now_ms,
            now,
            now,
        )
        row = await self._fetchone(_INSERT_GAME + " RETURNING id", params)
        return row[0], now

    async def _write_now(self, game_id: int, plan, join: bool) -> Written:
        pool = await self.pool()
        head = runtime.cached_head(game_id)
        for _ in range(MAX_TRIES):
            async with pool.connection() as conn:
                seats = row = None
                if join:
                    found = await _read_for_join(conn, game_id)
                    if found is None:
                        raise NotFound(f"There is no game with id {game_id}.")
                    head, row, seats = found
                elif head is None:
                    head = await _read_head(conn, game_id)
                    if head is None:
                        raise NotFound(f"There is no game with id {game_id}.")
                try:
                    change, value = plan(head, seats)
                except GameError:
                    if await _current(conn, head):
                        raise
                    head = None  # planned on a stale game: read it and plan again
                    continue
                if change is None:
                    if await _current(conn, head):
                        return Written(head, head, None, value, row, seats)
                    head = None
                    continue
                now = utc_now()
                if await _store(conn, change, now):
                    return Written(head, after(head, change), change, value, row, seats, now)
                runtime.forget_head(game_id, head.version)
                head = None
        raise Conflict("The game is changing too fast to play on; try again.")

    async def _configure(self, conn) -> None:
        """Every pooled connection: JSON through orjson, autocommit (one statement, one
        transaction), times in UTC."""
        from psycopg.types.json import set_json_dumps, set_json_loads

        set_json_dumps(runtime.json_bytes, context=conn)
        set_json_loads(orjson.loads, context=conn)
        await conn.set_autocommit(True)
        # Times are read as UTC (by the loader of Django's adapters): the session must be in UTC
        # whatever the server's time zone or PGTZ, as Django sets its own connections.
        if conn.info.parameter_status("TimeZone") not in ("UTC", "Etc/UTC"):
            await conn.execute("SET TIME ZONE 'UTC'")
        self._connections.add(conn)

    def close_now(self) -> None:
        """Close the connections at once, from any thread: their event loop has ended (a
        server's never does; tests run many)."""
        for conn in list(self._connections):
            conn.pgconn.finish()


def _no_load(value):
    return value  # psycopg has read the jsonb already


async def _read_head(conn, game_id: int) -> selectors.TableHead | None:
    cached = runtime.cached_head(game_id)
    row = await (await conn.execute(_HEAD, (cached.version if cached else -1, game_id))).fetchone()
    return None if row is None else _head_from(row, cached, _no_load)


async def _current(conn, head) -> bool:
    """Whether the game is still at the head's version (a refusal planned on it stands)."""
    row = await (
        await conn.execute("SELECT version FROM games_game WHERE id = %s", (head.pk,))
    ).fetchone()
    if row is not None and row[0] == head.version:
        return True
    runtime.forget_head(head.pk, head.version)
    return False


async def _read_for_join(conn, game_id: int):
    """The head, the summary's columns and the seats, in one query."""
    cached = runtime.cached_head(game_id)
    row = await (
        await conn.execute(_JOIN_READ, (cached.version if cached else -1, game_id))
    ).fetchone()
    if row is None:
        return None
    *head, options, is_default, created, updated, finished, seats = row
    return (
        _head_from(head, cached, _no_load),
        GameRow(options, is_default, created, updated, finished),
        [tuple(seat) for seat in seats],
    )


_JOIN_READ = (
    f"SELECT {', '.join(selectors.HEAD_COLUMNS)}, "
    "CASE WHEN version = %s THEN NULL ELSE state END, "
    "options, is_default, created, updated, finished, "
    "(SELECT coalesce(json_agg(json_build_array(s.id, s.number, s.name, s.score, s.is_computer) "
    "ORDER BY s.number), '[]') FROM games_seat s WHERE s.game_id = games_game.id) "
    "FROM games_game WHERE id = %s"
)


async def _store(conn, change, now) -> bool:
    """Write a change in one statement if the game is still at its planned version."""
    from psycopg.types.json import Jsonb

    sql, params = _change_statement(change, now, Jsonb)
    written, seat, player = await (await conn.execute(sql, params)).fetchone()
    if written and change.new_seat is not None:
        change.new_seat.pk, change.new_seat.player_id = seat, player
    return written == 1


def _change_statement(change, now, jsonb) -> tuple[str, list]:
    """One statement: the game's row, if its version is still the planned one, and with it a
    join's player and seat, the moves and the scores (data-modifying CTEs run once, whether
    read or not; each waits for the row: none writes if it was not updated)."""
    sql = [f"WITH g AS ({_update_game(change)} RETURNING id)"]
    params = _update_params(change, now, jsonb)
    new = change.new_seat
    seat_id = "v.seat_id"
    if new is not None:
        sql.append(
            ", p AS (INSERT INTO games_player (name, session_key, is_computer, created, user_id) "
            "SELECT %s, '', %s, %s, NULL FROM g RETURNING id)"
            ", ns AS (INSERT INTO games_seat (game_id, player_id, number, name, score, token, "
            "is_computer, computer, joined) SELECT g.id, p.id, %s, %s, 0, %s, %s, '{}', %s "
            "FROM g, p RETURNING id)"
        )
        params += [new.name, new.is_computer, now, new.number, new.name, new.token]
        params += [new.is_computer, now]
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
    if change.scores:
        scores = ", ".join(["(%s::varchar, %s::integer)"] * len(change.scores))
        sql.append(
            ", s AS (UPDATE games_seat SET score = v.score "
            f"FROM g, (VALUES {scores}) AS v(name, score) "
            "WHERE games_seat.game_id = g.id AND games_seat.name = v.name)"
        )
        for name, score in change.scores.items():
            params += [name, score]
    made = "(SELECT id FROM ns), (SELECT id FROM p)" if new is not None else "NULL, NULL"
    sql.append(f" SELECT count(*), {made}")
    sql.append(" FROM g")
    return "".join(sql), params


# == one store per event loop ======================================================================

_stores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Store] = weakref.WeakKeyDictionary()
_opened: list[sqlite3.Connection] = []


def store() -> Store:
    """The running loop's store, for the database Django is set up with."""
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


def _make() -> Store:
    wrapper = connections["default"]
    if wrapper.vendor == "sqlite":
        return SqliteStore(str(settings.DATABASES["default"]["NAME"]))
    if wrapper.vendor == "postgresql":
        params = wrapper.get_connection_params()
        params.pop("cursor_factory", None)  # Django's cursors are synchronous
        params["prepare_threshold"] = 5  # prepare what a connection runs again and again
        return PostgresStore(params, runtime.db_threads())
    raise ImproperlyConfigured(f"The games run on SQLite or PostgreSQL, not {wrapper.vendor}.")


def close_all() -> None:
    """Close every store's connections, stop the checkpoints and forget the stores (tests,
    between databases)."""
    for ended in list(_stores.values()):
        ended.close_now()
    _stores.clear()
    with _checkpointers_guard:
        for stop in _checkpointers.values():
            stop.set()
        _checkpointers.clear()
    while _opened:
        with contextlib.suppress(sqlite3.Error):
            _opened.pop().close()
