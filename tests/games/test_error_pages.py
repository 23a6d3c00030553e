"""Issue 17, rough edges: a missing page, an unknown game and a server error show the site's
own pages (under its CSP), never Django's debug pages, unless a developer turns DEBUG on."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from config import settings as project_settings

pytestmark = pytest.mark.django_db


def assert_friendly(response, status: int, *words: str):
    assert response.status_code == status
    html = response.content.decode()
    for word in words:
        assert word in html, html[:600]
    assert "Django" not in html and "Traceback" not in html
    # Nothing the Content-Security-Policy would block: no inline style, no inline script.
    assert "<style" not in html and " style=" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)


def test_make_run_shows_no_debug_pages_unless_a_developer_asks():
    assert project_settings.DEBUG is False  # the default: DJANGO_DEBUG=1 turns them on


@pytest.mark.parametrize(
    "path, words",
    [
        ("/play/999999/", ["There is no game with id 999999.", "the lobby"]),
        ("/games/999999/replay/", ["There is no game with id 999999."]),
        ("/u/nobody", ["There is no account named &#x27;nobody&#x27;."]),
        ("/leaderboard/chess/", ["There is no rated mode &#x27;chess&#x27;"]),
        ("/accounts/no-such-page/", ["There is no page at this address."]),
    ],
)
def test_a_missing_page_or_game_is_a_friendly_404(client, path, words):
    assert_friendly(client.get(path), 404, "Nothing here", *words)


def test_a_server_error_is_a_friendly_500(monkeypatch):
    from games import selectors

    def broken(mode):
        raise RuntimeError("a bug")

    monkeypatch.setattr(selectors, "leaderboard", broken)
    client = Client(raise_request_exception=False)
    assert_friendly(client.get("/leaderboard/"), 500, "Something went wrong", "back to the lobby")


def test_a_form_without_its_csrf_token_is_a_friendly_403():
    client = Client(enforce_csrf_checks=True)
    assert_friendly(client.post("/name", {"name": "ada"}), 403, "Please try again")
