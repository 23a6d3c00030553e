"""SQLite: the statements run one after another in one IMMEDIATE transaction, under the
process's write lock, on Django's connection (a view, a command, a test) or on the event loop's
own connection, which never waits for the disk (its checkpoints run on a thread) nor in SQLite's
busy handler (a write that finds another process writing waits on a game-database thread)."""

from __future__ import annotations

import asyncio
import datetime
import logging
import sqlite3
import threading

from games import runtime
from games.errors import Conflict
from games.store.base import (
    GameRow,
    InsertGame,
    IsCurrent,
    Ran,
    ReadAccounts,
    ReadArena,
    ReadHead,
    ReadRated,
    ReadRatings,
    ReadSeating,
    SeatRef,
    WriteArena,
    WriteChange,
    WriteRatings,
    _dispatch,
    _drive,
    _head,
    _json,
    _seat_ref,
    _seat_row,
    dumps,
    utc_now,
)
from games.store.statements import (
    _ACCOUNT,
    _ARENA_GAME,
    _ARENA_PLAYER,
    _ARENA_SCORE,
    _ARENA_SCORED,
    _DEFAULT,
    _HEAD,
    _INSERT_GAME,
    _INSERT_MOVE,
    _INSERT_PLAYER,
    _INSERT_SEAT,
    _IS_RATED,
    _RATED,
    _RATED_SEATS,
    _ROW,
    _SEAT_BY_PLAYER,
    _SEAT_BY_TOKEN,
    _SEATED_ACCOUNTS,
    _SEATS,
    _UPDATE_COMPUTER,
    _UPDATE_SCORE,
    _UPSERT_RATING,
    _arena_rows,
    _arena_streaks,
    _insert_params,
    _move_rows,
    _rating_changes,
    _rating_rows,
    _ratings_read,
    _ratings_start,
    _ratings_start_params,
    _seat_params,
    _update_game,
    _update_params,
)

log = logging.getLogger(__name__)
_opened: list[sqlite3.Connection] = []


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
            params = _seat_params(change.game_id, new, at, dumps)
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
        for new in game.seats:  # a table made seated: their players exist
            new.pk = self.conn.execute(
                _q(_INSERT_SEAT), _seat_params(game_id, new, at, dumps)
            ).lastrowid
        if game.steps:
            seat_of = (lambda step: step.seat_id) if game.seats else (lambda step: None)
            self.conn.executemany(
                _q(_INSERT_MOVE), _move_rows(game_id, game, 0, at, dumps, seat_of)
            )
        return game_id, now

    def read_rated(self, op: ReadRated):
        rated, options = self.conn.execute(_q(_RATED), (op.game_id,)).fetchone() or (False, None)
        if not rated:
            return False, None, []
        seats = self.conn.execute(_q(_RATED_SEATS), (op.game_id,)).fetchall()
        return True, _json(options), [(name, user, bool(bot)) for name, user, bot in seats]

    def read_seating(self, op: ReadSeating):
        row = self.conn.execute(_q(_IS_RATED), (op.game_id,)).fetchone()
        if row is None or not row[0]:
            return False, None, ()
        user = None
        if op.player_id is not None:
            found = self.conn.execute(_q(_ACCOUNT), (op.player_id,)).fetchone()
            user = None if found is None else found[0]
        seated = self.conn.execute(_q(_SEATED_ACCOUNTS), (op.game_id,)).fetchall()
        return True, user, tuple(row[0] for row in seated)

    def read_accounts(self, op: ReadAccounts):
        seated = self.conn.execute(_q(_SEATED_ACCOUNTS), (op.game_id,)).fetchall()
        return tuple(row[0] for row in seated)

    def read_ratings(self, op: ReadRatings):
        start = _ratings_start_params(op, _sqlite_time(utc_now()))
        self.conn.execute(_q(_ratings_start(len(op.user_ids))), start)
        rows = self.conn.execute(_q(_ratings_read(len(op.user_ids))), (op.mode, *op.user_ids))
        return {user: (mu, sigma, games) for user, mu, sigma, games in rows}

    def write_ratings(self, op: WriteRatings) -> bool:
        at = _sqlite_time(utc_now())
        sql, params = _rating_changes(op.game_id, op.mode, op.changes, at)
        if self.conn.execute(_q(sql), params).rowcount != len(op.changes):
            return False  # the game has rated already (its changes and ratings are one write)
        self.conn.executemany(_q(_UPSERT_RATING), _rating_rows(op.mode, op.changes, at))
        return True

    def read_arena(self, op: ReadArena):
        found = self.conn.execute(_q(_ARENA_GAME), (op.game_id,)).fetchone()
        if found is None:
            return None
        tournament_id, options = found
        seats = self.conn.execute(_q(_RATED_SEATS), (op.game_id,)).fetchall()
        users = [user for _, user, _ in seats if user is not None]
        streaks = {}
        if users:
            rows = self.conn.execute(
                _q(_arena_streaks(len(users))), (tournament_id, *users)
            ).fetchall()
            streaks = dict(rows)
        return tournament_id, _json(options), [(n, u) for n, u, _ in seats], streaks

    def write_arena(self, op: WriteArena) -> bool:
        if self.conn.execute(_q(_ARENA_SCORED), (True, op.game_id)).rowcount != 1:
            return False  # scored already (its rows and the players' points are one write)
        at = _sqlite_time(utc_now())
        inserted, updated = _arena_rows(op.game_id, op.tournament_id, op.scores, at)
        self.conn.executemany(_q(_ARENA_SCORE), inserted)
        self.conn.executemany(_q(_ARENA_PLAYER), updated)
        return True

    def seat_by_token(self, token: str) -> SeatRef | None:
        row = self.conn.execute(_q(_SEAT_BY_TOKEN), (token,)).fetchone()
        return None if row is None else _seat_ref(row)

    def seat_of_player(self, game_id: int, player_id: int) -> SeatRef | None:
        row = self.conn.execute(_q(_SEAT_BY_PLAYER), (game_id, player_id)).fetchone()
        return None if row is None else _seat_ref(row)

    def default_id(self) -> int | None:
        row = self.conn.execute(_DEFAULT).fetchone()
        return None if row is None else row[0]


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


_SQLITE = _dispatch(SqliteOps)
