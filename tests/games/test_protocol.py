"""The plain-text protocol, byte for byte as set-table-protocol.md, through the real routes."""

from __future__ import annotations

import pytest

from cards import protocol
from games import services
from games.models import Game, Move
from tests.games.conftest import EXAMPLE_BOARD, EXAMPLE_DECK, T, board_lines

pytestmark = pytest.mark.django_db


def at(table: Game, path: str, now: int):
    return protocol.handle(f"/tables/{table.pk}{path}", now=now)


def body(response) -> str:
    return response.content.decode()


def test_worked_example_step_by_step(example_table):
    table = example_table
    first = at(table, "/look/alice", T)
    assert first.status_code == 200
    assert body(first) == "3x4\nnone\n" + "".join(f"up {card}\n" for card in EXAMPLE_BOARD)

    assert board_lines(body(at(table, "/declare/alice", T + 100)))[1] == "my 1700000005100"
    assert board_lines(body(at(table, "/declare/bob", T + 200)))[1] == "up 1700000005100"

    alice = board_lines(body(at(table, "/pick/alice/0,0", T + 300)))
    assert alice[2] == "my ONE/RED/SOLID/DIAMOND"
    assert board_lines(body(at(table, "/look/bob", T + 310)))[2] == "up ONE/RED/SOLID/DIAMOND"

    ignored = at(table, "/pick/bob/1,1", T + 400)
    assert ignored.status_code == 200
    assert board_lines(body(ignored))[1] == "up 1700000005100"

    at(table, "/pick/alice/0,2", T + 500)
    after_set = board_lines(body(at(table, "/pick/alice/0,1", T + 600)))
    assert after_set[1] == "none"
    # (0,0), (0,2), (0,1) receive the next three deck cards, in that pick order.
    assert after_set[2:5] == [
        f"up {EXAMPLE_DECK[12]}",
        f"up {EXAMPLE_DECK[14]}",
        f"up {EXAMPLE_DECK[13]}",
    ]
    assert body(at(table, "/scores", T + 700)) == "alice 10 none\nbob 0 none\n"

    at(table, "/declare/bob", T + 1000)
    for pick in ("1,0", "2,0", "2,1"):
        last = at(table, f"/pick/bob/{pick}", T + 1000)
    assert board_lines(body(last))[1] == "none"
    assert body(at(table, "/scores", T + 1100)) == "alice 10 none\nbob 0 none\n"

    at(table, "/declare/alice", T + 2000)
    assert body(at(table, "/scores", T + 7000)) == "alice 5 none\nbob 0 none\n"
    assert body(at(table, "/add/alice", T + 8000)) == "alice 5 add\nbob 0 none\n"
    assert body(at(table, "/add/bob", T + 8100)) == "alice 5 none\nbob 0 none\n"
    assert board_lines(body(at(table, "/look/alice", T + 8200)))[0] == "3x5"

    table.refresh_from_db()
    from games.replay import replay

    assert replay(table) == table.state


def test_replies_carry_the_spec_headers(example_table):
    response = at(example_table, "/look/alice", T)
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["X-Table-Id"] == str(example_table.pk)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/look/", "Your player name ID contains non-alphanumeric characters."),
        ("/look/al-ice", "Your player name ID contains non-alphanumeric characters."),
        ("/declare/a b", "Your player name ID contains non-alphanumeric characters."),
        ("/add/é", "Your player name ID contains non-alphanumeric characters."),
        ("/watch/", "Your player name ID may only consist of alphanumeric characters."),
        ("/watch/a.b", "Your player name ID may only consist of alphanumeric characters."),
        ("/pick/alice/0", "Your requested pick was not valid."),
        ("/pick/alice/0,x", "Your requested pick was not valid."),
        ("/pick/alice/3,0", "Your requested pick was not valid."),
        ("/pick/alice/0,4", "Your requested pick was not valid."),
        ("/pick/alice/99999999999999999999,0", "Your requested pick was not valid."),
        ("/scores/", "There should be no additional characters following /scores in the request."),
        ("/scoresx", "There should be no additional characters following /scores in the request."),
        ("/nothing", "Unknown request."),
    ],
)
def test_bad_requests_get_the_specs_404_and_change_nothing(client, example_table, path, message):
    before = (example_table.version, Move.objects.count())
    response = client.get(f"/tables/{example_table.pk}{path}")
    assert response.status_code == 404
    assert body(response) == message + "\n"
    assert response["X-Table-Id"] == str(example_table.pk)
    example_table.refresh_from_db()
    assert (example_table.version, Move.objects.count()) == before


