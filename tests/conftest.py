"""Shared fixtures: a real server (daphne, as `make run` starts it) for end-to-end tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

# The two-process suite starts a PostgreSQL and a Redis of its own and restarts them: it runs with
# `make test-processes` (which sets SETGAMES_PROCESSES), never with `make test`.
collect_ignore = [] if os.environ.get("SETGAMES_PROCESSES") else ["processes"]
# The deployment's check starts nginx, two server processes, a PostgreSQL and a Redis of its own
# (`make deploy-check` sets SETGAMES_DEPLOY); the checks of deploy/'s files alone always run.
if not os.environ.get("SETGAMES_DEPLOY"):
    collect_ignore += ["deploy/test_site.py"]


# The suite runs on a 2-core machine shared with a live server and a browser: property tests
# are judged on what they find, not on how fast examples come.
settings.register_profile(
    "shared-machine",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("shared-machine")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def scaled_backend() -> bool:
    """True in the suite's second CI run: PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)."""
    return os.environ.get("DATABASE_URL", "").startswith("postgres") and bool(
        os.environ.get("REDIS_URL")
    )


_databases: list[str] = []  # PostgreSQL databases made for servers, dropped when the run ends


def _postgres(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


class Server:
    """A daphne process serving the app as `make run` does, on a data store of its own.

    By default the store is a fresh SQLite file in `tmp` and the in-memory channel layer. When
    the suite runs on PostgreSQL and Redis (`scaled_backend()`), each server gets a fresh
    PostgreSQL database and a Redis prefix of its own. `like=other` serves the same store as
    another server: a second process beside it, or the same data after a restart. `port`: the
    port to serve on (a restarted process on its predecessor's), a free one by default.
    """

    def __init__(
        self,
        tmp: Path,
        *,
        like: Server | None = None,
        port: int | None = None,
        options: Sequence[str] = (),
        **env: str,
    ):
        self.port = port or free_port()
        self.options = list(options)  # daphne's, before the address (deploy/: --proxy-headers)
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ)
        self.env.update(
            SQLITE_PATH=str(tmp / "server.sqlite3"),
            DJANGO_DEBUG="0",
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            DJANGO_SETTINGS_MODULE="tests.server_settings",  # the product's, a fast hasher
            RATE_LIMIT_JOINS="off",
            RATE_LIMIT_MOVES="off",
            RATE_LIMIT_CHAT="off",
            RATE_LIMIT_LOGINS="off",
            RATE_LIMIT_ACCOUNT_LOGINS="off",
            RATE_LIMIT_SIGNUPS="off",
            LOBBY_CHAT_MIN_GAMES="0",
            PUBLIC_TABLES_PER_HOUR="0",
        )
        if like is not None:
            for key in ("DATABASE_URL", "REDIS_URL", "CHANNEL_PREFIX"):
                if key in like.env:
                    self.env[key] = like.env[key]
        elif scaled_backend():
            name = f"srv_{uuid.uuid4().hex[:12]}"
            base = os.environ["DATABASE_URL"]
            _postgres(base, f'CREATE DATABASE "{name}"')
            _databases.append(name)
            self.env["DATABASE_URL"] = base.rsplit("/", 1)[0] + "/" + name
            self.env["CHANNEL_PREFIX"] = name
        else:
            self.env.pop("DATABASE_URL", None)
            self.env.pop("REDIS_URL", None)
        self.env.update(env)
        self.log = open(tmp / f"server-{self.port}.log", "wb")  # noqa: SIM115 - closed in stop()
        self.process: subprocess.Popen | None = None

    def start(self, *, migrate: bool = True) -> Server:
        """Migrate the store (a server `like` another may skip it: its store is migrated) and
        start the process; return once /healthz answers."""
        if migrate:
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
                cwd=ROOT,
                env=self.env,
                check=True,
                timeout=180,
            )
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "config.server",  # daphne, as `make run` starts it
                *self.options,
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "config.asgi:application",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the server did not start; see {self.log.name}")

    def shell(self, code: str) -> str:
        """Run Python in the server's project and store, as an operator would (manage.py shell);
        return what it printed."""
        result = subprocess.run(
            [sys.executable, "manage.py", "shell", "--no-imports", "-v", "0", "-c", code],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    def kill(self) -> None:
        """kill -9: no shutdown code runs, as when the machine loses power."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.log.close()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


_tests_run = [0]


@pytest.fixture(scope="session", autouse=True)
def _drop_server_databases():
    yield
    for name in _databases:
        _postgres(os.environ["DATABASE_URL"], f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The app served by daphne on a free port with its own SQLite file (watch timeout 3 s)."""
    running = Server(tmp_path_factory.mktemp("server"), SET_WATCH_TIMEOUT_S="3").start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def twins(tmp_path_factory):
    """Two daphne processes on different ports serving one PostgreSQL database and one Redis
    (watch timeout 5 s); skipped unless the suite runs on them (`make test-scaled`)."""
    if not scaled_backend():
        pytest.skip("two processes share games through PostgreSQL and Redis (make test-scaled)")
    first = Server(tmp_path_factory.mktemp("twin-a"), SET_WATCH_TIMEOUT_S="5").start()
    second = Server(tmp_path_factory.mktemp("twin-b"), like=first, SET_WATCH_TIMEOUT_S="5")
    second.start()
    yield first, second
    second.stop()
    first.stop()


@pytest.fixture(autouse=True)
def _fresh_state_cache(settings):
    """Game ids and versions repeat across test databases: start each test with no cached state,
    and with cache keys of its own (rate-limit counters of one test must not count in the next,
    in the same window; a finished game's cached figures must not be another database's)."""
    from games import ghosts, runtime, store

    _tests_run[0] += 1
    own = {**settings.CACHES["default"]}
    own["KEY_PREFIX"] = f"{own.get('KEY_PREFIX', '')}-{_tests_run[0]}"
    settings.CACHES = {**settings.CACHES, "default": own}

    runtime.forget_states()
    ghosts.forget()
    store.close_all()
    yield
    runtime.forget_states()
    ghosts.forget()
    store.close_all()


@pytest.fixture(autouse=True)
def _rate_windows_not_crossed(monkeypatch):
    """Rate limits count in fixed windows (games.limits): a test's counts run on a clock that
    starts at the top of an hour and moves with real time, so no test crosses a window's end (an
    hour's, a minute's) between its requests; a run near xx:59 would otherwise see its counts
    reset mid-test. Tests of the windows set their own clock on top of this one."""
    import types

    from games import limits

    started = time.time()
    top = (started // 3600 + 1) * 3600
    monkeypatch.setattr(
        limits, "time", types.SimpleNamespace(time=lambda: top + time.time() - started)
    )


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and before it is dropped the game-database threads'
    connections closed (PostgreSQL refuses to drop a database in use).

    The computers' bot accounts that migration accounts.0004 made are taken out first: the
    tests count the accounts they make, and a table that seats a computer makes its speed's
    account again (games.bots.computer_player), as on a database emptied since the migration.
    tests/accounts/test_bots.py checks the migration itself."""
    from django.contrib.auth import get_user_model

    from games.models import Player

    with django_db_blocker.unblock():
        made = get_user_model().objects.filter(bot__speed__gt="")
        Player.objects.filter(user__in=made).delete()
        made.delete()
    yield
    from games import runtime, store

    store.close_all()
    runtime.shutdown()


def pytest_configure(config):
    """Rate limits are off in tests (tests of the limits turn them on); servers the tests start
    get the same through their environment (Server)."""
    from django.conf import settings as django_settings

    django_settings.RATE_LIMIT_JOINS = "off"
    django_settings.RATE_LIMIT_MOVES = "off"
    django_settings.RATE_LIMIT_CHAT = "off"
    django_settings.RATE_LIMIT_LOGINS = "off"
    django_settings.RATE_LIMIT_ACCOUNT_LOGINS = "off"
    django_settings.RATE_LIMIT_SIGNUPS = "off"
    # The site's gates are off too (tests of them set them: tests/games/test_manners.py).
    django_settings.LOBBY_CHAT_MIN_GAMES = 0
    django_settings.PUBLIC_TABLES_PER_HOUR = 0
    # Passwords hashed in the test process with a fast hasher, as Django's testing docs advise
    # (PBKDF2 takes a quarter second a password here: a hundred accounts took half a minute).
    # So do the servers the tests start (tests/server_settings.py).
    django_settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Test processes share one Redis but not one database: each gets keys of its own.
    prefix = f"test-{os.getpid()}"
    for layer in django_settings.CHANNEL_LAYERS.values():
        inner = layer.get("CONFIG", {}).get("inner", {})  # games.realtime.GamesLayer's
        if "prefix" in inner.get("CONFIG", {}):
            inner["CONFIG"]["prefix"] = prefix
    django_settings.CACHES["default"]["KEY_PREFIX"] = prefix
