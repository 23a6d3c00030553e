"""Moderators (issue 28, item 2): the moderators group and staff; the moderation API (reports
with context, closing, deleting a line, mute, ban, rename, the log), 403 for anyone else; a muted
or banned account told why and until when; a log that cannot be edited."""

from __future__ import annotations

import datetime
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from accounts.tokens import token_create
from config.asgi import application
from games import moderation, services
from games.auth import account_player
from games.models import ChatMessage, ModerationLogEntry, Player, Report, Sanction

pytestmark = pytest.mark.django_db


def make_account(name: str, *, moderator: bool = False):
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    if moderator:
        # Made by the data migration; made again after a transactional test's flush emptied it.
        user.groups.add(Group.objects.get_or_create(name="moderators")[0])
    return user, token_create(user=user, name="api")[1]


def call(method: str, path: str, token: str | None = None, body=None):
    extra = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = json.dumps(body) if body is not None else ""
    return getattr(Client(), method)(path, data, content_type="application/json", **extra)


@pytest.fixture
def mod():
    return make_account("mia", moderator=True)


@pytest.fixture
def ada():
    return make_account("ada")


@pytest.fixture
def troll():
    return make_account("troll")


def lobby_line(user, text: str) -> ChatMessage:
    return services.chat_post(
        game_id=None, player_id=account_player(user, create=True).pk, text=text
    )


def test_the_moderators_group_is_made_with_its_own_permissions():
    from importlib import import_module

    from django.apps import apps

    # The migration's own function (idempotent): a transactional test run before this one on
    # the same worker flushes what migrations wrote.
    import_module("games.migrations.0014_moderators_group").make_group(apps, None)
    group = Group.objects.get(name="moderators")
    codenames = set(group.permissions.values_list("codename", flat=True))
    assert {"moderate", "view_report", "change_report", "view_moderationlogentry"} <= codenames


def test_a_moderator_sees_an_open_report_with_its_context(mod, ada, troll):
    lines = [lobby_line(u, t) for u, t in ((ada[0], "hi"), (troll[0], "you stink"), (ada[0], "?"))]
    call("post", "/api/reports", ada[1], {"line": lines[1].pk, "reason": "abuse", "note": "rude"})
    reports = call("get", "/api/moderation/reports", mod[1])
    assert reports.status_code == 200
    (report,) = reports.json()
    assert (report["reporter"], report["account"], report["reason"]) == ("ada", "troll", "abuse")
    context = report["context"]
    assert context["game"] is None and context["line"]["text"] == "you stink"
    assert [m["text"] for m in context["before"]] == ["hi"]
    assert [m["text"] for m in context["after"]] == ["?"]


def test_staff_are_moderators_too(ada):
    staff = make_account("sam")
    staff[0].is_staff = True
    staff[0].save()
    assert call("get", "/api/moderation/log", staff[1]).status_code == 200


def test_anyone_else_is_refused_and_nothing_changes(ada, troll):
    line = lobby_line(troll[0], "spam spam")
    call("post", "/api/reports", ada[1], {"line": line.pk, "reason": "spam"})
    report = Report.objects.get()
    attempts = [
        ("get", "/api/moderation/reports", None),
        ("post", f"/api/moderation/reports/{report.pk}/close", {"note": "x"}),
        ("post", f"/api/moderation/chat/{line.pk}/delete", {"reason": "x"}),
        ("post", "/api/moderation/users/troll/mute", {"minutes": 60, "reason": "x"}),
        ("post", "/api/moderation/users/troll/ban", {"minutes": 60, "reason": "x"}),
        ("post", "/api/moderation/users/troll/rename", {"name": "nice", "reason": "x"}),
        ("get", "/api/moderation/log", None),
    ]
    for method, path, body in attempts:
        refused = call(method, path, ada[1], body)
        assert refused.status_code == 403, path
        assert refused.json()["detail"] == "Only moderators may do this."
        assert call(method, path, None, body).status_code == 401
    line.refresh_from_db()
    report.refresh_from_db()
    assert line.text == "spam spam" and report.closed is None
    assert not Sanction.objects.exists() and not ModerationLogEntry.objects.exists()
    assert get_user_model().objects.filter(username="troll").exists()


