"""GET /api/games/<id>/stream: a game as NDJSON lines, the WebSocket's views (issue 26, item 3)."""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import urlsplit

import httpx
import pytest
from asgiref.sync import async_to_sync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext

from accounts.models import AccessToken
from accounts.tokens import token_revoke
from cards.engine.rules import find_set
from config.asgi import application
from games import realtime, services, store
from games.models import Player
from games.rules import get_rules
from tests.games.conftest import EXAMPLE_DECK, SAME_ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)


class Stream:
    """One GET of a stream through the ASGI application, read line by line."""

    def __init__(self, path: str, *, token: str | None = None, bearer: str | None = None):
        path, _, query = path.partition("?")
        headers = [(b"host", b"127.0.0.1:8000"), (b"accept", b"application/x-ndjson")]
        if token:
            headers.append((b"authorization", f"Token {token}".encode()))
        if bearer:
            headers.append((b"authorization", f"Bearer {bearer}".encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("10.1.2.3", 5000),
            "server": ("127.0.0.1", 8000),
        }
        self.app = ApplicationCommunicator(application, scope)
        self.buffer = b""
        self.over = False
        self.status = 0
        self.headers: dict[bytes, bytes] = {}

    async def open(self) -> int:
        await self.app.send_input({"type": "http.request", "body": b""})
        start = await self.app.receive_output(10)
        assert start["type"] == "http.response.start", start
        self.status, self.headers = start["status"], dict(start["headers"])
        return self.status

    async def chunk(self, timeout: float = 10) -> None:
        message = await self.app.receive_output(timeout)
        assert message["type"] == "http.response.body", message
        self.buffer += message.get("body", b"")
        if not message.get("more_body", False):
            self.over = True

    async def line(self, timeout: float = 10):
        """The next line: a JSON object, "" for a keep-alive newline, None once the body ended."""
        while b"\n" not in self.buffer:
            if self.over:
                return None
            await self.chunk(timeout)
        raw, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(raw) if raw else ""

    async def body(self) -> dict:
        while not self.over:
            await self.chunk()
        return json.loads(self.buffer)

    async def close(self) -> None:
        """The client goes away."""
        await self.app.send_input({"type": "http.disconnect"})
        await self.app.wait(10)


def timeless(view: dict) -> dict:
    """A view without the moment it was drawn at (its "now": each reader draws it when sent)."""
    return {key: value for key, value in view.items() if key != "now"}


def stream_channels() -> list[str]:
    """The channels of game streams in any group of this process's layer, or with a queue."""
    local = get_channel_layer().here()
    members = {c for group in local.groups.values() for c in group}
    return [c for c in (*members, *local.mailboxes) if c.startswith("stream.")]


@sync_to_async
def classic_table(*, is_open=True):
    game = services.game_create(
        kind="set",
        options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
        is_open=is_open,
    )
    alice = services.game_join(game_id=game.pk, player=Player.objects.create(name="alice"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))
    game.refresh_from_db()
    return game, alice, bob


async def claim_one(game_id: int, token: str) -> bool:
    """The seat of `token` claims a set, as a computer would; False once there is none."""
    seat = await store.aseat_by_token(token)
    head = await services.agame_fresh(game_id)
    actions = get_rules("set").bot_actions(head.state, seat.name)
    if not actions or head.status == "over":
        return False
    await services.amove(game_id=game_id, seat=seat, action=actions[0])
    return True


async def socket_states(socket: WebsocketCommunicator, until: int) -> dict[int, dict]:
    states = {}
    while True:
        frame = await socket.receive_json_from(timeout=10)
        if frame["type"] == "state":
            states[frame["version"]] = frame["view"]
            if frame["version"] >= until:
                return states


async def stream_states(stream: Stream) -> tuple[dict[int, dict], list[dict]]:
    """Read a stream to its end: its views by version, and its chat lines."""
    states, chat = {}, []
    while (line := await stream.line()) is not None:
        if line and line["type"] == "gameState":
            states[line["version"]] = line["view"]
        elif line:
            chat.append(line)
    return states, chat


def test_a_seat_and_a_watcher_see_the_websockets_views_chat_and_the_end(db):
    async_to_sync(_seat_and_watcher_see_the_websockets_views)()


async def _seat_and_watcher_see_the_websockets_views():
    game, alice, bob = await classic_table()
    path = f"/api/games/{game.pk}/stream"
    seat, watcher = Stream(path, token=alice.token), Stream(path)
    assert await seat.open() == 200 and await watcher.open() == 200
    assert seat.headers[b"Content-Type"] == b"application/x-ndjson"
    full = await seat.line()
    assert full["type"] == "gameFull" and full["id"] == game.pk and full["kind"] == "set"
    assert full["seat"] == "alice" and full["version"] == game.version
    watched = await watcher.line()
    assert watched["seat"] is None and watched["version"] == game.version
    sockets = {}
    for name, query in (("seat", f"?token={alice.token}"), ("watcher", "")):
        sockets[name] = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/{query}", headers=SAME_ORIGIN
        )
        assert (await sockets[name].connect())[0]
        first = await sockets[name].receive_json_from(timeout=10)
        assert timeless(first["view"]) == timeless((full if name == "seat" else watched)["view"])

    await claim_one(game.pk, alice.token)
    await sync_to_async(services.chat_post)(game_id=game.pk, player_id=bob.player_id, text="gl")
    turn = 0
    while await claim_one(game.pk, (alice, bob)[turn % 2].token):
        turn += 1
    final = (await services.agame_fresh(game.pk)).version
    assert (await services.agame_fresh(game.pk)).status == "over"

    for name, stream in (("seat", seat), ("watcher", watcher)):
        states, chat = await stream_states(stream)  # it ends by itself after the last state
        assert max(states) == final and states[final]["status"] == "over"
        sent = await socket_states(sockets[name], final)
        assert {v: timeless(view) for v, view in states.items()} == {
            v: timeless(view) for v, view in sent.items()
        }, name
        assert [(c["type"], c["name"], c["text"]) for c in chat] == [("chatLine", "bob", "gl")]
        await stream.app.wait(10)
        await sockets[name].disconnect()
    assert stream_channels() == []  # both left the game's group


