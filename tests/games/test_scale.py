"""Scale: 50 clients at one table at the same moment, and two server processes sharing one
PostgreSQL and one Redis. Each test runs on whatever store the suite runs on (SQLite and the
in-memory layer, or PostgreSQL and Redis); the two-process test needs the shared store."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx
import pytest
import websockets

from cards.engine.rules import find_set
from tests.conftest import scaled_backend
from tests.games.conftest import EXAMPLE_DECK
from tests.games.test_races import run_at_once

CLIENTS = 50
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("servers")]


def at_once(count: int, act) -> list:
    """Run act(i) in `count` threads released together; return the results in order."""
    results = run_at_once(act, count)
    assert all(kind == "ok" for kind, _ in results), results
    return [value for _, value in results]


def clients(url: str, count: int) -> list[httpx.Client]:
    """One connection per client, opened beforehand, so the requests leave together."""
    opened = [httpx.Client(base_url=url, timeout=30) for _ in range(count)]
    for client in opened:
        client.get("/healthz")
    return opened


def log_of(http: httpx.Client, game_id: int) -> list[dict]:
    return http.get(f"/api/games/{game_id}/moves").json()


def test_fifty_claims_of_one_set_at_once_score_exactly_once(server):
    http = httpx.Client(base_url=server.url, timeout=30)
    options = {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}
    game_id = http.post(
        "/api/games/", json={"kind": "set", "open": True, "options": options}
    ).json()["id"]
    tokens = [
        http.post(f"/api/games/{game_id}/join", json={"name": f"p{i}"}).json()["token"]
        for i in range(CLIENTS)
    ]
    claim = {"type": "claim", "cards": EXAMPLE_DECK[0:3]}
    pool = clients(server.url, CLIENTS)
    auth = [{"Authorization": f"Token {token}"} for token in tokens]
    url = f"/api/games/{game_id}/moves"
    replies = at_once(CLIENTS, lambda i: pool[i].post(url, json=claim, headers=auth[i]))
    statuses = sorted(reply.status_code for reply in replies)
    assert statuses == [200] + [400] * (CLIENTS - 1), statuses
    winner = next(i for i, reply in enumerate(replies) if reply.status_code == 200)
    assert all(
        "just taken" in reply.json()["detail"] for reply in replies if reply.status_code == 400
    )
    log = log_of(http, game_id)
    assert [move["seq"] for move in log] == list(range(1, CLIENTS + 2))  # joins, one claim
    claims = [move for move in log if move["action"]["type"] == "claim"]
    assert [move["actor"] for move in claims] == [f"p{winner}"]
    view = http.get(f"/api/games/{game_id}/").json()
    scores = {seat["name"]: seat["score"] for seat in view["seats"]}
    assert scores == {f"p{i}": int(i == winner) for i in range(CLIENTS)}


def test_fifty_declares_at_once_over_the_text_protocol_make_one_declarer(server):
    http = httpx.Client(base_url=server.url, timeout=30)
    options = {"start": "now", "rules": "declare", "deck": EXAMPLE_DECK}
    table = http.post("/api/games/", json={"kind": "set", "options": options, "open": True})
    table_id = table.json()["id"]
    for i in range(CLIENTS):
        assert http.get(f"/tables/{table_id}/look/p{i}").status_code == 200
    pool = clients(server.url, CLIENTS)
    replies = at_once(CLIENTS, lambda i: pool[i].get(f"/tables/{table_id}/declare/p{i}"))
    assert [reply.status_code for reply in replies] == [200] * CLIENTS
    declared = [move for move in log_of(http, table_id) if move["action"]["type"] == "declare"]
    assert len(declared) == CLIENTS  # each declare is logged once: one declares, 49 queue
    first = declared[0]["actor"]
    # The board's declare line (its second line): "my <deadline>" for the one declarer, "up
    # <deadline>" with the same deadline for everyone else.
    lines = [reply.text.split("\n")[1] for reply in replies]
    mine = [i for i, line in enumerate(lines) if line.startswith("my ")]
    assert [f"p{i}" for i in mine] == [first]
    assert {line.split()[1] for line in lines} == {lines[mine[0]].split()[1]}
    assert sum(line.startswith("up ") for line in lines) == CLIENTS - 1
    log = log_of(http, table_id)
    assert [move["seq"] for move in log] == list(range(1, len(log) + 1))


# -- two processes --------------------------------------------------------------------------


needs_shared_store = pytest.mark.skipif(
    not scaled_backend(),
    reason="two processes share games through PostgreSQL and Redis (make test-scaled)",
)


def _classic_game(url: str) -> tuple[int, str, str]:
    with httpx.Client(base_url=url, timeout=10) as http:
        options = {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}
        game_id = http.post(
            "/api/games/", json={"kind": "set", "open": True, "options": options}
        ).json()["id"]
        ann = http.post(f"/api/games/{game_id}/join", json={"name": "ann"}).json()["token"]
        bob = http.post(f"/api/games/{game_id}/join", json={"name": "bob"}).json()["token"]
    return game_id, ann, bob


@needs_shared_store
@pytest.mark.parametrize("direction", ["a-to-b", "b-to-a"])
def test_a_websocket_on_one_process_sees_moves_made_through_the_other(twins, direction):
    mover, watcher = twins if direction == "a-to-b" else twins[::-1]
    game_id, ann, bob = _classic_game(mover.url)
    delays = asyncio.run(_websocket_delays(mover, watcher, game_id, ann, bob))
    # Pushed at once: most well under 0.2 s. The suite runs a browser and other servers on the
    # same 2 cores meanwhile, which can hold one push back a moment (0.24 s seen), never more.
    assert sorted(delays)[len(delays) // 2] < 0.2 and max(delays) < 0.5, delays


async def _websocket_delays(mover, watcher, game_id, ann, bob) -> list[float]:
    ws_url = watcher.url.replace("http", "ws") + f"/ws/games/{game_id}/?token={bob}"
    delays = []
    async with (
        websockets.connect(ws_url, origin=watcher.url) as socket,
        httpx.AsyncClient(base_url=mover.url, timeout=10) as http,
    ):
        state = json.loads(await asyncio.wait_for(socket.recv(), 5))
        for _ in range(5):
            cards = [entry["digits"] for entry in state["view"]["board"] if entry]
            found = find_set(cards)
            assert found is not None
            sent = time.monotonic()
            reply = await http.post(
                f"/api/games/{game_id}/moves",
                json={"type": "claim", "cards": [str(card) for card in found]},
                headers={"Authorization": f"Token {ann}"},
            )
            assert reply.status_code == 200, reply.text
            version = reply.json()["version"]
            while state.get("version", 0) < version:
                state = json.loads(await asyncio.wait_for(socket.recv(), 5))
            delays.append(time.monotonic() - sent)
    return delays


@needs_shared_store
@pytest.mark.parametrize("direction", ["a-to-b", "b-to-a"])
def test_a_watch_on_one_process_answers_moves_made_through_the_other(twins, direction):
    mover, watcher = twins if direction == "a-to-b" else twins[::-1]
    with httpx.Client(base_url=mover.url, timeout=10) as http:
        options = {"start": "now", "rules": "declare", "deck": EXAMPLE_DECK}
        created = http.post("/api/games/", json={"kind": "set", "options": options, "open": True})
        table = f"/tables/{created.json()['id']}"
        http.get(f"{table}/look/ann")
    with httpx.Client(base_url=watcher.url, timeout=10) as http:
        http.get(f"{table}/look/bob")  # bob joins first, so his /watch waits for a real event
        seen = len(log_of(http, created.json()["id"]))
    time.sleep(1.1)  # presence is marked at most once a second: the /watch will mark it

    answered: dict = {}

    def watch() -> None:
        with httpx.Client(base_url=watcher.url, timeout=10) as http:
            reply = http.get(f"{table}/watch/bob")
            answered["at"], answered["reply"] = time.monotonic(), reply

    waiting = threading.Thread(target=watch)
    waiting.start()
    with httpx.Client(base_url=mover.url, timeout=10) as http:
        # A /watch marks its player present after subscribing: once the log shows it, it waits.
        deadline = time.monotonic() + 5
        while len(log_of(http, created.json()["id"])) == seen and time.monotonic() < deadline:
            time.sleep(0.01)
        sent = time.monotonic()
        assert http.get(f"{table}/declare/ann").status_code == 200
    waiting.join(timeout=10)
    assert answered["reply"].status_code == 200
    assert answered["reply"].text.split("\n")[1].startswith("up ")
    # At once (a long poll that waited for its timeout would take seconds); the suite's other
    # work on the same 2 cores can hold it back a moment (0.2005 s seen).
    assert answered["at"] - sent < 0.5


@needs_shared_store
def test_an_idle_websocket_stays_open_and_still_gets_moves(twins):
    """channels-redis waits 5 s at a time for messages; a Redis client that gave up on its
    socket after 5 s closed every WebSocket idle that long (code 1011)."""
    mover, watcher = twins
    game_id, ann, bob = _classic_game(mover.url)
    asyncio.run(_idle_then_move(mover, watcher, game_id, ann, bob))


async def _idle_then_move(mover, watcher, game_id, ann, bob) -> None:
    ws_url = watcher.url.replace("http", "ws") + f"/ws/games/{game_id}/?token={bob}"
    async with websockets.connect(ws_url, origin=watcher.url) as socket:
        state = json.loads(await asyncio.wait_for(socket.recv(), 5))
        await asyncio.sleep(7)
        async with httpx.AsyncClient(base_url=mover.url, timeout=10) as http:
            reply = await http.post(
                f"/api/games/{game_id}/moves",
                json={"type": "hint"},
                headers={"Authorization": f"Token {ann}"},
            )
        assert reply.status_code == 200, reply.text
        pushed = json.loads(await asyncio.wait_for(socket.recv(), 5))
        assert pushed["version"] > state["version"]
