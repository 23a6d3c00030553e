"""Stateful fuzzing of the JSON games API: sequences of requests, not single ones, never get a 500.

A hypothesis `RuleBasedStateMachine` plays a user who knows only the JSON API: it creates Set
tables (declare and classic, with odd but valid options, clocks of a few milliseconds so
deadlines pass during the run), Square Games and Set War games, creates games with junk options,
seats players, sends actions of every shape (playable ones read off the player's own view, and
junk: wrong types, unknown types, integers beyond 64 bits, nested junk, extra fields, bodies that
are not objects or not JSON), lets time pass until a game's deadline is due, and reads games back
every way the API offers (the list, one game as a seat or a watcher, the move log, the export,
the replay). After every step:

- no answer is a 500 (the test client re-raises a view's exception, so the traceback shows);
- a refused action (4xx) leaves the game's version and its move log as they were;
- ``GET /api/games/`` answers 200: a stored game can never break the list for everyone.

Each example starts from an empty database. ``STATEFUL_FUZZ_EXAMPLES`` (default 20) and
``STATEFUL_FUZZ_STEPS`` (default 30) make a longer local hunt:
``STATEFUL_FUZZ_EXAMPLES=400 .venv/bin/python -m pytest -q tests/games/test_stateful_fuzz.py``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.test import Client, override_settings
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
    run_state_machine_as_test,
)

from cards.engine import find_set, parse_card
from games.models import Game, Move, Player, Seat

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("STATEFUL_FUZZ_EXAMPLES", "20"))
STEPS = int(os.environ.get("STATEFUL_FUZZ_STEPS", "30"))

# -- values ------------------------------------------------------------------------------------

HUGE = st.sampled_from([2**63, 2**64 + 1, -(2**63) - 1, 10**30, -(10**40), 2**1000])
INTS = st.one_of(st.integers(-5, 40), st.integers(), HUGE)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    INTS,
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["", "0000", "1e309", "NaN", "declare", "\x00", "ONE/RED/SOLID/OVAL"]),
)
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# A save in the Square Game's format (specs/squaregame.md §14): opening, pass, placement, pass.
SPEC_SAVE = {
    "board": [],
    "moves": [
        {"piece_num": 13, "permutation": 4},
        {"type": 0, "player_num": 1},
        {"type": 1, "player_num": 2, "piece_num": 9, "permutation": 1, "x": 16, "y": 16},
        {"type": 0, "player_num": 2},
    ],
}
SAVE_FIELDS = ["type", "player_num", "piece_num", "permutation", "x", "y"]
SEEDS = st.integers(0, 2**62)
NAMES = st.from_regex(r"[A-Za-z0-9_]{1,12}", fullmatch=True)

SET_ACTION_TYPES = ["declare", "pick", "add", "hint", "count", "look", "watch", "claim", "join"]
SQUARE_ACTION_TYPES = ["place", "opening", "pass"]
ACTION_TYPES = st.one_of(
    st.sampled_from(SET_ACTION_TYPES + SQUARE_ACTION_TYPES + ["round", "tick", "sync"]),
    st.text(max_size=10),
    JUNK,
)

# A game's seats once it has a view worth reading: what a player could do with it.
CARD_FORMS = ("protocol", "digits", "phrase")


def card_in_form(text: str, form: str) -> str:
    card = parse_card(text)
    return {"protocol": card.protocol, "digits": card.digits, "phrase": card.phrase}[form]


@st.composite
def declare_options(draw, fast_clock: bool = False) -> dict:
    """Odd but valid options of a declare table: tiny clocks, a small fixed deck in any form."""
    options: dict = {"rules": "declare"}
    attributes = draw(st.sampled_from([3, 4]))
    if attributes != 4 or draw(st.booleans()):
        options["attributes"] = attributes
    if fast_clock:
        options["declare_ms"] = draw(st.integers(1, 50))
    elif draw(st.integers(0, 3)):  # mostly a clock that runs out during the run
        options["declare_ms"] = draw(st.sampled_from([1, 5, 20, 50, 86_400_000]))
    if draw(st.booleans()):
        options["away_ms"] = draw(st.one_of(st.integers(1, 50), st.just(86_400_000)))
    if draw(st.booleans()):
        options["deck"] = draw(fixed_deck(attributes, minimum=3 * attributes))
    return options


@st.composite
def classic_options(draw) -> dict:
    options: dict = {"rules": "classic"}
    attributes = draw(st.sampled_from([3, 4, 5]))
    if attributes != 4 or draw(st.booleans()):
        options["attributes"] = attributes
    board_size = 3 * attributes
    if draw(st.booleans()):
        board_size = 3 * draw(st.integers(1, min(3**attributes // 3, 8)))
        options["board_size"] = board_size
    if draw(st.booleans()):
        options["away_ms"] = draw(st.one_of(st.integers(1, 50), st.just(86_400_000)))
    if draw(st.booleans()):
        options["deck"] = draw(fixed_deck(attributes, minimum=board_size))
    return options


@st.composite
def fixed_deck(draw, attributes: int, minimum: int) -> list[str]:
    from cards.engine import all_cards

    cards = [card.protocol for card in all_cards(attributes)]
    size = 3 * draw(st.integers(max(minimum, 3) // 3, min(len(cards), 27) // 3))
    chosen = draw(st.permutations(cards))[:size]
    form = draw(st.sampled_from(CARD_FORMS))
    if attributes == 5 and form == "digits":
        form = "protocol"
    return [card_in_form(text, form) for text in chosen]


OPTION_KEYS = ["rules", "attributes", "deck", "board_size", "away_ms", "declare_ms", "players"]
JUNK_OPTIONS = st.one_of(
    st.dictionaries(st.sampled_from(OPTION_KEYS) | st.text(max_size=6), JUNK, max_size=4),
    st.fixed_dictionaries(
        {"declare_ms": st.one_of(INTS, JUNK)}, optional={"rules": st.just("declare")}
    ),
    st.fixed_dictionaries({"away_ms": INTS}, optional={"rules": st.sampled_from(["classic"])}),
    st.fixed_dictionaries({"rules": st.just("classic"), "board_size": INTS}),
    st.fixed_dictionaries({"deck": JUNK}),
    st.fixed_dictionaries({"players": st.one_of(INTS, JUNK)}, optional={"save": JUNK}),
    JUNK,
)


@dataclass(frozen=True)
class Answer:
    status_code: int
    content: bytes

    def json(self) -> object:
        return json.loads(self.content)


def body_of(response) -> object:
    try:
        return json.loads(response.content or b"null")
    except ValueError:
        return None


class GamesApi(RuleBasedStateMachine):
    """A user of the JSON API, with a few games and the seats they hold."""

    games = Bundle("games")
    seats = Bundle("seats")

    def __init__(self):
        super().__init__()
        # A view's exception is re-raised here, so a failure shows its own traceback.
        self.client = Client()
        self.kinds: dict[int, str] = {}
        self.keys: dict[int, str] = {}  # a private game's key, as its link carries it
        self.tokens: dict[int, list[str]] = {}

    def teardown(self):
        # Each example starts afresh (a seat and the moves it made are protected: moves first).
        Move.objects.all().delete()
        Seat.objects.all().delete()
        Game.objects.all().delete()
        Player.objects.all().delete()

    # -- requests --------------------------------------------------------------------------------

    def send(self, method: str, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        """Send one request through Django's test client (a view's exception is re-raised)."""
        meta = {f"HTTP_{key.upper()}": value for key, value in headers.items()}
        if method == "get":
            response = self.client.get(url, **meta)
        else:
            response = self.client.post(url, body, content_type="application/json", **meta)
        return Answer(response.status_code, response.content)

    def request(self, method: str, url: str, data=None, token: str | None = None, raw=None):
        headers = {"Authorization": f"Token {token}"} if token is not None else {}
        body = raw if raw is not None else json.dumps(data).encode()
        answer = self.send(method, url, body if method == "post" else b"", headers)
        assert answer.status_code < 500, (method, url, data, raw, answer.content[:500])
        return answer

    def create(self, kind, options, seed: int = 0) -> int | None:
        # A seed of the test's: the same example deals the same cards when it runs again. Not
        # open: a private game, joined by its key (test_privacy_fuzz reads them as strangers).
        body = {"kind": kind, "options": options, "seed": seed}
        response = self.request("post", "/api/games/", body)
        if response.status_code != 201:
            return None
        game_id = response.json()["id"]
        self.kinds[game_id] = kind
        self.keys[game_id] = response.json()["key"]
        return game_id

    @staticmethod
    def snapshot(game_id: int):
        return (
            Game.objects.filter(pk=game_id).values_list("version", flat=True).first(),
            list(Move.objects.filter(game_id=game_id).order_by("seq").values_list("seq", "action")),
        )

    def act(self, seat, action, raw=None):
        """Send one action; a refused one must change nothing."""
        game_id, token, _name = seat
        before = self.snapshot(game_id)
        response = self.request("post", f"/api/games/{game_id}/moves", action, token, raw=raw)
        if response.status_code >= 400:
            assert self.snapshot(game_id) == before, (action, raw, response.content[:300])
        return response

    def view_of(self, seat) -> dict:
        game_id, token, _name = seat
        body = body_of(self.request("get", f"/api/games/{game_id}/", token=token))
        return body.get("view", {}) if isinstance(body, dict) else {}

    # -- creating games --------------------------------------------------------------------------

    @initialize(target=games, options=declare_options(), seed=SEEDS)
    def first_table(self, options, seed):
        game_id = self.create("set", options, seed)
        assert game_id is not None, options
        return game_id

    # Every example also starts with a seat at a declare table whose clock runs out within the
    # run: the moment a deadline passes is where time-driven bugs hide.
    @initialize(target=seats, options=declare_options(fast_clock=True), seed=SEEDS, name=NAMES)
    def first_seat(self, options, seed, name):
        game_id = self.create("set", options, seed)
        assert game_id is not None, options
        return self.join(game_id, name)

    @rule(target=games, options=st.one_of(declare_options(), classic_options()), seed=SEEDS)
    def create_set_table(self, options, seed):
        game_id = self.create("set", options, seed)
        assert game_id is not None, options  # odd but valid options are accepted
        return game_id

    @rule(target=games, players=st.one_of(st.integers(2, 4), st.none()))
    def create_square_game(self, players):
        game_id = self.create("square", {} if players is None else {"players": players})
        assert game_id is not None
        return game_id

    @rule(
        target=games,
        kind=st.sampled_from(["set", "square", "setwar"]) | JUNK,
        options=JUNK_OPTIONS,
        seed=st.one_of(st.none(), INTS, JUNK),
        is_open=st.one_of(st.booleans(), JUNK),
    )
    def create_with_junk(self, kind, options, seed, is_open):
        body = {"kind": kind, "options": options}
        if seed is not None:
            body["seed"] = seed
        if is_open is not None:
            body["open"] = is_open
        response = self.request("post", "/api/games/", body)
        if response.status_code != 201:
            return multiple()
        game_id = response.json()["id"]
        self.kinds[game_id] = response.json()["kind"]
        self.keys[game_id] = response.json()["key"]
        return game_id

    @rule(
        target=games,
        players=st.one_of(st.integers(1, 6), INTS, st.text(max_size=4), JUNK),
        cards=st.one_of(
            st.none(),
            st.lists(
                st.sampled_from(["0000", "1111", "2222", "0120", "1201", "2012"]), max_size=6
            ).map(lambda cards: list(dict.fromkeys(cards))),
            JUNK,
        ),
        seed=st.one_of(st.none(), st.integers(0, 2**62), INTS),
    )
    def create_setwar(self, players, cards, seed):
        body = {"players": players}
        if cards is not None:
            body["cards"] = cards
        if seed is not None:
            body["seed"] = seed
        response = self.request("post", "/api/setwar/", body)
        if response.status_code != 201:
            return multiple()
        self.kinds[response.json()["id"]] = "setwar"
        return response.json()["id"]

    @rule(
        target=games,
        players=st.one_of(st.none(), st.integers(2, 4)),
        moves=st.integers(0, len(SPEC_SAVE["moves"])),
        tweak=st.one_of(st.none(), st.tuples(st.sampled_from(SAVE_FIELDS), INTS)),
    )
    def create_square_from_a_save(self, players, moves, tweak):
        """A game continued from a save of the original simulator, whole, cut short or with one
        number changed (often to one beyond 64 bits)."""
        save = {"board": [], "moves": [dict(move) for move in SPEC_SAVE["moves"][:moves]]}
        if tweak is not None and save["moves"]:
            field, value = tweak
            save["moves"][-1][field] = value
        options = {"save": save} if players is None else {"save": save, "players": players}
        game_id = self.create("square", options)
        return multiple() if game_id is None else game_id

    # -- seats -----------------------------------------------------------------------------------

    @rule(target=seats, game_id=games, name=NAMES)
    def join(self, game_id, name):
        key = self.keys.get(game_id)
        url = f"/api/games/{game_id}/join" + (f"?key={key}" if key else "")
        response = self.request("post", url, {"name": name})
        if response.status_code != 201:
            return (game_id, "0" * 40, name)  # a seat refused: its token acts for nobody
        token = response.json()["token"]
        self.tokens.setdefault(game_id, []).append(token)
        return (game_id, token, name)

    @rule(game_id=games, body=JUNK)
    def join_with_junk(self, game_id, body):
        self.request("post", f"/api/games/{game_id}/join", body)

    @rule(seat=seats, speed=st.sampled_from(["slow", "medium", "fast"]) | JUNK)
    def add_computer(self, seat, speed):
        game_id, token, _name = seat
        self.request("post", f"/api/games/{game_id}/computers", {"speed": speed}, token)

    # -- actions ---------------------------------------------------------------------------------

    @rule(
        seat=seats,
        choice=st.integers(0, 5),
        picks=st.tuples(*[st.integers(0, 2**16)] * 3),
        form=st.sampled_from(CARD_FORMS),
    )
    def play_something_sensible(self, seat, choice, picks, form):
        """An action read off the seat's own view: often accepted, sometimes refused.

        Every choice is drawn before the view is read, and picks are indexes taken modulo what
        the view offers: the draws never depend on the server's answers, so hypothesis can
        replay and shrink an example even when time made a run go differently.
        """
        view = self.view_of(seat)
        board = view.get("board")
        if view.get("kind") == "square":
            legal = view.get("legal") or []
            if legal and choice:
                piece, permutation, x, y = legal[picks[0] % len(legal)]
                kind = "opening" if view.get("phase") == "opening" else "place"
                action = {"type": kind, "piece": piece, "permutation": permutation, "x": x, "y": y}
            else:
                action = {"type": "pass"}
        elif view.get("rules") == "declare" and isinstance(board, list):
            cells = [(r, c) for r, row in enumerate(board) for c, _card in enumerate(row)]
            cards = {cell["card"]: (r, c) for r, c in cells for cell in [board[r][c]]}
            found = find_set(parse_card(text) for text in cards) if len(cards) >= 3 else None
            what = ["declare", "pick", "set", "add", "hint", "count"][choice]
            if what == "pick" and cells:
                row, col = cells[picks[0] % len(cells)]
                action = {"type": "pick", "row": row, "col": col}
            elif what == "set" and found is not None:
                self.act(seat, {"type": "declare"})
                for card in found:
                    row, col = cards[card.protocol]
                    self.act(seat, {"type": "pick", "row": row, "col": col})
                return
            else:
                action = {"type": "declare" if what in ("pick", "set") else what}
        elif view.get("rules") == "classic" and isinstance(board, list):
            texts = [card["card"] for card in board]
            found = find_set(parse_card(text) for text in texts) if len(texts) >= 3 else None
            what = ["set", "set", "three", "hint", "count", "look"][choice]
            if what == "set" and found is not None:
                attributes = len(found[0].protocol.split("/"))
                form = "protocol" if attributes == 5 and form == "digits" else form
                action = {"type": "claim", "cards": [card_in_form(c.protocol, form) for c in found]}
            elif what in ("set", "three") and texts:
                action = {"type": "claim", "cards": [texts[i % len(texts)] for i in picks]}
            else:
                action = {"type": "hint" if what in ("set", "three") else what}
        else:
            action = {"type": SET_ACTION_TYPES[choice]}
        self.act(seat, action)

    @rule(
        seat=seats,
        kind=ACTION_TYPES,
        fields=st.dictionaries(
            st.sampled_from(["row", "col", "cards", "piece", "permutation", "x", "y", "number"])
            | st.text(max_size=6),
            st.one_of(INTS, JUNK),
            max_size=5,
        ),
    )
    def play_junk(self, seat, kind, fields):
        self.act(seat, {**fields, "type": kind})

    @rule(seat=seats, body=JUNK)
    def play_a_body_that_is_not_an_action(self, seat, body):
        self.act(seat, body)

    @rule(
        seat=seats,
        raw=st.sampled_from(
            [b"", b"{", b"null", b"[]", b'{"type": "declare"', b"\xff\xfe", b'{"type": 1e999}']
        )
        | st.binary(max_size=20),
    )
    def play_bytes(self, seat, raw):
        self.act(seat, None, raw=raw)

    # A header is bytes: WSGI and ASGI servers hand Django its text decoded as latin-1.
    @rule(
        seat=seats,
        token=st.one_of(st.text(st.characters(max_codepoint=255), max_size=50), st.just("x" * 999)),
    )
    def play_with_a_bad_token(self, seat, token):
        self.act((seat[0], token, seat[2]), {"type": "hint"})

    # -- time ------------------------------------------------------------------------------------

    @rule(game_id=games)
    def wait_for_the_deadline(self, game_id):
        """Let a game's next deadline pass (if it comes soon), as a user would by waiting."""
        deadline = Game.objects.filter(pk=game_id).values_list("deadline_ms", flat=True).first()
        now = time.time() * 1000
        if deadline is not None and deadline - now < 200:
            time.sleep(max(deadline - now, 0) / 1000 + 0.002)
        else:
            time.sleep(0.003)

    @rule(seat=seats, read=st.sampled_from(["detail", "seat", "moves", "export", "replay", "list"]))
    def declare_and_let_the_time_run_out(self, seat, read):
        """Declare, let the declare deadline pass, then read: the read applies the timeout."""
        game_id, token, _name = seat
        if self.act(seat, {"type": "declare"}).status_code != 200:
            return
        self.wait_for_the_deadline(game_id)
        url = f"/api/games/{game_id}/" + ("" if read in ("detail", "seat") else read)
        self.request(
            "get", "/api/games/" if read == "list" else url, token=token if read == "seat" else None
        )

    # -- reading ---------------------------------------------------------------------------------

    @rule(game_id=games, seat=st.none() | st.integers(0, 2**16))
    def read_game(self, game_id, seat):
        held = self.tokens.get(game_id)
        token = held[seat % len(held)] if held and seat is not None else None
        self.request("get", f"/api/games/{game_id}/{self.keyed(game_id, '')}", token=token)

    @rule(
        game_id=games,
        what=st.sampled_from(["moves", "export", "replay", "save"]),
        query=st.one_of(
            st.just(""),
            st.sampled_from(["?since=1", "?since=-5", "?since=", "?since=x", f"?since={10**20}"]),
            st.sampled_from(["?start=0&limit=1", "?start=3", "?limit=0", "?start=-1", "?limit=x"]),
            st.sampled_from(["?start=9223372036854775808", "?limit=1000&start=2147483647"]),
        ),
    )
    def read_more(self, game_id, what, query):
        self.request("get", f"/api/games/{game_id}/{what}{self.keyed(game_id, query)}")

    def keyed(self, game_id: int, query: str) -> str:
        """A query with a private game's key: a watcher who has its link."""
        key = self.keys.get(game_id)
        if not key:
            return query
        return f"{query}&key={key}" if query else f"?key={key}"

    @rule(
        query=st.sampled_from(
            [
                "",
                "?limit=200",
                "?kind=set",
                "?kind=square&status=waiting",
                "?status=over",
                "?open=true",
                "?limit=-1",
                "?limit=99999999999999999999999",
                "?kind=chess",
                "?open=maybe",
            ]
        )
    )
    def read_list(self, query):
        self.request("get", f"/api/games/{query}")

    @precondition(lambda self: self.kinds)
    @rule()
    def read_an_unknown_game(self):
        missing = max(self.kinds) + 1000
        for url in (f"{missing}/", f"{2**70}/", f"{missing}/moves", f"{2**70}/replay"):
            self.request("get", f"/api/games/{url}")

    # -- invariants ------------------------------------------------------------------------------

    @invariant()
    def the_list_always_answers(self):
        answer = self.send("get", "/api/games/?limit=200", b"", {})
        assert answer.status_code == 200, answer.content[:500]


