"""Temporary names for the event loop's services while the ways in move to games.services
(deleted once nothing calls them)."""

from __future__ import annotations

from games import services, store


async def seat_by_token(token):
    return await store.aseat_by_token(token)


async def current(game_id):
    return await services.ahead(game_id)


async def fresh(game_id):
    return await services.agame_fresh(game_id)


async def move(*, game_id, seat, action, now=None):
    return await services.amove(game_id=game_id, seat=seat, action=action, now=now)
