"""The rules of the options of each kind, as one JSON document the server sends (the lobby's
form embeds it, ``GET /api/options`` answers it): which choices the server accepts, which of
them can be rated and why not, and who may sit at a table. Built from the kinds' own rules (each
choice is checked by the kind's ``options``, its rating by games.ratings), so a form that offers
only what this document allows offers only what the server takes, and no rule is written twice.
"""

from __future__ import annotations

import functools

from games import ratings
from games.errors import RuleError
from games.models import Game
from games.rules import get_rules, kinds


@functools.cache
def option_rules() -> dict:
    """The document: ``{"kinds": {kind: kind_rules(kind)}}`` (the same for every request)."""
    return {"kinds": {kind: kind_rules(kind) for kind in kinds()}}


def kind_rules(kind: str) -> dict:
    """One kind's rules: its seats, whether and how it is rated, and each choice of its form
    (``option_choices``: the Set table's) accepted or refused, rated or not, with the
    server's own sentences."""
    rules = get_rules(kind)
    can_rate = ratings.can_rate(kind)
    entry = {
        "label": Game.Kind(kind).label,
        "seats": {"min": rules.min_seats, "max": rules.max_seats},
        "rated": {
            "can_rate": can_rate,
            "modes": dict(getattr(rules, "rating_modes", {})),
            "never": None if can_rate else ratings.options_refusal(kind, {}),
            # Who sits at a table created rated, and how many play for it to rate.
            "seats": ratings.RATED_SEATS if can_rate else None,
            "min_players": ratings.RATED_MIN_PLAYERS if can_rate else None,
            "unrated_by": getattr(rules, "unrated_by", None) if can_rate else None,
        },
        "choices": [],
    }
    for fields, options in getattr(rules, "option_choices", list)():
        try:
            checked = rules.options(options)
        except RuleError as error:
            entry["choices"].append(
                {"fields": fields, "accepted": False, "refused": error.message}
                | {"rated": False, "unrated": None}
            )
            continue
        why = ratings.options_refusal(kind, checked)
        entry["choices"].append(
            {"fields": fields, "accepted": True, "refused": None}
            | {"rated": why is None, "unrated": why}
        )
    return entry
