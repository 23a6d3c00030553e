"""Challenges between accounts (issue 26, item 1): POST /api/challenge/<name>, its accept,
decline and cancel, expiry, the limits; and GET /api/bot/online."""

from __future__ import annotations

import datetime
import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from accounts import challenges
from accounts.models import Challenge
from accounts.tokens import token_create
from games.models import Game, Move, Seat

pytestmark = pytest.mark.django_db


def make_account(name: str) -> tuple[object, str]:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return user, token_create(user=user, name="api")[1]


def post(path: str, token: str | None = None, body=None):
    extra = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = json.dumps(body) if body is not None else ""
    return Client().post(path, data, content_type="application/json", **extra)


@pytest.fixture
def ada():
    return make_account("ada")


@pytest.fixture
def bob():
    return make_account("bob")


def challenge(token: str, name: str = "bob", kind: str = "set", **options):
    return post(f"/api/challenge/{name}", token, {"kind": kind, "options": options})


def test_a_challenge_is_made_and_shown_to_both(ada, bob):
    made = challenge(ada[1], "BOB", rules="classic", rated=True)  # names compare as names do
    assert made.status_code == 201, made.json()
    body = made.json()
    assert body["status"] == "created" and body["url"] == f"/api/challenge/{body['id']}"
    assert (body["challenger"], body["dest"], body["kind"]) == ("ada", "bob", "set")
    assert body["options"]["rules"] == "classic" and body["options"]["rated"] is True
    listed = Client().get("/api/challenge", HTTP_AUTHORIZATION=f"Bearer {bob[1]}").json()
    assert [c["id"] for c in listed["incoming"]] == [body["id"]] and listed["outgoing"] == []


def test_the_wrong_challenges_are_refused_with_a_sentence(ada, bob):
    assert challenge(ada[1], "nobody").status_code == 404
    assert "no account named" in challenge(ada[1], "nobody").json()["detail"]
    itself = challenge(ada[1], "ada")
    assert itself.status_code == 400 and "yourself" in itself.json()["detail"]
    bad = challenge(ada[1], attributes=7)
    assert bad.status_code == 400 and "attributes" in bad.json()["detail"]
    square = challenge(ada[1], kind="square", players=3)
    assert square.status_code == 400 and "two players" in square.json()["detail"]
    assert challenge(ada[1], kind="setwar").status_code == 400
    assert challenge(ada[1], rated="yes").status_code == 400
    assert challenge(None).status_code == 401
    assert post("/api/challenge/bob", ada[1], [1, 2]).status_code == 400
    assert not Challenge.objects.exists() and not Game.objects.exists()


def test_an_account_sends_challenges_at_its_rate(ada, bob, settings):
    settings.RATE_LIMIT_CHALLENGES = "2/min"
    assert [challenge(ada[1]).status_code for _ in range(2)] == [201, 201]
    refused = challenge(ada[1])
    assert refused.status_code == 429 and "Too many challenges" in refused.json()["detail"]
    assert "Retry-After" in refused.headers
    assert Challenge.objects.count() == 2
    assert challenge(bob[1], "ada").status_code == 201  # each account its own


def test_accepting_makes_a_started_set_table_with_both_seated(ada, bob):
    sent = challenge(ada[1], rules="classic", rated=True).json()
    assert post(f"/api/challenge/{sent['id']}/accept", ada[1]).status_code == 403
    accepted = post(f"/api/challenge/{sent['id']}/accept", bob[1])
    assert accepted.status_code == 200, accepted.json()
    game = Game.objects.get(pk=accepted.json()["game"])
    assert accepted.json()["url"] == f"/play/{game.pk}/?key={game.link_key}"  # its private link
    seats = Seat.objects.filter(game=game).order_by("number")
    assert [seat.player.user.get_username() for seat in seats] == ["ada", "bob"]
    assert game.rated and not game.is_open
    assert Move.objects.filter(game=game, action__type="start").exists()  # the countdown began
    assert game.state["starts_ms"] is not None
    again = post(f"/api/challenge/{sent['id']}/accept", bob[1])
    assert again.status_code == 409 and "accepted already" in again.json()["detail"]
    assert Challenge.objects.get(pk=sent["id"]).game_id == game.pk
    # The account's token plays its seat.
    view = Client().get(f"/api/games/{game.pk}/", HTTP_AUTHORIZATION=f"Bearer {bob[1]}").json()
    assert view["seat"]["name"] == "bob"


