"""One limit on logging in (issue 23): failed logins are counted per account and per address,
whichever way they come (the log-in form, `POST /api/auth/token`, the admin's log-in), and over
the limit every way answers 429 with a Retry-After and a sentence naming the limit. Sign-ups
have one limit too, the form's and the API's."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery"
WRONG = "not the password"
ACCOUNT_LOCKED = "Too many failed logins for this account"
ADDRESS_LOCKED = "Too many failed logins from this address"


def form_login(client, login, password):
    return client.post("/accounts/login/", {"login": login, "password": password})


def api_login(client, username, password):
    return client.post(
        "/api/auth/token", {"username": username, "password": password}, "application/json"
    )


def admin_login(client, username, password):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password})


def page_text(response) -> str:
    return response.content.decode().replace("&#x27;", "'")


def assert_page_refused(response, sentence):
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert sentence in page_text(response)
    assert 'name="password"' in page_text(response)  # the form again, with the message


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", password=PASSWORD, is_staff=True)


# Counts run in fixed windows: an hour's is not crossed mid-test.
@pytest.fixture
def limited(settings):
    settings.RATE_LIMIT_ACCOUNT_LOGINS = "3/hour"
    settings.RATE_LIMIT_LOGINS = "off"
    return settings


def test_the_form_locks_an_account_after_its_failed_logins_with_429_and_retry_after(ada, limited):
    browser = Client()
    for _ in range(3):
        response = form_login(browser, "ada", WRONG)
        assert response.status_code == 200  # a wrong password: the form says so
    refused = form_login(browser, "ada", WRONG)
    assert_page_refused(refused, ACCOUNT_LOCKED)
    assert f"try again in {refused['Retry-After']} s." in page_text(refused)
    # The right password is refused too while the account is locked.
    refused = form_login(browser, "ADA", PASSWORD)
    assert_page_refused(refused, ACCOUNT_LOCKED)
    assert "_auth_user_id" not in browser.session


def test_the_api_locks_an_account_the_same_way_and_says_so_in_json(ada, limited, client):
    for _ in range(3):
        assert api_login(client, "ada", WRONG).status_code == 401
    refused = api_login(client, "ada", PASSWORD)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    detail = refused.json()["detail"]
    assert detail.startswith(ACCOUNT_LOCKED) and "try again in" in detail
    assert "joins" not in detail


def test_every_way_in_shares_one_count_per_account(ada, limited):
    assert form_login(Client(), "ada", WRONG).status_code == 200
    assert api_login(Client(), "Ada", WRONG).status_code == 401
    assert admin_login(Client(), "ADA", WRONG).status_code == 200
    # A fourth way in, another address: the account is locked everywhere.
    elsewhere = Client(REMOTE_ADDR="10.0.0.9")
    assert_page_refused(admin_login(elsewhere, "ada", PASSWORD), ACCOUNT_LOCKED)
    assert_page_refused(form_login(elsewhere, "ada", PASSWORD), ACCOUNT_LOCKED)
    assert api_login(Client(REMOTE_ADDR="10.0.0.7"), "ada", PASSWORD).status_code == 429


def test_an_address_is_limited_across_accounts(settings, django_user_model):
    settings.RATE_LIMIT_LOGINS = "3/hour"
    settings.RATE_LIMIT_ACCOUNT_LOGINS = "off"
    django_user_model.objects.create_user("bob", password=PASSWORD)
    browser = Client()
    for name in ("ann", "cid", "dee"):
        assert form_login(browser, name, WRONG).status_code == 200
    assert_page_refused(form_login(browser, "bob", PASSWORD), ADDRESS_LOCKED)
    refused = api_login(browser, "bob", PASSWORD)
    assert refused.status_code == 429 and refused.json()["detail"].startswith(ADDRESS_LOCKED)
    # Another address is not limited.
    assert form_login(Client(REMOTE_ADDR="10.0.0.2"), "bob", PASSWORD).status_code == 302


def test_successful_logins_are_not_counted(ada, settings):
    settings.RATE_LIMIT_ACCOUNT_LOGINS = "2/hour"
    settings.RATE_LIMIT_LOGINS = "2/hour"
    for _ in range(5):
        assert form_login(Client(), "ada", PASSWORD).status_code == 302
        assert api_login(Client(), "ada", PASSWORD).status_code == 200


def test_allauth_s_own_login_limits_are_off_so_the_site_s_is_the_only_one(ada):
    """With the site's limits off (as in these tests), no other limit locks the account."""
    browser = Client()
    for _ in range(12):
        assert form_login(browser, "ada", WRONG).status_code == 200
    assert form_login(browser, "ada", PASSWORD).status_code == 302


def test_the_default_limits_are_set_and_documented():
    # The suite turns limits off (tests/conftest.py); the settings module sets real ones.
    from django.conf import settings as django_settings

    import config.settings as defaults
    from games.limits import parse_rate

    assert parse_rate(defaults.RATE_LIMIT_LOGINS) is not None
    assert parse_rate(defaults.RATE_LIMIT_ACCOUNT_LOGINS) is not None
    assert parse_rate(defaults.RATE_LIMIT_SIGNUPS) is not None
    assert django_settings.ACCOUNT_RATE_LIMITS["login_failed"] is None


# -- sign-ups --------------------------------------------------------------------------------


def sign_up(client, username):
    return client.post(
        "/accounts/signup/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
    )


def api_sign_up(client, username):
    return client.post(
        "/api/accounts", {"username": username, "password": PASSWORD}, "application/json"
    )


def test_sign_ups_share_one_limit_per_address_with_retry_after(settings):
    settings.RATE_LIMIT_SIGNUPS = "2/hour"
    assert sign_up(Client(), "ann").status_code == 302
    assert api_sign_up(Client(), "bob").status_code == 201
    refused = sign_up(Client(), "cid")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert "Too many sign-ups from this address" in page_text(refused)
    assert 'name="username"' in page_text(refused)
    refused = api_sign_up(Client(), "dee")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused.json()["detail"].startswith("Too many sign-ups from this address")
    assert sorted(get_user_model().objects.values_list("username", flat=True)) == ["ann", "bob"]
