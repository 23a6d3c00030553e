"""The games JSON API: create, list, join, read, act, the log, export, and its errors."""

from __future__ import annotations

import unicodedata

import pytest

from games.models import Game, Move
from games.replay import replay
from tests.games.conftest import EXAMPLE_DECK

pytestmark = pytest.mark.django_db


def post(client, url, data=None, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(url, data or {}, content_type="application/json", **headers)


def get(client, url, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.get(url, **headers)


@pytest.fixture
def table(client):
    response = post(
        client,
        "/api/games/",
        {
            "kind": "set",
            "open": True,
            "options": {"start": "now", "rules": "declare", "deck": EXAMPLE_DECK},
        },
    )
    assert response.status_code == 201, response.content
    return response.json()


def join(client, game_id, name):
    response = post(client, f"/api/games/{game_id}/join", {"name": name})
    assert response.status_code == 201, response.content
    return response.json()["token"]


def test_two_players_play_a_declare_table_over_the_api(client, table):
    alice = join(client, table["id"], "alice")
    bob = join(client, table["id"], "bob")
    game_url = f"/api/games/{table['id']}"

    declared = post(client, f"{game_url}/moves", {"type": "declare"}, alice)
    assert declared.status_code == 200, declared.content
    assert declared.json()["view"]["declare"]["state"] == "my"
    assert get(client, f"{game_url}/", bob).json()["view"]["declare"]["state"] == "up"

    for row, col in ((0, 0), (0, 1), (0, 2)):
        result = post(client, f"{game_url}/moves", {"type": "pick", "row": row, "col": col}, alice)
        assert result.status_code == 200, result.content
    detail = get(client, f"{game_url}/", bob).json()
    assert detail["view"]["scores"] == {"alice": 10, "bob": 0}
    assert {seat["name"]: seat["score"] for seat in detail["seats"]} == {"alice": 10, "bob": 0}

    log = get(client, f"{game_url}/moves").json()
    assert [move["seq"] for move in log] == list(range(1, len(log) + 1))
    assert [move["action"]["type"] for move in log][-4:] == ["declare", "pick", "pick", "pick"]

    exported = get(client, f"{game_url}/export")
    assert exported.status_code == 200
    assert exported["Content-Disposition"].startswith("attachment")
    data = exported.json()
    assert data["seed"] is None  # withheld while the game is played
    assert len(data["moves"]) == len(log)


def test_the_log_replays_to_the_stored_state(client, table):
    alice = join(client, table["id"], "alice")
    post(client, f"/api/games/{table['id']}/moves", {"type": "declare"}, alice)
    post(client, f"/api/games/{table['id']}/moves", {"type": "pick", "row": 1, "col": 1}, alice)
    post(client, f"/api/games/{table['id']}/moves", {"type": "hint"}, alice)
    game = Game.objects.get(pk=table["id"])
    assert replay(game) == game.state


def test_a_token_acts_only_for_its_own_game(client, table):
    other = post(
        client, "/api/games/", {"kind": "set", "open": True, "options": {"start": "now"}}
    ).json()
    stranger = join(client, other["id"], "mallory")
    response = post(client, f"/api/games/{table['id']}/moves", {"type": "declare"}, stranger)
    assert response.status_code == 403
    assert "another game" in response.json()["detail"]


def test_acting_without_a_seat_is_refused_and_changes_nothing(client, table):
    before = Move.objects.count()
    response = post(client, f"/api/games/{table['id']}/moves", {"type": "declare"})
    assert response.status_code == 403
    assert "join" in response.json()["detail"]
    bad = post(client, f"/api/games/{table['id']}/moves", {"type": "declare"}, "not-a-token")
    assert bad.status_code in (401, 403)
    assert Move.objects.count() == before


@pytest.mark.parametrize(
    ("action", "status"),
    [
        ({"type": "pick", "row": 9, "col": 9}, 400),
        ({"type": "fly"}, 400),
        ({"nottype": 1}, 400),
        ({"type": "join"}, 400),
        ({"type": "pick", "row": "a", "col": 0}, 400),
    ],
)
def test_bad_actions_are_4xx_and_change_nothing(client, table, action, status):
    alice = join(client, table["id"], "alice")
    post(client, f"/api/games/{table['id']}/moves", {"type": "declare"}, alice)
    game = Game.objects.get(pk=table["id"])
    response = post(client, f"/api/games/{table['id']}/moves", action, alice)
    assert response.status_code == status, response.content
    assert response.json()["detail"]
    game_after = Game.objects.get(pk=table["id"])
    assert (game_after.version, game_after.state) == (game.version, game.state)


def test_malformed_json_and_unknown_ids(client, table):
    response = client.post(f"/api/games/{table['id']}/join", "{", content_type="application/json")
    assert response.status_code == 400 and "JSON" in response.json()["detail"]
    assert get(client, "/api/games/424242/").status_code == 404
    assert post(client, "/api/games/424242/join", {"name": "x"}).status_code == 404
    assert get(client, "/api/games/424242/moves").status_code == 404


@pytest.mark.parametrize(
    "payload",
    [
        {"kind": "chess"},
        {"kind": "set", "options": {"start": "now", "rules": "poker"}},
        {"kind": "set", "options": {"attributes": 7}},
        {"kind": "set", "options": "x"},
        {},
    ],
)
def test_bad_game_options_are_400(client, db, payload):
    response = post(client, "/api/games/", payload)
    assert response.status_code == 400
    assert response.json()["detail"]


def test_names_are_unique_per_game_and_validated(client, table):
    join(client, table["id"], "alice")
    again = post(client, f"/api/games/{table['id']}/join", {"name": "alice"})
    assert again.status_code == 409
    bad = post(client, f"/api/games/{table['id']}/join", {"name": "no spaces"})
    assert bad.status_code == 400


def test_list_filters_by_kind_and_status(client, table):
    post(
        client,
        "/api/games/",
        {"kind": "set", "open": True, "options": {"start": "now", "rules": "classic"}},
    )
    listed = get(client, "/api/games/?kind=set").json()
    assert len(listed) >= 2
    assert all(game["kind"] == "set" for game in listed)
    assert get(client, "/api/games/?status=over").json() == []
    assert get(client, "/api/games/?status=bogus").status_code == 400


@pytest.mark.parametrize(
    "path", ["/api/games/?status=over&status=active", "/api/games/{id}/moves?since=1&since=2"]
)
def test_a_query_parameter_given_twice_is_refused_naming_it(client, table, path):
    response = get(client, path.replace("{id}", str(table["id"])))
    assert response.status_code == 400
    assert "once, not 2 times" in str(response.json())


def test_classic_table_claims_by_card(client, db):
    game = post(
        client,
        "/api/games/",
        {
            "kind": "set",
            "open": True,
            "options": {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
        },
    ).json()
    alice = join(client, game["id"], "alice")
    bob = join(client, game["id"], "bob")
    claim = {"type": "claim", "cards": EXAMPLE_DECK[0:3]}
    won = post(client, f"/api/games/{game['id']}/moves", claim, alice)
    assert won.status_code == 200, won.content
    late = post(client, f"/api/games/{game['id']}/moves", claim, bob)
    assert late.status_code == 400
    assert "just taken" in late.json()["detail"]
    assert get(client, f"/api/games/{game['id']}/").json()["view"]["scores"] == {
        "alice": 1,
        "bob": 0,
    }


def test_replay_steps_through_the_game_from_the_deal(client, table):
    alice = join(client, table["id"], "alice")
    post(client, f"/api/games/{table['id']}/moves", {"type": "declare"}, alice)
    post(client, f"/api/games/{table['id']}/moves", {"type": "pick", "row": 0, "col": 0}, alice)
    data = get(client, f"/api/games/{table['id']}/replay").json()
    steps = data["steps"]
    assert [step["seq"] for step in steps] == [0, 1, 2, 3]
    assert steps[0]["view"]["declare"]["state"] == "none"
    assert steps[2]["action"] == {"type": "declare"}
    assert steps[2]["view"]["declare"]["declarer"] == "alice"
    assert steps[-1]["view"]["board"][0][0]["card"] == EXAMPLE_DECK[0]
    assert get(client, "/api/games/999999/replay").status_code == 404


def test_nobody_can_read_the_cards_to_come_while_a_game_is_played(client, table):
    listed = get(client, f"/api/games/{table['id']}/").json()
    assert "deck" not in listed["options"] and listed["options"]["deck_size"] == 81
    exported = get(client, f"/api/games/{table['id']}/export").json()
    assert exported["seed"] is None and exported["state"] is None
    assert "deck" not in exported["options"]


def test_a_finished_game_exports_everything(client, db):
    from games import services

    game = services.game_create(
        kind="set",
        options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK[:12]},
        is_open=True,
    )
    Game.objects.filter(pk=game.pk).update(status="over")
    exported = get(client, f"/api/games/{game.pk}/export").json()
    assert exported["seed"] == game.seed
    assert exported["options"]["deck"] == EXAMPLE_DECK[:12]
    assert exported["state"]["board"]


def test_a_seated_player_adds_a_computer(client, table):
    url = f"/api/games/{table['id']}/computers"
    assert post(client, url, {"speed": "fast"}).status_code == 403  # not seated
    alice = join(client, table["id"], "alice")
    added = post(client, url, {"speed": "fast"}, alice)
    assert added.status_code == 201, added.content
    assert added.json()["name"] == "Computer1" and added.json()["is_computer"] is True
    assert post(client, url, {"speed": "warp"}, alice).status_code == 400


@pytest.mark.parametrize(
    "name, message",
    [
        (
            "a b",
            "A name holds only letters (of any script), digits, '_' and '-': no spaces or "
            "other signs.",
        ),
        (
            "<b>",
            "A name holds only letters (of any script), digits, '_' and '-': no spaces or "
            "other signs.",
        ),
        ("x" * 21, "A name has at most 20 characters; this one has 21."),
        (
            "",
            "Please choose a name. A name is 1 to 20 letters (of any script), digits, '_' or "
            "'-', with no spaces (like ada_l or Zoë).",
        ),
    ],
)
def test_a_bad_name_to_join_is_refused_with_a_sentence_naming_the_rule(client, name, message):
    game = client.post(
        "/api/games/",
        {"kind": "set", "open": True, "options": {"start": "now"}},
        content_type="application/json",
    ).json()
    response = client.post(
        f"/api/games/{game['id']}/join", {"name": name}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["errors"]["name"] == [message]
    assert client.get(f"/api/games/{game['id']}/").json()["seats"] == []


@pytest.mark.parametrize("name", ["Zoë", "李雷", "Ólafur", "x-1", "é" * 20, "Zoe\u0308"])
def test_a_name_of_any_script_joins_whole_in_nfc(client, name):
    game = client.post(
        "/api/games/",
        {"kind": "set", "open": True, "options": {"start": "now"}},
        content_type="application/json",
    ).json()
    response = client.post(
        f"/api/games/{game['id']}/join", {"name": name}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    seats = client.get(f"/api/games/{game['id']}/").json()["seats"]
    assert [seat["name"] for seat in seats] == [unicodedata.normalize("NFC", name)]


def test_a_details_status_and_version_are_those_of_its_view(client, table, monkeypatch):
    """A move committed between the detail's two reads (the head, then the row) must not make
    it say "over" (or a later version) beside a view drawn before that move."""
    from games import services

    alice = join(client, table["id"], "alice")
    join(client, table["id"], "bob")
    before = services.game_fresh(table["id"], services.now_ms())
    assert (
        post(client, f"/api/games/{table['id']}/moves", {"type": "declare"}, alice).status_code
        == 200
    )
    monkeypatch.setattr(services, "game_fresh", lambda game_id, now: before)
    detail = get(client, f"/api/games/{table['id']}/", alice).json()
    assert detail["version"] == before.version
    assert detail["status"] == before.status
    assert detail["view"]["declare"]["state"] != "my"  # drawn before the declare
