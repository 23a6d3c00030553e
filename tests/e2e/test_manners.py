"""The site's gates in real browsers (issue 28, item 3), against a server started with them on:
a guest's lobby reads why it cannot write in the lobby chat yet (instead of the input); a second
public table within the hour is refused in the lobby's form with the sentence; a line with a
blocked word is shown to its writer only, marked "Only you can see this"."""

from __future__ import annotations

import os
import re
import time

import pytest

from tests.conftest import Server
from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_chat import write
from tests.e2e.test_set_pages import Person, create_table, open_table_options

pytestmark = E2E

# Where the screenshots of the changed pages go (looked at by a person, 1280x800 and 390x844).
SHOTS = os.environ.get("GATES_SHOTS")


def shot(person: Person, name: str) -> None:
    if SHOTS:
        person.page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=False)


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    running = Server(
        tmp_path_factory.mktemp("gated"),
        SET_WATCH_TIMEOUT_S="3",
        LOBBY_CHAT_MIN_GAMES="3",
        PUBLIC_TABLES_PER_HOUR="1",
    ).start()
    yield running
    running.stop()


def test_the_gates_as_a_guest_meets_them(browser, gated):
    ada = Person(browser, gated, viewport={"width": 1280, "height": 800})
    ada.name_myself("ada")
    lobby = ada.goto("/")
    chat = lobby.locator("#lobby-chat")
    assert "The lobby chat is for accounts that have finished 3 games" in chat.inner_text()
    assert not chat.locator("#chat-input").is_visible()
    lobby.locator("#lobby-chat").scroll_into_view_if_needed()
    shot(ada, "lobby-chat-closed-desktop")

    game_id = create_table(ada, rules="classic", attributes="4", visibility="open")
    bob = Person(browser, gated, viewport=PHONE)
    bob.page.goto(f"{gated.url}/play/{game_id}/")
    bob.page.fill("#name-input", "bob")
    bob.page.click("#name-form button[type=submit]")
    bob.page.wait_for_selector("#scores li[data-player=bob] .badge-you")
    bob.wait_live()
    write(ada, "oh sh1t")
    line = ada.page.locator("#timeline .chat-line:has-text('oh sh1t')")
    line.wait_for()
    assert "Only you can see this" in line.inner_text()
    write(ada, "good luck bob")
    bob.page.wait_for_selector("#timeline .chat-line:has-text('good luck bob')")
    assert "sh1t" not in bob.page.inner_text("#timeline")
    line.scroll_into_view_if_needed()
    shot(ada, "table-hidden-line-desktop")
    bob.page.reload()
    bob.page.wait_for_selector("#timeline .chat-line:has-text('good luck bob')")
    assert "sh1t" not in bob.page.inner_text("#timeline")

    # A second public table within the hour: refused in the form, with the sentence.
    page = ada.goto("/")
    open_table_options(page)
    page.check("input[name=visibility][value=open]")
    page.click("button:has-text('Create table')")
    page.wait_for_selector("text=Too many unfinished public games were recently created")
    assert not re.search(r"/play/\d+/", page.url)  # no table opened
    shot(ada, "lobby-too-many-tables-desktop")

    phone = bob.goto("/")
    assert "The lobby chat is for accounts" in phone.inner_text("#lobby-chat")
    phone.locator("#lobby-chat").scroll_into_view_if_needed()
    time.sleep(0.2)
    shot(bob, "lobby-chat-closed-phone")
    ada.close()
    bob.close()
