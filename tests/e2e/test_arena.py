"""Issue 29, item 2, in the browser: a short arena (a tournament's minute shortened to 3 s by
ARENA_MINUTE_S) where two people join from the tournament's page, are seated together by the
pool's pairing, see the standings change live as their game ends (no reload), and see the
podium once it has finished. Screenshots at 1280x800 and 390x844, light and dark."""

from __future__ import annotations

import os

import pytest

from tests.conftest import Server
from tests.e2e.conftest import E2E, PHONE, watched_page
from tests.e2e.test_leaving import log_in

pytestmark = E2E
SHOTS = os.environ.get("ARENA_SHOTS")
DESKTOP = {"width": 1280, "height": 800}

SETUP = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from games import tournaments
for name in ("ann", "bob"):
    get_user_model().objects.create_user(name, password="correct horse battery")
t = tournaments.tournament_create(
    user=None, kind="square", options={"mode": "square"}, starts_at=timezone.now(), minutes=10,
)
print(t.pk)
"""

# Play the tournament's one game to its end through the API of the server (so its process
# commits it, scores it and pushes the standings): seat 1 places, seat 2 passes.
PLAY = """
import json, random, urllib.request
from games.models import Game, Seat
from squaregame.engine import GameState, choose_move
game = Game.objects.get(tournament_link__tournament_id={tid})
seats = list(Seat.objects.filter(game=game).order_by("number"))
for turn in range(400):
    game.refresh_from_db()
    if game.status == Game.Status.OVER:
        break
    state = GameState.from_dict(game.state["game"])
    seat = seats[state.to_move - 1]
    places = state.to_move == 1 or not state.started
    action = choose_move(state, random.Random(turn)) if places else {{"type": "pass"}}
    request = urllib.request.Request(
        "{url}/api/games/%d/moves" % game.pk, data=json.dumps(action).encode(), method="POST",
        headers={{"Authorization": "Token " + seat.token, "Content-Type": "application/json"}},
    )
    urllib.request.urlopen(request).read()
print(seats[0].name)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of this module's own, its tournament minutes 6 s long (10 minutes: 60 s: the
    logins, the pairing's wait limit of 10 s, a game played by a shell and the checks fit in it
    on a busy machine)."""
    running = Server(tmp_path_factory.mktemp("arena"), ARENA_MINUTE_S="6").start()
    yield running
    running.stop()


def shot(page, name: str) -> None:
    if SHOTS:
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            page.screenshot(path=os.path.join(SHOTS, f"{name}-{scheme}.png"), full_page=True)
        page.emulate_media(color_scheme="light")


def standings(page) -> dict[str, str]:
    """Each player's points as the standings show them, read in one pass of the page's own
    script: a frame may redraw the table at any moment (the last games of an ended arena are
    scored after its end), and rows read one by one across a redraw could see a player twice
    and miss another as the ranks move."""
    return dict(
        page.eval_on_selector_all(
            "#standings tr",
            "rows => rows.map(r => [r.dataset.player,"
            " r.querySelector('td.arena-points').innerText])",
        )
    )


def test_two_people_join_an_arena_see_the_standings_live_and_the_podium(browser, server):
    tid = int(server.shell(SETUP).splitlines()[-1])
    with (
        watched_page(browser, DESKTOP) as (ann, ann_errors),
        watched_page(browser, PHONE) as (bob, bob_errors),
    ):
        log_in(ann, server, "ann")
        log_in(bob, server, "bob")
        for page in (ann, bob):
            page.goto(f"{server.url}/tournaments/{tid}/")
            page.wait_for_selector("#connection[data-state=live]")
            page.wait_for_selector("#countdown:has-text('Ends in')")
        ann.click("#join")
        ann.wait_for_selector("#standings tr[data-player=ann]")
        # bob's page hears ann's join, pushed.
        bob.wait_for_selector("#standings tr[data-player=ann]")
        shot(ann, "arena-waiting-desktop")
        bob.click("#join")
        # The pairing seats the two together within its wait limit (10 s): both see the table.
        for page in (ann, bob):
            page.wait_for_selector("#my-game", timeout=30_000)
        shot(bob, "arena-playing-phone")
        winner = server.shell(PLAY.format(tid=tid, url=server.url)).splitlines()[-1]
        loser = "bob" if winner == "ann" else "ann"
        # The standings change on both pages without a reload: the winner has 1 point. ann
        # pauses as soon as she sees it (the two are not seated together again: the pool seats
        # two after its wait limit of 10 s).
        ann.wait_for_selector(f"#standings tr[data-player={winner}] td.arena-points:text-is('1')")
        ann.click("#pause")
        ann.wait_for_selector("#join:has-text('Come back')")
        for page in (ann, bob):
            page.wait_for_selector(
                f"#standings tr[data-player={winner}] td.arena-points:text-is('1')"
            )
            assert standings(page)[loser] == "0"
            assert page.locator("#standings tr").first.get_attribute("data-player") == winner
        # A player's games, opened from the standings.
        ann.click(f"#standings tr[data-player={winner}] .player-name")
        ann.wait_for_selector("#player-games-list li:has-text('place 1')")
        shot(ann, "arena-standings-desktop")
        # The arena ends: the podium.
        for page in (ann, bob):
            page.wait_for_selector("#countdown:has-text('Finished')", timeout=75_000)
            page.wait_for_selector("#podium:not([hidden]) .step-1", timeout=15_000)
            assert page.locator("#podium .step-1 .podium-name").inner_text() == winner
        assert ann.locator("#join").count() == 0  # finished: nothing to join
        shot(ann, "arena-podium-desktop")
        shot(bob, "arena-podium-phone")
        ann.goto(f"{server.url}/tournaments/")
        ann.wait_for_selector(f"tr[data-tournament='{tid}']")
        shot(ann, "arena-list-desktop")
        ann.goto(f"{server.url}/u/{winner}")
        ann.wait_for_selector("#profile-tournaments td:text-is('1')")
        assert not ann_errors and not bob_errors, (ann_errors, bob_errors)
