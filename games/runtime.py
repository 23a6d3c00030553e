"""How the platform runs inside one server process: where database work happens, how writes
queue, how broadcasts reach the event loop, and the per-version cache of game states.

- **One pool of game-database threads.** Async code (the text protocol, /watch, WebSockets)
  runs every service and selector call on `run_db`, a small fixed pool whose threads keep their
  database connection open. Django's own ASGI handler would start a thread, and so open a fresh
  connection, for every request; on SQLite that alone costs about a millisecond.
- **Writes queue in the process, not in SQLite.** `write_lock` serialises this process's write
  transactions on SQLite, so writers wait on a lock that wakes them at once instead of in
  SQLite's busy handler, which sleeps with a growing back-off. PostgreSQL locks the game row
  (`select_for_update`) and needs no such lock.
- **Broadcasts never block a writer.** A committed change goes to its game's group on the
  channel layer (games.realtime.publish), handed to the event loop from a thread.
- **The newest head of each game is kept.** `remember_head` keeps the newest version of a game
  this process wrote, read or heard of (its row's few columns and its state), so fifty sockets
  woken by one change share one read, and a move on a game this process follows needs no read
  at all.
"""

from __future__ import annotations

import asyncio
import json
import select
import threading
import time
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from typing import Any

import orjson
from django.conf import settings
from django.db import connection, transaction

_executor: ThreadPoolExecutor | None = None
_executor_guard = threading.Lock()
_write_lock = threading.RLock()


def json_bytes(data) -> bytes:
    """Compact JSON in UTF-8, as the API and the sockets send it and the store writes it:
    orjson, ten times quicker than json on a game's view (told to take keys that are not text
    only when there are some: that option makes it three quarters slower); json for what
    orjson refuses (integers past 64 bits)."""
    try:
        return orjson.dumps(data)
    except TypeError:
        pass
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def json_text(data) -> str:
    return json_bytes(data).decode()


def db_threads() -> int:
    default = 1 if connection.vendor == "sqlite" else 12
    return int(getattr(settings, "GAME_DB_THREADS", 0) or default)


def executor() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        with _executor_guard:
            if _executor is None:
                _executor = ThreadPoolExecutor(db_threads(), thread_name_prefix="games-db")
    return _executor


def shutdown() -> None:
    """Close every game-database thread's connection and stop the threads (tests call this
    before their database is dropped; a server simply exits)."""
    global _executor
    with _executor_guard:
        pool, _executor = _executor, None
    if pool is None:
        return
    # One task per thread, each held until all have started, so every thread closes its own.
    workers = pool._max_workers  # its size when made (settings may have changed since)
    gate = threading.Barrier(workers, timeout=10)

    def close() -> None:
        connection.close()
        gate.wait()

    for _ in range(workers):
        pool.submit(close)
    pool.shutdown(wait=True)


