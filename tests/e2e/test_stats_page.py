"""The statistics page in a real browser (headless Debian chromium), under the site's strict
Content-Security-Policy: a simulation started from the page shows its progress, then its
charts; the charts stay readable in the dark theme and with the color-blind marks."""

from __future__ import annotations

import time

from tests.e2e.conftest import ARTIFACTS, E2E, watched_page

pytestmark = E2E

# The WCAG contrast ratio of two CSS colors ("rgb(r, g, b)"), as the browser computed them.
CONTRAST = """([selector, property, against]) => {
  const color = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const element = document.querySelector(selector);
  const fore = luminance(color(getComputedStyle(element)[property]));
  const back = luminance(color(getComputedStyle(document.querySelector(against)).backgroundColor));
  return (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05);
}"""

PLAY_ONE_GAME = """
from games import services
from games.models import Game, Player
from games.rules import get_rules
game = services.game_create(kind='set', options={'rules': 'classic', 'start': 'now'}, now=1)
seat = services.game_join(game_id=game.pk, player=Player.objects.create(name='statsy'), now=1)
for turn in range(60):
    game.refresh_from_db()
    if game.status == Game.Status.OVER:
        break
    action = get_rules('set').bot_actions(game.state, seat.name)[0]
    services.move_submit(game_id=game.pk, seat=seat, action=action, now=1000 + 3000 * turn)
print(game.status)
"""


def test_a_simulation_from_the_page_shows_its_progress_then_its_charts(browser, server):
    assert server.shell(PLAY_ONE_GAME) == "over"
    with watched_page(browser) as (page, errors):
        page.goto(server.url + "/stats/")
        page.wait_for_selector("h1:has-text('Statistics')")
        # The site's numbers: the game just played, and its seconds per set.
        # (the server is shared with other browser tests: they may have finished games too)
        assert int(page.inner_text("#site-numbers [data-field=games]").replace(",", "")) >= 1
        assert "set-classic" in page.inner_text("#seconds-per-set")
        assert page.locator(".stats-site svg.chart").count() == 2

        page.select_option("#simulation-games", "100000")
        page.click("#simulation-start")
        page.wait_for_selector("#simulation-progress:not([hidden])")
        # The bar moves while the games are played (polled: the CSP forbids wait_for_function).
        deadline = time.monotonic() + 30
        seen = set()
        while not seen or max(seen) == 0:
            assert time.monotonic() < deadline, "the progress bar never moved"
            seen.add(page.evaluate("document.getElementById('simulation-bar').value"))
            time.sleep(0.05)
        assert any(0 < value < 100000 for value in seen), seen  # part of the way
        assert " of 100,000" in page.inner_text("#simulation-count")
        assert page.get_attribute("#simulation-bar", "max") == "100000"
        # 100,000 games: seconds on a quiet machine, over a minute under the whole suite.
        page.wait_for_selector("#simulation-result svg.chart", timeout=180_000)
        assert page.is_hidden("#simulation-progress")
        assert page.locator("#simulation-result svg.chart").count() == 2
        table = page.inner_text("#no-set-table")
        assert "33:1 against no set" in table and "2500:1 against no set" in table
        assert "none published" in table  # 18 cards
        assert "?run=" in page.url  # a reload shows the same run
        assert not page.is_disabled("#simulation-start")

        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "stats-light.png"), full_page=True)
        page.click("#theme-toggle")
        page.click("#colorblind-toggle")
        page.wait_for_selector("html[data-theme=dark][data-colorblind='1']")
        page.screenshot(path=str(ARTIFACTS / "stats-dark-colorblind.png"), full_page=True)
        chart = page.locator("#simulation-result .chart-figure").first
        chart.screenshot(path=str(ARTIFACTS / "stats-dark-colorblind-chart.png"))
        # Readable in the dark theme: the axes' words and the bars stand out from the panel.
        assert page.evaluate(CONTRAST, ["#simulation-result .chart text", "fill", ".panel"]) >= 4.5
        for series in ("series-0", "series-1", "series-2"):
            bar = f"#simulation-result .bar.{series}"
            assert page.evaluate(CONTRAST, [bar, "fill", ".panel"]) >= 3, series

        page.reload()
        page.wait_for_selector("#simulation-result svg.chart")
        assert page.locator("#simulation-result svg.chart").count() == 2
        assert not errors, errors


def test_a_refused_run_says_why_on_the_page(browser, server):
    with watched_page(browser) as (page, errors):
        page.goto(server.url + "/stats/")
        # A value the form does not offer, as a hand-edited page would send.
        page.evaluate("document.querySelector('#simulation-games option').value = '1000000000'")
        page.select_option("#simulation-games", "1000000000")
        page.click("#simulation-start")
        page.wait_for_selector("#simulation-error:not([hidden])")
        assert "whole number from 1 to 100,000" in page.inner_text("#simulation-error")
        assert page.is_hidden("#simulation-progress")
