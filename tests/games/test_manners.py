"""The site's gates (issue 28, item 3): the lobby's chat opens to an account once it has
finished LOBBY_CHAT_MIN_GAMES games; a guest or a new account chats at the tables it sits at
only; every refusal is a 403 with a sentence that says why (and how many games more), and
writes nothing."""

from __future__ import annotations

import json

import pytest

from games import services
from games.models import ChatMessage, Game, Player


def account(client, name: str) -> str:
    """A new account's API token."""
    made = client.post(
        "/api/accounts", json.dumps({"username": name, "password": "a long pass phrase 9"}),
        "application/json",
    )  # fmt: skip
    assert made.status_code == 201, made.json()
    return made.json()["token"]


def finish_games(username: str, count: int) -> None:
    """`count` finished games the account sat at (made in the database: how they ended does not
    matter to the gate)."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username=username)
    player = Player.objects.filter(user=user).first() or Player.objects.create(
        name=username, user=user
    )
    for _ in range(count):
        game = services.game_create(kind="set", options={"rules": "classic"}, is_open=True)
        services.game_join(game_id=game.pk, player=player)
        Game.objects.filter(pk=game.pk).update(status=Game.Status.OVER)


def lobby_say(client, text: str, token: str | None = None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.post("/api/lobby/chat", json.dumps({"text": text}), "application/json", **headers)


@pytest.mark.django_db
def test_the_lobby_chat_opens_to_an_account_after_its_third_finished_game(client, settings):
    settings.LOBBY_CHAT_MIN_GAMES = 3
    token = account(client, "newbie")
    other = client.__class__()
    refused = lobby_say(other, "hi all", token)
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        "The lobby chat opens once you have finished 3 games: 3 more to go. Meanwhile you can "
        "chat at the tables you sit at."
    )
    finish_games("newbie", 2)
    refused = lobby_say(other, "hi all", token)
    assert refused.status_code == 403 and "1 more to go" in refused.json()["detail"]
    assert not ChatMessage.objects.exists()  # a refused line is written nowhere
    finish_games("newbie", 1)
    wrote = lobby_say(other, "hi all", token)
    assert wrote.status_code == 201, wrote.json()
    assert [m["text"] for m in other.get("/api/lobby/chat").json()] == ["hi all"]


@pytest.mark.django_db
def test_the_lobby_page_shows_why_instead_of_the_chat_input(client, settings):
    settings.LOBBY_CHAT_MIN_GAMES = 3
    client.get("/")
    assert client.post("/name", {"name": "guesty"}).status_code == 302
    page = client.get("/").content.decode()
    assert "The lobby chat is for accounts that have finished 3 games" in page
    chat = page[page.index('id="lobby-chat"') :]
    assert 'id="chat-form" novalidate hidden' in chat
    refused = lobby_say(client, "hello?")
    assert refused.status_code == 403
    assert refused.json()["detail"].startswith("The lobby chat is for accounts")
    assert not ChatMessage.objects.exists()


@pytest.mark.django_db
def test_with_the_gate_off_a_named_guest_writes_in_the_lobby(client, settings):
    settings.LOBBY_CHAT_MIN_GAMES = 0
    client.get("/")
    client.post("/name", {"name": "guesty"})
    assert lobby_say(client, "hello").status_code == 201
    assert 'id="chat-form" novalidate hidden' not in client.get("/").content.decode()


@pytest.mark.django_db
def test_a_guest_and_a_new_account_chat_at_their_own_table_but_not_as_spectators(client, settings):
    settings.LOBBY_CHAT_MIN_GAMES = 3
    token = account(client, "fresh")
    game = services.game_create(kind="set", options={"rules": "classic"}, is_open=True)
    guest = services.game_join(game_id=game.pk, player=Player.objects.create(name="gus"))
    other = client.__class__()
    at_table = other.post(
        f"/api/games/{game.pk}/chat", json.dumps({"text": "gl"}), "application/json",
        HTTP_AUTHORIZATION=f"Token {guest.token}",
    )  # fmt: skip
    assert at_table.status_code == 201, at_table.json()
    watching = other.post(
        f"/api/games/{game.pk}/chat", json.dumps({"text": "boo"}), "application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )  # fmt: skip
    assert watching.status_code == 403
    assert watching.json()["detail"] == "Spectators can read the chat but not write in it."
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["gl"]


# -- public tables made per hour ------------------------------------------------------------------


def make_table(client, *, open_=True, token: str | None = None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.post(
        "/api/games/", json.dumps({"kind": "set", "options": {"rules": "classic"}, "open": open_}),
        "application/json", **headers,
    )  # fmt: skip


@pytest.mark.django_db
def test_an_account_makes_at_most_the_public_tables_an_hour_allows(client, settings):
    settings.PUBLIC_TABLES_PER_HOUR = 2
    token = account(client, "host")
    other = client.__class__()
    assert make_table(other, token=token).status_code == 201
    assert make_table(other, token=token).status_code == 201
    before = Game.objects.count()
    refused = make_table(other, token=token)
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith(
        "Too many unfinished public games were recently created: at most 2 an hour."
    )
    assert 3000 < int(refused["Retry-After"]) <= 3601
    assert Game.objects.count() == before  # nothing made
    # A private table (by link) is not counted; another account is not either.
    assert make_table(other, token=token, open_=False).status_code == 201
    assert make_table(other, token=account(client, "guest2")).status_code == 201
    # A finished table frees its place, and so does one made more than an hour ago.
    mine = Game.objects.filter(maker__startswith="account:", is_open=True).order_by("pk")
    Game.objects.filter(pk=mine[0].pk).update(status=Game.Status.OVER)
    assert make_table(other, token=token).status_code == 201
    assert make_table(other, token=token).status_code == 429
    import datetime as dt

    from django.utils import timezone

    Game.objects.filter(pk=mine[1].pk).update(created=timezone.now() - dt.timedelta(hours=2))
    assert make_table(other, token=token).status_code == 201


@pytest.mark.django_db
def test_an_anonymous_api_client_is_counted_by_its_address(client, settings):
    settings.PUBLIC_TABLES_PER_HOUR = 1
    assert make_table(client).status_code == 201
    refused = make_table(client)
    assert refused.status_code == 429 and "Retry-After" in refused


@pytest.mark.django_db
def test_the_lobby_form_says_why_a_guest_may_not_make_another_public_table(client, settings):
    settings.PUBLIC_TABLES_PER_HOUR = 1
    client.get("/")
    client.post("/name", {"name": "guesty"})
    form = {"preset": "classic", "visibility": "open"}
    made = client.post("/play/new", form)
    assert made.status_code == 302 and made["Location"].startswith("/play/")
    count = Game.objects.count()
    refused = client.post("/play/new", form)
    assert refused.status_code == 429
    assert "Too many unfinished public games were recently created" in refused.content.decode()
    assert Game.objects.count() == count


@pytest.mark.django_db(transaction=True)
def test_the_fast_way_in_counts_public_tables_as_the_view_does(settings):
    from tests.games.test_api_fast import through_asgi

    settings.PUBLIC_TABLES_PER_HOUR = 1
    body = json.dumps({"kind": "set", "options": {"rules": "classic"}, "open": True}).encode()
    headers = [(b"content-type", b"application/json"), (b"host", b"localhost")]
    assert through_asgi("/api/games/", body, headers)[0] == 201
    code, answer, sent = through_asgi("/api/games/", body, headers)
    assert code == 429 and answer["detail"].startswith("Too many unfinished public games")
    assert int(sent[b"retry-after"]) > 3000
    assert Game.objects.count() == 1


# -- the word filter ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_blocked_word_hides_the_line_from_everyone_but_its_writer(client, settings):
    settings.CHAT_BLOCKED_WORDS = ["shit"]
    game = services.game_create(kind="set", options={"rules": "classic"}, is_open=True)
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))

    def say(token, text):
        return client.post(
            f"/api/games/{game.pk}/chat", json.dumps({"text": text}), "application/json",
            HTTP_AUTHORIZATION=f"Token {token}",
        )  # fmt: skip

    def read(token=None):
        headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
        return [m["text"] for m in client.get(f"/api/games/{game.pk}/chat", **headers).json()]

    wrote = say(ann.token, "oh SH1T, no")
    assert wrote.status_code == 201
    assert wrote.json()["hidden"] is True
    assert wrote.json()["note"].startswith("Only you can see this")
    assert say(ann.token, "gg").json().get("hidden") is None
    assert read(ann.token) == ["oh SH1T, no", "gg"]  # the writer still sees it
    assert read(bob.token) == ["gg"]  # the others never do
    assert read() == ["gg"]
    assert "SH1T" not in json.dumps(client.get(f"/api/games/{game.pk}/export").json())
    assert "SH1T" not in client.get(f"/play/{game.pk}/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_over_the_websocket_a_hidden_line_reaches_its_writer_only(settings):
    from asgiref.sync import async_to_sync
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.games.conftest import SAME_ORIGIN

    settings.CHAT_BLOCKED_WORDS = ["shit"]
    game = services.game_create(
        kind="set", options={"rules": "classic", "start": "now"}, is_open=True
    )
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))

    async def chat_frames(socket) -> list[dict]:
        frames = []
        while not await socket.receive_nothing(timeout=0.3):
            frame = await socket.receive_json_from()
            if frame.get("type") == "chat":
                frames.append(frame)
        return frames

    async def run():
        sockets = []
        for seat in (ann, bob):
            socket = WebsocketCommunicator(
                application, f"/ws/games/{game.pk}/?token={seat.token}", headers=SAME_ORIGIN
            )
            assert (await socket.connect())[0]
            sockets.append(socket)
        await chat_frames(sockets[0])
        await chat_frames(sockets[1])
        await sockets[0].send_json_to({"type": "chat", "text": "s.h.i.t"})
        await sockets[0].send_json_to({"type": "chat", "text": "nice one"})
        mine, theirs = await chat_frames(sockets[0]), await chat_frames(sockets[1])
        for socket in sockets:
            await socket.disconnect()
        return mine, theirs

    mine, theirs = async_to_sync(run)()
    assert [(m["text"], m.get("hidden", False)) for m in mine] == [
        ("s.h.i.t", True),
        ("nice one", False),
    ]
    assert [m["text"] for m in theirs] == ["nice one"]


@pytest.mark.django_db
def test_a_hidden_lobby_line_is_shown_marked_on_its_writer_s_lobby_only(client, settings):
    settings.CHAT_BLOCKED_WORDS = ["shit"]
    client.get("/")
    client.post("/name", {"name": "guesty"})
    wrote = lobby_say(client, "shiiit")
    assert wrote.status_code == 201 and wrote.json()["hidden"] is True
    mine = client.get("/").content.decode()
    assert "shiiit" in mine and "Only you can see this" in mine
    other = client.__class__()
    assert "shiiit" not in other.get("/").content.decode()
    assert other.get("/api/lobby/chat").json() == []


@pytest.mark.django_db
def test_a_line_the_word_filter_hides_is_reported_to_the_moderators(client, settings):
    """Issue 28's word filter "hides a line from others and files a report": the moderators'
    list has it, by the word filter, with the line and the words it says; nothing else is
    reported for a clean line."""
    from django.contrib.auth import get_user_model

    from games.models import Report

    settings.CHAT_BLOCKED_WORDS = ["shit"]
    game = services.game_create(kind="set", options={"rules": "classic"}, is_open=True)
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    for text in ("gg", "oh SH1T, no"):
        said = client.post(
            f"/api/games/{game.pk}/chat", json.dumps({"text": text}), "application/json",
            HTTP_AUTHORIZATION=f"Token {ann.token}",
        )  # fmt: skip
        assert said.status_code == 201
    report = Report.objects.get()
    assert report.reporter is None and report.about == "line" and report.reason == "abuse"
    assert report.line.text == "oh SH1T, no" and report.name == "ann"
    assert report.note == "Hidden by the word filter (it says: shit)."
    mod = get_user_model().objects.create_user("mod", password="a long pass phrase 9")
    mod.is_staff = True
    mod.save()
    client.force_login(mod)
    listed = client.get("/api/moderation/reports").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [(r["reporter"], r["context"]["line"]["text"]) for r in rows] == [
        ("the word filter", "oh SH1T, no")
    ]
    page = client.get("/moderation/").content.decode()
    assert "Reported by the word filter" in page
