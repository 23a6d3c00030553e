"""Accounts in the browser (issue 16): sign up, log in, log out, change password, the rules of a
name, and a guest's games kept by the account it signs up or logs in to."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.auth import SESSION_PLAYER_KEY
from games.models import Game, Player

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery"


def sign_up(client, username, password=PASSWORD, **extra):
    return client.post(
        "/accounts/signup/",
        {"username": username, "password1": password, "password2": password, **extra},
    )


def errors_of(response) -> str:
    return " ".join(str(error) for error in response.context["form"].errors.values())


def test_the_account_pages_answer_in_the_site_frame(client):
    for path in ("/accounts/signup/", "/accounts/login/"):
        response = client.get(path)
        assert response.status_code == 200
        assert b'class="site-header"' in response.content
        assert b'href="/accounts/login/"' in response.content  # the header, for a guest
    # Changing the password is for a signed-in account: a guest is sent to log in.
    response = client.get("/accounts/password/change/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_signing_up_logs_in_and_the_header_names_the_account(client):
    response = sign_up(client, "ada")
    assert response.status_code == 302
    user = get_user_model().objects.get()
    assert user.username == "ada" and user.check_password(PASSWORD)
    page = client.get("/").content.decode()
    assert 'class="account-name"' in page and ">ada</a>" in page
    assert 'action="/accounts/logout/"' in page and "Sign up" not in page


def test_an_email_is_optional_and_never_verified(client):
    response = sign_up(client, "bob", email="bob@example.com")
    assert response.status_code == 302 and response["Location"] == "/"
    assert get_user_model().objects.get().email == "bob@example.com"


def test_log_out_then_log_in_again(client):
    sign_up(client, "ada")
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session
    assert b"Sign up" in client.get("/").content
    response = client.post("/accounts/login/", {"login": "ada", "password": "wrong password"})
    assert response.status_code == 200 and "_auth_user_id" not in client.session
    assert "not correct" in " ".join(str(e) for e in response.context["form"].non_field_errors())
    response = client.post("/accounts/login/", {"login": "ADA", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(get_user_model().objects.get().pk)


def test_change_password(client):
    sign_up(client, "ada")
    new = "another long passphrase"
    response = client.post(
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": new, "password2": new},
    )
    assert response.status_code == 302
    assert get_user_model().objects.get().check_password(new)
    response = client.post(
        "/accounts/password/change/",
        {"oldpassword": "not it", "password1": new, "password2": new},
    )
    assert response.status_code == 200 and "oldpassword" in response.context["form"].errors


@pytest.mark.parametrize("username", ["Zoë", "李雷", "Ólafur", "a", "x" * 20, "ada_l-2"])
def test_names_of_any_script_are_accepted(client, username):
    assert sign_up(client, username).status_code == 302
    assert get_user_model().objects.get().username == username


@pytest.mark.parametrize(
    "username, message",
    [
        ("x" * 21, "at most 20 characters; this one has 21"),
        ("a b", "only letters"),
        ("<b>", "only letters"),
        ("", "required"),
    ],
)
def test_a_bad_name_is_refused_with_a_message_and_nothing_saved(client, username, message):
    response = sign_up(client, username)
    assert response.status_code == 200
    assert message in errors_of(response)
    assert message.replace("'", "&#x27;") in response.content.decode()
    assert not get_user_model().objects.exists()


def test_a_too_long_name_is_never_cut_by_the_form(client):
    page = client.get("/accounts/signup/").content.decode()
    field = page[page.index('name="username"') - 200 : page.index('name="username"') + 200]
    assert "maxlength" not in field


def test_a_name_taken_in_another_case_is_refused(client, django_user_model):
    django_user_model.objects.create_user("ada", password=PASSWORD)
    response = sign_up(client, "Ada")
    assert response.status_code == 200 and "username" in response.context["form"].errors
    assert django_user_model.objects.count() == 1


def test_a_guest_who_signs_up_keeps_the_games_played_in_that_browser(client):
    client.post("/name", {"name": "guest"})
    client.post("/play/new", {"rules": "classic", "attributes": "3"})
    game = Game.objects.get()
    guest = Player.objects.get()
    sign_up(client, "Zoë")
    guest.refresh_from_db()
    user = get_user_model().objects.get()
    assert guest.user == user and guest.name == "Zoë"
    assert client.session[SESSION_PLAYER_KEY] == guest.pk
    assert list(game.seats.values_list("player", flat=True)) == [guest.pk]
    # The table still knows this browser as its seated player.
    assert client.get(f"/play/{game.pk}/").context["player"] == guest


def test_a_new_account_creates_a_table_at_once_under_its_own_name(client):
    sign_up(client, "Ólafur")
    response = client.post("/play/new", {"rules": "classic", "attributes": "3"})
    assert response.status_code == 302, response.content.decode()[:400]
    assert list(Game.objects.get().seats.values_list("name", flat=True)) == ["Ólafur"]


def test_logging_in_on_a_new_browser_plays_as_the_account_and_keeps_that_guests_games(
    client, django_user_model
):
    sign_up(client, "ada")
    client.post("/name", {"name": "whatever"})
    account_player = Player.objects.get()
    assert account_player.name == "ada"  # an account plays under its own name
    client.post("/accounts/logout/")
    assert SESSION_PLAYER_KEY not in client.session

    # Another browser: with no guest player it plays as the account's player.
    other = Client()
    other.post("/accounts/login/", {"login": "ada", "password": PASSWORD})
    assert other.session[SESSION_PLAYER_KEY] == account_player.pk

    # A third browser played as a guest first: that guest and its seat become the account's.
    third = Client()
    third.post("/name", {"name": "guest"})
    third.post("/play/new", {"rules": "classic", "attributes": "3"})
    guest = Player.objects.get(name="guest")
    third.post("/accounts/login/", {"login": "ada", "password": PASSWORD})
    guest.refresh_from_db()
    assert guest.user.username == "ada"
    assert third.session[SESSION_PLAYER_KEY] == guest.pk
    assert Game.objects.get().seats.get().player == guest


def test_a_logged_out_browser_is_a_guest_again(client):
    sign_up(client, "ada")
    client.post("/name", {"name": "ada"})
    client.post("/accounts/logout/")
    client.post("/name", {"name": "guest"})
    assert Player.objects.filter(user__isnull=True).get().name == "guest"
    assert Player.objects.filter(user__isnull=False).get().name == "ada"


@pytest.mark.parametrize("first, second", [("ada", "ADA"), ("Zoë", "ZOË"), ("Straße", "STRASSE")])
def test_two_names_that_differ_only_by_case_are_one_name_on_every_database(
    client, django_user_model, first, second
):
    from django.db import transaction

    from accounts.validators import NameTaken

    sign_up(client, first)
    response = sign_up(Client(), second)
    assert response.status_code == 200 and "username" in response.context["form"].errors
    made = Client().post(
        "/api/accounts", {"username": second, "password": PASSWORD}, "application/json"
    )
    assert made.status_code == 409
    assert Client().get(f"/api/users/{second}").json()["name"] == first
    with pytest.raises(NameTaken), transaction.atomic():  # the name row's unique key says so too
        django_user_model.objects.create_user(second, password=PASSWORD)
    assert django_user_model.objects.count() == 1


def test_a_renamed_account_is_found_by_its_new_name_only(client, django_user_model):
    user = django_user_model.objects.create_user("ada", password=PASSWORD)
    user.username = "Ada_L"
    user.save()
    assert client.get("/api/users/ada_l").status_code == 200
    assert client.get("/api/users/ada").status_code == 404


def test_the_product_hashes_passwords_with_pbkdf2():
    """The suite's servers hash with a fast hasher (tests/server_settings.py); the product's
    settings keep Django's PBKDF2 first."""
    import importlib

    from django.conf import global_settings

    product = importlib.import_module("config.settings")  # settings_production imports it
    hashers = getattr(product, "PASSWORD_HASHERS", global_settings.PASSWORD_HASHERS)
    assert hashers[0] == "django.contrib.auth.hashers.PBKDF2PasswordHasher"
