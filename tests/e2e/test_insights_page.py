"""A profile's insights in a real browser (headless Debian chromium), under the site's strict
Content-Security-Policy: a player with a few finished games sees the trend and the charts by kind
of set, board size and time since the last deal, with the kinds they miss most; the Practise
button lands at a practice table that deals those more often. Screenshots of the insights, wide
and on a phone, light and dark, go to test-artifacts/."""

from __future__ import annotations

from tests.e2e.conftest import ARTIFACTS, E2E, PHONE, watched_page

pytestmark = E2E
PASSWORD = "correct horse battery"
WIDE = {"width": 1280, "height": 800}

# Two accounts play four classic tables to their end: insightful finds most sets, at times 1 to
# 40 s apart, and claims wrong now and then (three board cards that are not a set).
PLAY_GAMES = """
from django.contrib.auth import get_user_model
from cards.engine.fast import is_set_codes
from cards.engine.table.codes import code_of
from games import services
from games.models import Game, Player
from games.rules import get_rules
users = get_user_model().objects
players = [
    Player.objects.create(name=name, user=users.create_user(name, password=PASSWORD))
    for name in ('insightful', 'rival')
]
rules = get_rules('set')
at = 1_700_000_000_000
for number in range(4):
    game = services.game_create(
        kind='set', options={'rules': 'classic', 'start': 'now'}, now=at, is_open=True
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=at) for p in players]
    for turn in range(200):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        seat = seats[0] if turn % 4 else seats[1]
        at += 1000 + (turn * 7919 % 40) * 1000
        board = [view['card'] for view in rules.view(game.state, seat.name, at)['board']]
        codes = [code_of(card, 4) for card in board[:3]]
        if turn % 9 == 4 and not is_set_codes(*codes):
            action = {'type': 'claim', 'cards': board[:3]}
        else:  # a seat locked out by its wrong claim leaves the set to the other
            if not rules.bot_actions(game.state, seat.name):
                seat = seats[1] if seat is seats[0] else seats[0]
            action = rules.bot_actions(game.state, seat.name)[0]
        services.move_submit(game_id=game.pk, seat=seat, action=action, now=at)
    at += 60_000
print(Game.objects.filter(status='over').count())
""".replace("PASSWORD", repr(PASSWORD))


def _screens(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for theme in ("light", "dark"):
        page.locator("#insights").screenshot(path=str(ARTIFACTS / f"insights-{name}-{theme}.png"))
        for part in (".insight-missed", ".insight-trend", "[data-split=kind]"):
            shot = ARTIFACTS / f"insights-{name}-{theme}-{part.strip('.[]').split('=')[-1]}.png"
            page.locator(part).screenshot(path=str(shot))
        page.click("#theme-toggle")


def _fits(page) -> bool:
    """Whether nothing of the insights is wider than the screen."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#insights svg.chart, #insights .chart-figure')]
            .every((el) => el.getBoundingClientRect().right <= window.innerWidth + 1)"""
    )


def test_a_profile_shows_insights_and_its_practice_button_opens_a_table(browser, server):
    assert int(server.shell(PLAY_GAMES)) >= 4
    with watched_page(browser, WIDE) as (page, errors):
        page.goto(server.url + "/accounts/login/")
        page.fill("#id_login", "insightful")
        page.fill("#id_password", PASSWORD)
        page.click("form.account-form button[type=submit]")
        page.wait_for_selector(".account-nav .account-name:has-text('insightful')")

        page.goto(server.url + "/u/insightful")
        page.wait_for_selector("#insights h2:has-text('Insights')")
        assert "last 4 finished Set games" in page.inner_text("#insights")
        # The trend, then two charts for each of the three splits, each titled for readers.
        assert page.locator("#insights svg.chart").count() == 7
        for split in ("kind", "board", "since_deal"):
            assert page.locator(f"[data-split={split}] svg.chart").count() == 2
        assert (
            page.locator("[data-split=kind] svg.chart title")
            .first.text_content()
            .startswith("insightful's seconds per set, by kind of set")
        )
        assert page.locator("#insight-missed li").count() == 3
        _screens(page, "wide")

        page.select_option("#insights-games", "20")
        page.click(".insights-choice button")
        page.wait_for_url("**/u/insightful?games=20#insights")
        assert page.locator("#insights svg.chart").count() == 7

        favour = page.get_attribute("input[name=favour]", "value")
        page.click("#practice-missed")
        page.wait_for_url("**/play/*/")
        page.wait_for_selector("#show-btn", state="attached")  # a practice table's "Show me"
        page.wait_for_selector("#start-btn")  # its host starts it
        game_id = page.url.rstrip("/").rsplit("/", 1)[1]
        options = server.shell(
            "from games.models import Game; "
            f"g = Game.objects.get(pk={game_id}); "
            "print(g.options['favour'], g.options['practice'], bool(g.link_key))"
        )
        assert options == f"{favour.split(',')} True True"
        assert not errors, errors

    with watched_page(browser, PHONE) as (page, errors):
        page.goto(server.url + "/u/insightful")
        page.wait_for_selector("#insights svg.chart")
        assert _fits(page)
        _screens(page, "phone")
        assert not errors, errors
