"""An account's finished games as NDJSON (issue 16, item 6): ``GET /api/users/<name>/games``
streams one game a line, each as the game's own export, newest first, through Django and through
the ASGI app (config.asgi) alike."""

from __future__ import annotations

import datetime
import json
import warnings

import pytest
from asgiref.sync import async_to_sync
from channels.testing import ApplicationCommunicator
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import api
from cards.setwar.services import setwar_run
from config.asgi import application
from games.models import Game, Move, Player, Seat

pytestmark = pytest.mark.django_db
NDJSON = "application/x-ndjson"
DAY = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)


def at(minutes: int) -> datetime.datetime:
    return DAY + datetime.timedelta(minutes=minutes)


def ms(moment: datetime.datetime) -> int:
    return int(moment.timestamp() * 1000)


def game_at(player: Player, finished: datetime.datetime | None, *, status="over", moves=2) -> Game:
    """A game `player` sat at, over at `finished` (or still being played), with a short log."""
    game = Game.objects.create(
        kind="set",
        options={"start": "now", "rules": "classic", "attributes": 3},
        seed=7,
        status=status,
        version=moves,
        state={"over": status == "over"},
        created_ms=ms(DAY),
        finished=finished,
    )
    seat = Seat.objects.create(game=game, player=player, number=0, name=player.name, score=moves)
    for seq in range(1, moves + 1):
        Move.objects.create(
            game=game,
            seq=seq,
            seat=seat,
            actor=seat.name,
            action={"type": "claim", "cards": ["0000", "1111", "2222"]},
            outcome={"ok": True},
            at_ms=ms(DAY) + seq,
        )
    return game


@pytest.fixture
def ada():
    user = get_user_model().objects.create_user("Ada", password="correct horse battery")
    return Player.objects.create(name="Ada", user=user)


def lines_of(response) -> list[dict]:
    """Read the stream line by line: every line is one JSON object."""
    assert response.status_code == 200
    assert response["Content-Type"] == NDJSON
    assert response.streaming
    body = b"".join(response.streaming_content).decode()
    assert body == "" or body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


def export_of(client, game: Game) -> dict:
    answer = client.get(f"/api/games/{game.pk}/export")
    assert answer.status_code == 200
    return answer.json()


def test_each_line_is_a_finished_games_export_newest_first(client, ada):
    older = game_at(ada, at(1))
    newer = game_at(ada, at(5), moves=3)
    middle = game_at(ada, at(3))
    game_at(ada, None, status="active")  # being played: not finished, not exported
    game_at(ada, None, status="waiting")
    # Another player's games, a guest of the same name's included, are not Ada's.
    game_at(Player.objects.create(name="Ada"), at(4))
    bob = get_user_model().objects.create_user("bob", password="correct horse battery")
    game_at(Player.objects.create(name="bob", user=bob), at(6))

    lines = lines_of(client.get("/api/users/Ada/games"))
    assert [line["id"] for line in lines] == [newer.pk, middle.pk, older.pk]
    for line, game in zip(lines, [newer, middle, older], strict=True):
        assert line == export_of(client, game)
    assert [move["seq"] for move in lines[0]["moves"]] == [1, 2, 3]
    assert lines[0]["seed"] == 7 and lines[0]["state"] == {"over": True}


def test_a_game_played_to_its_end_is_exported_with_its_whole_log(client, ada):
    game = setwar_run(players=2, seed=7)
    Seat.objects.create(game=game, player=ada, number=0, name="Ada")
    [line] = lines_of(client.get("/api/users/ada/games"))
    assert line == export_of(client, game)
    assert len(line["moves"]) == game.version > 0


def test_names_are_compared_ignoring_case(client, ada):
    game = game_at(ada, at(1))
    for name in ("Ada", "ada", "ADA"):
        assert [line["id"] for line in lines_of(client.get(f"/api/users/{name}/games"))] == [
            game.pk
        ]


def test_max_keeps_the_newest(client, ada, monkeypatch):
    monkeypatch.setattr(api, "GAMES_PER_BATCH", 2)  # batches end inside the list and at its end
    games = [game_at(ada, at(minute)) for minute in range(7)]
    newest = [game.pk for game in reversed(games)]
    assert [line["id"] for line in lines_of(client.get("/api/users/ada/games"))] == newest
    for limit in (1, 2, 3, 4, 7, 50):
        got = lines_of(client.get(f"/api/users/ada/games?max={limit}"))
        assert [line["id"] for line in got] == newest[:limit]


def test_games_finished_in_the_same_moment_all_come_once(client, ada, monkeypatch):
    monkeypatch.setattr(api, "GAMES_PER_BATCH", 2)
    games = [game_at(ada, at(1)) for _ in range(5)]
    got = [line["id"] for line in lines_of(client.get("/api/users/ada/games"))]
    assert got == sorted((game.pk for game in games), reverse=True)


def test_since_keeps_games_finished_at_or_after_it(client, ada):
    first, second, third = game_at(ada, at(1)), game_at(ada, at(2)), game_at(ada, at(3))
    for since, expected in [
        (ms(at(2)), [third, second]),
        (ms(at(2)) + 1, [third]),
        (ms(at(3)) + 1, []),
        (0, [third, second, first]),
    ]:
        got = lines_of(client.get(f"/api/users/ada/games?since={since}"))
        assert [line["id"] for line in got] == [game.pk for game in expected]
    both = lines_of(client.get(f"/api/users/ada/games?since={ms(at(1))}&max=1"))
    assert [line["id"] for line in both] == [third.pk]


