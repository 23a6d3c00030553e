"""What a stranger, a watcher and each seat may read (issue 23, findings 1 and 2).

- **What a seat alone may see stays its own until the game ends**: a Set hint's card is shown to
  the seat that asked, in its answer and its view; every way out (the move log, the replay, the
  export) leaves it out for anyone else while the game is played, and shows it once it is over.
"""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.models import Game, Player
from games.rules import get_rules
from tests.games.conftest import EXAMPLE_DECK

pytestmark = pytest.mark.django_db


def finish(game: Game, seat) -> None:
    """Play a Set table to its end: `seat` does all a computer would, each time."""
    for _ in range(100):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            return
        for action in get_rules("set").bot_actions(game.state, seat.name):
            services.move_submit(game_id=game.pk, seat=seat, action=action)
    raise AssertionError(f"game {game.pk} did not end")


def seated(game: Game, name: str):
    return services.game_join(game_id=game.pk, player=Player.objects.create(name=name))


def read(client: Client, url: str, token: str | None = None):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    response = client.get(url, **headers)
    assert response.status_code == 200, response.content
    return response.json()


def hint_outcomes(client: Client, game: Game, token: str | None = None) -> dict[str, list]:
    """The hint moves' outcomes as each way out shows them to this reader."""
    moves = read(client, f"/api/games/{game.pk}/moves?since=0", token)
    replay = read(client, f"/api/games/{game.pk}/replay", token)["steps"]
    export = read(client, f"/api/games/{game.pk}/export", token)["moves"]
    return {
        way: [m["outcome"] for m in listed if m["action"]["type"] == "hint"]
        for way, listed in (("moves", moves), ("replay", replay), ("export", export))
    }


@pytest.mark.parametrize("rules", ["classic", "declare"])
def test_a_hint_is_its_seats_alone_until_the_game_ends(rules):
    game = services.game_create(
        kind="set",
        options={"start": "now", "rules": rules, "deck": EXAMPLE_DECK[:12]},
        is_open=True,
    )
    ann, bob = seated(game, "ann"), seated(game, "bob")
    answer = services.move_submit(game_id=game.pk, seat=ann, action={"type": "hint"}).outcome
    card = answer["hint"]["card"]
    services.move_submit(game_id=game.pk, seat=bob, action={"type": "count"})

    client = Client()
    for reader in (None, bob.token):  # a stranger, and another seat
        for way, outcomes in hint_outcomes(client, game, reader).items():
            assert len(outcomes) == 1, way
            (outcome,) = outcomes
            assert "hint" not in outcome and card not in str(outcome), (reader, way, outcome)
            assert outcome["action"] == "hint"
            assert outcome["withheld"] == ["hint", "message"]
    # The seat that asked reads its own hint everywhere.
    for way, outcomes in hint_outcomes(client, game, ann.token).items():
        assert outcomes[0]["hint"]["card"] == card, way
    # What is anyone's stays anyone's: how many sets there are.
    counts = [
        m["outcome"]["count"]
        for m in read(client, f"/api/games/{game.pk}/moves")
        if m["action"]["type"] == "count"
    ]
    assert len(counts) == 1

    finish(game, bob)
    for way, outcomes in hint_outcomes(client, game).items():
        assert outcomes[0]["hint"]["card"] == card, way  # over: the log is everyone's


def test_a_browser_seat_reads_its_own_hint_and_a_watching_browser_does_not():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    ann = seated(game, "ann")
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "hint"})
    browser = Client()
    session = browser.session
    session["player_id"] = ann.player_id
    session.save()
    assert "hint" in hint_outcomes(browser, game)["moves"][0]
    watcher = Client()
    assert "hint" not in hint_outcomes(watcher, game)["moves"][0]


# -- private tables (finding 1) -------------------------------------------------------------------
#
# A game made not open ("by link only": the lobby's "Private", the API's default) is reachable
# only by its link, which carries its key (``?key=``), and by its seats; to anyone else it does not
# exist (404, as an unknown id: ids are sequential).


def private_table(client: Client) -> dict:
    made = client.post(
        "/api/games/",
        {"kind": "set", "options": {"start": "now", "rules": "classic"}},
        "application/json",
    )
    assert made.status_code == 201 and made.json()["key"], made.content
    return made.json()


WAYS_OUT = ("", "moves", "replay", "export", "chat")


