"""Fuzzing the plain-text protocol: any GET path gets 200 or 404, never a 500 or a traceback, and
a refused request changes nothing (set-table-protocol.md §2, §4, §10).

Paths are random: protocol route names (and near misses), table ids real and absurd, player
names, percent-encoded bytes (invalid UTF-8 such as %FF, NUL, an encoded slash), unicode, dots,
empty segments, coordinates negative, huge or not numbers at all, and query strings. They are
sent two ways: in process to the ASGI application of config/asgi.py, with the scope daphne
builds (so `ProtocolApp` answers exactly as in production), and over a socket to the live server
(`server` fixture: daphne itself decodes the path). Each reply must be

- 200 with a body in the grammar of §3 (a BOARD or a SCORES reply), or
- 404 with one of the spec's one-line messages (§10),

or, for a path outside the protocol's own prefixes (a near miss such as /LOOK/bob), the site's
own 404 page (§10: every other path is the site's); and after a 404 every game, seat, player
and move is as it was before.
"""

from __future__ import annotations

import http.client
import re
import string
from urllib.parse import quote, unquote

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cards.engine.protocol_text import (
    BAD_NAME,
    BAD_PICK,
    BAD_SCORES,
    BAD_WATCH_NAME,
    NO_TABLE,
    UNKNOWN,
)

pytestmark = pytest.mark.django_db(transaction=True)

# §10: every 404 body is one of these lines.
SPEC_ERRORS = {
    m + "\n" for m in (BAD_NAME, BAD_WATCH_NAME, BAD_PICK, BAD_SCORES, NO_TABLE, UNKNOWN)
}
# §3: a BOARD (the finished 3x0 board has no spot lines) or a SCORES reply.
BOARD = re.compile(r"\d+x\d+\n(?:none|(?:up|my) \d+)\n(?:(?:none|(?:up|my) [^\s]+)\n)*")
SCORES = re.compile(r"(?:[A-Za-z0-9_]+ \d+ (?:none|add)\n)*")


# -- random paths ---------------------------------------------------------------------------------


def percent(data: bytes) -> str:
    return "".join(f"%{byte:02X}" for byte in data)


NAME = st.from_regex(r"[A-Za-z0-9_]{1,12}", fullmatch=True)
SPECIAL = st.sampled_from(
    [
        "",
        ".",
        "..",
        "%2e%2e",
        "%00",
        "%FF",
        "%C0%AF",
        "%E2%82",
        "%ED%A0%80",  # an encoded UTF-16 surrogate
        "%2F",
        "%5C",
        "%",
        "%G1",
        "%%",
        "%0A",
        "%0D%0A",
        "%20",
        "+",
        "~",
        ";",
        "a;b",
        "*",
        "alice%00",
        "al%C3%A9",
        "%EF%BC%A1",  # a fullwidth A
    ]
)
COORD = st.one_of(
    st.integers(-3, 15).map(str),
    st.integers(-(10**30), 10**30).map(str),
    st.sampled_from(["", "x", "1.5", "0x1", "1e3", "+1", "%201", "0" * 30 + "1", "%D9%A3"]),
)
PICK = st.builds(
    lambda row, col, sep: f"{row}{sep}{col}",
    COORD,
    COORD,
    st.sampled_from([",", ",", ",", "%2C", ";", ",,", "/", ""]),
)
SEGMENT = st.one_of(
    NAME,
    NAME,
    SPECIAL,
    PICK,
    st.binary(max_size=6).map(percent),
    st.text(max_size=6).map(lambda text: quote(text, safe="")),
    st.text(alphabet=string.ascii_letters + string.digits + "_.,;=+!$&'()*@:~-", max_size=8),
    st.integers(40, 400).map(lambda n: "a" * n),
)
ROUTE = st.sampled_from(
    ["look", "declare", "pick", "add", "scores", "watch"] * 3
    + ["tables", "LOOK", "Look", "looking", "pick.", "scores%2F", "%6Cook", "%70ick", "%2Flook"]
)
QUERY = st.one_of(
    st.just(""),
    st.just("?"),
    st.text(alphabet=string.printable, max_size=12).map(lambda q: "?" + quote(q, safe="=&/?")),
)


