"""The deployment, as `make deploy-check` runs it: games played through nginx over HTTPS and secure
WebSockets, the proxy's headers (the visitor's address and scheme, the redirect to HTTPS, HSTS),
and static files served by nginx itself."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import subprocess
import sys
import time
import uuid

import httpx
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from cards.engine.rules import find_set
from tests.conftest import ROOT
from tests.deploy.conftest import SIGNUPS_PER_ADDRESS

pytestmark = pytest.mark.slow


def client(site, *, address: str = "127.0.0.1") -> httpx.Client:
    """An HTTPS client of the site from one loopback address (all of 127.0.0.0/8 is this
    machine: nginx sees each as another visitor)."""
    transport = httpx.HTTPTransport(local_address=address, verify=site.nginx.ssl_context())
    return httpx.Client(base_url=site.nginx.url, transport=transport, timeout=20)


def open_socket(site, path: str, origin: str, loop: asyncio.AbstractEventLoop):
    """A WebSocket through nginx, opened on `loop`. (websockets' asyncio client: its threaded
    client, over TLS, now and then sent no handshake at all, about one in thirty, and timed out.)"""
    return loop.run_until_complete(
        websockets.connect(
            f"{site.nginx.ws_url}{path}",
            origin=origin,
            ssl=site.nginx.ssl_context(),
            open_timeout=20,
            ping_interval=None,  # the loop runs only while the test reads or sends
        )
    )


class Socket:
    """A game's WebSocket through nginx, as a page opens it (the site's own Origin)."""

    def __init__(self, site, game: int, query: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.ws = open_socket(site, f"/ws/games/{game}/?{query}", site.nginx.url, self.loop)
        self.version = -1
        self.view: dict = {}

    def frame(self, timeout: float = 20) -> dict:
        raw = self.loop.run_until_complete(asyncio.wait_for(self.ws.recv(), timeout))
        frame = json.loads(raw)
        if frame.get("type") == "state":
            self.version, self.view = frame["version"], frame["view"]
        return frame

    def until(self, version: int) -> dict:
        """The view once the socket has been sent the game at `version` (or later)."""
        deadline = time.monotonic() + 20
        while self.version < version:
            self.frame(timeout=max(0.1, deadline - time.monotonic()))
        return self.view

    def act(self, action: dict) -> dict:
        """Send an action; its answer (a result or an error frame)."""
        self.loop.run_until_complete(self.ws.send(json.dumps(action)))
        while True:
            frame = self.frame()
            if frame.get("type") in ("result", "error"):
                return frame

    def close(self) -> None:
        self.loop.run_until_complete(self.ws.close())
        self.loop.close()


def new_game(http: httpx.Client, body: dict, names: tuple[str, ...]) -> tuple[int, str, list]:
    """A private game with `names` seated over the API: its id, key and the seats' tokens."""
    created = http.post("/api/games/", json=body)
    assert created.status_code == 201, created.text
    game, key = created.json()["id"], created.json()["key"]
    tokens = []
    for name in names:
        joined = http.post(f"/api/games/{game}/join?key={key}", json={"name": name})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    return game, key, tokens


def claim(view: dict) -> dict:
    found = find_set([entry["card"] for entry in view["board"] if entry])
    assert found is not None, view["board"]
    return {"type": "claim", "cards": [str(card) for card in found]}


