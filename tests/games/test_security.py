"""Nobody acts for another seat, through any of the three ways in; CSRF, origins and the admin.

The rules (../shared/DESIGN.md, "Security"):

- **JSON API**: a seat token acts for its own seat at its own game, nothing else; a browser acts
  for its session's seat, and only with the CSRF token (every session write, joining included).
- **WebSocket**: a socket acts for the seat it connected as (its ``?token=`` or its session);
  nothing in a message can name another seat; a handshake from a foreign origin is refused.
- **Text protocol**: the name in the URL is the identity, by design (set-table-protocol.md §2,
  §4), and only on open declare tables: private tables, classic tables, Set War and Square
  games are "no table" to it, whatever names sit there. At an open table a name is a protocol
  identity unless a browser session or a computer holds that seat: such a name cannot be used
  over the protocol (404 "The name ... is taken at this game.", nothing changes). A name joined
  through the JSON API at an open table is, like a protocol name, reachable by name (the API
  says so: "Open tables are also reachable over the plain-text protocol").
- **Admin**: staff only, its own extra pages included.

`manage.py check --deploy` with the production settings is tested in test_project.py.
"""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from cards import protocol
from cards.setwar.services import setwar_run
from games import services
from games.auth import SESSION_PLAYER_KEY
from games.models import Game, Move, Player
from tests.games.conftest import EXAMPLE_DECK, SAME_ORIGIN
from tests.games.test_websocket import communicator

JSON = "application/json"


def table(**options) -> Game:
    return services.game_create(
        kind="set",
        options={"start": "now", "rules": "declare", "deck": EXAMPLE_DECK, **options},
        is_open=True,
    )


def seat(game: Game, name: str, **player):
    return services.game_join(game_id=game.pk, player=Player.objects.create(name=name, **player))


def stored(game: Game) -> tuple:
    game = Game.objects.get(pk=game.pk)
    return game.version, game.state, Move.objects.filter(game=game).count()


def act(client, game: Game, action: dict, token: str | None = None, **headers):
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Token {token}"
    return client.post(f"/api/games/{game.pk}/moves", action, content_type=JSON, **headers)


# -- the JSON API ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_token_acts_only_for_its_own_seat_whatever_the_action_names(client):
    game = table()
    alice, bob = seat(game, "alice"), seat(game, "bob")
    for impersonating in (
        {"seat": "bob"},
        {"player": "bob"},
        {"name": "bob"},
        {"token": bob.token},
    ):
        response = act(client, game, {"type": "declare", **impersonating}, alice.token)
        assert response.status_code in (200, 400), response.content
    moves = Move.objects.filter(game=game).exclude(action__type="join")
    assert set(moves.values_list("actor", flat=True)) <= {"alice"}
    declare = Game.objects.get(pk=game.pk).state["declarer"]
    assert declare in (None, "alice")
    view = client.get(f"/api/games/{game.pk}/", HTTP_AUTHORIZATION=f"Token {bob.token}").json()
    assert view["seat"]["name"] == "bob"


@pytest.mark.django_db
def test_a_token_of_one_game_is_useless_at_another(client):
    home, other = table(), table()
    mallory = seat(home, "mallory")
    seat(other, "alice")
    before = stored(other)
    for path, body in (("moves", {"type": "declare"}), ("computers", {"speed": "fast"})):
        response = client.post(
            f"/api/games/{other.pk}/{path}",
            body,
            content_type=JSON,
            HTTP_AUTHORIZATION=f"Token {mallory.token}",
        )
        assert response.status_code == 403, (path, response.content)
        assert "another game" in response.json()["detail"]
    view = client.get(f"/api/games/{other.pk}/", HTTP_AUTHORIZATION=f"Token {mallory.token}")
    assert view.status_code == 200 and view.json()["seat"] is None  # a watcher's view
    assert stored(other) == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("authorization", "statuses"),
    [
        (None, {403}),
        ("Token not-a-token", {401}),
        ("Token ", {401}),
        ("Token a b", {401}),
        ("token " + "x" * 5000, {401}),
        ("Bearer whatever", {401}),  # no account's token (issue 16): not valid
        ("Basic YWxpY2U6eA==", {401, 403}),
    ],
)
def test_no_token_or_a_bad_token_is_refused_with_a_json_detail(client, authorization, statuses):
    game = table()
    seat(game, "alice")
    before = stored(game)
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    response = act(client, game, {"type": "declare"}, **headers)
    assert response.status_code in statuses, response.content
    assert response["Content-Type"].startswith(JSON)
    assert response.json()["detail"]
    assert stored(game) == before


