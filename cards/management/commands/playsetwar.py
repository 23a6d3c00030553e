"""``manage.py playsetwar``: the original Set War program, reading the game from stdin.

It runs exactly what ``python -m cards.playsetwar`` runs (:func:`cards.playsetwar.main`):
one result line on stdout, or one ``error: ...`` line on stderr and exit status 2.
"""

from __future__ import annotations

import sys

from cards.playsetwar import main
from games.commands import OneLineErrorsCommand


class Command(OneLineErrorsCommand):
    help = (
        "Play Set War: read the player count and the cards (top first) from standard input "
        "and print who won in how many rounds."
    )
    # The game needs neither models nor settings checks, and a check warning on stderr
    # would break the one-line contract.
    requires_system_checks = []
    # call_command(..., stdin=stream) feeds the game from a stream, as in the tests.
    stealth_options = ("stdin",)

    def handle(self, *args, **options):
        status = main(
            [], stdin=options.get("stdin") or sys.stdin, stdout=self.stdout, stderr=self.stderr
        )
        if status:
            # Not CommandError: Django would prefix the line and exit with status 1.
            raise SystemExit(status)
