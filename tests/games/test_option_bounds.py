"""Game options are checked once, when a game is created: what is stored is well formed and
bounded, so no stored game can break a later read or move.

Regressions of two reports by a user of the JSON API:

- ``{"deck": null}`` was accepted by ``POST /api/games/``, and from then on ``GET /api/games/``
  answered 500 for everyone (``len(None)`` in the public options);
- ``declare_ms`` and ``away_ms`` had no upper bound: a table accepted ``10**19`` and its first
  declare failed with a 500, the deadline ``now + declare_ms`` overflowing its 64-bit column.
"""

from __future__ import annotations

import pytest

from cards.engine import parse_card
from games.models import Game, Move
from tests.games.conftest import EXAMPLE_DECK

pytestmark = pytest.mark.django_db

ONE_DAY_MS = 86_400_000


def post(client, url, data, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(url, data, content_type="application/json", **headers)


def create(client, options, kind="set"):
    return post(client, "/api/games/", {"kind": kind, "open": True, "options": options})


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"deck": None}, "deck"),
        ({"rules": "classic", "deck": None}, "deck"),
        ({"deck": {"cards": EXAMPLE_DECK}}, "deck"),
        ({"deck": "ONE/RED/SOLID/DIAMOND"}, "deck"),
        ({"declare_ms": 10**19}, "declare_ms"),
        ({"declare_ms": 2**62}, "declare_ms"),
        ({"declare_ms": ONE_DAY_MS + 1}, "declare_ms"),
        ({"away_ms": 10**19}, "away_ms"),
        ({"rules": "classic", "away_ms": ONE_DAY_MS + 1}, "away_ms"),
        ({"declare_ms": None}, "declare_ms"),
        ({"declare_ms": "5000"}, "declare_ms"),
        ({"rules": "classic", "board_size": 2**70}, "board_size"),
        ({"rules": "classic", "attributes": 3, "board_size": 30}, "board_size"),
        ({"rules": None}, "rules"),
        ({"rules": ["declare"]}, "rules"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_option_is_refused_at_creation_naming_it_and_the_list_still_answers(
    client, options, named
):
    response = create(client, options)

    assert response.status_code == 400, response.content
    assert named in response.json()["detail"]
    assert not Game.objects.exists()
    assert client.get("/api/games/").status_code == 200


@pytest.mark.parametrize("key", ["declare_ms", "away_ms"])
def test_a_clock_of_one_day_is_the_longest_and_it_plays(client, key):
    response = create(client, {"deck": EXAMPLE_DECK, key: ONE_DAY_MS, "start": "now"})
    assert response.status_code == 201, response.content
    game_id = response.json()["id"]
    ann = post(client, f"/api/games/{game_id}/join", {"name": "ann"}).json()["token"]
    bob = post(client, f"/api/games/{game_id}/join", {"name": "bob"}).json()["token"]

    # A declare sets a deadline of now + declare_ms, a lone vote to add one of
    # last_seen + away_ms: both are stored, and both fit.
    assert post(client, f"/api/games/{game_id}/moves", {"type": "add"}, bob).status_code == 200
    declared = post(client, f"/api/games/{game_id}/moves", {"type": "declare"}, ann)

    assert declared.status_code == 200, declared.content
    assert client.get("/api/games/").status_code == 200
    assert client.get(f"/api/games/{game_id}/").status_code == 200
    assert Game.objects.get(pk=game_id).deadline_ms is not None


def test_a_refused_clock_names_its_bound(client):
    detail = create(client, {"declare_ms": 10**19}).json()["detail"]

    assert "declare_ms" in detail and str(ONE_DAY_MS) in detail


def test_a_deck_is_stored_as_protocol_texts_whatever_form_it_was_sent_in(client):
    sent = [parse_card(text).digits for text in EXAMPLE_DECK]  # "0000", "1120", ...
    response = create(client, {"rules": "classic", "deck": sent})

    assert response.status_code == 201, response.content
    game = Game.objects.get(pk=response.json()["id"])
    assert game.options == {"rules": "classic", "deck": EXAMPLE_DECK, "start": "wait"}
    assert response.json()["options"] == {"rules": "classic", "deck_size": 81, "start": "wait"}


def test_a_refused_create_stores_nothing_and_a_later_game_plays(client):
    assert create(client, {"deck": None}).status_code == 400
    response = create(client, {"declare_ms": 5000})

    assert response.status_code == 201
    assert list(Game.objects.values_list("options", flat=True)) == [
        {"rules": "declare", "declare_ms": 5000, "start": "wait"}
    ]
    assert not Move.objects.exists()


def test_the_schema_documents_the_bounds(client):
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    set_options = schema["SetGameCreateRequest"]["properties"]["options"]["properties"]
    square_options = schema["SquareGameCreateRequest"]["properties"]["options"]["properties"]

    for key in ("declare_ms", "away_ms"):
        assert (set_options[key]["minimum"], set_options[key]["maximum"]) == (1, ONE_DAY_MS)
    assert set_options["board_size"]["maximum"] == 243
    assert set_options["deck"]["maxItems"] == 243
    assert square_options["players"]["maximum"] == 4
    placement = square_options["save"]["properties"]["moves"]["items"]["anyOf"][2]["properties"]
    assert placement["x"]["maximum"] == 32 and placement["piece_num"]["maximum"] == 16


def test_a_game_stored_with_a_deck_that_is_no_list_before_the_check_still_lists(client):
    """Rows written before options were checked at creation: the list never answers 500."""
    from games.models import Game

    Game.objects.create(kind="set", options={"rules": "declare", "deck": None}, seed=1)
    answer = client.get("/api/games/")
    assert answer.status_code == 200
    assert answer.json()[0]["options"] == {"rules": "declare", "deck_size": 0}
