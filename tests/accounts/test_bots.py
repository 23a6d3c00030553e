"""Bot accounts (issue 26, item 4): an account that has played no game becomes a bot for good;
bots are marked BOT wherever names show, play through the API only and stay out of the lobby's
chat; the built-in computers are bot accounts of their own, one per speed, so a person plays a
rated game against the computer and both ratings move."""

from __future__ import annotations

import importlib
import json

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.test import Client

from games import bots, ratings, services
from games.auth import ACCOUNT_NAME_TAKEN
from games.models import BotAccount, Game, Player, Rating, RatingChange, Seat
from tests.accounts.test_tokens import CLASSIC, account, post

pytestmark = pytest.mark.django_db
UPGRADE = "/api/bot/account/upgrade"
SPEEDS = ("slow", "medium", "fast", "instant")


def upgrade(client, token=None):
    return post(client, UPGRADE, {}, token)


def bot(client, name="setbot") -> str:
    """An account made a bot over the API; its token."""
    token = account(client, name)
    made = upgrade(client, token)
    assert made.status_code == 200, made.json()
    return token


def seat_token(answer) -> dict:
    return {"HTTP_AUTHORIZATION": f"Token {answer.json()['token']}"}


# Upgrading


def test_an_account_that_has_played_no_game_becomes_a_bot_for_good(client):
    token = account(client, "setbot")
    assert client.get("/api/users/setbot").json()["bot"] is False
    made = upgrade(client, token)
    assert made.status_code == 200 and made.json() == {"name": "setbot", "bot": True}
    assert client.get("/api/users/setbot").json()["bot"] is True
    again = upgrade(client, token)
    assert again.status_code == 400 and again.json() == {"detail": "This account is a bot already."}
    assert BotAccount.objects.filter(user__username="setbot", speed="").count() == 1


def test_an_account_that_has_played_cannot_become_a_bot(client):
    token = account(client, "ada")
    game = post(client, "/api/games/", CLASSIC).json()
    assert post(client, f"/api/games/{game['id']}/join", {"name": "ada"}, token).status_code == 201
    refused = upgrade(client, token)
    assert refused.status_code == 400
    assert refused.json() == {
        "detail": "Only an account that has played no game can become a bot; this one has played."
    }
    assert not BotAccount.objects.filter(user__username="ada").exists()


def test_upgrading_needs_the_account_s_token(client):
    assert upgrade(client).status_code == 401
    assert upgrade(client, "no-such-token").status_code == 401
    # A signed-in browser is not enough: a bot is made by its program's token only.
    user = get_user_model().objects.create_user("ada", password="correct horse battery")
    browser = Client()
    browser.force_login(user)
    assert upgrade(browser).status_code == 401
    assert not BotAccount.objects.exists()


# Marked BOT


def test_seats_say_which_are_bots_in_the_api(client):
    token = bot(client, "setbot")
    ada = account(client, "ada")
    game = post(client, "/api/games/", CLASSIC).json()
    joined = post(client, f"/api/games/{game['id']}/join", {"name": "setbot"}, token)
    assert joined.status_code == 201, joined.json()
    assert joined.json()["seat"]["bot"] is True and joined.json()["seat"]["guest"] is False
    person = post(client, f"/api/games/{game['id']}/join", {"name": "ada"}, ada)
    assert person.json()["seat"]["bot"] is False
    assert {s["name"]: s["bot"] for s in person.json()["game"]["seats"]} == {
        "setbot": True,
        "ada": False,
    }
    computer = client.post(
        f"/api/games/{game['id']}/computers", b"{}", "application/json", **seat_token(person)
    )
    assert computer.status_code == 201 and computer.json()["bot"] is True
    guest = post(client, f"/api/games/{game['id']}/join", {"name": "zoe"})
    assert guest.json()["seat"]["bot"] is False
    assert {s["name"]: s["bot"] for s in guest.json()["game"]["seats"]} == {
        "setbot": True,
        "ada": False,
        "Computer1": True,
        "zoe": False,
    }
    detail = client.get(f"/api/games/{game['id']}/").json()
    assert [s["bot"] for s in detail["seats"]] == [True, False, True, False]


def test_bots_are_marked_on_the_table_page_the_lobby_and_profiles(client):
    token = bot(client, "setbot")
    game = post(client, "/api/games/", CLASSIC).json()
    post(client, f"/api/games/{game['id']}/join", {"name": "setbot"}, token)
    post(client, f"/api/games/{game['id']}/join", {"name": "zoe"})
    page = Client().get(f"/play/{game['id']}/")
    config = page.context["config"]
    assert config["bots"] == ["setbot"] and config["guests"] == ["zoe"]
    lobby = Client().get("/").content.decode()
    assert 'setbot <span class="badge badge-bot"' in lobby
    assert 'zoe <span class="badge badge-bot"' not in lobby
    profile = Client().get("/u/setbot").content.decode()
    assert '<h1>setbot <span class="badge badge-bot"' in profile
    assert "this account plays by program" in profile
    assert "badge-bot" not in Client().get("/u/" + "zoe").content.decode()  # no such account


