"""The Square Game's "new game" form has a Rated box for accounts (issue 16, item 3), as the Set
lobby's: an account's game made with it is rated; a guest sees no box, and a guest's form that
says rated anyway makes an unrated game."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.models import Game, Player

pytestmark = pytest.mark.django_db
FORM = {"players": "2", "computers": "0", "speed": "fast"}


def test_an_account_creates_a_rated_game_with_the_box(client):
    get_user_model().objects.create_user("ann", password="correct horse battery")
    client.login(username="ann", password="correct horse battery")
    assert 'name="rated"' in client.get("/square/").content.decode()

    made = client.post("/square/", {**FORM, "name": "ann", "rated": "on"})
    assert made.status_code == 302
    game = Game.objects.get()
    assert game.kind == "square" and game.rated
    assert "A rated game" in client.get(made.url).content.decode()


def test_an_account_without_the_box_creates_an_unrated_game(client):
    get_user_model().objects.create_user("ann", password="correct horse battery")
    client.login(username="ann", password="correct horse battery")
    assert client.post("/square/", {**FORM, "name": "ann"}).status_code == 302
    assert not Game.objects.get().rated


def test_a_guest_sees_no_box_and_its_rated_post_makes_an_unrated_game(client):
    assert 'name="rated"' not in client.get("/square/").content.decode()
    made = client.post("/square/", {**FORM, "name": "guest1", "rated": "on"})
    assert made.status_code == 302
    game = Game.objects.get()
    assert not game.rated
    assert "A rated game" not in client.get(made.url).content.decode()


def _lobby_row(client, game_id: int) -> str:
    page = client.get("/square/").content.decode()
    link = page.index(f"/square/{game_id}/")
    return page[page.rindex("<tr", 0, link) : page.index("</tr>", link)]


def test_the_lobby_marks_a_rated_game_rated_while_it_rates_and_unrated_with_why(client):
    get_user_model().objects.create_user("ann", password="correct horse battery")
    client.login(username="ann", password="correct horse battery")
    client.post("/square/", {**FORM, "name": "ann", "rated": "on"})
    game = Game.objects.get()
    assert 'badge-rated">rated' in _lobby_row(client, game.pk)
    # A seat with no account (a row stored before rated tables refused guests): the lobby says
    # the game does not rate, and why, as its page and the API do, not what was stored.
    guest = Player.objects.create(name="gus")
    game.seats.create(player=guest, number=2, name="gus", token="t" * 20)
    row = _lobby_row(client, game.pk)
    assert "badge-rated" not in row
    assert 'title="gus has no account: a rated game seats accounts only.">unrated' in row
