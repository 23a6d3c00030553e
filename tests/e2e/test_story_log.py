"""The story log's module in a real browser, on the table page of a real server: the story the
server tells (a wrong claim with its cards and why, a set with its cards, a hint, chat) drawn by
static/js/set/story.js under the page's own policy, at a desktop's and a phone's size. The table
page itself draws it once it is wired in (its own branch); here the module draws it beside."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_set_pages import Person, a_set, create_table, not_a_set

pytestmark = E2E

SHOTS = Path("/tmp/shots/story")

DRAW = """async ([gameId, you]) => {
  const story = await import("/static/js/set/story.js");
  const body = await (await fetch(`/api/games/${gameId}/story`)).json();
  let list = document.getElementById("story-under-test");
  if (!list) {
    list = document.createElement("ol");
    list.id = "story-under-test";
    list.className = "story";
    const panel = document.getElementById("timeline");
    panel.parentNode.insertBefore(list, panel);
    panel.hidden = true;
  }
  const entries = story.mergeEntries([], body.entries);
  story.renderStory(list, entries, {you});
  story.renderStory(list, story.mergeEntries(entries, body.entries), {you});
  return body.entries.length;
}"""


@pytest.fixture(scope="module")
def played(browser, server):
    ada = Person(browser, server)
    ada.name_myself("ada")
    game_id = create_table(ada, rules="classic", attributes="4", visibility="open")
    bob = Person(browser, server, viewport=PHONE)
    bob.page.goto(ada.page.input_value("#share-url"))
    bob.page.fill("#name-input", "bob")
    bob.page.click("#name-form button[type=submit]")
    bob.page.wait_for_selector("#scores li[data-player=bob] .badge-you")
    bob.wait_live()
    bob.click_cards(not_a_set(bob.cards()))
    bob.page.wait_for_selector("#message:has-text('Not a set')")
    ada.page.fill("#chat-input", "unlucky, bob")
    ada.page.press("#chat-input", "Enter")
    bob.page.wait_for_selector("#timeline .chat-line:has-text('unlucky')")
    ada.click_cards(a_set(ada.cards()))
    ada.page.wait_for_selector("#scores li[data-player=ada]:has-text('1')")
    yield ada, bob, game_id
    ada.close()
    bob.close()


@pytest.mark.parametrize("who", ["ada", "bob"])
def test_the_story_is_drawn_with_cards_and_why_at_both_sizes(played, who):
    ada, bob, game_id = played
    person = ada if who == "ada" else bob
    count = person.page.evaluate(DRAW, [game_id, who])
    lines = person.page.locator("#story-under-test > li")
    assert lines.count() == count
    wrong = person.page.locator("#story-under-test .story-wrong")
    assert "bob claimed three cards that are not a set" in wrong.inner_text()
    assert wrong.locator(".story-card svg").count() == 3
    assert wrong.locator(".story-why li").count() >= 1
    assert "two alike, one different" in wrong.locator(".story-why").inner_text()
    found = person.page.locator("#story-under-test .story-set")
    assert found.locator(".story-card svg").count() == 3
    chat = person.page.locator("#story-under-test .story-chat")
    assert "unlucky, bob" in chat.inner_text()
    # Small cards: about two rem wide, never the board's size.
    width = wrong.locator(".story-card").first.bounding_box()["width"]
    assert 20 <= width <= 40, width
    SHOTS.mkdir(parents=True, exist_ok=True)
    person.page.locator("#story-under-test").scroll_into_view_if_needed()
    person.page.screenshot(path=str(SHOTS / f"story-{who}.png"), full_page=False)
