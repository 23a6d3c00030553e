"""Shared fixtures: a real server (daphne, as `make run` starts it) for end-to-end tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent


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


class Server:
    """A daphne process serving the app on a fresh SQLite database."""

    def __init__(self, tmp: Path, **env: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ)
        self.env.pop("DATABASE_URL", None)
        self.env.update(
            SQLITE_PATH=str(tmp / "server.sqlite3"),
            DJANGO_DEBUG="0",
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            DJANGO_SETTINGS_MODULE="config.settings",
            **env,
        )
        self.log = open(tmp / "server.log", "wb")  # noqa: SIM115 - closed in stop()
        self.process: subprocess.Popen | None = None

    def start(self) -> Server:
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
                "daphne",
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

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The app served by daphne on a free port with its own SQLite file (watch timeout 3 s)."""
    running = Server(tmp_path_factory.mktemp("server"), SET_WATCH_TIMEOUT_S="3").start()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    """Game ids and versions repeat across test databases: start each test with no cached state."""
    from games import runtime

    runtime.forget_states()
    yield
    runtime.forget_states()
