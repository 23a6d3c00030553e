"""Commands behave like shell tools when their reader goes away early."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_playset_piped_into_a_closed_reader_prints_no_traceback():
    process = subprocess.Popen(
        [sys.executable, "manage.py", "playset", "--seed", "7"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # like `| head -0`: the reader is gone before the first line
    stderr = process.stderr.read().decode()
    process.wait(timeout=60)
    assert "Traceback" not in stderr
