"""A practice table in a real browser (headless Debian chromium): made from the lobby's form,
paused (the board gives way to a note, no card on the page, the clock stands still) and resumed
with Ctrl+Shift+P, a hint that highlights one more card each press, "Show me" listing the board's
sets, and a set found; screenshots of it paused and running, wide and on a phone, light and
dark."""

from __future__ import annotations

import re
import time

from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_set_pages import Person, open_table_options, start_table

pytestmark = E2E

WIDE = {"width": 1280, "height": 800}


def clock(page) -> str:
    return page.inner_text("#game-clock")


def shots(person: Person, name: str) -> None:
    """The page wide and on a phone, light and dark."""
    page = person.page
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for label, size in (("wide", WIDE), ("phone", PHONE)):
            page.set_viewport_size(size)
            person.shot(f"practice-{name}-{label}-{scheme}")
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(WIDE)


def test_a_practice_table_pauses_hints_shows_and_finds_a_set(browser, server):
    lena = Person(browser, server, viewport=WIDE)
    lena.name_myself("lena")
    page = lena.goto("/")
    open_table_options(page)
    page.check("#practice")
    # Practice is private and unrated: the form says so before it is sent.
    assert page.is_checked("input[name=visibility][value=private]")
    assert page.is_disabled("input[name=visibility][value=open]")
    assert page.is_disabled("#rated") if page.locator("#rated").count() else True
    page.locator("#practice").scroll_into_view_if_needed()
    lena.shot("practice-lobby-form")
    page.click("button:has-text('Create table')")
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    lena.wait_live()
    assert page.locator("h1 .badge-practice").inner_text() == "practice"
    start_table(lena)
    board = lena.cards()
    assert len(board) >= 12
    page.wait_for_function(
        "() => /\\d:\\d\\d/.test(document.querySelector('#game-clock').textContent)"
    )
    shots(lena, "running")

    # Pause: the note takes the board's place, no card is on the page, the clock stands still.
    page.click("#pause-btn")
    page.wait_for_selector("#paused-note:not([hidden])")
    assert page.locator("#board .card").count() == 0
    assert page.inner_text("#pause-btn") == "Resume"
    assert "paused" in page.inner_text("#turn")
    stopped = clock(page)
    time.sleep(2.2)
    assert clock(page) == stopped
    # Loaded afresh while paused: the view the page is sent holds no card, and none is drawn.
    page.reload()
    lena.wait_live()
    page.wait_for_selector("#paused-note:not([hidden])")
    sent = page.evaluate("() => JSON.parse(document.getElementById('table-view').textContent)")
    assert sent["paused"] is True and sent["board"] == [] and sent["hint"] is None
    assert page.locator("[data-card]").count() == 0
    assert clock(page) == stopped
    shots(lena, "paused")

    # Ctrl+Shift+P resumes: the same cards come back, and the clock runs again from where it was.
    page.locator("#board").focus()
    page.keyboard.press("Control+Shift+P")
    page.wait_for_selector("#board .card")
    assert page.locator("#paused-note").is_hidden()
    assert lena.cards() == board
    page.wait_for_function(
        "before => document.querySelector('#game-clock').textContent !== before", arg=stopped
    )

    # Each hint press highlights one more card of the same set.
    for press in (1, 2, 3):
        page.click("#hint-btn")
        page.wait_for_function(
            "n => document.querySelectorAll('#board .card.hinted').length === n", arg=press
        )
    hinted = page.eval_on_selector_all("#board .card.hinted", "cs => cs.map(c => c.dataset.card)")

    # Show me: the board's sets, one more each press, the newest marked on the board.
    page.click("#show-btn")
    page.wait_for_selector("#shown-area:not([hidden]) #shown-sets li")
    assert re.match(r"1 of \d+", page.inner_text("#shown-count"))
    marked = page.eval_on_selector_all("#board .card.marked", "cs => cs.map(c => c.dataset.card)")
    assert len(marked) == 3
    page.click("#show-btn")
    total = int(page.inner_text("#shown-count").split(" of ")[1])
    page.wait_for_function(
        "n => document.querySelectorAll('#shown-sets li').length === n", arg=min(2, total)
    )
    shots(lena, "shown")

    # Find the hinted set: found, and hints and "show me" start again.
    lena.click_cards(hinted)
    page.wait_for_selector("#message:has-text('Set!')")
    page.wait_for_selector("#shown-area[hidden]", state="attached")
    assert page.locator("#board .card.hinted").count() == 0
    assert "lena" in page.inner_text("#scores") and "1" in page.inner_text("#scores")

    # The lobby lists it to its player only, private, with its badge.
    game_id = re.search(r"/play/(\d+)/", page.url).group(1)
    page = lena.goto("/")
    row = page.locator(f"#open-tables tr[data-game='{game_id}']")
    assert row.locator(".badge-practice").inner_text() == "practice"
    assert "private" in row.inner_text()
    lena.close()


def test_a_practice_table_is_never_open_or_rated_from_the_form(browser, server):
    kim = Person(browser, server)
    kim.name_myself("kim")
    page = kim.goto("/")
    open_table_options(page)
    page.check("#practice")
    page.uncheck("#practice")
    assert page.is_enabled("input[name=visibility][value=open]")
    kim.close()
