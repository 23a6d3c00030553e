"""Leaving rated games in real browsers (issue 28, item 4): "a player who leaves rated games three
times waits before the next". Bob's first two leaves are made in the server's store (as two
finished rated games ended by end_left); the third happens here: Bob closes his page at a rated
table, Ann is offered "End the game: bob left" once the table's away time has passed and ends it;
Bob's next rated table is refused with why and until when, and his profile says so."""

from __future__ import annotations

import os

import pytest

from tests.conftest import Server
from tests.e2e.conftest import E2E, PHONE, watched_page

pytestmark = E2E

PASSWORD = "correct horse battery"
SHOTS = os.environ.get("GATES_SHOTS")
DESKTOP = {"width": 1280, "height": 800}

SETUP = f"""
from django.contrib.auth import get_user_model
from cards.engine.table.base import AWAY_MS, START_MS
from games import services
from games.models import Player

users = get_user_model().objects
def account(name):
    return Player.objects.create(name=name, user=users.create_user(name, password={PASSWORD!r}))

ann, bob = account("ann"), account("bob")
now = services.now_ms()
for n in range(2):  # bob's first two leaves
    stayer = account(f"stayer{{n}}")
    game = services.game_create(
        kind="set", options={{"rules": "classic"}}, rated=True, is_open=True, now=now
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=now) for p in (stayer, bob)]
    services.move_submit(game_id=game.pk, seat=seats[0], action={{"type": "start"}}, now=now)
    services.game_tick(game_id=game.pk, now=now + START_MS)
    services.move_submit(
        game_id=game.pk, seat=seats[0], action={{"type": "end_left", "seat": "bob"}},
        now=now + START_MS + AWAY_MS + 1000,
    )
# The third: a rated table whose away time is two seconds.
game = services.game_create(
    kind="set", options={{"rules": "classic", "away_ms": 2000}}, rated=True, is_open=True
)
seats = [services.game_join(game_id=game.pk, player=p) for p in (ann, bob)]
services.move_submit(game_id=game.pk, seat=seats[0], action={{"type": "start"}})
print(game.pk)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of this module's own: its accounts (ann, bob) are no other test's."""
    running = Server(tmp_path_factory.mktemp("leaving"), SET_WATCH_TIMEOUT_S="3").start()
    yield running
    running.stop()


def log_in(page, server, name: str) -> None:
    page.goto(server.url + "/accounts/login/")
    page.fill("#id_login", name)
    page.fill("#id_password", PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_selector(f".account-nav .account-name:has-text('{name}')")


def open_live(page, server, name: str, path: str) -> None:
    """`name` signs in and opens `path`, its socket live."""
    log_in(page, server, name)
    page.goto(f"{server.url}{path}")
    page.wait_for_selector("#connection[data-state=live]")


def bob_comes_then_closes_his_page(browser, server, ann, path: str) -> None:
    """Bob opens the table at `path` on a phone: ann sees him here, and nobody to end the game
    for; then his page is closed."""
    with watched_page(browser, PHONE) as (bob, _):
        open_live(bob, server, "bob", path)
        ann.wait_for_selector("#scores li[data-player=bob] :text('here')")
        assert ann.locator("#leavers button").count() == 0  # bob is here


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"))


def test_a_player_who_leaves_rated_games_three_times_waits_before_the_next(browser, server):
    game_id = int(server.shell(SETUP).splitlines()[-1])
    with watched_page(browser, DESKTOP) as (ann, ann_errors):
        open_live(ann, server, "ann", f"/play/{game_id}/")
        bob_comes_then_closes_his_page(browser, server, ann, f"/play/{game_id}/")
        # Bob's page is closed: after the table's away time, Ann may end the game.
        button = ann.locator("#leavers button:has-text('End the game: bob left')")
        button.wait_for(timeout=15_000)
        shot(ann, "table-end-left-desktop")
        button.click()
        ann.wait_for_selector("#leavers", state="hidden")
        ann.wait_for_function("/over/i.test(document.getElementById('turn').innerText)")
        assert not ann_errors

    with watched_page(browser, DESKTOP) as (bob, errors):
        log_in(bob, server, "bob")
        bob.goto(server.url + "/")
        if bob.locator("#new-table:not([open]) > summary").count():
            bob.click("#new-table > summary")
        bob.check("#rated")
        bob.click("button:has-text('Create table')")
        refusal = bob.locator("text=You left 3 rated games in the last 24 hours")
        refusal.wait_for()
        assert "you can play rated again in 10 minutes" in refusal.inner_text()
        assert "/play/" not in bob.url.split("#")[0].replace("/play/new", "")
        refusal.scroll_into_view_if_needed()
        shot(bob, "lobby-rated-wait-desktop")
        bob.goto(server.url + "/u/bob")
        wait = bob.locator("#rated-wait")
        assert "You left 3 rated games in the last 24 hours" in " ".join(wait.inner_text().split())
        assert "10 minutes" in wait.inner_text()
        shot(bob, "profile-rated-wait-desktop")
        bob.set_viewport_size(PHONE)
        wait.scroll_into_view_if_needed()
        shot(bob, "profile-rated-wait-phone")
        assert not errors
