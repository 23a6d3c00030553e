"""Bad input to the accounts' own pages and API (issue 23): a NUL byte, an over-long value or a
value of the wrong type gets a 400 naming what is wrong, never a 500, and writes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import AccessToken

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery"


@pytest.fixture
def browser():
    user = get_user_model().objects.create_user("ada", password=PASSWORD)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def text(response) -> str:
    return response.content.decode().replace("&#x27;", "'")


@pytest.mark.parametrize(
    "name, message",
    [
        ("my\x00bot", "Null characters are not allowed."),
        ("x" * 41, "A token's name has at most 40 characters"),
        ("   ", "Give the token a name"),
        ("", "Give the token a name"),
    ],
)
def test_a_bad_token_name_is_a_400_with_the_message_and_makes_no_token(browser, name, message):
    refused = browser.post("/accounts/tokens/", {"name": name})
    assert refused.status_code == 400
    assert message in text(refused)
    assert 'name="name"' in text(refused)  # the page, with its form
    assert not AccessToken.objects.exists()


@pytest.mark.parametrize("revoke", ["1\x00", "99999999999999999999999999", "-1", "x", ""])
def test_revoking_a_token_that_is_no_token_says_so_and_never_fails(browser, revoke):
    row = AccessToken.objects.create(
        user=get_user_model().objects.get(), name="kept", digest="0" * 64
    )
    answer = browser.post("/accounts/tokens/", {"revoke": revoke}, follow=True)
    assert answer.status_code == 200
    assert "You have no such token to revoke." in text(answer)
    row.refresh_from_db()
    assert row.revoked is None


@pytest.mark.parametrize(
    "body",
    [
        {"username": "ada\x00", "password": PASSWORD},
        {"username": "ada", "password": "pass\x00word long enough"},
        {"username": ["ada"], "password": PASSWORD},
        {"username": {"a": 1}, "password": PASSWORD},
        {"username": "a" * 151, "password": PASSWORD},
        {"username": True, "password": PASSWORD},
    ],
)
@pytest.mark.parametrize("path", ["/api/accounts", "/api/auth/token"])
def test_the_accounts_api_refuses_bad_credentials_with_a_400(client, path, body):
    answer = client.post(path, body, "application/json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["detail"]
    assert get_user_model().objects.count() == 0
