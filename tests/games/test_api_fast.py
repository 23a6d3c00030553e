"""A seat's move over the API answers the same whichever way the server takes it: in front of
Django (games.api_fast, the plain token move) or through the DRF view (everything else)."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.contrib.auth import get_user_model

from config.asgi import application
from games import api_fast, services
from games.models import Game, Player
from tests.games.conftest import EXAMPLE_DECK

pytestmark = pytest.mark.django_db(transaction=True)
HOST = [(b"host", b"testserver")]
JSON = [(b"content-type", b"application/json")]


def classic_game():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}, is_open=True
    )
    seats = [
        services.game_join(game_id=game.pk, player=Player.objects.create(name=name))
        for name in ("ann", "bob")
    ]
    game.refresh_from_db()
    return game, seats


def through_asgi(path: str, body: bytes, headers: list) -> tuple[int, dict, dict]:
    headers = [*headers, (b"content-length", str(len(body)).encode())]

    async def run():
        communicator = HttpCommunicator(application, "POST", path, body=body, headers=headers)
        return await communicator.get_response(timeout=10)

    response = async_to_sync(run)()
    headers = {key.lower(): value for key, value in response["headers"]}
    if headers.get(b"content-type") == b"application/json":
        return response["status"], json.loads(response["body"]), headers
    return response["status"], response["body"].decode(), headers


def through_django(client, path: str, body: bytes, headers: list) -> tuple[int, dict, dict]:
    meta = {
        "HTTP_" + key.decode().upper().replace("-", "_"): value.decode()
        for key, value in headers
        if key not in (b"content-type", b"host")
    }
    content_type = dict(headers).get(b"content-type", b"").decode()
    response = client.generic("POST", path, body, content_type=content_type, **meta)
    return response.status_code, response.json(), dict(response.headers)


def token(seat) -> list:
    return [(b"authorization", f"Token {seat.token}".encode())]


CASES = {
    "a set": (lambda seats: token(seats[0]) + JSON, {"type": "claim", "cards": EXAMPLE_DECK[:3]}),
    "not a set": (
        lambda seats: token(seats[0]) + JSON,
        {"type": "claim", "cards": [EXAMPLE_DECK[0], EXAMPLE_DECK[1], EXAMPLE_DECK[3]]},
    ),
    "an unknown action": (lambda seats: token(seats[1]) + JSON, {"type": "jump"}),
    "a NUL in the type": (lambda seats: token(seats[1]) + JSON, {"type": "hint\u0000"}),
    "a lone surrogate in the type": (lambda seats: token(seats[1]) + JSON, '{"type": "\\ud800"}'),
    "a type with spaces around": (lambda seats: token(seats[1]) + JSON, {"type": " hint "}),
    "NaN in the action": (lambda seats: token(seats[1]) + JSON, '{"type": "hint", "n": NaN}'),
    "latin-1 text": (
        lambda seats: token(seats[0]) + [(b"content-type", b"application/json; charset=latin-1")],
        '{"type": "hint", "note": "caf\u00e9"}',
    ),
    "a hint": (lambda seats: token(seats[1]) + JSON, {"type": "hint"}),
    "no type": (lambda seats: token(seats[0]) + JSON, {"cards": []}),
    "a blank type": (lambda seats: token(seats[0]) + JSON, {"type": "  "}),
    "a list": (lambda seats: token(seats[0]) + JSON, ["claim"]),
    "a join": (lambda seats: token(seats[0]) + JSON, {"type": "join"}),
    "an unknown token": (
        lambda seats: [(b"authorization", b"Token nope")] + JSON,
        {"type": "hint"},
    ),
    "no token": (lambda seats: JSON, {"type": "hint"}),
    "form data": (
        lambda seats: token(seats[0]) + [(b"content-type", b"application/x-www-form-urlencoded")],
        "type=hint",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_fast_way_and_the_view_answer_alike(client, case):
    headers, action = CASES[case]
    bodies = []
    for way in ("asgi", "django"):
        game, seats = classic_game()
        body = action.encode() if isinstance(action, str) else json.dumps(action).encode()
        path = f"/api/games/{game.pk}/moves"
        if way == "asgi":
            status, data, _ = through_asgi(path, body, HOST + headers(seats))
        else:
            status, data, _ = through_django(client, path, body, headers(seats))
        after = Game.objects.get(pk=game.pk)
        if isinstance(data.get("view"), dict):  # the clocks of two games made one after the other
            assert isinstance(data["view"].pop("now"), int)
            assert isinstance(data["view"].pop("started_at"), int)
        bodies.append((status, data, after.version, after.state["scores"]))
    assert bodies[0] == bodies[1]


def test_a_token_of_another_game_is_refused_the_same_way(client):
    _game, seats = classic_game()
    other, _ = classic_game()
    path = f"/api/games/{other.pk}/moves"
    body = json.dumps({"type": "hint"}).encode()
    fast = through_asgi(path, body, HOST + token(seats[0]) + JSON)
    view = through_django(client, path, body, token(seats[0]) + JSON)
    assert fast[:2] == view[:2] == (403, {"detail": "That seat token belongs to another game."})
    missing = through_asgi("/api/games/999999/moves", body, HOST + token(seats[0]) + JSON)
    assert missing[:2] == (404, {"detail": "There is no game with id 999999."})


def test_a_move_over_the_limit_gets_429_with_retry_after(settings, monkeypatch):
    settings.RATE_LIMIT_MOVES = "1/hour"
    monkeypatch.setattr("games.limits.time.time", lambda: 1_800_000_000 + 3600 * 1000 + 0.5)
    game, seats = classic_game()
    path = f"/api/games/{game.pk}/moves"
    body = json.dumps({"type": "hint"}).encode()
    assert through_asgi(path, body, HOST + token(seats[0]) + JSON)[0] == 200
    status, data, headers = through_asgi(path, body, HOST + token(seats[0]) + JSON)
    assert (status, data) == (
        429,
        {"detail": "Too many moves: at most 1 per hour; try again in 3600 s."},
    )
    assert headers[b"retry-after"] == b"3600"
    assert Game.objects.get(pk=game.pk).version == game.version + 1  # the hint, not the refusal


def test_a_body_over_the_fast_limit_still_reaches_the_view(client):
    game, seats = classic_game()
    action = {"type": "hint", "padding": "x" * (api_fast.MAX_BODY_BYTES + 10)}
    status, data, _ = through_asgi(
        f"/api/games/{game.pk}/moves", json.dumps(action).encode(), HOST + token(seats[0]) + JSON
    )
    assert status == 200 and data["outcome"]["action"] == "hint"


def test_a_foreign_host_is_left_to_django(client):
    game, seats = classic_game()
    body = json.dumps({"type": "hint"}).encode()
    headers = [(b"host", b"evil.example")] + token(seats[0]) + JSON
    status, _data, _ = through_asgi(f"/api/games/{game.pk}/moves", body, headers)
    assert status == 400
    assert Game.objects.get(pk=game.pk).version == game.version


def test_the_plain_token_move_is_answered_in_front_of_django(monkeypatch):
    answered = spy_on_fast_answers(monkeypatch)
    game, seats = classic_game()
    claim = json.dumps({"type": "claim", "cards": EXAMPLE_DECK[:3]}).encode()
    status, data, _ = through_asgi(
        f"/api/games/{game.pk}/moves", claim, HOST + token(seats[0]) + JSON
    )
    assert (status, data["outcome"]["claim"]) == (200, "set")
    assert answered == [True]
    through_asgi(f"/api/games/{game.pk}/moves", b"[]", HOST + token(seats[0]) + JSON)
    assert answered == [True, False]  # the view answered that one


def spy_on_fast_answers(monkeypatch) -> list[bool]:
    answered: list[bool] = []
    real = api_fast.submit

    async def spy(*args):
        answer = await real(*args)
        answered.append(answer is not None)
        return answer

    monkeypatch.setattr(api_fast, "submit", spy)
    return answered


def test_https_redirects_and_security_headers_are_djangos_on_the_fast_way(settings, monkeypatch):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 3600
    answered = spy_on_fast_answers(monkeypatch)
    game, seats = classic_game()
    path, body = f"/api/games/{game.pk}/moves", json.dumps({"type": "hint"}).encode()
    through_asgi(path, body, HOST + token(seats[0]) + JSON)
    # Plain HTTP is left to Django, which redirects it (its middleware was set up with this
    # test's settings unchanged, so here it does not: what matters is the fast way declined).
    assert answered == []
    secure = HOST + [(b"x-forwarded-proto", b"https")] + token(seats[0]) + JSON
    status, _data, headers = through_asgi(path, body, secure)
    assert (status, answered) == (200, [True])
    assert headers[b"strict-transport-security"] == b"max-age=3600"
    assert headers[b"x-content-type-options"] == b"nosniff"
    assert headers[b"x-frame-options"] == b"DENY"
    assert headers[b"referrer-policy"] == b"same-origin"


def test_the_fast_way_s_headers_follow_django_s_settings_when_they_change(settings):
    game, seats = classic_game()
    path, body = f"/api/games/{game.pk}/moves", json.dumps({"type": "hint"}).encode()
    assert through_asgi(path, body, HOST + token(seats[0]) + JSON)[2][b"x-frame-options"] == (
        b"DENY"
    )
    settings.X_FRAME_OPTIONS = "SAMEORIGIN"
    settings.SECURE_REFERRER_POLICY = "no-referrer"
    _status, _data, headers = through_asgi(path, body, HOST + token(seats[1]) + JSON)
    assert headers[b"x-frame-options"] == b"SAMEORIGIN"
    assert headers[b"referrer-policy"] == b"no-referrer"


def test_other_charsets_and_repeated_headers_are_left_to_django(monkeypatch):
    answered = spy_on_fast_answers(monkeypatch)
    game, seats = classic_game()
    path, body = f"/api/games/{game.pk}/moves", json.dumps({"type": "hint"}).encode()
    latin = [(b"content-type", b"application/json; charset=latin-1")]
    assert through_asgi(path, body, HOST + token(seats[0]) + latin)[0] == 200
    twice = token(seats[0]) + token(seats[1]) + JSON
    assert through_asgi(path, body, HOST + twice)[0] == 401
    assert answered == []
    utf8 = [(b"content-type", b"application/json; charset=UTF-8")]
    assert through_asgi(path, body, HOST + token(seats[0]) + utf8)[0] == 200
    assert answered == [True]


@pytest.mark.parametrize("junk", ["", "\x00", "a\x00b", "x" * 65, "no spaces", "é"])
def test_a_token_that_is_not_one_finds_no_seat_without_asking_the_database(junk):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.store import seat_by_token

    with CaptureQueriesContext(connection) as queries:
        assert seat_by_token(junk) is None
    assert len(queries) == 0


def test_a_websocket_with_a_nul_token_is_refused_cleanly():
    from tests.games.test_websocket import communicator

    game, _seats = classic_game()

    async def run():
        socket = communicator(f"/ws/games/{game.pk}/?token=%00")
        connected, code = await socket.connect()
        return connected, code

    assert async_to_sync(run)() == (False, 4403)


# -- a bot's create and join: the same answers whichever way -------------------------------------


CREATE_CASES = {
    "a classic table": {
        "kind": "set",
        "options": {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
    },
    "a square game": {"kind": "square"},
    "an open declare table": {
        "kind": "set",
        "options": {"start": "now", "rules": "declare"},
        "open": True,
    },
    "an unknown kind": {"kind": "chess"},
    "bad options": {
        "kind": "set",
        "options": {"start": "now", "rules": "classic", "attributes": 7},
    },
    "a list": ["set"],
    "no kind": {},
    "NaN in the options": '{"kind": "set", "options": {"rules": "classic", "x": NaN}}',
}


def comparable(status: int, data, state=None) -> tuple:
    """An answer without what differs from one game or seat to the next (ids, times, tokens)."""
    if isinstance(data, dict):
        data = {
            key: comparable(0, value)[1]
            for key, value in data.items()
            if key not in ("id", "created", "updated", "token")
        }
        if data.get("key"):  # a private game's: its own
            data["key"] = "its own"
    elif isinstance(data, list):
        data = [comparable(0, value)[1] for value in data]
    return status, data, state


@pytest.mark.parametrize("case", list(CREATE_CASES))
def test_a_create_answers_the_same_either_way(client, case):
    case = CREATE_CASES[case]
    body = case.encode() if isinstance(case, str) else json.dumps(case).encode()
    answers = []
    for way in (through_asgi, lambda *args: through_django(client, *args)):
        before = Game.objects.count()
        status, data, _ = way("/api/games/", body, HOST + JSON if way is through_asgi else JSON)
        created = Game.objects.order_by("-id").first() if Game.objects.count() > before else None
        answers.append(comparable(status, data, created and (created.kind, created.options)))
    assert answers[0] == answers[1]


def join_case(name_or_body, seated=(), account=None):
    def make():
        user = None
        if account is not None:
            users = get_user_model().objects
            user = users.filter(username=account).first() or users.create_user(account)
        game = services.game_create(
            kind="set", options={"start": "now", "rules": "classic"}, is_open=True
        )
        for name in seated:
            player = Player.objects.create(name=name, user=user if name == account else None)
            services.game_join(game_id=game.pk, player=player)
        if isinstance(name_or_body, bytes):  # a body as sent
            return game.pk, name_or_body
        body = name_or_body if isinstance(name_or_body, dict | list) else {"name": name_or_body}
        return game.pk, json.dumps(body).encode()

    return make


JOIN_CASES = {
    "a new name": join_case("zoe"),
    "a name outside the pattern": join_case("zoë"),
    "a name taken": join_case("ann", seated=["ann"]),
    "a blank name": join_case("  "),
    "a long name": join_case("x" * 200),
    "no name": join_case({}),
    "a list": join_case(["ann"]),
    "Infinity for a name": join_case(b'{"name": Infinity}'),
    "an account's name": join_case("ada", account="ada"),
    "an account's name in another case": join_case("ADA", account="ada"),
    "beside an account and a guest": join_case("zoe", seated=["ada", "ann"], account="ada"),
}


@pytest.mark.parametrize("case", list(JOIN_CASES))
def test_a_join_answers_the_same_either_way(client, case):
    answers = []
    for way in ("asgi", "django"):
        game_id, raw = JOIN_CASES[case]()
        path = f"/api/games/{game_id}/join"
        if way == "asgi":
            status, data, _ = through_asgi(path, raw, HOST + JSON)
        else:
            status, data, _ = through_django(client, path, raw, JSON)
        seats = list(Game.objects.get(pk=game_id).seats.values_list("name", flat=True))
        answers.append(comparable(status, data, seats))
    assert answers[0] == answers[1]
    missing = through_asgi("/api/games/999999/join", b'{"name": "ann"}', HOST + JSON)
    assert missing[:2] == (404, {"detail": "There is no game with id 999999."})


def test_a_bot_s_create_and_join_are_answered_in_front_of_django_and_browsers_are_not(
    monkeypatch,
):
    answered = []
    for name in ("create", "join"):
        real = getattr(api_fast, name)

        async def spy(*args, real=real):
            answer = await real(*args)
            answered.append(answer is not None)
            return answer

        monkeypatch.setattr(api_fast, name, spy)
    body = json.dumps(
        {"kind": "set", "open": True, "options": {"start": "now", "rules": "classic"}}
    ).encode()
    status, game, _ = through_asgi("/api/games/", body, HOST + JSON)
    assert status == 201 and answered == [True]
    join = json.dumps({"name": "ann"}).encode()
    status, seat, headers = through_asgi(f"/api/games/{game['id']}/join", join, HOST + JSON)
    assert status == 201 and seat["seat"]["name"] == "ann" and answered == [True, True]
    assert headers[b"x-frame-options"] == b"DENY"
    # A browser's session, a token or a body the serializer refuses: the view's to answer.
    cookie = [(b"cookie", b"sessionid=abc")]
    bob = json.dumps({"name": "bob"}).encode()
    assert through_asgi(f"/api/games/{game['id']}/join", bob, HOST + JSON + cookie)[0] == 201
    cal = json.dumps({"name": "cal"}).encode()
    assert through_asgi(f"/api/games/{game['id']}/join", cal, HOST + JSON + token_of(seat))[0]
    assert answered == [True, True]  # a session or a token: Django's from the start
    assert through_asgi("/api/games/", b'{"kind": 5}', HOST + JSON)[0] == 400
    assert answered == [True, True, False]  # looked at, refused by the serializer, left


def token_of(joined: dict) -> list:
    return [(b"authorization", f"Token {joined['token']}".encode())]


def test_a_join_over_the_limit_gets_429_and_seats_nobody(settings, monkeypatch):
    settings.RATE_LIMIT_JOINS = "1/hour"
    monkeypatch.setattr("games.limits.time.time", lambda: 1_800_000_000 + 3600 * 1000 + 0.5)
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    path = f"/api/games/{game.pk}/join"
    assert through_asgi(path, b'{"name": "ann"}', HOST + JSON)[0] == 201
    status, data, headers = through_asgi(path, b'{"name": "bob"}', HOST + JSON)
    assert status == 429 and headers[b"retry-after"] == b"3600", data
    assert list(Game.objects.get(pk=game.pk).seats.values_list("name", flat=True)) == ["ann"]


# -- a bot account's move, with its account token ------------------------------------------------


def account_game(account: str = "ada"):
    """A classic table where the account `account` holds the first seat; its token's header."""
    from accounts.tokens import token_create

    user = get_user_model().objects.create_user(account)
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}, is_open=True
    )
    services.game_join(game_id=game.pk, player=Player.objects.create(name=account, user=user))
    services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))
    game.refresh_from_db()
    _row, secret = token_create(user=user, name="bot")
    return game, user, [(b"authorization", f"Bearer {secret}".encode())]