def test_a_finished_game_is_sent_whole_and_the_stream_ends(db):
    async_to_sync(_finished_game)()


async def _finished_game():
    game, alice, bob = await classic_table()
    turn = 0
    while await claim_one(game.pk, (alice, bob)[turn % 2].token):
        turn += 1
    stream = Stream(f"/api/games/{game.pk}/stream")
    assert await stream.open() == 200
    full = await stream.line()
    assert full["type"] == "gameFull" and full["view"]["status"] == "over"
    assert await stream.line() is None
    await stream.app.wait(10)
    assert stream_channels() == []


def test_a_quiet_stream_sends_keep_alive_newlines(db, settings):
    settings.GAME_STREAM_KEEPALIVE_S = 0.2
    async_to_sync(_keep_alive)()


async def _keep_alive():
    game, alice, _ = await classic_table()
    stream = Stream(f"/api/games/{game.pk}/stream", token=alice.token)
    assert await stream.open() == 200
    assert (await stream.line())["type"] == "gameFull"
    started = time.monotonic()
    assert await stream.line(timeout=2) == ""
    assert await stream.line(timeout=2) == ""
    assert 0.3 < time.monotonic() - started < 3
    await claim_one(game.pk, alice.token)
    assert (await stream.line())["type"] == "gameState"
    await stream.close()
    assert stream_channels() == []


def test_open_streams_are_limited_and_a_dropped_one_frees_its_slot_at_once(db, settings):
    settings.GAME_STREAMS_MAX_OPEN = 2
    async_to_sync(_limit)()


async def _limit():
    game, alice, bob = await classic_table()
    path = f"/api/games/{game.pk}/stream"
    watchers = [Stream(path), Stream(path)]  # one client address
    for stream in watchers:
        assert await stream.open() == 200
        await stream.line()
    refused = Stream(path)
    assert await refused.open() == 429
    detail = (await refused.body())["detail"]
    assert detail.startswith("At most 2 game streams may be open at once for one address")
    # A seat counts apart from the address's watchers.
    seat = Stream(path, token=alice.token)
    assert await seat.open() == 200
    await seat.line()
    await watchers[0].close()  # the client goes away: its slot is free at once
    again = Stream(path)
    assert await again.open() == 200
    assert (await again.line())["type"] == "gameFull"
    for stream in (watchers[1], seat, again):
        await stream.close()
    assert stream_channels() == []
    again = Stream(path)
    assert await again.open() == 200
    await again.close()


def test_refused_streams_get_the_apis_4xx_sentences(db, client):
    async_to_sync(_refusals)(client)