def test_accepting_a_square_game_starts_it(ada, bob):
    sent = challenge(ada[1], kind="square").json()
    game = Game.objects.get(pk=post(f"/api/challenge/{sent['id']}/accept", bob[1]).json()["game"])
    assert game.status == Game.Status.ACTIVE and game.seats.count() == 2


def test_accepting_writes_the_table_once_and_tells_each_its_start_once(
    ada, bob, monkeypatch, django_capture_on_commit_callbacks
):
    """The challenge's table is made with both seats and its start in one write (it was four:
    the create, each join, the start, on Django's one sync thread), its log replaying to its
    state; each account hears one gameStart naming the challenge."""
    from games import realtime
    from games.replay import replay_states

    heard = []
    monkeypatch.setattr(realtime, "publish_account", lambda u, e, **kw: heard.append((u, e)))
    sent = challenge(ada[1], rules="classic").json()
    with django_capture_on_commit_callbacks(execute=True):
        accepted = post(f"/api/challenge/{sent['id']}/accept", bob[1])
    assert accepted.status_code == 200, accepted.json()
    game = Game.objects.get(pk=accepted.json()["game"])
    moves = list(game.moves.order_by("seq"))
    assert [m.action["type"] for m in moves] == ["join", "join", "start"]
    assert game.updated == game.created  # written once
    assert list(replay_states(game))[-1][1] == game.state
    starts = [(user, event) for user, event in heard if event["type"] == "gameStart"]
    assert sorted(user for user, _ in starts) == sorted([ada[0].pk, bob[0].pk])
    assert all(event["game"]["challenge"] == sent["id"] for _, event in starts)
    assert all(event["game"]["id"] == game.pk for _, event in starts)


def test_only_the_challenger_cancels_and_only_the_challenged_declines(ada, bob):
    carol = make_account("carol")
    sent = challenge(ada[1]).json()
    path = f"/api/challenge/{sent['id']}"
    assert post(f"{path}/accept", carol[1]).status_code == 404  # not theirs: no such challenge
    assert post(f"{path}/cancel", bob[1]).status_code == 403
    assert post(f"{path}/decline", ada[1]).status_code == 403
    canceled = post(f"{path}/cancel", ada[1])
    assert canceled.status_code == 200 and canceled.json()["status"] == "canceled"
    assert post(f"{path}/accept", bob[1]).status_code == 409
    assert post("/api/challenge/99999/accept", bob[1]).status_code == 404


def test_a_decline_gives_one_of_the_reasons(ada, bob):
    sent = challenge(ada[1]).json()
    path = f"/api/challenge/{sent['id']}/decline"
    wrong = post(path, bob[1], {"reason": "boring"})
    assert wrong.status_code == 400 and "generic, later, tooFast" in wrong.json()["detail"]
    declined = post(path, bob[1], {"reason": "tooFast"})
    assert declined.status_code == 200
    assert declined.json()["status"] == "declined" and declined.json()["reason"] == "tooFast"
    assert post(path, bob[1]).status_code == 409
    other = challenge(ada[1]).json()
    plain = post(f"/api/challenge/{other['id']}/decline", bob[1])  # no body: generic
    assert plain.status_code == 200 and plain.json()["reason"] == "generic"


def test_a_challenge_expires_unanswered(ada, bob, monkeypatch):
    sent = challenge(ada[1]).json()
    later = timezone.now() + datetime.timedelta(seconds=61)
    monkeypatch.setattr(challenges.timezone, "now", lambda: later)  # the clock moves on
    gone = post(f"/api/challenge/{sent['id']}/accept", bob[1])
    assert gone.status_code == 410 and "expired" in gone.json()["detail"]
    assert post(f"/api/challenge/{sent['id']}/decline", bob[1]).status_code == 410
    assert challenges.status_of(Challenge.objects.get(pk=sent["id"])) == "expired"
    assert not Game.objects.exists()


def test_challenges_are_listed_in_the_schema():
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    create = schema["paths"]["/api/challenge/{name}"]["post"]
    assert {"201", "400", "401", "404", "429"} <= set(create["responses"])
    for action in ("accept", "decline", "cancel"):
        assert f"/api/challenge/{{challenge_id}}/{action}" in schema["paths"]
    stream = schema["paths"]["/api/stream/event"]["get"]
    assert "application/x-ndjson" in stream["responses"]["200"]["content"]
    assert "429" in stream["responses"]
    assert "/api/bot/online" in schema["paths"]


