"""Set War in a real browser (headless Debian chromium) against a real daphne server.

A person deals the assignment's sample game on /setwar/, steps through it, plays it to its final
line, and deals a seeded shuffle on a phone. Every page visited breaks no rule of the
Content-Security-Policy and leaves no global of ours on `window`. Screenshots go to
test-artifacts/ for a human to look at.
"""

from __future__ import annotations

import re

import pytest

from cards.engine.setwar import play_setwar, shuffled_deck
from tests.e2e.conftest import ARTIFACTS, DESKTOP, E2E, PHONE, WAIT_MS

pytestmark = E2E


def window_keys(page) -> set[str]:
    return set(page.evaluate("Object.keys(window)"))


@pytest.fixture
def visit(browser, server):
    """Open a page in a fresh browser context. Fail the test on any JavaScript error, on any
    Content-Security-Policy violation, and on any global our scripts define (the keys of
    `window` beyond those of an empty page in the same browser)."""
    pages, errors, violations = [], [], []

    def on_console(message):
        if message.type == "error" and "Content Security Policy" in message.text:
            violations.append(message.text)

    def open_page(path: str, viewport=DESKTOP):
        context = browser.new_context(viewport=viewport)
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        pages.append(page)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", on_console)
        page.goto(server.url + path)
        return page

    yield open_page
    # The browser's own globals: those of an empty page at the same address (about:blank itself
    # lacks the secure-context ones, such as `caches`, that a page on 127.0.0.1 has).
    blank = browser.new_page()
    blank.route(
        server.url + "/blank", lambda route: route.fulfill(body="", content_type="text/html")
    )
    blank.goto(server.url + "/blank")
    builtin = window_keys(blank)
    blank.context.close()
    globals_ = {page.url: sorted(window_keys(page) - builtin) for page in pages}
    for page in pages:
        page.context.close()
    assert not errors, errors
    assert not violations, violations
    assert not any(globals_.values()), globals_


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def round_label(page) -> str:
    return page.inner_text("#sw-round-label")


def wait_round(page, prefix: str) -> None:
    """Wait until the viewer shows the step whose label starts with `prefix`."""
    page.wait_for_function(
        "prefix => document.querySelector('#sw-round-label').textContent.startsWith(prefix)",
        arg=prefix,
    )


