"""A table page whose server restarts: the server closes its socket with 1012 (config/server.py),
the page says it is reconnecting, connects again as soon as a server is back on its address, and
shows what happened meanwhile, within 5 s."""

from __future__ import annotations

import signal
import time

import httpx

from tests.conftest import Server
from tests.e2e.conftest import E2E, watched_page
from tests.games.conftest import EXAMPLE_DECK

pytestmark = E2E

CLASSIC = {"kind": "set", "open": True, "options": {"start": "now", "rules": "classic"}}


def test_a_table_page_comes_back_in_sync_when_its_server_restarts(browser, tmp_path):
    first = Server(tmp_path).start()
    second = None
    try:
        with httpx.Client(base_url=first.url, timeout=10) as http:
            game = http.post(
                "/api/games/",
                json={**CLASSIC, "options": {**CLASSIC["options"], "deck": EXAMPLE_DECK}},
            ).json()["id"]
            token = http.post(f"/api/games/{game}/join", json={"name": "ann"}).json()["token"]
        with watched_page(browser) as (page, errors):
            page.goto(f"{first.url}/play/{game}/")
            page.wait_for_selector("#connection[data-state=live]")
            page.wait_for_selector("#scores li[data-player=ann] .score-value:text-is('0')")

            first.process.send_signal(signal.SIGTERM)
            page.wait_for_selector("#connection[data-state=reconnecting]")
            assert first.process.wait(timeout=20) == 0
            first.log.close()

            second = Server(tmp_path, like=first, port=first.port).start(migrate=False)
            back = time.monotonic()
            with httpx.Client(base_url=second.url, timeout=10) as http:
                claim = {"type": "claim", "cards": EXAMPLE_DECK[0:3]}
                moved = http.post(
                    f"/api/games/{game}/moves",
                    json=claim,
                    headers={"Authorization": f"Token {token}"},
                )
                assert moved.status_code == 200, moved.text
            page.wait_for_selector(
                "#scores li[data-player=ann] .score-value:text-is('1')", timeout=5000
            )
            page.wait_for_selector("#connection[data-state=live]", timeout=1000)
            assert time.monotonic() - back < 5
            assert not [e for e in errors if "WebSocket" not in e], errors
    finally:
        first.stop()
        if second is not None:
            second.stop()
