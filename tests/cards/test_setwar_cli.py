"""The Set War program (specs/setwar.md 4-5): `python -m cards.playsetwar` and
`manage.py playsetwar` print one result line, or one error line with exit status 2."""

import doctest
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from cards import playsetwar
from cards.engine.setwar import ALL_CARDS
from cards.playsetwar import main, run

ROOT = Path(__file__).resolve().parents[2]

DECK_A = (
    "0020 2220 1222 0211 2112 1012 1020 1000 1121 1110 1111 0200 0201 0220 0021 0001 2022 "
    "0000 1210 2120 2021 1100 2122 2102 1212 0222 0110 1022 0202 2201 2210 0122 2101 1202 "
    "2020 0101 0011 0112 0012 1220 2221 1002 1201 1101 2011 1021 0102 0210 2010 2222 0121 "
    "2212 0002 2000 1221 0221 1211 1120 1200 1010 0010 1011 2211 2111 2202 2012 1112 2121 "
    "0022 1122 1102 2110 0111 2100 2002 2200 0120 1001 0212 0100 2001"
)
DECK_B = " ".join(DECK_A.split()[53:] + DECK_A.split()[:53])

# The spec's known games, as the original assignment's files lay them out: count, then cards.
KNOWN_GAMES = {
    "c1": (f"4\n{DECK_A}\n", "Player 1 won in 110 rounds.\n"),
    "c2": (f"4\n{DECK_B}\n", "Player 0 won in 210 rounds.\n"),
    "c3": (
        "2\n2001 0100 0212 1001 0120 2200 2002 2100 0111 2110 1102\n",
        "Player 0 won in 1 round.\n",
    ),
    "c4": (f"2\n{DECK_A}\n", "Player 1 won in 22 rounds.\n"),
    "c5": ("2\n0000 1111 1000 2222 1112 0001 0120 2220\n", "Player 0 won in 4 rounds.\n"),
    "c6": ("2\n2220 0120 0001 1112 2222 1000 1111 0000\n", "Player 0 won in 4 rounds.\n"),
    "s1": ("9\n2210 2202 0002 0011 2201 0202 2000 2121 0001 0100\n", "Player 8 won in 2 rounds.\n"),
    "draw": ("4\n1102 2221 0010 2212 0002 2222 0210 0121 1011\n", "Draw after 10000 rounds.\n"),
}

# Every row of the spec's error table, plus the ways of getting there.
INPUT_ERRORS = {
    "empty": ("", "error: missing player count\n"),
    "blank": ("  \n\t\n", "error: missing player count\n"),
    "letters": ("two\n0000 1111\n", "error: invalid player count: two\n"),
    "zero": ("0\n0000 1111\n", "error: invalid player count: 0\n"),
    "negative": ("-3 0000", "error: invalid player count: -3\n"),
    "decimal": ("2.5 0000", "error: invalid player count: 2.5\n"),
    "count-only": ("4\n", "error: no cards\n"),
    "bad-digit": ("2\n0000 1113 2222\n", "error: invalid card: 1113\n"),
    "too-short": ("2\n0000 111\n", "error: invalid card: 111\n"),
    "too-long": ("2\n00000\n", "error: invalid card: 00000\n"),
    "form-first": ("2\n0000 0000 xyz\n", "error: invalid card: xyz\n"),
    "duplicate": ("2\n0000 1111 2222 1111 0000\n", "error: duplicate card: 1111\n"),
    "bad-count-first": ("x 0000 0000", "error: invalid player count: x\n"),
}


