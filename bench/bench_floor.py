"""The floor under the server's capacity: what daphne itself costs a request and a WebSocket frame.

Run on demand (never part of the test suite; about 30 s)::

    .venv/bin/python bench/bench_floor.py

It serves a plain ASGI application that does no work (`application` below: no Django, no
Channels, no database) with the server's own command line, as `make run` does
(``python -m config.server``, daphne), and measures the server process's CPU over:

- **HTTP**: ``--connections`` keep-alive clients sending, as fast as they are answered, the JSON
  API's move as bots send it (``POST /api/games/1/moves``, ``Content-Type: application/json``,
  ``Authorization: Token ...``, a claim's body), answered with a move's answer of the same size
  and headers: CPU per request;
- **WebSocket**: ``--tables`` tables of sockets, where one socket sends a claim as the pages do
  and the server pushes a frame of a state's size (2.4 KB) to every socket of the table, each
  by its own task (as each consumer of a game sends its own state); first one socket a table
  (CPU per frame in + frame out), then four (a frame in + four out): the difference, per frame,
  is the CPU of one frame out.

Then it prices one accepted move of ``bench/bench_load.py``'s table with these floors, from the
mix that benchmark reports (move requests per accepted move, the share sent on a WebSocket,
and the pushes: each of a table's 4 sockets is sent each new state, a WebSocket's mover also its
result): the CPU that daphne alone spends on a move before any of the application's own work,
and so the most accepted moves per second one process could take if the application cost
nothing. ``--mix REQUESTS,WS_SHARE`` sets the mix (default 1.6,0.5: bench_load's embedded run at
``--think 0,1.2``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

STATE_BYTES = 2400  # a Set table's state frame for one seat, about
REPLY = json.dumps(
    {
        "outcome": {"action": "claim", "valid": True, "cards": ["0000", "1111", "2222"]},
        "version": 12,
        "view": {"board": ["x" * 40] * 4},
    }
).encode()
STATE = json.dumps({"type": "state", "version": 1, "view": {"pad": "x" * STATE_BYTES}}).encode()
HEADERS = [
    (b"content-type", b"application/json"),
    (b"vary", b"Accept"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


async def application(scope, receive, send):
    """An ASGI application that does nothing but answer: the floor of any server under daphne."""
    if scope["type"] == "lifespan":
        return
    if scope["type"] == "http":
        while (await receive()).get("more_body"):
            pass
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*HEADERS, (b"content-length", str(len(REPLY)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": REPLY})
        return
    # A socket of a table (its path): a frame received from one is pushed to every socket of the
    # table, each by its own task (as each consumer of a game sends its own state).
    text = STATE.decode()
    table = TABLES.setdefault(scope["path"], [])
    inbox: asyncio.Queue = asyncio.Queue()

    async def pushed() -> None:
        while True:
            await send({"type": "websocket.send", "text": await inbox.get()})

    pusher = None
    try:
        while True:
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.accept"})
                table.append(inbox)
                pusher = asyncio.ensure_future(pushed())
            elif message["type"] == "websocket.receive":
                for each in table:
                    each.put_nowait(text)
            else:
                return
    finally:
        if inbox in table:
            table.remove(inbox)
        if pusher is not None:
            pusher.cancel()


TABLES: dict[str, list] = {}


# -- the load -------------------------------------------------------------------------------


async def hammer_http(port: int, connections: int, seconds: float) -> int:
    from _clients import AsyncConn, build_request

    body = json.dumps({"type": "claim", "cards": ["0000", "1111", "2222"]}).encode()
    raw = build_request(
        "POST",
        "/api/games/1/moves",
        port,
        body,
        {"Content-Type": "application/json", "Authorization": "Token " + "t" * 43},
    )
    done = 0
    stop = time.perf_counter() + seconds

    async def client() -> None:
        nonlocal done
        conn = AsyncConn(port)
        await conn.connect()
        try:
            while time.perf_counter() < stop:
                conn.send(raw)
                await conn.read_reply()
                done += 1
        finally:
            conn.close()

    await asyncio.gather(*(client() for _ in range(connections)))
    return done


async def hammer_ws(port: int, tables: int, seconds: float, size: int) -> int:
    """Tables of `size` sockets: one sends a claim, every one of them (the sender too) waits
    for the state it makes the server push; again until the time is up. How many claims."""
    from websockets.asyncio.client import connect

    claim = json.dumps({"type": "claim", "cards": ["0000", "1111", "2222"]})
    done = 0
    stop = time.perf_counter() + seconds

    async def table(number: int) -> None:
        nonlocal done
        origin = f"http://127.0.0.1:{port}"
        uri = f"ws://127.0.0.1:{port}/ws/{number}/"
        sockets = [
            await connect(uri, origin=origin, compression=None, max_size=None) for _ in range(size)
        ]
        await asyncio.sleep(0.2)  # every socket accepted and in its table
        try:
            while time.perf_counter() < stop:
                await sockets[done % size].send(claim)
                await asyncio.gather(*(ws.recv() for ws in sockets))
                done += 1
        finally:
            for ws in sockets:
                await ws.close()

    await asyncio.gather(*(table(number) for number in range(tables)))
    return done


def measure(server, run, *args) -> tuple[int, float, float]:
    """Run one load; return its count, the server's CPU seconds and the wall seconds."""
    asyncio.run(run(server.port, *args[:1], 1.0, *args[2:]))  # warm up
    cpu, wall = server.cpu(), time.perf_counter()
    count = asyncio.run(run(server.port, *args))
    return count, server.cpu() - cpu, time.perf_counter() - wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="each load's length")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--tables", type=int, default=16, help="tables of sockets")
    parser.add_argument(
        "--mix", default="1.6,0.5", help="move requests per accepted move, share on WS"
    )
    args = parser.parse_args()
    requests_per_move, ws_share = (float(x) for x in args.mix.split(","))

    sys.path.insert(0, str(HERE))
    from _server import Server

    os.chdir(HERE.parent)
    with Server(app="bench.bench_floor:application", migrate=False) as server:
        n, cpu, wall = measure(server, hammer_http, args.connections, args.seconds)
        http_ms = 1000 * cpu / n
        print(
            f"HTTP: {n / wall:.0f} requests/s, server {cpu / wall:.2f} cores, "
            f"{http_ms:.3f} ms a request"
        )
        n, cpu, wall = measure(server, hammer_ws, args.tables, args.seconds, 1)
        trip_ms = 1000 * cpu / n
        print(
            f"WebSocket, one socket a table: {n / wall:.0f} frames in and out/s, server "
            f"{cpu / wall:.2f} cores, {trip_ms:.3f} ms a frame in + a frame out"
        )
        n, cpu, wall = measure(server, hammer_ws, args.tables, args.seconds, 4)
        table_ms = 1000 * cpu / n
        out_ms = (table_ms - trip_ms) / 3
        in_ms = trip_ms - out_ms
        print(
            f"WebSocket, four sockets a table: {n / wall:.0f} frames in/s, {4 * n / wall:.0f} "
            f"out/s, server {cpu / wall:.2f} cores, {table_ms:.3f} ms a frame in + 4 out: "
            f"{out_ms:.3f} ms a frame out, {in_ms:.3f} ms a frame in"
        )
    # One accepted move: its requests (some on a socket), 4 state pushes, a socket mover's result
    # and each socket's refused claim's error.
    http = requests_per_move * (1 - ws_share)
    ws_in = requests_per_move * ws_share
    frames_out = 4 + ws_in
    floor = http * http_ms + ws_in * in_ms + frames_out * out_ms
    print(
        f"\nOne accepted move of bench_load's table ({requests_per_move} move requests, "
        f"{ws_share:.0%} on a socket; {frames_out:.1f} frames out): daphne alone {floor:.2f} ms "
        f"of CPU; at most {1000 / floor:.0f} accepted moves/s in one process at a full core "
        f"if the application cost nothing."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
