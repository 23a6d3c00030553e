"""A service the server needs that does not answer (Redis down, PostgreSQL restarting) is a 503
with Retry-After and a sentence on every way in, never a 500 and never a closed socket; reads
that need no Redis go on, and connections PostgreSQL closed are replaced before they are used
(issue 23). tests/processes/ restarts real ones under load, across two server processes."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer
from channels.testing import HttpCommunicator
from django.db import OperationalError, connection
from django.test import RequestFactory

from config.asgi import application
from games import realtime, runtime, selectors, services, store, views
from games.models import Game, Player
from tests.conftest import free_port
from tests.games.conftest import EXAMPLE_DECK
from tests.games.test_websocket import communicator

REDIS_SENTENCE = "The server cannot reach Redis just now; try again in 2 seconds."
DATABASE_SENTENCE = "The server cannot reach its database just now; try again in 2 seconds."


@pytest.fixture
def redis_down(settings):
    """The rate-limit counts in a Redis that does not answer (nothing listens on its port)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
        }
    }
    settings.RATE_LIMIT_MOVES = "20/s"
    settings.RATE_LIMIT_JOINS = "60/min"


def classic_table():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}, is_open=True
    )
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    return game, seat


def through_asgi(method: str, path: str, body: bytes = b"", headers=()) -> tuple[int, str, dict]:
    headers = [(b"host", b"testserver"), *headers, (b"content-length", str(len(body)).encode())]

    async def run():
        http = HttpCommunicator(application, method, path, body=body, headers=headers)
        return await http.get_response(timeout=10)

    response = async_to_sync(run)()
    return (
        response["status"],
        response["body"].decode(),
        {key.decode().lower(): value.decode() for key, value in response["headers"]},
    )


CLAIM = {"type": "claim", "cards": EXAMPLE_DECK[:3]}


@pytest.mark.django_db(transaction=True)
def test_a_move_while_redis_is_down_is_a_503_over_the_api_in_front_of_django(redis_down):
    game, seat = classic_table()
    auth = (b"authorization", f"Token {seat.token}".encode())
    status, body, headers = through_asgi(
        "POST",
        f"/api/games/{game.pk}/moves",
        json.dumps(CLAIM).encode(),
        [(b"content-type", b"application/json"), auth],
    )
    assert (status, json.loads(body), headers["retry-after"]) == (
        503,
        {"detail": REDIS_SENTENCE},
        "2",
    )
    assert Game.objects.get(pk=game.pk).version == 1  # nothing was played


@pytest.mark.django_db
def test_a_move_while_redis_is_down_is_a_503_through_the_drf_view(client, redis_down):
    game, seat = classic_table()
    response = client.post(
        f"/api/games/{game.pk}/moves", CLAIM, "application/json",
        HTTP_AUTHORIZATION=f"Token {seat.token}",
    )  # fmt: skip
    assert response.status_code == 503
    assert response.json() == {"detail": REDIS_SENTENCE}
    assert response["Retry-After"] == "2"


@pytest.mark.django_db(transaction=True)
def test_a_move_while_redis_is_down_is_an_error_frame_and_the_socket_stays_open(redis_down):
    game, seat = classic_table()

    async def play():
        socket = communicator(f"/ws/games/{game.pk}/?token={seat.token}")
        connected, _ = await socket.connect()
        assert connected
        first = await socket.receive_json_from(timeout=5)
        await socket.send_json_to(CLAIM)
        refused = await socket.receive_json_from(timeout=5)
        await socket.send_json_to({"type": "sync"})
        again = await socket.receive_json_from(timeout=5)
        await socket.disconnect()
        return first, refused, again

    first, refused, again = async_to_sync(play)()
    assert refused == {"type": "error", "detail": REDIS_SENTENCE, "code": "unavailable"}
    assert again["type"] == "state" and again["version"] == first["version"]


