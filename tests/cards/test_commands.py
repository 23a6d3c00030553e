"""The playset and simulate management commands."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cards.solitaire import SetGame

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_playset_quiet_prints_the_sets_found():
    out = io.StringIO()
    call_command("playset", "--quiet", "--seed", "5", stdout=out)
    lines = out.getvalue().splitlines()
    found, sets = SetGame(seed=5).play_quiet()
    assert lines[0] == f"Sets discovered: {found} (seed 5, {81 - 3 * found} cards left)."
    assert len(lines) == 1 + found
    assert lines[1] == f"  1. {' | '.join(card.phrase for card in sets[0])}"


def test_playset_plays_aloud_by_default():
    out = io.StringIO()
    call_command("playset", "--seed", "5", "--attributes", "3", stdout=out)
    text = out.getvalue()
    found, _ = SetGame(seed=5, attributes=3).play_quiet()
    assert text.startswith("Set solitaire: 27 cards, seed 5.")
    assert "\nBoard: 12 cards, 15 left in the deck.\n   1. " in text  # one card a line
    assert f"Sets discovered: {found}." in text


def test_bad_arguments_raise_command_errors():
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("playset", "--attributes", "7")
    with pytest.raises(CommandError, match="invalid int value"):
        call_command("playset", "--seed", "abc")
    with pytest.raises(CommandError, match="'0' is not a positive whole number"):
        call_command("simulate", "--games", "0")
    with pytest.raises(CommandError, match="'ten' is not a positive whole number"):
        call_command("simulate", "--games", "ten")
    with pytest.raises(CommandError, match="positive whole number"):
        call_command("simulate", games=-3)
    with pytest.raises(CommandError, match="the following arguments are required: --games"):
        call_command("simulate")


def test_simulate_reports_and_ends_with_one_json_line(capsys):
    out = io.StringIO()
    call_command("simulate", "--games", "400", "--seed", "2", "--json", stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert lines[0].startswith("Played 400 games of 81-card Set solitaire (seed 2) in ")
    assert any(line.startswith("  12 cards: ") for line in lines)
    assert any(line.startswith("Mean sets per game: ") for line in lines)
    data = json.loads(lines[-1])
    assert data["games"] == 400 and sum(data["leftover"].values()) == 400
    for key in (
        "seconds",
        "games_per_second",
        "p_no_set_12",
        "p_no_set_15",
        "p_no_set_18",
        "mean_sets",
    ):
        assert key in data
    assert "400/400" in capsys.readouterr().err  # the progress bar goes to stderr


def test_simulate_from_the_shell():
    done = run("simulate", "--games", "300", "--seed", "4", "--attributes", "5", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["attributes"] == 5 and data["games"] == 300
    assert "300/300" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "--games", "0"], "argument --games: '0' is not a positive whole number"),
        (["playset", "--attributes", "6"], "argument --attributes: invalid choice: 6"),
    ],
)
def test_bad_arguments_from_the_shell_give_one_line(args, message):
    done = run(*args)
    assert done.returncode != 0
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert message in done.stderr
