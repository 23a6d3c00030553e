"""The Square Game's play page gets the pieces and the board from the server: the shapes the
engine lays, the board's size and the opening point; its script is one ES module."""

from __future__ import annotations

import json
import re

import pytest

from games import services
from games.models import Player
from squaregame.engine import OPENING_POINT, SIZE, piece_segments, piece_shapes


def test_the_shapes_are_the_placements_at_the_zero_point_and_move_with_it():
    shapes = piece_shapes()
    assert sorted(shapes) == list(range(1, 17))
    for piece, turns in shapes.items():
        assert sorted(turns) == list(range(1, 9))
        for permutation, shape in turns.items():
            assert shape == piece_segments(piece, permutation, 0, 0)
            moved = tuple(((a + 7, b - 3), (c + 7, d - 3)) for (a, b), (c, d) in shape)
            assert moved == piece_segments(piece, permutation, 7, -3)


def json_block(page: str, block_id: str):
    pattern = rf'<script id="{block_id}" type="application/json">(.*?)</script>'
    match = re.search(pattern, page, re.S)
    assert match, block_id
    return json.loads(match.group(1))


@pytest.mark.django_db
def test_the_play_page_sends_the_engines_shapes_the_board_and_loads_one_module(client):
    game = services.game_create(kind="square", options={"players": 2}, is_open=True)
    services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    page = client.get(f"/square/{game.pk}/").content.decode()

    config = json_block(page, "square-config")
    sent = {
        (int(piece), int(permutation)): {tuple(map(tuple, segment)) for segment in shape}
        for piece, turns in config["pieces"].items()
        for permutation, shape in turns.items()
    }
    assert sent == {
        (piece, permutation): set(piece_segments(piece, permutation))
        for piece in range(1, 17)
        for permutation in range(1, 9)
    }
    view = json_block(page, "square-view")
    assert view["size"] == SIZE and view["opening"] == list(OPENING_POINT)
    assert f"The board: {SIZE} by {SIZE} cells" in page
    assert "Seat 2 opens at ({},{}).".format(*OPENING_POINT) in page

    scripts = re.findall(r"<script\b[^>]*>", page)
    sources = [re.search(r'src="([^"]+)"', tag) for tag in scripts]
    assert '<script type="module" src="/static/js/pages/square.js">' in scripts
    # Every script is a module file (the data blocks aside): nothing defines a global.
    for tag, source in zip(scripts, sources, strict=True):
        assert 'type="application/json"' in tag or (source and 'type="module"' in tag), tag


@pytest.mark.django_db
def test_a_waiting_game_nobody_played_at_for_ten_minutes_is_listed_as_idle(client):
    import datetime

    from django.utils import timezone

    from games.models import Game

    quiet = services.game_create(kind="square", options={"players": 2}, is_open=True)
    fresh = services.game_create(kind="square", options={"players": 2}, is_open=True)
    eleven_ago = timezone.now() - datetime.timedelta(minutes=11)
    Game.objects.filter(pk=quiet.pk).update(updated=eleven_ago)
    page = client.get("/square/").content.decode()
    waiting = page[page.index('id="square-waiting"') : page.index('id="square-idle"')]
    idle = page[page.index('id="square-idle"') :]
    assert f'data-game="{fresh.pk}"' in waiting and f'data-game="{quiet.pk}"' not in waiting
    assert f'data-game="{quiet.pk}"' in idle
    assert "Idle games: nobody has played at them for 10 minutes" in page
