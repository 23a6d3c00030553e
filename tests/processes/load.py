"""A bounded load of moves over HTTP and WebSockets, spread over the servers, noting every answer.

Each table is a classic Set game of two seats: ann plays over the JSON API through one server,
bob over a WebSocket through the other, and a spectator's socket watches from ann's server, so
every game has a socket on each process. A player makes a move every PAUSE_S (mostly a count of
the sets, now and then a claim); a game that ends is followed by a new one. A player that cannot
reach its server (killed) goes on with the other one, as a load balancer would send it.

What is noted: every HTTP answer (its time, status, Retry-After, body), every error frame, every
socket closed, every move the server acknowledged (a 200, or a result frame: game, version,
actor, action), and every state frame each socket was sent (its version, when).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from ssl import SSLContext

import httpx
import websockets

from cards.engine.rules import find_set

PAUSE_S = 0.15  # between two moves of one player: about 6 moves a second each
CLAIMS = 0.1  # the share of moves that claim a set (a game lasts a while)
CLASSIC = {"kind": "set", "options": {"start": "now", "rules": "classic"}}


def refused(answer) -> None:
    """Go on after a lost connection or a 503 (an outage); anything else is a failure."""
    if answer is not None and answer.status_code != 503:
        raise AssertionError(f"{answer.status_code}: {answer.text[:200]}")


SERVICE_RESTART = 1012  # the close code of a server that stops (config/server.py)
RETRY_S = 0.25  # a client waits this long after a 503 or a lost connection (shorter than asked,
# to knock more often during an outage)


@dataclass
class Answer:
    at: float
    way: str  # "http" or "ws"
    server: str
    status: int | str  # an HTTP status; "conn" (no answer: the server is gone); a frame's code
    retry_after: str | None = None
    detail: str = ""
    took: float = 0.0  # an HTTP request's: from sending it to its answer (or its failure)


@dataclass
class Socket:
    """A socket's life: the game, the versions of the state frames it was sent (with when)."""

    game: int
    who: str
    server: str
    table: int = 0
    ended: float | None = None  # when the client stopped using it (or lost it)
    versions: list[tuple[float, int]] = field(default_factory=list)
    open: bool = False
    closes: list[tuple[float, int | None]] = field(default_factory=list)
    view: dict | None = None  # the latest view it was sent
    sent: dict | None = None  # the action sent and not answered yet
    answered: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def version(self) -> int:
        return self.versions[-1][1] if self.versions else -1

    def shown(self, version: int) -> float | None:
        """When the socket was first sent a state of at least `version`."""
        return next((at for at, seen in self.versions if seen >= version), None)


@dataclass
class Table:
    number: int
    game: int = 0
    key: str = ""  # its game's: a spectator brings it, as one who has the link
    tokens: dict[str, str] = field(default_factory=dict)
    over: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    # A quiet table's players stop before the others: then only a resynchronisation brings
    # its sockets what they missed.
    api_until: float = float("inf")
    socket_until: float = float("inf")


