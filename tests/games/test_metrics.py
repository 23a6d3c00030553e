"""/metrics: Prometheus' text for the allowed addresses, the site's 404 for everyone else; what
the server counts (requests by route, moves by kind and way in, rate-limit refusals, open
sockets) and the JSON log lines of LOG_FORMAT=json."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import uuid

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.utils.module_loading import import_string
from prometheus_client import REGISTRY

from cards import protocol
from config.asgi import application
from games import metrics, services
from games.models import Player
from tests.conftest import ROOT
from tests.games.conftest import EXAMPLE_DECK, SAME_ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)

MOVES_ROUTE = "/api/games/<int:game_id>/moves"


def asgi(method: str, path: str, *, client: str = "127.0.0.1", body: bytes = b"", headers=()):
    """One HTTP request to the server's application from `client`, as daphne hands it over;
    (status, headers, body) once the application has finished with it."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"testserver"), *headers],
        "client": (client, 50000),
        "server": ("testserver", 80),
    }

    async def run():
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": body})
        start = await communicator.receive_output(10)
        chunks = []
        while True:
            message = await communicator.receive_output(10)
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        await communicator.wait(10)  # counted once the application is done
        headers = {name.lower(): value for name, value in start["headers"]}
        return start["status"], headers, b"".join(chunks)

    return async_to_sync(run)()


def sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def eventually(condition, timeout: float = 10.0) -> bool:
    """Whether `condition()` holds within `timeout` seconds (asked again as the loop runs)."""
    loop = asyncio.get_running_loop()
    ends = loop.time() + timeout
    while not condition():
        if loop.time() > ends:
            return False
        await asyncio.sleep(0.01)
    return True


def json_post(path: str, data: dict, *, client: str = "127.0.0.1", token: str | None = None):
    body = json.dumps(data).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    return asgi("POST", path, client=client, body=body, headers=headers)


def classic_table():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}, is_open=True
    )
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    game.refresh_from_db()
    return game, seat


# -- /metrics ----------------------------------------------------------------------------------


def test_metrics_answer_prometheus_text_to_loopback():
    for client in ("127.0.0.1", "::1"):
        status, headers, body = asgi("GET", "/metrics", client=client)
        assert status == 200
        assert headers[b"content-type"].startswith(b"text/plain; version=")
        text = body.decode()
        assert "# TYPE http_requests_total counter" in text
        assert "# TYPE games_moves_committed_total counter" in text
        assert "process_cpu_seconds_total" in text  # the process's own, from the library


def test_metrics_do_not_exist_for_other_addresses():
    status, headers, body = asgi("GET", "/metrics", client="203.0.113.9")
    unknown = asgi("GET", "/no-such-page", client="203.0.113.9")
    assert status == 404 == unknown[0]
    assert b"http_requests_total" not in body
    # The site's own 404 page, as for any address nothing answers.
    assert headers[b"content-type"] == unknown[1][b"content-type"]
    assert b"Nothing here" in body


def test_only_the_exact_path_is_metrics(client):
    for path in ("/metrics/", "/metrics/x", "/api/metrics"):
        assert asgi("GET", path)[0] == 404
    assert client.get("/metrics").status_code == 404  # Django itself has no such page


def test_metrics_allowed_takes_addresses_and_networks(settings):
    settings.METRICS_ALLOWED = ["10.0.0.0/8", "192.0.2.7"]
    assert asgi("GET", "/metrics", client="10.20.30.40")[0] == 200
    assert asgi("GET", "/metrics", client="192.0.2.7")[0] == 200
    assert asgi("GET", "/metrics", client="192.0.2.8")[0] == 404
    assert asgi("GET", "/metrics", client="127.0.0.1")[0] == 404


def test_a_wrong_allowed_address_is_named_by_the_system_checks(settings):
    from games.metrics import check_settings

    settings.METRICS_ALLOWED = ["127.0.0.1", "localhost", "10.0.0.0/33"]
    assert [error.msg.split(" is ")[0] for error in check_settings()] == [
        "METRICS_ALLOWED: 'localhost'",
        "METRICS_ALLOWED: '10.0.0.0/33'",
    ]
    settings.METRICS_ALLOWED = ["127.0.0.1", "::1", "10.0.0.0/8"]
    assert check_settings() == []


# -- what is counted -----------------------------------------------------------------------------


