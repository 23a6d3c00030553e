"""GET /api/stream/event: an account's events as NDJSON lines (issue 26, item 2): its games and
open challenges first, then challenges, their answers, games that start and finish; the slots;
through daphne; and GET /api/bot/online."""

from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import time
from urllib.parse import urlsplit

import httpx
import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.contrib.auth import get_user_model
from django.test import AsyncClient

from accounts import challenges
from accounts.tokens import token_create
from games import realtime, services
from games.auth import account_player
from games.models import Game, Player
from tests.games.test_game_stream import Stream, claim_one

pytestmark = pytest.mark.django_db(transaction=True)


def make_account(name: str):
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return user, token_create(user=user, name="api")[1]


async def next_event(stream: Stream, timeout: float = 10) -> dict:
    """The next line that is not a keep-alive."""
    while True:
        line = await stream.line(timeout)
        if line != "":
            return line


def test_the_stream_sends_games_and_challenges_first_then_live_events():
    async_to_sync(_first_then_live)()


async def _first_then_live():
    (ada, ada_token), (bob, bob_token) = [
        await sync_to_async(make_account)(name) for name in ("ada", "bob")
    ]
    # ada sits at a table not finished, and bob has challenged her.
    table = await sync_to_async(services.game_create)(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    player = await sync_to_async(account_player)(ada, create=True)
    await sync_to_async(services.game_join)(game_id=table.pk, player=player)
    waiting = await sync_to_async(challenges.challenge_create)(
        challenger=bob, dest=ada, kind="square", options={}, rated=False
    )
    stream = Stream("/api/stream/event", bearer=ada_token)
    assert await stream.open() == 200
    assert dict(stream.headers)[b"Content-Type"] == b"application/x-ndjson"
    first = await next_event(stream)
    assert first == {
        "type": "gameStart",
        "game": {"id": table.pk, "kind": "set", "url": f"/play/{table.pk}/"},
    }
    offered = await next_event(stream)
    assert offered["type"] == "challenge" and offered["challenge"]["id"] == waiting.pk
    assert offered["challenge"]["challenger"] == "bob"

    # Live: a new challenge, its cancel; another, declined; another, accepted.
    sent = await sync_to_async(challenges.challenge_create)(
        challenger=bob, dest=ada, kind="set", options={"rules": "classic"}, rated=False
    )
    line = await next_event(stream)
    assert line["type"] == "challenge" and line["challenge"]["id"] == sent.pk
    await sync_to_async(challenges.challenge_cancel)(challenge_id=sent.pk, user=bob)
    line = await next_event(stream)
    assert line["type"] == "challengeCanceled" and line["challenge"]["status"] == "canceled"
    await sync_to_async(challenges.challenge_decline)(
        challenge_id=waiting.pk, user=ada, reason="later"
    )
    line = await next_event(stream)
    assert line["type"] == "challengeDeclined" and line["challenge"]["reason"] == "later"

    sent = await sync_to_async(challenges.challenge_create)(
        challenger=bob, dest=ada, kind="square", options={}, rated=False
    )
    assert (await next_event(stream))["challenge"]["id"] == sent.pk
    _, game = await sync_to_async(challenges.challenge_accept)(challenge_id=sent.pk, user=ada)
    line = await next_event(stream)
    assert line["type"] == "gameStart" and line["game"]["id"] == game.pk
    assert line["game"]["kind"] == "square" and line["game"]["url"].startswith(
        f"/square/{game.pk}/?key="
    )

    # ada's first table, played to its end by her token: gameFinish.
    seat = await sync_to_async(services.game_join)(
        game_id=table.pk, player=await Player.objects.acreate(name="carl")
    )
    while await claim_one(table.pk, seat.token):
        pass
    line = await next_event(stream)
    assert line == {
        "type": "gameFinish",
        "game": {"id": table.pk, "kind": "set", "url": f"/play/{table.pk}/"},
    }
    await stream.close()


def test_a_table_that_starts_tells_its_accounts():
    async_to_sync(_table_starts)()


async def _seated_with_a_stream():
    """ada, seated at a Square Game not started, her stream open and its first line told:
    (ada, the game, the stream)."""
    ada, ada_token = await sync_to_async(make_account)("ada")
    game = await sync_to_async(services.game_create)(kind="square", options={}, is_open=True)
    player = await sync_to_async(account_player)(ada, create=True)
    await sync_to_async(services.game_join)(game_id=game.pk, player=player)
    stream = Stream("/api/stream/event", bearer=ada_token)
    assert await stream.open() == 200
    assert (await next_event(stream))["game"]["id"] == game.pk  # seated, not finished
    return ada, game, stream


async def _a_challenge_is_next(stream: Stream, dest) -> None:
    """bob challenges `dest`: the stream's next line is that challenge (nothing before it)."""
    bob, _ = await sync_to_async(make_account)("bob")
    sent = await sync_to_async(challenges.challenge_create)(
        challenger=bob, dest=dest, kind="square", options={}, rated=False
    )
    line = await next_event(stream)
    assert line["type"] == "challenge" and line["challenge"]["id"] == sent.pk


async def _table_starts():
    """Not a challenge: a Square Game whose second seat is taken starts; an account's stream
    that told it among its first lines does not tell it twice."""
    ada, game, stream = await _seated_with_a_stream()
    await sync_to_async(services.game_join)(
        game_id=game.pk, player=await Player.objects.acreate(name="guest")
    )
    # Sent once already (its first lines): the start is not told twice; what comes next is.
    await _a_challenge_is_next(stream, ada)
    await stream.close()


def test_a_games_end_is_told_before_the_next_games_start_even_if_it_comes_later():
    async_to_sync(_end_before_next_start)()


async def _end_before_next_start():
    """A game's end heard from another process may come a moment after the next table's start
    made in this one: the stream tells the end first (read), and not again when it comes."""
    ada, first, stream = await _seated_with_a_stream()
    # The first game ends, its gameFinish not heard yet; the next table's start is.
    await Game.objects.filter(pk=first.pk).aupdate(status=Game.Status.OVER)
    second = await sync_to_async(services.game_create)(kind="square", options={}, is_open=True)
    start = services.game_event("gameStart", second.pk, kind_of_game="square")
    finish = services.game_event("gameFinish", first.pk, kind_of_game="square")
    realtime.publish_account(ada.pk, start)
    assert await next_event(stream) == finish
    assert await next_event(stream) == start
    realtime.publish_account(ada.pk, finish)  # the end itself, late: not told twice
    await _a_challenge_is_next(stream, ada)
    await stream.close()


def test_the_stream_needs_an_account_and_has_slots(settings):
    settings.EVENT_STREAMS_MAX_OPEN = 2
    settings.EVENT_STREAM_KEEPALIVE_S = 0.2
    async_to_sync(_slots)()


async def _slots():
    _, token = await sync_to_async(make_account)("ada")
    nobody = Stream("/api/stream/event")
    assert await nobody.open() == 401
    assert "Bearer" in (await nobody.body())["detail"]
    held = [Stream("/api/stream/event", bearer=token) for _ in range(2)]
    for stream in held:
        assert await stream.open() == 200
    assert await held[0].line() == ""  # a bare newline keeps it open
    refused = Stream("/api/stream/event", bearer=token)
    assert await refused.open() == 429
    assert "At most 2 event streams" in (await refused.body())["detail"]
    await held.pop().close()  # the client goes: its slot is free at once
    again = Stream("/api/stream/event", bearer=token)
    assert await again.open() == 200
    for stream in (*held, again):
        await stream.close()


# -- through daphne ------------------------------------------------------------------------------


def _open(server, path: str, bearer: str) -> http.client.HTTPResponse:
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)
    connection.request("GET", path, headers={"Authorization": f"Bearer {bearer}"})
    response = connection.getresponse()
    response.connection = connection
    return response