@pytest.mark.parametrize("path", ["/tables/999/look/a", "/tables/abc/look/a", "/tables/0/scores"])
def test_unknown_tables(client, db, path):
    response = client.get(path)
    assert response.status_code == 404
    assert body(response) == "There is no table with that id.\n"


def test_private_tables_are_not_reachable_over_the_protocol(client, db):
    private = services.game_create(
        kind="set", options={"start": "now", "rules": "declare"}, is_open=False
    )
    response = client.get(f"/tables/{private.pk}/look/alice")
    assert body(response) == "There is no table with that id.\n"


def test_other_paths_under_the_protocols_prefixes_answer_unknown_request(client, db):
    for path in ("/tables", "/tables/", "/look", "/scores/x", "/tables/abc"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response["Content-Type"] == "text/plain; charset=utf-8", path
        assert body(response) in (
            "Unknown request.\n",
            "There is no table with that id.\n",
            "Your player name ID contains non-alphanumeric characters.\n",
            "There should be no additional characters following /scores in the request.\n",
        ), path


def test_paths_outside_the_protocols_prefixes_are_the_sites(client, db):
    """§10 (this project's rule): the protocol answers only its own routes."""
    for path in ("/foo", "/looking/bob", "/LOOK/bob", "/lookup"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response["Content-Type"].startswith("text/html"), path
        assert "Nothing here" in body(response), path


def test_bare_routes_address_the_default_table_and_query_is_ignored(client, db):
    response = client.get("/look/alice?x=1")
    assert response.status_code == 200
    default = Game.objects.get(is_default=True)
    assert response["X-Table-Id"] == str(default.pk)
    assert client.get("/scores").content == b"alice 0 none\n"


def test_percent_encoded_paths_are_decoded_before_matching(client, db):
    assert client.get("/look/%61lice").status_code == 200
    assert client.get("/scores").content == b"alice 0 none\n"


def test_scores_never_joins(client, example_table):
    assert body(at(example_table, "/scores", T)) == ""
    at(example_table, "/look/zed", T)
    at(example_table, "/look/Amy", T)
    assert body(at(example_table, "/scores", T)) == "Amy 0 none\nzed 0 none\n"


def test_a_bad_pick_by_a_new_player_does_not_join_them(example_table):
    assert at(example_table, "/pick/newbie/7,7", T).status_code == 404
    assert body(at(example_table, "/scores", T)) == ""


def test_finished_default_table_is_replaced_by_a_fresh_one(client, db):
    # A 3-attribute table whose deck is exactly the board: one set ends the game.
    deck = [
        "ONE/RED/SOLID/SQUIGGLE",
        "TWO/RED/SOLID/SQUIGGLE",
        "THREE/RED/SOLID/SQUIGGLE",
        "ONE/GREEN/STRIPED/SQUIGGLE",
        "ONE/GREEN/OPEN/SQUIGGLE",
        "TWO/PURPLE/OPEN/SQUIGGLE",
        "THREE/GREEN/STRIPED/SQUIGGLE",
        "TWO/GREEN/OPEN/SQUIGGLE",
        "ONE/PURPLE/STRIPED/SQUIGGLE",
    ]
    old = services.game_create(
        kind="set",
        options={"start": "now", "rules": "declare", "attributes": 3, "deck": deck},
        is_open=True,
        is_default=True,
    )
    client.get("/declare/alice")
    for pick in ("0,0", "0,1", "0,2"):
        client.get(f"/pick/alice/{pick}")
    old.refresh_from_db()
    if old.status != Game.Status.OVER:
        pytest.skip("this deck leaves a set on the board; the engine decides the end")
    assert not old.is_default
    fresh = Game.objects.get(is_default=True)
    assert fresh.pk != old.pk and fresh.options.get("attributes") == 3
    response = client.get("/look/alice")
    assert response["X-Table-Id"] == str(fresh.pk)
    final = client.get(f"/tables/{old.pk}/declare/alice")
    assert final.status_code == 200 and final["X-Table-Id"] == str(old.pk)
    assert client.get(f"/tables/{old.pk}/scores").content == b"alice 10 none\n"