def named_browser(name: str) -> tuple[Client, str]:
    """A browser with a name in its session, and its CSRF token (as the pages send it)."""
    browser = Client(enforce_csrf_checks=True)
    browser.get("/")
    csrf = browser.cookies["csrftoken"].value
    response = browser.post("/name", {"name": name, "csrfmiddlewaretoken": csrf})
    assert response.status_code == 302
    return browser, csrf


@pytest.mark.django_db
def test_session_writes_without_the_csrf_token_are_refused():
    game = table()
    browser, csrf = named_browser("cleo")
    join = f"/api/games/{game.pk}/join"
    # Joining seats the session's own player: a session write like any other.
    refused = browser.post(join, {"name": "cleo"}, content_type=JSON)
    assert refused.status_code == 403, refused.content
    assert "CSRF" in refused.json()["detail"]
    assert not game.seats.exists()
    joined = browser.post(join, {"name": "cleo"}, content_type=JSON, HTTP_X_CSRFTOKEN=csrf)
    assert joined.status_code == 201

    before = stored(game)
    for path, body in (("moves", {"type": "declare"}), ("computers", {"speed": "fast"})):
        url = f"/api/games/{game.pk}/{path}"
        response = browser.post(url, body, content_type=JSON)
        assert response.status_code == 403, (path, response.content)
        assert "CSRF" in response.json()["detail"]
        wrong = browser.post(url, body, content_type=JSON, HTTP_X_CSRFTOKEN="x" * 32)
        assert wrong.status_code == 403, path
    assert stored(game) == before
    assert act(browser, game, {"type": "declare"}, HTTP_X_CSRFTOKEN=csrf).status_code == 200


@pytest.mark.django_db
def test_page_forms_need_the_csrf_token():
    browser = Client(enforce_csrf_checks=True)
    browser.get("/")
    count = Game.objects.count()
    assert browser.post("/name", {"name": "eve"}).status_code == 403
    assert browser.post("/play/new", {"rules": "classic"}).status_code == 403
    assert browser.post("/solitaire/", {}).status_code == 403
    assert Game.objects.count() == count


# -- the WebSocket --------------------------------------------------------------------------------


def browser_cookie(player: Player) -> list[tuple[bytes, bytes]]:
    session = SessionStore()
    session[SESSION_PLAYER_KEY] = player.pk
    session.save()
    return [*SAME_ORIGIN, (b"cookie", f"sessionid={session.session_key}".encode())]


@pytest.mark.django_db(transaction=True)
def test_a_socket_acts_only_for_the_seat_it_connected_as():
    async_to_sync(_a_socket_acts_only_for_the_seat_it_connected_as)()


async def _a_socket_acts_only_for_the_seat_it_connected_as():
    game = await sync_to_async(table)()
    alice = await sync_to_async(seat)(game, "alice")
    bob = await sync_to_async(seat)(game, "bob")
    socket = communicator(f"/ws/games/{game.pk}/?token={alice.token}")
    assert (await socket.connect())[0]
    await socket.receive_json_from(timeout=5)
    await socket.send_json_to({"type": "declare", "token": bob.token, "seat": "bob", "name": "bob"})
    while (reply := await socket.receive_json_from(timeout=5))["type"] == "state":
        pass
    state = (await sync_to_async(stored)(game))[1]
    assert state["declarer"] in (None, "alice"), reply  # never bob
    await socket.disconnect()

    # A watcher cannot act by putting a seat's token in its message.
    watcher = communicator(f"/ws/games/{game.pk}/")
    assert (await watcher.connect())[0]
    await watcher.receive_json_from(timeout=5)
    before = await sync_to_async(stored)(game)
    for message in ({"type": "add", "token": bob.token}, {"type": "add", "seat": "bob"}):
        await watcher.send_json_to(message)
        assert (await watcher.receive_json_from(timeout=5))["code"] == "forbidden"
    assert await sync_to_async(stored)(game) == before
    await watcher.disconnect()


