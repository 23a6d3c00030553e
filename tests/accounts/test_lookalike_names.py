"""Names that look alike are one name (issue 23): an account's name is compared by Unicode's
confusable skeleton of its case-folded form (UTS #39, games.names.name_key), so a look-alike of
an account's name is taken, for another account and for a guest."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import Client

from accounts.validators import NameTaken
from games.auth import ACCOUNT_NAME_TAKEN
from games.models import Player, Seat
from tests.accounts.test_tokens import CLASSIC, account, post

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery"
CYRILLIC_ADA = "\u0430d\u0430"  # а, Latin d, а
FULLWIDTH_ADA = "\uff41\uff44\uff41"


def sign_up(client, username):
    return client.post(
        "/accounts/signup/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
    )


@pytest.mark.parametrize(
    "first, second",
    [("ada", CYRILLIC_ADA), ("ada", FULLWIDTH_ADA), ("bob", "b0b"), ("Zoë", "ZO\u0401")],
)
def test_an_account_name_that_looks_like_another_is_taken(client, first, second):
    assert sign_up(Client(), first).status_code == 302
    refused = sign_up(Client(), second)
    assert refused.status_code == 200 and "username" in refused.context["form"].errors
    made = client.post(
        "/api/accounts", {"username": second, "password": PASSWORD}, "application/json"
    )
    assert made.status_code == 409 and repr(second) in made.json()["detail"]
    assert list(get_user_model().objects.values_list("username", flat=True)) == [first]
    # The name row's unique key says so too, whoever saves the user (Django's own NFKC makes a
    # fullwidth name the same username).
    with pytest.raises((NameTaken, IntegrityError)), transaction.atomic():
        get_user_model().objects.create_user(second, password=PASSWORD)


def test_names_that_differ_are_still_two_accounts():
    for name in ("ada", "adb", "Ólafur", "olafur", "李雷", "x-1", "x_1"):
        assert sign_up(Client(), name).status_code == 302, name
    assert get_user_model().objects.count() == 7


@pytest.mark.parametrize("name", [CYRILLIC_ADA, FULLWIDTH_ADA, "ADA"])
def test_a_guest_may_not_join_under_a_look_alike_of_an_account_s_name(client, name):
    account(client, "ada")
    game = post(client, "/api/games/", CLASSIC).json()
    refused = post(client, f"/api/games/{game['id']}/join", {"name": name})
    assert refused.status_code == 409 and refused.json() == {"detail": ACCOUNT_NAME_TAKEN}
    assert not Seat.objects.filter(game_id=game["id"]).exists()
    browser = Client()
    browser.post("/name", {"name": name})
    assert not Player.objects.filter(user__isnull=True).exists()


def test_the_profile_and_the_api_find_an_account_by_a_look_alike_of_its_name(client):
    account(client, "ada")
    assert client.get(f"/api/users/{CYRILLIC_ADA}").json()["name"] == "ada"
    assert client.get(f"/u/{FULLWIDTH_ADA}")["Location"] == "/u/ada"


@pytest.mark.django_db(transaction=True)
def test_the_migration_keys_old_accounts_and_keeps_both_of_two_that_look_alike(capsys):
    """Accounts made under the old rule (case only): `ada`, a Cyrillic `аdа`, and one that lost
    a sign-up race without its name row. The migration keys them all, and neither of the two
    look-alikes loses its name or its login."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from accounts.models import AccountName

    executor = MigrationExecutor(connection)
    executor.migrate([("accounts", "0002_account_name")])
    old = executor.loader.project_state([("accounts", "0002_account_name")]).apps
    users, names = old.get_model("auth", "User"), old.get_model("accounts", "AccountName")
    for username in ("ada", CYRILLIC_ADA, "bob"):
        user = users.objects.create(username=username, password="!")
        if username != "bob":
            names.objects.create(user=user, folded=username.casefold())

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    said = capsys.readouterr().out
    assert f"{CYRILLIC_ADA!r}" in said and "'ada'" in said and "rename one" in said
    # (The computers' bot accounts, made by the next migration, have keys of their own.)
    keys = dict(
        AccountName.objects.filter(user__bot__isnull=True).values_list("user__username", "key")
    )
    cyrillic = get_user_model().objects.get(username=CYRILLIC_ADA)
    assert keys == {"ada": "ada", CYRILLIC_ADA: f"ada#{cyrillic.pk}", "bob": "bob"}
    # Both still log in, and saving them keeps their keys.
    for username in ("ada", CYRILLIC_ADA):
        user = get_user_model().objects.get(username=username)
        user.set_password(PASSWORD)
        user.save()
        browser = Client()
        answer = browser.post("/accounts/login/", {"login": username, "password": PASSWORD})
        assert answer.status_code == 302, username
    saved = AccountName.objects.filter(user__bot__isnull=True)
    assert dict(saved.values_list("user__username", "key")) == keys


@pytest.mark.django_db(transaction=True)  # createsuperuser saves outside a transaction
def test_createsuperuser_refuses_a_look_alike_and_leaves_no_account(monkeypatch):
    from django.core.management import CommandError, call_command

    from accounts.models import AccountName

    assert sign_up(Client(), "ada").status_code == 302
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    with pytest.raises(CommandError, match="already exists"):
        call_command("createsuperuser", "--noinput", username=CYRILLIC_ADA, email="")
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["ada"]
    assert AccountName.objects.count() == 1
    call_command("createsuperuser", "--noinput", username="root", email="", verbosity=0)
    assert AccountName.objects.get(user__username="root").key == "root"


def test_the_admin_refuses_a_look_alike_as_a_form_error(admin_client):
    assert sign_up(Client(), "ada").status_code == 302
    page = admin_client.post(
        "/admin/auth/user/add/",
        {"username": CYRILLIC_ADA, "usable_password": "false"},
    )
    assert page.status_code == 200
    assert "already exists" in page.content.decode().replace("&#x27;", "'")
    assert not get_user_model().objects.filter(username=CYRILLIC_ADA).exists()
