"""/watch is a real long poll, tested against the real server (daphne, as `make run` serves).

It wakes on the spec's events and not on others, answers at a declare deadline with no request
at all, answers at once on a finished table, and gives up after the configured timeout (3 s in
the test server).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.games.conftest import EXAMPLE_DECK, board_lines

pytestmark = pytest.mark.slow
POOL = ThreadPoolExecutor(max_workers=12)


class Client:
    def __init__(self, server, **options):
        self.http = httpx.Client(base_url=server.url, timeout=10)
        created = self.http.post(
            "/api/games/",
            json={
                "kind": "set",
                "options": {"start": "now", "rules": "declare", "deck": EXAMPLE_DECK, **options},
                "open": True,
            },
        )
        assert created.status_code == 201, created.text
        self.table = created.json()["id"]

    def get(self, path: str) -> str:
        response = self.http.get(f"/tables/{self.table}{path}")
        assert response.status_code == 200, response.text
        return response.text

    def watch(self, name: str, settle: bool = True):
        """Start a watch in the background and give it time to join and wait.

        The future gives the reply and the moment it came (time.monotonic()).
        """
        future = POOL.submit(lambda: (self.get(f"/watch/{name}"), time.monotonic()))
        if not settle:
            return future
        # A watch waits for events after it arrives; give the server time to take it in (a
        # loaded 2-core machine can take a few hundred milliseconds).
        time.sleep(1.0)
        return future


def test_a_watch_wakes_on_a_declare_with_the_watchers_view(server):
    client = Client(server)
    watch = client.watch("bob")
    assert not watch.done()
    acted = time.monotonic()
    declared = client.get("/declare/alice")
    answer, _ = watch.result(timeout=5)
    assert time.monotonic() - acted < 1
    deadline = board_lines(declared)[1].split()[1]
    assert board_lines(answer)[1] == f"up {deadline}"


def test_non_events_do_not_wake_a_watch(server):
    client = Client(server)
    client.get("/declare/alice")
    client.get("/look/bob")
    client.get("/look/carol")
    started = time.monotonic()
    watch = client.watch("carol")
    client.get("/pick/bob/1,1")  # ignored: bob is not the declarer
    client.get("/declare/bob")  # joining the queue is not an event
    client.get("/look/alice")
    client.get("/scores")
    time.sleep(0.5)
    assert not watch.done()
    answer, came = watch.result(timeout=6)  # answered by the 3 s watch timeout
    assert came - started >= 2.9
    assert board_lines(answer)[0] == "3x4"


def test_a_watch_wakes_on_each_pick_and_vote(server):
    client = Client(server)
    client.get("/declare/alice")
    for action in ("/pick/alice/0,0", "/pick/alice/0,0", "/add/alice"):  # pick, deselect, vote
        watch = client.watch("bob")
        acted = time.monotonic()
        client.get(action)
        assert watch.result(timeout=3)[1] - acted < 1, action


def test_a_declare_timeout_wakes_watchers_with_no_request_at_all(server):
    client = Client(server, declare_ms=2000)
    client.get("/look/bob")
    client.get("/declare/alice")
    deadline = time.monotonic() + 2
    answer, came = client.watch("bob").result(timeout=5)
    assert came - deadline < 1  # answered promptly at the deadline
    assert board_lines(answer)[1] == "none"
    assert client.get("/scores") == "alice 0 none\nbob 0 none\n"


def test_own_join_does_not_wake_the_watcher_but_wakes_others(server):
    client = Client(server)
    first = client.watch("bob")
    joined = time.monotonic()
    second = client.watch("carol")
    assert first.result(timeout=3)[1] - joined < 1.5  # carol's join woke bob
    assert not second.done()
    assert second.result(timeout=5)[1] - joined >= 2.9  # carol waited for the timeout


def test_many_watchers_all_wake_on_one_event(server):
    client = Client(server)
    names = [f"w{i}" for i in range(6)]
    for name in names:
        client.get(f"/look/{name}")  # join first, so starting the watches is no event
    watches = [client.watch(name, settle=False) for name in names]
    time.sleep(1.0)
    assert not any(watch.done() for watch in watches)
    client.get("/declare/alice")
    for watch in watches:
        answer, _ = watch.result(timeout=5)
        assert board_lines(answer)[1].startswith("up ")


def test_the_game_detail_counts_waiting_watches(server):
    client = Client(server)
    client.get("/look/bob")
    watch = client.watch("bob")
    detail = client.http.get(f"/api/games/{client.table}/").json()
    assert detail["watching"] == 1
    client.get("/declare/alice")
    watch.result(timeout=3)
    assert client.http.get(f"/api/games/{client.table}/").json()["watching"] == 0


def test_answered_watches_leave_no_channel_behind(server):
    """Each /watch listens on a channel of its own; once answered, the channel layer must forget
    it (on Redis's pub/sub layer it is a subscription that would otherwise stay for good)."""
    if "CHANNEL_PREFIX" not in server.env:
        pytest.skip("counts Redis subscriptions: the suite's PostgreSQL and Redis run")
    import redis

    pattern = f"{server.env['CHANNEL_PREFIX']}specific.*"
    subscribed = redis.Redis.from_url(server.env["REDIS_URL"])
    before = len(subscribed.pubsub_channels(pattern))
    client = Client(server)
    watches = [client.watch(name, settle=False) for name in ("bob", "carol", "dave")]
    time.sleep(1.0)
    client.get("/declare/alice")
    for watch in watches:
        watch.result(timeout=5)
    time.sleep(0.3)
    assert len(subscribed.pubsub_channels(pattern)) <= before
