"""Chat at every table and in the lobby (issue item 1): players write over the API or the
WebSocket, everyone who follows the game reads it, spectators read but never write, and the
chat is kept with the game (its replay, its exports) without ever being a move."""

from __future__ import annotations

import json
import types

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import limits, services
from games.models import ChatMessage, Game, Player
from tests.games.conftest import SAME_ORIGIN, play_to_the_end


def table():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))
    game.refresh_from_db()
    return game, ann, bob


def say(client, game_id, text, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(
        f"/api/games/{game_id}/chat", json.dumps({"text": text}), "application/json", **headers
    )


def browser_named(client, name: str) -> None:
    """A browser session whose player chose `name` in the lobby (the name form)."""
    client.get("/")
    assert client.post("/name", {"name": name}).status_code == 302


@pytest.mark.django_db
def test_players_write_and_anyone_reads_the_log_oldest_first(client):
    game, ann, bob = table()
    first = say(client, game.pk, "  good luck!  ", ann.token)
    assert first.status_code == 201, first.json()
    body = first.json()
    assert body["name"] == "ann" and body["text"] == "good luck!"  # stripped
    assert body["at"].endswith("Z") and "T" in body["at"]  # ISO 8601, UTC
    assert say(client, game.pk, "you too", bob.token).status_code == 201
    log = client.get(f"/api/games/{game.pk}/chat")  # nobody's token: a watcher reads it
    assert log.status_code == 200
    assert [(m["name"], m["text"]) for m in log.json()] == [
        ("ann", "good luck!"),
        ("bob", "you too"),
    ]
    newer = client.get(f"/api/games/{game.pk}/chat?since={body['id']}").json()
    assert [m["text"] for m in newer] == ["you too"]


@pytest.mark.django_db
def test_250_characters_are_taken_251_empty_or_not_text_are_refused_with_a_sentence(client):
    game, ann, _ = table()
    assert say(client, game.pk, "x" * 250, ann.token).status_code == 201
    long = say(client, game.pk, "x" * 251, ann.token)
    assert long.status_code == 400
    assert long.json()["detail"] == ("A chat message is at most 250 characters; this one has 251.")
    empty = say(client, game.pk, "   ", ann.token)
    assert empty.status_code == 400 and "needs some text" in empty.json()["detail"]
    for text in (42, None, ["hi"], {"a": 1}):
        refused = say(client, game.pk, text, ann.token)
        assert refused.status_code == 400 and "is text" in refused.json()["detail"], text
    nul = say(client, game.pk, "a\x00b", ann.token)
    assert nul.status_code == 400
    not_an_object = client.post(
        f"/api/games/{game.pk}/chat", "[1]", "application/json",
        HTTP_AUTHORIZATION=f"Token {ann.token}",
    )  # fmt: skip
    assert not_an_object.status_code == 400
    assert ChatMessage.objects.filter(game=game).count() == 1


@pytest.mark.django_db
def test_html_is_kept_as_written_and_shown_as_text_on_the_table_and_replay_pages(client):
    game, ann, _ = table()
    text = "<script>alert(1)</script><b>hi</b>"
    assert say(client, game.pk, text, ann.token).json()["text"] == text
    assert client.get(f"/api/games/{game.pk}/chat").json()[0]["text"] == text
    for page in (f"/play/{game.pk}/", f"/games/{game.pk}/replay/"):
        html = client.get(page).content.decode()
        assert "<script>alert(1)" not in html and "<b>hi</b>" not in html, page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;hi&lt;/b&gt;" in html, page


@pytest.mark.django_db
def test_a_spectator_reads_but_cannot_write(client):
    game, ann, _ = table()
    say(client, game.pk, "hello", ann.token)
    browser_named(client, "cy")  # a browser with a name, but no seat at this game
    assert client.get(f"/api/games/{game.pk}/chat").status_code == 200
    refused = client.post(
        f"/api/games/{game.pk}/chat", json.dumps({"text": "let me in"}), "application/json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )  # fmt: skip
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Spectators can read the chat but not write in it."
    anonymous = say(client.__class__(), game.pk, "and me")
    assert anonymous.status_code == 403
    assert ChatMessage.objects.filter(game=game).count() == 1


@pytest.mark.django_db
def test_a_seat_token_of_another_game_says_so(client):
    game, ann, _ = table()
    other, _, _ = table()
    refused = say(client, other.pk, "hi", ann.token)
    assert refused.status_code == 403 and "another game" in refused.json()["detail"]


@pytest.mark.django_db
def test_a_browser_player_writes_with_its_session(client):
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    browser_named(client, "dee")
    player = Player.objects.get(name="dee")
    services.game_join(game_id=game.pk, player=player)
    wrote = client.post(
        f"/api/games/{game.pk}/chat", json.dumps({"text": "hi"}), "application/json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )  # fmt: skip
    assert wrote.status_code == 201 and wrote.json()["name"] == "dee"


@pytest.mark.django_db
def test_chat_is_rate_limited_per_player_and_allowed_again_in_the_next_window(
    client, settings, monkeypatch
):
    settings.RATE_LIMIT_CHAT = "2/10s"
    now = [1_000_000.0]
    monkeypatch.setattr(limits, "time", types.SimpleNamespace(time=lambda: now[0]))
    game, ann, bob = table()
    assert say(client, game.pk, "one", ann.token).status_code == 201
    assert say(client, game.pk, "two", ann.token).status_code == 201
    third = say(client, game.pk, "three", ann.token)
    assert third.status_code == 429
    assert third.json()["detail"].startswith("Too many chat messages: at most 2 per 10 seconds")
    assert int(third["Retry-After"]) >= 1
    assert say(client, game.pk, "mine", bob.token).status_code == 201  # per player
    now[0] += 10
    assert say(client, game.pk, "three", ann.token).status_code == 201
    assert [m.text for m in ChatMessage.objects.filter(name="ann")] == ["one", "two", "three"]


@pytest.mark.django_db
def test_chat_changes_neither_the_game_nor_its_move_log(client):
    game, ann, _ = table()
    moves = game.moves.count()
    for text in ("a", "b", "c"):
        say(client, game.pk, text, ann.token)
    after = Game.objects.get(pk=game.pk)
    assert after.version == game.version and after.state == game.state
    assert after.moves.count() == moves


@pytest.mark.django_db
def test_an_unknown_game_is_a_404(client):
    _, ann, _ = table()
    assert client.get("/api/games/999999/chat").status_code == 404
    assert say(client, 999999, "hi", ann.token).status_code == 404
    assert client.get("/api/games/1/chat?since=x").status_code in (400, 404)


@pytest.mark.django_db
def test_the_lobby_chat_needs_a_name_to_write_and_anyone_reads_it(client):
    refused = client.post("/api/lobby/chat", json.dumps({"text": "hi"}), "application/json")
    assert refused.status_code == 403 and "name" in refused.json()["detail"]
    browser_named(client, "eve")
    wrote = client.post(
        "/api/lobby/chat", json.dumps({"text": "anyone for Set?"}), "application/json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )  # fmt: skip
    assert wrote.status_code == 201 and wrote.json()["name"] == "eve"
    log = client.__class__().get("/api/lobby/chat").json()
    assert [(m["name"], m["text"]) for m in log] == [("eve", "anyone for Set?")]
    assert ChatMessage.objects.get().game is None
    lobby = client.get("/").content.decode()
    assert "anyone for Set?" in lobby and 'id="lobby-chat"' in lobby
    # A game's chat is not the lobby's, and the other way round.
    game, ann, _ = table()
    say(client, game.pk, "at the table", ann.token)
    assert len(client.get("/api/lobby/chat").json()) == 1


@pytest.mark.django_db
def test_an_account_token_writes_in_the_lobby_under_its_name(client, django_user_model):
    made = client.post(
        "/api/accounts", json.dumps({"username": "fay", "password": "a long pass phrase 9"}),
        "application/json",
    )  # fmt: skip
    assert made.status_code == 201, made.json()
    token = made.json()["token"]
    wrote = client.__class__().post(
        "/api/lobby/chat", json.dumps({"text": "hello lobby"}), "application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )  # fmt: skip
    assert wrote.status_code == 201 and wrote.json()["name"] == "fay"


@pytest.mark.django_db
def test_the_export_the_ndjson_download_and_the_replay_include_the_chat(client):
    game, ann, bob = table()
    say(client, game.pk, "gl hf", ann.token)
    play_to_the_end(game, ann)
    say(client, game.pk, "gg", bob.token)
    export = client.get(f"/api/games/{game.pk}/export").json()
    assert [(m["name"], m["text"]) for m in export["chat"]] == [("ann", "gl hf"), ("bob", "gg")]
    assert set(export["chat"][0]) == {"name", "text", "at"}
    replay = client.get(f"/api/games/{game.pk}/replay").json()
    assert [m["text"] for m in replay["chat"]] == ["gl hf", "gg"]
    first, last = replay["steps"][0]["at_ms"], replay["steps"][-1]["at_ms"]
    assert first <= replay["chat"][0]["at_ms"] <= replay["chat"][1]["at_ms"]
    assert replay["chat"][1]["at_ms"] >= last

    # An account's NDJSON download carries each game's chat as its export does.
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username="gus", password="a long pass phrase 9")
    Player.objects.filter(pk=ann.player_id).update(user=user)
    lines = b"".join(client.get("/api/users/gus/games").streaming_content).decode().splitlines()
    exported = [json.loads(line) for line in lines]
    assert [m["text"] for m in exported[0]["chat"]] == ["gl hf", "gg"]


# -- the WebSocket --------------------------------------------------------------------------------


def communicator(path: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, path, headers=SAME_ORIGIN)


@pytest.mark.django_db(transaction=True)
def test_a_message_over_the_socket_reaches_every_socket_and_a_watcher_cannot_write():
    async_to_sync(_socket_chat)()


async def _socket_chat():
    game, ann, bob = await sync_to_async(table)()
    sockets = []
    for query in (f"?token={ann.token}", f"?token={bob.token}", ""):
        socket = communicator(f"/ws/games/{game.pk}/{query}")
        assert (await socket.connect())[0]
        assert (await socket.receive_json_from(timeout=5))["type"] == "state"
        sockets.append(socket)
    ann_socket, bob_socket, watcher = sockets
    await ann_socket.send_json_to({"type": "chat", "text": "hi <b>bob</b>"})
    for socket in sockets:
        pushed = await socket.receive_json_from(timeout=5)
        assert pushed["type"] == "chat"
        assert (pushed["name"], pushed["text"]) == ("ann", "hi <b>bob</b>")
        assert pushed["at"].endswith("Z")
    await watcher.send_json_to({"type": "chat", "text": "me too"})
    error = await watcher.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["for"] == "chat"
    assert error["detail"] == "Spectators can read the chat but not write in it."
    await bob_socket.send_json_to({"type": "chat", "text": "y" * 251})
    error = await bob_socket.receive_json_from(timeout=5)
    assert error["type"] == "error" and "at most 250 characters" in error["detail"]
    # The socket stays open, and chat moved no version.
    await watcher.send_json_to({"type": "sync"})
    state = await watcher.receive_json_from(timeout=5)
    assert state["type"] == "state" and state["version"] == game.version
    assert await sync_to_async(ChatMessage.objects.count)() == 1
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
def test_lobby_chat_is_sent_to_the_lobby_group():
    async_to_sync(_lobby_group)()


async def _lobby_group():
    from channels.layers import get_channel_layer

    from games.realtime import LOBBY_GROUP

    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(LOBBY_GROUP, channel)
    player = await sync_to_async(Player.objects.create)(name="hal")
    await sync_to_async(services.chat_post)(game_id=None, player_id=player.pk, text="hello all")
    heard = await layer.receive(channel)
    assert heard["type"] == "lobby.chat"
    assert (heard["chat"]["name"], heard["chat"]["text"]) == ("hal", "hello all")
    await layer.group_discard(LOBBY_GROUP, channel)


# -- the pages and the admin ----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_square_game_page_shows_its_chat_and_a_watcher_gets_no_input(client):
    game = services.game_create(kind="square", options={"players": 2}, is_open=True)
    cy = services.game_join(game_id=game.pk, player=Player.objects.create(name="cy"))
    say(client, game.pk, "<i>my move</i>", cy.token)
    html = client.get(f"/square/{game.pk}/").content.decode()
    assert "&lt;i&gt;my move&lt;/i&gt;" in html and "<i>my move</i>" not in html
    assert 'id="chat-form" novalidate hidden' in html  # a watcher: no input
    assert "Spectators can read the chat." in html


@pytest.mark.django_db
def test_staff_read_every_chat_in_the_admin_and_may_delete_a_line(client, django_user_model):
    game, ann, _ = table()
    say(client, game.pk, "at the table", ann.token)
    lobby = services.chat_post(game_id=None, player_id=ann.player_id, text="in the lobby")
    client.force_login(django_user_model.objects.create_superuser("root", password="x" * 12))
    page = client.get("/admin/games/chatmessage/").content.decode()
    assert "at the table" in page and "in the lobby" in page and "the lobby" in page
    assert client.get(f"/admin/games/chatmessage/{lobby.pk}/change/").status_code == 200
    assert client.get("/admin/games/chatmessage/add/").status_code == 403
    client.post(f"/admin/games/chatmessage/{lobby.pk}/delete/", {"post": "yes"})
    assert not ChatMessage.objects.filter(pk=lobby.pk).exists()
