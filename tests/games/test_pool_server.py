"""Play now under daphne (issue 29, item 1): the pairing timer on the server's event loop seats
two players once the wait limit has passed, with no request meanwhile; and a restarted server
pairs who still waits on its first pool request (the entries are rows)."""

from __future__ import annotations

import time

import httpx

from tests.accounts.test_event_stream import _event, _open
from tests.conftest import Server

PASSWORD = "correct horse battery"


def account(http: httpx.Client, name: str) -> dict:
    made = http.post("/api/accounts", json={"username": name, "password": PASSWORD})
    assert made.status_code == 201, made.text
    return {"Authorization": f"Bearer {made.json()['token']}"}


def bearer(headers: dict) -> str:
    return headers["Authorization"].removeprefix("Bearer ")


def test_the_server_timer_seats_two_after_the_wait_limit(tmp_path):
    server = Server(tmp_path, POOL_WAIT_LIMIT_S="1").start()
    try:
        with httpx.Client(base_url=server.url, timeout=10) as http:
            ada, bob = account(http, "ada"), account(http, "bob")
            stream = _open(server, "/api/stream/event", bearer(bob))  # as a bot follows
            assert stream.status == 200
            time.sleep(0.3)  # the stream has joined its group
            body = {"kind": "square", "options": {"mode": "square"}}
            assert http.post("/api/pool", json=body, headers=ada).status_code == 202
            second = http.post("/api/pool", json=body, headers=bob).json()
            assert second["waiting"] is not None  # under a second: nobody sits yet
            time.sleep(2.5)  # no request meanwhile: only the timer can seat them
            seated = [http.get("/api/pool", headers=who).json()["seated"] for who in (ada, bob)]
            assert seated[0] is not None and seated[0]["id"] == seated[1]["id"], seated
            game = http.get(f"/api/games/{seated[0]['id']}/", headers=ada).json()
            assert sorted(s["name"] for s in game["seats"]) == ["ada", "bob"]
            told = _event(stream)  # bob's event stream heard it
            assert told["type"] == "gameStart" and told["game"]["id"] == seated[0]["id"]
            stream.close()
            stream.connection.close()
    finally:
        server.stop()


def test_a_restarted_server_pairs_who_still_waits(tmp_path):
    first = Server(tmp_path, POOL_WAIT_LIMIT_S="60").start()
    with httpx.Client(base_url=first.url, timeout=10) as http:
        ada, bob = account(http, "ada"), account(http, "bob")
        body = {"kind": "set", "options": {"mode": "set-classic"}}
        for who in (ada, bob):
            assert http.post("/api/pool", json=body, headers=who).json()["waiting"] is not None
    first.kill()
    time.sleep(1.2)
    second = Server(tmp_path, like=first, POOL_WAIT_LIMIT_S="1").start(migrate=False)
    try:
        with httpx.Client(base_url=second.url, timeout=10) as http:
            state = http.get("/api/pool", headers=ada).json()
            assert state["waiting"] is None and state["seated"] is not None, state
    finally:
        second.stop()
