"""A PostgreSQL and a Redis of the suite's own, in a temporary folder on free ports, so the tests
may stop and start them (never the machine's: other people use those).

PostgreSQL refuses to run as root: when the suite runs as root, initdb and the server run as the
`postgres` user (runuser), in a folder that user owns.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from deploy.loopback import terminate
from tests.conftest import free_port

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
REDIS_SERVER = os.environ.get("REDIS_SERVER", "redis-server")


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Postgres:
    """A PostgreSQL cluster made with initdb, listening on 127.0.0.1 on a free port."""

    def __init__(self) -> None:
        # Not under pytest's tmp_path: its folders are root's alone, and the server is not root.
        self.root = Path(tempfile.mkdtemp(prefix="setgames-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        subprocess.run(
            _as_postgres(
                [str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust"]
                + ["--no-sync", "-E", "UTF8", "--locale", "C.UTF-8"]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root}"
            " -c fsync=off -c max_connections=200 -c shared_buffers=32MB"
        )
        subprocess.run(
            _as_postgres(
                [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options]
                + ["-w", "-t", "60", "start"]
            ),
            check=True,
            capture_output=True,
            timeout=90,
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: "fast" (what a restart does: every session is told and closed) or
        "immediate" (as a crash)."""
        subprocess.run(
            _as_postgres(
                [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60"]
                + ["stop"]
            ),
            capture_output=True,
            timeout=90,
        )

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url.rsplit("/", 1)[0] + "/" + name

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class Redis:
    """A redis-server without persistence on 127.0.0.1 and a free port: a restart loses what it
    held, as a restarted cache does."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="setgames-redis-"))
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1"]
            + ["--save", "", "--appendonly", "no", "--dir", str(self.root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                import socket

                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        terminate(self.process)
        self.process = None

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