class GamesApiOverAsgi(GamesApi):
    """The same user, sending each request to config.asgi's application as daphne would hand it
    over: through games.api_fast, which answers the busiest requests in front of Django."""

    def send(self, method: str, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        from config.asgi import application

        path, _, query = url.partition("?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method.upper(),
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [
                (b"host", b"127.0.0.1:8000"),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(
                    (key.lower().encode(), value.encode("latin-1"))
                    for key, value in headers.items()
                ),
            ],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
        }

        async def exchange() -> Answer:
            app = ApplicationCommunicator(application, scope)
            await app.send_input({"type": "http.request", "body": body, "more_body": False})
            start = await app.receive_output(timeout=20)
            assert start["type"] == "http.response.start", start
            content = b""
            while True:
                chunk = await app.receive_output(timeout=20)
                content += chunk.get("body", b"")
                if not chunk.get("more_body"):
                    break
            await app.wait(timeout=5)
            return Answer(start["status"], content)

        return async_to_sync(exchange)()


@override_settings(RATE_LIMIT_JOINS="off", RATE_LIMIT_MOVES="off")
@pytest.mark.parametrize(
    ("machine", "share"), [(GamesApi, 1), (GamesApiOverAsgi, 2)], ids=["django", "asgi"]
)
def test_no_sequence_of_api_requests_gets_a_500(quiet_request_log, machine, share):
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=max(EXAMPLES // share, 1),
            stateful_step_count=STEPS,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            print_blob=True,
        ),
    )