# Bots play through the API only


def test_a_bot_s_browser_session_takes_no_seat_and_makes_no_move(client):
    token = bot(client, "setbot")
    game = post(client, "/api/games/", CLASSIC).json()
    browser = Client()
    browser.force_login(get_user_model().objects.get(username="setbot"))
    joined = post(browser, f"/api/games/{game['id']}/join", {"name": "setbot"})
    assert joined.status_code == 403 and joined.json() == {"detail": bots.NOT_IN_PAGES}
    form = {"name": "setbot", "rules": "classic", "attributes": "4"}
    made = browser.post("/play/new", form, follow=True)
    assert bots.NOT_IN_PAGES in made.content.decode().replace("&#x27;", "'")
    assert not Seat.objects.filter(player__user__username="setbot").exists()
    assert Game.objects.count() == 1
    # Seated by its token, it plays by its token; its browser may watch, never move.
    seated = post(client, f"/api/games/{game['id']}/join", {"name": "setbot"}, token)
    claim = {"type": "claim", "cards": CLASSIC["options"]["deck"][:3]}
    moved = post(browser, f"/api/games/{game['id']}/moves", claim)
    assert moved.status_code == 403 and moved.json() == {"detail": bots.NOT_IN_PAGES}
    assert browser.get(f"/play/{game['id']}/").status_code == 200
    by_token = client.post(
        f"/api/games/{game['id']}/moves",
        json.dumps(claim),
        "application/json",
        **seat_token(seated),
    )
    assert by_token.status_code == 200, by_token.json()


def test_bots_do_not_write_in_the_lobby_chat(client):
    token = bot(client, "setbot")
    refused = post(client, "/api/lobby/chat", {"text": "hello"}, token)
    assert refused.status_code == 403
    assert refused.json() == {
        "detail": "Bots do not write in the lobby's chat; they may chat at the tables they play."
    }
    person = account(client, "ada")
    assert post(client, "/api/lobby/chat", {"text": "hello"}, person).status_code == 201
    # At a table it plays, a bot chats.
    game = post(client, "/api/games/", CLASSIC).json()
    seated = post(client, f"/api/games/{game['id']}/join", {"name": "setbot"}, token)
    said = client.post(
        f"/api/games/{game['id']}/chat",
        json.dumps({"text": "good game"}),
        "application/json",
        **seat_token(seated),
    )
    assert said.status_code == 201


# Leaderboards


def rated(name: str, mode: str, mu: float, games: int, *, is_bot=False) -> None:
    import datetime

    user = get_user_model().objects.create_user(name, password="correct horse battery")
    if is_bot:
        BotAccount.objects.create(user=user)
    when = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    Rating.objects.create(user=user, mode=mode, mu=mu, sigma=100.0, games=games, updated=when)


def test_leaderboards_list_people_by_default_and_bots_on_their_tab(client):
    rated("ann", "square", 1700.0, 5)
    rated("setbot", "square", 2100.0, 9, is_bot=True)
    people = client.get("/api/leaderboard/square").json()
    assert people == {
        "mode": "square",
        "bots": False,
        "players": [{"name": "ann", "rating": 1700, "games": 5, "bot": False}],
    }
    machines = client.get("/api/leaderboard/square?bots=1").json()
    assert machines == {
        "mode": "square",
        "bots": True,
        "players": [{"name": "setbot", "rating": 2100, "games": 9, "bot": True}],
    }
    assert client.get("/api/leaderboard/square?bots=maybe").status_code == 400
    page = client.get("/leaderboard/square/").content.decode()
    assert ">ann</a>" in page and "setbot" not in page
    assert 'href="/leaderboard/square/?bots=1"' in page and ">Bots</a>" in page
    tab = client.get("/leaderboard/square/?bots=1").content.decode()
    assert '>setbot</a> <span class="badge badge-bot"' in tab and ">ann</a>" not in tab


# The computers' bot accounts


def make_computer_accounts():
    migration = importlib.import_module("accounts.migrations.0004_computer_bot_accounts")
    migration.make_computer_accounts(apps, None)


