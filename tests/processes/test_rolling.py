"""A rolling restart under load (issue 25): each of two server processes in turn is sent SIGTERM
and, once it has exited, started again on its port, while the load of tests/processes/load.py
plays on both.

A stopping process refuses new connections and closes its sockets with 1012 (config/server.py):
its clients reconnect at once (to the other process, as a load balancer sends them) and the
other's HTTP requests go on. The checks are the fault tests' (test_faults.check): no failure,
every acknowledged move in its game's log, each game's replay equal to its state; and every
socket sent its game's current version within 5 s of each process coming back.
"""

from __future__ import annotations

import asyncio
import signal
import time

from tests.processes.conftest import serve
from tests.processes.load import Load
from tests.processes.test_faults import AFTER_S, FIGURES, PLAY_S, SYNC_S, check

GRACE_S = 10.0  # SHUTDOWN_GRACE_S's default


def stop_gracefully(server) -> tuple[float, float]:
    """SIGTERM, and wait for the process to exit by itself; when the signal was sent, and how
    long the process took to exit."""
    sent = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    code = server.process.wait(timeout=GRACE_S + 20)
    took = time.monotonic() - sent
    server.log.close()
    assert code == 0, code
    return sent, took


async def rolling_restart(servers, stores, tmp_path) -> dict:
    load = Load([server.url for server in servers])
    await load.start()
    restarts = []
    try:
        await asyncio.sleep(PLAY_S)
        began = time.monotonic()
        for index, old in enumerate(list(servers)):
            sent, exited = await asyncio.to_thread(stop_gracefully, old)
            folder = tmp_path / f"restarted-{index}"
            folder.mkdir()
            new = await asyncio.to_thread(serve, folder, stores, like=old, port=old.port)
            servers[index] = new
            came_back = time.monotonic()
            load.back(new.url)
            lags = await load.in_sync(came_back, SYNC_S)
            restarts.append((old.url, sent, exited, lags))
        back = time.monotonic()
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
        "restarts": restarts,
    }


def test_a_rolling_restart_under_load(pair, stores, tmp_path):
    servers = []
    try:
        for name in ("one", "two"):
            (tmp_path / name).mkdir()
            servers.append(serve(tmp_path / name, stores, like=pair[0]))
        run = asyncio.run(rolling_restart(servers, stores, tmp_path))
    finally:
        for server in servers:
            server.stop()
    load: Load = run["load"]
    told = [s for s in load.sockets if any(code == 1012 for _, code in s.closes)]
    moved = {}  # for each process: how long after SIGTERM its sockets had a state from the other
    for url, sent, exited, lags in run["restarts"]:
        moved[url] = load.moved_over(url, sent)
        FIGURES.append(
            f"rolling restart: {url} exited {exited:.2f} s after SIGTERM; its "
            f"{len(moved[url])} sockets had their state from the other process "
            f"{max(moved[url].values(), default=0):.2f} s after the SIGTERM at the latest; "
            f"every socket in sync {max(lags.values()):.2f} s after it was back"
        )
    FIGURES.append(f"rolling restart: {len(told)} sockets closed with 1012")
    check(run, servers[0], name="rolling restart", outage=False, window="restarting")
    for url, _sent, exited, lags in run["restarts"]:
        assert exited < GRACE_S, exited  # its sockets gone, it did not wait for the grace
        assert moved[url] and max(moved[url].values()) <= SYNC_S, moved[url]
        assert max(lags.values()) <= SYNC_S, lags
    assert {s.server for s in told} == {server.url for server in servers}  # each said 1012
