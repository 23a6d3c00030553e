"""Two instances of examples/bot.py playing each other through live servers: the accounts, the
bots' processes, the challenges and the checks that each game was played to its end. Used by the
one-process test (tests/games/test_bot_example.py) and the two-process one
(tests/processes/test_bots.py), where each bot's streams are on a different process."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"


def call(server, method: str, path: str, token: str | None = None, body=None):
    where = urlsplit(server.url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=15)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, path, data, headers)
        answer = conn.getresponse()
        raw = answer.read()
        return answer.status, json.loads(raw) if raw else None
    finally:
        conn.close()


def until(what, timeout: float, step: float = 0.25):
    """`what()` once it is truthy, polling; fails after `timeout` seconds."""
    give_up = time.monotonic() + timeout
    while True:
        found = what()
        if found:
            return found
        assert time.monotonic() < give_up, "timed out"
        time.sleep(step)


def follow_events(server, token: str, heard: list) -> http.client.HTTPConnection:
    """Read an account's event stream on a thread, each line into `heard`; the connection (to
    close)."""
    where = urlsplit(server.url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    conn.request("GET", "/api/stream/event", headers={"Authorization": f"Bearer {token}"})
    answer = conn.getresponse()
    assert answer.status == 200

    def read():
        try:
            for line in answer:
                if line.strip():
                    heard.append(json.loads(line))
        except (OSError, ValueError, AttributeError):
            pass  # closed by the test

    threading.Thread(target=read, daemon=True).start()
    return conn


def account(server, name: str) -> str:
    status, body = call(
        server, "POST", "/api/accounts", body={"username": name, "password": "a long passphrase"}
    )
    assert status == 201, body
    return body["token"]


@contextlib.contextmanager
def running_bots(tmp_path, bots: list[tuple[str, str, str, dict]]):
    """Run examples/bot.py once for each (name, token, server URL, more environment), each
    writing to tmp_path/<name>.log; on the way out, stop them, print the end of their logs,
    and check that none crashed."""
    processes, logs = [], []
    try:
        for name, token, url, more in bots:
            log = open(tmp_path / f"{name}.log", "w")  # noqa: SIM115 - closed below
            logs.append(log)
            env = {
                **os.environ,
                "SETGAMES_URL": url,
                "SETGAMES_TOKEN": token,
                "SETGAMES_DELAY": "0.05",
                **more,
            }
            processes.append(
                subprocess.Popen(
                    [sys.executable, str(BOT)], env=env, stdout=log, stderr=subprocess.STDOUT
                )
            )
        yield processes
    finally:
        for bot in processes:
            bot.terminate()
        for bot in processes:
            bot.wait(10)
        for log in logs:
            log.close()
        for name, *_ in bots:
            print(f"--- {name}\n" + (tmp_path / f"{name}.log").read_text()[-3000:])
    for bot in processes:
        assert bot.returncode in (0, -15), bot.returncode  # stopped, never crashed


def bots_play_each_game(servers, tmp_path) -> None:
    """Two bots, the first on servers[0] and the second on servers[1] (its URL, so its event and
    game streams and its moves go there), play a Set game of each rules and a Square Game that
    the first challenges the second to, to the end, and say good game."""
    names = [f"bot{uuid.uuid4().hex[:6]}" for _ in range(2)]
    server = servers[0]  # the challenger's: its events, and the checks
    tokens = [account(where, name) for where, name in zip(servers, names, strict=True)]
    heard: list = []
    played: list = []
    running = [
        (name, token, where.url, {})
        for name, token, where in zip(names, tokens, servers, strict=True)
    ]
    with running_bots(tmp_path, running):
        events = follow_events(server, tokens[0], heard)
        try:
            # Each bot follows its event stream before the challenge is made.
            until(lambda: all((tmp_path / f"{n}.log").read_text().strip() for n in names), 15)
            for kind, options in (
                ("set", {"attributes": 3}),  # the original server's rules: declare, then pick
                ("set", {"rules": "classic", "attributes": 3}),
                ("set", {"mode": "4setjr"}),  # four cards whose digits XOR to 0
                ("set", {"mode": "memory"}),  # cards face down: turned up one by one
                ("square", {"players": 2}),
            ):
                status, made = call(
                    server,
                    "POST",
                    f"/api/challenge/{names[1]}",
                    tokens[0],
                    {"kind": kind, "options": options},
                )
                assert status == 201, made

                def accepted(kind=kind):  # the challenger's stream: the game that started
                    return next(
                        (
                            e["game"]["id"]
                            for e in list(heard)
                            if e.get("type") == "gameStart"
                            and e["game"]["kind"] == kind
                            and e["game"]["id"] not in played
                        ),
                        None,
                    )

                game_id = until(accepted, 15)
                played.append(game_id)

                def over(game_id=game_id):
                    _, detail = call(server, "GET", f"/api/games/{game_id}/", tokens[0])
                    return detail if detail["status"] == "over" else None

                detail = until(over, 120, step=0.5)
                expected = {(names[0], "good game"), (names[1], "good game")}

                def both_said(game_id=game_id, expected=expected):  # each bot once it saw the end
                    _, chat = call(server, "GET", f"/api/games/{game_id}/chat", tokens[0])
                    return {(line["name"], line["text"]) for line in chat} == expected

                until(both_said, 15)
                view = detail["view"]
                if kind == "set":
                    assert view["result"]["winners"], view["result"]
                    assert sum(view["scores"].values()) > 0  # sets were found
                else:
                    assert view["winner_names"], view
        finally:
            events.close()
