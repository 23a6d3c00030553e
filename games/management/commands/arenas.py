"""manage.py arenas: make the recurring arenas ahead and move every tournament on by the clock.

A deployment runs it every minute (cron, a systemd timer); `make run` alone needs it not: the
tournaments' list and pages do the same work on the next request that needs it
(games.tournaments.arenas_ensure).
"""

from __future__ import annotations

from games import tournaments
from games.commands import OneLineErrorsCommand


class Command(OneLineErrorsCommand):
    help = (
        "Make the recurring arena tournaments ahead; start, seat and end tournaments by the clock."
    )

    def handle(self, *args, **options) -> None:
        made = tournaments.arenas_ensure(force=True)
        self.stdout.write(f"{made} arena(s) made.")