WELL_FORMED = st.one_of(
    st.builds("/{}/{}".format, st.sampled_from(["look", "declare", "add"]), NAME),
    st.builds("/pick/{}/{},{}".format, NAME, st.integers(0, 4), st.integers(0, 5)),
    st.just("/scores"),
)


@st.composite
def protocol_paths(draw, table_ids: list[int]) -> str:
    """A raw request target (ASCII, as it travels on the wire): a well-formed request about a
    third of the time, else random segments after a route name."""
    table = ""
    if draw(st.integers(0, 2)) == 0:
        table = "/tables/" + draw(st.one_of(st.sampled_from(table_ids).map(str), COORD, SEGMENT))
    if draw(st.integers(0, 2)) == 0:
        return table + draw(WELL_FORMED) + draw(QUERY)
    parts = [draw(ROUTE), *draw(st.lists(SEGMENT, max_size=3))]
    path = table + "/" + "/".join(parts) + draw(st.sampled_from(["", "", "", "/", "//", "/."]))
    return path + draw(QUERY)


# -- the two ways of sending a path ---------------------------------------------------------------


def asgi_get(target: str, method: str = "GET") -> tuple[int, dict[bytes, bytes], bytes]:
    """Send a request target to config.asgi.application with the scope daphne would build."""
    from config.asgi import application

    raw_path, _, query = target.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        # daphne: unquote(path.decode("ascii")), so invalid UTF-8 becomes U+FFFD.
        "path": unquote(raw_path),
        "raw_path": raw_path.encode("ascii"),
        "query_string": query.encode("ascii"),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"fuzz")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }

    async def send():
        app = ApplicationCommunicator(application, scope)
        await app.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await app.receive_output(timeout=20)
        assert start["type"] == "http.response.start", start
        body = b""
        while True:
            chunk = await app.receive_output(timeout=20)
            body += chunk.get("body", b"")
            if not chunk.get("more_body"):
                break
        await app.wait(timeout=5)
        headers = {key.lower(): value for key, value in start.get("headers", [])}
        return start["status"], headers, body

    return async_to_sync(send)()


def snapshot() -> tuple:
    """Everything a request could change: each game's version and state, seats, players, moves."""
    from games.models import Game, Move, Player, Seat

    games = tuple(Game.objects.order_by("pk").values_list("pk", "version", "state", "is_default"))
    return games, Seat.objects.count(), Player.objects.count(), Move.objects.count()


def is_protocol(target: str) -> bool:
    """Whether a raw request target is under the protocol's own prefixes, once decoded as
    daphne decodes it (§10: every other path is the site's)."""
    from cards.protocol import PROTOCOL_PATH

    return PROTOCOL_PATH.match(unquote(target.partition("?")[0])) is not None


def check_reply(target: str, status: int, body: bytes, method: str = "GET") -> None:
    text = body.decode("utf-8")  # every reply is UTF-8 text
    assert "Traceback" not in text, (target, text)
    if not is_protocol(target):
        assert status == 404, (target, status, text)
        assert method == "HEAD" or "Nothing here" in text, (target, text)  # the site's page
        return
    assert "<html" not in text.lower(), (target, text)
    assert status in (200, 404), (target, status, text)
    if method == "HEAD":
        assert body == b"", target
    elif status == 404:
        assert text in SPEC_ERRORS, (target, text)
    else:
        assert BOARD.fullmatch(text) or SCORES.fullmatch(text), (target, text)


# -- in process -----------------------------------------------------------------------------------


@pytest.fixture
def tables(db, settings):
    """The default table, another open table, a private table, a classic table and a Square
    Game, with a few players; /watch gives up after a fraction of a second."""
    from games import services
    from games.models import Player

    settings.SET_WATCH_TIMEOUT_S = 0.3
    default = services.default_table()
    other = services.game_create(
        kind="set", options={"start": "now", "rules": "declare"}, is_open=True
    )
    private = services.game_create(
        kind="set", options={"start": "now", "rules": "declare"}, is_open=False
    )
    classic = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    square = services.game_create(kind="square", options={"players": 2}, is_open=True)
    for game in (default, other, private, classic, square):
        services.game_join(game_id=game.pk, player=Player.objects.create(name="alice"))
    return [default.pk, other.pk, private.pk, classic.pk, square.pk]


