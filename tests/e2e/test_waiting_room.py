"""The waiting room in two real browsers (issue 24, item 1): the creator makes a table, a friend
follows its link, both see who is here and "Waiting for players…", only the creator has Start;
the creator presses it, both see the countdown, then the cards, at the same moment."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_set_pages import Person, create_table

pytestmark = E2E
SHOTS = Path("/tmp/shots/start")


def test_two_friends_wait_together_and_the_creator_starts_the_game(browser, server):
    ada = Person(browser, server)
    ada.name_myself("wada")
    game_id = create_table(ada, start=False, rules="classic", attributes="4", visibility="open")
    room = "#waiting-room"
    ada.page.wait_for_selector(f"{room}:has-text('Waiting for players')")
    assert ada.page.locator("#board .card").count() == 0
    assert ada.page.locator(f"{room} #start-btn").is_visible()

    bea = Person(browser, server, viewport=PHONE)
    bea.name_myself("wbea")
    bea.page.goto(ada.page.input_value("#share-url"))
    bea.page.wait_for_selector("#scores li[data-player=wbea] .badge-you")
    bea.wait_live()
    for person in (ada, bea):
        person.page.wait_for_selector(f"{room} li:has-text('wbea')")
        assert "wada (host)" in person.page.inner_text(room)
    assert "wada starts the game" in bea.page.inner_text(room)
    assert bea.page.locator(f"{room} #start-btn").count() == 0  # Start is the creator's
    assert bea.page.locator("#board .card").count() == 0
    SHOTS.mkdir(parents=True, exist_ok=True)
    ada.page.screenshot(path=str(SHOTS / "waiting-desktop.png"))
    bea.page.screenshot(path=str(SHOTS / "waiting-phone.png"))

    ada.page.click(f"{room} #start-btn")
    for person in (ada, bea):
        person.page.wait_for_selector(f"{room}:has-text('The cards are dealt in')")
    bea.page.screenshot(path=str(SHOTS / "countdown-phone.png"))
    for person in (ada, bea):
        person.page.wait_for_selector("#board .card", timeout=10_000)
        person.page.wait_for_selector(room, state="hidden")
        assert len(person.cards()) == 12
    assert ada.cards() == bea.cards()
    ada.page.screenshot(path=str(SHOTS / "dealt-desktop.png"))
    assert game_id
    ada.close()
    bea.close()
