"""Issue 29's "done when", its arena: a 10-minute arena (its minutes shortened to 4 s by
ARENA_MINUTE_S: 40 s) with eight bots (examples/bot.py, each its own process, joined by
SETGAMES_ARENA) and two people in two browsers runs to its end, with the standings changing live
in both browsers and the podium at the end; nobody sat at two of its tables at once, and the
standings equal a recount from the games themselves."""

from __future__ import annotations

import uuid

import pytest

from tests.bots.playing import account, call, running_bots, until
from tests.conftest import Server
from tests.e2e.conftest import E2E, PHONE, watched_page
from tests.e2e.test_arena import standings
from tests.e2e.test_leaving import log_in

pytestmark = E2E
DESKTOP = {"width": 1280, "height": 800}
BOTS = 8

SETUP = """
import datetime
from django.contrib.auth import get_user_model
from django.utils import timezone
from games import tournaments
for name in ("ann", "bob"):
    get_user_model().objects.create_user(name, password="correct horse battery")
t = tournaments.tournament_create(
    user=None, kind="set", options={"mode": "set-classic"},
    starts_at=timezone.now() + datetime.timedelta(seconds=8), minutes=10, open_to_bots=True,
)
print(t.pk)
"""

# The standings recounted from the games: each finished game of the tournament ranked by its
# rules from its final state, scored in the order the games finished (a streak runs across a
# player's games), summed per player; then no player has two unfinished games of it.
RECOUNT = """
from collections import Counter, defaultdict
from games import arena, arena_scoring
from games.models import Game, Seat, TournamentGame, TournamentPlayer
links = TournamentGame.objects.filter(tournament_id={tid}).select_related("game")
points, games, streaks = defaultdict(float), Counter(), defaultdict(int)
unfinished = Counter()
over = sorted(
    (link.game for link in links if link.game.status == Game.Status.OVER),
    key=lambda game: (game.finished, game.pk),
)
for link in links:
    if link.game.status != Game.Status.OVER:
        for seat in Seat.objects.filter(game=link.game).select_related("player"):
            unfinished[seat.player.user_id] += 1
for game in over:
    seats = list(Seat.objects.filter(game=game).select_related("player").order_by("number"))
    users = {{seat.name: seat.player.user_id for seat in seats if seat.player.user_id}}
    ranks = arena.ranks_of(game.kind, game.options, game.state, list(users))
    before = {{name: streaks[users[name]] for name in users}}
    for score in arena_scoring.score_game(ranks, before):
        user = users[score.who]
        points[user] += score.points
        games[user] += 1
        streaks[user] = score.streak
standing = {{
    p.user_id: (p.points, p.games) for p in TournamentPlayer.objects.filter(tournament_id={tid})
}}
recount = {{user: (points[user], games[user]) for user in standing}}
print("finished", len(over), "twice", max(unfinished.values(), default=0))
print("equal" if recount == standing else f"differ {{recount}} {{standing}}")
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of this module's own, its tournament minutes 4 s long (10 minutes: 40 s)."""
    running = Server(tmp_path_factory.mktemp("arena-bots"), ARENA_MINUTE_S="4").start()
    yield running
    running.stop()


def test_eight_bots_and_two_people_play_an_arena_to_its_podium(browser, server, tmp_path):
    tid = int(server.shell(SETUP).splitlines()[-1])
    names = [f"ab{uuid.uuid4().hex[:6]}" for _ in range(BOTS)]
    running = []
    for name in names:
        token = account(server, name)
        status, body = call(server, "POST", "/api/bot/account/upgrade", token)
        assert status == 200, body
        running.append(
            (name, token, server.url, {"SETGAMES_DELAY": "0.3", "SETGAMES_ARENA": str(tid)})
        )
    with running_bots(tmp_path, running):
        with (
            watched_page(browser, DESKTOP) as (ann, ann_errors),
            watched_page(browser, PHONE) as (bob, bob_errors),
        ):
            for page, name in ((ann, "ann"), (bob, "bob")):
                log_in(page, server, name)
                page.goto(f"{server.url}/tournaments/{tid}/")
                page.wait_for_selector("#connection[data-state=live]")
                page.click("#join")
                page.wait_for_selector(f"#standings tr[data-player={name}]")
            # Every bot joined (each its own process): ten players in the standings.
            for page in (ann, bob):
                page.wait_for_function(
                    "n => document.querySelectorAll('#standings tr').length === n",
                    arg=BOTS + 2,
                    timeout=30_000,
                )
            # The bots' games end and the standings change on both pages, no reload.
            for page in (ann, bob):
                page.wait_for_function(
                    "() => [...document.querySelectorAll('#standings td.arena-points')]"
                    ".some(cell => parseFloat(cell.textContent) > 0)",
                    timeout=60_000,
                )
            # The arena ends (40 s after its start): the podium, on both pages.
            for page in (ann, bob):
                page.wait_for_selector("#countdown:has-text('Finished')", timeout=90_000)
                page.wait_for_selector("#podium:not([hidden]) .step-1", timeout=30_000)
            # The bots, quick at Set, lead the people who only watch. (The games still being
            # played when it ended finish and count: the pages may differ for a moment.)
            for page in (ann, bob):
                assert page.locator("#podium .step-1 .podium-name").inner_text() in names
                assert set(standings(page)) == {*names, "ann", "bob"}
            assert not ann_errors and not bob_errors, (ann_errors, bob_errors)

        # The games the bots were still at when the arena ended finish and count: recount once
        # no bot is at a game of it any more.
        def settled():
            lines = server.shell(RECOUNT.format(tid=tid)).splitlines()
            return lines if lines[-1] == "equal" else None

        lines = until(settled, 60, step=2)
        finished, _, twice = lines[-2].split()[1:]
        assert int(finished) >= 2  # the bots' tables of the arena were played to their ends
        assert int(twice) <= 1  # nobody at two unfinished tables of it
