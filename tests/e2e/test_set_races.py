"""Set-N races in a real browser (headless Debian chromium): a Set-10 race started from the
lobby's quick start, played alone to its tenth set by reading the board and clicking sets, then
its time on the account's profile and on the boards of best times (linked from the lobby and
the leaderboard); the pages at a desktop's and a phone's size, light and dark; a race in
another way to play refused beside the lobby's "Race to"."""

from __future__ import annotations

import itertools
import re

from cards.engine.table.codes import codes_of, is_set
from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_rated_game import sign_up
from tests.e2e.test_set_pages import Person, start_table

pytestmark = E2E

DESKTOP = {"width": 1280, "height": 800}


def a_set(cards: list[str]) -> list[str]:
    for three in itertools.combinations(cards, 3):
        if is_set(codes_of(three, 4), 4):
            return list(three)
    raise AssertionError(f"no set among {cards}")


def test_a_set_10_race_from_the_lobby_is_timed_on_the_profile_and_the_boards(browser, server):
    rita = Person(browser, server, viewport=DESKTOP)
    sign_up(rita, "Rita")
    page = rita.goto("/")
    assert page.locator("a[href='/races/']").count()
    page.click("#race-preset")
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    rita.wait_live()
    assert "Set-10 race" in page.inner_text("h1")
    start_table(rita)
    page.wait_for_selector("#race-status:text-is('Set-10 race: 0 of 10')")
    for found in range(1, 11):
        rita.click_cards(a_set(rita.cards()))
        if found < 10:
            page.wait_for_selector(f"#race-status:text-is('Set-10 race: {found} of 10')")
            assert len(rita.cards()) <= 21
        if found == 3:
            rita.shot("race-table-desktop-light")
            page.emulate_media(color_scheme="dark")
            rita.shot("race-table-desktop-dark")
            page.emulate_media(color_scheme="light")
    page.wait_for_selector("#result-panel:not([hidden])")
    assert page.inner_text("#race-status") == "Set-10 race: 10 of 10"
    text = page.inner_text("#result-text")
    seconds = re.fullmatch(r"You found 10 sets in (\d+\.\d\d) s\.", text)
    assert seconds, text
    assert page.input_value("#result-line").startswith(f"Set-10 race: 10 sets in {seconds[1]} s")
    assert page.locator("#rematch-btn:has-text('Race again')").is_visible()
    rita.shot("race-over-desktop")

    profile = rita.goto("/u/Rita")
    stats = profile.inner_text("#stats")
    assert re.search(r"Set-10 race, alone \(seconds\)\s*mean [\d.]+ s, best [\d.]+ s \(1\)", stats)

    board = rita.goto("/leaderboard/")
    board.click("#races-link a")
    board.wait_for_url(re.compile(r"/races/$"))
    for period in ("day", "all"):
        row = board.locator(f"table[data-n='10'][data-period='{period}'] tbody tr").first
        assert row.inner_text().split("\t")[:3] == ["1", "Rita", f"{seconds[1]} s"]
    assert "No race to 20 yet." in board.inner_text("#board-20")
    for scheme in ("light", "dark"):
        board.emulate_media(color_scheme=scheme)
        rita.shot(f"races-desktop-{scheme}")
    assert not rita.errors, rita.errors
    rita.close()


def test_the_race_pages_fit_a_phone_light_and_dark(browser, server):
    tia = Person(browser, server, viewport=PHONE)
    tia.name_myself("tia")
    page = tia.goto("/races/")
    page.click("#race-20")
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    tia.wait_live()
    start_table(tia)
    page.wait_for_selector("#race-status:text-is('Set-20 race: 0 of 20')")
    tia.click_cards(a_set(tia.cards()))
    page.wait_for_selector("#race-status:text-is('Set-20 race: 1 of 20')")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        tia.shot(f"race-table-phone-{scheme}")
        # Nothing runs off the side of a phone's screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    races = tia.goto("/races/")
    for scheme in ("light", "dark"):
        races.emulate_media(color_scheme=scheme)
        tia.shot(f"races-phone-{scheme}")
        assert races.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    lobby = tia.goto("/")
    lobby.click("#new-table > summary")
    lobby.select_option("#race", "30")
    lobby.select_option("#mode", "ultra")
    tia.shot("lobby-race-phone")
    # A race is the card game's: another way to play with it is refused beside "Race to".
    lobby.click("button:has-text('Create table')")
    lobby.wait_for_selector("#race-error")
    assert "A race is played in the normal mode only" in lobby.inner_text("#race-error")
    assert lobby.input_value("#race") == "30"  # the form comes back as it was sent
    assert not tia.errors, tia.errors
    tia.close()
