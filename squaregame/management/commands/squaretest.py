"""``manage.py squaretest FILE_OR_DIR... [--players N]``: run Square Game test files."""

from django.core.management.base import CommandError, CommandParser

from games.commands import OneLineErrorsCommand
from squaregame.engine import DEFAULT_PLAYERS, SquareGameError, run_suite


class Command(OneLineErrorsCommand):
    help = (
        "Run Square Game test files of the original simulator's format ({board, moves, "
        "expect}) and print PASS or FAIL per file with the expected and actual statuses. "
        "A folder runs every *.json in it. Exit status 0 only when every file passes."
    )
    # A pure file runner: it needs no database, URLs or models, so skip the system checks.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="test files or folders")
        parser.add_argument(
            "--players",
            type=int,
            default=DEFAULT_PLAYERS,
            choices=(2, 3, 4),
            help=f"number of players to replay with (default {DEFAULT_PLAYERS}, as the original)",
        )

    def handle(self, *args: object, paths: list[str], players: int, **options: object) -> None:
        try:
            report = run_suite(paths, players)
        except SquareGameError as error:
            raise CommandError(str(error), returncode=2) from None
        for line, result in zip(report.lines, report.results, strict=True):
            style = self.style.SUCCESS if result.passed else self.style.ERROR
            self.stdout.write(style(line))
        if not report.passed:
            raise CommandError(report.summary, returncode=1)
        self.stdout.write(report.summary)
