"""PostgreSQL: a write is one statement that changes the game only if it is still at the version
it was planned on (and with it the moves, seats and scores), on Django's connection in its
transaction or on an async psycopg connection of the event loop's pool; a write that lost a race
is planned again on the game read locked."""

from __future__ import annotations

import asyncio
import weakref

import orjson

from games import runtime
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
    _adrive,
    _dispatch,
    _head,
    _json,
    _seat_ref,
    _seat_row,
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
    _IS_RATED,
    _JOIN_READ,
    _RATED,
    _RATED_SEATS,
    _ROW,
    _SEAT_BY_PLAYER,
    _SEAT_BY_TOKEN,
    _SEATED_ACCOUNTS,
    _SEATS,
    _UPSERT_RATING,
    _VERSION,
    _arena_rows,
    _arena_streaks,
    _change_statement,
    _pg_insert,
    _pg_inserted,
    _rating_changes,
    _rating_rows,
    _ratings_read,
    _ratings_start,
    _ratings_start_params,
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
    """The operations on a psycopg connection of Django's: in a job's transaction a head is read
    with its row locked (`locking`); a plain read (`store.read`) locks nothing."""

    def __init__(self, conn, *, locking: bool = True) -> None:
        self.conn = conn
        self.locking = locking

    def do(self, op):
        return _POSTGRES[type(op)](self, op)

    def _one(self, sql, params):
        return self.conn.execute(sql, params).fetchone()

    def read_head(self, op: ReadHead):
        if self.locking:  # a write's: locked at once, as the ORM's select_for_update was
            return _pg_locked_head(self._one, self._all, op)
        cached = runtime.cached_head(op.game_id)
        sql = _JOIN_READ if op.seats else _HEAD
        return _pg_head(op, self._one(sql, (cached.version if cached else -1, op.game_id)), cached)

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
        return _pg_inserted(op.game, self._one(*_pg_insert(op.game, utc_now(), _jsonb)))

    def read_rated(self, op: ReadRated):
        rated, options = self._one(_RATED, (op.game_id,)) or (False, None)
        if not rated:
            return False, None, []
        seats = self._all(_RATED_SEATS, (op.game_id,))
        return True, _json(options), [tuple(seat) for seat in seats]

    def read_seating(self, op: ReadSeating):
        row = self._one(_IS_RATED, (op.game_id,))
        if row is None or not row[0]:
            return False, None, ()
        user = None
        if op.player_id is not None:
            found = self._one(_ACCOUNT, (op.player_id,))
            user = None if found is None else found[0]
        seated = self._all(_SEATED_ACCOUNTS, (op.game_id,))
        return True, user, tuple(row[0] for row in seated)

    def read_accounts(self, op: ReadAccounts):
        return tuple(row[0] for row in self._all(_SEATED_ACCOUNTS, (op.game_id,)))

    def read_ratings(self, op: ReadRatings):
        start = _ratings_start_params(op, utc_now())
        self.conn.execute(_ratings_start(len(op.user_ids)), start)
        rows = self._all(_ratings_read(len(op.user_ids), lock=True), (op.mode, *op.user_ids))
        return {user: (mu, sigma, games) for user, mu, sigma, games in rows}

    def write_ratings(self, op: WriteRatings) -> bool:
        now = utc_now()
        sql, params = _rating_changes(op.game_id, op.mode, op.changes, now)
        if self.conn.execute(sql, params).rowcount != len(op.changes):
            return False  # the game has rated already (its changes and ratings are one write)
        with self.conn.pipeline(), self.conn.cursor() as cursor:
            cursor.executemany(_UPSERT_RATING, _rating_rows(op.mode, op.changes, now))
        return True

    def read_arena(self, op: ReadArena):
        found = self._one(_ARENA_GAME, (op.game_id,))
        if found is None:
            return None
        tournament_id, options = found
        seats = self._all(_RATED_SEATS, (op.game_id,))
        users = sorted(user for _, user, _ in seats if user is not None)
        streaks = {}
        if users:
            sql = _arena_streaks(len(users), lock=True)
            streaks = dict(self._all(sql, (tournament_id, *users)))
        return tournament_id, _json(options), [(n, u) for n, u, _ in seats], streaks

    def write_arena(self, op: WriteArena) -> bool:
        if self.conn.execute(_ARENA_SCORED, (True, op.game_id)).rowcount != 1:
            return False  # scored already (its rows and the players' points are one write)
        inserted, updated = _arena_rows(op.game_id, op.tournament_id, op.scores, utc_now())
        with self.conn.pipeline(), self.conn.cursor() as cursor:  # sent at once: one round trip
            cursor.executemany(_ARENA_SCORE, inserted)
            cursor.executemany(_ARENA_PLAYER, updated)
        return True

    def seat_by_token(self, token: str) -> SeatRef | None:
        row = self._one(_SEAT_BY_TOKEN, (token,))
        return None if row is None else _seat_ref(row)

    def seat_of_player(self, game_id: int, player_id: int) -> SeatRef | None:
        row = self._one(_SEAT_BY_PLAYER, (game_id, player_id))
        return None if row is None else _seat_ref(row)

    def default_id(self) -> int | None:
        row = self._one(_DEFAULT, ())
        return None if row is None else row[0]


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
                # BEGIN and the locked read sent together: one round trip, not two, for a
                # transaction that holds the game's row until it ends.
                async with self.conn.pipeline():
                    await self.conn.execute("BEGIN")
                    self.in_transaction = True
                    return await _apg_locked_head(self._one, self._all, op)
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
        return _pg_inserted(op.game, await self._one(*_pg_insert(op.game, utc_now(), _jsonb)))

    async def read_rated(self, op: ReadRated):
        rated, options = (await self._one(_RATED, (op.game_id,))) or (False, None)
        if not rated:
            return False, None, []
        seats = await self._all(_RATED_SEATS, (op.game_id,))
        return True, _json(options), [tuple(seat) for seat in seats]

    async def read_seating(self, op: ReadSeating):
        row = await self._one(_IS_RATED, (op.game_id,))
        if row is None or not row[0]:
            return False, None, ()
        user = None
        if op.player_id is not None:
            found = await self._one(_ACCOUNT, (op.player_id,))
            user = None if found is None else found[0]
        seated = await self._all(_SEATED_ACCOUNTS, (op.game_id,))
        return True, user, tuple(row[0] for row in seated)

    async def read_accounts(self, op: ReadAccounts):
        return tuple(row[0] for row in await self._all(_SEATED_ACCOUNTS, (op.game_id,)))

    async def read_ratings(self, op: ReadRatings):
        start = _ratings_start_params(op, utc_now())
        await self.conn.execute(_ratings_start(len(op.user_ids)), start)
        rows = await self._all(_ratings_read(len(op.user_ids), lock=True), (op.mode, *op.user_ids))
        return {user: (mu, sigma, games) for user, mu, sigma, games in rows}

    async def write_ratings(self, op: WriteRatings) -> bool:
        now = utc_now()
        sql, params = _rating_changes(op.game_id, op.mode, op.changes, now)
        if (await self.conn.execute(sql, params)).rowcount != len(op.changes):
            return False  # the game has rated already (its changes and ratings are one write)
        async with self.conn.pipeline(), self.conn.cursor() as cursor:
            await cursor.executemany(_UPSERT_RATING, _rating_rows(op.mode, op.changes, now))
        return True

    async def read_arena(self, op: ReadArena):
        found = await self._one(_ARENA_GAME, (op.game_id,))
        if found is None:
            return None
        tournament_id, options = found
        seats = await self._all(_RATED_SEATS, (op.game_id,))
        users = sorted(user for _, user, _ in seats if user is not None)
        streaks = {}
        if users:
            sql = _arena_streaks(len(users), lock=True)
            streaks = dict(await self._all(sql, (tournament_id, *users)))
        return tournament_id, _json(options), [(n, u) for n, u, _ in seats], streaks

    async def write_arena(self, op: WriteArena) -> bool:
        if (await self.conn.execute(_ARENA_SCORED, (True, op.game_id))).rowcount != 1:
            return False  # scored already (its rows and the players' points are one write)
        inserted, updated = _arena_rows(op.game_id, op.tournament_id, op.scores, utc_now())
        async with self.conn.pipeline(), self.conn.cursor() as cursor:  # one round trip
            await cursor.executemany(_ARENA_SCORE, inserted)
            await cursor.executemany(_ARENA_PLAYER, updated)
        return True

    async def seat_by_token(self, token: str) -> SeatRef | None:
        row = await self._one(_SEAT_BY_TOKEN, (token,))
        return None if row is None else _seat_ref(row)

    async def seat_of_player(self, game_id: int, player_id: int) -> SeatRef | None:
        row = await self._one(_SEAT_BY_PLAYER, (game_id, player_id))
        return None if row is None else _seat_ref(row)

    async def default_id(self) -> int | None:
        row = await self._one(_DEFAULT, ())
        return None if row is None else row[0]


