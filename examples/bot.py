"""A bot for this server: it follows its account's event stream, accepts the challenges it can play
and plays each game from that game's stream, Set (both rules, every mode) and the Square Game.
One file, the standard library only.

    SETGAMES_TOKEN=<an account's API token> python examples/bot.py

Environment: ``SETGAMES_TOKEN`` (required: the account's token, from ``POST /api/accounts``,
``POST /api/auth/token`` or the site's "API tokens" page), ``SETGAMES_URL`` (default
``http://127.0.0.1:8000``), ``SETGAMES_DELAY`` (seconds it looks at a Set board before it claims,
default 1.5), ``SETGAMES_ARENA`` (an arena tournament's id: the bot joins it and plays every
table the arena seats it at until the arena ends). It prints what it does, one line each, and
runs until stopped (Ctrl-C).

How it works (the README's "Write a bot" walks through it):

1. ``GET /api/stream/event`` with ``Authorization: Bearer <token>`` is one JSON object a line:
   ``challenge`` (someone challenges the account: it accepts Set, either rules in any mode, or
   the Square Game, with ``POST /api/challenge/<id>/accept``, and declines anything else with
   the reason ``variant``), ``gameStart`` (a game it is seated at has started: first
   the games already going, then each new one), and others it ignores. A bare line keeps the
   connection open; when the stream drops, it connects again.
2. For each game, ``GET /api/games/<id>/stream`` sends the game as its seat sees it: a
   ``gameFull`` line, then a ``gameState`` after every change, until the game ends.
3. Set: after its delay it claims one of the sets on the newest board (``POST
   /api/games/<id>/moves`` with ``{"type": "claim", "cards": [...digits...]}``; at a table of the
   original server's rules it declares, then picks the three cards by row and column); "just
   taken" means another player was quicker. A 4Set table (its view's ``"values": 4``) is played
   the same way with four cards whose digits XOR to 0; Memory (a view with ``"face_down"``)
   by turning cards up one by one (``{"type": "reveal", "position": i}``, answered to this seat
   alone) and claiming a set by its places (``{"type": "claim", "positions": [...]}``).
   Square Game: on its turn it places a piece where it
   closes the most squares (the view's ``legal`` and ``legal_squares``), or passes.
4. At the end it says "good game" in the game's chat.
5. In an arena (``SETGAMES_ARENA``) it joins once (``POST /api/tournaments/<id>/join``); the
   arena seats it again after each game, and each table comes as a ``gameStart`` like any other.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import random
import sys
import threading
import time
import urllib.parse

URL = os.environ.get("SETGAMES_URL", "http://127.0.0.1:8000")
TOKEN = os.environ.get("SETGAMES_TOKEN", "")
DELAY = float(os.environ.get("SETGAMES_DELAY", "1.5"))
ARENA = os.environ.get("SETGAMES_ARENA", "")
KINDS = ("set", "square")


def say(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)


# -- HTTP ---------------------------------------------------------------------------------------


def connection() -> http.client.HTTPConnection:
    where = urllib.parse.urlsplit(URL)
    if where.scheme == "https":
        return http.client.HTTPSConnection(where.hostname, where.port or 443, timeout=30)
    return http.client.HTTPConnection(where.hostname, where.port or 80, timeout=30)


def call(method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """One request with the account's token; the status and the JSON answer."""
    conn = connection()
    headers = {"Authorization": f"Bearer {TOKEN}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, path, data, headers)
        answer = conn.getresponse()
        raw = answer.read()
        return answer.status, json.loads(raw) if raw else {}
    except (OSError, ValueError) as error:
        return 0, {"detail": str(error)}
    finally:
        conn.close()


class Refused(Exception):
    """The server does not know the token: trying again will not help."""


def lines(path: str):
    """The JSON objects of an NDJSON stream, one by one (bare keep-alive lines skipped); ends
    when the server ends the stream; raises OSError when the connection fails."""
    conn = connection()
    conn.timeout = 60  # keep-alive lines come every few seconds
    conn.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
    answer = conn.getresponse()
    if answer.status != 200:
        detail = answer.read().decode("utf-8", "replace").strip()
        conn.close()
        if answer.status == 401:
            raise Refused(f"{path}: {detail}")
        raise OSError(f"{path}: {answer.status} {detail}")
    try:
        for line in answer:
            if line.strip():
                yield json.loads(line)
    finally:
        conn.close()


# -- Set ----------------------------------------------------------------------------------------


def third(a: str, b: str) -> str:
    """The card that makes a set with a and b (digits: each attribute 0, 1 or 2)."""
    return "".join(str(-(int(x) + int(y)) % 3) for x, y in zip(a, b, strict=True))


def sets_among(cards: list[str]) -> list[tuple[str, str, str]]:
    here = set(cards)
    found = set()
    for a, b in itertools.combinations(cards, 2):
        c = third(a, b)
        if c in here:
            found.add(tuple(sorted((a, b, c))))
    return sorted(found)


def sums_to_zero(cards) -> bool:
    """Every position of the cards sums to 0 mod 3: a Set (3 cards) or a GhostSet (6)."""
    return all(sum(int(d) for d in column) % 3 == 0 for column in zip(*cards, strict=True))


def is_claim(cards, name: str) -> bool:
    """Whether the cards are a claim of the view's ``claim_name``: an UltraSet is two pairs that
    one same card completes; a 4Set's digits XOR to 0 at every position; a Set and a GhostSet sum
    to 0 mod 3 at every position."""
    if name == "UltraSet":
        a, b, c, d = cards
        pairings = (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c)))
        return any(third(*one) == third(*other) for one, other in pairings)
    if name == "4Set":  # digits 0-3: each position's four values XOR to 0 (AAAA, ABCD, AABB)
        return all(
            int(a) ^ int(b) ^ int(c) ^ int(d) == 0 for a, b, c, d in zip(*cards, strict=True)
        )
    return sums_to_zero(cards)


