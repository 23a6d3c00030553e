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
- **Broadcasts never block a writer.** `publish` hands the channel-layer send to the event loop
  and returns; from code with no loop (tests, commands) it sends synchronously.
- **States are read once per version.** `cached_state` keeps the last states read, keyed by game
  and version, so fifty sockets woken by one change share one database read.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection, transaction

_executor: ThreadPoolExecutor | None = None
_executor_guard = threading.Lock()
_write_lock = threading.RLock()
_main_loop: asyncio.AbstractEventLoop | None = None


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


def remember_loop() -> asyncio.AbstractEventLoop:
    """Note the server's event loop, so threads can hand broadcasts to it."""
    global _main_loop
    loop = asyncio.get_running_loop()
    _main_loop = loop
    return loop


async def run_db(fn, /, *args, **kwargs):
    """Run a synchronous database function on the game-database threads."""
    loop = remember_loop()
    return await loop.run_in_executor(executor(), partial(_guarded, fn, *args, **kwargs))


def _guarded(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception:
        # A broken connection must not poison this long-lived thread.
        connection.close_if_unusable_or_obsolete()
        raise


@contextmanager
def write_transaction():
    """One write transaction; on SQLite, writers of this process queue on a lock first."""
    if connection.vendor == "sqlite":
        with _write_lock, transaction.atomic():
            yield
    else:
        with transaction.atomic():
            yield


def publish(group: str, message: dict) -> None:
    """Send a message to a channel group without making the caller wait for it."""
    layer = get_channel_layer()
    if layer is None:  # pragma: no cover - a layer is always configured
        return
    loop = _main_loop
    if loop is not None and loop.is_running():
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            loop.create_task(layer.group_send(group, message))
        else:
            asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
        return
    async_to_sync(layer.group_send)(group, message)


# -- the per-version state cache ----------------------------------------------------------------

_CACHE_SIZE = 256
_states: OrderedDict[tuple[int, int], dict] = OrderedDict()
_states_guard = threading.Lock()


def remember_state(game_id: int, version: int, state: dict) -> None:
    with _states_guard:
        _states[(game_id, version)] = state
        _states.move_to_end((game_id, version))
        while len(_states) > _CACHE_SIZE:
            _states.popitem(last=False)


def forget_states() -> None:
    """Empty the caches (tests do, between databases)."""
    with _states_guard:
        _states.clear()
        _seat_ids.clear()


# Seat ids by (game, name): seats are never deleted or renamed, so an id once committed holds.
_seat_ids: dict[tuple[int, str], int] = {}


def remember_seat(game_id: int, name: str, seat_id: int) -> None:
    with _states_guard:
        if len(_seat_ids) > 100_000:
            _seat_ids.clear()
        _seat_ids[(game_id, name)] = seat_id


def cached_seat(game_id: int, name: str) -> int | None:
    return _seat_ids.get((game_id, name))


def cached_state(game_id: int, version: int) -> dict | None:
    with _states_guard:
        return _states.get((game_id, version))


# Views rendered for sockets, by (game, version, seat name), kept for a moment: fifty watchers
# woken by one change see the same view, and time-driven parts of a view (a deadline passing)
# come with a new version soon after.
_RENDERED_FOR_S = 1.0
_rendered: OrderedDict[tuple, tuple[float, str]] = OrderedDict()


def rendered(key: tuple) -> str | None:
    found = _rendered.get(key)
    if found is None or time.monotonic() - found[0] > _RENDERED_FOR_S:
        return None
    return found[1]


def remember_rendered(key: tuple, text: str) -> None:
    _rendered[key] = (time.monotonic(), text)
    while len(_rendered) > _CACHE_SIZE:
        _rendered.popitem(last=False)


def channel_layer():
    return get_channel_layer()


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
    """Return the game at `version` or later, reading it once however many ask at a time."""
    key = (game_id, version)
    pending = _loading.get(key)
    if pending is not None:
        return await asyncio.shield(pending)
    future = asyncio.get_running_loop().create_future()
    _loading[key] = future
    try:
        game = await run_db(loader, game_id)
        future.set_result(game)
        return game
    except BaseException as exc:
        future.set_exception(exc)
        future.exception()  # mark retrieved: the waiters re-raise it
        raise
    finally:
        _loading.pop(key, None)
