"""Reports and blocks (issue 28, item 1): POST /api/reports, POST/DELETE /api/blocks/<name>; a
blocked account's chat hidden from its blocker (API lists, pages, lobby and table sockets, the
game stream); no challenge between a blocked pair."""

from __future__ import annotations

import json
import types

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Challenge
from accounts.tokens import token_create
from config.asgi import application
from games import services
from games.auth import account_player
from games.models import Block, ChatMessage, Report

pytestmark = pytest.mark.django_db


def make_account(name: str):
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return user, token_create(user=user, name="api")[1]


def call(method: str, path: str, token: str | None = None, body=None):
    extra = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = json.dumps(body) if body is not None else ""
    return getattr(Client(), method)(path, data, content_type="application/json", **extra)


@pytest.fixture
def ada():
    return make_account("ada")


@pytest.fixture
def bob():
    return make_account("bob")


def lobby_line(user, text: str) -> ChatMessage:
    return services.chat_post(
        game_id=None, player_id=account_player(user, create=True).pk, text=text
    )


def test_a_chat_line_a_name_and_a_player_are_reported(ada, bob):
    line = lobby_line(bob[0], "buy cheap gold")
    made = call("post", "/api/reports", ada[1], {"line": line.pk, "reason": "spam"})
    assert made.status_code == 201, made.json()
    assert made.json()["about"] == "line" and made.json()["name"] == "bob"
    assert made.json()["open"] is True
    named = call("post", "/api/reports", ada[1], {"name": "BOB", "reason": "name", "note": " x "})
    assert named.status_code == 201 and named.json()["note"] == "x"
    played = call("post", "/api/reports", ada[1], {"player": "bob", "reason": "cheating"})
    assert played.status_code == 201
    reports = list(Report.objects.order_by("id"))
    assert [r.about for r in reports] == ["line", "name", "player"]
    assert all(r.account == bob[0] and r.reporter == ada[0] for r in reports)
    assert reports[0].line == line


def test_bad_reports_are_refused_with_a_sentence_and_change_nothing(ada, bob):
    line = lobby_line(bob[0], "hello")
    cases = [
        ({"line": line.pk, "reason": "boring"}, 400, "reason is one of"),
        ({"line": line.pk + 99, "reason": "spam"}, 400, "no chat line"),
        ({"line": "x", "reason": "spam"}, 400, "by its id"),
        ({"reason": "spam"}, 400, "names one thing"),
        ({"line": line.pk, "name": "bob", "reason": "spam"}, 400, "names one thing"),
        ({"name": "nobody", "reason": "name"}, 404, "no account named"),
        ({"name": "bob", "reason": "nope"}, 400, "reason is one of"),
        ({"player": "ada", "reason": "abuse"}, 400, "yourself"),
        ({"player": "bob", "reason": "abuse", "note": "x" * 501}, 400, "at most 500"),
        ([1, 2], 400, "JSON object"),
    ]
    for body, code, words in cases:
        refused = call("post", "/api/reports", ada[1], body)
        assert refused.status_code == code, (body, refused.json())
        assert words in refused.json()["detail"], (body, refused.json())
    guest = call("post", "/api/reports", None, {"line": line.pk, "reason": "spam"})
    assert guest.status_code == 401 and "No account" in guest.json()["detail"]
    assert not Report.objects.exists()


def test_an_account_reports_at_its_rate(ada, bob, settings):
    settings.RATE_LIMIT_REPORTS = "2/hour"
    body = {"player": "bob", "reason": "abuse"}
    assert [call("post", "/api/reports", ada[1], body).status_code for _ in range(2)] == [201, 201]
    refused = call("post", "/api/reports", ada[1], body)
    assert refused.status_code == 429 and "Too many reports" in refused.json()["detail"]
    assert Report.objects.count() == 2


