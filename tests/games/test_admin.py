"""The admin shows games with filters, their seats, the move log and state, and exports JSON."""

from __future__ import annotations

import json

import pytest

from games import services
from games.models import Player
from tests.games.conftest import EXAMPLE_DECK

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="x" * 12))
    return client


@pytest.fixture
def played():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "declare", "deck": EXAMPLE_DECK}
    )
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="alice"))
    services.move_submit(game_id=game.pk, seat=seat, action={"type": "declare"})
    return game


def test_game_list_filters_by_kind_and_status(staff, played):
    page = staff.get("/admin/games/game/?kind__exact=set&status__exact=active")
    assert page.status_code == 200
    assert f"Set #{played.pk}" in page.content.decode() or str(played.pk) in page.content.decode()
    empty = staff.get("/admin/games/game/?status__exact=over").content.decode()
    assert "0 games" in empty


def test_game_page_shows_seats_moves_and_the_state(staff, played):
    page = staff.get(f"/admin/games/game/{played.pk}/change/").content.decode()
    assert "alice" in page
    assert "declare" in page  # the move log inline
    assert "&quot;declarer&quot;: &quot;alice&quot;" in page  # the state, pretty-printed
    assert f"/admin/games/game/{played.pk}/export/" in page


def test_export_downloads_the_game_and_its_log(staff, played):
    response = staff.get(f"/admin/games/game/{played.pk}/export/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="game-{played.pk}.json"'
    data = json.loads(response.content)
    assert [move["action"]["type"] for move in data["moves"]] == ["join", "declare"]


def test_export_needs_staff(client, played):
    response = client.get(f"/admin/games/game/{played.pk}/export/")
    assert response.status_code == 302