def test_random_paths_get_200_or_404_and_a_404_changes_nothing(tables):
    seen = {200: 0, 404: 0}

    @settings(
        max_examples=250,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(target=protocol_paths(tables))
    def request_once(target):
        before = snapshot()
        status, headers, body = asgi_get(target)
        check_reply(target, status, body)
        if is_protocol(target):
            assert headers[b"content-type"] == b"text/plain; charset=utf-8", target
        seen[status] += 1
        if status == 404:
            assert snapshot() == before, target

    request_once()
    # The fuzz reached both kinds of answer, not only the error paths.
    assert seen[200] > 10 and seen[404] > 10, seen


@pytest.mark.parametrize(
    "target",
    [
        "/look/%FF",
        "/look/%00",
        "/look/alice%00",
        "/look/" + "a" * 100_000,
        "/pick/alice/-1,0",
        "/pick/alice/0,-1",
        "/pick/alice/" + "9" * 5000 + ",0",
        "/pick/alice/%D9%A3,0",  # an Arabic-Indic digit three
        "/pick/alice/0,1/",
        "/pick/newcomer/99,99",  # a valid name with an off-board pick: no join either
        "/tables/" + "9" * 400 + "/look/alice",
        "/tables/-1/look/alice",
        "/tables/%31/look/%E2%82",
        "/tables//look/alice",
        "/tables/1%2Flook/alice",
        "/declare/alice/../../admin/",
        "/scores%00",
        "/look/" + "a" * 41,  # names are at most 40 characters (a seat stores 40)
        "/pick/" + "a" * 41 + "/0,0",
        "/add/%ED%A0%80",
        "/watch/%FF",
        "/watch/../look/alice",
        "/LOOK/%0A",  # not a protocol route, with a newline: the site's 404 page
        "/nothing%0A",
        "/x/%0D%0Ay",
    ],
    ids=lambda target: target if len(target) < 60 else f"{target[:40]}...({len(target)} chars)",
)
def test_nasty_paths_are_refused_with_the_specs_404(tables, target):
    before = snapshot()
    status, _headers, body = asgi_get(target)
    check_reply(target, status, body)
    assert status == 404, (target, body)
    assert snapshot() == before


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("/look/%0A", BAD_NAME),
        ("/pick/alice/0,0%0A", BAD_PICK),
        ("/scores%0A", BAD_SCORES),
        ("/tables/x%0A/look/a", NO_TABLE),
    ],
)
def test_newlines_get_the_specs_404_through_django_too(client, db, target, message):
    """The Django views (the test client, WSGI) route a decoded newline like the ASGI app."""
    response = client.get(target)
    assert response.status_code == 404
    assert response.content.decode() == message + "\n"


@pytest.mark.parametrize("target", ["/LOOK/%0A", "/x%0Ay", "/nothing%0A", "/look%0A"])
def test_newlines_outside_the_protocol_get_the_sites_404_through_django_too(client, db, target):
    response = client.get(target)
    assert response.status_code == 404
    assert "Nothing here" in response.content.decode()


def test_names_of_40_characters_play_and_longer_ones_are_refused(tables):
    """A name the database cannot store must be a 404, not a 500 (PostgreSQL refuses a 41st
    character) nor a player with a name of any length (SQLite stores it)."""
    status, _, body = asgi_get("/look/" + "b" * 40 + "?x=%FF")
    assert status == 200 and BOARD.fullmatch(body.decode())
    before = snapshot()
    for target in ("/look/" + "b" * 41, "/watch/" + "c" * 41, "/declare/" + "d" * 100_000):
        status, _, body = asgi_get(target)
        assert status == 404 and body.decode() in SPEC_ERRORS, target
    assert snapshot() == before


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_other_methods_on_protocol_paths_are_404_and_change_nothing(tables, method):
    """§2: requests use GET (HEAD gets GET's status without a body); anything else is an
    unknown request, even on a path that would act."""
    before = snapshot()
    for target in ("/declare/alice", "/look/zed", f"/tables/{tables[1]}/add/zed", "/scores"):
        status, _headers, body = asgi_get(target, method)
        assert status == 404, (method, target, status)
        assert body.decode() == UNKNOWN + "\n"
    assert snapshot() == before


