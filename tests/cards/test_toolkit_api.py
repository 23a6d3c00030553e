"""The Set toolkit over JSON: /api/set/check, /api/set/find and /api/set/solitaire."""

import pytest

from cards.engine import is_set, parse_card
from tests.examples import PICTURE_001 as BOARD_001

pytestmark = pytest.mark.django_db

SET = ["ONE/GREEN/OPEN/DIAMOND", "TWO/RED/OPEN/DIAMOND", "THREE/PURPLE/OPEN/DIAMOND"]
NOT_SET = ["ONE/GREEN/STRIPED/OVAL", "TWO/GREEN/STRIPED/SQUIGGLE", "THREE/PURPLE/STRIPED/DIAMOND"]


def post(client, url, data):
    return client.post(url, data, content_type="application/json")


def test_check_says_set_and_reports_each_attribute(client):
    response = post(client, "/api/set/check", {"cards": SET})
    assert response.status_code == 200
    body = response.json()
    assert body["is_set"] is True
    assert body["attributes"] == {
        "number": "different",
        "color": "different",
        "shading": "same",
        "shape": "same",
    }
    assert body["cards"][0]["phrase"] == "one green open diamond"


def test_check_names_the_attribute_that_breaks_the_set(client):
    body = post(client, "/api/set/check", {"cards": NOT_SET}).json()
    assert body["is_set"] is False
    assert body["attributes"]["color"] == "neither"


@pytest.mark.parametrize(
    "cards",
    [
        ["0000", "1100", "2200"],
        [
            ["one", "solid", "red", "diamond"],
            ["two", "solid", "green", "diamond"],
            ["three", "solid", "purple", "diamond"],
        ],
        ["one red solid diamond", "two green solid diamonds", "three purple solid diamonds"],
    ],
)
def test_check_accepts_every_text_form(client, cards):
    body = post(client, "/api/set/check", {"cards": cards}).json()
    assert body["is_set"] is True
    assert [card["text"] for card in body["cards"]] == [
        "ONE/RED/SOLID/DIAMOND",
        "TWO/GREEN/SOLID/DIAMOND",
        "THREE/PURPLE/SOLID/DIAMOND",
    ]


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        ({"cards": ["ONE/RED/SOLID/DIAMOND", "FOUR/RED/SOLID/DIAMOND", "0000"]}, "FOUR"),
        ({"cards": SET[:2]}, "3"),
        ({"cards": SET + ["0000"]}, "3"),
        ({"cards": [SET[0], SET[0], SET[1]]}, "ONE/GREEN/OPEN/DIAMOND"),
        ({"cards": [SET[0], 7, SET[1]]}, "7"),
        ({"cards": "ONE/RED/SOLID/DIAMOND"}, "list"),
        ({}, "cards"),
    ],
)
def test_check_rejects_bad_input_with_a_message_naming_it(client, payload, needle):
    response = post(client, "/api/set/check", payload)
    assert response.status_code == 400
    assert needle in response.json()["detail"]


def test_malformed_json_is_a_400_not_a_500(client):
    response = client.post("/api/set/check", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert "JSON" in response.json()["detail"]


def test_find_returns_one_set_and_the_count_on_seed_001s_board(client):
    body = post(client, "/api/set/find", {"cards": [list(card) for card in BOARD_001]}).json()
    assert body["found"] is True
    assert body["count"] == 5
    assert is_set(*(parse_card(card["text"]) for card in body["set"]))
    assert "sets" not in body


def test_find_all_lists_every_set(client):
    body = post(
        client, "/api/set/find", {"cards": [list(c) for c in BOARD_001], "all": True}
    ).json()
    assert len(body["sets"]) == 5
    found = {frozenset(card["text"] for card in one) for one in body["sets"]}
    assert len(found) == 5


def test_find_reports_none_on_a_board_without_a_set(client):
    body = post(client, "/api/set/find", {"cards": NOT_SET[:2]}).json()
    assert body == {"found": False, "count": 0, "set": None}


def test_find_rejects_a_repeated_card(client):
    response = post(client, "/api/set/find", {"cards": [SET[0], SET[1], SET[0]]})
    assert response.status_code == 400
    assert SET[0] in response.json()["detail"]


def test_solitaire_is_reproducible_from_its_seed(client):
    first = post(client, "/api/set/solitaire", {"seed": 7}).json()
    again = post(client, "/api/set/solitaire", {"seed": 7}).json()
    assert first == again
    assert first["found"] == len(first["sets"])
    assert first["cards_left"] == 81 - 3 * first["found"]
    assert first["cards_left"] % 3 == 0 and first["cards_left"] != 3
    for taken in first["sets"]:
        assert is_set(*(parse_card(card["text"]) for card in taken))


@pytest.mark.parametrize("attributes", [3, 4, 5])
def test_solitaire_plays_every_deck_size(client, attributes):
    body = post(client, "/api/set/solitaire", {"seed": 1, "attributes": attributes}).json()
    assert body["attributes"] == attributes
    assert body["cards_left"] == 3**attributes - 3 * body["found"]


def test_solitaire_without_a_seed_returns_the_seed_it_used(client):
    body = post(client, "/api/set/solitaire", {}).json()
    again = post(client, "/api/set/solitaire", {"seed": body["seed"]}).json()
    assert again["sets"] == body["sets"]


@pytest.mark.parametrize("payload", [{"seed": -1}, {"seed": "x"}, {"attributes": 6}])
def test_solitaire_rejects_bad_options(client, payload):
    response = post(client, "/api/set/solitaire", payload)
    assert response.status_code == 400
    assert response.json()["detail"]
