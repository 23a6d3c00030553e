"""Memory over the platform (set-modes.md §4.16): the server never shows a face-down card to
anyone while the game is played (views, moves, stream, story, export), a reveal tells its player
alone, claims name board places; a finished game's replay and export show everything."""

from __future__ import annotations

import json
from itertools import combinations

import pytest

from cards.engine.table import TableState
from cards.engine.table.codes import texts_of
from cards.engine.table.modes import find_claim
from games.models import Game
from games.replay import replay
from games.rules import get_rules

pytestmark = pytest.mark.django_db


def post(client, url, body, token=None):
    extra = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(url, json.dumps(body), "application/json", **extra)


def get(client, url, token=None):
    extra = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.get(url, **extra)


@pytest.fixture
def memory(client):
    body = {"kind": "set", "open": True, "options": {"mode": "memory", "start": "now"}}
    game_id = post(client, "/api/games/", body).json()["id"]
    ann = post(client, f"/api/games/{game_id}/join", {"name": "ann"}).json()["token"]
    bo = post(client, f"/api/games/{game_id}/join", {"name": "bo"}).json()["token"]
    return game_id, ann, bo


def board_of(game_id) -> tuple[int, ...]:
    return TableState.from_json(Game.objects.get(pk=game_id).state).board


def test_no_way_out_shows_a_face_down_card_and_a_reveal_is_its_players_alone(client, memory):
    game_id, ann, bo = memory
    board = board_of(game_id)
    secret = texts_of(board, 4)
    revealed = post(client, f"/api/games/{game_id}/moves", {"type": "reveal", "position": 3}, ann)
    assert revealed.status_code == 200
    assert revealed.json()["outcome"]["card"] == secret[3]
    for token in (ann, bo, None):
        for path in ("", "moves", "export", "story", "replay"):
            answer = get(client, f"/api/games/{game_id}/{path}", token)
            assert answer.status_code == 200, (path, answer.content)
            text = answer.content.decode()
            # Ann's own move tells her the card; nothing else tells anyone any card.
            hidden = [card for i, card in enumerate(secret) if not (token == ann and i == 3)]
            assert not any(card in text for card in hidden), (path, token)
            if token != ann and path in ("moves", "export"):
                assert secret[3] not in text
    view = get(client, f"/api/games/{game_id}/", bo).json()["view"]
    assert view["face_down"] is True and all("card" not in cell for cell in view["board"])


def test_a_wrong_claim_by_places_is_refused_not_a_set_and_a_set_scores(client, memory):
    game_id, ann, bo = memory
    board = board_of(game_id)
    version = Game.objects.get(pk=game_id).version
    three = next(
        p for p in combinations(range(21), 3) if not find_claim("normal", [board[i] for i in p], 4)
    )
    wrong = post(
        client, f"/api/games/{game_id}/moves", {"type": "claim", "positions": list(three)}, ann
    )
    assert wrong.status_code == 400 and "Not a Set" in wrong.content.decode()
    assert Game.objects.get(pk=game_id).version == version
    cards = find_claim("memory", board, 4)
    places = [board.index(card) for card in cards]
    good = post(client, f"/api/games/{game_id}/moves", {"type": "claim", "positions": places}, ann)
    assert good.status_code == 200 and good.json()["outcome"]["claim"] == "set"
    assert good.json()["outcome"]["cards"] == texts_of(cards, 4)
    game = Game.objects.get(pk=game_id)
    assert game.state["scores"]["ann"] == 1
    assert replay(game) == game.state  # claims by places and reveals are logged and replayed


def test_a_finished_memory_game_s_replay_and_export_show_every_card(client, memory):
    game_id, ann, bo = memory
    post(client, f"/api/games/{game_id}/moves", {"type": "reveal", "position": 0}, bo)
    for _ in range(40):
        state = TableState.from_json(Game.objects.get(pk=game_id).state)
        if state.over:
            break
        cards = find_claim("memory", state.board, 4)
        places = [state.board.index(card) for card in cards]
        moved = post(
            client, f"/api/games/{game_id}/moves", {"type": "claim", "positions": places}, ann
        )
        assert moved.status_code == 200, moved.json()
    game = Game.objects.get(pk=game_id)
    assert game.status == "over" and replay(game) == game.state
    steps = get(client, f"/api/games/{game_id}/replay", bo).json()["steps"]
    assert all("face_down" not in step["view"] for step in steps)
    assert all("card" in cell for step in steps for cell in step["view"]["board"])
    moves = get(client, f"/api/games/{game_id}/moves", ann).json()
    reveal = next(m for m in moves if m["action"]["type"] == "reveal")
    assert reveal["action"] == {"type": "reveal", "position": 0} and "card" in reveal["outcome"]
    export = get(client, f"/api/games/{game_id}/export", bo).json()
    assert export["state"] == game.state
    assert get_rules("set").describe(game.options).startswith("Memory")


def test_over_the_websocket_a_reveal_reaches_its_player_alone(transactional_db):
    from asgiref.sync import async_to_sync
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from games import services
    from games.models import Player
    from tests.games.conftest import SAME_ORIGIN

    game = services.game_create(
        kind="set", options={"start": "now", "mode": "memory"}, is_open=True
    )
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    bo = services.game_join(game_id=game.pk, player=Player.objects.create(name="bo"))
    secret = texts_of(board_of(game.pk), 4)

    async def play():
        sockets = []
        for seat in (ann, bo):
            socket = WebsocketCommunicator(
                application, f"/ws/games/{game.pk}/?token={seat.token}&story=1", headers=SAME_ORIGIN
            )
            assert (await socket.connect())[0]
            sockets.append(socket)
        mine, theirs = sockets
        await mine.send_json_to({"type": "reveal", "position": 4})
        told = []
        while True:
            frame = await mine.receive_json_from(timeout=5)
            told.append(frame)
            if frame["type"] in ("error", "result"):
                break
        heard = []
        while not await theirs.receive_nothing(timeout=1):
            heard.append(await theirs.receive_json_from(timeout=5))
        for socket in sockets:
            await socket.disconnect()
        return told, heard

    told, heard = async_to_sync(play)()
    assert told[-1]["type"] == "result" and told[-1]["outcome"]["card"] == secret[4]
    assert heard, "the other player hears that something happened"
    assert not any(card in json.dumps(heard) for card in secret)


@pytest.mark.parametrize(
    ("mode", "card"),
    [("4setjr", "FOUR/ORANGE/CHECKERED/SQUIGGLE"), ("4set", "FOUR/ORANGE/CHECKERED/HOURGLASS")],
)
def test_the_table_and_replay_pages_draw_a_4set_deck(client, mode, card):
    body = {"kind": "set", "open": True, "options": {"mode": mode, "start": "now"}}
    game_id = post(client, "/api/games/", body).json()["id"]
    for url in (f"/play/{game_id}/", f"/games/{game_id}/replay/"):
        page = client.get(url)
        assert page.status_code == 200
        assert card in page.content.decode(), url
