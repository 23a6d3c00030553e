"""A ban applies on every way in (issue 28, item 2), and a moderator lifts a mute or a ban early
(item 3): the plain-text protocol (a player there is a name: an account's name is banned with
it), challenges sent and accepted, the API's fast path; the check does not 500 when the shared
cache does not answer (it lets play go on, on purpose); a lift is logged, and the account chats
and plays again at once."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import Challenge
from cards import protocol
from games import moderation, services
from games.auth import account_player
from games.models import ChatMessage, Game, ModerationLogEntry, Sanction
from tests.accounts.test_moderation import call, make_account

pytestmark = pytest.mark.django_db


@pytest.fixture
def mod():
    return make_account("mia", moderator=True)


@pytest.fixture
def troll():
    return make_account("troll")


def ban(mod, name: str = "troll", minutes: int = 60, reason: str = "Cheats."):
    answer = call(
        "post", f"/api/moderation/users/{name}/ban", mod[1], {"minutes": minutes, "reason": reason}
    )
    assert answer.status_code == 201, answer.json()
    return answer.json()


def protocol_table():
    return services.game_create(kind="set", options={"rules": "declare"}, is_open=True)


def test_a_banned_accounts_name_is_refused_over_the_plain_text_protocol(mod):
    table = protocol_table()
    # "troll" played over the protocol before an account took that name.
    assert protocol.handle(f"/tables/{table.pk}/look/troll").status_code == 200
    troll = make_account("troll")
    account_player(troll[0], create=True)
    ban(mod)
    version = Game.objects.get(pk=table.pk).version
    refused = protocol.handle(f"/tables/{table.pk}/declare/troll")
    text = refused.content.decode()
    assert refused.status_code == 403, text
    assert text.startswith("You are banned from playing until ") and "Cheats." in text
    assert Game.objects.get(pk=table.pk).version == version
    # Another name plays on.
    assert protocol.handle(f"/tables/{table.pk}/look/zed").status_code == 200


def test_a_ban_check_that_finds_no_cache_lets_play_go_on(mod, troll, monkeypatch):
    """Redis down: no 500 on any way in that reads the ban from the cache (fail open, on
    purpose: the database-backed checks of joins and tables still hold)."""
    from redis.exceptions import ConnectionError as RedisDown

    table = protocol_table()
    game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
    seat = services.game_join(game_id=game.pk, player=account_player(troll[0], create=True))
    ban(mod)

    def down(*args, **kwargs):
        raise RedisDown("Redis is not answering")

    monkeypatch.setattr(moderation.cache, "get", down)
    moderation.check_ban(seat.player_id)  # nothing raised
    moderation.check_ban_name("troll")
    assert protocol.handle(f"/tables/{table.pk}/look/zed").status_code == 200


def test_a_banned_account_neither_sends_nor_accepts_a_challenge(mod, troll):
    ada = make_account("ada")
    sent = call(
        "post", "/api/challenge/troll", ada[1], {"kind": "set", "options": {"rules": "classic"}}
    )
    assert sent.status_code == 201, sent.json()
    ban(mod, reason="Rage quits.")
    challenges = Challenge.objects.count()
    refused = call(
        "post", "/api/challenge/ada", troll[1], {"kind": "set", "options": {"rules": "classic"}}
    )
    assert refused.status_code == 403 and refused.json()["until"]
    assert refused.json()["detail"].startswith("You are banned from playing until")
    to_banned = call(
        "post", "/api/challenge/troll", ada[1], {"kind": "set", "options": {"rules": "classic"}}
    )
    assert to_banned.status_code == 403
    assert to_banned.json()["detail"].startswith("troll is banned from playing until")
    assert Challenge.objects.count() == challenges
    games = Game.objects.count()
    accepted = call("post", f"/api/challenge/{sent.json()['id']}/accept", troll[1])
    assert accepted.status_code == 403 and "Rage quits." in accepted.json()["detail"]
    assert accepted.json()["until"]
    assert Game.objects.count() == games
    assert Challenge.objects.get(pk=sent.json()["id"]).status == Challenge.Status.CREATED


def test_a_banned_accounts_move_is_refused_on_the_fast_path_by_its_bearer_token(mod, troll):
    game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
    services.game_join(game_id=game.pk, player=account_player(troll[0], create=True))
    ban(mod)
    moved = Client().post(
        f"/api/games/{game.pk}/moves",
        json.dumps({"type": "start"}),
        "application/json",
        HTTP_AUTHORIZATION=f"Bearer {troll[1]}",
    )
    assert moved.status_code == 403 and moved.json()["until"]
    assert Game.objects.get(pk=game.pk).status == "waiting"


def test_a_moderator_lifts_a_ban_early_and_the_account_plays_at_once(mod, troll):
    game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
    seat = services.game_join(game_id=game.pk, player=account_player(troll[0], create=True))
    ban(mod)
    start = {"type": "start"}
    auth = {"HTTP_AUTHORIZATION": f"Token {seat.token}"}
    path = f"/api/games/{game.pk}/moves"
    assert Client().post(path, json.dumps(start), "application/json", **auth).status_code == 403
    lifted = call("post", "/api/moderation/users/troll/unban", mod[1], {"reason": "Appealed."})
    assert lifted.status_code == 200, lifted.json()
    assert lifted.json()["kind"] == "ban" and lifted.json()["lifted"] == 1
    # At once: the move is taken (the shared cache forgot the ban), and a new table is made.
    moved = Client().post(path, json.dumps(start), "application/json", **auth)
    assert moved.status_code in (200, 201), moved.json()
    made = call("post", "/api/games/", troll[1], {"kind": "set", "options": {}})
    assert made.status_code == 201, made.json()
    entry = ModerationLogEntry.objects.order_by("-id").first()
    assert (entry.action, entry.target, entry.reason) == ("unban", "troll", "Appealed.")
    assert "lifted early" in entry.detail
    # Nothing more to lift: a 409 that says so; nothing logged.
    again = call("post", "/api/moderation/users/troll/unban", mod[1], {"reason": "Twice."})
    assert again.status_code == 409 and again.json()["detail"] == (
        "troll is not banned now: there is nothing to lift."
    )
    assert ModerationLogEntry.objects.filter(action="unban").count() == 1


def test_a_moderator_lifts_a_mute_early_and_the_account_chats_at_once(mod, troll):
    player = account_player(troll[0], create=True)
    muted = call(
        "post", "/api/moderation/users/troll/mute", mod[1], {"minutes": 60, "reason": "Insults."}
    )
    assert muted.status_code == 201
    with pytest.raises(moderation.Sanctioned):
        services.chat_post(game_id=None, player_id=player.pk, text="hello?")
    no_reason = call("post", "/api/moderation/users/troll/unmute", mod[1], {})
    assert no_reason.status_code == 400 and "Say why" in no_reason.json()["detail"]
    assert moderation.active(troll[0].pk, Sanction.Kind.MUTE) is not None
    lifted = call("post", "/api/moderation/users/troll/unmute", mod[1], {"reason": "Said sorry."})
    assert lifted.status_code == 200 and lifted.json()["kind"] == "mute"
    services.chat_post(game_id=None, player_id=player.pk, text="sorry, all")
    assert ChatMessage.objects.filter(text="sorry, all").exists()
    # The log keeps what happened, the sanction's end is now; the page no longer lists it.
    assert ModerationLogEntry.objects.filter(action="unmute", target="troll").exists()


def test_only_moderators_lift_and_unknown_accounts_are_a_404(mod, troll):
    ban(mod)
    ada = make_account("ada")
    for kind in ("unmute", "unban"):
        refused = call("post", f"/api/moderation/users/troll/{kind}", ada[1], {"reason": "x"})
        assert refused.status_code == 403
        assert call(
            "post", f"/api/moderation/users/troll/{kind}", None, {"reason": "x"}
        ).status_code in (401, 403)
    assert moderation.active(troll[0].pk, Sanction.Kind.BAN) is not None
    missing = call("post", "/api/moderation/users/nobody/unban", mod[1], {"reason": "x"})
    assert missing.status_code == 404


def test_the_moderation_page_lists_mutes_and_bans_with_a_lift_button(mod, troll):
    ban(mod, reason="Cheats in races.")
    page = Client()
    page.force_login(mod[0])
    html = page.get("/moderation/").content.decode()
    assert 'id="sanctions-heading"' in html and "Cheats in races." in html
    assert 'data-url="/api/moderation/users/troll/unban"' in html and "Lift the ban" in html
    call("post", "/api/moderation/users/troll/unban", mod[1], {"reason": "Appealed."})
    html = page.get("/moderation/").content.decode()
    assert 'data-url="/api/moderation/users/troll/unban"' not in html
    assert 'id="no-sanctions"' in html


def test_the_schema_documents_the_lifts():
    schema = Client().get("/api/schema/?format=json")
    if schema.status_code != 200:
        pytest.skip("no schema route")
    text = schema.content.decode()
    assert "/api/moderation/users/{name}/unban" in text
    assert "/api/moderation/users/{name}/unmute" in text


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def test_a_player_made_for_a_banned_account_after_the_ban_is_banned_too(mod, troll):
    """Banned before it ever played: its first player is made after the ban, and its seat's
    moves are refused as the others' (read from the cache)."""
    ban(mod, reason="Banned on sight.")
    player = account_player(troll[0], create=True)  # a page or a token made it later
    with pytest.raises(moderation.Sanctioned) as refused:
        moderation.check_ban(player.pk)
    assert "Banned on sight." in refused.value.message


