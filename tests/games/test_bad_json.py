"""JSON that Python reads but a game cannot keep is refused with a 4xx, never a 500.

- JSON nested a few thousand levels deep makes Python's json module raise RecursionError (not
  ValueError): the API's parser, the statistics page's runs (/stats/runs), the Square Game save
  upload (page and admin) and the WebSocket (tests/games/test_websocket_frames.py) refuse it as
  malformed.
- An action is stored in the move log, a JSON column: a number too large for a float (1e999
  reads as infinity) or an unpaired surrogate (``"\\udc00"``; PostgreSQL refuses it) is refused
  before anything is applied, through the JSON API and the WebSocket alike; so is a NUL
  character (``"\\u0000"``), which PostgreSQL's jsonb cannot store.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games.models import Game, Move

pytestmark = pytest.mark.django_db

DEEP = "[" * 5000


@pytest.fixture
def client(client):
    client.raise_request_exception = False  # a 500 is an answer to check, not an exception
    return client


@pytest.mark.parametrize(
    "url", ["/api/games/", "/api/set/check", "/api/set/find", "/api/setwar/", "/api/square/import"]
)
def test_deeply_nested_json_is_a_400_everywhere_in_the_api(client, url):
    response = client.post(url, DEEP, content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    assert "nested too deeply" in response.json()["detail"]


def test_deeply_nested_json_starting_a_simulation_is_a_400_with_a_sentence(client):
    response = client.post("/stats/runs", "[" * 100_000, content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    assert response.json()["detail"] == "The body is not JSON: it is nested too deeply."


def classic_game_and_token(client) -> tuple[dict, str]:
    game = client.post(
        "/api/games/",
        {"kind": "set", "open": True, "options": {"start": "now", "rules": "classic"}},
        "application/json",
    ).json()
    joined = client.post(f"/api/games/{game['id']}/join", {"name": "ann"}, "application/json")
    return game, joined.json()["token"]


def test_deeply_nested_json_in_a_join_or_a_move_changes_nothing(client):
    game, token = classic_game_and_token(client)
    before = Game.objects.get(pk=game["id"]).version, Move.objects.count()
    join = client.post(f"/api/games/{game['id']}/join", DEEP, content_type="application/json")
    move = client.post(
        f"/api/games/{game['id']}/moves",
        '{"type": "hint", "x": ' + DEEP + "}",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert (join.status_code, move.status_code) == (400, 400)
    assert (Game.objects.get(pk=game["id"]).version, Move.objects.count()) == before


@pytest.mark.parametrize(
    "body",
    [
        '{"type": "hint", "note": 1e999}',
        '{"type": "hint", "note": [-1e400]}',
        '{"type": "hint", "note": "\\udc00"}',
        '{"type": "hint", "\\ud800": 1}',
        '{"type": "hint", "note": {"a\\u0000": "\\u0000"}}',
    ],
)
def test_an_action_the_move_log_cannot_store_is_a_400(client, body):
    game, token = classic_game_and_token(client)
    before = Game.objects.get(pk=game["id"]).version, Move.objects.count()
    response = client.post(
        f"/api/games/{game['id']}/moves",
        body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert response.status_code == 400, response.content[:200]
    assert "plain JSON" in response.json()["detail"]
    assert (Game.objects.get(pk=game["id"]).version, Move.objects.count()) == before


def test_a_deeply_nested_save_file_is_refused_on_the_page_and_in_the_admin(
    client, django_user_model
):
    count = Game.objects.count()
    upload = SimpleUploadedFile("game.json", DEEP.encode(), "application/json")
    page = client.post("/square/import", {"import_players": "2", "save_file": upload})
    assert page.status_code == 400
    assert "not a JSON save file" in page.content.decode()

    client.force_login(django_user_model.objects.create_superuser("root", password="x" * 12))
    upload = SimpleUploadedFile("game.json", DEEP.encode(), "application/json")
    admin = client.post("/admin/games/game/import-save/", {"players": "2", "save_file": upload})
    assert admin.status_code == 400
    assert "nested too deeply" in admin.content.decode()
    assert Game.objects.count() == count


def test_text_that_only_looks_like_a_nul_escape_is_stored(client):
    game, token = classic_game_and_token(client)
    response = client.post(
        f"/api/games/{game['id']}/moves",
        '{"type": "hint", "note": "C:\\\\u0000dir"}',
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert response.status_code == 200, response.content  # accepted: no NUL in it
    # Stored as the rules read it: the note is no field of theirs.
    assert Move.objects.filter(game_id=game["id"]).last().action == {"type": "hint"}


def test_an_unknown_format_parameter_is_ignored_not_a_bare_404(client):
    """DRF took ?format=<anything> for a renderer's name and answered 404 "Not found." (found by
    the schema fuzz on /api/lobby/chat); now it is ignored, as any unknown parameter is."""
    for path in ("/api/lobby/chat", "/api/games/", "/api/leaderboard/set-classic"):
        answer = client.get(path, {"format": "àa\U000516af", "since": "1"})
        assert answer.status_code == 200, (path, answer.content[:200])
        assert answer["Content-Type"].startswith("application/json")
    schema = client.get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200 and schema.json()["openapi"]
