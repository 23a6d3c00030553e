"""deploy/backup.sh and deploy/restore.sh, run as an operator runs them, on the shared PostgreSQL
of `make test-scaled` (skipped on SQLite): a restored database holds every game as it was, each
replays to its stored state, and the live ones play on."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BACKUP = ROOT / "deploy" / "backup.sh"
RESTORE = ROOT / "deploy" / "restore.sh"
URL = os.environ.get("DATABASE_URL", "")

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not URL.startswith("postgres"), reason="backups are of PostgreSQL (make test-scaled)"
    ),
    pytest.mark.skipif(shutil.which("pg_dump") is None, reason="pg_dump is not installed"),
]


def server_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(statement)


@pytest.fixture
def databases():
    """Two database names of this test's own on the suite's server: the first created (empty),
    the second not; both dropped after, whatever happened."""
    names = [f"backup_{side}_{uuid.uuid4().hex[:10]}" for side in ("site", "restored")]
    server_sql(f'CREATE DATABASE "{names[0]}"')
    try:
        yield names
    finally:
        for name in names:
            server_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def url_of(name: str) -> str:
    return URL.split("?")[0].rsplit("/", 1)[0] + "/" + name


def environment(database_url: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL",)}
    env.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="config.settings",
        RATE_LIMIT_MOVES="off",
        RATE_LIMIT_JOINS="off",
    )
    return env


def run(command: list, database_url: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(part) for part in command],
        cwd=ROOT,
        env={**environment(database_url), **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def games(command: str, database_url: str) -> dict:
    done = run([sys.executable, "-m", "tests.deploy.backup_games", command], database_url)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_restored_backup_holds_every_game_and_each_replays_and_plays_on(tmp_path, databases):
    site, restored = databases
    migrated = run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], url_of(site))
    assert migrated.returncode == 0, migrated.stderr
    played = games("play", url_of(site))
    assert {(game["kind"], game["status"]) for game in played.values()} == {
        ("set", "over"),
        ("set", "active"),
        ("square", "over"),
        ("square", "active"),
        ("setwar", "over"),
    }

    backup = run([BACKUP, tmp_path / "backups"], url_of(site))
    assert backup.returncode == 0, backup.stderr
    dump = Path(backup.stdout.strip())
    assert re.fullmatch(rf"setgames-{site}-\d{{8}}T\d{{6}}Z\.dump", dump.name)
    assert [path.name for path in dump.parent.iterdir()] == [dump.name]  # no temporary left
    assert dump.stat().st_mode & 0o077 == 0  # password hashes and sessions: the owner's only

    restore = run([RESTORE, dump, restored], url_of(site))
    assert restore.returncode == 0, restore.stderr
    assert restore.stdout.strip() == restored

    checked = games("check", url_of(restored))
    assert checked["games"] == played  # same ids, versions, move logs and states
    live = {key: game["version"] for key, game in played.items() if game["status"] != "over"}
    assert set(checked["after_one_more_move"]) == set(live)
    assert all(checked["after_one_more_move"][key] > live[key] for key in live)

    again = run([RESTORE, dump, restored], url_of(site))
    assert again.returncode == 1
    assert again.stderr.count("\n") == 1 and "is not empty" in again.stderr
    assert games("check", url_of(site))["games"] == played  # the site's own data is untouched


def test_old_dumps_are_rotated_and_a_failed_backup_leaves_nothing(tmp_path, databases):
    site, _restored = databases
    folder = tmp_path / "backups"
    folder.mkdir()
    old = [f"setgames-{site}-2020010{day}T000000Z.dump" for day in (1, 2, 3)]
    other = f"setgames-{site}-old-20200101T000000Z.dump"  # another database's: kept
    for name in [*old, other]:
        (folder / name).write_bytes(b"")

    done = run([BACKUP], url_of(site), BACKUP_DIR=str(folder), BACKUP_KEEP="2")
    assert done.returncode == 0, done.stderr
    newest = Path(done.stdout.strip()).name
    assert sorted(path.name for path in folder.iterdir()) == sorted([old[2], newest, other])

    failed = run([BACKUP, folder], url_of(f"{site}_missing"))
    assert failed.returncode == 1
    assert failed.stderr.startswith("backup.sh: pg_dump of database") and (
        failed.stderr.count("\n") == 1
    )
    assert sorted(path.name for path in folder.iterdir()) == sorted([old[2], newest, other])

    for script, arguments in ((BACKUP, ["a", "b"]), (RESTORE, [folder / newest])):
        usage = run([script, *arguments], url_of(site), BACKUP_DIR="")
        assert usage.returncode == 2 and usage.stderr.startswith("usage:")