def test_a_player_is_made_for_a_banned_account_when_the_cache_does_not_answer(
    mod, troll, monkeypatch
):
    from redis.exceptions import ConnectionError as RedisDown

    ban(mod)

    def down(*args, **kwargs):
        raise RedisDown("Redis is not answering")

    monkeypatch.setattr(moderation.cache, "set", down)
    assert account_player(troll[0], create=True) is not None  # no 500


@pytest.mark.django_db(transaction=True)
def test_a_banned_accounts_move_is_refused_on_the_asgi_fast_path():
    """The plain token move is served in front of Django (games.api_fast): the ban holds there."""
    from django.contrib.auth.models import Group

    from tests.games.test_api_fast import HOST, JSON, through_asgi

    cache.clear()
    mia, mia_token = make_account("mia")
    mia.groups.add(Group.objects.get_or_create(name="moderators")[0])
    troll = make_account("troll")
    game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
    seat = services.game_join(game_id=game.pk, player=account_player(troll[0], create=True))
    ban((mia, mia_token))
    for authorization in (f"Token {seat.token}", f"Bearer {troll[1]}"):
        headers = [*HOST, *JSON, (b"authorization", authorization.encode())]
        status, body, _ = through_asgi(f"/api/games/{game.pk}/moves", b'{"type": "start"}', headers)
        assert status == 403 and body["until"], (authorization, body)
        assert "banned from playing" in body["detail"]
    assert Game.objects.get(pk=game.pk).status == "waiting"