def test_a_move_over_the_api_is_counted_by_kind_way_in_and_route():
    game, seat = classic_table()
    moves = sample("games_moves_committed_total", kind="set", way="api")
    requests = sample("http_requests_total", route=MOVES_ROUTE, method="POST", status="2xx")
    timed = sample("http_request_duration_seconds_count", route=MOVES_ROUTE, method="POST")

    claim = {"type": "claim", "cards": EXAMPLE_DECK[:3]}
    status, _, body = json_post(f"/api/games/{game.pk}/moves", claim, token=seat.token)

    assert status == 200
    written = json.loads(body)["version"] - game.version
    assert written >= 1
    assert sample("games_moves_committed_total", kind="set", way="api") == moves + written
    assert (
        sample("http_requests_total", route=MOVES_ROUTE, method="POST", status="2xx")
        == requests + 1
    )
    assert sample("http_request_duration_seconds_count", route=MOVES_ROUTE, method="POST") == (
        timed + 1
    )


def test_requests_through_django_are_counted_by_their_url_pattern_never_their_path():
    game, _ = classic_table()
    route = "/api/games/<int:game_id>/"
    before = sample("http_requests_total", route=route, method="GET", status="2xx")
    unmatched = sample("http_requests_total", route="(unmatched)", method="GET", status="4xx")

    assert asgi("GET", f"/api/games/{game.pk}/")[0] == 200
    assert asgi("GET", f"/nothing-here-{game.pk}")[0] == 404

    assert sample("http_requests_total", route=route, method="GET", status="2xx") == before + 1
    assert (
        sample("http_requests_total", route="(unmatched)", method="GET", status="4xx")
        == unmatched + 1
    )
    _, _, text = asgi("GET", "/metrics")
    assert f"/api/games/{game.pk}/" not in text.decode()


def test_a_rate_limit_refusal_is_counted_by_scope(settings):
    settings.RATE_LIMIT_JOINS = "1/hour"
    client = f"client-{uuid.uuid4()}"
    refused = sample("games_rate_limited_total", scope="joins")
    statuses = [json_post("/api/games/", {"kind": "square"}, client=client)[0] for _ in range(3)]
    assert 429 in statuses
    assert sample("games_rate_limited_total", scope="joins") == refused + statuses.count(429)


def test_a_socket_is_counted_open_its_moves_by_way_in_and_its_push_timed():
    async_to_sync(_a_socket_is_counted_open_its_moves_by_way_in_and_its_push_timed)()


async def _a_socket_is_counted_open_its_moves_by_way_in_and_its_push_timed():
    from asgiref.sync import sync_to_async

    game, seat = await sync_to_async(classic_table)()
    open_before = sample("games_websockets_open", consumer="game")
    moves = sample("games_moves_committed_total", kind="set", way="socket")

    fanned_out = sample("games_fanout_seconds_count")

    socket = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/?token={seat.token}", headers=SAME_ORIGIN
    )
    watcher = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=SAME_ORIGIN)
    for each in (socket, watcher):
        assert (await each.connect())[0]
        await each.receive_json_from(timeout=5)
    assert sample("games_websockets_open", consumer="game") == open_before + 2
    await socket.send_json_to({"type": "claim", "cards": EXAMPLE_DECK[:3]})
    reply = await socket.receive_json_from(timeout=5)
    assert reply["type"] == "result"
    written = reply["version"] - game.version
    assert sample("games_moves_committed_total", kind="set", way="socket") == moves + written
    seen = await watcher.receive_json_from(timeout=5)  # the change, pushed to the watcher
    assert seen["version"] == reply["version"]
    # Timed once the frame is sent, which the watcher may hear first.
    assert await eventually(lambda: sample("games_fanout_seconds_count") == fanned_out + 1)
    await socket.disconnect()
    await watcher.disconnect()
    assert sample("games_websockets_open", consumer="game") == open_before


def test_a_write_that_finds_the_game_moved_on_is_counted_as_a_retry(monkeypatch, caplog):
    """The one commit plans again when its write finds the game changed since it was read (on
    PostgreSQL another process's write; here the store's first write is made to say so)."""
    from games.store import postgres, sqlite
    from games.store.base import WriteChange

    game, seat = classic_table()
    lost = []
    for table in (sqlite._SQLITE, postgres._POSTGRES):
        write = table[WriteChange]

        def first_lost(ops, op, write=write):
            if not lost:
                lost.append(op)
                return None  # as a write that found the game at another version
            return write(ops, op)

        monkeypatch.setitem(table, WriteChange, first_lost)
    caplog.set_level(logging.INFO, logger="games.moves")
    retries = sample("games_write_retries_total", kind="set")

    result = services.move_submit(
        game_id=game.pk, seat=seat, action={"type": "claim", "cards": EXAMPLE_DECK[:3]}
    )

    assert lost and result.game.version > game.version
    assert sample("games_write_retries_total", kind="set") == retries + 1
    [line] = json_lines(r for r in caplog.records if r.name == "games.moves")
    assert (line["retries"], line["way"], line["version"]) == (1, "server", result.game.version)


