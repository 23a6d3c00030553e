"""A new player's first game, as issue 24's "done when" tells it, in two browsers.

Ada (a desktop, 1280x800) makes a private table from the lobby; Bob (a phone, 390x844) follows
her link. They chat while the table waits, Ada presses Start, they play to the end; Bob's wrong
claim is told with its cards and why; a reload keeps the whole log; Cleo, who watched with the
link, joins the next game the players start. Screenshots go to test-artifacts/first-game-*.png.
"""

from __future__ import annotations

import re

from tests.e2e.conftest import PHONE
from tests.e2e.test_set_pages import (
    Person,
    create_table,
    find_every_set,
    not_a_set,
    start_table,
)

DESKTOP_800 = {"width": 1280, "height": 800}


def say(person: Person, text: str) -> None:
    person.page.fill("#chat-input", text)
    person.page.press("#chat-input", "Enter")


def test_two_friends_wait_chat_start_play_to_the_end_and_a_watcher_joins_the_next_game(
    browser, server
):
    ada = Person(browser, server, viewport=DESKTOP_800)
    ada.name_myself("Ada")
    game_id = create_table(
        ada, start=False, rules="classic", attributes="3", length="quick", visibility="private"
    )
    share = ada.page.input_value("#share-url")
    assert re.search(rf"/play/{game_id}/\?join=1&key=\w+", share), share

    bob = Person(browser, server, viewport=PHONE)
    bob.page.goto(share)
    bob.page.fill("#name-input", "Bob")
    bob.page.click("#name-form button[type=submit]")
    bob.page.wait_for_selector("#scores li[data-player=Bob] .badge-you")
    bob.wait_live()

    # The table waits: no cards, who is here, and a Start for Ada alone.
    for person in (ada, bob):
        page = person.page
        page.wait_for_selector("#waiting-room:not([hidden])")
        page.wait_for_function(
            "() => document.getElementById('waiting-names').textContent.includes('Bob')"
        )
        assert page.locator("#board .card").count() == 0
    assert ada.page.locator("#start-btn").is_visible()
    assert bob.page.locator("#start-btn").is_hidden()

    # They chat while waiting; each sees the other's line in the table's log.
    say(bob, "Hi Ada, ready?")
    ada.page.wait_for_selector("#timeline li:has-text('Hi Ada, ready?')")
    say(ada, "Ready!")
    bob.page.wait_for_selector("#timeline li:has-text('Ready!')")
    ada.shot("first-game-waiting-1280x800")
    bob.shot("first-game-waiting-390x844")

    start_table(ada)
    bob.page.wait_for_selector("#board .card", timeout=10000)

    # Bob claims three cards that are not a set: both are told which cards, and why.
    bob.click_cards(not_a_set(bob.cards()))
    for person in (ada, bob):
        wrong = person.page.locator("#timeline .story-wrong").first
        wrong.wait_for()
        assert "Bob claimed three cards that are not a set" in wrong.inner_text()
        assert wrong.locator(".story-card svg").count() == 3
        assert re.search(r"\w+: .+ — ", wrong.locator(".story-why").inner_text())

    find_every_set(ada)
    for person in (ada, bob):
        person.page.wait_for_selector("#result-panel:not([hidden])")
        person.page.wait_for_selector("#timeline .story-end")
    ada.shot("first-game-over-1280x800")
    bob.shot("first-game-over-390x844")

    # A reload keeps the whole log: the chat, the wrong claim, the sets, the end.
    before = bob.page.inner_text("#timeline")
    bob.page.reload()
    bob.page.wait_for_selector("#timeline .story-end")
    bob.page.wait_for_function(
        "text => document.getElementById('timeline').innerText === text", arg=before
    )
    assert "Hi Ada, ready?" in before and "not a set" in before

    # Cleo watches with the link (no seat); when Ada plays again, Cleo may join the next game.
    cleo = Person(browser, server, viewport=DESKTOP_800)
    watch = cleo.page
    watch.goto(share.replace("join=1&", ""))
    watch.wait_for_selector("#result-panel:not([hidden])")
    assert watch.locator("#rematch-btn").is_hidden()
    ada.page.click("#rematch-btn")
    ada.page.wait_for_url(lambda url: re.search(r"/play/\d+/", url) and f"/{game_id}/" not in url)
    new_id = int(re.search(r"/play/(\d+)/", ada.page.url).group(1))
    watch.wait_for_selector("#next-game:not([hidden])")
    assert "seat" not in watch.inner_text("main").lower()  # never a message for programs
    cleo.shot("first-game-next-game-offer-1280x800")
    watch.click("#join-next")
    watch.wait_for_url(re.compile(rf"/play/{new_id}/"))
    watch.fill("#name-input", "Cleo")
    watch.click("#name-form button[type=submit]")
    watch.wait_for_selector("#scores li[data-player=Cleo] .badge-you")
    ada.page.wait_for_selector("#scores li[data-player=Cleo]")
    for person in (ada, bob, cleo):
        person.close()