def test_a_set_game_played_through_the_proxy(site):
    """ann claims over HTTPS, bob over a secure WebSocket, a spectator watches: to the game's end,
    every socket sent every change, whichever process each request reached."""
    with client(site) as http:
        body = {"kind": "set", "options": {"start": "now", "rules": "classic"}}
        game, key, (ann, bob) = new_game(http, body, ("ann", "bob"))
        bobs, watcher = Socket(site, game, f"token={bob}"), Socket(site, game, f"key={key}")
        headers = {"Authorization": f"Token {ann}"}
        try:
            version, over, moves = 0, False, 0
            while not over:
                moves += 1
                assert moves <= 40, "a Set game of 81 cards takes at most 27 sets"
                if moves % 2:
                    view = http.get(f"/api/games/{game}/", headers=headers)
                    assert view.status_code == 200, view.text
                    answer = http.post(
                        f"/api/games/{game}/moves", json=claim(view.json()["view"]), headers=headers
                    )
                    assert answer.status_code == 200, answer.text
                    assert answer.headers["strict-transport-security"].startswith("max-age=")
                    version, over = answer.json()["version"], answer.json()["view"]["over"]
                else:
                    result = bobs.act(claim(bobs.until(version)))
                    assert result["type"] == "result", result
                    version = result["version"]
                    over = bobs.until(version)["over"]
            assert watcher.until(version)["over"]
            assert bobs.until(version)["over"]
        finally:
            bobs.close()
            watcher.close()
        log = http.get(f"/api/games/{game}/moves?key={key}").json()
        assert [move["seq"] for move in log] == list(range(1, version + 1))
        assert {move["actor"] for move in log if move["action"]["type"] == "claim"} == {
            "ann",
            "bob",
        }
    # Both daphne processes answered the game's requests.
    answered = {line.split("upstream=")[1].split()[0] for line in site.nginx.log()}
    assert {f"127.0.0.1:{server.port}" for server in site.servers} <= answered


def test_a_square_game_played_through_the_proxy(site):
    """Seat 1 over HTTPS, seat 2 over a secure WebSocket: each takes a legal placement (or passes)
    on its turn until the game ends (at most 60 moves here)."""
    with client(site) as http:
        body = {"kind": "square", "options": {"players": 2}}
        game, key, (ann, bob) = new_game(http, body, ("ann", "bob"))
        bobs = Socket(site, game, f"token={bob}")
        headers = {"Authorization": f"Token {ann}"}
        try:
            version = http.get(f"/api/games/{game}/", headers=headers).json()["version"]
            for _ in range(60):
                view = http.get(f"/api/games/{game}/", headers=headers).json()["view"]
                if view["phase"] == "over":
                    break
                action = move(view if view["your_turn"] else bobs.until(version))
                if view["your_turn"]:
                    answer = http.post(f"/api/games/{game}/moves", json=action, headers=headers)
                    assert answer.status_code == 200, answer.text
                    version = answer.json()["version"]
                else:
                    result = bobs.act(action)
                    assert result["type"] == "result", result
                    version = result["version"]
            assert version >= 10
            assert bobs.until(version)["placements"] == view_of(http, game, headers)["placements"]
        finally:
            bobs.close()


def move(view: dict) -> dict:
    """The first legal placement of the seat to move (its opening before the game starts)."""
    assert view["your_turn"], view
    if not view["legal"]:
        return {"type": "pass"}
    piece, permutation, x, y = view["legal"][0]
    kind = "opening" if view["phase"] == "opening" else "place"
    return {"type": kind, "piece": piece, "permutation": permutation, "x": x, "y": y}


def view_of(http, game, headers) -> dict:
    return http.get(f"/api/games/{game}/", headers=headers).json()["view"]


def test_a_socket_from_another_origin_is_refused(site):
    """The scheme daphne sees is the visitor's (https): a page on http:// of the same host and
    port is another origin, and its handshake is refused."""
    with client(site) as http:
        game, key, _ = new_game(http, {"kind": "set", "options": {"start": "now"}}, ())
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(InvalidStatus) as refused:
            path, origin = f"/ws/games/{game}/?key={key}", site.nginx.url.replace("https:", "http:")
            open_socket(site, path, origin, loop)
    finally:
        loop.close()
    assert refused.value.response.status_code == 403


def test_plain_http_moves_to_https(site):
    with httpx.Client(base_url=site.nginx.http_url, timeout=20) as http:
        answer = http.get("/api/games/?status=open")
    assert answer.status_code == 301
    assert answer.headers["location"] == f"{site.nginx.url}/api/games/?status=open"