def run_module(stdin: bytes, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cards.playsetwar", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def run_manage(stdin: bytes) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run(
        [sys.executable, "manage.py", "playsetwar"],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


# --- In process -------------------------------------------------------------------------------


@pytest.mark.parametrize("game", KNOWN_GAMES, ids=str)
def test_known_games_print_the_spec_line(game):
    text, line = KNOWN_GAMES[game]
    assert run(text) == (0, line, "")


def test_one_line_input_works_too():
    assert run(KNOWN_GAMES["c5"][0].replace("\n", " ")) == (0, "Player 0 won in 4 rounds.\n", "")


@pytest.mark.parametrize("case", INPUT_ERRORS, ids=str)
def test_input_errors_give_one_stderr_line_and_status_2(case):
    text, line = INPUT_ERRORS[case]
    assert run(text) == (2, "", line)


def test_main_uses_the_given_streams():
    stdout, stderr = io.StringIO(), io.StringIO()
    stdin = io.StringIO(KNOWN_GAMES["c3"][0])
    assert main([], stdin=stdin, stdout=stdout, stderr=stderr) == 0
    assert (stdout.getvalue(), stderr.getvalue()) == ("Player 0 won in 1 round.\n", "")


def test_main_reads_bytes_and_survives_bad_utf8():
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main([], stdin=io.BytesIO(b"\xff\xfe 0000"), stdout=stdout, stderr=stderr)
    assert status == 2 and stdout.getvalue() == ""
    assert stderr.getvalue() == "error: invalid player count: \ufffd\ufffd\n"


def test_main_takes_no_arguments_but_help():
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(["game.txt"], stdin=io.StringIO(""), stdout=stdout, stderr=stderr) == 2
    assert stdout.getvalue() == "" and stderr.getvalue().count("\n") == 1
    assert main(["--help"], stdout=stdout, stderr=io.StringIO()) == 0
    assert stdout.getvalue() == playsetwar.USAGE


# --- As a process -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["c1", "c3", "s1"])
def test_module_prints_known_games(game):
    text, line = KNOWN_GAMES[game]
    done = run_module(text.encode())
    assert (done.returncode, done.stdout.decode(), done.stderr.decode()) == (0, line, "")


@pytest.mark.parametrize("case", ["empty", "zero", "count-only", "form-first", "duplicate"])
def test_module_input_errors(case):
    text, line = INPUT_ERRORS[case]
    done = run_module(text.encode())
    assert (done.returncode, done.stdout.decode(), done.stderr.decode()) == (2, "", line)


def test_module_survives_binary_garbage():
    done = run_module(b"\x00\xff\xfe\n\x80 0000\n")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.count(b"\n") == 1 and done.stderr.startswith(b"error: invalid player")


def test_module_refuses_arguments_in_one_line():
    done = run_module(b"2 0000 1111", "deck.txt")
    assert done.returncode == 2 and done.stdout == b"" and done.stderr.count(b"\n") == 1


def test_the_program_runs_without_django():
    code = "import sys, cards.playsetwar; print(sorted(m for m in sys.modules if 'django' in m))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=60, check=True
    )
    assert done.stdout == b"[]\n"


def test_manage_py_command_plays_and_fails_like_the_module():
    done = run_manage(KNOWN_GAMES["c5"][0].encode())
    assert (done.returncode, done.stdout.decode(), done.stderr.decode()) == (
        0,
        "Player 0 won in 4 rounds.\n",
        "",
    )
    done = run_manage(b"2\n0000 0000\n")
    assert (done.returncode, done.stdout.decode(), done.stderr.decode()) == (
        2,
        "",
        "error: duplicate card: 0000\n",
    )


def test_call_command_reads_the_given_stdin():
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command(
        "playsetwar", stdin=io.StringIO(KNOWN_GAMES["c2"][0]), stdout=stdout, stderr=stderr
    )
    assert (stdout.getvalue(), stderr.getvalue()) == ("Player 0 won in 210 rounds.\n", "")
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("playsetwar", stdin=io.StringIO("4\n"), stdout=stdout, stderr=stderr)
    assert exited.value.code == 2
    assert (stdout.getvalue(), stderr.getvalue()) == ("", "error: no cards\n")


# --- Properties -------------------------------------------------------------------------------


def assert_one_outcome(status, out, err):
    """Exactly one line on exactly one stream, with the status that goes with it."""
    if status == 0:
        assert err == "" and out.endswith("\n") and len(out.splitlines()) == 1
        assert out.startswith(("Player ", "Draw after 10000 rounds."))
    else:
        assert status == 2 and out == ""
        assert err.startswith("error: ") and err.endswith("\n") and len(err.splitlines()) == 1


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_crashes(text):
    assert_one_outcome(*run(text))


@settings(max_examples=200, deadline=None)
@given(st.binary())
def test_arbitrary_bytes_on_stdin_never_crash(data):
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main([], stdin=io.BytesIO(data), stdout=stdout, stderr=stderr)
    assert_one_outcome(status, stdout.getvalue(), stderr.getvalue())


_TOKENS = st.one_of(
    st.sampled_from(ALL_CARDS),
    st.sampled_from(ALL_CARDS),
    st.text(alphabet="0123x\u00e9\x00", max_size=5),
)
_GAMES = st.builds(
    lambda count, tokens, space: space.join([count, *tokens]),
    st.one_of(st.integers(0, 12).map(str), st.text(alphabet="0123456789-+x", max_size=4)),
    st.lists(_TOKENS, max_size=30),
    st.sampled_from([" ", "\n", "\t", "\r\n  "]),
)


@settings(max_examples=200, deadline=None)
@given(_GAMES)
def test_near_valid_games_never_crash(text):
    assert_one_outcome(*run(text))


@settings(max_examples=40, deadline=None)
@given(players=st.integers(1, 9), cards=st.permutations(ALL_CARDS))
def test_full_games_always_print_a_result(players, cards):
    text = f"{players}\n{' '.join(cards)}\n"
    outcome = run(text)
    assert outcome[0] == 0 and outcome == run(text)
    assert_one_outcome(*outcome)


def test_module_doctests():
    assert doctest.testmod(playsetwar).failed == 0