def _event(response) -> dict:
    while True:
        raw = response.readline()
        assert raw, "the stream ended"
        if raw.strip():
            return json.loads(raw)


def challenge_and_accept(streamer, sender) -> None:
    """bob's event stream is held on `streamer`; ada challenges him, and he accepts, through
    `sender`: his stream hears the challenge, and both hear the game start."""
    with httpx.Client(base_url=sender.url, timeout=30) as api:
        ada, bob = (
            api.post(
                "/api/accounts", json={"username": name, "password": "correct horse battery"}
            ).json()["token"]
            for name in ("evt-ada", "evt-bob")  # the server is shared: names of its own
        )
        bobs = _open(streamer, "/api/stream/event", bob)
        adas = _open(streamer, "/api/stream/event", ada)
        assert bobs.status == 200 and adas.status == 200
        time.sleep(0.3)  # the streams have joined their groups
        sent = api.post(
            "/api/challenge/evt-bob",
            json={"kind": "set", "options": {"rules": "classic"}},
            headers={"Authorization": f"Bearer {ada}"},
        )
        assert sent.status_code == 201, sent.text
        line = _event(bobs)
        assert line["type"] == "challenge" and line["challenge"]["challenger"] == "evt-ada"
        accepted = api.post(
            f"/api/challenge/{sent.json()['id']}/accept",
            headers={"Authorization": f"Bearer {bob}"},
        )
        assert accepted.status_code == 200, accepted.text
        game_id = accepted.json()["game"]
        for stream in (bobs, adas):  # (ada's stream did not tell the challenge she sent)
            line = _event(stream)
            assert line["type"] == "gameStart" and line["game"]["id"] == game_id
            stream.close()
            stream.connection.close()
        assert api.get("/api/bot/online").json() == []  # people, not bots


