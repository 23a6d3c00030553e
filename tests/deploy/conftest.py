"""The deployment of deploy/ on this machine's loopback (`make deploy-check`): a PostgreSQL and a
Redis of the check's own (tests/processes/stores.py), the setup unit's commands (migrate,
collectstatic), two daphne processes started with setgames@.service's options, and nginx with the
site's configuration in front, all with the environment file's values (deploy/setgames.env.example)
where the check does not need its own (ports, paths, the secret key, the stores' addresses)."""

from __future__ import annotations

import secrets
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from deploy.loopback import Nginx
from tests.conftest import ROOT, Server
from tests.deploy import files
from tests.processes.stores import Postgres, Redis

# Per client address: the check signs up from two loopback addresses to see which one daphne saw.
SIGNUPS_PER_ADDRESS = 3


@dataclass
class Site:
    nginx: Nginx
    servers: list[Server]
    env: dict[str, str]
    static_root: Path


def deployment_env(postgres: Postgres, redis: Redis, static_root: Path) -> dict[str, str]:
    """The environment file's values, with the check's own stores, key and paths."""
    name = f"deploy_{uuid.uuid4().hex[:12]}"
    env = files.env_file()
    env.update(
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=postgres.create_database(name),
        REDIS_URL=redis.url,
        CHANNEL_PREFIX=name,
        DJANGO_STATIC_ROOT=str(static_root),
        RATE_LIMIT_SIGNUPS=f"{SIGNUPS_PER_ADDRESS}/24h",
    )
    return env


def setup(env: dict[str, str]) -> None:
    """setgames-setup.service's commands: migrate, collectstatic."""
    for command in files.unit_commands(files.SETUP_UNIT):
        done = subprocess.run(
            [sys.executable, *command[1:]], cwd=ROOT, env=env, capture_output=True, timeout=300
        )
        assert done.returncode == 0, done.stderr.decode()[-3000:]


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The whole deployment, stopped and removed at the end even when a test fails."""
    postgres, redis = Postgres(), Redis()
    static_root = Path(tempfile.mkdtemp(prefix="setgames-static-"))
    static_root.chmod(0o755)
    servers: list[Server] = []
    nginx = None
    try:
        postgres.start()
        redis.start()
        env = deployment_env(postgres, redis, static_root)
        for number in (1, 2):
            servers.append(
                Server(
                    tmp_path_factory.mktemp(f"daphne{number}"),
                    options=files.daphne_options(),
                    **env,
                )
            )
        setup(servers[0].env)
        for server in servers:
            server.start(migrate=False)
        nginx = Nginx([f"127.0.0.1:{server.port}" for server in servers], env).start()
        yield Site(nginx, servers, env, static_root)
    finally:
        if nginx is not None:
            nginx.destroy()
        for server in servers:
            server.stop()
        redis.destroy()
        postgres.destroy()
        shutil.rmtree(static_root, ignore_errors=True)