def revoked(user, headers):
    from accounts.models import AccessToken
    from accounts.tokens import token_revoke

    token_revoke(user=user, token_id=AccessToken.objects.get(user=user).pk)
    return headers


def unseated(user, headers):
    """The account's token, at a game the account has no seat at."""
    Player.objects.filter(user=user).update(user=None)  # its seat is a guest's now
    return headers


def disabled(user, headers):
    user.is_active = False
    user.save(update_fields=["is_active"])
    return headers


def kept_guest_seat(user, headers):
    """The account's seat is its second player's (a guest's game it kept on signing in)."""
    from games.models import Seat

    second = Player.objects.create(name="ada-kept", user=user)
    Seat.objects.filter(player__user=user).update(player=second)  # its first player has none
    return headers


BEARER_CASES = {
    "a set": (lambda user, h: h, {"type": "claim", "cards": EXAMPLE_DECK[:3]}),
    "not a set": (
        lambda user, h: h,
        {"type": "claim", "cards": [EXAMPLE_DECK[0], EXAMPLE_DECK[1], EXAMPLE_DECK[3]]},
    ),
    "a hint": (lambda user, h: h, {"type": "hint"}),
    "an unknown token": (lambda user, h: [(b"authorization", b"Bearer nope")], {"type": "hint"}),
    "a revoked token": (revoked, {"type": "hint"}),
    "an account without a seat there": (unseated, {"type": "hint"}),
    "a disabled account": (disabled, {"type": "hint"}),
    "a seat of the account's second player": (kept_guest_seat, {"type": "hint"}),
    "no type": (lambda user, h: h, {"cards": []}),
}