def reads(client: Client, game_id: int, query: str = "", **headers) -> set[int]:
    """The statuses of every way out of a game for this reader."""
    return {
        client.get(f"/api/games/{game_id}/{way}{query}", **headers).status_code for way in WAYS_OUT
    }


def test_a_private_table_is_no_game_to_a_stranger_and_a_game_to_its_link_and_its_seats():
    creator, stranger = Client(), Client()
    game = private_table(creator)
    game_id, key = game["id"], game["key"]
    assert len(key) >= 20  # unguessable: 128 random bits
    assert reads(stranger, game_id) == {404}
    assert stranger.get(f"/api/games/{game_id}/?key=wrong").status_code == 404
    refused = stranger.post(f"/api/games/{game_id}/join", {"name": "eve"}, "application/json")
    assert refused.status_code == 404
    assert refused.json() == {"detail": f"There is no game with id {game_id}."}
    assert not Game.objects.get(pk=game_id).seats.exists()

    # The link: its key reads everything and seats a friend.
    assert reads(stranger, game_id, f"?key={key}") == {200}
    joined = stranger.post(
        f"/api/games/{game_id}/join?key={key}", {"name": "ann"}, "application/json"
    )
    assert joined.status_code == 201, joined.content
    token = joined.json()["token"]
    assert joined.json()["game"]["key"] == key  # a seat may share the link
    # A seat reads it without the key.
    assert reads(Client(), game_id, HTTP_AUTHORIZATION=f"Token {token}") == {200}
    # Listed to its seat, never to a stranger (nor with ?open=false).
    for query in ("", "?open=false", "?kind=set"):
        assert game_id not in [g["id"] for g in Client().get(f"/api/games/{query}").json()]
        mine = Client().get(f"/api/games/{query}", HTTP_AUTHORIZATION=f"Token {token}").json()
        assert game_id in [g["id"] for g in mine], query
    # A move or a chat line from a stranger: still no game.
    assert (
        stranger.post(f"/api/games/{game_id}/moves", {"type": "hint"}, "application/json")
    ).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_private_table_is_joined_on_the_fast_way_only_with_its_key():
    from tests.games.test_api_fast import HOST, JSON, through_asgi

    game = private_table(Client())
    path = f"/api/games/{game['id']}/join"
    status, answer, _ = through_asgi(path, b'{"name": "eve"}', HOST + JSON)
    assert (status, answer) == (404, {"detail": f"There is no game with id {game['id']}."})
    status, answer, _ = through_asgi(f"{path}?key=nope", b'{"name": "eve"}', HOST + JSON)
    assert status == 404
    status, answer, _ = through_asgi(f"{path}?key={game['key']}", b'{"name": "eve"}', HOST + JSON)
    assert status == 201 and answer["seat"]["name"] == "eve"


def test_a_private_tables_pages_open_by_its_link_and_remember_the_browser():
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    ann = seated(game, "ann")
    visitor = Client()
    for page in (f"/play/{game.pk}/", f"/games/{game.pk}/", f"/games/{game.pk}/replay/"):
        assert visitor.get(page).status_code == 404, page
    opened = visitor.get(f"/play/{game.pk}/?key={game.link_key}&join=1")
    assert opened.status_code == 200
    # The share link carries the key; the page's own requests need none (the browser opened
    # the link), and the address of a game keeps it on the way to its page.
    assert f"?join=1&amp;key={game.link_key}" in opened.content.decode()
    assert visitor.get(f"/play/{game.pk}/").status_code == 200
    assert reads(visitor, game.pk) == {200}
    redirected = Client().get(f"/games/{game.pk}/?key={game.link_key}")
    assert redirected["Location"] == f"/play/{game.pk}/?key={game.link_key}"
    # Its seat's browser needs no key either.
    browser = Client()
    session = browser.session
    session["player_id"] = ann.player_id
    session.save()
    assert browser.get(f"/play/{game.pk}/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_private_tables_socket_opens_by_its_key_its_browser_or_its_seat():
    from asgiref.sync import async_to_sync
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.games.conftest import SAME_ORIGIN

    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    ann = seated(game, "ann")
    browser = Client()
    browser.get(f"/play/{game.pk}/?key={game.link_key}")
    cookie = [(b"cookie", f"sessionid={browser.session.session_key}".encode())]

    async def opens(query: str, headers=()) -> bool:
        socket = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/{query}", headers=[*SAME_ORIGIN, *headers]
        )
        connected, code = await socket.connect()
        if connected:
            assert (await socket.receive_json_from(timeout=5))["type"] == "state"
            await socket.disconnect()
        else:
            assert code == 4404
        return connected

    assert async_to_sync(opens)("") is False
    assert async_to_sync(opens)("?key=wrong") is False
    assert async_to_sync(opens)(f"?key={game.link_key}") is True
    assert async_to_sync(opens)("", cookie) is True  # the browser that opened the link
    assert async_to_sync(opens)(f"?token={ann.token}") is True