@pytest.mark.django_db(transaction=True)
def test_a_lobby_socket_opened_while_redis_is_down_is_told_and_asked_to_come_back(redis_down):
    """The lobby says who is online through Redis: its socket is told why, then closed with
    1013 (Try Again Later, as browsers reconnect), never with an error of the server (1011)."""

    async def open_lobby():
        socket = communicator("/ws/lobby/")
        connected, _ = await socket.connect()
        told = await socket.receive_json_from(timeout=5)
        closed = await socket.receive_output(timeout=5)
        return connected, told, closed

    connected, told, closed = async_to_sync(open_lobby)()
    assert connected
    assert told == {"type": "error", "detail": REDIS_SENTENCE, "code": "unavailable"}
    assert closed == {"type": "websocket.close", "code": 1013}


@pytest.mark.django_db(transaction=True)
def test_a_new_name_at_a_text_table_while_redis_is_down_is_a_503_line(redis_down):
    table = services.game_create(
        kind="set", options={"start": "now", "rules": "declare", "deck": EXAMPLE_DECK}, is_open=True
    )
    status, body, headers = through_asgi("GET", f"/tables/{table.pk}/look/newcomer")
    assert (status, body, headers["retry-after"]) == (503, REDIS_SENTENCE + "\n", "2")
    assert headers["content-type"] == "text/plain; charset=utf-8"


@pytest.mark.django_db
def test_a_page_whose_form_needs_redis_while_it_is_down_is_a_503_page(client, redis_down):
    response = client.post("/play/new", {"name": "ann", "rules": "classic"})
    assert response.status_code == 503 and response["Retry-After"] == "2"
    page = response.content.decode()
    assert "Back in a moment" in page and REDIS_SENTENCE in page
    assert "Traceback" not in page


@pytest.mark.django_db
def test_reads_that_need_no_redis_go_on_while_it_is_down(client, redis_down):
    game, seat = classic_table()
    assert client.get(f"/api/games/{game.pk}/").status_code == 200
    assert client.get(f"/api/games/{game.pk}/moves").status_code == 200
    assert client.get(f"/play/{game.pk}/").status_code == 200


@pytest.mark.django_db
def test_a_read_while_the_database_does_not_answer_is_a_503(client, monkeypatch):
    def down(*args, **kwargs):
        raise OperationalError("connection refused: the database system is starting up")

    monkeypatch.setattr(selectors, "leaderboard", down)
    page = client.get("/leaderboard/")
    assert page.status_code == 503 and page["Retry-After"] == "2"
    assert DATABASE_SENTENCE in page.content.decode()
    monkeypatch.setattr(selectors, "game_row", down)  # what the move log's view reads first
    api = client.get("/api/games/1/moves")
    assert (api.status_code, api.json(), api["Retry-After"]) == (
        503,
        {"detail": DATABASE_SENTENCE},
        "2",
    )


def test_an_outage_outside_a_view_is_a_503_and_any_other_error_a_500():
    """Django's 500 handler is what answers an error of a middleware (a session saved while the
    database restarts): it, too, tells an outage from a bug."""
    request = RequestFactory().get("/")
    try:
        raise OperationalError("terminating connection due to administrator command")
    except OperationalError:
        outage = views.server_error(request)
    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        bug = views.server_error(request)
    assert outage.status_code == 503 and DATABASE_SENTENCE in outage.content.decode()
    assert bug.status_code == 500 and "Something went wrong" in bug.content.decode()


# -- the layer between processes: what Redis lost while it was down is read again -------------


class LossyLayer(InMemoryChannelLayer):
    """A shared layer that, while `down`, loses every message, as Redis's pub/sub does while
    it restarts (a message published to nobody is gone)."""

    down = False

    async def send(self, channel, message):
        if not self.down:
            await super().send(channel, message)

    async def group_send(self, group, message):
        if not self.down:
            await super().group_send(group, message)