def test_the_sample_game_plays_round_by_round_to_the_programs_final_line(visit):
    page = visit("/setwar/")

    # Bad cards: a sentence that names the card by its place, and nothing is created.
    page.fill("#setwar-players", "4")
    page.fill("#setwar-cards", "0000 0003 1111")
    page.click("#setwar-play")
    page.wait_for_selector(
        "#setwar-error:has-text(\"Card 2 is '0003': a card is four digits 0-2.\")"
    )
    assert page.inner_text("#setwar-error") == "Card 2 is '0003': a card is four digits 0-2."
    assert page.get_attribute("#setwar-cards", "aria-invalid") == "true"
    assert page.locator("#setwar-viewer").is_hidden()
    page.fill("#setwar-players", "0")
    page.fill("#setwar-cards", "0000 1111")
    page.click("#setwar-play")
    page.wait_for_selector("#setwar-error:has-text('The number of players is')")
    assert "give a whole number from 1 to 1,000,000" in page.inner_text("#setwar-error")

    # The sample deck: it plays at once; pause it and look around.
    page.click("#setwar-sample")
    assert page.input_value("#setwar-players") == "4"
    page.click("#setwar-play")
    page.wait_for_url(re.compile(r"/setwar/\d+/$"))
    page.wait_for_selector("#setwar-viewer:not([hidden])")
    assert page.locator("#setwar-error").is_hidden()
    page.click("#sw-play:has-text('Pause')")
    page.click("#sw-end")
    page.wait_for_selector("#sw-final:has-text('Player 1 won in 110 rounds.')")
    assert page.inner_text("#sw-final") == "Player 1 won in 110 rounds."
    assert round_label(page) == "Round 110 of 110"
    assert page.locator("#sw-players .setwar-badge-winner").count() == 1
    assert page.get_attribute("#sw-players li:has(.setwar-badge-winner)", "data-player") == "1"

    # Back to the start, then step: each round shows its piles and the line as real cards.
    page.locator("#sw-progress").fill("0")
    wait_round(page, "The deal")
    assert page.locator("#sw-final").is_hidden()
    assert page.locator("#sw-players li").count() == 4
    page.click("#sw-step")
    wait_round(page, "Round 1 of 110")
    first = play_setwar(4, page.input_value("#setwar-cards")).log[0]
    cards = page.eval_on_selector_all(
        "#sw-line .setwar-card", "items => items.map(i => i.dataset.card)"
    )
    assert cards == [play.card for play in first.plays]
    assert page.locator("#sw-line .setwar-card svg.set-card-svg").count() == len(first.plays)
    assert page.locator("#sw-line .setwar-card.in-set").count() == 3
    sizes = page.eval_on_selector_all(
        "#sw-players .setwar-pile-size", "items => items.map(i => parseInt(i.textContent))"
    )
    assert tuple(sizes) == first.piles
    assert f"Player {first.taker}" in page.inner_text("#sw-story")
    for _ in range(3):
        page.click("#sw-step")
    wait_round(page, "Round 4 of 110")
    page.click("#sw-back")
    wait_round(page, "Round 3 of 110")
    shot(page, "setwar-desktop-round")

    # Play it out at full speed: it stops by itself on the final line.
    page.focus("#sw-speed")
    page.keyboard.press("End")
    assert page.inner_text("#sw-speed-label") == "100 rounds/s"
    page.click("#sw-play")
    page.wait_for_selector("#sw-final:has-text('Player 1 won in 110 rounds.')", timeout=15000)
    assert page.inner_text("#sw-play").strip().endswith("Play again")
    shot(page, "setwar-desktop-end")

    # The game's own address opens it again, ready to watch.
    game_url = page.url
    again = visit(re.search(r"/setwar/\d+/$", game_url).group(0))
    again.wait_for_selector("#setwar-viewer:not([hidden])")
    assert again.inner_text("#setwar-title") == page.inner_text("#setwar-title")
    again.keyboard.press("End")
    again.wait_for_selector("#sw-final:has-text('Player 1 won in 110 rounds.')")


def test_a_seeded_shuffle_on_a_phone(visit):
    page = visit("/setwar/", viewport=PHONE)
    page.fill("#setwar-players", "3")
    page.fill("#setwar-seed", "7")
    page.click("#setwar-shuffle")
    page.wait_for_selector("#setwar-viewer:not([hidden])")
    page.click("#sw-play:has-text('Pause')")
    page.locator("#sw-progress").fill("2")
    wait_round(page, "Round 2 ")
    assert page.locator("#sw-line .setwar-card svg").count() > 0
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways on a phone ({width} px)"
    shot(page, "setwar-phone-round")
    page.click("#sw-end")
    expected = play_setwar(3, shuffled_deck(7)).final_line
    page.wait_for_selector(f"#sw-final:has-text('{expected}')")
    assert page.inner_text("#sw-final") == expected
    shot(page, "setwar-phone-end")

    # The dark theme and the color-blind marks redraw the cards on show.
    page.click("#theme-toggle")
    page.click("#colorblind-toggle")
    page.wait_for_selector("#sw-line .setwar-card svg .cb-mark")
    page.locator("#setwar-viewer").screenshot(path=str(ARTIFACTS / "setwar-phone-dark.png"))

    # A random shuffle shows its seed; typed back, the seed deals the same deck.
    def deal_again() -> None:
        before = page.url
        page.click("#setwar-shuffle")
        page.wait_for_function("before => location.href !== before", arg=before)
        page.wait_for_selector("#sw-play:has-text('Pause')")

    page.fill("#setwar-seed", "")
    deal_again()
    seed = re.search(r"with seed (\d+)", page.inner_text("#setwar-summary")).group(1)
    deck = page.text_content("#sw-deck")
    assert deck.split() == shuffled_deck(int(seed))
    page.fill("#setwar-seed", seed)
    deal_again()
    assert page.text_content("#sw-deck") == deck
