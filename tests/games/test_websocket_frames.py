"""Bad WebSocket frames are refused without harming the game (games/consumers.py).

The project's rule, the same for every bad frame the application sees: the sender gets
``{"type": "error", "detail": ..., "code": ...}``, the socket stays open and usable, and the
game (its version, state and move log) is exactly as before; the other players keep playing.
Frames over `MAX_FRAME_BYTES` (16 KiB, counted in bytes as sent) get the error ``too_large``
before any JSON parsing; frames over the server's own limit (daphne: 1 MiB) never reach the
application: daphne closes the connection with 1009 (message too big), and the game is still
untouched.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from hypothesis import given, settings
from hypothesis import strategies as st

from games import services
from games.consumers import MAX_FRAME_BYTES
from games.models import Game, Move, Player
from tests.games.conftest import EXAMPLE_DECK
from tests.games.test_websocket import communicator

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def make_table(rules: str = "declare"):
    options = {"start": "now", "rules": rules, "deck": EXAMPLE_DECK}
    game = services.game_create(kind="set", options=options, is_open=True)
    alice = services.game_join(game_id=game.pk, player=Player.objects.create(name="alice"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))
    return game.pk, alice.token, bob.token


@sync_to_async
def stored(game_id: int) -> tuple:
    game = Game.objects.get(pk=game_id)
    return game.version, game.state, Move.objects.filter(game_id=game_id).count()


async def connect(game_id: int, token: str):
    socket = communicator(f"/ws/games/{game_id}/?token={token}")
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    assert first["type"] == "state"
    return socket


async def send_frame(socket, kind: str, frame) -> None:
    """Send one frame as it arrives from the network (an empty frame included)."""
    await socket.send_input({"type": "websocket.receive", kind: frame})


async def next_reply(socket) -> dict:
    """The reply to the last frame, past any state pushed in between."""
    while True:
        message = await socket.receive_json_from(timeout=5)
        if message["type"] != "state":
            return message


async def sync(socket) -> dict:
    await socket.send_json_to({"type": "sync"})
    while True:
        message = await socket.receive_json_from(timeout=5)
        if message["type"] == "state":
            return message


BAD_FRAMES = {
    "not JSON": ("text", "{not json"),
    "empty": ("text", ""),
    "a list": ("text", "[]"),
    "a string": ("text", '"declare"'),
    "null": ("text", "null"),
    "a number type": ("text", '{"type": 3}'),
    "no type": ("text", '{"row": 0}'),
    "an unknown type": ("text", '{"type": "fly"}'),
    "a join": ("text", '{"type": "join"}'),
    "a tick": ("text", '{"type": "tick"}'),
    "an off-board pick": ("text", '{"type": "pick", "row": 9, "col": 9}'),
    "a pick of NaN": ("text", '{"type": "pick", "row": NaN, "col": Infinity}'),
    "a hint carrying NaN": ("text", '{"type": "hint", "note": NaN}'),
    "a hint carrying -Infinity": ("text", '{"type": "hint", "note": [-Infinity]}'),
    "a hint carrying 1e999": ("text", '{"type": "hint", "note": 1e999}'),
    "a hint carrying a lone surrogate": ("text", '{"type": "hint", "note": "\\udc00"}'),
    "a hint carrying NUL": ("text", '{"type": "hint", "note": "a\\u0000b"}'),
    "a pick of a huge int": ("text", '{"type": "pick", "row": ' + "9" * 5000 + ', "col": 0}'),
    "a pick of strings": ("text", '{"type": "pick", "row": "0", "col": [0]}'),
    "a lone surrogate": ("text", '{"type": "\\ud800"}'),
    "deeply nested JSON": ("text", "[" * 5000),
    "a nested action": ("text", '{"type": "declare", "x": ' + "[" * 3000 + "]" * 3000 + "}"),
    "empty binary": ("bytes", b""),
    "binary garbage": ("bytes", b"\xff\xfe\x00\x81" * 8),
    "binary, not UTF-8 JSON": ("bytes", b'{"type": "\xff"}'),
    "just over the limit": ("text", " " * MAX_FRAME_BYTES + "{}"),
    "over the limit in bytes, not characters": ("text", "é" * (MAX_FRAME_BYTES // 2 + 1)),
    "1 MB of text": ("text", '{"type": "declare", "pad": "' + "x" * 1_000_000 + '"}'),
    "1 MB of binary": ("bytes", b"\x00" * 1_000_001),
}


@pytest.mark.parametrize("name", list(BAD_FRAMES))
def test_a_bad_frame_gets_an_error_and_harms_nothing(db, name):
    async_to_sync(_a_bad_frame_gets_an_error_and_harms_nothing)(*BAD_FRAMES[name])


async def _a_bad_frame_gets_an_error_and_harms_nothing(kind: str, frame):
    game_id, alice_token, bob_token = await make_table()
    alice = await connect(game_id, alice_token)
    bob = await connect(game_id, bob_token)
    await alice.send_json_to({"type": "declare"})  # alice is mid-declare: a state worth keeping
    assert (await next_reply(alice))["type"] == "result"
    before = await stored(game_id)

    await send_frame(alice, kind, frame)
    error = await next_reply(alice)
    assert error["type"] == "error", error
    assert error["detail"] and error["code"], error
    if len(frame if kind == "bytes" else frame.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
        assert error["code"] == "too_large"
        assert str(MAX_FRAME_BYTES) in error["detail"]
    assert await stored(game_id) == before

    # The socket is still usable, and alice still plays: her pick counts.
    assert (await sync(alice))["version"] == before[0]
    await alice.send_json_to({"type": "pick", "row": 0, "col": 0})
    assert (await next_reply(alice))["type"] == "result"
    # The other player was not disturbed either.
    await bob.send_json_to({"type": "hint"})
    assert (await next_reply(bob))["type"] == "result"
    await alice.disconnect()
    await bob.disconnect()


def test_a_frame_at_the_limit_is_read(db):
    async_to_sync(_a_frame_at_the_limit_is_read)()


async def _a_frame_at_the_limit_is_read():
    game_id, alice_token, _ = await make_table()
    alice = await connect(game_id, alice_token)
    padded = '{"type": "declare"}'
    padded += " " * (MAX_FRAME_BYTES - len(padded))
    assert len(padded.encode()) == MAX_FRAME_BYTES
    await alice.send_to(text_data=padded)
    assert (await next_reply(alice))["type"] == "result"
    await alice.disconnect()


# Random frames: JSON values, action-like objects, text and bytes.
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
ACTIONS = st.fixed_dictionaries(
    {"type": st.sampled_from(["claim", "hint", "count", "pick", "declare", "look", "add"])},
    optional={
        "cards": st.lists(st.sampled_from(EXAMPLE_DECK[:12]) | JSON_VALUES, max_size=4),
        "row": JSON_VALUES,
        "col": JSON_VALUES,
        "seat": JSON_VALUES,
        "token": st.text(max_size=8),
    },
)
FRAMES = st.one_of(
    ACTIONS.map(lambda value: ("text", json.dumps(value))),
    ACTIONS.map(lambda value: ("bytes", json.dumps(value).encode())),
    JSON_VALUES.map(lambda value: ("text", json.dumps(value))),
    st.text(max_size=40).map(lambda text: ("text", text)),
    st.binary(max_size=40).map(lambda data: ("bytes", data)),
)


def test_random_frames_get_a_result_or_an_error_and_errors_change_nothing(db):
    """A classic table (no deadlines, so nothing changes by itself between two frames)."""
    game_id, alice_token, bob_token = async_to_sync(make_table)("classic")

    @settings(max_examples=40, database=None)
    @given(frames=st.lists(FRAMES, min_size=1, max_size=12))
    def play(frames):
        async_to_sync(_send_frames)(game_id, alice_token, frames)

    play()
    # After all that, the game is consistent and bob can still play.
    async_to_sync(_still_plays)(game_id, bob_token)


async def _send_frames(game_id: int, token: str, frames):
    alice = await connect(game_id, token)
    for kind, frame in frames:
        before = await stored(game_id)
        await send_frame(alice, kind, frame)
        reply = await next_reply(alice)
        assert reply["type"] in ("result", "error"), (frame, reply)
        if reply["type"] == "error":
            assert reply["detail"], frame
            assert await stored(game_id) == before, frame
    await alice.disconnect()


async def _still_plays(game_id: int, token: str):
    from games.replay import replay

    bob = await connect(game_id, token)
    await bob.send_json_to({"type": "count"})
    assert (await next_reply(bob))["type"] == "result"
    await bob.disconnect()
    game = await sync_to_async(Game.objects.get)(pk=game_id)
    assert await sync_to_async(replay)(game) == game.state


# -- end to end, through daphne --------------------------------------------------------------------


@pytest.mark.slow
def test_oversized_frames_through_the_live_server(server):
    """16 KiB < frame <= 1 MiB: the application's error; over 1 MiB: daphne fails the
    connection (1009, sent by dropping it: the client sees no close frame). Either way the game
    is untouched and the other player plays on."""
    import httpx
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect as ws_connect

    http = httpx.Client(base_url=server.url, timeout=10)
    game = http.post(
        "/api/games/",
        json={"kind": "set", "options": {"start": "now", "rules": "declare"}, "open": True},
    ).json()
    alice = http.post(f"/api/games/{game['id']}/join", json={"name": "alice"}).json()["token"]
    bob = http.post(f"/api/games/{game['id']}/join", json={"name": "bob"}).json()["token"]
    url = f"ws://127.0.0.1:{server.port}/ws/games/{game['id']}/?token="
    origin = f"http://127.0.0.1:{server.port}"

    def version() -> int:
        return http.get(f"/api/games/{game['id']}/").json()["version"]

    def reply(socket) -> dict:
        while True:
            message = json.loads(socket.recv(timeout=10))
            if message["type"] != "state":
                return message

    before = version()
    with ws_connect(url + alice, origin=origin, max_size=None) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "state"
        socket.send("x" * (MAX_FRAME_BYTES + 1))
        assert reply(socket)["code"] == "too_large"
        socket.send("[" * 5000)
        assert reply(socket)["code"] == "bad_json"
        socket.send(b"\xff" * 64)
        assert reply(socket)["code"] == "bad_json"
        socket.send(json.dumps({"type": "sync"}))
        assert json.loads(socket.recv(timeout=10))["version"] == before

        socket.send("x" * (2 * 1024 * 1024))
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                socket.recv(timeout=10)
        assert closed.value.rcvd is None or closed.value.rcvd.code == 1009
    assert version() == before

    with ws_connect(url + bob, origin=origin) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "state"
        socket.send(json.dumps({"type": "declare"}))
        assert reply(socket)["type"] == "result"
    assert version() == before + 1