def test_an_outage_is_counted_by_dependency():
    from django.db import OperationalError
    from redis.exceptions import ConnectionError as RedisDown

    from games.errors import unavailable

    database = sample("games_outages_total", dependency="database")
    redis = sample("games_outages_total", dependency="redis")
    assert unavailable(OperationalError("connection refused")).http_status == 503
    assert unavailable(RedisDown("connection refused")).http_status == 503
    assert unavailable(ValueError("a bug")) is None
    assert sample("games_outages_total", dependency="database") == database + 1
    assert sample("games_outages_total", dependency="redis") == redis + 1


# -- the JSON log lines ---------------------------------------------------------------------------


def json_lines(records) -> list[dict]:
    """The records as LOG_FORMAT=json writes them (the formatter of config/settings.py)."""
    options = dict(django_settings.LOGGING["formatters"]["json"])
    formatter = import_string(options.pop("()"))(**options)
    return [json.loads(formatter.format(record)) for record in records]


def test_a_request_and_a_committed_move_each_write_a_json_line(caplog):
    game, seat = classic_table()
    caplog.set_level(logging.INFO, logger="games.requests")
    caplog.set_level(logging.INFO, logger="games.moves")

    claim = {"type": "claim", "cards": EXAMPLE_DECK[:3]}
    status, _, body = json_post(f"/api/games/{game.pk}/moves", claim, token=seat.token)
    assert status == 200

    requests = json_lines(r for r in caplog.records if r.name == "games.requests")
    moves = json_lines(r for r in caplog.records if r.name == "games.moves")
    assert [(line["method"], line["route"], line["status"], line["way"]) for line in requests] == [
        ("POST", MOVES_ROUTE, 200, "api")
    ]
    assert requests[0]["path"] == f"/api/games/{game.pk}/moves"
    assert requests[0]["duration_ms"] > 0 and requests[0]["level"] == "INFO"
    assert "time" in requests[0]
    [move] = moves
    assert (move["game"], move["kind"], move["way"]) == (game.pk, "set", "api")
    assert move["version"] == json.loads(body)["version"]
    assert move["duration_ms"] > 0 and move["moves"] >= 1 and move["retries"] == 0


def test_log_format_json_logs_requests_and_moves_at_info_and_plain_does_not():
    code = (
        "import json, logging, logging.config, config.settings as s;"
        "logging.config.dictConfig(s.LOGGING);"
        "print(json.dumps([logging.getLogger(n).isEnabledFor(logging.INFO)"
        " for n in ('games.requests', 'games.moves')]))"
    )
    seen = {}
    for form in ("json", ""):
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_FORMAT": form}
        env.pop("DJANGO_LOG_LEVEL", None)
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        seen[form] = json.loads(done.stdout)
    assert seen == {"json": [True, True], "": [False, False]}


def test_route_labels_in_front_of_django_are_djangos_own():
    assert metrics.route_of("/api/games/0/moves") == MOVES_ROUTE


@pytest.mark.parametrize(
    ("path", "route"),
    [
        ("/look/ann", "/look"),
        ("/tables/12/pick/ann/1,2", "/tables/<id>/pick"),
        ("/tables/12/watch/bob", "/tables/<id>/watch"),
        ("/scores", "/scores"),
        ("/scoresheet", "/(protocol)"),
        ("/tables/x", "/(protocol)"),
    ],
)
def test_text_protocol_requests_are_counted_by_command_never_by_name(path, route):
    assert protocol.route_name(path) == route


def test_a_text_protocol_move_is_counted_by_its_way_in(example_table):
    moves = sample("games_moves_committed_total", kind="set", way="protocol")
    requests = sample(
        "http_requests_total", route="/tables/<id>/declare", method="GET", status="2xx"
    )
    status, _, _ = asgi("GET", f"/tables/{example_table.pk}/declare/ann")
    assert status == 200
    assert sample("games_moves_committed_total", kind="set", way="protocol") >= moves + 1
    assert (
        sample("http_requests_total", route="/tables/<id>/declare", method="GET", status="2xx")
        == requests + 1
    )
