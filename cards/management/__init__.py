"""Django management commands of the Set app: thin wrappers around the pure modules."""

from __future__ import annotations

import argparse

from django.core.management.base import CommandParser

__all__ = ["one_line_errors", "positive_int"]


def one_line_errors(parser: CommandParser) -> CommandParser:
    """Make argument errors one line on stderr with exit status 2 when run from a shell.

    From ``call_command`` Django already raises ``CommandError`` instead; argparse's default
    prints the whole usage first, which hides the one line that matters.
    """
    if parser.called_from_command_line:

        def error(message: str) -> None:
            parser.exit(2, f"{parser.prog}: error: {message}\n")

        parser.error = error  # type: ignore[method-assign]
    return parser


def positive_int(text: str) -> int:
    """Read a positive whole number from the command line."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value