def test_the_admin_lists_challenges(ada, bob):
    challenge(ada[1])
    staff = get_user_model().objects.create_superuser("root", password="x" * 12)
    browser = Client()
    browser.force_login(staff)
    page = browser.get("/admin/accounts/challenge/")
    assert page.status_code == 200 and b"ada" in page.content and b"bob" in page.content


def test_a_browser_challenges_with_its_session_and_csrf_token(ada, bob):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(ada[0])
    body = json.dumps({"kind": "square", "options": {}})
    refused = browser.post("/api/challenge/bob", body, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    browser.get("/u/bob")  # the page sets the CSRF cookie
    token = browser.cookies["csrftoken"].value
    made = browser.post(
        "/api/challenge/bob", body, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert made.status_code == 201
    page = browser.get("/u/bob").content.decode()
    assert 'id="challenge-form"' in page and 'id="challenges"' in page
    assert 'id="challenge-form"' not in browser.get("/u/ada").content.decode()  # not oneself


def test_an_accept_reads_its_challenge_once_and_the_table_not_again(ada, bob, settings):
    """The challenge is read and locked in one query; the table's answer comes from its last
    write, not from its row read again (the accept is served on Django's one sync thread)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    sent = challenge(ada[1], rules="classic").json()
    with CaptureQueriesContext(connection) as seen:
        accepted = post(f"/api/challenge/{sent['id']}/accept", bob[1])
    assert accepted.status_code == 200, accepted.json()
    reads = [q["sql"] for q in seen.captured_queries if q["sql"].startswith("SELECT")]
    assert sum('FROM "accounts_challenge"' in sql for sql in reads) == 1
    assert not any('FROM "games_game"' in sql for sql in reads)


def test_a_challenge_and_its_accept_read_blocks_and_bans_in_one_query(ada, bob):
    """Whether either blocked the other, and whether either is banned: one query for the two
    accounts (they were one a question, then one query each: on Django's one thread, each
    costs a challenge's and an accept's time)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    first = challenge(ada[1], rules="classic").json()  # both accounts get their players
    assert post(f"/api/challenge/{first['id']}/accept", bob[1]).status_code == 200
    for step in ("challenge", "accept"):
        with CaptureQueriesContext(connection) as seen:
            if step == "challenge":
                sent = challenge(ada[1], rules="classic")
            else:
                sent = post(f"/api/challenge/{sent.json()['id']}/accept", bob[1])
        assert sent.status_code in (200, 201), sent.json()
        reads = [q["sql"] for q in seen.captured_queries if q["sql"].startswith("SELECT")]
        blocks = [sql for sql in reads if "games_block" in sql]
        bans = [sql for sql in reads if "games_sanction" in sql]
        assert len(blocks) == 1 and bans == blocks, step


def test_an_accept_reads_both_players_at_once_and_writes_the_challenge_once(ada, bob):
    """The two accounts' players are read in one query, and the challenge is written once:
    accepted, with its table (it was claimed, then given its table: two writes)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    sent = challenge(ada[1], rules="classic").json()
    with CaptureQueriesContext(connection) as seen:
        accepted = post(f"/api/challenge/{sent['id']}/accept", bob[1])
    assert accepted.status_code == 200, accepted.json()
    sqls = [q["sql"] for q in seen.captured_queries]
    assert sum(sql.startswith("SELECT") and 'FROM "games_player"' in sql for sql in sqls) == 1
    assert sum(sql.startswith("UPDATE") and '"accounts_challenge"' in sql for sql in sqls) == 1
    row = Challenge.objects.get(pk=sent["id"])
    assert (row.status, row.game_id) == ("accepted", accepted.json()["game"])


def test_look_ups_by_a_unique_key_compile_no_order(ada, bob):
    """The token, the name and the challenge are found by a unique key: no ORDER BY (Django
    compiles one for ``first()``, a third of such a query's cost on the one sync thread)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as seen:
        sent = challenge(ada[1], rules="classic")
        accepted = post(f"/api/challenge/{sent.json()['id']}/accept", bob[1])
    assert accepted.status_code == 200, accepted.json()
    looked_up = [
        q["sql"]
        for q in seen.captured_queries
        if q["sql"].startswith("SELECT")
        and any(
            f"FROM {table}" in q["sql"].replace('"', "")
            for table in ("accounts_accesstoken", "accounts_accountname", "accounts_challenge")
        )
    ]
    assert len(looked_up) == 4  # two tokens, the name, the challenge
    assert not any("ORDER BY" in sql for sql in looked_up)