def test_a_private_game_is_listed_only_to_its_players_and_its_account():
    from django.contrib.auth import get_user_model

    from tests.accounts.test_profiles import play_set_table

    user = get_user_model().objects.create_user("ada", password="correct horse battery")
    ada = Player.objects.create(name="ada", user=user)
    private, _ = play_set_table([ada], rated=False, is_open=False)
    public, _ = play_set_table([ada], rated=False)
    stranger = Client()
    shown = stranger.get("/u/ada").content.decode()
    assert f'data-game="{public.pk}"' in shown and f'data-game="{private.pk}"' not in shown
    lines = stranger.get("/api/users/ada/games").getvalue().decode().splitlines()
    assert [json_id(line) for line in lines] == [public.pk]
    lobby = stranger.get("/").content.decode()
    assert f"/games/{private.pk}/replay/" not in lobby
    assert f"/games/{public.pk}/replay/" in lobby

    itself = Client()
    itself.force_login(user)
    assert f'data-game="{private.pk}"' in itself.get("/u/ada").content.decode()
    lines = itself.get("/api/users/ada/games").getvalue().decode().splitlines()
    assert sorted(json_id(line) for line in lines) == sorted([public.pk, private.pk])
    assert f"/games/{private.pk}/replay/" in itself.get("/").content.decode()


def json_id(line: str) -> int:
    import json

    return json.loads(line)["id"]


def test_a_private_game_played_again_is_private_and_its_players_are_sent_its_link():
    from tests.accounts.test_profiles import play_set_table

    ann, bob = Player.objects.create(name="ann"), Player.objects.create(name="bob")
    old, seats = play_set_table([ann, bob], rated=False, is_open=False)
    again = Client().post(
        f"/api/games/{old.pk}/rematch",
        {},
        "application/json",
        HTTP_AUTHORIZATION=f"Token {seats[0].token}",
    )
    assert again.status_code == 201, again.content
    new = Game.objects.get(pk=again.json()["game"]["id"])
    assert new.link_key and new.link_key != old.link_key and not new.is_open
    assert again.json()["url"] == f"/play/{new.pk}/?key={new.link_key}"
    assert reads(Client(), new.pk) == {404}


def test_a_private_games_save_and_kind_are_no_strangers_business():
    square = services.game_create(kind="square", options={"players": 2})
    table = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    stranger = Client()
    for game in (square, table):
        answer = stranger.get(f"/api/games/{game.pk}/save")
        # Not even "a Set game has no save": a private game's kind is not told either.
        assert answer.status_code == 404 and answer.json() == {
            "detail": f"There is no game with id {game.pk}."
        }
    assert stranger.get(f"/api/games/{square.pk}/save?key={square.link_key}").status_code == 200
    assert stranger.get(f"/api/games/{table.pk}/save?key={table.link_key}").status_code == 400


def test_a_seat_token_lists_its_own_game_not_its_accounts_other_private_games():
    """Found by the fuzzer: a seat token acts for its seat alone, so what it lists beside
    everyone's games is its own game, not every private game its account's player sits at."""
    client = Client()
    made = client.post(
        "/api/accounts",
        {"username": "ada", "password": "correct horse battery"},
        "application/json",
    )
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {made.json()['token']}"}
    private = private_table(client)
    joined = client.post(
        f"/api/games/{private['id']}/join?key={private['key']}",
        {"name": "ada"},
        "application/json",
        **bearer,
    )
    assert joined.status_code == 201, joined.content
    table = client.post(
        "/api/games/",
        {"kind": "set", "open": True, "options": {"start": "now"}},
        "application/json",
    ).json()
    seat = client.post(
        f"/api/games/{table['id']}/join", {"name": "ada"}, "application/json", **bearer
    ).json()
    listed = client.get("/api/games/", HTTP_AUTHORIZATION=f"Token {seat['token']}").json()
    assert [g["id"] for g in listed] == [table["id"]]
    assert private["id"] in [g["id"] for g in client.get("/api/games/", **bearer).json()]
