"""``manage.py squaretest``: run test files of the original format from the command line."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from squaregame.engine.runner import run_suite

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "manage.py").exists())


def squaretest(*args):
    out = StringIO()
    call_command("squaretest", *map(str, args), stdout=out, no_color=True)
    return out.getvalue()


def test_the_original_files_all_pass(shared_tests):
    output = squaretest(shared_tests)
    lines = output.splitlines()
    assert len(lines) == 9 and all(line.startswith("PASS ") for line in lines[:8])
    assert "full_game.json: expected [2, 0, 0, 0, 0, 1," in output
    assert lines[-1] == "8 of 8 test files passed"


def test_our_own_folder_passes(json_tests):
    assert squaretest(json_tests).splitlines()[-1].endswith("test files passed")


def test_a_failing_file_prints_both_lists_and_exits_1(tmp_path, shared_tests):
    wrong = tmp_path / "wrong.json"
    wrong.write_text(
        json.dumps({"board": [], "moves": [{"piece_num": 13, "permutation": 4}], "expect": [1]})
    )
    out = StringIO()
    with pytest.raises(CommandError, match="1 of 2 test files passed") as caught:
        call_command("squaretest", str(wrong), str(shared_tests / "tested_store.json"), stdout=out)
    assert caught.value.returncode == 1
    assert f"FAIL {wrong}: expected [1], actual [2]" in out.getvalue()


def test_players_option_changes_the_seat_count(shared_tests):
    with pytest.raises(CommandError):
        squaretest(shared_tests / "3_squares.json", "--players", "2")
    assert "PASS" in squaretest(shared_tests / "tested_store.json", "--players", "3")


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), ("{", "not valid JSON"), ("[]", "must be a JSON object")],
)
def test_a_missing_or_malformed_file_stops_with_one_line(tmp_path, content, message):
    path = tmp_path / "test.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(CommandError, match=message) as caught:
        squaretest(path)
    assert caught.value.returncode == 2


def test_the_real_command_line_has_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "squaretest", str(tmp_path / "missing.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"CommandError: {tmp_path / 'missing.json'}: no such file or folder"
    ]


def test_the_runner_reads_every_json_of_a_folder(json_tests):
    report = run_suite([json_tests])
    assert [r.name for r in report.results] == sorted(str(p) for p in json_tests.glob("*.json"))
