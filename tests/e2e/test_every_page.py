"""Every page under the site's strict Content-Security-Policy, in a real browser.

The policy (config/settings.py) allows scripts, styles, images and sockets only from the site
itself: no inline script, handler or style. Each page here is opened as a person would, and the
console must show no violation; our pages' scripts are ES modules, so they leave no global
behind either (the admin's and Swagger UI's own libraries do define theirs).
"""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.e2e.conftest import DESKTOP, E2E, WAIT_MS

pytestmark = E2E


def _create(server, body: dict) -> int:
    request = urllib.request.Request(
        server.url + "/api/games/",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)["id"]


@pytest.fixture(scope="module")
def site(browser, server):
    """A set table, a Square Game, a staff account, and one browser context to visit them."""
    ids = {
        "set": _create(
            server, {"kind": "set", "open": True, "options": {"start": "now", "rules": "classic"}}
        ),
        "declare": _create(server, {"kind": "set", "open": True, "options": {"start": "now"}}),
        "square": _create(server, {"kind": "square", "open": True, "options": {"players": 2}}),
    }
    server.shell(
        "from django.contrib.auth import get_user_model\n"
        "get_user_model().objects.create_superuser('root', password='x' * 12)"
    )
    ids["tournament"] = server.shell(
        "from django.utils import timezone\n"
        "from games import tournaments\n"
        "print(tournaments.tournament_create(user=None, kind='square', options={}, "
        "starts_at=timezone.now(), minutes=10).pk)"
    ).splitlines()[-1]
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    # What a document of the site with no script has (a secure context gets more than about:blank).
    page.goto(server.url + "/healthz")
    blank = set(page.evaluate("Object.keys(window)"))
    violations: list[str] = []

    def console(message):
        # A violation, a module that fails to load, any script error: none is allowed.
        if message.type == "error":
            violations.append(f"{page.url}: {message.text}")

    page.on("console", console)
    violations.clear()
    page.on("pageerror", lambda error: violations.append(f"{page.url}: {error}"))
    yield server, ids, page, blank, violations
    context.close()


OUR_PAGES = [
    "/",
    "/solitaire/",
    "/puzzle/",
    "/races/",
    "/setwar/",
    "/square/",
    "/play/{set}/",
    "/play/{declare}/?join=1",
    "/games/{set}/replay/",
    "/games/{square}/replay/",
    "/square/{square}/",
    "/accounts/signup/",
    "/accounts/login/",
    "/leaderboard/",
    "/leaderboard/square/",
    "/u/root",
    "/stats/",
    "/tournaments/",
    "/tournaments/{tournament}/",
]


@pytest.mark.parametrize("path", OUR_PAGES)
def test_our_pages_break_no_policy_and_define_no_global(site, path):
    server, ids, page, blank, violations = site
    violations.clear()
    page.goto(server.url + path.format(**ids))
    page.wait_for_load_state("networkidle")
    assert not violations, "\n".join(violations)
    added = set(page.evaluate("Object.keys(window)")) - blank
    assert not added, f"globals defined on {path}: {sorted(added)}"
    header = page.evaluate(
        "fetch(location.href).then(r => r.headers.get('content-security-policy'))"
    )
    assert "script-src 'self'" in header and "unsafe-inline" not in header


def test_the_api_docs_and_the_admin_break_no_policy(site):
    server, ids, page, _, violations = site
    violations.clear()
    page.goto(server.url + "/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock")
    page.goto(server.url + "/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "x" * 12)
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    for path in (
        "/admin/",
        "/admin/games/game/",
        "/admin/games/game/{set}/change/",
        "/admin/games/game/{square}/change/",
        "/admin/games/game/import-save/",
        "/admin/games/report/",
        "/admin/games/moderationlogentry/",
        "/admin/auth/user/",  # last: an account is opened from its list below
    ):
        page.goto(server.url + path.format(**ids))
        page.wait_for_load_state("networkidle")
    page.click("#result_list a:text-is('root')")  # an account's page: ratings, games, tokens
    page.wait_for_selector("#content h2, #content-main")
    page.wait_for_load_state("networkidle")
    assert not violations, "\n".join(violations)


def test_the_account_pages_of_a_signed_in_account_break_no_policy(site):
    server, ids, page, blank, violations = site
    violations.clear()
    page.goto(server.url + "/accounts/login/")
    if page.locator("#id_login").count():  # not yet signed in by an earlier test
        page.fill("#id_login", "root")
        page.fill("#id_password", "x" * 12)
        page.click("form.account-form button[type=submit]")
        page.wait_for_selector(".account-name")
    paths = (
        "/accounts/password/change/",
        "/accounts/tokens/",
        "/u/root",
        "/moderation/",  # staff moderate (issue 28)
        "/accounts/logout/",
    )
    for path in paths:
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        assert not set(page.evaluate("Object.keys(window)")) - blank
    assert not violations, "\n".join(violations)
