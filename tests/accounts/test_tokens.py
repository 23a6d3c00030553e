"""Tokens for programs (issue 16): personal tokens made and revoked on /accounts/tokens/,
``Authorization: Bearer <token>`` acting as the account on the games API (through Django and
through config.asgi, where games.api_fast leaves it to Django), and the accounts API:
``POST /api/accounts`` and ``POST /api/auth/token``."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import AccessToken
from games import services
from games.models import Game, Player
from tests.examples import EXAMPLE_DECK
from tests.games.test_api_fast import HOST, JSON, through_asgi

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery"
CLASSIC = {
    "kind": "set",
    "open": True,
    "options": {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
}
A_SET = {"type": "claim", "cards": EXAMPLE_DECK[:3]}


def post(client, path, body, token=None, **extra):
    if token is not None:
        extra["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return client.post(path, json.dumps(body), content_type="application/json", **extra)


def account(client, username="ada", password=PASSWORD) -> str:
    """Make an account over the API; its token."""
    made = post(client, "/api/accounts", {"username": username, "password": password})
    assert made.status_code == 201, made.json()
    assert made.json()["username"] == username
    return made.json()["token"]


# The page


def test_an_account_makes_and_revokes_tokens_on_its_page():
    user = get_user_model().objects.create_user("ada", password=PASSWORD)
    browser = Client()
    assert browser.get("/accounts/tokens/").status_code == 302  # a guest is sent to log in
    browser.force_login(user)
    page = browser.get("/accounts/tokens/")
    assert page.status_code == 200 and b"You have no tokens yet." in page.content
    assert b'href="/accounts/tokens/"' in page.content  # the header's account menu links it
    assert b"<script>" not in page.content and b"style=" not in page.content

    made = browser.post("/accounts/tokens/", {"name": "my bot"})
    assert made.status_code == 200
    token = made.context["new_token"]
    assert token and token.encode() in made.content
    row = AccessToken.objects.get(user=user)
    assert row.name == "my bot" and token not in row.digest  # only its digest is kept
    again = browser.get("/accounts/tokens/")
    assert token.encode() not in again.content and b"my bot" in again.content  # shown once

    api = Client()
    assert post(api, "/api/games/", CLASSIC, token).status_code == 201
    row.refresh_from_db()
    assert row.last_used is not None

    revoked = browser.post("/accounts/tokens/", {"revoke": str(row.pk)})
    assert revoked.status_code == 302
    assert b"revoked" in browser.get("/accounts/tokens/").content
    refused = post(api, "/api/games/", CLASSIC, token)
    assert refused.status_code == 401
    assert refused.json() == {"detail": "That account token was revoked."}


def test_the_page_refuses_a_token_without_a_name_and_another_accounts_token():
    ada = get_user_model().objects.create_user("ada", password=PASSWORD)
    bob = get_user_model().objects.create_user("bob", password=PASSWORD)
    browser = Client()
    browser.force_login(ada)
    refused = browser.post("/accounts/tokens/", {"name": "  "})
    assert refused.status_code == 400 and b"Give the token a name" in refused.content
    assert browser.post("/accounts/tokens/", {"name": "x" * 41}).status_code == 400
    assert not AccessToken.objects.exists()
    theirs = AccessToken.objects.create(user=bob, name="bob's", digest="0" * 64)
    browser.post("/accounts/tokens/", {"revoke": str(theirs.pk)})
    browser.post("/accounts/tokens/", {"revoke": "nope"})
    theirs.refresh_from_db()
    assert theirs.revoked is None


# The accounts API


def test_an_account_is_made_over_the_api_and_its_token_works(client):
    token = account(client, "Zoë")
    assert get_user_model().objects.filter(username="Zoë").exists()
    assert post(client, "/api/games/", CLASSIC, token).status_code == 201


def test_a_taken_name_ignoring_case_is_409_and_nothing_is_made(client):
    account(client, "Ada")
    taken = post(client, "/api/accounts", {"username": "aDA", "password": PASSWORD})
    assert taken.status_code == 409 and "already exists" in taken.json()["detail"]
    assert get_user_model().objects.count() == 1


@pytest.mark.parametrize(
    ("username", "password", "said"),
    [
        ("a b", PASSWORD, "no spaces"),
        ("<b>x</b>", PASSWORD, "no spaces or other signs"),
        ("x" * 21, PASSWORD, "at most 20 characters"),
        ("", PASSWORD, "username"),
        ("ada", "short", "password: This password is too short"),
        ("ada", "12345678901", "entirely numeric"),
    ],
)
def test_a_bad_name_or_a_weak_password_is_400_naming_the_rule(client, username, password, said):
    refused = post(client, "/api/accounts", {"username": username, "password": password})
    assert refused.status_code == 400 and said in refused.json()["detail"], refused.json()
    assert not get_user_model().objects.exists()


def test_making_accounts_is_rate_limited_as_sign_ups(client, settings):
    settings.RATE_LIMIT_SIGNUPS = "2/hour"  # fixed windows: an hour is not crossed mid-test
    account(client, "ann")
    account(client, "bob")
    refused = post(client, "/api/accounts", {"username": "cid", "password": PASSWORD})
    assert refused.status_code == 429 and refused["Retry-After"]
    assert "Too many sign-ups from this address" in refused.json()["detail"]
    assert not get_user_model().objects.filter(username="cid").exists()


def test_guessing_passwords_is_rate_limited_per_account(client, settings):
    account(client, "ada")
    settings.RATE_LIMIT_ACCOUNT_LOGINS = "3/hour"  # fixed windows: an hour is not crossed

    def ask(password):  # from an address of its own: limits count per client address
        body = {"username": "ada", "password": password}
        return client.post(
            "/api/auth/token", body, content_type="application/json", REMOTE_ADDR="10.7.7.7"
        )

    for _ in range(3):
        assert ask("guess").status_code == 401
    refused = ask(PASSWORD)
    assert refused.status_code == 429 and refused["Retry-After"]
    assert AccessToken.objects.count() == 1  # the one the account was made with


def test_a_token_for_the_right_password_and_401_for_a_wrong_one(client):
    account(client, "ada")
    got = post(client, "/api/auth/token", {"username": "ada", "password": PASSWORD})
    assert got.status_code == 200 and set(got.json()) == {"token"}
    assert post(client, "/api/games/", CLASSIC, got.json()["token"]).status_code == 201
    assert AccessToken.objects.filter(name="api").count() == 2
    for wrong in ({"username": "ada", "password": "nope"}, {"username": "eve", "password": "x"}):
        refused = post(client, "/api/auth/token", wrong)
        assert refused.status_code == 401
        assert refused.json() == {"detail": "No account has that name and password."}
    assert AccessToken.objects.count() == 2
    assert post(client, "/api/auth/token", {"username": "ada"}).status_code == 400


# Bearer on the games API


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        ("Bearer nope", "That account token is not valid."),
        ("Bearer", "Send the account token as 'Authorization: Bearer <token>'."),
        ("Bearer a b", "Send the account token as 'Authorization: Bearer <token>'."),
        ("Bearer caf\u00e9", "That account token is not valid."),
        ("Bearer " + "x" * 10_000, "That account token is not valid."),
    ],
)
def test_a_bad_bearer_token_is_401_naming_the_problem(client, header, detail):
    for path in ("/api/games/", "/api/games/1/join", "/api/games/1/moves"):
        refused = client.post(
            path, b'{"name": "x"}', content_type="application/json", HTTP_AUTHORIZATION=header
        )
        assert refused.status_code == 401 and refused.json() == {"detail": detail}, path
    assert not Game.objects.exists() and not Player.objects.exists()


def test_a_program_plays_a_whole_game_with_account_tokens(client):
    ada = account(client, "ada")
    bob = account(client, "bob")
    game = post(client, "/api/games/", CLASSIC, ada).json()
    joined = post(client, f"/api/games/{game['id']}/join", {"name": "whatever"}, ada)
    assert joined.status_code == 201 and joined.json()["seat"]["name"] == "ada"
    assert post(client, f"/api/games/{game['id']}/join", {"name": "x"}, bob).status_code == 201
    players = Player.objects.filter(user__isnull=False)
    assert sorted(p.user.get_username() for p in players) == ["ada", "bob"]
    moved = post(client, f"/api/games/{game['id']}/moves", A_SET, bob)
    assert moved.status_code == 200, moved.json()
    assert Game.objects.get(pk=game["id"]).state["scores"]["bob"] == 1
    # The account's own seat token acts too; another account has no seat at a third's game.
    cid = account(client, "cid")
    refused = post(client, f"/api/games/{game['id']}/moves", {"type": "hint"}, cid)
    assert refused.status_code == 403 and "no seat at this game" in refused.json()["detail"]
    seat = {"HTTP_AUTHORIZATION": f"Token {joined.json()['token']}"}
    hint = client.post(
        f"/api/games/{game['id']}/moves", b'{"type": "hint"}', "application/json", **seat
    )
    assert hint.status_code == 200


def test_a_program_plays_a_rated_game_and_reads_both_ratings_moved(client):
    """Issue 16's "done when" for programs: two accounts made over the API play a rated game to
    its end with Bearer tokens, and the API shows both ratings moved."""
    from games.rules import get_rules

    tokens = {name: account(client, name) for name in ("Zoë", "Ólafur")}
    body = {"kind": "set", "options": {"rules": "classic", "attributes": 3}, "rated": True}
    game = post(client, "/api/games/", body, tokens["Zoë"]).json()  # private: by its key
    for token in tokens.values():
        joining = f"/api/games/{game['id']}/join?key={game['key']}"
        assert post(client, joining, {"name": "me"}, token).status_code == 201
    # Both seated, the first to join starts it; once dealt, nobody else may join a rated game.
    started = post(client, f"/api/games/{game['id']}/start", {}, tokens["Zoë"])
    assert started.status_code == 200, started.json()
    services.game_tick(game_id=game["id"], now=started.json()["outcome"]["starts_ms"])
    cy = account(client, "Cy")  # an account, as a rated table seats: too late all the same
    late = post(client, f"/api/games/{game['id']}/join?key={game['key']}", {"name": "cy"}, cy)
    assert late.status_code == 409 and "rated game has started" in late.json()["detail"]
    for turn in range(40):
        state = Game.objects.get(pk=game["id"]).state
        if get_rules("set").status(state) == "over":
            break
        name = "Zoë" if turn % 4 else "Ólafur"  # Zoë finds three sets of every four
        action = get_rules("set").bot_actions(state, name)[0]
        moved = post(client, f"/api/games/{game['id']}/moves", action, tokens[name])
        assert moved.status_code == 200, moved.json()
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {tokens['Zoë']}"}  # a seat's: a private game
    detail = client.get(f"/api/games/{game['id']}/", **bearer).json()
    assert detail["status"] == "over" and detail["rated"] is True
    zoe = client.get("/api/users/Zoë").json()["ratings"]["set-classic-3"]
    olafur = client.get("/api/users/Ólafur").json()["ratings"]["set-classic-3"]
    assert zoe["games"] == olafur["games"] == 1
    assert zoe["rating"] > 1500 > olafur["rating"]
    assert detail["ratings"]["Zoë"] == {**zoe, "change": zoe["rating"] - 1500}


@pytest.mark.django_db(transaction=True)
def test_bearer_through_asgi_answers_as_the_views(client):
    ada, bob = account(client, "ada"), account(client, "bob")

    def bearer(token):
        return HOST + JSON + [(b"authorization", f"Bearer {token}".encode())]

    status, game, _ = through_asgi("/api/games/", json.dumps(CLASSIC).encode(), bearer(ada))
    assert status == 201
    for token in (ada, bob):
        path = f"/api/games/{game['id']}/join"
        assert through_asgi(path, b'{"name": "x"}', bearer(token))[0] == 201
    path = f"/api/games/{game['id']}/moves"
    assert through_asgi(path, json.dumps(A_SET).encode(), bearer(ada))[0] == 200
    assert Game.objects.get(pk=game["id"]).state["scores"]["ada"] == 1
    refused = through_asgi(path, b'{"type": "hint"}', bearer("nope"))
    assert refused[:2] == (401, {"detail": "That account token is not valid."})
    view = post(client, path, {"type": "hint"}, "nope")
    assert refused[:2] == (view.status_code, view.json())


def test_the_schema_documents_the_accounts_api_and_the_bearer_scheme(client):
    schema = client.get("/api/schema/?format=json").json()
    assert schema["components"]["securitySchemes"]["accountToken"]["scheme"] == "bearer"
    assert set(schema["paths"]["/api/accounts"]["post"]["responses"]) >= {"201", "409", "429"}
    assert set(schema["paths"]["/api/auth/token"]["post"]["responses"]) >= {"200", "401"}


def test_a_token_finds_its_account_in_one_query_and_the_rest_of_it_when_asked(
    client, django_assert_num_queries
):
    """Every request by a token asks who it is: one query (its "last used" noted once a
    minute); the account comes as itself (its flags true or false, on either database), and
    a field it was not read with is read when asked, never wrong."""
    from accounts.tokens import token_account

    secret = account(client, "ada")
    user = get_user_model().objects.get(username="ada")
    user.email, user.is_staff = "ada@example.com", True
    user.save()
    AccessToken.objects.update(last_used=None)
    with django_assert_num_queries(2):  # the token and its account; its "last used" noted
        found, credential = token_account(secret)
    with django_assert_num_queries(1):
        again, _ = token_account(secret)
    row = AccessToken.objects.get(user=user)
    assert credential == f"token-{row.pk}" and row.last_used is not None
    assert (found.pk, found.get_username(), found.is_active, found.is_staff) == (
        user.pk,
        "ada",
        True,
        True,
    )
    assert found.is_superuser is False and found == user
    with django_assert_num_queries(1):
        assert found.email == "ada@example.com"