def claims(view: dict) -> list[list[str]]:
    """Every claim that scores on this view's board, in the table's mode (the view says what a
    claim is: ``claim_size`` cards of a ``claim_name``, ``chain_count`` of them from the
    ``chain`` once there is one, and a puzzle's claims ``found`` count once). A face-down board
    (Memory) shows none: the bot turns its cards up (`Game.play_memory`)."""
    if view.get("face_down"):
        return []
    board = [card["digits"] for card in view["board"]]
    texts = {card["digits"]: card["card"] for card in [*view["board"], *(view.get("chain") or [])]}
    size, name = view.get("claim_size", 3), view.get("claim_name", "Set")
    chain = [card["digits"] for card in view.get("chain") or []]
    links = view.get("chain_count", 0) if chain else 0
    if name == "Set" and not links:  # the fast way: the third card of each pair
        found = [list(s) for s in sets_among(board)]
    else:
        found = [
            [*tied, *rest]
            for tied in itertools.combinations(chain, links)
            for rest in itertools.combinations(board, size - links)
            if is_claim([*tied, *rest], name)
        ]
    done = [sorted(s) for s in view.get("found") or []]
    return [cards for cards in found if sorted(texts[c] for c in cards) not in done]


def may_claim(view: dict) -> bool:
    return (
        view.get("status") == "active"
        and view.get("seated")
        and not view.get("locked_out")
        and not view.get("over")
    )


# -- following a game ---------------------------------------------------------------------------


