"""A credential ended in one process ends what it opened in every process (issue 23, finding 3):
an account's token revoked through one server, its seat token is refused by the other at once,
and the socket it opened there closes (4401)."""

from __future__ import annotations

import re

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.processes.test_races import PASSWORD, browser, form_token

TOKEN_ROW = re.compile(r'name="revoke" value="(\d+)"')


def test_a_token_revoked_through_one_process_ends_its_seat_and_socket_in_the_other(pair):
    first, second = pair
    made = httpx.post(f"{first.url}/api/accounts", json={"username": "Rev", "password": PASSWORD})
    assert made.status_code == 201, made.text
    bearer = {"Authorization": f"Bearer {made.json()['token']}"}
    with httpx.Client(base_url=second.url, timeout=30) as other:
        game = other.post(
            "/api/games/",
            json={"kind": "set", "open": True, "options": {"start": "now"}},
            headers=bearer,
        ).json()
        joined = other.post(f"/api/games/{game['id']}/join", json={"name": "x"}, headers=bearer)
        assert joined.status_code == 201, joined.text
        seat = {"Authorization": f"Token {joined.json()['token']}"}
        moves = f"/api/games/{game['id']}/moves"
        assert other.post(moves, json={"type": "count"}, headers=seat).status_code == 200
        address = second.url.replace("http", "ws", 1) + f"/ws/games/{game['id']}/"
        with connect(
            f"{address}?token={joined.json()['token']}", origin=second.url, open_timeout=10
        ) as socket:
            assert '"type":"state"' in socket.recv(timeout=10)
            # The account revokes its token on its page, served by the first process.
            login = browser(first.url)
            answer = login.post(
                "/accounts/login/",
                data={
                    "csrfmiddlewaretoken": form_token(login, "/accounts/login/"),
                    "login": "Rev",
                    "password": PASSWORD,
                },
            )
            assert answer.status_code == 302, answer.text[:300]
            page = login.get("/accounts/tokens/").text
            revoked = login.post(
                "/accounts/tokens/",
                data={
                    "csrfmiddlewaretoken": form_token(login, "/accounts/tokens/"),
                    "revoke": TOKEN_ROW.search(page).group(1),
                },
            )
            assert revoked.status_code == 302, revoked.text[:300]
            try:
                while True:
                    socket.recv(timeout=5)
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 4401
        assert other.post(moves, json={"type": "count"}, headers=seat).status_code == 401
        assert other.get("/api/games/", headers=bearer).status_code == 401