def test_the_migration_makes_one_bot_account_per_computer_speed(client):
    # The test database's were taken out (tests/conftest.py): the migration's step, run again.
    get_user_model().objects.create_user("computer_fast", password="correct horse battery")
    make_computer_accounts()
    made = {b.speed: b.user for b in BotAccount.objects.select_related("user")}
    assert set(made) == set(SPEEDS)
    names = {speed: user.username for speed, user in made.items()}
    # A person had a name like "Computer_fast": the computer's has a number after it.
    assert names == {
        "slow": "Computer_slow",
        "medium": "Computer_medium",
        "fast": "Computer_fast2",
        "instant": "Computer_instant",
    }
    for user in made.values():
        assert not user.has_usable_password()
        assert Player.objects.filter(user=user, is_computer=True, name=user.username).count() == 1
    make_computer_accounts()  # run again: nothing more
    assert BotAccount.objects.count() == 4
    # Their names are reserved: nobody signs up as one, nor takes one as a guest.
    taken = post(client, "/api/accounts", {"username": "COMPUTER_SLOW", "password": "pw-9zq!x"})
    assert taken.status_code == 409
    game = post(client, "/api/games/", CLASSIC).json()
    guest = post(client, f"/api/games/{game['id']}/join", {"name": "Computer_medium"})
    assert guest.status_code == 409 and guest.json() == {"detail": ACCOUNT_NAME_TAKEN}
    # A computer seat of a speed sits as that speed's account, with a profile.
    services.seat_add_computer(game_id=game["id"], speed="medium")
    seat = Seat.objects.select_related("player__user").get(game_id=game["id"], is_computer=True)
    assert seat.player.user == made["medium"]
    profile = client.get("/api/users/Computer_medium").json()
    assert profile["bot"] is True and profile["computer_speed"] == "medium"


def test_a_person_plays_a_rated_game_against_the_computer_and_both_ratings_move(client):
    ada = account(client, "ada")
    body = {"kind": "set", "open": True, "rated": True}
    body["options"] = {"rules": "classic", "attributes": 3, "start": "wait"}
    game = post(client, "/api/games/", body, ada).json()
    seated = post(client, f"/api/games/{game['id']}/join", {"name": "ada"}, ada)
    assert seated.status_code == 201, seated.json()
    computer = client.post(
        f"/api/games/{game['id']}/computers",
        json.dumps({"speed": "fast"}),
        "application/json",
        **seat_token(seated),
    )
    assert computer.status_code == 201, computer.json()
    # One computer a rated table: a second of the same speed is the same account again.
    again = client.post(
        f"/api/games/{game['id']}/computers",
        json.dumps({"speed": "fast"}),
        "application/json",
        **seat_token(seated),
    )
    assert again.status_code == 403
    assert again.json() == {"detail": ratings.TWICE_REFUSED}
    assert client.get(f"/api/games/{game['id']}/").json()["rated"] is True

    started = client.post(
        f"/api/games/{game['id']}/start", b"{}", "application/json", **seat_token(seated)
    )
    assert started.status_code == 200, started.json()
    now = started.json()["outcome"]["starts_ms"]
    # The person finds nothing; the computer plays by itself, at each moment the clock reaches.
    for _ in range(10_000):
        head = services.game_tick(game_id=game["id"], now=now).game
        if head.status == Game.Status.OVER:
            break
        now += 250
    finished = client.get(f"/api/games/{game['id']}/").json()
    assert finished["status"] == "over" and finished["rated"] is True

    computer_user = get_user_model().objects.get(bot__speed="fast")
    person_user = get_user_model().objects.get(username="ada")
    changes = {c.user_id: c for c in RatingChange.objects.filter(game_id=game["id"])}
    assert set(changes) == {computer_user.pk, person_user.pk}
    assert changes[computer_user.pk].mu_after > ratings.MU > changes[person_user.pk].mu_after
    # Where the person stands against the computer: both profiles say, and the bots' board.
    mine = client.get("/api/users/ada").json()["ratings"]["set-classic-3"]
    theirs = client.get(f"/api/users/{computer_user.username}").json()["ratings"]["set-classic-3"]
    assert mine["games"] == theirs["games"] == 1 and theirs["rating"] > mine["rating"]
    assert Rating.objects.get(user=computer_user, mode="set-classic-3").games == 1


def test_the_lobby_form_makes_a_rated_table_against_one_computer():
    user = get_user_model().objects.create_user("ada", password="correct horse battery")
    browser = Client()
    browser.force_login(user)
    form = {"name": "ada", "rules": "classic", "attributes": "4", "length": "full"}
    form |= {"mode": "normal", "computers": "1", "speed": "slow", "rated": "on"}
    made = browser.post("/play/new", form)
    assert made.status_code == 302, made.content.decode()[:2000]
    game = Game.objects.get()
    assert game.rated and game.seats.count() == 2
    # Seated before the deal, then started by its creator: the countdown runs.
    assert game.seats.get(is_computer=True).player.user.bot.speed == "slow"
    assert Game.objects.get().state.get("starts_ms")
    assert client_json(browser, f"/api/games/{game.pk}/")["rated"] is True
    two = browser.post("/play/new", {**form, "computers": "2"}, follow=True)
    assert "one computer at most" in two.content.decode()
    assert Game.objects.count() == 1


def client_json(browser, path):
    return browser.get(path).json()
