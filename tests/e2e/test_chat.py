"""Chat in real browsers (headless Debian chromium) against a real daphne server: two people at a
Set table talk in its log, beside the sets found; a spectator reads them but has nothing to write
with; hiding the chat is remembered; markup is shown as the text it is; the lobby has its own."""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_set_pages import Person, a_set, create_table

pytestmark = E2E


@pytest.fixture(scope="module")
def table(browser, server):
    """Ada creates an open classic table; Bob follows her share link and picks his name there."""
    ada = Person(browser, server)
    ada.name_myself("ada")
    game_id = create_table(ada, rules="classic", attributes="4", visibility="open")
    bob = Person(browser, server, viewport=PHONE)
    bob.page.goto(ada.page.input_value("#share-url"))
    bob.page.fill("#name-input", "bob")
    bob.page.click("#name-form button[type=submit]")
    bob.page.wait_for_selector("#scores li[data-player=bob] .badge-you")
    bob.wait_live()
    yield ada, bob, game_id
    ada.close()
    bob.close()


def write(person: Person, text: str) -> None:
    person.page.fill("#chat-input", text)
    person.page.press("#chat-input", "Enter")


def test_two_players_chat_in_the_tables_log_beside_the_sets_found(table):
    ada, bob, _ = table
    ada.page.fill("#chat-input", "hello")
    assert ada.page.inner_text("#chat-count") == "5/250"
    write(ada, "hello bob, ready?")
    bob.page.wait_for_selector("#timeline .chat-line:has-text('hello bob, ready?')")
    assert "ada" in bob.page.inner_text("#timeline .chat-line >> nth=-1")
    assert ada.page.input_value("#chat-input") == ""  # sent: the field is empty again
    write(bob, "<b>hi</b> ada")
    ada.page.wait_for_selector("#timeline .chat-line:has-text('ada') >> nth=1")
    last = ada.page.locator("#timeline .chat-line .story-text").last
    assert last.inner_text() == "<b>hi</b> ada"  # shown as written, never as markup
    assert ada.page.locator("#timeline b").count() == 0
    # A set found is told in the same log (the game's story), to the finder and to the other.
    ada.click_cards(a_set(ada.cards()))
    ada.page.wait_for_selector("#timeline .story-set:has-text('ada found a set.')")
    bob.page.wait_for_selector("#timeline .story-set:has-text('ada found a set.')")
    lines = bob.page.eval_on_selector_all(
        "#timeline > li", "items => items.map(i => i.classList.contains('chat-line'))"
    )
    assert lines[-3:] == [True, True, False]
    ada.shot("table-chat")
    # A player who hides the chat loses its lines and its input, not the table's own lines.
    bob.page.click("#chat-toggle")
    assert bob.page.locator("#chat-input").is_hidden()
    assert bob.page.locator("#timeline .chat-line").first.is_hidden()
    assert bob.page.locator("#timeline .story-set").last.is_visible()
    bob.page.click("#chat-toggle")
    assert bob.page.locator("#chat-input").is_visible()


def test_a_too_long_message_is_refused_with_the_servers_sentence(table):
    ada, _, _ = table
    # The field holds at most 250 characters; a longer message sent anyway is refused.
    ada.page.eval_on_selector("#chat-input", "input => input.removeAttribute('maxlength')")
    write(ada, "x" * 251)
    ada.page.wait_for_selector("#chat-error:has-text('at most 250 characters; this one has 251')")


def test_a_spectator_reads_the_chat_but_cannot_write_and_can_hide_it(browser, server, table):
    _, _, game_id = table
    cleo = Person(browser, server)
    page = cleo.goto(f"/play/{game_id}/")
    cleo.wait_live()
    page.wait_for_selector("#timeline .chat-line:has-text('hello bob, ready?')")
    assert page.locator("#timeline .chat-line:has-text('<b>hi</b> ada')").count() == 1
    assert page.locator("#chat-input").is_hidden()
    assert page.locator("#chat-spectator").inner_text() == "Spectators can read the chat."
    # Hidden: the chat's lines and its input; the choice outlives a reload.
    page.click("#chat-toggle")
    assert page.locator("#timeline .chat-line").first.is_hidden()
    assert page.inner_text("#chat-toggle") == "Show chat"
    page.reload()
    cleo.wait_live()
    assert page.inner_text("#chat-toggle") == "Show chat"
    assert page.locator("#timeline .chat-line").first.is_hidden()
    assert page.locator("#chat-spectator").is_hidden()
    page.click("#chat-toggle")
    assert page.locator("#timeline .chat-line").first.is_visible()
    # The replay puts the chat among the moves.
    replay = cleo.goto(f"/games/{game_id}/replay/")
    replay.wait_for_selector("#replay-root[data-loaded='1']")
    chat = replay.locator("#move-list .chat-line")
    assert chat.count() == 2 and "hello bob, ready?" in chat.first.inner_text()
    assert chat.last.locator(".chat-text").inner_text() == "<b>hi</b> ada"
    cleo.close()


def test_the_lobby_has_a_chat_of_its_own(table):
    ada, bob, _ = table
    lobby = ada.goto("/")
    lobby.fill("#chat-input", "anyone for a game?")
    lobby.press("#chat-input", "Enter")
    lobby.wait_for_selector("#lobby-chat .chat-line:has-text('anyone for a game?')")
    assert "hello bob" not in lobby.inner_text("#lobby-chat")  # a table's chat stays there
    other = bob.goto("/")  # rendered with the page
    assert "anyone for a game?" in other.inner_text("#lobby-chat .timeline")
    # Written while the other page is open: pushed over the lobby's socket, no reload.
    other.wait_for_selector("#online-now li:has-text('ada')")  # its lobby socket is open
    lobby.fill("#chat-input", "table 5 is open")
    lobby.press("#chat-input", "Enter")
    other.wait_for_selector("#lobby-chat .chat-line:has-text('table 5 is open')")
    assert other.locator("#lobby-chat .chat-line:has-text('table 5 is open')").count() == 1
    time.sleep(0.5)  # the writer's page hears it back from the socket too: still one line
    assert lobby.locator("#lobby-chat .chat-line:has-text('table 5 is open')").count() == 1
