"""The two-process suite: two daphne processes (started as `make run` starts one) on a PostgreSQL
and a Redis of the suite's own, driven over HTTP and WebSockets (`make test-processes`).

`make test` never collects this folder (tests/conftest.py): it needs initdb and redis-server, and
it stops and starts them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import uuid
from collections.abc import Iterator
from ssl import SSLContext

import pytest

from deploy.loopback import Nginx
from tests.conftest import ROOT, Server
from tests.deploy import files
from tests.processes.stores import Postgres, Redis

# The deployment's limits, high enough for the tests' load but counted in Redis as they are in
# production: a move needs Redis for its count.
LIMITS = {
    "RATE_LIMIT_JOINS": "100000/min",
    "RATE_LIMIT_MOVES": "1000/s",
    "RATE_LIMIT_CHAT": "1000/s",
}

# `make test-faults` (SETGAMES_PROXY=nginx): the clients reach the processes through nginx as
# deploy/ runs it (deploy/loopback.py), and the processes run as setgames@.service starts
# them: production settings, daphne with --proxy-headers.
THROUGH_NGINX = os.environ.get("SETGAMES_PROXY") == "nginx"
PROXIED = (
    {
        "DJANGO_SETTINGS_MODULE": "config.settings_production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    }
    if THROUGH_NGINX
    else {}
)
OPTIONS = files.daphne_options() if THROUGH_NGINX else []


@pytest.fixture(scope="session")
def stores():
    """The suite's own PostgreSQL and Redis, removed at the end even when a test fails."""
    postgres = Postgres()
    redis = Redis()
    try:
        postgres.start()
        redis.start()
        yield postgres, redis
    finally:
        redis.destroy()
        postgres.destroy()


def serve(tmp, stores, *, like: Server | None = None, port: int | None = None) -> Server:
    """A server on the suite's stores: with `like`, beside it on the same database (on `port`,
    if given: a restart of a process on its port)."""
    if like is not None:
        return Server(tmp, like=like, port=port, options=OPTIONS, **LIMITS, **PROXIED).start(
            migrate=False
        )
    postgres, redis = stores
    name = f"srv_{uuid.uuid4().hex[:12]}"
    return Server(
        tmp,
        DATABASE_URL=postgres.create_database(name),
        REDIS_URL=redis.url,
        CHANNEL_PREFIX=name,
        SET_WATCH_TIMEOUT_S="5",
        options=OPTIONS,
        **LIMITS,
        **PROXIED,
    ).start()


@pytest.fixture(scope="session")
def pair(tmp_path_factory, stores):
    """Two server processes sharing one database and one Redis."""
    first = serve(tmp_path_factory.mktemp("first"), stores)
    second = serve(tmp_path_factory.mktemp("second"), stores, like=first)
    yield first, second
    second.stop()
    first.stop()


@contextlib.contextmanager
def entrances(servers: list[Server]) -> Iterator[tuple[list[str], SSLContext | None]]:
    """Where clients go to reach `servers`, and the TLS settings to use: each process's own
    address, or (THROUGH_NGINX) nginx's HTTPS address in front of them all, stopped at the end."""
    if not THROUGH_NGINX:
        yield [server.url for server in servers], None
        return
    env = {**files.env_file(), "DJANGO_STATIC_ROOT": str(ROOT / "static")}
    nginx = Nginx([f"127.0.0.1:{server.port}" for server in servers], env)
    try:
        nginx.start()
        yield [nginx.url], nginx.ssl_context()
    finally:
        nginx.destroy()


def at_once(count: int, act) -> list:
    """Run act(i) for i in range(count) on threads released together; the results in order
    (an exception raised is the result)."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(index: int) -> None:
        try:
            barrier.wait()
            results[index] = act(index)
        except Exception as exc:  # noqa: BLE001 - the test inspects what happened
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def pytest_terminal_summary(terminalreporter):
    """The figures the fault tests measured (outage lengths, 503s, resync times)."""
    from tests.processes.test_faults import FIGURES

    if FIGURES:
        terminalreporter.section("outages under load")
        for line in FIGURES:
            terminalreporter.write_line(line)