@pytest.mark.django_db(transaction=True)
def test_a_token_of_another_game_cannot_open_a_socket():
    async_to_sync(_a_token_of_another_game_cannot_open_a_socket)()


async def _a_token_of_another_game_cannot_open_a_socket():
    home, other = await sync_to_async(table)(), await sync_to_async(table)()
    mallory = await sync_to_async(seat)(home, "mallory")
    for query in (f"?token={mallory.token}", "?token=", f"?token=x&token={mallory.token}"):
        socket = communicator(f"/ws/games/{other.pk}/{query}")
        connected, code = await socket.connect()
        if query == "?token=":  # an empty token is no token: a watcher
            assert connected
            await socket.receive_json_from(timeout=5)
            await socket.send_json_to({"type": "declare"})
            assert (await socket.receive_json_from(timeout=5))["code"] == "forbidden"
            await socket.disconnect()
            continue
        assert not connected and code == 4403, query


@pytest.mark.django_db(transaction=True)
def test_a_browser_socket_acts_for_its_sessions_seat_and_only_at_its_game():
    async_to_sync(_a_browser_socket_acts_for_its_sessions_seat_and_only_at_its_game)()


async def _a_browser_socket_acts_for_its_sessions_seat_and_only_at_its_game():
    game, elsewhere = await sync_to_async(table)(), await sync_to_async(table)()
    cleo = await sync_to_async(Player.objects.create)(name="cleo", session_key="k" * 32)
    await sync_to_async(services.game_join)(game_id=game.pk, player=cleo)
    await sync_to_async(seat)(elsewhere, "dan")
    headers = await sync_to_async(browser_cookie)(cleo)

    socket = communicator(f"/ws/games/{game.pk}/", headers=headers)
    assert (await socket.connect())[0]
    await socket.receive_json_from(timeout=5)
    await socket.send_json_to({"type": "declare"})
    assert (await socket.receive_json_from(timeout=5))["type"] == "result"
    assert (await sync_to_async(stored)(game))[1]["declarer"] == "cleo"
    await socket.disconnect()

    # At a game where the session has no seat, the same browser only watches.
    before = await sync_to_async(stored)(elsewhere)
    socket = communicator(f"/ws/games/{elsewhere.pk}/", headers=headers)
    assert (await socket.connect())[0]
    await socket.receive_json_from(timeout=5)
    await socket.send_json_to({"type": "declare"})
    assert (await socket.receive_json_from(timeout=5))["code"] == "forbidden"
    await socket.disconnect()
    assert await sync_to_async(stored)(elsewhere) == before


HOST = (b"host", b"localhost:9")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "origin",
    [
        b"http://evil.example",
        b"https://evil.example:8000",
        b"http://127.0.0.1.evil.example",
        b"http://localhost.evil.example",
        b"http://evil.example/127.0.0.1",
        b"null",
        b"",
        None,  # no Origin header at all
        # The site's host, but another address of it: another port, another scheme.
        b"http://localhost:10",
        b"http://localhost",
        b"https://localhost:9",
        b"ws://localhost:10",
        b"http://localhost:9/",
        b"http://user@localhost:9",
    ],
)
def test_cross_origin_handshakes_are_refused(origin):
    async_to_sync(_cross_origin_handshakes_are_refused)(origin)


async def _cross_origin_handshakes_are_refused(origin):
    game = await sync_to_async(table)()
    alice = await sync_to_async(seat)(game, "alice")
    headers = [HOST] if origin is None else [(b"origin", origin), HOST]
    socket = communicator(f"/ws/games/{game.pk}/?token={alice.token}", headers=headers)
    connected, _ = await socket.connect()
    assert not connected, origin
    same_site = communicator(
        f"/ws/games/{game.pk}/?token={alice.token}",
        headers=[(b"origin", b"http://localhost:9"), HOST],
    )
    assert (await same_site.connect())[0]
    await same_site.disconnect()


