"""Issue 24, item 8 (the Square Game): the board, the controls and the palette fit one screen at
1280x800 and on a 390x844 phone, so no move needs a scroll; on a phone every touch target (the
buttons, the pieces, the green dots where the chosen piece fits) is at least 40 px; the page
tells moves in words and a message goes when the next move is made. Screenshots go to
/tmp/shots/site/ (square-fit-*.png) for a person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_set_pages import Person
from tests.e2e.test_square_page import my_view, start_game

pytestmark = E2E

SHOTS = Path("/tmp/shots/site")
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": PHONE}
# What must be in view together, without scrolling, at each move.
PLAY_AREA = ["#turn", "#square-board", "#controls", "#palette-panel"]
TARGETS = ["#rotate-btn", "#flip-btn", "#place-btn", "#pass-btn", "#palette .sq-palette-piece"]


def boxes(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(
        selector,
        """nodes => nodes.map(n => {
             const r = n.getBoundingClientRect();
             return {x: r.x, y: r.y, width: r.width, height: r.height};
           })""",
    )


def assert_in_view(page, viewport: dict, selectors=PLAY_AREA) -> None:
    for selector in selectors:
        for box in boxes(page, selector):
            assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"] + 0.5, (
                selector,
                box,
            )
            assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5, (
                selector,
                box,
            )


def choose_a_piece_that_fits(page, view: dict) -> tuple[int, int]:
    piece, perm, _x, _y = next(m for m in view["legal"] if m[1] == 1)
    page.click(f"#palette .sq-palette-piece[data-piece='{piece}']")
    page.wait_for_selector("#square-board .sq-spot", state="attached")
    return piece, perm


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_board_and_the_palette_fit_one_screen_at_each_move(browser, server, size):
    SHOTS.mkdir(parents=True, exist_ok=True)
    viewport = SIZES[size]
    person = Person(browser, server, viewport=viewport)
    person.name_myself(f"fit{size}")
    game_id = start_game(person, players="2", computers="1")
    page = person.page
    opened_at = None
    for move in range(3):
        page.wait_for_selector("#square-root[data-your-turn='1']")
        page.wait_for_timeout(150)
        scrolled = page.evaluate("window.scrollY")
        page.screenshot(path=str(SHOTS / f"square-fit-{size}-turn{move}.png"), full_page=True)
        if opened_at is None:
            opened_at = scrolled  # a phone opens scrolled to the game, under the site's header
            assert size == "phone" or opened_at == 0
        assert scrolled == opened_at, "a move needed a scroll"
        # The message under the board told an earlier move (or a refusal): the computer's
        # move since has cleared it, unless the last move is this player's own (moving again).
        message = page.inner_text("#message")
        assert message == "" or page.inner_text("#last-status").startswith("You"), message
        if move == 0:
            page.keyboard.press("Enter")  # nothing chosen yet: told in words, near the board
            assert page.inner_text("#message") == "Choose a piece first."
        view = my_view(person, game_id)
        piece, _perm = choose_a_piece_that_fits(page, view)
        assert_in_view(page, viewport)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        if size == "phone":
            for selector in TARGETS:
                for box in boxes(page, selector):
                    assert box["width"] >= 40 and box["height"] >= 40, (selector, box)
            # Each green dot answers a touch 40 px across (its ring is drawn; a touch within
            # it takes that placement, the nearest dot's where rings overlap).
            for box in boxes(page, "#square-board .sq-spot-target"):
                assert box["width"] >= 39.5 and box["height"] >= 39.5, box
        page.screenshot(path=str(SHOTS / f"square-fit-{size}-move{move}.png"))
        # Place it by a click on a green dot, as a person would.
        dot = boxes(page, "#square-board .sq-spot")[0]
        page.mouse.click(dot["x"] + dot["width"] / 2, dot["y"] + dot["height"] / 2)
        page.wait_for_selector(
            f"#palette .sq-palette-piece[data-piece='{piece}']", state="detached"
        )
        assert page.evaluate("window.scrollY") == opened_at, "a move scrolled the page"
        for told in (".square-main", "#last-status", "#timeline"):
            assert "Status" not in page.inner_text(told), told  # the codes stay in the API
        if my_view(person, game_id)["over"]:
            break
    person.close()
