"""Issue 17's "done when", in a real browser (headless Debian chromium): two people at a table
chat, see each other come and go, finish the game and play again in one click each; a spectator
reads the chat but cannot write in it."""

from __future__ import annotations

import re

from tests.e2e.conftest import E2E
from tests.e2e.test_set_pages import Person, create_table, find_every_set

pytestmark = E2E


def say(person: Person, text: str) -> None:
    person.page.fill("#chat-input", text)
    person.page.press("#chat-input", "Enter")


def test_two_people_chat_come_and_go_finish_and_play_again_while_a_spectator_reads(browser, server):
    ada = Person(browser, server)
    ada.name_myself("ada_here")
    game_id = create_table(ada, rules="classic", attributes="3")
    ada.page.wait_for_selector("#scores li[data-player=ada_here] .badge-here")
    bob = Person(browser, server)
    bob.name_myself("bob_here")
    bob.goto(f"/play/{game_id}/?join=1")
    bob.page.wait_for_selector("#scores li[data-player=bob_here] .badge-you")
    bob.wait_live()

    # They see each other here, and talk.
    ada.page.wait_for_selector("#scores li[data-player=bob_here] .badge-here")
    bob.page.wait_for_selector("#scores li[data-player=ada_here] .badge-here")
    say(ada, "ready when you are")
    bob.page.wait_for_selector("#timeline .chat-line:has-text('ready when you are')")
    say(bob, "go!")
    ada.page.wait_for_selector("#timeline .chat-line:has-text('go!')")

    # A spectator reads it all and has nothing to write with.
    cy = Person(browser, server)
    cy.goto(f"/play/{game_id}/")
    cy.wait_live()
    assert "ready when you are" in cy.page.inner_text("#timeline")
    assert cy.page.locator("#chat-input").is_hidden()
    cy.page.wait_for_selector("text=Spectators can read the chat.")

    # Bob goes away and comes back: Ada sees both.
    bob.goto("/")
    ada.page.wait_for_selector("#scores li[data-player=bob_here] .badge-away")
    bob.goto(f"/play/{game_id}/")
    bob.wait_live()
    ada.page.wait_for_selector("#scores li[data-player=bob_here] .badge-here")

    # They finish the game; the spectator saw the sets in the same log as the chat.
    page = ada.page
    find_every_set(ada)
    cy.page.wait_for_selector("#result-panel:not([hidden])")
    assert "ada_here found a set" in cy.page.inner_text("#timeline")

    # Play again: one click each, at one new table.
    page.click("#rematch-btn")
    page.wait_for_url(lambda url: re.search(r"/play/\d+/$", url) and f"/{game_id}/" not in url)
    new_id = int(re.search(r"/play/(\d+)/", page.url).group(1))
    bob.page.wait_for_selector("#rematch-note:has-text('ada_here wants to play again')")
    bob.page.click("#rematch-btn")
    bob.page.wait_for_url(f"**/play/{new_id}/")
    page.wait_for_selector("#scores li[data-player=bob_here] .badge-here")
    ada.close()
    bob.close()
    cy.close()
