"""Leaving a rated game in real browsers at the tables other than Set classic (issue 28, item 4):
at a rated Square Game, Bob (whose turn it is: he makes the opening) closes his page; once the
table's away time has passed Ann is offered "End the game: bob left", ends it and wins; at a
rated Set declare table the same control ends it with Bob last."""

from __future__ import annotations

import os

import pytest

from tests.conftest import Server
from tests.e2e.conftest import DESKTOP, E2E, PHONE, watched_page
from tests.e2e.test_leaving import PASSWORD, bob_comes_then_closes_his_page, open_live

pytestmark = E2E

SHOTS = os.environ.get("GATES_SHOTS") or "test-artifacts"

SETUP = f"""
from django.contrib.auth import get_user_model
from games import services
from games.models import Player

users = get_user_model().objects
def account(name):
    return Player.objects.create(name=name, user=users.create_user(name, password={PASSWORD!r}))

ann, bob = account("ann"), account("bob")
square = services.game_create(
    kind="square", options={{"players": 2, "away_ms": 10000}}, rated=True, is_open=True
)
for player in (ann, bob):
    services.game_join(game_id=square.pk, player=player)
declare = services.game_create(
    kind="set", options={{"rules": "declare", "away_ms": 2000}}, rated=True, is_open=True
)
seats = [services.game_join(game_id=declare.pk, player=p) for p in (ann, bob)]
services.move_submit(game_id=declare.pk, seat=seats[0], action={{"type": "start"}})
print(square.pk, declare.pk)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = Server(tmp_path_factory.mktemp("leaving-tables"), SET_WATCH_TIMEOUT_S="3").start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def games(server):
    square, declare = server.shell(SETUP).splitlines()[-1].split()
    return int(square), int(declare)


def shot(page, name: str) -> None:
    os.makedirs(SHOTS, exist_ok=True)
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"))


def test_a_rated_square_game_is_ended_when_the_seat_to_move_left(browser, server, games):
    square, _ = games
    with watched_page(browser, PHONE) as (ann, ann_errors):
        open_live(ann, server, "ann", f"/square/{square}/")
        with watched_page(browser, DESKTOP) as (bob, _):
            open_live(bob, server, "bob", f"/square/{square}/")
            ann.wait_for_timeout(1500)
            assert ann.locator("#leavers button").count() == 0  # bob is here
        # Bob's page is closed on his turn: after the table's away time Ann may end the game.
        button = ann.locator("#leavers button:has-text('End the game: bob left')")
        button.wait_for(timeout=30_000)
        shot(ann, "square-end-left-phone")
        button.click()
        ann.locator("#turn:has-text('Game over')").wait_for()
        turn = ann.locator("#turn").inner_text()
        assert "Winner: ann." in turn and "bob left the game." in turn
        assert ann.locator("#leavers").is_hidden()
        assert not ann_errors


def test_a_rated_declare_table_is_ended_when_a_player_left(browser, server, games):
    _, declare = games
    with watched_page(browser, DESKTOP) as (ann, ann_errors):
        open_live(ann, server, "ann", f"/play/{declare}/")
        bob_comes_then_closes_his_page(browser, server, ann, f"/play/{declare}/")
        button = ann.locator("#leavers button:has-text('End the game: bob left')")
        button.wait_for(timeout=15_000)
        shot(ann, "declare-end-left-desktop")
        button.click()
        ann.wait_for_selector("#leavers", state="hidden")
        ann.wait_for_function("() => /over/i.test(document.getElementById('turn').innerText)")
        assert not ann_errors