def test_a_deleted_line_says_so_everywhere_and_the_log_keeps_it(mod, ada, troll):
    line = lobby_line(troll[0], "you stink")
    deleted = call("post", f"/api/moderation/chat/{line.pk}/delete", mod[1], {"reason": "insult"})
    assert deleted.status_code == 200
    assert deleted.json()["text"] == "removed by a moderator" and deleted.json()["removed"]
    lobby = call("get", "/api/lobby/chat", ada[1]).json()
    assert [(m["text"], m.get("removed")) for m in lobby] == [("removed by a moderator", True)]
    again = call("post", f"/api/moderation/chat/{line.pk}/delete", mod[1], {"reason": "x"})
    assert again.status_code == 409 and "already" in again.json()["detail"]
    unknown = call("post", f"/api/moderation/chat/{line.pk + 9}/delete", mod[1], {"reason": "x"})
    assert unknown.status_code == 400 and "no chat line" in unknown.json()["detail"]
    no_reason = lobby_line(troll[0], "again")
    refused = call("post", f"/api/moderation/chat/{no_reason.pk}/delete", mod[1], {})
    assert refused.status_code == 400 and "Say why" in refused.json()["detail"]
    (entry,) = call("get", "/api/moderation/log", mod[1]).json()
    assert (entry["moderator"], entry["action"], entry["reason"]) == ("mia", "delete", "insult")
    assert entry["detail"] == "you stink" and "troll" in entry["target"]


def test_a_muted_account_is_told_why_and_until_when(mod, ada, troll):
    muted = call(
        "post", "/api/moderation/users/troll/mute", mod[1], {"minutes": 60, "reason": "Insults."}
    )
    assert muted.status_code == 201
    until = datetime.datetime.fromisoformat(muted.json()["until"].replace("Z", "+00:00"))
    assert 59 * 60 < (until - datetime.datetime.now(datetime.UTC)).total_seconds() <= 3600
    account_player(troll[0], create=True)
    refused = call("post", "/api/lobby/chat", troll[1], {"text": "hello"})
    assert refused.status_code == 403
    assert "muted from chat" in refused.json()["detail"] and "Insults." in refused.json()["detail"]
    assert refused.json()["until"] == muted.json()["until"]
    assert not ChatMessage.objects.exists()
    assert call("post", "/api/lobby/chat", ada[1], {"text": "hello"}).status_code == 201
    page = Client()
    page.force_login(troll[0])
    html = page.get("/").content.decode()
    assert "muted from chat" in html and "Insults." in html


@pytest.mark.parametrize("minutes", [29, 525601, "60", None, True, 1.5])
def test_a_mute_or_ban_lasts_half_an_hour_to_a_year(mod, troll, minutes):
    for kind in ("mute", "ban"):
        body = {"minutes": minutes, "reason": "x"}
        refused = call("post", f"/api/moderation/users/troll/{kind}", mod[1], body)
        assert refused.status_code == 400 and "minutes" in refused.json()["detail"].lower()
    assert not Sanction.objects.exists() and not ModerationLogEntry.objects.exists()


def test_bounds_and_unknown_accounts(mod, troll):
    for minutes in (30, 525600):
        made = call(
            "post", "/api/moderation/users/troll/mute", mod[1], {"minutes": minutes, "reason": "x"}
        )
        assert made.status_code == 201
    assert (
        call(
            "post", "/api/moderation/users/nobody/ban", mod[1], {"minutes": 60, "reason": "x"}
        ).status_code
        == 404
    )
    no_reason = call("post", "/api/moderation/users/troll/ban", mod[1], {"minutes": 60})
    assert no_reason.status_code == 400 and "Say why" in no_reason.json()["detail"]


def test_a_banned_account_cannot_join_create_or_move(mod, ada, troll):
    game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
    player = account_player(troll[0], create=True)
    seat = services.game_join(game_id=game.pk, player=player)
    banned = call(
        "post", "/api/moderation/users/troll/ban", mod[1], {"minutes": 120, "reason": "Cheating."}
    )
    assert banned.status_code == 201
    created = call("post", "/api/games/", troll[1], {"kind": "set", "options": {}})
    assert created.status_code == 403 and created.json()["until"] == banned.json()["until"]
    assert "banned from playing" in created.json()["detail"]
    other = services.game_create(
        kind="set", options={"start": "wait", "rules": "classic"}, is_open=True
    )
    joined = call("post", f"/api/games/{other.pk}/join", troll[1], {"name": "troll"})
    assert joined.status_code == 403 and "Cheating." in joined.json()["detail"]
    moved = Client().post(
        f"/api/games/{game.pk}/moves",
        json.dumps({"type": "start"}),
        "application/json",
        HTTP_AUTHORIZATION=f"Token {seat.token}",
    )
    assert moved.status_code == 403 and moved.json()["until"] == banned.json()["until"]
    game.refresh_from_db()
    assert game.status == "waiting" and Player.objects.filter(user=troll[0]).count() == 1
    assert call("post", "/api/games/", ada[1], {"kind": "set", "options": {}}).status_code == 201


