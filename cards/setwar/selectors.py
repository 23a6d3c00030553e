"""Reads for Set War: a stored game's summary and its round log, page by page."""

from __future__ import annotations

from django.urls import reverse

from cards.setwar.rules import deck_of
from games.errors import NotFound
from games.models import Game, Move
from games.rules import get_rules

ROUNDS_LIMIT_DEFAULT = 500
ROUNDS_LIMIT_MAX = 1000


def setwar_get(game_id) -> Game:
    """Return the Set War game with that id, or raise NotFound (404) naming it."""
    try:
        return Game.objects.get(pk=int(game_id), kind=Game.Kind.SETWAR)
    except (Game.DoesNotExist, ValueError, TypeError, OverflowError):
        raise NotFound(f"There is no Set War game with id {game_id}.") from None


def setwar_summary(game: Game) -> dict:
    """What a client needs to show a stored game: the deal, the result and where to read on."""
    state = game.state
    rules = get_rules(game.kind)
    dealt = rules.new(options=game.options, seed=game.seed, now_ms=game.created_ms)
    return {
        "id": game.pk,
        "kind": game.kind,
        "status": game.status,
        "players": state["players"],
        "seed": game.seed,
        "shuffled": "cards" not in game.options,
        "deck": deck_of(game.options, game.seed),
        "dealt": [len(pile) for pile in dealt["piles"]],
        "rounds": state["round"],
        "winner": state["winner"],
        "draw": state["draw"],
        "final_line": state["final_line"],
        "piles": [len(pile) for pile in state["piles"]],
        "url": reverse("setwar-game", args=[game.pk]),
        "api_url": reverse("setwar-detail", args=[game.pk]),
        "rounds_url": reverse("setwar-rounds", args=[game.pk]),
        "created": game.created.isoformat(),
    }


def setwar_rounds(game: Game, *, start: int, limit: int) -> dict:
    """Return rounds ``start + 1`` to ``start + limit`` of the log, read from the moves."""
    total = game.state["round"]
    outcomes = list(
        Move.objects.filter(game=game, seq__gt=start, seq__lte=start + limit)
        .order_by("seq")
        .values_list("outcome", flat=True)
    )
    following = start + len(outcomes)
    next_url = None
    if following < total:
        next_url = f"{reverse('setwar-rounds', args=[game.pk])}?start={following}&limit={limit}"
    return {
        "game": game.pk,
        "start": start,
        "limit": limit,
        "total": total,
        "next": next_url,
        "rounds": outcomes,
    }