@pytest.mark.django_db(transaction=True)
def test_a_handshake_from_a_trusted_origin_or_behind_https_is_taken(settings):
    async_to_sync(_a_handshake_from_a_trusted_origin_or_behind_https_is_taken)(settings)


async def _a_handshake_from_a_trusted_origin_or_behind_https_is_taken(settings):
    game = await sync_to_async(table)()
    path = f"/ws/games/{game.pk}/"
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example"]
    for origin, host, scheme, taken in [
        (b"https://play.example", b"localhost:9", "ws", True),  # a trusted origin
        (b"https://localhost", b"localhost", "wss", True),  # wss: the page was https
        (b"http://localhost", b"localhost", "wss", False),
        (b"https://localhost", b"evil.example", "wss", False),  # a host not allowed
    ]:
        socket = communicator(path, headers=[(b"origin", origin), (b"host", host)])
        socket.scope["scheme"] = scheme
        connected, _ = await socket.connect()
        assert connected is taken, (origin, host, scheme)
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
def test_behind_a_proxy_the_proxys_scheme_decides_the_origin(settings):
    async_to_sync(_behind_a_proxy_the_proxys_scheme_decides_the_origin)(settings)


async def _behind_a_proxy_the_proxys_scheme_decides_the_origin(settings):
    """daphne's WebSocket scope has no scheme: behind nginx (SECURE_PROXY_SSL_HEADER, as in
    config.settings_production) X-Forwarded-Proto says whether the page was https, as it does for
    Django's CSRF check; without that setting the header is ignored."""
    game = await sync_to_async(table)()
    path = f"/ws/games/{game.pk}/"
    for proxied, origin, proto, taken in [
        (True, b"https://localhost:9", b"https", True),
        (True, b"http://localhost:9", b"https", False),
        (True, b"https://localhost:9", b"http", False),
        (True, b"http://localhost:9", b"http", True),
        (False, b"https://localhost:9", b"https", False),  # no proxy trusted: the header is not
    ]:
        settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if proxied else None
        headers = [(b"origin", origin), HOST, (b"x-forwarded-proto", proto)]
        socket = communicator(path, headers=headers)
        connected, _ = await socket.connect()
        assert connected is taken, (proxied, origin, proto)
        await socket.disconnect()


@pytest.mark.slow
def test_a_cross_origin_handshake_is_refused_by_the_live_server(server):
    import httpx
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    game = httpx.post(
        server.url + "/api/games/",
        json={"kind": "set", "open": True, "options": {"start": "now"}},
        timeout=10,
    ).json()
    url = f"ws://127.0.0.1:{server.port}/ws/games/{game['id']}/"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, origin="http://evil.example", open_timeout=10)
    assert refused.value.response.status_code == 403
    with connect(url, origin=f"http://127.0.0.1:{server.port}", open_timeout=10) as socket:
        assert '"type":"state"' in socket.recv(timeout=10)


# -- the text protocol ----------------------------------------------------------------------------


def text(path: str) -> tuple[int, str]:
    response = protocol.handle(path)
    return response.status_code, response.content.decode()


@pytest.mark.django_db
def test_the_protocol_reaches_only_open_declare_tables_whatever_names_sit_elsewhere():
    private = services.game_create(
        kind="set", options={"start": "now", "rules": "declare"}, is_open=False
    )
    classic = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    square = services.game_create(kind="square", options={"players": 2}, is_open=True)
    setwar = setwar_run(players=2, seed=1)
    for game in (private, classic, square):
        seat(game, "ann")
    before = {game.pk: stored(game) for game in (private, classic, square, setwar)}
    for game in (private, classic, square, setwar):
        for route in ("/look/ann", "/declare/ann", "/pick/ann/0,0", "/add/ann", "/scores"):
            status, body = text(f"/tables/{game.pk}{route}")
            assert (status, body) == (404, "There is no table with that id.\n"), (game, route)
    assert {game.pk: stored(game) for game in (private, classic, square, setwar)} == before