def test_a_banned_accounts_session_is_refused_moves_and_tables(mod, troll):
    game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
    services.game_join(game_id=game.pk, player=account_player(troll[0], create=True))
    ban(mod)
    browser = Client()
    browser.force_login(troll[0])
    moved = browser.post(
        f"/api/games/{game.pk}/moves", json.dumps({"type": "start"}), "application/json"
    )
    assert moved.status_code == 403 and moved.json()["until"]
    made = browser.post(
        "/api/games/", json.dumps({"kind": "set", "options": {}}), "application/json"
    )
    assert made.status_code == 403 and made.json()["until"]
    assert Game.objects.get(pk=game.pk).status == "waiting"


def test_a_ban_the_cache_forgot_is_held_again_once_the_database_finds_it(mod, troll):
    game = services.game_create(kind="set", options={"start": "wait", "rules": "classic"})
    seat = services.game_join(game_id=game.pk, player=account_player(troll[0], create=True))
    ban(mod, reason="Cheats.")
    cache.clear()  # a restarted Redis: the seat's moves are not refused from it any more
    moderation.check_ban(seat.player_id)
    made = call("post", "/api/games/", troll[1], {"kind": "set", "options": {}})
    assert made.status_code == 403  # read from the database, and held in the cache again
    with pytest.raises(moderation.Sanctioned):
        moderation.check_ban(seat.player_id)