async def _refusals(client):
    game, alice, _ = await classic_table()
    private, carol, _ = await classic_table(is_open=False)
    other, dave, _ = await classic_table()
    cases = [
        (f"/api/games/{game.pk + 1000}/stream", {}, 404, "There is no game with id"),
        (f"/api/games/{private.pk}/stream", {}, 404, "There is no game with id"),
        (f"/api/games/{private.pk}/stream?key=wrong", {}, 404, "There is no game with id"),
        (f"/api/games/{game.pk}/stream", {"token": dave.token}, 403, "another game"),
        (f"/api/games/{game.pk}/stream", {"token": "nonsense"}, 401, "not valid"),
        (f"/api/games/{game.pk}/stream", {"bearer": "nonsense"}, 401, ""),
    ]
    for path, auth, status, said in cases:
        stream = Stream(path, **auth)
        assert await stream.open() == status, path
        assert stream.headers[b"Content-Type"] == b"application/json"
        assert said in (await stream.body())["detail"], path
    assert stream_channels() == []
    head = await sync_to_async(client.head)(f"/api/games/{game.pk}/stream")
    assert head.status_code == 200 and head["Content-Type"] == "application/x-ndjson"
    assert head.content == b""
    # The game's key, or a seat of it, opens a private game's stream.
    for auth, query in (({}, f"?key={private.link_key}"), ({"token": carol.token}, "")):
        stream = Stream(f"/api/games/{private.pk}/stream{query}", **auth)
        assert await stream.open() == 200
        assert (await stream.line())["type"] == "gameFull"
        await stream.close()