class Load:
    def __init__(
        self, urls: list[str], *, tables: int = 4, seed: int = 23, ssl: SSLContext | None = None
    ) -> None:
        self.urls = urls
        self.ssl = ssl  # the TLS settings for https:// and wss:// (a proxy in front)
        self.tables = [Table(number) for number in range(tables)]
        self.random = random.Random(seed)
        self.answers: list[Answer] = []
        self.acks: dict[int, dict[int, tuple[str, dict]]] = {}
        self.made: dict[int, tuple[int, float]] = {}  # each game's newest version acked, when
        self.sockets: list[Socket] = []
        self.games: dict[int, str] = {}  # each game made, and its key (a private game's)
        self.moving = True  # players make moves
        self.running = True  # sockets stay open
        self.down: set[str] = set()  # servers known to be gone (killed)
        self.tasks: list[asyncio.Task] = []
        self.http: dict[str, httpx.AsyncClient] = {}

    # -- bookkeeping ---------------------------------------------------------------------------

    def note(
        self, way: str, server: str, status, retry_after=None, detail: str = "", took: float = 0.0
    ) -> None:
        self.answers.append(
            Answer(time.monotonic(), way, server, status, retry_after, detail, took)
        )

    def ack(self, game: int, version: int, actor: str, action: dict) -> None:
        self.acks.setdefault(game, {})[version] = (actor, action)
        self.made[game] = max(self.made.get(game, (0, 0.0)), (version, time.monotonic()))

    def server_for(self, index: int) -> str:
        """The index-th server, or another one that is up when it is gone."""
        url = self.urls[index % len(self.urls)]
        if url in self.down:
            url = next(other for other in self.urls if other not in self.down)
        return url

    def gone(self, url: str) -> None:
        """A server that refuses connections is taken out, as a load balancer does."""
        if len(self.down) < len(self.urls) - 1:
            self.down.add(url)

    def back(self, url: str) -> None:
        """A server serves again (restarted): the load balancer sends it its share again."""
        self.down.discard(url)

    def choose(self, view: dict | None) -> dict:
        if view is not None and self.random.random() < CLAIMS:
            found = find_set([entry["card"] for entry in view["board"] if entry])
            if found is not None:
                return {"type": "claim", "cards": [str(card) for card in found]}
        return {"type": "count"}

    # -- running -------------------------------------------------------------------------------

    async def start(self) -> None:
        for url in self.urls:
            self.http[url] = httpx.AsyncClient(base_url=url, timeout=10, verify=self.ssl or True)
        for table in self.tables:
            await self.new_game(table)
        for table in self.tables:
            self.tasks += [
                asyncio.ensure_future(self.api_player(table)),
                asyncio.ensure_future(self.socket_player(table)),
                asyncio.ensure_future(self.spectator(table)),
            ]

    async def stop_moving(self) -> None:
        self.moving = False
        await asyncio.sleep(PAUSE_S * 4)  # the last moves answered

    async def wind_down(self, back: float, within: float) -> tuple[float, dict, dict]:
        """Stop moving, wait for the sockets to be in sync (`in_sync(back, within)`) and read
        each game's move log: (when the moves stopped, the sockets' lags, the logs by game)."""
        await self.stop_moving()
        stopped = time.monotonic()
        lags = await self.in_sync(back, within)
        logs = {}
        for game, key in self.games.items():
            answer = await self.request("GET", 0, f"/api/games/{game}/moves?key={key}")
            logs[game] = answer.json()
        return stopped, lags, logs

    async def close(self) -> None:
        self.moving = self.running = False
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for client in self.http.values():
            await client.aclose()

    async def request(self, method: str, index: int, path: str, **kwargs) -> httpx.Response | None:
        """A request to the index-th server (or the one up); None when no answer came."""
        url = self.server_for(index)
        sent = time.monotonic()
        try:
            answer = await self.http[url].request(method, path, **kwargs)
        except httpx.TransportError as exc:
            self.note("http", url, "conn", detail=repr(exc), took=time.monotonic() - sent)
            if isinstance(exc, httpx.ConnectError):
                self.gone(url)
            return None
        self.note(
            "http",
            url,
            answer.status_code,
            answer.headers.get("retry-after"),
            answer.text,
            took=time.monotonic() - sent,
        )
        return answer

    async def new_game(self, table: Table) -> None:
        """A new classic table (private: its players join by its key, as a friend's link would)
        with ann and bob seated, retried through an outage (a 503 or a lost connection; any
        other refusal is the load's own mistake)."""
        while True:
            created = await self.request("POST", table.number, "/api/games/", json=CLASSIC)
            if created is not None and created.status_code == 201:
                break
            refused(created)
            await asyncio.sleep(RETRY_S)
        game, key = created.json()["id"], created.json()["key"]
        tokens = {}
        for name in ("ann", "bob"):
            while name not in tokens:
                joined = await self.request(
                    "POST", table.number, f"/api/games/{game}/join?key={key}", json={"name": name}
                )
                if joined is not None and joined.status_code == 201:
                    tokens[name] = joined.json()["token"]
                else:
                    refused(joined)
                    await asyncio.sleep(RETRY_S)
        self.games[game] = key
        table.game, table.key, table.tokens, table.over = game, key, tokens, False
        table.changed.set()
        table.changed = asyncio.Event()

    async def api_player(self, table: Table) -> None:
        try:
            await self.play_api(table)
        except Exception as exc:  # the load's own mistake: a failure
            self.note("http", "", "client error", detail=repr(exc))
            raise

    async def play_api(self, table: Table) -> None:
        view = None
        while self.moving and time.monotonic() < table.api_until:
            if table.over:
                await self.new_game(table)
                view = None
            game, token = table.game, table.tokens["ann"]
            action = self.choose(view)
            answer = await self.request(
                "POST",
                table.number,
                f"/api/games/{game}/moves",
                json=action,
                headers={"Authorization": f"Token {token}"},
            )
            if answer is None or answer.status_code == 503:
                await asyncio.sleep(RETRY_S)
                continue
            if answer.status_code == 200:
                body = answer.json()
                self.ack(game, body["version"], "ann", action)
                view = body["view"]
                table.over = table.over or body["view"].get("over", False)
            await asyncio.sleep(PAUSE_S)

    async def socket_player(self, table: Table) -> None:
        await self.follow(table, "bob", index=table.number + 1, plays=True)

    async def spectator(self, table: Table) -> None:
        await self.follow(table, "watcher", index=table.number, plays=False)

    async def follow(self, table: Table, who: str, *, index: int, plays: bool) -> None:
        """Keep a socket open on the table's game (again after a close, on the other server
        if its own is gone; on the next game when the table moves on); as bob, play on it."""
        while self.running:
            game, changed = table.game, table.changed
            url = self.server_for(index)
            query = f"?token={table.tokens['bob']}" if plays else f"?key={table.key}"
            address = url.replace("http", "ws", 1) + f"/ws/games/{game}/{query}"
            socket = Socket(game, who, url, table.number)
            self.sockets.append(socket)
            try:
                secure = self.ssl if address.startswith("wss:") else None
                async with websockets.connect(
                    address, origin=url, open_timeout=5, ssl=secure
                ) as ws:
                    socket.open = True
                    reading = asyncio.ensure_future(self.read(ws, socket, table))
                    tasks = [reading, asyncio.ensure_future(changed.wait())]
                    if plays:
                        tasks.append(asyncio.ensure_future(self.play(ws, socket, table)))
                    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                    for task in tasks:
                        task.cancel()
                    for task in done:
                        failed = task.exception()
                        if failed is not None and not isinstance(
                            failed, websockets.exceptions.ConnectionClosed
                        ):  # not the server gone: the load's own mistake, a failure
                            self.note("ws", url, "client error", detail=repr(failed))
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await reading
            except (OSError, websockets.exceptions.WebSocketException) as exc:
                if isinstance(exc, ConnectionRefusedError):
                    self.gone(url)
                self.note("ws", url, "conn", detail=repr(exc))
            finally:
                socket.open = False
                socket.ended = time.monotonic()
            restart = socket.closes and socket.closes[-1][1] == SERVICE_RESTART
            if self.running and not restart:  # a server that stops: reconnect at once, as a page
                await asyncio.sleep(RETRY_S)

    async def read(self, ws, socket: Socket, table: Table) -> None:
        try:
            async for raw in ws:
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == "state":
                    socket.versions.append((time.monotonic(), frame["version"]))
                    socket.view = frame["view"]
                    if frame["view"].get("over"):
                        table.over = True
                elif kind == "result":
                    if socket.sent is not None:
                        self.ack(socket.game, frame["version"], "bob", socket.sent)
                        socket.sent = None
                    socket.answered.set()
                elif kind == "error":
                    self.note("ws", socket.server, frame.get("code"), detail=frame.get("detail"))
                    socket.answered.set()
        except websockets.exceptions.ConnectionClosed as closed:
            socket.closes.append((time.monotonic(), closed.rcvd.code if closed.rcvd else None))
            self.note("ws", socket.server, f"closed {closed.rcvd.code if closed.rcvd else ''}")

    async def play(self, ws, socket: Socket, table: Table) -> None:
        while self.moving and time.monotonic() < table.socket_until:
            action = self.choose(socket.view)
            socket.answered.clear()
            socket.sent = action
            await ws.send(json.dumps(action))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(socket.answered.wait(), 5)
            await asyncio.sleep(PAUSE_S)
        await asyncio.Event().wait()  # the socket stays open, as a player's page

    # -- what happened -------------------------------------------------------------------------

    def statuses(self, start: float = 0.0, end: float = float("inf")) -> Counter:
        return Counter(a.status for a in self.answers if start <= a.at < end)

    def failures(self) -> list[Answer]:
        """Answers no client should ever get: a 5xx other than a 503 with Retry-After, or an
        error frame other than an outage's or a rule's."""
        bad = []
        for answer in self.answers:
            if isinstance(answer.status, int) and answer.status >= 500:
                if answer.status != 503 or not answer.retry_after:
                    bad.append(answer)
            elif answer.status in ("internal", "closed 1011", "client error"):
                bad.append(answer)
        return bad

    def quiet(self, table: Table, *, moves_for: float) -> None:
        """Make a table quiet: its socket player stops now, its API player after `moves_for`
        seconds (its moves then reach the other process's sockets, or do not)."""
        table.socket_until = time.monotonic()
        table.api_until = time.monotonic() + moves_for

    async def versions(self) -> dict[int, int]:
        """Each game's version now, read from a server that is up."""
        versions = {}
        for game in sorted(self.games):
            while game not in versions:
                answer = await self.request("GET", 0, f"/api/games/{game}/?key={self.games[game]}")
                if answer is not None and answer.status_code == 200:
                    versions[game] = answer.json()["version"]
                else:
                    refused(answer)
                    await asyncio.sleep(RETRY_S)
        return versions

    async def in_sync(self, since: float, within: float) -> dict[str, float]:
        """Wait until each table's sockets have been sent the state of its game's current
        version; how long each one took, from `since` or from when that version was made if
        later (at most `within` seconds: then the socket's lag is infinite)."""
        versions = await self.versions()
        made = {
            game: max(since, self.made[game][1]) if game in self.made else since
            for game in versions
        }
        deadline = max(made.values(), default=since) + within
        while True:
            late: dict[str, float] = {}
            for table in self.tables:
                for who in ("bob", "watcher"):
                    mine = [s for s in self.sockets if s.game == table.game and s.who == who]
                    socket = mine[-1] if mine else None
                    shown = socket.shown(versions[table.game]) if socket else None
                    key = f"table {table.number} {who}"
                    lag = None if shown is None else max(0.0, shown - made[table.game])
                    late[key] = float("inf") if lag is None or lag > within else lag
            if all(lag != float("inf") for lag in late.values()) or time.monotonic() > deadline:
                return late
            await asyncio.sleep(0.05)

    def moved_over(self, url: str, since: float) -> dict[str, float]:
        """For each socket open on `url` at `since` (a server killed then): how long after
        `since` its client had a socket on another server and its first state."""
        times = {}
        for gone in self.sockets:
            opened = gone.versions[0][0] if gone.versions else float("inf")
            if gone.server != url or opened > since or (gone.ended or since) < since:
                continue
            later = [
                s.versions[0][0]
                for s in self.sockets
                if (s.table, s.who) == (gone.table, gone.who) and s.server != url and s.versions
            ]
            first = min((at for at in later if at > since), default=float("inf"))
            times[f"table {gone.table} {gone.who}"] = first - since
        return times

    def reconnected(self, since: float) -> dict[str, float]:
        """For each socket that was open at `since` and lost after it (its server killed behind
        a proxy: the client's address stays the same), how long after `since` its client had
        its first state on a new socket."""
        times = {}
        for gone in self.sockets:
            opened = gone.versions[0][0] if gone.versions else float("inf")
            if opened > since or not gone.closes or gone.closes[0][0] < since:
                continue
            later = [
                s.versions[0][0]
                for s in self.sockets
                if (s.table, s.who) == (gone.table, gone.who) and s.versions and s is not gone
            ]
            first = min((at for at in later if at > gone.closes[0][0]), default=float("inf"))
            times[f"table {gone.table} {gone.who}"] = first - since
        return times

    def lost(self, logs: dict[int, list[dict]]) -> list[tuple]:
        """Acknowledged moves missing from their game's log (or logged otherwise)."""
        missing = []
        for game, acked in self.acks.items():
            log = {move["seq"]: (move["actor"], move["action"]) for move in logs[game]}
            for version, (actor, action) in sorted(acked.items()):
                if log.get(version) != (actor, action):
                    missing.append((game, version, actor, action, log.get(version)))
        return missing
