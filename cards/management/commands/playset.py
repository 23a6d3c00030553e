"""``manage.py playset``: play one game of Set solitaire aloud, or quietly with ``--quiet``."""

from __future__ import annotations

from django.core.management.base import CommandError

from cards.engine.errors import SetError
from cards.solitaire import SetGame
from games.commands import OneLineErrorsCommand


class Command(OneLineErrorsCommand):
    help = (
        "Play one game of Set solitaire with the physical rules: print every board and set, "
        "or with --quiet only the sets found."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "-q", "--quiet", action="store_true", help="print only the sets found, not the boards"
        )
        parser.add_argument("--seed", type=int, help="deal from this seed (default: random)")
        parser.add_argument(
            "--attributes",
            type=int,
            choices=(3, 4, 5),
            default=4,
            help="3, 4 or 5 attributes: a deck of 27, 81 or 243 cards (default 4)",
        )

    def handle(self, *args, quiet=False, seed=None, attributes=4, **options):
        try:
            game = SetGame(seed=seed, attributes=attributes)
        except SetError as error:
            raise CommandError(str(error)) from None
        if not quiet:
            game.play(out=self.stdout)
            return
        found, sets = game.play_quiet()
        left = len(game.deck) - 3 * found
        self.stdout.write(f"Sets discovered: {found} (seed {game.seed}, {left} cards left).")
        for number, taken in enumerate(sets, start=1):
            self.stdout.write(f"{number:3d}. {' | '.join(card.phrase for card in taken)}")