def test_through_daphne_a_challenge_reaches_the_stream(server):
    challenge_and_accept(server, server)


def test_a_stream_on_one_process_hears_a_challenge_made_through_another(twins):
    challenge_and_accept(twins[0], twins[1])


def test_bots_online_lists_the_bots_with_a_stream_open(settings):
    async_to_sync(_online)()


async def _online():
    from games.bots import bot_upgrade

    ada, ada_token = await sync_to_async(make_account)("ada")
    _, bob_token = await sync_to_async(make_account)("bob")
    await sync_to_async(bot_upgrade)(user=ada)
    client = AsyncClient()
    assert (await client.get("/api/bot/online")).json() == []
    streams = [Stream("/api/stream/event", bearer=token) for token in (ada_token, bob_token)]
    for stream in streams:
        assert await stream.open() == 200
    # A stream counts as open once it has joined its groups (as its first lines are read); bob
    # is a person: only the bot is listed.
    for _ in range(50):
        online = (await client.get("/api/bot/online")).json()
        if online:
            break
        await asyncio.sleep(0.05)
    assert online == [{"name": "ada", "url": "/u/ada"}]
    for stream in streams:
        await stream.close()
    assert (await client.get("/api/bot/online")).json() == []


def test_a_quiet_stream_says_it_is_open_as_often_as_the_lobby_not_at_each_keepalive(
    settings, monkeypatch
):
    """A quiet stream sends its keepalive newline every EVENT_STREAM_KEEPALIVE_S, but rewrites
    its entry among the open streams (one cache value for them all) only every
    LOBBY_HEARTBEAT_S, as lobby sockets do: well within the entries' time to live."""
    from accounts import events

    settings.EVENT_STREAM_KEEPALIVE_S = 0.1
    settings.LOBBY_HEARTBEAT_S = 0.5
    said: list[float] = []
    real = events._arrive

    async def arrive(*args):
        said.append(time.monotonic())
        return await real(*args)

    monkeypatch.setattr(events, "_arrive", arrive)
    async_to_sync(_quiet)()
    # At the start, then every half second or a little more (not at each of ~15 keepalives).
    assert 2 <= len(said) <= 5, said
    assert all(later - earlier >= 0.45 for earlier, later in itertools.pairwise(said))


async def _quiet():
    _, token = await sync_to_async(make_account)("ada")
    stream = Stream("/api/stream/event", bearer=token)
    assert await stream.open() == 200
    newlines = 0
    started = time.monotonic()
    while time.monotonic() - started < 1.6:
        newlines += (await stream.line(2)) == ""
    await stream.close()
    assert newlines >= 5


def test_a_process_writes_its_streams_as_one_entry_when_they_change_not_at_each_heartbeat(
    settings, monkeypatch
):
    """The open streams shared by every process (games.presence): a process's streams are one
    entry, written when its accounts change and kept fresh at most every half heartbeat, not
    rewritten by each stream's heartbeat (400 streams rewrote one value of 400 entries 20
    times a second). What GET /api/bot/online reads is the accounts of every process."""
    from django.core.cache import cache

    from games import presence

    settings.LOBBY_HEARTBEAT_S = 20
    writes: list[dict] = []
    real = cache.set

    def counted(key, value, *args, **kwargs):
        if key == presence.STREAMS_KEY:
            writes.append(value)
        return real(key, value, *args, **kwargs)

    monkeypatch.setattr(cache, "set", counted)
    monkeypatch.setattr(presence, "_streams", {}, raising=False)
    monkeypatch.setattr(presence, "_streams_written", {"users": None, "at": 0.0}, raising=False)
    for n in range(100):  # 100 streams of 3 accounts open, then each says it is still open
        presence.stream_arrive(f"s{n}", n % 3 + 1)
    for n in range(100):
        presence.stream_arrive(f"s{n}", n % 3 + 1)
    assert len(writes) == 3, writes  # one a new account; the heartbeats write nothing new
    presence._arrive(presence.STREAMS_KEY, "another process", {"users": [9]})
    assert presence.streams_open() == {1, 2, 3, 9}
    for n in range(100):
        if n % 3:
            presence.stream_leave(f"s{n}")
    assert len(writes) == 6 and presence.streams_open() == {1, 9}  # (and another's entry)
    presence._streams_written["at"] -= 11  # half a heartbeat later, a heartbeat refreshes it
    presence.stream_arrive("s0", 1)
    assert len(writes) == 7 and presence.streams_open() == {1, 9}
    for n in range(0, 100, 3):
        presence.stream_leave(f"s{n}")
    assert presence.streams_open() == {9}