def test_https_answers_carry_hsts_once(site):
    with client(site) as http:
        for path in ("/", "/api/games/", "/healthz"):
            answer = http.get(path)
            assert answer.status_code == 200, (path, answer.status_code)
            assert answer.headers.get_list("strict-transport-security") == [
                "max-age=31536000; includeSubDomains; preload"
            ], path
        page = http.get("/")
        # Django knows the visit is secure (X-Forwarded-Proto): no redirect, secure cookies.
        cookies = page.headers.get_list("set-cookie")
        assert cookies and all("; secure" in cookie.lower() for cookie in cookies), cookies


def test_static_files_are_served_by_nginx(site):
    """A page's scripts and styles come from collectstatic's folder, answered by nginx (no
    daphne process in its log line), with HSTS too."""
    with client(site) as http:
        page = http.get("/").text
        assets = sorted(
            {part.split('"')[0] for part in page.split('"/static/')[1:]},
        )
        assert assets, "the lobby names its static files"
        for asset in assets:
            answer = http.get(f"/static/{asset}")
            assert answer.status_code == 200, asset
            assert answer.content == (site.static_root / asset).read_bytes()
            assert answer.headers["strict-transport-security"].startswith("max-age=")
    served = site.nginx.logged('"GET /static/', len(assets))
    assert len(served) == len(assets)
    assert all("upstream=- " in line for line in served), served


def test_the_metrics_are_not_passed_to_visitors(site):
    """Each process answers /metrics to loopback (Prometheus scrapes it at its port); through
    nginx it is not there, even for a visitor on the machine itself."""
    with client(site) as http:
        assert http.get("/metrics").status_code == 404
    with httpx.Client(base_url=site.servers[0].url, timeout=20) as direct:
        answer = direct.get("/metrics")
    assert answer.status_code == 200 and "games_moves_committed_total" in answer.text


def test_the_client_address_is_the_visitors(site):
    """Rate limits count by the address daphne sees: the visitor's (X-Forwarded-For, set by
    nginx), not nginx's, and not one the visitor forges."""

    def sign_up(http: httpx.Client, **headers) -> int:
        name = f"u{uuid.uuid4().hex[:10]}"
        body = {"username": name, "password": "a long passphrase 2026"}
        return http.post("/api/accounts", json=body, headers=headers).status_code

    with client(site, address="127.0.0.2") as first, client(site, address="127.0.0.3") as second:
        assert [sign_up(first) for _ in range(SIGNUPS_PER_ADDRESS)] == [201] * 3
        assert sign_up(first) == 429
        assert sign_up(first, **{"X-Forwarded-For": "203.0.113.9"}) == 429  # forged: replaced
        assert sign_up(second) == 201  # another visitor, its own count
    seen = {line.split()[0] for line in site.nginx.logged('"POST /api/accounts', 6)}
    assert seen == {"127.0.0.2", "127.0.0.3"}


def test_djangos_deployment_checks_pass_with_the_environment_file(site):
    """`manage.py check --deploy` with the deployment's environment: no warning."""
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=site.servers[0].env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_watch_through_the_proxy_answers_the_next_change(site):
    """The plain-text protocol's long-poll through nginx: /watch waits, and answers when another
    player changes the table (whichever process each request reached)."""
    with client(site) as http, client(site) as other:
        for name in ("carol", "alice"):
            assert http.get(f"/look/{name}").status_code == 200
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            # A watch answers any change it has not seen: one that a process heard of late
            # (alice's join) answers it at once. Watch again until one is waiting.
            for _ in range(5):
                watch = pool.submit(http.get, "/watch/carol")
                time.sleep(1)
                if not watch.done():
                    break
            assert not watch.done()
            started = time.monotonic()
            assert other.get("/declare/alice").status_code == 200
            answer = watch.result(timeout=30)
        assert answer.status_code == 200, answer.text
        assert re.match(r"\d+x\d+\n", answer.text)  # a board, as the original server sends it
        assert time.monotonic() - started < 20  # the change answered it, not the watch's timeout
