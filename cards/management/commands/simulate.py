"""``manage.py simulate --games N``: play N solitaire games and report what the boards held."""

from __future__ import annotations

import json
import sys

from django.core.management.base import CommandError
from tqdm import tqdm

from cards.engine.errors import SetError
from cards.management import positive_int
from cards.simulate import simulate
from games.commands import OneLineErrorsCommand


class Command(OneLineErrorsCommand):
    help = (
        "Play N games of Set solitaire and report games/s, the share of 12-, 15- and 18-card "
        "boards with no set, the cards left at the end and the mean sets per game."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--games", type=positive_int, required=True, help="number of games (a positive int)"
        )
        parser.add_argument("--seed", type=int, help="deal from this seed (default: random)")
        parser.add_argument(
            "--attributes",
            type=int,
            choices=(3, 4, 5),
            default=4,
            help="3, 4 or 5 attributes: a deck of 27, 81 or 243 cards (default 4)",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            dest="as_json",
            help="end with the report as one JSON object on the last line",
        )

    def handle(self, *args, games=None, seed=None, attributes=4, as_json=False, **options):
        with tqdm(
            total=games if isinstance(games, int) else 0,
            file=sys.stderr,
            unit="game",
            disable=False,
        ) as bar:
            try:
                report = simulate(games, seed=seed, attributes=attributes, progress=bar.update)
            except SetError as error:
                raise CommandError(str(error)) from None
        self.stdout.write(report.format())
        if as_json:
            self.stdout.write(json.dumps(report.to_json()))
