"""Faults under a bounded load of moves (tests/processes/load.py), two server processes serving:
Redis restarted, PostgreSQL restarted, one server process killed with kill -9 (issue 23).

Each test plays for a while, brings the fault about, undoes it (the other process keeps serving
the killed one's clients), plays on, then stops the moves and checks:

- no answer is a 5xx but a 503 with Retry-After, and no socket is closed for an error;
- requests during an outage are answered 503, and the service comes back by itself;
- every move acknowledged (a 200, a result frame) is in its game's log as it was sent;
- replaying each game's log gives its stored state;
- every socket (bob's and a spectator's at each table, one on each process) has been sent its
  game's current version within 5 s after the recovery.

`make test-faults` runs the same tests with the clients going through nginx as deploy/ runs it
(conftest.THROUGH_NGINX): then no request may go unanswered or take more than 10 s (a killed
process's requests go to the other one), and the killed process's sockets reconnect through nginx.
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from tests.processes.conftest import THROUGH_NGINX, entrances, serve
from tests.processes.load import Load

pytestmark = pytest.mark.slow

PLAY_S = 2.0  # before the fault
OUTAGE_S = 3.0  # a dependency down
AFTER_S = 3.0  # moves after the recovery
SYNC_S = 5.0  # every socket in sync this long after the recovery
HANG_S = 10.0  # through nginx: no request takes longer

CHECK_REPLAYS = """
from games.models import Game
from games.replay import replay
games = list(Game.objects.filter(pk__in=%s))
for game in games:
    seqs = list(game.moves.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1)), (game.pk, seqs, game.version)
    assert replay(game) == game.state, game.pk
print(len(games))
"""

FIGURES: list[str] = []  # printed at the end of the run (conftest.pytest_terminal_summary)


def play_through(servers, fault, recover) -> dict:
    """`play` with the clients at `servers` (or at nginx in front of them)."""
    with entrances(servers) as (urls, ssl):
        return asyncio.run(play(urls, ssl, fault, recover))


async def play(urls, ssl, fault, recover) -> dict:
    """Play, bring `fault` about (a blocking function, run on a thread while the load goes on),
    wait OUTAGE_S, `recover`, play AFTER_S more, stop the moves, wait for the sockets."""
    load = Load(urls, ssl=ssl)
    await load.start()
    try:
        await asyncio.sleep(PLAY_S)
        began = time.monotonic()
        await asyncio.to_thread(fault)
        await asyncio.sleep(OUTAGE_S)
        await asyncio.to_thread(recover)
        back = time.monotonic()
        # Table 0 goes quiet: its moves through one process in the first half second after the
        # recovery (when the other may not hear Redis yet) are the last; the other process's
        # socket can only learn of them by resynchronising.
        load.quiet(load.tables[0], moves_for=0.5)
        await asyncio.sleep(AFTER_S)
        stopped, lags, logs = await load.wind_down(back, SYNC_S)
    finally:
        await load.close()
    return {
        "load": load,
        "began": began,
        "back": back,
        "stopped": stopped,
        "lags": lags,
        "logs": logs,
    }


def check(run: dict, server, *, name: str, outage: bool, window: str = "down") -> None:
    """Check a run and note its figures; `window` names the time from the fault to the
    recovery in them ("down", or "restarting" for a rolling restart, when nothing is down)."""
    load: Load = run["load"]
    began, back, stopped = run["began"], run["back"], run["stopped"]
    failures = load.failures()
    during = load.statuses(began, back)
    after = load.statuses(back, stopped)
    late = [a.at - back for a in load.answers if a.status == 503 and a.at >= back]
    moves = sum(len(acked) for acked in load.acks.values())
    slowest = max((a.took for a in load.answers if a.way == "http"), default=0.0)
    FIGURES.append(
        f"{name}{' through nginx' if THROUGH_NGINX else ''}: {back - began:.1f} s {window}; "
        f"{moves} moves acknowledged; while {window} {dict(during)}; after it {dict(after)}; last "
        f"503 {max(late, default=0):.2f} s after the recovery; sockets in sync "
        f"{max(run['lags'].values()):.2f} s after it; slowest request {slowest:.2f} s"
        + (f"; {len(failures)} failures in all, first {failures[0]}" if failures else "")
    )
    assert not failures, failures[:5]
    if THROUGH_NGINX:
        # nginx answers every request, soon: a dead process's go to the other one.
        unanswered = [a for a in load.answers if a.way == "http" and a.status == "conn"]
        assert not unanswered, unanswered[:5]
        assert slowest < HANG_S, slowest
    if outage:
        assert during[503] > 0, during  # the outage was felt, and answered 503
    # It came back by itself: the last second of play went through.
    assert not [a for a in load.answers if a.status == 503 and a.at >= stopped - 1.0]
    assert load.statuses(stopped - 1.0, stopped)[200] > 0
    assert load.lost(run["logs"]) == []
    assert int(server.shell(CHECK_REPLAYS % json.dumps(sorted(load.games)))) == len(load.games)
    assert max(run["lags"].values()) <= 5.0, run["lags"]


def test_a_redis_restart_under_load(pair, stores):
    _postgres, redis = stores
    run = play_through(pair, redis.stop, redis.start)
    check(run, pair[0], name="Redis restart", outage=True)


def test_a_postgresql_restart_under_load(pair, stores):
    postgres, _redis = stores
    run = play_through(pair, postgres.stop, postgres.start)
    check(run, pair[0], name="PostgreSQL restart", outage=True)


def test_kill_9_of_one_process_under_load(pair, stores, tmp_path):
    """One of two processes is killed; the other serves everyone, the dead one's clients too."""
    doomed = serve(tmp_path, stores, like=pair[0])
    try:
        run = play_through([pair[0], doomed], doomed.kill, lambda: None)
    finally:
        doomed.stop()
    check(run, pair[0], name="kill -9 of one process", outage=False)
    load: Load = run["load"]
    if THROUGH_NGINX:  # its clients' sockets were closed, and reopened through nginx
        moved = load.reconnected(run["began"])
    else:
        assert doomed.url in load.down  # its clients went on with the other process
        moved = load.moved_over(doomed.url, run["began"])
    FIGURES.append(
        f"kill -9: {len(moved)} sockets of the killed process had their state from the other "
        f"one {max(moved.values(), default=float('inf')):.2f} s after the kill at the latest"
    )
    assert moved and max(moved.values()) <= 5.0, moved
    with httpx.Client(base_url=pair[0].url, timeout=10) as http:
        assert http.get("/healthz").status_code == 200