def test_head_answers_like_get_without_a_body(tables):
    for target in ("/scores", "/look/%FF", "/tables/0/scores"):
        get_status, _, _ = asgi_get(target)
        status, headers, body = asgi_get(target, "HEAD")
        check_reply(target, status, body, "HEAD")
        assert status == get_status and body == b""
        assert int(headers[b"content-length"]) > 0


def test_watch_answers_at_once_when_refused_and_after_its_timeout_when_valid(tables):
    import time

    before = snapshot()
    for target in ("/watch/", "/watch/%FF", "/watch/a.b", f"/tables/{tables[2]}/watch/bob"):
        started = time.monotonic()
        status, _headers, body = asgi_get(target)
        assert status == 404 and body.decode() in SPEC_ERRORS, target
        assert time.monotonic() - started < 5, target
    assert snapshot() == before
    status, headers, body = asgi_get(f"/tables/{tables[1]}/watch/carol")
    assert status == 200 and BOARD.fullmatch(body.decode())
    assert headers[b"x-table-id"] == str(tables[1]).encode()


# -- end to end, through daphne --------------------------------------------------------------------


def wire_get(server, target: str, timeout: float = 15) -> tuple[int, bytes]:
    """GET a raw request target exactly as given (no client-side normalisation)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        connection.putrequest("GET", target, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def wire_versions(server, ids: list[int]) -> dict[int, tuple]:
    """Each game's move count, version and seats, read over the JSON API (pure reads)."""
    import json

    status, body = wire_get(server, "/api/games/?open=1&limit=200")
    assert status == 200
    listed = {game["id"]: game for game in json.loads(body)}
    versions = {}
    for game_id in ids:
        status, body = wire_get(server, f"/api/games/{game_id}/moves")
        assert status == 200
        game = listed[game_id]
        seats = sorted((seat["name"], seat["score"]) for seat in game["seats"])
        versions[game_id] = (len(json.loads(body)), game["version"], seats)
    return versions


@pytest.mark.slow
def test_random_paths_through_the_live_server(server):
    import json

    status, body = wire_get(server, "/scores")
    assert status == 200
    status, body = wire_get(server, "/api/games/?open=1&limit=200")
    default_id = next(game["id"] for game in json.loads(body) if game["is_default"])
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=15)
    connection.request(
        "POST",
        "/api/games/",
        json.dumps({"kind": "set", "options": {"start": "now", "rules": "declare"}, "open": True}),
        {"Content-Type": "application/json"},
    )
    table_id = json.loads(connection.getresponse().read())["id"]
    connection.close()
    ids = [default_id, table_id]
    # Only this test's own table is checked for changes: the default table is shared with the
    # other tests served by this server, whose declares time out while this test runs.
    mine = [table_id]
    seen = {200: 0, 404: 0}

    @settings(max_examples=80, database=None, suppress_health_check=list(HealthCheck))
    @given(target=protocol_paths(ids))
    def request_once(target):
        if "watch" in target.lower() or "%77atch" in target.lower():
            return  # a valid /watch waits up to 3 s here: the watch test below covers it
        before = wire_versions(server, mine)
        status, body = wire_get(server, target)
        check_reply(target, status, body)
        seen[status] += 1
        if status == 404:
            assert wire_versions(server, mine) == before, target

    request_once()
    assert seen[200] > 3 and seen[404] > 3, seen

    for target in (
        "/look/%FF",
        "/look/" + "a" * 6000,
        "/pick/alice/" + "9" * 3000 + ",0",
        "/tables/%00/look/a",
        "/watch/%FF",
        "/watch/",
        f"/tables/{table_id}/watch/..",
    ):
        status, body = wire_get(server, target)
        check_reply(target, status, body)
        assert status == 404, target
    status, body = wire_get(server, f"/tables/{table_id}/watch/fuzzer")  # answers after 3 s
    assert status == 200 and BOARD.fullmatch(body.decode())
