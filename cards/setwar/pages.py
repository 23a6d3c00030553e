"""The Set War page: deal a game (cards typed in, or a shuffle) and watch it round by round.

The page is drawn in the browser (static/js/pages/setwar.js and static/js/setwar/) from the JSON
API: ``POST /api/setwar/`` plays and stores a game, ``GET /api/setwar/<id>/rounds`` pages through
its rounds. The view only chooses what the template needs, the deck's words included (the page
draws and names cards from them); ``/setwar/<id>/`` opens a stored game.
"""

from __future__ import annotations

from django.http import Http404
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from cards.engine.card import deck_table
from cards.setwar.selectors import ROUNDS_LIMIT_DEFAULT, setwar_get
from games.errors import GameError

# The original assignment's sample input (specs/setwar.md, deck A): with 4 players,
# "Player 1 won in 110 rounds."
SAMPLE_PLAYERS = 4
SAMPLE_CARDS = (
    "0020 2220 1222 0211 2112 1012 1020 1000 1121 1110 1111 0200 0201 0220 0021 0001 2022 "
    "0000 1210 2120 2021 1100 2122 2102 1212 0222 0110 1022 0202 2201 2210 0122 2101 1202 "
    "2020 0101 0011 0112 0012 1220 2221 1002 1201 1101 2011 1021 0102 0210 2010 2222 0121 "
    "2212 0002 2000 1221 0221 1211 1120 1200 1010 0010 1011 2211 2111 2202 2012 1112 2121 "
    "0022 1122 1102 2110 0111 2100 2002 2200 0120 1001 0212 0100 2001"
)
# The card the form's hint spells out.
EXAMPLE_CARD = "1201"


@require_GET
def setwar_page(request, game_id: int | None = None):
    """The form for a new game, and the viewer of the game at ``/setwar/<id>/`` if any."""
    game = None
    if game_id is not None:
        try:
            game = setwar_get(game_id)
        except GameError as error:
            raise Http404(error.message) from None
    deck = deck_table(4, key="digits")
    config = {
        "game": game.pk if game else None,
        "create_url": reverse("setwar-create"),
        "detail_url": reverse("setwar-detail", args=[game.pk]) if game else None,
        "detail_pattern": reverse("setwar-detail", args=[0]).replace("/0/", "/{id}/"),
        "page_url": reverse("setwar"),
        "page_size": ROUNDS_LIMIT_DEFAULT,
        "csrf": get_token(request),
        "sample": {"players": SAMPLE_PLAYERS, "cards": SAMPLE_CARDS},
        "deck": deck,
    }
    example = {"card": EXAMPLE_CARD, "phrase": deck[EXAMPLE_CARD][1]}
    return render(request, "setwar.html", {"game": game, "config": config, "example": example})