POOL_WAIT_S = 2.0
RECONNECT_S = 1.0


class LoopPostgres:
    """The loop's PostgreSQL: a pool of psycopg async connections."""

    def __init__(self, params: dict, size: int) -> None:
        self.params = params
        self.size = size
        self._pool = None
        self._opening: asyncio.Task | None = None
        self._sweeping: asyncio.Task | None = None
        self._closer: asyncio.Task | None = None  # held: the loop keeps its tasks weakly
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
            check=self._check,
            # A request waits this long for a connection, then is answered 503 (PostgreSQL
            # down or restarting: the pool reconnects by itself meanwhile).
            timeout=POOL_WAIT_S,
            # A lost connection is tried again after a second, then given up: the next request
            # that finds the pool short tries at once. (Kept trying, psycopg_pool waits 1, 2,
            # 4, 8... s between attempts: after a long outage, long after PostgreSQL is back.)
            reconnect_timeout=RECONNECT_S,
            open=False,
            name="games-live",
        )
        try:
            await pool.open(wait=True, timeout=30)
        except BaseException:
            self._opening = None
            raise
        self._pool = pool
        self._closer = asyncio.get_running_loop().create_task(self._close_with_the_loop(pool))

    @staticmethod
    async def _close_with_the_loop(pool) -> None:
        """Close the pool when its event loop ends (the loop's tasks cancelled: a server's at
        shutdown, each test's). psycopg_pool's workers keep on through a cancel that comes while
        one does the pool's own work (a connection being made): the loop's end then waited
        for them for ever. Closing the pool stops them."""
        try:
            await asyncio.get_running_loop().create_future()
        finally:
            await pool.close(timeout=1)

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

    async def _check(self, conn) -> None:
        """A connection taken from the pool must still be open: one that PostgreSQL closed
        (restarted) is dropped and replaced, instead of failing the request it was given to.
        Checked without a round trip (runtime.closed_by_server). The first one found closed
        has the pool check all its others at once (a restart closed every one of them): the
        pool waits a growing while between two connections found closed for one request."""
        if runtime.closed_by_server(conn):
            from psycopg import OperationalError

            await conn.close()  # so the pool replaces it rather than take it back
            if self._sweeping is None or self._sweeping.done():
                self._sweeping = asyncio.get_running_loop().create_task(self._pool.check())
            raise OperationalError("the server closed this connection")

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


_POSTGRES = _dispatch(PostgresOps)
_ASYNC_POSTGRES = _dispatch(AsyncPostgresOps)
