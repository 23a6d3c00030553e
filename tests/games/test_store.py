"""The event loop's database access (games.store.sqlite): what it leaves to other threads."""

from __future__ import annotations

import sqlite3
import time

import pytest
from asgiref.sync import async_to_sync
from django.db import connection

from games import services, store
from games.models import Game, Player
from tests.games.conftest import LoopTicks

pytestmark = pytest.mark.django_db(transaction=True)


def classic_table():
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    return game, seat


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's WAL")
def test_the_loop_never_waits_for_a_checkpoint_and_a_thread_copies_the_wal_back(monkeypatch):
    monkeypatch.setattr(store.sqlite, "CHECKPOINT_EVERY_S", 0.05)
    checkpoints = []
    real_connect = sqlite3.connect

    class Recording(sqlite3.Connection):
        def execute(self, sql, *args):
            if "wal_checkpoint" in sql:
                checkpoints.append(sql)
            return super().execute(sql, *args)

    monkeypatch.setattr(
        store.sqlite.sqlite3,
        "connect",
        lambda *args, **kw: real_connect(*args, factory=Recording, **kw),
    )
    store.close_all()  # start the checkpoints anew, with the short interval
    game, seat = classic_table()

    async def play() -> int:
        found = await store.aseat_by_token(seat.token)
        for _ in range(5):
            await services.amove(game_id=game.pk, seat=found, action={"type": "hint"})
        conn = store.store()._connection()
        return conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]

    assert async_to_sync(play)() == 0  # the loop's own commits never checkpoint
    give_up = time.monotonic() + 5
    while not checkpoints and time.monotonic() < give_up:
        time.sleep(0.02)
    assert checkpoints and all(sql == "PRAGMA wal_checkpoint(PASSIVE)" for sql in checkpoints)
    assert Game.objects.get(pk=game.pk).version > game.version  # the hints were written
    store.close_all()


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's own lock")
def test_a_write_that_finds_another_process_writing_waits_on_a_thread_not_on_the_loop():
    import threading

    from django.conf import settings

    game, seat = classic_table()
    name = settings.DATABASES["default"]["NAME"]
    other = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process's write, as SQLite sees it
    threading.Timer(0.4, other.execute, ["COMMIT"]).start()

    async def play():
        found = await store.aseat_by_token(seat.token)
        async with LoopTicks() as ticks:
            result = await services.arun(
                services.move(game_id=game.pk, seat=found, action={"type": "hint"})
            )
        return result, ticks.count

    result, ticks = async_to_sync(play)()
    assert result.outcome["action"] == "hint"
    assert ticks >= 15  # the loop went on while the write waited
    assert Game.objects.get(pk=game.pk).version == result.game.version
    other.close()