def test_rename_an_offensive_name(mod, ada, troll):
    body = {"name": "kind_one", "reason": "Rude."}
    renamed = call("post", "/api/moderation/users/troll/rename", mod[1], body)
    assert renamed.status_code == 200 and renamed.json() == {"name": "kind_one", "was": "troll"}
    assert Client().get("/u/kind_one").status_code == 200
    taken = call(
        "post", "/api/moderation/users/kind_one/rename", mod[1], {"name": "ADA", "reason": "x"}
    )
    assert taken.status_code == 409
    bad = call(
        "post", "/api/moderation/users/kind_one/rename", mod[1], {"name": "a b!", "reason": "x"}
    )
    assert bad.status_code == 400
    assert get_user_model().objects.filter(username="kind_one").exists()
    (entry,) = call("get", "/api/moderation/log", mod[1]).json()
    assert entry["action"] == "rename" and entry["detail"] == "troll -> kind_one"


def test_close_a_report_with_a_note(mod, ada, troll):
    made = call("post", "/api/reports", ada[1], {"player": "troll", "reason": "cheating"}).json()
    no_note = call("post", f"/api/moderation/reports/{made['id']}/close", mod[1], {})
    assert no_note.status_code == 400
    closed = call(
        "post", f"/api/moderation/reports/{made['id']}/close", mod[1], {"note": "Looked: fine."}
    )
    assert closed.status_code == 200 and closed.json()["open"] is False
    assert call("get", "/api/moderation/reports", mod[1]).json() == []
    again = call("post", f"/api/moderation/reports/{made['id']}/close", mod[1], {"note": "x"})
    assert again.status_code == 409
    unknown = call("post", "/api/moderation/reports/999/close", mod[1], {"note": "x"})
    assert unknown.status_code == 404


def test_the_log_cannot_be_edited(mod, troll):
    call("post", "/api/moderation/users/troll/mute", mod[1], {"minutes": 30, "reason": "x"})
    entry = ModerationLogEntry.objects.get()
    entry.reason = "changed"
    with pytest.raises(ValueError, match="cannot be edited"):
        entry.save()
    assert ModerationLogEntry.objects.get().reason == "x"