@pytest.mark.parametrize("case", list(BEARER_CASES))
def test_an_account_token_move_answers_alike_either_way(client, case):
    make_headers, action = BEARER_CASES[case]
    answers = []
    for n, way in enumerate(("asgi", "django")):
        game, user, headers = account_game(f"ada{n}")
        headers = make_headers(user, headers)
        body = json.dumps(action).encode()
        path = f"/api/games/{game.pk}/moves"
        if way == "asgi":
            status, data, _ = through_asgi(path, body, HOST + headers + JSON)
        else:
            status, data, _ = through_django(client, path, body, headers + JSON)
        after = Game.objects.get(pk=game.pk)
        if isinstance(data.get("view"), dict):  # the clocks of two games
            assert isinstance(data["view"].pop("now"), int)
            assert isinstance(data["view"].pop("started_at"), int)
        answer = (status, data, after.version, after.state["scores"])
        answers.append(json.loads(json.dumps(answer).replace(f"ada{n}", "ada")))  # its own name
    assert answers[0] == answers[1]


def test_a_bot_s_account_token_move_is_answered_in_front_of_django(monkeypatch):
    answered: list[bool] = []
    real = api_fast.submit_as_account

    async def spy(*args):
        answer = await real(*args)
        answered.append(answer is not None)
        return answer

    monkeypatch.setattr(api_fast, "submit_as_account", spy)
    game, user, headers = account_game()
    claim = json.dumps({"type": "claim", "cards": EXAMPLE_DECK[:3]}).encode()
    status, data, _ = through_asgi(f"/api/games/{game.pk}/moves", claim, HOST + headers + JSON)
    assert (status, data["outcome"]["claim"], answered) == (200, "set", [True])
    assert Game.objects.get(pk=game.pk).state["scores"]["ada"] == 1
    # A revoked token: looked at, left to the view, which refuses it and writes nothing.
    version = Game.objects.get(pk=game.pk).version
    status, data, _ = through_asgi(
        f"/api/games/{game.pk}/moves", b'{"type": "hint"}', HOST + revoked(user, headers) + JSON
    )
    assert (status, answered) == (401, [True, False])
    assert data == {"detail": "That account token was revoked."}
    assert Game.objects.get(pk=game.pk).version == version


