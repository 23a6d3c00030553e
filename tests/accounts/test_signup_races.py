"""Sign-ups of one name at the same moment (issue 23): exactly one account is made, with its name
row; every other sign-up is told the name is taken (the form's error on the name, or a 409 naming
it), never a 500. Threads on the test database (SQLite, or PostgreSQL in the scaled run), and two
server processes on one store."""

from __future__ import annotations

import http.cookiejar
import json
import re
import unicodedata
import urllib.error
import urllib.parse
import urllib.request

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import AccountName
from games.models import Player
from tests.conftest import Server
from tests.games.test_races import run_at_once

PASSWORD = "correct horse battery"
# One name as people type it: in other cases, decomposed, and with a Cyrillic look-alike.
FORMS = ["zoëab0c33", "Zoëab0C33", "ZOËAB0C33", "zoe\u0308ab0c33", "zo\u0451ab0c33"]


def form_sign_up(name):
    client = Client(raise_request_exception=False)
    response = client.post(
        "/accounts/signup/", {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    )
    return "form", name, response


def api_sign_up(name):
    client = Client(raise_request_exception=False)
    response = client.post(
        "/api/accounts", {"username": name, "password": PASSWORD}, "application/json"
    )
    return "api", name, response


def assert_one_account_and_the_others_told(outcomes):
    made = []
    for way, name, response in outcomes:
        status = response.status_code
        assert status != 500, (way, name)
        if (way, status) in (("form", 302), ("api", 201)):
            made.append(name)
        elif way == "form":
            assert status == 200, (way, name, status)
            assert "username" in response.context["form"].errors, response.context["form"].errors
        else:
            assert status == 409, (way, name, status, response.content)
            assert "already exists" in response.json()["detail"], response.json()
    assert len(made) == 1, made
    users = get_user_model().objects.all()
    assert [user.username for user in users] == [unicodedata.normalize("NFC", made[0])]
    # The one account has its name row and, signed up by the form, its player.
    assert AccountName.objects.filter(user__in=users).count() == 1
    assert AccountName.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_simultaneous_sign_ups_of_one_name_make_one_account_and_no_500():
    count = 10
    ways = [form_sign_up if i % 2 else api_sign_up for i in range(count)]
    results = run_at_once(lambda i: ways[i](FORMS[i % len(FORMS)]), count)
    assert all(kind == "ok" for kind, _ in results), results
    assert_one_account_and_the_others_told([value for _, value in results])
    players = Player.objects.filter(user__isnull=False)
    assert players.count() <= 1  # the form's winner plays as its account; nobody else does


# -- two server processes on one store --------------------------------------------------------


class Browser:
    """A browser of its own (cookies, the CSRF token) against a server."""

    def __init__(self, url):
        self.url = url
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
            NoRedirect,
        )

    def open(self, path, data=None, headers=None):
        request = urllib.request.Request(self.url + path, data=data, headers=headers or {})
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def ready(self):
        _, page = self.open("/accounts/signup/")
        self.csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    def sign_up(self, name):
        body = urllib.parse.urlencode(
            {
                "csrfmiddlewaretoken": self.csrf,
                "username": name,
                "password1": PASSWORD,
                "password2": PASSWORD,
            }
        ).encode()
        return self.open("/accounts/signup/", body, {"Referer": self.url + "/accounts/signup/"})

    def api_sign_up(self, name):
        body = json.dumps({"username": name, "password": PASSWORD}).encode()
        return self.open("/api/accounts", body, {"Content-Type": "application/json"})


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@pytest.mark.slow
@pytest.mark.xdist_group("servers")
def test_sign_ups_split_over_two_server_processes_make_one_account(tmp_path):
    first = Server(tmp_path, RATE_LIMIT_SIGNUPS="off").start()
    second = Server(tmp_path, like=first, RATE_LIMIT_SIGNUPS="off").start()
    try:
        for trial in range(2):
            name = f"zoëab{trial}c33"
            names = [name, name.upper(), name.title(), name.replace("o", "\u043e")]
            count = 12
            browsers = [Browser((first, second)[i % 2].url) for i in range(count)]
            for browser in browsers:
                browser.ready()

            def act(i, names=names, browsers=browsers):
                browser, typed = browsers[i], names[i % len(names)]
                if i % 3 == 0:
                    return ("api", typed, *browser.api_sign_up(typed))
                return ("form", typed, *browser.sign_up(typed))

            results = run_at_once(act, count)
            assert all(kind == "ok" for kind, _ in results), results
            outcomes = [value for _, value in results]
            assert all(status != 500 for _, _, status, _ in outcomes), outcomes
            made = [o for o in outcomes if o[2] in (201, 302)]
            assert len(made) == 1, outcomes
            for way, typed, status, body in outcomes:
                if (way, status) in (("api", 201), ("form", 302)):
                    continue
                if way == "api":
                    assert status == 409 and "already exists" in body, (typed, status, body)
                else:
                    assert status == 200 and "already" in body.replace("&#x27;", "'"), status
            counted = first.shell(
                "from django.contrib.auth import get_user_model;"
                "from accounts.models import AccountName;"
                "users = get_user_model().objects.filter(bot__isnull=True);"
                "names = AccountName.objects.filter(user__bot__isnull=True);"
                "print(users.count(), names.count())"
            )
            assert counted == f"{trial + 1} {trial + 1}", counted
    finally:
        second.stop()
        first.stop()