def test_an_account_without_finished_games_gets_an_empty_body(client, ada):
    game_at(ada, None, status="active")
    assert lines_of(client.get("/api/users/ada/games")) == []


def test_no_such_account_is_a_404_naming_it(client, ada):
    game_at(Player.objects.create(name="zoe"), at(1))  # a guest is no account
    for name in ("zoe", "Zoë", "x" * 200, "a%00b"):
        answer = client.get(f"/api/users/{name}/games")
        assert answer.status_code == 404, name
        assert answer["Content-Type"] == "application/json"
        assert "account" in answer.json()["detail"]
    assert "'zoe'" in client.get("/api/users/zoe/games").json()["detail"]


@pytest.mark.parametrize(
    "query, parameter",
    [
        ("max=0", "max"),
        ("max=-3", "max"),
        ("max=lots", "max"),
        ("max=", "max"),
        ("max=100001", "max"),
        ("since=yesterday", "since"),
        ("since=-1", "since"),
        ("since=", "since"),
        ("since=1.5", "since"),
        ("since=99999999999999999999", "since"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(client, ada, query, parameter):
    game_at(ada, at(1))
    answer = client.get(f"/api/users/ada/games?{query}")
    assert answer.status_code == 400
    body = answer.json()
    assert parameter in body["detail"] and list(body["errors"]) == [parameter]


@pytest.mark.parametrize("games", [8, 16])
def test_moves_are_read_with_one_query_per_batch_of_games(client, ada, monkeypatch, games):
    monkeypatch.setattr(api, "GAMES_PER_BATCH", 4)
    for minute in range(games):
        game_at(ada, at(minute), moves=5)
    with CaptureQueriesContext(connection) as queries:
        assert len(lines_of(client.get("/api/users/ada/games"))) == games
    # The account; per batch of 4 the games, their seats, their moves and their chat; a last,
    # empty batch. Sessions and the like may add a few, never one per game or per move.
    batches = games // 4
    assert len(queries) <= 1 + 4 * batches + 1 + 3, [query["sql"] for query in queries]


def test_it_is_in_the_schema_as_ndjson(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/users/{name}/games"]["get"]
    assert list(operation["responses"]["200"]["content"]) == [NDJSON]
    assert {parameter["name"] for parameter in operation["parameters"]} == {"name", "max", "since"}
    assert {"400", "404"} <= set(operation["responses"])


def test_a_client_asking_for_ndjson_is_answered(client, ada):
    game = game_at(ada, at(1))
    got = lines_of(client.get("/api/users/ada/games", HTTP_ACCEPT=NDJSON))
    assert [line["id"] for line in got] == [game.pk]


def through_asgi(path: str, query: bytes = b"") -> tuple[dict, list[dict]]:
    """GET through config.asgi as daphne would; the start message and every body message."""

    async def run():
        scope = {
            "type": "http",
            "http_version": "1.1",
            "method": "GET",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query,
            "root_path": "",
            "scheme": "http",
            "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": b""})
        start = await communicator.receive_output(timeout=10)
        bodies = []
        while True:
            message = await communicator.receive_output(timeout=10)
            bodies.append(message)
            if not message.get("more_body"):
                break
        await communicator.wait(timeout=10)
        return start, bodies

    return async_to_sync(run)()


@pytest.mark.django_db(transaction=True)
def test_through_the_asgi_app_the_games_are_streamed_batch_by_batch(client, monkeypatch):
    monkeypatch.setattr(api, "GAMES_PER_BATCH", 2)
    user = get_user_model().objects.create_user("Zoë", password="correct horse battery")
    player = Player.objects.create(name="Zoë", user=user)
    games = [game_at(player, at(minute)) for minute in range(5)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start, bodies = through_asgi("/api/users/Zoë/games")
    # Django reads a sync iterator whole before sending it under ASGI, and warns so.
    assert not [w for w in caught if "StreamingHttpResponse" in str(w.message)]
    assert start["status"] == 200
    headers = dict(start["headers"])
    assert headers[b"Content-Type"] == NDJSON.encode()
    body = b"".join(message.get("body", b"") for message in bodies).decode()
    lines = [json.loads(line) for line in body.splitlines()]
    assert [line["id"] for line in lines] == [game.pk for game in reversed(games)]
    assert lines == [export_of(client, game) for game in reversed(games)]
    assert len([message for message in bodies if message.get("body")]) == 5  # line by line

    start, bodies = through_asgi("/api/users/Zoë/games", b"max=2&since=0")
    body = b"".join(message.get("body", b"") for message in bodies).decode()
    assert [json.loads(line)["id"] for line in body.splitlines()] == [games[4].pk, games[3].pk]

    start, bodies = through_asgi("/api/users/nobody/games")
    assert start["status"] == 404
    assert "nobody" in json.loads(b"".join(m.get("body", b"") for m in bodies))["detail"]
    start, _ = through_asgi("/api/users/Zoë/games", b"max=0")
    assert start["status"] == 400
