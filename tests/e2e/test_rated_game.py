"""Issue 16's "done when", in a real browser (headless Debian chromium): two people sign up,
play a rated game against each other, and see both ratings move at the table, on their profiles
(with the history chart) and on the leaderboard."""

from __future__ import annotations

import re

from tests.e2e.conftest import ARTIFACTS, E2E
from tests.e2e.test_set_pages import Person, a_set

pytestmark = E2E
PASSWORD = "correct horse battery"
MODE = "set-classic-3"


def sign_up(person: Person, name: str) -> None:
    page = person.goto("/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_selector(f".account-nav .account-name:has-text('{name}')")


def rating_on_board(person: Person, name: str) -> str | None:
    page = person.goto(f"/leaderboard/{MODE}/")
    for row in page.locator("table.leaderboard tbody tr").all_inner_texts():
        cells = row.split("\t")
        if cells[1] == name:
            return cells[2]
    return None


def test_two_accounts_play_a_rated_game_and_see_their_ratings_move(browser, server):
    zoe, olafur = Person(browser, server), Person(browser, server)
    try:
        sign_up(zoe, "Zoë")
        sign_up(olafur, "Ólafur")
        # Four rated games each already (a leaderboard lists accounts from their fifth).
        server.shell(
            "import datetime\n"
            "from django.contrib.auth import get_user_model\n"
            "from games.models import Rating\n"
            "now = datetime.datetime.now(datetime.UTC)\n"
            "for name in ('Zoë', 'Ólafur'):\n"
            "    user = get_user_model().objects.get(username=name)\n"
            f"    Rating.objects.create(user=user, mode='{MODE}', mu=1500.0, sigma=400.0,"
            " games=4, updated=now)\n"
        )
        assert rating_on_board(zoe, "Zoë") is None

        # Zoë creates a rated table from the lobby; Ólafur follows its share link.
        page = zoe.goto("/")
        page.click("#new-table > summary")  # the table options are folded
        page.check("input[name=rules][value=classic]")
        page.check("input[name=visibility][value=open]")
        page.select_option("#attributes", "3")
        page.check("#rated")
        page.click("button:has-text('Create table')")
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        zoe.wait_live()
        game_id = int(re.search(r"/play/(\d+)/", page.url).group(1))
        page.wait_for_selector(".rated-note")
        olafur.page.goto(zoe.page.input_value("#share-url"))
        olafur.page.wait_for_selector("#scores li[data-player=Ólafur] .badge-you")
        olafur.wait_live()
        page.wait_for_selector("#scores li[data-player=Ólafur]")
        # The ratings list is redrawn when a player joins (it reads the seats first).
        page.wait_for_selector("#seat-ratings li[data-player=Ólafur]")
        before = page.inner_text("#seat-ratings")
        assert "Zoë: 1500" in before and "Ólafur: 1500" in before

        # Zoë finds every set.
        for _ in range(40):
            if page.locator("#result-panel:not([hidden])").count():
                break
            cards = zoe.cards()
            taken = a_set(cards)
            zoe.click_cards(taken)
            page.wait_for_function(
                "taken => !document.getElementById('result-panel').hidden || !taken.every("
                "c => document.querySelector(`#board .card[data-card='${c}']`))",
                arg=taken,
            )
        page.wait_for_selector("#result-panel:not([hidden])")

        # The table shows both ratings moved, live, for both players.
        for person in (zoe, olafur):
            person.page.wait_for_selector("#seat-ratings li[data-player=Zoë] .change")
            moved = person.page.inner_text("#seat-ratings")
            zoe_after = int(re.search(r"Zoë: (\d+)", moved).group(1))
            olafur_after = int(re.search(r"Ólafur: (\d+)", moved).group(1))
            assert zoe_after > 1500 > olafur_after, moved
            assert "5 rated games" in moved
            # A finished game says so: no "Live" badge, no invitation.
            person.page.wait_for_selector("#connection[data-state=over]:has-text('Game over')")
            assert person.page.locator("#invite-panel").is_hidden()
        ARTIFACTS.mkdir(exist_ok=True)
        zoe.shot("rated-table-over")

        # The profile: the rating, its history as a chart through five points... here two
        # (the start and this game: the seeded games left no history), and the game's replay.
        profile = zoe.goto("/u/Zoë")
        row = profile.locator(f"#ratings tr[data-mode={MODE}]")
        assert row.locator(".rating").inner_text() == str(zoe_after)
        chart = profile.locator(f".rating-history[data-mode={MODE}] svg.chart")
        assert chart.is_visible()
        assert chart.locator(".mark").count() == 2
        assert profile.locator(f"#profile-games a[href='/games/{game_id}/replay/']").count() == 1
        assert profile.inner_text("#stats dd[data-field=games_played]") == "1"
        zoe.shot("profile-light")
        profile.click("#theme-toggle")
        zoe.shot("profile-dark")

        # Ólafur's profile, from the header link, and the leaderboard, from the profile.
        page = olafur.page
        page.click(".account-nav .account-name")
        page.wait_for_url(re.compile(r"/u/"))
        assert page.locator(f"#ratings tr[data-mode={MODE}] .rating").inner_text() == str(
            olafur_after
        )
        assert rating_on_board(olafur, "Zoë") == str(zoe_after)
        assert rating_on_board(olafur, "Ólafur") == str(olafur_after)
        rows = olafur.page.locator("table.leaderboard tbody tr").all_inner_texts()
        names = [row.split("\t")[1] for row in rows]
        assert names.index("Zoë") < names.index("Ólafur")  # best first
        olafur.page.click("table.leaderboard a:has-text('Zoë')")
        olafur.page.wait_for_selector("h1:has-text('Zoë')")
    finally:
        zoe.close()
        olafur.close()