async def run_db(fn, /, *args, **kwargs):
    """Run a synchronous database function on the game-database threads."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(executor(), partial(_guarded, fn, *args, **kwargs))


def _guarded(fn, *args, **kwargs):
    drop_closed_connection()
    try:
        return fn(*args, **kwargs)
    except Exception:
        # A broken connection must not poison this long-lived thread.
        connection.close_if_unusable_or_obsolete()
        drop_closed_connection()
        raise


def closed_by_server(conn) -> bool:
    """Whether PostgreSQL has closed, or is closing, an idle psycopg connection (a restart, a
    session ended by an administrator). An idle connection is owed nothing: anything the server
    has written to it is its last words ("terminating connection...") and the end of the
    stream. Told by the socket, without reading it and without a round trip (a few
    microseconds); a rare notice to an idle session costs a reconnection, nothing more."""
    from psycopg import pq

    pgconn = conn.pgconn
    if pgconn.status != pq.ConnStatus.OK:
        return True
    poller = select.poll()
    poller.register(pgconn.socket, select.POLLIN)
    return bool(poller.poll(0))


def drop_closed_connection() -> None:
    """Close this thread's database connection when PostgreSQL has closed it, so that the next
    query opens a new one instead of failing on it. A thread that keeps its connection (the
    game-database threads, Django's request thread between requests) would otherwise answer its
    first requests after a restart of PostgreSQL with an error, one per thread."""
    raw = connection.connection
    if raw is not None and connection.vendor == "postgresql" and closed_by_server(raw):
        connection.close()


def write_lock() -> threading.RLock:
    """The lock this process's writers to SQLite queue on (games.store takes it too)."""
    return _write_lock


@contextmanager
def write_transaction():
    """One write transaction; on SQLite, writers of this process queue on a lock first."""
    if not connection.in_atomic_block:
        drop_closed_connection()
    if connection.vendor == "sqlite":
        with _write_lock, transaction.atomic():
            yield
    else:
        with transaction.atomic():
            yield


# This process, as the origin of the changes it publishes: its channel layer hands its own
# changes to its members at once, and skips them when the layer between processes brings them
# back (games.realtime).
ORIGIN = uuid.uuid4().hex


# -- the newest head of each game ------------------------------------------------------------

# Each head holds a state of a few dozen lists and dicts, which Python's collector walks at every
# full collection; a server follows some hundreds of games at a time.
_CACHE_SIZE = 1024
_heads: OrderedDict[int, object] = OrderedDict()
_heads_guard = threading.Lock()


def remember_head(head) -> None:
    """Keep a game's head (anything with `pk`, `version` and `state`: selectors.TableHead),
    unless a newer version of the game is kept already. Only committed heads belong here."""
    with _heads_guard:
        known = _heads.get(head.pk)
        if known is not None and known.version > head.version:
            return
        _heads[head.pk] = head
        _heads.move_to_end(head.pk)
        if len(_heads) > _CACHE_SIZE:
            _heads.popitem(last=False)


def cached_head(game_id: int):
    """The newest head this process knows of the game (maybe not the newest there is), or
    None."""
    return _heads.get(game_id)


def cached_state(game_id: int, version: int) -> dict | None:
    head = _heads.get(game_id)
    return head.state if head is not None and head.version == version else None


def forget_head(game_id: int, version: int) -> None:
    """Drop a game's head if it is still at `version` (found stale)."""
    with _heads_guard:
        head = _heads.get(game_id)
        if head is not None and head.version == version:
            del _heads[game_id]


def forget_states() -> None:
    """Empty the caches (tests do, between databases)."""
    with _heads_guard:
        _heads.clear()
        _seat_ids.clear()
        _rendered.clear()


# Seat ids by (game, name): seats are never deleted or renamed, so an id once committed holds.
_seat_ids: dict[tuple[int, str], int] = {}


def remember_seat(game_id: int, name: str, seat_id: int) -> None:
    with _heads_guard:
        if len(_seat_ids) > 100_000:
            _seat_ids.clear()
        _seat_ids[(game_id, name)] = seat_id


def cached_seat(game_id: int, name: str) -> int | None:
    return _seat_ids.get((game_id, name))


# Views rendered for sockets, by (game, version, seat name), kept for a moment: fifty watchers
# woken by one change see the same view, and time-driven parts of a view (a deadline passing)
# come with a new version soon after.
_RENDERED_FOR_S = 1.0
_RENDERED_SIZE = 256
_rendered: OrderedDict[tuple, tuple[float, Any]] = OrderedDict()


def rendered(key: tuple) -> Any:
    found = _rendered.get(key)
    if found is None or time.monotonic() - found[0] > _RENDERED_FOR_S:
        return None
    return found[1]


def remember_rendered(key: tuple, text: Any) -> None:
    _rendered[key] = (time.monotonic(), text)
    while len(_rendered) > _RENDERED_SIZE:
        _rendered.popitem(last=False)


# Long polls waiting in this process, per game (shown as "watching" in the game's API detail).
_watching: dict[int, int] = {}


@contextmanager
def watching(game_id: int):
    """Count a /watch as waiting on a game while the block runs."""
    _watching[game_id] = _watching.get(game_id, 0) + 1
    try:
        yield
    finally:
        _watching[game_id] -= 1
        if not _watching[game_id]:
            del _watching[game_id]


def watchers(game_id: int) -> int:
    """How many /watch requests wait on the game in this server process."""
    return _watching.get(game_id, 0)


# Loads in flight, so many waiters woken by one change share one database read.
_loading: dict[tuple[int, int], asyncio.Future] = {}


async def load_game(game_id: int, version: int, loader):
    """Return the game at `version` or later (`await loader(game_id)`), reading it once however
    many ask at a time."""
    key = (game_id, version)
    pending = _loading.get(key)
    if pending is not None:
        return await asyncio.shield(pending)
    future = asyncio.get_running_loop().create_future()
    _loading[key] = future
    try:
        game = await loader(game_id)
        future.set_result(game)
        return game
    except BaseException as exc:
        future.set_exception(exc)
        future.exception()  # mark retrieved: the waiters re-raise it
        raise
    finally:
        _loading.pop(key, None)