def test_once_the_layer_between_processes_is_back_every_member_reads_afresh():
    async def run():
        inner = LossyLayer()
        layer = realtime.GamesLayer(inner=inner, ping_interval=0.05, resync_again=0.3)
        game = await layer.new_channel()
        lobby = await layer.new_channel()
        await layer.group_add(realtime.group_name(7), game)
        await layer.group_add(realtime.LOBBY_GROUP, lobby)
        await asyncio.sleep(0.3)
        quiet = layer.here().groups[realtime.group_name(7)][game].queue.qsize()
        inner.down = True
        await asyncio.sleep(0.3)
        inner.down = False
        heard = await asyncio.wait_for(layer.receive(game), 2)
        told = await asyncio.wait_for(layer.receive(lobby), 2)
        at = time.monotonic()
        # Once more a moment later: the layer's other connections (a shard each) came back
        # each on its own, and what they lost meanwhile is read by this second pass.
        again = await asyncio.wait_for(layer.receive(game), 2)
        later = time.monotonic() - at
        await asyncio.sleep(0.5)
        after = layer.here().groups[realtime.group_name(7)][game].queue.qsize()
        await layer.close()
        return quiet, heard, told, again, later, after

    quiet, heard, told, again, later, after = async_to_sync(run)()
    assert quiet == 0  # pings that come back tell no one anything
    assert heard == {"type": realtime.RESYNC}
    assert told == {"type": "lobby.changed"}
    assert again == {"type": realtime.RESYNC} and later >= 0.2
    assert after == 0  # and then nothing more


# -- connections PostgreSQL closed (a restart) are replaced, not used -------------------------

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's sessions (make test-scaled)"
)


def terminate(pids: list[int]) -> None:
    """End these sessions of this test's own connections, as a restart of PostgreSQL does (on
    a connection of its own, closed after)."""
    import psycopg

    params = {**connection.get_connection_params(), "autocommit": True}
    params.pop("cursor_factory", None)
    with psycopg.connect(**params) as conn:
        conn.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [pids])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            ended = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s::int[])", [pids]
            )
            if ended.fetchone()[0] == 0:
                return
            time.sleep(0.02)
    raise AssertionError("the sessions did not end")


def backend_pid() -> int:
    connection.ensure_connection()
    return connection.connection.info.backend_pid


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_game_database_thread_replaces_a_connection_postgresql_closed(settings):
    game, _seat = classic_table()
    runtime.shutdown()
    settings.GAME_DB_THREADS = 1  # one thread, so the next task runs where the first did
    try:
        pid = async_to_sync(runtime.run_db)(backend_pid)
        terminate([pid])
        head = async_to_sync(runtime.run_db)(selectors.game_head, game.pk)
        assert head.version == 1
        assert async_to_sync(runtime.run_db)(backend_pid) != pid
    finally:
        runtime.shutdown()


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_the_event_loops_pool_replaces_connections_postgresql_closed():
    game, seat = classic_table()

    async def run():
        await store.aread("seat_by_token", seat.token)  # the pool is open, its connections too
        loop_store = store.store()
        pids = [conn.info.backend_pid for conn in loop_store._connections if not conn.closed]
        await asyncio.to_thread(terminate, pids)
        found = [await store.aread("seat_by_token", seat.token) for _ in pids + [0]]
        moved = await services.amove(game_id=game.pk, seat=found[0], action=CLAIM)
        return found, moved  # (the pool closes with this test's loop)

    found, moved = async_to_sync(run)()
    assert all(ref is not None and ref.pk == seat.pk for ref in found)
    assert moved.game.version == 2


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_an_event_loop_that_ends_while_its_pool_grows_ends_and_closes_the_pool():
    """The loop's pool closes with its loop: psycopg_pool's workers went on through the cancel
    that came while one made a connection, and the loop's end (each test's, a server's at
    shutdown) then waited for them for ever (a test hung one run in five)."""
    import threading

    game, seat = classic_table()
    pools = []

    async def grow_then_end():
        await store.aread("seat_by_token", seat.token)
        pools.append(store.store()._pool)
        # More readers at once than the pool holds: it grows, a worker making connections...
        await asyncio.gather(*(store.aread("seat_by_token", seat.token) for _ in range(8)))
        # ...as the loop ends.

    for _ in range(5):
        ended = threading.Event()

        def run(ended=ended):
            asyncio.run(grow_then_end())
            ended.set()

        threading.Thread(target=run, daemon=True).start()
        assert ended.wait(15), "the event loop did not end"
    assert all(pool.closed for pool in pools)
    store.close_all()  # the connections a worker was making as its loop ended
