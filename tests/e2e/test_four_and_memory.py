"""4Set Junior and Memory in a real browser (headless Debian chromium): a 4Set Junior table made
from the lobby and played to its end with four-valued cards, and a Memory table whose cards are
turned up one by one (a wrong claim stays face up until the next click, a set scores); the
screenshots of both at 1280x800 and 390x844, light and dark."""

from __future__ import annotations

import itertools
import re

from cards.engine.fast import is_set_codes
from cards.engine.table.codes import codes_of
from cards.engine.table.modes import find_claim
from tests.e2e.conftest import ARTIFACTS, E2E
from tests.e2e.test_set_pages import Person, create_table

pytestmark = E2E

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def a_4set(cards: list[str]) -> list[str]:
    codes = codes_of(cards, 3, 4)
    found = find_claim("4setjr", codes, 3)
    assert found is not None, cards
    return [cards[codes.index(code)] for code in found]


def screenshots(browser, server, url: str, name: str) -> None:
    """The table at each size, in the light and the dark theme."""
    ARTIFACTS.mkdir(exist_ok=True)
    for size, viewport in SIZES.items():
        for scheme in ("light", "dark"):
            context = browser.new_context(viewport=viewport, color_scheme=scheme)
            page = context.new_page()
            page.goto(server.url + url)
            page.wait_for_selector("#board .card")
            page.screenshot(
                path=str(ARTIFACTS / f"{name}-{size}-{scheme}.png"), animations="disabled"
            )
            context.close()


def player_screenshots(page, name: str) -> None:
    """A player's own page (what only they see) at each size, light and dark; then as it was."""
    for size, viewport in SIZES.items():
        for scheme in ("light", "dark"):
            page.set_viewport_size(viewport)
            page.emulate_media(color_scheme=scheme)
            page.wait_for_timeout(200)
            page.screenshot(
                path=str(ARTIFACTS / f"{name}-{size}-{scheme}.png"), animations="disabled"
            )
    page.set_viewport_size({"width": 1280, "height": 900})
    page.emulate_media(color_scheme="light")


def test_a_4set_junior_table_is_played_to_its_end(browser, server):
    fay = Person(browser, server)
    fay.name_myself("fay")
    game_id = create_table(fay, rules="classic", attributes="3", mode="4setjr")
    page = fay.page
    assert "4Set Junior" in page.inner_text("h1")
    assert "Find a 4Set" in page.inner_text("#turn")
    cards = fay.cards()
    assert len(cards) >= 11
    # The cards are four-valued and drawn so: some fourth value shows on an 11-card board.
    assert any(word in " ".join(cards) for word in ("FOUR", "ORANGE", "CHECKERED"))
    screenshots(browser, server, f"/play/{game_id}/", "4setjr")
    claims = 0
    while page.locator("#result-panel").is_hidden():
        four = a_4set(fay.cards())
        before = page.inner_text("#scores")
        fay.click_cards(four)
        page.wait_for_function(
            "before => document.querySelector('#scores').innerText !== before || "
            "!document.querySelector('#result-panel').hidden",
            arg=before,
        )
        claims += 1
    assert 13 <= claims <= 16
    assert re.search(r"fay", page.inner_text("#result-text"))
    fay.close()