def test_a_blocked_accounts_chat_is_hidden_from_its_blocker_only(ada, bob):
    carl = make_account("carl")
    lobby_line(bob[0], "from bob")
    lobby_line(carl[0], "from carl")
    made = call("post", "/api/blocks/Bob", ada[1])
    assert made.status_code == 201 and made.json() == {"blocked": "bob", "blocks": ["bob"]}
    assert call("post", "/api/blocks/bob", ada[1]).status_code == 200  # again: nothing new
    assert Block.objects.count() == 1

    def lobby_texts(token):
        answer = Client().get("/api/lobby/chat", HTTP_AUTHORIZATION=f"Bearer {token}")
        return [m["text"] for m in answer.json()]

    assert lobby_texts(ada[1]) == ["from carl"]
    assert lobby_texts(carl[1]) == ["from bob", "from carl"]
    page = Client()
    page.force_login(ada[0])
    html = page.get("/").content.decode()
    assert "from carl" in html and "from bob" not in html
    assert call("delete", "/api/blocks/bob", ada[1]).status_code == 204
    assert lobby_texts(ada[1]) == ["from bob", "from carl"]
    again = call("delete", "/api/blocks/bob", ada[1])
    assert again.status_code == 404 and "not blocked" in again.json()["detail"]


def test_wrong_blocks_are_refused(ada):
    itself = call("post", "/api/blocks/ada", ada[1])
    assert itself.status_code == 400 and "yourself" in itself.json()["detail"]
    assert call("post", "/api/blocks/nobody", ada[1]).status_code == 404
    assert call("post", "/api/blocks/ada", None).status_code == 401
    assert not Block.objects.exists()


def test_a_blocked_pair_is_never_challenged_together(ada, bob):
    made = call("post", "/api/challenge/bob", ada[1], {"kind": "set", "options": {}})
    assert made.status_code == 201
    call("post", "/api/blocks/ada", bob[1])  # bob blocks ada after her challenge
    accept = call("post", f"/api/challenge/{made.json()['id']}/accept", bob[1])
    assert accept.status_code == 403 and "cannot challenge" in accept.json()["detail"]
    for token, dest in ((ada[1], "bob"), (bob[1], "ada")):
        refused = call("post", f"/api/challenge/{dest}", token, {"kind": "set", "options": {}})
        assert refused.status_code == 403
        assert refused.json()["detail"] == (
            "You cannot challenge this account, and it cannot challenge you."
        )  # it does not say who blocked whom
    assert Challenge.objects.count() == 1


# -- the sockets ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_blocked_accounts_line_is_not_pushed_to_its_blockers_table_socket():
    async_to_sync(_table_sockets)()


async def _table_sockets():
    from tests.games.conftest import SAME_ORIGIN

    def setup():
        ada, bob = make_account("ada")[0], make_account("bob")[0]
        Block.objects.create(blocker=ada, blocked=bob)
        game = services.game_create(
            kind="set", options={"start": "now", "rules": "classic"}, is_open=True
        )
        seats = [
            services.game_join(game_id=game.pk, player=account_player(user, create=True))
            for user in (ada, bob)
        ]
        return game, seats

    game, (ada_seat, bob_seat) = await sync_to_async(setup)()
    sockets = []
    for seat in (ada_seat, bob_seat):
        socket = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/?token={seat.token}", headers=SAME_ORIGIN
        )
        assert (await socket.connect())[0]
        assert (await socket.receive_json_from(timeout=5))["type"] == "state"
        sockets.append(socket)
    ada_socket, bob_socket = sockets
    await bob_socket.send_json_to({"type": "chat", "text": "from bob"})
    assert (await bob_socket.receive_json_from(timeout=5))["text"] == "from bob"
    await ada_socket.send_json_to({"type": "chat", "text": "from ada"})
    # Ada's socket's next chat is her own line: bob's never came.
    assert (await ada_socket.receive_json_from(timeout=5))["text"] == "from ada"
    assert (await bob_socket.receive_json_from(timeout=5))["text"] == "from ada"
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)  # the consumer reads on a database thread
def test_a_blocked_accounts_lobby_line_is_not_sent_to_its_blockers_lobby_socket(ada, bob):
    from games.lobby_consumer import LobbyConsumer

    Block.objects.create(blocker=ada[0], blocked=bob[0])
    sent = []

    async def hear(reader_id, writer_id):
        consumer = LobbyConsumer()
        consumer.player = types.SimpleNamespace(user_id=reader_id)

        async def send_json(body):
            sent.append((reader_id, body["text"]))

        consumer.send_json = send_json
        chat = {"id": 1, "name": "x", "text": f"by {writer_id}", "at": "2026-11-27T00:00:00Z"}
        await consumer.lobby_chat({"type": "lobby.chat", "chat": chat, "writer": writer_id})

    for reader, writer in ((ada, bob), (bob, ada), (ada, ada)):
        async_to_sync(hear)(reader[0].pk, writer[0].pk)
    assert sent == [(bob[0].pk, f"by {ada[0].pk}"), (ada[0].pk, f"by {ada[0].pk}")]


