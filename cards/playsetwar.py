"""The original Set War program: read a game from standard input and print who won.

Run it as `python -m cards.playsetwar < game.txt` (or `python manage.py playsetwar`). The
input is the player count followed by the cards, top of the deck first, separated by any
whitespace. On success it prints one line (`Player 1 won in 110 rounds.`) and exits 0; on
bad input it prints one `error: ...` line on stderr, nothing on stdout, and exits 2
(specs/setwar.md, section 4).

No Django here: the management command is a thin wrapper around `main`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, Any

from cards.engine.setwar import SetWarError, parse_input, play_setwar

__all__ = ["EXIT_INPUT_ERROR", "USAGE", "main", "read_text", "run"]

EXIT_INPUT_ERROR = 2
"""The exit status for input the program cannot play."""

USAGE = """\
usage: python -m cards.playsetwar < game.txt

Play Set War. Standard input holds the number of players, then the cards (four digits
from 0, 1, 2 each), top of the deck first, separated by spaces or newlines. Prints
"Player N won in R rounds." or "Draw after 10000 rounds."; bad input gets one
"error: ..." line on stderr and exit status 2.
"""


def read_text(stream: IO[Any]) -> str:
    """Return all of `stream` as text, never failing on bytes that are not UTF-8.

    A text stream's bytes are read from its buffer when it has one, so stray bytes become
    U+FFFD in an error message instead of a UnicodeDecodeError traceback.
    """
    data = getattr(stream, "buffer", stream).read()
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


def run(text: str) -> tuple[int, str, str]:
    """Play the game an input describes; return the exit status, stdout and stderr text.

    >>> run("2\\n0000 1111 1000 2222 1112 0001 0120 2220\\n")
    (0, 'Player 0 won in 4 rounds.\\n', '')
    >>> run("2 0000 0000")
    (2, '', 'error: duplicate card: 0000\\n')
    """
    try:
        players, cards = parse_input(text)
    except SetWarError as error:
        return EXIT_INPUT_ERROR, "", f"error: {error}\n"
    result = play_setwar(players, cards, record=False)
    return 0, f"{result.final_line}\n", ""


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: IO[Any] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run the program on the given streams (the process's by default); return the status.

    The program takes no arguments (only `-h`/`--help`): the game comes from standard input.
    """
    argv = sys.argv[1:] if argv is None else argv
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    if list(argv) in (["-h"], ["--help"]):
        stdout.write(USAGE)
        return 0
    if argv:
        stderr.write("error: playsetwar takes no arguments; give the game on standard input\n")
        return EXIT_INPUT_ERROR
    status, out, err = run(read_text(sys.stdin if stdin is None else stdin))
    if out:
        stdout.write(out)
    if err:
        stderr.write(err)
    return status


if __name__ == "__main__":
    sys.exit(main())
