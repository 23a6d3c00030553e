"""A guest cannot take an account's name at a table (issue 16), and seats say who is a guest."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import selectors, services
from games.auth import ACCOUNT_NAME_TAKEN
from games.models import Game, Player, Seat
from tests.accounts.test_tokens import CLASSIC, account, post

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["ada", "ADA", "Ada"])
def test_a_guest_joining_under_an_account_s_name_is_409_and_seats_nobody(client, name):
    account(client, "ada")
    game = post(client, "/api/games/", CLASSIC).json()
    refused = post(client, f"/api/games/{game['id']}/join", {"name": name})
    assert refused.status_code == 409
    assert refused.json() == {"detail": ACCOUNT_NAME_TAKEN}
    assert not Seat.objects.filter(game_id=game["id"]).exists()
    assert not Player.objects.filter(user__isnull=True).exists()


def test_the_account_itself_joins_and_seats_say_who_is_a_guest(client):
    ada = account(client, "ada")
    game = post(client, "/api/games/", CLASSIC).json()
    mine = post(client, f"/api/games/{game['id']}/join", {"name": "ada"}, ada)
    assert mine.status_code == 201, mine.json()
    assert mine.json()["seat"] == {
        "number": 0,
        "name": "ada",
        "score": 0,
        "is_computer": False,
        "guest": False,
        "bot": False,
    }
    guest = post(client, f"/api/games/{game['id']}/join", {"name": "zoe"})
    assert guest.status_code == 201 and guest.json()["seat"]["guest"] is True
    flags = {seat["name"]: seat["guest"] for seat in guest.json()["game"]["seats"]}
    assert flags == {"ada": False, "zoe": True}
    seat = {"HTTP_AUTHORIZATION": f"Token {mine.json()['token']}"}
    computer = client.post(f"/api/games/{game['id']}/computers", b"{}", "application/json", **seat)
    assert computer.status_code == 201 and computer.json()["guest"] is False
    detail = client.get(f"/api/games/{game['id']}/").json()
    flags = {seat["name"]: seat["guest"] for seat in detail["seats"]}
    assert flags == {"ada": False, "zoe": True, computer.json()["name"]: False}
    listed = client.get("/api/games/").json()
    assert {s["name"]: s["guest"] for s in listed[0]["seats"]} == flags


def test_the_lobby_name_form_refuses_an_account_s_name_to_a_guest():
    user = get_user_model().objects.create_user("ada", password="correct horse battery")
    browser = Client()
    assert browser.post("/name", {"name": "ADA"})["Location"] == "/"
    page = browser.get("/")
    assert ACCOUNT_NAME_TAKEN.encode() in page.content.replace(b"&#x27;", b"'")
    assert not Player.objects.exists()
    browser.force_login(user)
    assert browser.post("/name", {"name": "ada"}).status_code == 302
    assert Player.objects.get().user == user


def test_the_protocol_refuses_a_new_seat_under_an_account_s_name(client):
    get_user_model().objects.create_user("ada")
    answer = client.get("/look/Ada")
    assert answer.status_code == 404
    assert answer.content.decode().strip() == ACCOUNT_NAME_TAKEN
    table = services.default_table()
    assert "Ada" not in Game.objects.get(pk=table.pk).state["players"]
    assert client.get("/look/bob").status_code == 200


def test_a_game_read_loads_its_seats_players_in_one_query_whatever_the_seats(
    client, django_assert_num_queries
):
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    for name in ("ann", "bob", "cid", "dee"):
        services.game_join(game_id=game.pk, name=name)
    row = selectors.game_row(game.pk)
    with django_assert_num_queries(1):
        seats = selectors.game_summary(row)["seats"]
    assert [seat["guest"] for seat in seats] == [True] * 4