def test_an_account_token_streams_its_seats_view(db, client):
    made = client.post(
        "/api/accounts",
        {"username": "fay", "password": "a long pass phrase 9"},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    bearer = made.json()["token"]
    game, _, _ = async_to_sync(classic_table)()
    joined = client.__class__().post(
        f"/api/games/{game.pk}/join",
        {"name": "fay"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {bearer}",
    )
    assert joined.status_code == 201, joined.content
    # A seat is at its game: opening its stream reads no game row (a watcher's reads it, to
    # know whether the game is there and open to it).
    with CaptureQueriesContext(connection) as seen:
        head = client.head(f"/api/games/{game.pk}/stream", HTTP_AUTHORIZATION=f"Bearer {bearer}")
    assert head.status_code == 200, head.content
    assert not [q for q in seen.captured_queries if 'FROM "games_game"' in q["sql"]]
    async_to_sync(_account_stream)(game.pk, bearer)


async def _account_stream(game_id: int, bearer: str):
    stream = Stream(f"/api/games/{game_id}/stream", bearer=bearer)
    assert await stream.open() == 200
    assert (await stream.line())["seat"] == "fay"
    # The token revoked: the stream it opened ends, as its sockets close.
    user = await get_user_model().objects.aget(username="fay")
    row = await AccessToken.objects.filter(user=user).afirst()
    assert await sync_to_async(token_revoke)(user=user, token_id=row.pk)
    assert await stream.line() is None
    await stream.app.wait(10)
    assert stream_channels() == []


def test_the_schema_describes_the_stream_lines(db, client):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/games/{game_id}/stream"]["get"]
    content = operation["responses"]["200"]["content"]
    assert list(content) == ["application/x-ndjson"]
    examples = content["application/x-ndjson"]["examples"].values()
    assert {"gameFull", "gameState", "chatLine"} == {e["value"]["type"] for e in examples}
    assert {"401", "403", "404", "429"} <= set(operation["responses"])


# -- through daphne ------------------------------------------------------------------------------


def _open(server, path: str, token: str | None = None) -> http.client.HTTPResponse:
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)
    headers = {"Authorization": f"Token {token}"} if token else {}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    response.connection = connection
    return response


def _close(response: http.client.HTTPResponse) -> None:
    """The client goes away: its socket closed."""
    response.close()
    response.connection.close()


def test_a_stream_through_daphne_follows_moves_made_over_the_api(server):
    follow_a_game(server, server)


def test_a_stream_on_one_process_follows_moves_made_through_another(twins):
    follow_a_game(twins[0], twins[1])


def follow_a_game(streamer, mover) -> None:
    """Play a classic table to its end over the JSON API of `mover`, following it with a seat's
    stream from `streamer`: each move's state arrives as it is made, and then the stream ends."""
    with httpx.Client(base_url=mover.url, timeout=30) as api:
        made = api.post(
            "/api/games/",
            json={
                "kind": "set",
                "open": True,
                "options": {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
            },
        ).json()
        game_id = made["id"]
        tokens = [
            api.post(f"/api/games/{game_id}/join", json={"name": name}).json()["token"]
            for name in ("ann", "ben")
        ]
        response = _open(streamer, f"/api/games/{game_id}/stream", tokens[0])
        assert response.status == 200
        assert response.getheader("Content-Type") == "application/x-ndjson"
        full = json.loads(response.readline())
        assert full["type"] == "gameFull" and full["seat"] == "ann"
        versions = [full["version"]]
        auth = {"Authorization": f"Token {tokens[0]}"}
        while True:
            view = api.get(f"/api/games/{game_id}/", headers=auth).json()
            if view["status"] == "over":
                break
            found = find_set([entry["card"] for entry in view["view"]["board"] if entry])
            claim = {"type": "claim", "cards": [str(card) for card in found]}
            moved = api.post(f"/api/games/{game_id}/moves", json=claim, headers=auth)
            assert moved.is_success, moved.text
            line = json.loads(response.readline())  # each move's state, as it is made
            assert line["type"] == "gameState" and line["version"] == moved.json()["version"]
            assert timeless(line["view"]) == timeless(moved.json()["view"])
            versions.append(line["version"])
        assert line["view"]["status"] == "over"
        assert response.read() == b""  # the stream ended with the game
        assert versions == sorted(versions) and len(versions) > 5
        _close(response)


def test_through_daphne_a_closed_stream_frees_its_slot(server):
    with httpx.Client(base_url=server.url, timeout=30) as api:
        game_id = api.post(
            "/api/games/", json={"kind": "set", "open": True, "options": {"start": "now"}}
        ).json()["id"]
    path = f"/api/games/{game_id}/stream"
    limit = 8  # GAME_STREAMS_MAX_OPEN's default
    held = [_open(server, path) for _ in range(limit)]
    try:
        assert [r.status for r in held] == [200] * limit
        refused = _open(server, path)
        assert refused.status == 429 and "At most 8" in json.loads(refused.read())["detail"]
        _close(refused)
        _close(held.pop())  # the client goes: daphne tells the app, the slot is freed
        deadline = time.monotonic() + 3
        while True:
            again = _open(server, path)
            if again.status == 200 or time.monotonic() > deadline:
                break
            _close(again)
            time.sleep(0.05)
        assert again.status == 200
        held.append(again)
    finally:
        for response in held:
            _close(response)


def test_a_stream_alone_applies_the_games_deadline(db):
    async_to_sync(_deadline)()


async def _deadline():
    """A declare's clock runs out with nobody but the stream following the game: the stream
    applies it (as a socket would) and is sent the state after it."""
    game = await sync_to_async(services.game_create)(
        kind="set",
        options={"start": "now", "rules": "declare", "deck": EXAMPLE_DECK, "declare_ms": 300},
        is_open=True,
    )
    alice = await sync_to_async(services.game_join)(
        game_id=game.pk, player=await Player.objects.acreate(name="alice")
    )
    stream = Stream(f"/api/games/{game.pk}/stream", token=alice.token)
    assert await stream.open() == 200
    assert (await stream.line())["view"]["declare"]["state"] == "none"
    seat = await store.aseat_by_token(alice.token)
    await services.amove(game_id=game.pk, seat=seat, action={"type": "declare"})
    declared = await stream.line()
    assert declared["view"]["declare"]["state"] == "my"
    timed_out = await stream.line(timeout=5)
    assert timed_out["version"] > declared["version"]
    assert timed_out["view"]["declare"]["state"] == "none"
    await stream.close()
    assert stream_channels() == []


def test_a_server_that_stops_ends_its_streams_at_once(db, monkeypatch):
    fresh = realtime.OpenSockets()  # the process's registry, fresh: a restart is for good
    monkeypatch.setattr(realtime, "open_sockets", fresh)
    async_to_sync(_server_stops)(fresh)


async def _server_stops(open_sockets):
    game, alice, _ = await classic_table()
    stream = Stream(f"/api/games/{game.pk}/stream", token=alice.token)
    assert await stream.open() == 200
    assert (await stream.line())["type"] == "gameFull"
    assert len(open_sockets) == 1
    assert await open_sockets.restart() == 1
    assert await stream.line(timeout=5) is None  # ended: the client connects again elsewhere
    await stream.app.wait(10)
    assert len(open_sockets) == 0 and stream_channels() == []


def test_a_database_that_stops_answering_ends_the_stream_with_a_sentence(db, monkeypatch):
    async_to_sync(_outage)(monkeypatch)


async def _outage(monkeypatch):
    game, alice, bob = await classic_table()
    stream = Stream(f"/api/games/{game.pk}/stream", token=alice.token)
    assert await stream.open() == 200
    assert (await stream.line())["type"] == "gameFull"

    async def down(*args, **kwargs):
        raise OperationalError("connection refused: the database system is starting up")

    # A change this process cannot show without reading the game, and the database is down.
    monkeypatch.setattr(services, "agame_fresh", down)
    await get_channel_layer().group_send(
        realtime.group_name(game.pk),
        {"type": "game.changed", "game": game.pk, "version": game.version + 5},
    )
    said = await stream.line()
    assert said == {
        "type": "error",
        "detail": "The server cannot reach its database just now; try again in 2 seconds.",
        "code": "unavailable",
    }
    assert await stream.line() is None
    await stream.app.wait(10)
    assert stream_channels() == []
