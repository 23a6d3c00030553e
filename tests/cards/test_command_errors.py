"""Every command answers wrong arguments from a shell with one line and exit status 2."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["playset", "--attributes", "7"], "--attributes"),
        (["simulate", "--games", "x"], "--games"),
        (["playsetwar", "--bogus"], "--bogus"),
        (["squaretest", "--players", "x", "tests/squaregame/json"], "--players"),
    ],
)
def test_wrong_arguments_get_one_line_and_status_2(argv, needle):
    result = subprocess.run(
        [sys.executable, "manage.py", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr
