"""Stateful fuzzing of every way out (issue 23): nobody reads what is not theirs.

A hypothesis `RuleBasedStateMachine` makes open and private Set tables (declare tables with
clocks of a few milliseconds, so deadlines pass during the run; classic tables of a few cards,
so games end), seats guests and an account (by its Bearer token), joins with the key, a wrong
key or none, has seats ask for hints, count, claim sets and send junk, lets time pass, and reads
every way out as a stranger, a spectator (who brings a private table's key) and each seat: the
list (and ``?open=false``), one game, its move log, replay, export, chat and story, and the
account's NDJSON download. After every read:

- a private game is no game to a reader with neither its key nor a seat there: 404 everywhere,
  and missing from every list and from the account's download, unless the reader is the account;
- whoever may see a game reads it (200);
- while a game is played, no reader but the seat that asked sees a hint's card: no outcome of
  another seat's move has a ``"hint"`` in the log, the replay or the export, and no hint in the
  story shows its card;
- no answer is a 500.

``PRIVACY_FUZZ_EXAMPLES`` (default 12) and ``PRIVACY_FUZZ_STEPS`` (default 30) make a longer hunt.
"""

from __future__ import annotations

import json
import os
import time

import pytest
from django.test import Client, override_settings
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    multiple,
    rule,
    run_state_machine_as_test,
)

from cards.engine import find_set, parse_card
from games.models import ChatMessage, Game, Move, Player, Seat

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("PRIVACY_FUZZ_EXAMPLES", "12"))
STEPS = int(os.environ.get("PRIVACY_FUZZ_STEPS", "30"))
ACCOUNT = "acct"
PASSWORD = "correct horse battery"
WAYS_OUT = ("", "moves", "replay", "export", "chat", "story")
NAMES = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)


class Reader:
    """Who reads: a stranger, a spectator with a game's key, a seat (its token), the account."""

    def __init__(self, kind: str, *, token=None, bearer=None, key=None, seat_id=None, game=None):
        self.kind, self.token, self.bearer, self.key = kind, token, bearer, key
        self.seat_id, self.game = seat_id, game

    def headers(self) -> dict:
        if self.token:
            return {"HTTP_AUTHORIZATION": f"Token {self.token}"}
        if self.bearer:
            return {"HTTP_AUTHORIZATION": f"Bearer {self.bearer}"}
        return {}

    def __repr__(self) -> str:
        return f"Reader({self.kind}, game={self.game})"


class WaysOut(RuleBasedStateMachine):
    games = Bundle("games")
    seats = Bundle("seats")

    def __init__(self):
        super().__init__()
        self.client = Client()
        self.keys: dict[int, str | None] = {}  # game id -> its key (None: open)
        self.bearer: str | None = None

    def teardown(self):
        ChatMessage.objects.all().delete()
        Move.objects.all().delete()
        Seat.objects.all().delete()
        Game.objects.all().delete()
        Player.objects.all().delete()
        from django.contrib.auth import get_user_model

        get_user_model().objects.all().delete()

    # -- requests --------------------------------------------------------------------------------

    def get(self, url: str, **headers):
        response = self.client.get(url, **headers)
        assert response.status_code < 500, (url, response.content[:300])
        return response

    def post(self, url: str, body, **headers):
        response = self.client.post(url, json.dumps(body), "application/json", **headers)
        assert response.status_code < 500, (url, body, response.content[:300])
        return response

    # -- games and seats -------------------------------------------------------------------------

    @initialize()
    def an_account(self):
        made = self.post("/api/accounts", {"username": ACCOUNT, "password": PASSWORD})
        assert made.status_code == 201, made.content
        self.bearer = made.json()["token"]

    @rule(
        target=games,
        rules=st.sampled_from(["classic", "declare"]),
        private=st.booleans(),
        small=st.booleans(),
        clock=st.sampled_from([1, 20, 86_400_000]),
        by_account=st.booleans(),
    )
    def create(self, rules, private, small, clock, by_account):
        options: dict = {"rules": rules, "attributes": 3}
        if small:  # a few cards: the game ends within the run
            options.update(deck=small_deck(), board_size=3 if rules == "classic" else 9)
        if rules == "declare":
            options["declare_ms"] = clock
        headers = {"HTTP_AUTHORIZATION": f"Bearer {self.bearer}"} if by_account else {}
        made = self.post(
            "/api/games/", {"kind": "set", "open": not private, "options": options}, **headers
        )
        if made.status_code != 201:
            return multiple()
        game = made.json()
        assert bool(game["key"]) is private
        self.keys[game["id"]] = game["key"]
        return game["id"]

    @rule(target=seats, game_id=games, name=NAMES, key=st.sampled_from(["right", "wrong", "none"]))
    def join(self, game_id, name, key):
        link_key = self.keys[game_id]
        query = {"right": f"?key={link_key}", "wrong": "?key=nope", "none": ""}[key]
        joined = self.post(f"/api/games/{game_id}/join{query}", {"name": name})
        if link_key and key != "right":
            assert joined.status_code == 404, joined.content  # a private game: no game at all
            return multiple()
        if joined.status_code != 201:
            return multiple()
        seat = joined.json()
        return Reader("seat", token=seat["token"], game=game_id, seat_id=seat_pk(seat["token"]))

    @rule(target=seats, game_id=games, key=st.booleans())
    def the_account_joins(self, game_id, key):
        link_key = self.keys[game_id]
        query = f"?key={link_key}" if key and link_key else ""
        joined = self.post(
            f"/api/games/{game_id}/join{query}",
            {"name": ACCOUNT},
            HTTP_AUTHORIZATION=f"Bearer {self.bearer}",
        )
        if joined.status_code != 201:
            return multiple()
        token = joined.json()["token"]
        return Reader("seat", token=token, game=game_id, seat_id=seat_pk(token))

    # -- play ------------------------------------------------------------------------------------

    @rule(seat=seats, what=st.sampled_from(["hint", "count", "set", "junk", "declare"]))
    def play(self, seat, what):
        view = self.get(f"/api/games/{seat.game}/", **seat.headers()).json().get("view", {})
        board = view.get("board") or []
        if view.get("rules") == "classic" and what == "set":
            found = find_set(parse_card(c["card"]) for c in board) if len(board) >= 3 else None
            action = {"type": "claim", "cards": [c.protocol for c in found]} if found else None
        elif view.get("rules") == "declare" and what == "set":
            action = {"type": "declare"}
        elif what == "junk":
            action = {"type": "hint", "note": [1, {"x": None}]}
        else:
            action = {"type": what}
        if action is not None:
            self.post(f"/api/games/{seat.game}/moves", action, **seat.headers())

    @rule(seat=seats, text=st.text(min_size=1, max_size=20))
    def say(self, seat, text):
        self.post(f"/api/games/{seat.game}/chat", {"text": text}, **seat.headers())

    @rule()
    def let_time_pass(self):
        time.sleep(0.025)

    # -- reading every way out -------------------------------------------------------------------

    @rule(game_id=games, who=st.sampled_from(["stranger", "spectator", "wrong key"]))
    def read_as_a_visitor(self, game_id, who):
        key = {"stranger": None, "spectator": self.keys[game_id], "wrong key": "nope"}[who]
        self.check(Reader(who, key=key), game_id)

    @rule(seat=seats, game_id=games)
    def read_as_a_seat(self, seat, game_id):
        self.check(seat, game_id)  # its own game, or another one

    @rule(game_id=games)
    def read_as_the_account(self, game_id):
        self.check(Reader("account", bearer=self.bearer), game_id)

    @rule(reader=st.sampled_from(["stranger", "account"]))
    def read_the_accounts_download(self, reader):
        headers = {"HTTP_AUTHORIZATION": f"Bearer {self.bearer}"} if reader == "account" else {}
        response = self.get(f"/api/users/{ACCOUNT}/games", **headers)
        assert response.status_code == 200
        for line in b"".join(response.streaming_content).decode().splitlines():
            game = json.loads(line)
            if self.keys.get(game["id"]) and reader == "stranger":
                raise AssertionError(f"a stranger downloaded private game {game['id']}")

    def check(self, reader: Reader, game_id: int) -> None:
        key = self.keys[game_id]
        query = f"?key={reader.key}" if reader.key else ""
        may = (
            not key
            or reader.key == key
            or reader.game == game_id
            or (reader.kind == "account" and seated(game_id, ACCOUNT))
        )
        for way in WAYS_OUT:
            answer = self.get(f"/api/games/{game_id}/{way}{query}", **reader.headers())
            assert answer.status_code == (200 if may else 404), (reader, way, answer.content)
            if may and way in ("moves", "replay", "export", "story"):
                self.no_hint_of_another(reader, game_id, way, answer.json())
        for listing in ("", "?open=false", "?kind=set&limit=200"):
            listed = self.get(f"/api/games/{listing}", **reader.headers()).json()
            if not may:
                assert game_id not in [g["id"] for g in listed], (reader, listing)

    def no_hint_of_another(self, reader: Reader, game_id: int, way: str, body) -> None:
        moves = {
            "moves": lambda b: b,
            "replay": lambda b: b["steps"],
            "export": lambda b: b["moves"],
        }
        over = Game.objects.get(pk=game_id).status == Game.Status.OVER
        if over:
            return  # everything is everyone's once the game is over
        mine = reader.seat_id if reader.game == game_id else None
        if reader.kind == "account":
            mine = (
                Seat.objects.filter(game_id=game_id, name=ACCOUNT)
                .values_list("pk", flat=True)
                .first()
            )
        if way == "story":
            names = set(Seat.objects.filter(pk=mine).values_list("name", flat=True))
            for entry in body["entries"]:
                if entry["type"] == "hint" and entry["cards"]:
                    assert entry["actor"] in names, (reader, way, entry)  # its seat's alone
            return
        for move in moves[way](body):
            outcome = move.get("outcome") or {}
            if "hint" not in outcome:
                continue
            seat = (
                Move.objects.filter(game_id=game_id, seq=move["seq"])
                .values_list("seat_id", flat=True)
                .first()
            )
            assert seat == mine, (reader, way, move)  # a hint's card: its seat's alone


def small_deck() -> list[str]:
    from cards.engine import all_cards

    return [card.protocol for card in all_cards(3)[:9]]


def seat_pk(token: str) -> int:
    return Seat.objects.get(token=token).pk


def seated(game_id: int, name: str) -> bool:
    return Seat.objects.filter(game_id=game_id, name=name).exists()


@override_settings(
    RATE_LIMIT_JOINS="off",
    RATE_LIMIT_MOVES="off",
    RATE_LIMIT_CHAT="off",
    RATE_LIMIT_SIGNUPS="off",
    RATE_LIMIT_LOGINS="off",
    RATE_LIMIT_ACCOUNT_LOGINS="off",
)
def test_nobody_reads_what_is_not_theirs_whatever_came_before(quiet_request_log):
    run_state_machine_as_test(
        WaysOut,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            print_blob=True,
        ),
    )