def test_the_admin_shows_the_log_read_only(mod, troll, admin_client):
    call("post", "/api/moderation/users/troll/mute", mod[1], {"minutes": 30, "reason": "x"})
    entry = ModerationLogEntry.objects.get()
    page = admin_client.get(f"/admin/games/moderationlogentry/{entry.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert admin_client.get("/admin/games/moderationlogentry/add/").status_code == 403
    assert (
        admin_client.post(f"/admin/games/moderationlogentry/{entry.pk}/delete/").status_code == 403
    )
    assert ModerationLogEntry.objects.count() == 1


# -- the page -------------------------------------------------------------------------------------


def test_the_moderation_page_is_for_moderators_only(mod, ada, troll):
    guest = Client().get("/moderation/")
    assert guest.status_code == 302 and "/accounts/login/" in guest["Location"]
    page = Client()
    page.force_login(ada[0])
    refused = page.get("/moderation/")
    assert refused.status_code == 403 and "Only moderators may do this." in refused.content.decode()
    assert 'href="/moderation/"' not in page.get("/").content.decode()


def test_the_moderation_page_shows_a_report_in_its_game_with_its_context_and_the_log(
    mod, ada, troll
):
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    seats = [
        services.game_join(game_id=game.pk, player=account_player(u, create=True))
        for u in (ada[0], troll[0])
    ]
    for seat, text in ((seats[0], "gl hf"), (seats[1], "you <b>stink</b>"), (seats[0], "rude")):
        services.chat_post(game_id=game.pk, player_id=seat.player_id, text=text)
    line = ChatMessage.objects.get(text__startswith="you")
    call("post", "/api/reports", ada[1], {"line": line.pk, "reason": "abuse", "note": "mean"})
    page = Client()
    page.force_login(mod[0])
    html = page.get("/moderation/").content.decode()
    assert 'href="/moderation/"' in page.get("/").content.decode()  # the header's link
    assert "Abuse or harassment" in html and "“mean”" in html
    assert "gl hf" in html and "you &lt;b&gt;stink&lt;/b&gt;" in html and "rude" in html
    assert f">game {game.pk}</a>" in html  # a link to the game it was in
    for action in ("delete", "mute", "ban", "rename", "close"):
        assert f'data-action="{action}"' in html
    call("post", f"/api/moderation/chat/{line.pk}/delete", mod[1], {"reason": "insult"})
    html = page.get("/moderation/").content.decode()
    reports_part = html.split('id="log-heading"')[0]
    assert "removed by a moderator" in reports_part and 'data-action="delete"' not in reports_part
    assert '<td data-label="Why">insult</td>' in html and "<td>mia</td>" in html


@pytest.mark.django_db(transaction=True)
def test_a_muted_or_banned_account_is_told_over_the_socket_too():
    async_to_sync(_socket_sanctions)()


async def _socket_sanctions():
    from tests.games.conftest import SAME_ORIGIN

    def setup():
        mod, rex = make_account("mia", moderator=True)[0], make_account("rex")[0]
        game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
        seat = services.game_join(game_id=game.pk, player=account_player(rex, create=True))
        for kind in ("mute", "ban"):
            moderation.sanction_give(
                moderator=mod, user=rex, kind=kind, minutes=30, reason=f"{kind} why"
            )
        return game, seat

    game, seat = await sync_to_async(setup)()
    socket = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/?token={seat.token}", headers=SAME_ORIGIN
    )
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from(timeout=5))["type"] == "state"
    await socket.send_json_to({"type": "chat", "text": "hello"})
    muted = await socket.receive_json_from(timeout=5)
    assert muted["for"] == "chat" and "muted from chat" in muted["detail"] and muted["until"]
    await socket.send_json_to({"type": "start"})
    banned = await socket.receive_json_from(timeout=5)
    assert "banned from playing" in banned["detail"] and "ban why" in banned["detail"]
    assert banned["until"]
    await socket.disconnect()
    assert not await sync_to_async(ChatMessage.objects.exists)()


def test_a_ban_holds_for_joins_and_tables_when_the_cache_forgot_it(mod, troll):
    from django.core.cache import cache

    account_player(troll[0], create=True)
    call("post", "/api/moderation/users/troll/ban", mod[1], {"minutes": 60, "reason": "Cheats."})
    cache.clear()  # a restarted process's local cache: the database still says so
    game = services.game_create(
        kind="set", options={"start": "wait", "rules": "classic"}, is_open=True
    )
    joined = call("post", f"/api/games/{game.pk}/join", troll[1], {"name": "troll"})
    assert joined.status_code == 403 and "Cheats." in joined.json()["detail"]
    made = call("post", "/api/games/", troll[1], {"kind": "set", "options": {}})
    assert made.status_code == 403 and made.json()["until"]


@pytest.mark.django_db(transaction=True)
def test_a_deleted_line_is_pushed_again_to_the_tables_sockets_saying_so():
    async_to_sync(_socket_removal)()


async def _socket_removal():
    from tests.games.conftest import SAME_ORIGIN

    def setup():
        mod, rex = make_account("mia", moderator=True)[0], make_account("rex")[0]
        game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
        seat = services.game_join(game_id=game.pk, player=account_player(rex, create=True))
        line = services.chat_post(game_id=game.pk, player_id=seat.player_id, text="rude words")
        return mod, game, seat, line

    mod, game, seat, line = await sync_to_async(setup)()
    socket = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/?token={seat.token}", headers=SAME_ORIGIN
    )
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from(timeout=5))["type"] == "state"
    await sync_to_async(moderation.line_delete)(moderator=mod, line=line.pk, reason="insult")
    pushed = await socket.receive_json_from(timeout=5)
    assert pushed["type"] == "chat" and pushed["id"] == line.pk and pushed["removed"] is True
    assert pushed["text"] == "removed by a moderator"
    await socket.disconnect()
    story = await sync_to_async(Client().get)(
        f"/api/games/{game.pk}/story", HTTP_AUTHORIZATION=f"Token {seat.token}"
    )
    chats = [e["chat"] for e in story.json()["entries"] if e["type"] == "chat"]
    assert chats == ["removed by a moderator"]
