"""Persistence: the one module that writes games, seats and moves, on SQLite and on PostgreSQL.

A write is a *job*: a generator (games.services) that yields the operations below and receives
their answers. This package runs jobs, on whichever connection the caller is on:

- `run(job)`: on Django's own connection, in one transaction (`runtime.write_transaction`), so a
  Django view, a command or a test's transaction sees its own writes;
- `await arun(job)`: on the event loop with no thread hop. SQLite: the loop's own connection,
  under the process's write lock, in one IMMEDIATE transaction (if another thread of this process
  or another process holds the database, the job runs on a game-database thread instead, waiting
  there, never on the loop). PostgreSQL: psycopg's async connections (a psycopg_pool pool), one
  statement per write, which writes only if the game is still at the version it was planned on.

Both databases' statements are written once (`statements`), and both ways of running them go
through the same operations: `ReadHead`, `IsCurrent`, `WriteChange`, `InsertGame`, `Announce`.
What a job announces is handed back once its transaction has committed (`Ran.announced`).

Values are stored as Django stores them (JSON text on SQLite and jsonb on PostgreSQL, UTC
times), so the ORM reads them back unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import weakref
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, connections

from games import runtime
from games.store.base import (
    HEAD_COLUMNS,
    Announce,
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
    SeatRow,
    TableHead,
    WriteArena,
    WriteChange,
    WriteRatings,
    _drive,
    _seats,
    forget_seats,
    head_from_row,
    head_of,
    is_token,
    remember_seat,
)
from games.store.postgres import LoopPostgres, PostgresOps
from games.store.sqlite import (
    LoopSqlite,
    SqliteOps,
    _checkpointers,
    _checkpointers_guard,
    _opened,
)

__all__ = [
    "HEAD_COLUMNS",
    "Announce",
    "GameRow",
    "InsertGame",
    "IsCurrent",
    "LoopPostgres",
    "LoopSqlite",
    "Ran",
    "ReadArena",
    "ReadHead",
    "ReadSeating",
    "ReadAccounts",
    "ReadRated",
    "ReadRatings",
    "SeatRef",
    "SeatRow",
    "TableHead",
    "WriteArena",
    "WriteChange",
    "WriteRatings",
    "aread",
    "arun",
    "aseat_by_token",
    "close_all",
    "head_from_row",
    "head_of",
    "is_token",
    "read",
    "remember_seat",
    "run",
    "seat_by_token",
    "store",
]


def _django_ops(*, locking: bool = True):
    if not connection.in_atomic_block:  # a connection found closed is replaced, not used
        runtime.drop_closed_connection()
    connection.ensure_connection()
    raw = connection.connection
    if connection.vendor == "sqlite":
        return SqliteOps(raw)
    if connection.vendor == "postgresql":
        return PostgresOps(raw, locking=locking)
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
    """A read of this module's (`"read_head"`, `"seat_by_token"`, `"default_id"`...) on
    Django's connection; it locks nothing."""
    return getattr(_django_ops(locking=False), name)(*args)


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


_stores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()


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
