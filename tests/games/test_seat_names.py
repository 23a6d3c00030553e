"""At one table, two seats never have names that look alike (issue 23): the second join of
`Ann` and `ann`, `Tim` and `TIM`, `Zoë` and `ZOË`, `ada` and a Cyrillic `аda` is a 409, on every
way in that takes the site's names. The text protocol keeps its own grammar and its names as the
spec has them: case-sensitive (a protocol name is its own identity)."""

from __future__ import annotations

import doctest
import importlib

import pytest

from games.models import Game, Seat
from tests.accounts.test_tokens import CLASSIC, post

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "first, second",
    [("Ann", "ann"), ("Tim", "TIM"), ("Zoë", "ZOË"), ("ada", "\u0430da"), ("bob", "ｂｏｂ")],
)
def test_a_second_seat_whose_name_looks_like_a_seated_one_is_a_409(client, first, second):
    game = post(client, "/api/games/", CLASSIC).json()
    assert post(client, f"/api/games/{game['id']}/join", {"name": first}).status_code == 201
    refused = post(client, f"/api/games/{game['id']}/join", {"name": second})
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": f"The name {second!r} is taken at this game.",
        "code": "name_taken",
    }
    assert list(Seat.objects.filter(game_id=game["id"]).values_list("name", flat=True)) == [first]


def test_names_that_do_not_look_alike_sit_together(client):
    game = post(client, "/api/games/", CLASSIC).json()
    for name in ("ann", "anne", "Ólafur", "olafur"):
        joined = post(client, f"/api/games/{game['id']}/join", {"name": name})
        assert joined.status_code == 201, (name, joined.json())


def test_the_protocol_s_names_stay_case_sensitive_as_its_spec_has_them(client):
    assert client.get("/look/Ann").status_code == 200
    assert client.get("/look/ann").status_code == 200
    table = Game.objects.get(is_default=True)
    assert {"Ann", "ann"} <= set(table.state["players"])


def test_a_protocol_name_may_not_look_like_a_seat_joined_another_way(client):
    table = client.get("/look/zed")
    game_id = int(table["X-Table-Id"])
    joined = post(client, f"/api/games/{game_id}/join", {"name": "Tim"})
    assert joined.status_code == 201, joined.json()
    refused = client.get("/look/TIM")
    assert refused.status_code == 404
    assert refused.content.decode() == "The name 'TIM' is taken at this game.\n"
    # And a browser or a token client may not take a look-alike of a protocol player's name.
    refused = post(client, f"/api/games/{game_id}/join", {"name": "ZED"})
    assert refused.status_code == 409


def test_the_name_rule_s_examples_hold():
    result = doctest.testmod(importlib.import_module("games.names"))
    assert result.failed == 0 and result.attempted >= 4