def test_a_memory_table_turns_cards_up_for_its_player_alone(browser, server):
    mia = Person(browser, server)
    mia.name_myself("mia")
    game_id = create_table(mia, rules="classic", attributes="4", mode="memory")
    page = mia.page
    assert page.locator("#board .card.face-down").count() == 21
    # A watcher sees the backs only.
    watcher = Person(browser, server)
    watcher.goto(f"/play/{game_id}/").wait_for_selector("#board .card")
    assert watcher.page.locator("#board .card.face-down").count() == 21
    screenshots(browser, server, f"/play/{game_id}/", "memory")

    def card_at(p: int) -> str | None:
        return page.get_attribute(f'#board .card[data-index="{p}"]', "data-card")

    def is_up(p: int) -> bool:
        return page.locator(f'#board .card[data-index="{p}"].face-down').count() == 0

    def turn_up(p: int, before: str | None = None) -> str | None:
        """Turn up place ``p`` and return its card, read where it is seen face up; None if the
        scores changed from ``before`` first (a third card that makes a set is face up a moment
        only, before the card dealt in its place comes face down)."""
        page.click(f'#board .card[data-index="{p}"]')
        seen = page.wait_for_function(
            "([i, before]) => { "
            "const c = document.querySelector(`#board .card[data-index='${i}']`); "
            "if (c && !c.classList.contains('face-down')) return {card: c.dataset.card}; "
            "return before !== null && document.querySelector('#scores').innerText !== before"
            " && {card: null}; }",
            arg=[p, before],
        ).json_value()
        return seen["card"]

    def claim_chunk(chunk: list[int]) -> bool:
        """Turn up the three places (a claim at the third); True if it scored."""
        before = page.inner_text("#scores")
        for p in chunk:
            if is_up(p) and page.locator(f'#board .card[data-index="{p}"].selected').count():
                known[p] = card_at(p)  # turned up already in this selection
            else:
                known[p] = turn_up(p, before) or known.get(p)
        page.wait_for_function(
            "([before, chunk]) => document.querySelector('#scores').innerText !== before || "
            "(document.querySelectorAll('#board .card.selected').length === 0 && chunk.every("
            "i => !document.querySelector(`#board .card[data-index='${i}']`).classList"
            ".contains('face-down')))",
            arg=[before, chunk],
        )
        return page.inner_text("#scores") != before

    known: dict[int, str] = {}
    # Board position i is drawn at index i (column i // 3, row i % 3).
    first = turn_up(0)
    # A card turned up cannot be turned down; the watcher still sees its back.
    page.click('#board .card[data-index="0"]')
    assert card_at(0) == first and is_up(0)
    assert watcher.page.locator('#board .card[data-index="0"].face-down').count() == 1

    chunks = [[i, i + 1, i + 2] for i in range(0, 21, 3)]
    refused_seen = False
    for _attempt in range(5):
        known.clear()
        scored = False
        for n, chunk in enumerate(chunks):
            if claim_chunk(chunk):
                scored = True  # a set by chance: new cards came; learn the board again
                break
            assert "Not a Set" in page.inner_text("#message")
            assert all(card_at(p) == known[p] for p in chunk), "the three stay face up"
            if not refused_seen and n + 1 < len(chunks):
                refused_seen = True
                mia.shot("memory-refused")
                player_screenshots(page, "memory-player")
                nxt = chunks[n + 1][0]
                known[nxt] = turn_up(nxt)  # the next click hides them and starts anew
                assert all(not is_up(p) for p in chunk)
        if not scored:
            break
    assert refused_seen and len(known) == 21
    triple = next(
        t
        for t in itertools.combinations(range(21), 3)
        if is_set_codes(*codes_of([known[p] for p in t], 4))
    )
    assert claim_chunk(list(triple)), "a set scores"
    shown = sorted(known[p] for p in triple)
    for person in (mia, watcher):  # the set leaves face up for everyone
        person.page.wait_for_function(
            "n => document.querySelectorAll('#last-set .card').length === n", arg=3
        )
        assert sorted(person.cards("#last-set")) == shown
    assert page.locator("#board .card.face-down").count() == 21  # new cards come face down
    watcher.close()
    mia.close()


def test_a_4set_table_shows_every_fourth_value_and_takes_a_4set(browser, server):
    gus = Person(browser, server)
    gus.name_myself("gus")
    game_id = create_table(gus, rules="classic", attributes="4", mode="4set")
    page = gus.page
    cards = gus.cards()
    assert len(cards) >= 15 and "4Set" in page.inner_text("h1")
    screenshots(browser, server, f"/play/{game_id}/", "4set")
    codes = codes_of(cards, 4, 4)
    four = [cards[codes.index(code)] for code in find_claim("4set", codes, 4)]
    gus.click_cards(four)
    page.wait_for_selector("#message:has-text('4Set!')")
    # The move's result (the message) comes a frame before its state (the scores).
    page.wait_for_selector("#scores li[data-player=gus] .score-value:text-is('1')")
    gus.close()