def test_a_bot_s_move_finds_its_token_account_and_seat_in_one_query(django_assert_num_queries):
    """The token, its account and the account's seat at the game: one query a move (the seat
    then by its token, cached; the token's "last used" noted once a minute)."""
    from games import store
    from games.auth import bearer_seat
    from games.models import Seat

    game, user, headers = account_game()
    secret = headers[0][1].decode().split()[1]
    seat = Seat.objects.get(game=game, player__user=user)
    store.forget_seats()
    with django_assert_num_queries(2):  # the lookup and its "last used" (the seat: the store's)
        found = bearer_seat(secret, game.pk)
    assert (found.pk, found.game_id, found.name) == (seat.pk, game.pk, "ada")
    with django_assert_num_queries(1):
        assert bearer_seat(secret, game.pk) == found
    other, _seats = classic_game()
    with django_assert_num_queries(1):
        assert bearer_seat(secret, other.pk) is None  # no seat there
    revoked(user, headers)
    with django_assert_num_queries(1):
        assert bearer_seat(secret, game.pk) is None


def test_a_bot_s_move_reads_its_seat_ban_and_limits_in_one_trip_to_a_thread(monkeypatch):
    """A bot's move takes one trip to a thread before its commit: its token's seat, the
    account's ban (the database's, read with them) and the move's limits; nothing read from the
    cache on the loop, no second trip. A banned bot is refused all the same: 403 saying until
    when, the game unchanged."""
    from django.utils import timezone

    from games import limits, runtime
    from games.models import Sanction
    from games.moderation import sanction_give

    trips: list[str] = []
    real_run_db, real_with_cache = runtime.run_db, limits.with_cache

    async def run_db(fn, *args, **kwargs):
        trips.append(fn.__name__)
        return await real_run_db(fn, *args, **kwargs)

    async def with_cache(work, *args):
        trips.append("cache")
        return await real_with_cache(work, *args)

    monkeypatch.setattr(runtime, "run_db", run_db)
    monkeypatch.setattr(limits, "with_cache", with_cache)
    game, user, headers = account_game()
    moves = f"/api/games/{game.pk}/moves"
    claim = json.dumps({"type": "claim", "cards": EXAMPLE_DECK[:3]}).encode()
    status, data, _ = through_asgi(moves, claim, HOST + headers + JSON)
    assert (status, data["outcome"]["claim"]) == (200, "set")
    assert trips == ["_account_move"]
    moderator = get_user_model().objects.create_user("mod", is_staff=True)
    sanction_give(moderator=moderator, user=user, kind="ban", minutes=60, reason="Cheats.")
    version = Game.objects.get(pk=game.pk).version
    status, data, _ = through_asgi(moves, b'{"type": "hint"}', HOST + headers + JSON)
    assert status == 403 and data["until"] and "Cheats." in data["detail"]
    assert Game.objects.get(pk=game.pk).version == version
    # The database's ban refuses the move even where the cache has not heard of it.
    Sanction.objects.update(until=timezone.now() + timezone.timedelta(hours=2))
    from django.core.cache import cache

    cache.clear()
    status, data, _ = through_asgi(moves, b'{"type": "hint"}', HOST + headers + JSON)
    assert status == 403 and data["until"]
    assert Game.objects.get(pk=game.pk).version == version