@pytest.mark.django_db
def test_a_player_of_one_table_is_a_newcomer_at_another():
    home, other = table(), table()
    assert text(f"/tables/{home.pk}/declare/alice")[0] == 200  # alice declares at home
    assert text(f"/tables/{other.pk}/look/bob")[0] == 200
    home_before, other_before = stored(home), stored(other)

    # At the other table alice is nobody yet: her pick there joins her (score 0) and is ignored,
    # because she is not that table's declarer; her declare at home gives her nothing there.
    status, body = text(f"/tables/{other.pk}/pick/alice/0,0")
    assert status == 200 and body.split("\n")[1] == "none"
    after = Game.objects.get(pk=other.pk).state
    assert after["declarer"] is None and after["picks"] == []
    assert after["scores"] == {"bob": 0, "alice": 0}
    assert after["board"] == other_before[1]["board"]
    assert stored(home) == home_before


@pytest.mark.django_db
@pytest.mark.parametrize("holder", ["browser", "computer"])
def test_the_protocol_cannot_act_for_a_browser_or_a_computer_seat(holder):
    game = table()
    if holder == "browser":
        name = "cleo"
        seat(game, name, session_key="s" * 32)
    else:
        name = services.seat_add_computer(game_id=game.pk, speed="slow").name
    game.refresh_from_db()
    before = stored(game)
    for route in ("declare", "pick", "add", "watch"):
        path = f"/tables/{game.pk}/{route}/{name}" + ("/0,0" if route == "pick" else "")
        status, body = text(path)
        assert status == 404, (route, body)
    after = stored(game)
    assert after[1]["declarer"] is None and after[1].get("votes", []) == []
    assert after[1]["scores"] == before[1]["scores"]
    assert after[2] == before[2]
    status, body = text(f"/tables/{game.pk}/declare/{name}")
    assert body == f"The name '{name}' is taken at this game.\n"
    # Protocol players still play there under their own names.
    assert text(f"/tables/{game.pk}/declare/zed")[0] == 200
    assert Game.objects.get(pk=game.pk).state["declarer"] == "zed"


@pytest.mark.django_db(transaction=True)
def test_a_watch_under_a_browsers_name_is_refused_through_the_real_app(settings):
    """Through config.asgi's ProtocolApp, where /watch joins (or marks present) before waiting."""
    from tests.games.test_protocol_fuzz import asgi_get

    settings.SET_WATCH_TIMEOUT_S = 0.2
    game = table()
    cleo = Player.objects.create(name="cleo", session_key="s" * 32)
    services.game_join(game_id=game.pk, player=cleo, now=services.now_ms() - 120_000)
    before = stored(game)
    status, _headers, body = asgi_get(f"/tables/{game.pk}/watch/cleo")
    assert (status, body) == (404, b"The name 'cleo' is taken at this game.\n")
    assert stored(game) == before


# -- the admin ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_admin_and_its_own_pages_are_for_staff_only(client, django_user_model):
    game = table()
    square = services.game_create(kind="square", options={"players": 2})
    pages = [
        "/admin/",
        "/admin/games/game/",
        f"/admin/games/game/{game.pk}/change/",
        f"/admin/games/game/{game.pk}/export/",
        f"/admin/games/game/{square.pk}/save/",
        "/admin/games/game/import-save/",
        "/admin/games/player/",
        "/admin/games/seat/",
        "/admin/auth/user/",
    ]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], page
    assert client.post("/admin/games/game/import-save/", {"players": "2"}).status_code == 302

    user = django_user_model.objects.create_user("bob", password="x" * 12)
    client.force_login(user)
    for page in pages:
        response = client.get(page)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], page

    staff = django_user_model.objects.create_superuser("root", password="x" * 12)
    client.force_login(staff)
    for page in pages:
        assert client.get(page).status_code == 200, page