def test_signed_in_pages_offer_report_and_block_and_guests_do_not(ada, bob):
    lobby_line(bob[0], "hello there")
    page = Client()
    page.force_login(ada[0])
    lobby = page.get("/").content.decode()
    assert 'id="report-dialog"' in lobby and 'value="offensive' not in lobby
    assert '<option value="spam">Spam</option>' in lobby and "js/lib/report.js" in lobby
    assert 'class="report-button" data-about="line"' in lobby  # on the lobby's chat line
    profile = page.get("/u/bob").content.decode()
    assert 'data-block="bob"' in profile and 'aria-pressed="false"' in profile
    assert 'data-about="player"' in profile and 'data-about="name"' in profile
    Block.objects.create(blocker=ada[0], blocked=bob[0])
    assert ">Unblock</button>" in page.get("/u/bob").content.decode()
    own = page.get("/u/ada").content.decode()
    assert "data-block=" not in own
    guest = Client().get("/").content.decode()
    assert "report-dialog" not in guest and "report-button" not in guest


def test_the_table_log_and_chat_list_hide_a_blocked_accounts_lines(ada, bob):
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    for user in (ada[0], bob[0]):
        services.game_join(game_id=game.pk, player=account_player(user, create=True))
    bob_player = account_player(bob[0])
    services.chat_post(game_id=game.pk, player_id=bob_player.pk, text="bob says hi")
    call("post", "/api/blocks/bob", ada[1])

    def read(token, what):
        return Client().get(f"/api/games/{game.pk}/{what}", HTTP_AUTHORIZATION=f"Bearer {token}")

    story = [e.get("chat") for e in read(ada[1], "story").json()["entries"] if e["type"] == "chat"]
    assert story == []
    assert read(ada[1], "chat").json() == []
    assert [m["text"] for m in read(bob[1], "chat").json()] == ["bob says hi"]
    entries = read(bob[1], "story").json()["entries"]
    assert [e["chat"] for e in entries if e["type"] == "chat"] == ["bob says hi"]


def test_ones_own_line_is_not_reported(ada):
    line = lobby_line(ada[0], "mine")
    refused = call("post", "/api/reports", ada[1], {"line": line.pk, "reason": "spam"})
    assert refused.status_code == 400 and "yourself" in refused.json()["detail"]
    assert not Report.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_game_stream_sends_no_chat_line_of_an_account_its_reader_blocked():
    async_to_sync(_stream_blocks)()


async def _stream_blocks():
    from tests.games.test_game_stream import Stream

    def setup():
        ada, bob = make_account("ada"), make_account("bob")
        Block.objects.create(blocker=ada[0], blocked=bob[0])
        game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
        players = [account_player(user, create=True) for user in (ada[0], bob[0])]
        for player in players:
            services.game_join(game_id=game.pk, player=player)
        return game, ada[1], players

    game, ada_bearer, (ada_player, bob_player) = await sync_to_async(setup)()
    stream = Stream(f"/api/games/{game.pk}/stream", bearer=ada_bearer)
    assert await stream.open() == 200
    assert (await stream.line())["type"] == "gameFull"
    for player, text in ((bob_player, "from bob"), (ada_player, "from ada")):
        await sync_to_async(services.chat_post)(game_id=game.pk, player_id=player.pk, text=text)
    line = await stream.line()
    while line["type"] != "chatLine":
        line = await stream.line()
    assert line["text"] == "from ada"  # bob's line never came
    await stream.close()