def test_an_accounts_lobby_socket_is_sent_its_challenges_and_their_game():
    async_to_sync(_lobby_socket)()


async def _lobby_socket():
    """A signed-in browser's lobby socket (any page of the account opens one) hears a challenge
    to it, and the gameStart of its accept; a guest's socket hears nothing of it."""
    from tests.games.test_lobby_live import lobby_socket, session_of

    async def frame_of(socket, kind: str, test=lambda frame: True) -> dict:
        while True:
            frame = await socket.receive_json_from(timeout=5)
            if frame["type"] == kind and test(frame):
                return frame

    (ada, _), (bob, _) = [await sync_to_async(make_account)(name) for name in ("ada", "bob")]
    player = await sync_to_async(account_player)(bob, create=True)
    cookie = await sync_to_async(session_of)(player, _auth_user_id=str(bob.pk))
    socket = lobby_socket(cookie)
    assert (await socket.connect())[0]
    await frame_of(socket, "lobby")
    sent = await sync_to_async(challenges.challenge_create)(
        challenger=ada, dest=bob, kind="square", options={}, rated=False
    )
    frame = await frame_of(socket, "challenge")
    assert frame["challenge"]["id"] == sent.pk and frame["challenge"]["challenger"] == "ada"
    _, game = await sync_to_async(challenges.challenge_accept)(challenge_id=sent.pk, user=bob)
    # The table's own start (its second seat taken) comes too; the page goes to the table on
    # the one that names its challenge.
    frame = await frame_of(socket, "gameStart", lambda f: "challenge" in f["game"])
    assert frame["game"]["id"] == game.pk and frame["game"]["challenge"] == sent.pk
    await socket.disconnect()


def test_a_server_that_stops_or_a_revoked_token_ends_the_stream(monkeypatch):
    from games import realtime

    fresh = realtime.OpenSockets()  # the process's registry, fresh: a restart is for good
    monkeypatch.setattr(realtime, "open_sockets", fresh)
    async_to_sync(_stream_ends)(fresh)


async def _stream_ends(open_sockets):
    from accounts.models import AccessToken
    from accounts.tokens import token_revoke

    ada, token = await sync_to_async(make_account)("ada")
    bob, _ = await sync_to_async(make_account)("bob")
    await sync_to_async(challenges.challenge_create)(
        challenger=bob, dest=ada, kind="square", options={}, rated=False
    )
    stream = Stream("/api/stream/event", bearer=token)
    assert await stream.open() == 200
    assert (await next_event(stream))["type"] == "challenge"
    assert len(open_sockets) == 1
    assert await open_sockets.restart() == 1
    assert await stream.line(timeout=5) is None  # ended: the client connects again elsewhere
    await stream.app.wait(10)
    assert len(open_sockets) == 0

    open_sockets.restarting = False
    again = Stream("/api/stream/event", bearer=token)
    assert await again.open() == 200
    assert (await next_event(again))["type"] == "challenge"
    row = await AccessToken.objects.aget(user=ada)
    assert await sync_to_async(token_revoke)(user=ada, token_id=row.pk)
    assert await again.line(timeout=5) is None  # its token revoked: it ends
    await again.app.wait(10)


def test_a_database_that_does_not_answer_ends_the_stream_with_a_sentence(monkeypatch):
    async_to_sync(_outage)(monkeypatch)


async def _outage(monkeypatch):
    from django.db import OperationalError

    from accounts import events

    _, token = await sync_to_async(make_account)("ada")

    def down(user_id):
        raise OperationalError("connection refused: the database system is starting up")

    monkeypatch.setattr(events, "first_events", down)
    stream = Stream("/api/stream/event", bearer=token)
    assert await stream.open() == 200
    said = await stream.line()
    assert said["type"] == "error" and said["code"] == "unavailable"
    assert "database" in said["detail"]
    assert await stream.line() is None
    await stream.app.wait(10)
    assert events.event_slots.open == {}  # its slot given back