class Game:
    """One game the bot sits at: a thread reads its stream, another plays from the newest view."""

    def __init__(self, game_id: int, kind: str) -> None:
        self.id, self.kind = game_id, kind
        self.view: dict | None = None
        self.version = -1
        self.over = False
        self.changed = threading.Condition()

    def follow(self) -> None:
        threading.Thread(target=self.read, daemon=True).start()
        threading.Thread(target=self.play, daemon=True).start()

    def read(self) -> None:
        tries = 0
        while not self.over:
            try:
                for line in lines(f"/api/games/{self.id}/stream"):
                    tries = 0
                    if line.get("type") in ("gameFull", "gameState"):
                        with self.changed:
                            if line["version"] >= self.version:
                                self.view, self.version = line["view"], line["version"]
                                self.over = bool(line["view"].get("over"))
                            self.changed.notify_all()
            except (OSError, ValueError, Refused) as error:
                say(f"game {self.id}: the stream dropped ({error}); again")
            if not self.over:  # the stream ended before the game did: connect again
                tries += 1
                time.sleep(min(2**tries, 10) / 4)
        with self.changed:
            self.changed.notify_all()

    def newest(self, after: int) -> dict | None:
        """The newest view once it is past version `after` (None: the game is over)."""
        with self.changed:
            while self.version <= after and not self.over:
                self.changed.wait(30)
            return None if self.over else self.view

    def play(self) -> None:
        seen = -1
        while True:
            view = self.newest(seen)
            if view is None:
                break
            seen = self.version
            if self.kind == "set":
                self.play_set()
            else:
                self.play_square(view)
        status, _ = call("POST", f"/api/games/{self.id}/chat", {"text": "good game"})
        say(f"game {self.id}: over; said good game ({status})")

    def play_set(self) -> None:
        time.sleep(DELAY)  # a person needs a moment to see a set
        view = self.view
        if view is None or not may_claim(view):
            return
        if view.get("rules") == "declare":
            self.play_declare(view)
            return
        if view.get("face_down"):
            self.play_memory(view)
            return
        found = claims(view)
        if not found:
            return  # the server deals more cards: the next state will say
        cards = random.choice(found)
        status, answer = call(
            "POST", f"/api/games/{self.id}/moves", {"type": "claim", "cards": cards}
        )
        said = answer.get("outcome", {}).get("claim") if status == 200 else answer.get("detail")
        say(f"game {self.id}: claimed {' '.join(cards)}: {said}")

    def play_memory(self, view: dict) -> None:
        """Memory: the board lies face down. Turn cards up one by one (``{"type": "reveal",
        "position": i}`` answers this seat alone with the card), remember them until anyone
        scores (new cards come face down into the places taken), and claim a set by its places
        (``{"type": "claim", "positions": [...]}``)."""
        scores = sum((view.get("scores") or {}).values())
        if getattr(self, "seen_scores", None) != scores:
            self.known: dict[int, str] = {}  # position -> digits, this board's
            self.seen_scores = scores
        moves = f"/api/games/{self.id}/moves"
        for cell in view["board"]:
            if cell["position"] in self.known:
                continue
            time.sleep(0.1)  # a person's pace, well inside the server's 20 moves a second
            newest = self.view or view
            if newest.get("over") or sum((newest.get("scores") or {}).values()) != scores:
                return  # someone scored meanwhile: the places changed; look again
            status, answer = call("POST", moves, {"type": "reveal", "position": cell["position"]})
            told = answer.get("outcome", {}) if status == 200 else {}
            if "digits" not in told:
                return  # refused, or the game is over: the next state will say
            self.known[cell["position"]] = told["digits"]
            found = sets_among(list(self.known.values()))
            if found:
                at = {digits: position for position, digits in self.known.items()}
                places = [at[card] for card in found[0]]
                status, answer = call("POST", moves, {"type": "claim", "positions": places})
                said = (
                    answer.get("outcome", {}).get("claim")
                    if status == 200
                    else answer.get("detail")
                )
                say(f"game {self.id}: claimed places {places}: {said}")
                return

    def play_declare(self, view: dict) -> None:
        """The original server's rules: declare "Set!", then pick the three cards by place."""
        if view["declare"]["state"] != "none":
            return  # someone is picking
        places = {
            card["digits"]: (r, c)
            for r, row in enumerate(view["board"])
            for c, card in enumerate(row)
        }
        found = sets_among(list(places))
        if not found:
            return
        moves = f"/api/games/{self.id}/moves"
        status, answer = call("POST", moves, {"type": "declare"})
        if status != 200:
            return  # another player declared first
        for card in random.choice(found):
            r, c = places[card]
            status, answer = call("POST", moves, {"type": "pick", "row": r, "col": c})
        say(f"game {self.id}: declared and picked: {status} {answer.get('detail', '')}".rstrip())

    def play_square(self, view: dict) -> None:
        if not view.get("your_turn") or view.get("over"):
            return
        legal, squares = view.get("legal") or [], view.get("legal_squares") or []
        if not legal:
            move = {"type": "pass"}
        else:
            best = max(range(len(legal)), key=lambda n: squares[n] if n < len(squares) else 0)
            piece, permutation, x, y = legal[best]
            move = {"type": "place", "piece": piece, "permutation": permutation, "x": x, "y": y}
        status, answer = call("POST", f"/api/games/{self.id}/moves", move)
        say(f"game {self.id}: {move['type']} -> {status} {answer.get('detail', '')}".rstrip())


# -- the account's events -----------------------------------------------------------------------


def can_play(challenge: dict) -> bool:
    return challenge.get("kind") in KINDS


def answer(challenge: dict) -> None:
    number = challenge["id"]
    if can_play(challenge):
        status, body = call("POST", f"/api/challenge/{number}/accept")
        say(f"challenge {number} from {challenge.get('challenger')}: accepted ({status})")
    else:
        status, body = call("POST", f"/api/challenge/{number}/decline", {"reason": "variant"})
        say(f"challenge {number} from {challenge.get('challenger')}: declined ({status})")


def join_arena() -> bool:
    """Join the arena SETGAMES_ARENA names (again after a reconnection: a join of a player
    already in it is answered as one); False when the arena refuses."""
    status, body = call("POST", f"/api/tournaments/{ARENA}/join")
    say(f"arena {ARENA}: joined ({status})" if status < 300 else f"arena {ARENA}: {body}")
    return status < 300 or status >= 500 or status == 0  # a 4xx will not change by retrying


def main() -> int:
    if not TOKEN:
        print("bot.py: set SETGAMES_TOKEN to an account's API token", file=sys.stderr)
        return 2
    if ARENA and not ARENA.isdigit():
        print("bot.py: SETGAMES_ARENA is an arena tournament's id, a number", file=sys.stderr)
        return 2
    if ARENA and not join_arena():
        return 1
    games: dict[int, Game] = {}
    tries = 0
    say(f"following {URL}/api/stream/event")
    while True:
        try:
            for event in lines("/api/stream/event"):
                tries = 0
                kind = event.get("type")
                if kind == "challenge":
                    answer(event["challenge"])
                elif kind == "gameStart":
                    game = event["game"]
                    if game["id"] not in games and game.get("kind") in KINDS:
                        games[game["id"]] = Game(game["id"], game["kind"])
                        games[game["id"]].follow()
                        say(f"game {game['id']} ({game['kind']}): playing")
        except Refused as error:
            print(f"bot.py: the server refuses the token: {error}", file=sys.stderr)
            return 1
        except (OSError, ValueError) as error:
            say(f"the event stream dropped ({error}); again")
        except KeyboardInterrupt:
            return 0
        tries += 1
        time.sleep(min(2**tries, 30) / 4)


if __name__ == "__main__":
    raise SystemExit(main())
