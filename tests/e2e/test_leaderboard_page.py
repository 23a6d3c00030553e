"""The leaderboards in a real browser (headless Debian chromium): a tab per rated mode, the top
accounts of each, under the site's strict Content-Security-Policy."""

from __future__ import annotations

from tests.e2e.conftest import E2E, watched_page

pytestmark = E2E


def test_the_leaderboard_shows_each_modes_top_accounts_tab_by_tab(browser, server):
    server.shell(
        "import datetime\n"
        "from django.contrib.auth import get_user_model\n"
        "from games.models import Rating\n"
        "now = datetime.datetime.now(datetime.UTC)\n"
        "for name, mode, mu, games in [('zoe', 'square', 1712.4, 6), ('max', 'square', 1650.0, 5),"
        " ('new', 'square', 1990.0, 2), ('ada', 'set-classic', 1600.0, 8)]:\n"
        "    user = get_user_model().objects.create_user('lb_' + name, password='x' * 12)\n"
        "    Rating.objects.create(user=user, mode=mode, mu=mu, sigma=90.0, games=games,"
        " updated=now)\n"
    )
    with watched_page(browser) as (page, errors):
        page.goto(server.url + "/")
        page.click("nav[aria-label=Site] a:has-text('Leaderboards')")
        page.wait_for_selector("h2:has-text('Set classic')")
        modes = page.locator("nav[aria-label='Rated modes']")
        assert modes.locator("a[aria-current=page]").inner_text() == "Set classic"
        who = page.locator("nav[aria-label='Who is ranked'] a[aria-current=page]")
        assert who.inner_text() == "People"  # people by default, the bots a tab away
        assert "lb_ada" in page.locator("table.leaderboard").inner_text()

        page.click(".tab-list a:has-text('Square Game')")
        page.wait_for_selector("h2:has-text('Square Game')")
        rows = page.locator("table.leaderboard tbody tr").all_inner_texts()
        names = [row.split("\t")[1] for row in rows if row.split("\t")[1].startswith("lb_")]
        assert names == ["lb_zoe", "lb_max"]  # best first; lb_new has too few rated games
        assert "1712" in rows[0] or any("1712" in row for row in rows)
        assert not errors, errors
