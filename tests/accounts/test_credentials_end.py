"""A revoked token or an ended session ends everything it opened, at once (issue 23, finding 3).

- An account's token revoked on /accounts/tokens/: the token itself is refused (401), and so is
  every seat token handed out to it (a join, a rematch), on every way in (the API through
  Django and in front of it, lobby chat, a socket's handshake); its open sockets close (4401).
- A browser that logs out: its open sockets close (the lobby's too), and seat tokens handed to
  its session act no more.
- A guest's own seat token (a join with no account and no session) is its only credential and
  goes on acting.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import AccessToken
from config.asgi import application
from games.models import Game, Seat
from tests.games.conftest import SAME_ORIGIN
from tests.games.test_api_fast import HOST, JSON, through_asgi

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "correct horse battery"
OPEN_TABLE = {"kind": "set", "open": True, "options": {"start": "now", "rules": "classic"}}


def api(client: Client, method: str, path: str, body=None, auth: str | None = None):
    headers = {"HTTP_AUTHORIZATION": auth} if auth else {}
    if method == "get":
        return client.get(path, **headers)
    return client.post(path, json.dumps(body or {}), "application/json", **headers)


def signed_in(name: str) -> tuple[Client, object]:
    user = get_user_model().objects.create_user(name, password=PASSWORD)
    browser = Client()
    browser.force_login(user)
    return browser, user


def socket(path: str, headers=()) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, path, headers=[*SAME_ORIGIN, *headers])


async def opened(path: str, headers=()) -> WebsocketCommunicator:
    sock = socket(path, headers)
    connected, _ = await sock.connect()
    assert connected
    await sock.receive_json_from(timeout=5)
    return sock


async def closed_with(sock: WebsocketCommunicator) -> int:
    """The close code the server ends this socket with (frames sent before it are skipped)."""
    for _ in range(20):
        message = await sock.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return message.get("code")
    raise AssertionError("the socket was not closed")


def test_a_revoked_account_token_ends_its_seat_tokens_and_its_sockets():
    browser, user = signed_in("ada")
    made = browser.post("/accounts/tokens/", {"name": "bot"})
    bearer = f"Bearer {made.context['new_token']}"
    program = Client()
    game = api(program, "post", "/api/games/", OPEN_TABLE, bearer).json()
    joined = api(program, "post", f"/api/games/{game['id']}/join", {"name": "x"}, bearer)
    assert joined.status_code == 201, joined.content
    seat_token = joined.json()["token"]
    seat = f"Token {seat_token}"
    moves = f"/api/games/{game['id']}/moves"
    assert api(program, "post", moves, {"type": "count"}, seat).status_code == 200
    # A guest at the same table: a token of its own, with no credential behind it.
    guest = api(Client(), "post", f"/api/games/{game['id']}/join", {"name": "gus"}).json()

    token_id = AccessToken.objects.get(user=user).pk

    async def story():
        sock = await opened(f"/ws/games/{game['id']}/?token={seat_token}")
        guest_sock = await opened(f"/ws/games/{game['id']}/?token={guest['token']}")
        revoked = await database(browser.post, "/accounts/tokens/", {"revoke": token_id})
        assert revoked.status_code == 302
        assert await closed_with(sock) == 4401
        # The guest's socket still acts.
        await guest_sock.send_json_to({"type": "count"})
        while (answer := await guest_sock.receive_json_from(timeout=5))["type"] != "result":
            pass
        await guest_sock.disconnect()
        # The seat token opens no socket any more.
        again = socket(f"/ws/games/{game['id']}/?token={seat_token}")
        connected, code = await again.connect()
        assert (connected, code) == (False, 4403)
        return answer

    assert "count" in async_to_sync(story)()["outcome"]
    version = Game.objects.get(pk=game["id"]).version
    assert api(program, "get", "/api/games/", auth=bearer).status_code == 401
    assert api(program, "post", moves, {"type": "count"}, seat).status_code == 401
    status, _, _ = through_asgi(
        moves, b'{"type": "count"}', HOST + JSON + [(b"authorization", seat.encode())]
    )
    assert status == 401  # in front of Django too
    chat = api(program, "post", "/api/lobby/chat", {"text": "still me?"}, seat)
    assert chat.status_code == 401
    assert Game.objects.get(pk=game["id"]).version == version  # nothing changed the game
    guest_move = api(Client(), "post", moves, {"type": "count"}, f"Token {guest['token']}")
    assert guest_move.status_code == 200
    # The account's seat is its own still: a new token acts for it.
    fresh = f"Bearer {browser.post('/accounts/tokens/', {'name': 'bot2'}).context['new_token']}"
    assert api(program, "post", moves, {"type": "count"}, fresh).status_code == 200
    assert Seat.objects.filter(game_id=game["id"], name="ada").count() == 1


def test_logging_out_closes_the_browsers_sockets_and_ends_its_seat_tokens():
    browser, user = signed_in("bea")
    browser.get("/")  # a session, as a visit makes one
    game = api(Client(), "post", "/api/games/", OPEN_TABLE).json()
    csrf = browser.cookies["csrftoken"].value if "csrftoken" in browser.cookies else None
    joined = browser.post(
        f"/api/games/{game['id']}/join",
        json.dumps({"name": "bea"}),
        "application/json",
        **({"HTTP_X_CSRFTOKEN": csrf} if csrf else {}),
    )
    assert joined.status_code == 201, joined.content
    seat = f"Token {joined.json()['token']}"
    cookie = [(b"cookie", f"sessionid={browser.session.session_key}".encode())]

    async def story():
        table = await opened(f"/ws/games/{game['id']}/", cookie)
        lobby = socket("/ws/lobby/", cookie)
        assert (await lobby.connect())[0]
        await table.send_json_to({"type": "count"})
        while (await table.receive_json_from(timeout=5))["type"] != "result":
            pass
        logged_out = await database(browser.post, "/accounts/logout/")
        assert logged_out.status_code == 302
        assert await closed_with(table) == 4401
        assert await closed_with(lobby) == 4401

    async_to_sync(story)()
    moves = f"/api/games/{game['id']}/moves"
    assert api(Client(), "post", moves, {"type": "count"}, seat).status_code == 401


async def database(call, *args, **kwargs):
    """A Django request made from the test's event loop (the client blocks)."""
    from asgiref.sync import sync_to_async

    return await sync_to_async(call)(*args, **kwargs)
