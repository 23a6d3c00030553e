"""A base for the project's management commands: wrong arguments get one line, not the usage.

From a shell, argparse's default prints the whole usage before the one line that matters; a
person (or a script checking stderr) wants just the line, and exit status 2. From
``call_command`` Django raises ``CommandError`` instead, as usual.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser


class OneLineErrorsCommand(BaseCommand):
    def create_parser(self, prog_name, subcommand, **kwargs) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        if parser.called_from_command_line:

            def error(message: str) -> None:
                parser.exit(2, f"{parser.prog}: error: {message}\n")

            parser.error = error  # type: ignore[method-assign]
        return parser
