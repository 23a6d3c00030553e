"""Every way in checks a request in one order (who acts, is it well formed, the rate limit, then
the rules) and answers alike: the JSON API by token (served in front of Django) and by session
(Django's view), and the WebSocket."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator, WebsocketCommunicator

from config.asgi import application
from games import services
from games.models import Game, Move, Player
from tests.games.conftest import EXAMPLE_DECK, SAME_ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)
HOST = [(b"host", b"testserver")]
JSON = [(b"content-type", b"application/json")]


def classic_table():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}, is_open=True
    )
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    return game, seat


def by_token(game, seat, action) -> tuple[int, str]:
    """A token client's move: answered on the event loop, in front of Django."""
    body = json.dumps(action).encode()
    headers = [*HOST, *JSON, (b"authorization", f"Token {seat.token}".encode())]
    headers.append((b"content-length", str(len(body)).encode()))

    async def post():
        path = f"/api/games/{game.pk}/moves"
        communicator = HttpCommunicator(application, "POST", path, body=body, headers=headers)
        return await communicator.get_response(timeout=10)

    response = async_to_sync(post)()
    return response["status"], json.loads(response["body"])["detail"]


def by_session(client, game, seat, action) -> tuple[int, str]:
    """A browser's move: its session names its player; Django's view answers."""
    session = client.session
    session["player_id"] = seat.player_id
    session.save()
    response = client.post(
        f"/api/games/{game.pk}/moves", json.dumps(action), content_type="application/json"
    )
    return response.status_code, response.json()["detail"]


def by_socket(game, seat, action) -> tuple[int, str]:
    """A move over the WebSocket: errors come back as frames (a rate limit's code says 429)."""

    async def send():
        socket = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/?token={seat.token}", headers=SAME_ORIGIN
        )
        assert (await socket.connect())[0]
        await socket.receive_json_from(timeout=5)
        await socket.send_json_to(action)
        answer = await socket.receive_json_from(timeout=5)
        await socket.disconnect()
        return answer

    answer = async_to_sync(send)()
    assert answer["type"] == "error", answer
    return {"rate_limited": 429}.get(answer["code"], 400), answer["detail"]


WAYS = {
    "token": lambda client, game, seat, action: by_token(game, seat, action),
    "session": by_session,
    "socket": lambda client, game, seat, action: by_socket(game, seat, action),
}
LIMITED = "Too many moves: at most 1 per hour"


@pytest.mark.parametrize("way", list(WAYS))
def test_a_malformed_action_is_refused_before_the_rate_limit_counts_it(client, settings, way):
    settings.RATE_LIMIT_MOVES = "1/hour"
    game, seat = classic_table()
    for _ in range(3):  # never counted: the third is refused for what it is, not for the limit
        status, detail = WAYS[way](client, game, seat, {"type": "join"})
        assert (status, detail) == (400, "'join' is not an action a seat can submit.")
    assert Game.objects.get(pk=game.pk).version == game.version + 1  # ann's join only


@pytest.mark.parametrize("way", list(WAYS))
def test_an_action_the_rules_refuse_costs_a_move_and_the_next_is_over_the_limit(
    client, settings, way
):
    settings.RATE_LIMIT_MOVES = "1/hour"
    game, seat = classic_table()
    status, detail = WAYS[way](client, game, seat, {"type": "jump"})
    assert status == 400 and "jump" in detail
    status, detail = WAYS[way](client, game, seat, {"type": "jump"})
    assert status == 429 and detail.startswith(LIMITED)
    assert Game.objects.get(pk=game.pk).version == game.version + 1  # nothing was written


def test_a_seat_of_another_game_is_refused_by_every_way(client):
    game, _ann = classic_table()
    _other, stranger = classic_table()
    hint = {"type": "hint"}
    assert by_token(game, stranger, hint)[0] == 403
    assert by_session(client, game, stranger, hint)[0] == 403
    assert Game.objects.get(pk=game.pk).version == game.version + 1


def test_a_square_move_is_logged_as_the_rules_read_it_and_replays():
    from games.replay import replay

    game = services.game_create(kind="square", options={"players": 2})
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))
    action = {"type": "opening", "piece": 13, "permutation": 4, "note": "hi", "extra": [1] * 50}
    services.move_submit(game_id=game.pk, seat=bob, action=action)
    logged = Move.objects.get(game_id=game.pk, seq=3)
    assert logged.action == {"type": "opening", "piece": 13, "permutation": 4}
    stored = Game.objects.get(pk=game.pk)
    assert replay(stored) == stored.state
    assert ann.name == "ann"


def test_the_first_read_after_a_declare_deadline_answers_the_timed_out_game(client):
    """It answered 500 once: the read applied the timeout and showed a row it had not read."""
    import time

    created = client.post(
        "/api/games/",
        json.dumps(
            {
                "kind": "set",
                "open": True,
                "options": {"start": "now", "rules": "declare", "declare_ms": 50},
            }
        ),
        content_type="application/json",
    ).json()
    url = f"/api/games/{created['id']}/"
    token = client.post(url + "join", {"name": "ann"}, content_type="application/json").json()
    auth = {"HTTP_AUTHORIZATION": f"Token {token['token']}"}
    declared = client.post(url + "moves", {"type": "declare"}, "application/json", **auth)
    assert declared.json()["view"]["declare"]["state"] == "my"
    time.sleep(0.1)  # past the 50 ms deadline
    first = client.get(url, **auth)
    assert first.status_code == 200
    assert first.json()["view"]["declare"]["state"] == "none"
    assert first.json()["version"] == declared.json()["version"] + 1  # the timeout, logged
    for tail in ("moves", "export", "replay"):
        assert client.get(url + tail).status_code == 200
    assert client.get("/api/games/").status_code == 200


def test_a_set_move_is_logged_as_the_rules_read_it_and_replays():
    from games.replay import replay

    game, ann = classic_table()
    claim = {"type": "claim", "cards": EXAMPLE_DECK[:3], "why": "x" * 1000, "n": 2**70}
    services.move_submit(game_id=game.pk, seat=ann, action=claim)
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "hint", "junk": [1, 2]})
    logged = list(Move.objects.filter(game_id=game.pk).order_by("seq").values_list("action"))
    assert logged[1:] == [({"type": "claim", "cards": EXAMPLE_DECK[:3]},), ({"type": "hint"},)]
    stored = Game.objects.get(pk=game.pk)
    assert replay(stored) == stored.state
