"""Issue 24, item 8 (the Square Game): the board, the controls and the palette fit one screen at
1280x800 and on a 390x844 phone, so no move needs a scroll; on a phone every touch target (the
buttons, the pieces, the green dots where the chosen piece fits) is at least 40 px; the page
tells moves in words and a message goes when the next move is made. Screenshots go to
/tmp/shots/site/ (square-fit-*.png) for a person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import E2E, PHONE, WAIT_MS
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
        # A piece chosen: "Choose a piece first." is done; a note of this player's own last
        # move ("... you move again") stays until the next move.
        assert page.inner_text("#message") == message
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


def test_on_a_touch_screen_a_touch_in_a_dots_ring_shows_then_places_that_placement(browser, server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        # A piece with two placements or more in its first permutation (the palette's): the
        # computer's opening is random, and after a few openings no piece has one; then a new
        # game is started.
        for _ in range(8):
            page.goto(server.url + "/square/")
            page.fill("#square-name", "tap")
            page.select_option("#square-players", "2")
            page.select_option("#square-computers", "1")
            page.select_option("#square-speed", "instant")
            page.tap("button:has-text('Start a game')")
            page.wait_for_selector("#square-root[data-your-turn='1']")
            game_id = int(page.url.rstrip("/").split("/")[-1])
            view = page.evaluate("id => fetch(`/api/games/${id}/`).then(r => r.json())", game_id)[
                "view"
            ]
            count = {}
            for p, q, _x, _y in view["legal"]:
                count[(p, q)] = count.get((p, q), 0) + 1
            found = [key for key, n in count.items() if key[1] == 1 and n > 1]
            if found:
                break
        piece, perm = found[0]
        page.tap(f"#palette .sq-palette-piece[data-piece='{piece}']")
        page.wait_for_selector("#square-board .sq-spot-target", state="attached")
        # A point 15 px from a dot (a finger's width off it, inside its 40 px ring), on the side
        # away from its nearest neighbour, so that it is nearer this dot than any other.
        target = page.evaluate(
            """() => {
              const dots = [...document.querySelectorAll('#square-board .sq-spot')].map(d => {
                const r = d.getBoundingClientRect();
                return [r.x + r.width / 2, r.y + r.height / 2, d];
              });
              // The last dot: the ghost starts on the first (a touch there places at once).
              const [x, y, dot] = dots[dots.length - 1];
              let away = [1, 0], best = Infinity;
              for (const [ox, oy] of dots.slice(0, -1)) {
                const d = Math.hypot(ox - x, oy - y);
                if (d < best) { best = d; away = [(x - ox) / d, (y - oy) / d]; }
              }
              return {x: x + 15 * away[0], y: y + 15 * away[1],
                      cx: +dot.getAttribute('cx'), cy: +dot.getAttribute('cy')};
            }"""
        )
        ring = page.locator("#square-board .sq-spot-target").first.bounding_box()
        assert ring["width"] >= 39.5
        page.touchscreen.tap(target["x"], target["y"])  # the first touch shows the ghost ...
        page.wait_for_selector("#ghost-info[data-legal='1']")
        assert "Touch it again or press Place" in page.inner_text("#ghost-info")
        page.screenshot(path=str(SHOTS / "square-fit-touch-ghost.png"))
        page.touchscreen.tap(target["x"], target["y"])  # ... the second places it
        chosen = f"#palette .sq-palette-piece[data-piece='{piece}']"
        page.wait_for_selector(chosen, state="detached")
        placed = page.evaluate("id => fetch(`/api/games/${id}/`).then(r => r.json())", game_id)[
            "view"
        ]["placements"]
        mine = [p for p in placed if p["seat"] == 1]
        assert len(mine) == 1 and (mine[0]["piece"], mine[0]["permutation"]) == (piece, perm)
        # It lies where the dot said: the dot marks the middle of that very placement.
        legal = {(x, y) for p, q, x, y in view["legal"] if (p, q) == (piece, perm)}
        assert (mine[0]["x"], mine[0]["y"]) in legal
        assert not errors, errors
    finally:
        context.close()


# The original simulator's full test game (squareplay-tests/full_game.json) but its last move:
# seat 3 has emptied its hand, and in the final round seat 4's pass ends the game. Each move is
# (seat,) for a pass or (seat, piece, permutation, x, y) for a placement, after the opening 13/4.
FULL_GAME_BUT_LAST = [
    (1,), (2,), (3,), (4,), (1, 9, 1, 16, 16), (1, 5, 2, 17, 15), (1, 8, 4, 13, 15),
    (2, 4, 1, 14, 17), (3, 5, 7, 15, 16), (3, 6, 2, 17, 16), (3, 15, 2, 15, 17),
    (3, 3, 1, 16, 19), (4,), (1,), (2,), (3,), (4, 3, 1, 17, 19), (4, 16, 1, 14, 19),
    (4, 11, 6, 15, 20), (4, 15, 2, 16, 19), (4, 5, 2, 18, 19), (1, 1, 2, 19, 18),
    (1, 12, 4, 17, 18), (1, 7, 1, 20, 18), (2, 14, 4, 18, 17), (2, 5, 5, 17, 16),
    (2, 16, 6, 19, 15), (2, 11, 2, 21, 15), (2, 7, 6, 21, 15), (2, 6, 1, 13, 16),
    (2, 12, 4, 11, 18), (3, 13, 1, 12, 18), (3, 2, 2, 12, 14), (3, 16, 1, 11, 16),
    (3, 4, 8, 11, 19), (3, 14, 2, 12, 18), (3, 9, 5, 10, 19), (3, 7, 8, 9, 16),
    (3, 8, 4, 8, 19), (4, 6, 1, 10, 15), (1, 4, 1, 18, 22), (2, 9, 1, 19, 22),
    (3, 1, 7, 9, 14), (3, 12, 7, 9, 16), (3, 11, 1, 20, 22), (3, 10, 1, 11, 14),
]  # fmt: skip


def near_the_end() -> str:
    """The shell code that makes that game (ann, bob and cy in seats 1-3) and prints its id."""
    fields = ("player_num", "piece_num", "permutation", "x", "y")
    moves = [{"piece_num": 13, "permutation": 4}]
    for move in FULL_GAME_BUT_LAST:
        moves.append({"type": int(len(move) > 1), **dict(zip(fields, move, strict=False))})
    return (
        "from games import services\n"
        "from games.models import Player\n"
        "from squaregame.rules import clean_save\n"
        f"save = clean_save({{'board': [], 'moves': {moves!r}}})\n"
        "game = services.game_create(kind='square', options={'players': 4, 'save': save},"
        " is_open=True)\n"
        "for name in ('ann', 'bob', 'cy'):\n"
        "    services.game_join(game_id=game.pk, player=Player.objects.create(name=name))\n"
        "print(game.pk)\n"
    )


def test_a_message_goes_when_the_game_ends(browser, server):
    game_id = int(server.shell(near_the_end()).splitlines()[-1])
    person = Person(browser, server, viewport=PHONE)
    page = person.goto(f"/square/{game_id}/?join=1")
    page.fill("#name-input", "di")
    page.click("#name-form button[type=submit]")
    page.wait_for_selector("#players li[data-player=di] .badge-you")
    person.wait_live()
    page.wait_for_selector("#square-root[data-your-turn='1']")
    assert "Final round" in page.inner_text("#turn")
    page.keyboard.press("Enter")
    assert page.inner_text("#message") == "Choose a piece first."
    page.keyboard.press("p")  # the last pass: the game is over
    page.wait_for_selector("#result-panel:not([hidden])")
    page.wait_for_timeout(300)  # the move's own answer may come after the new state
    assert page.inner_text("#message") == ""
    assert page.inner_text("#last-status").startswith("You passed; game over, won by cy")
    page.screenshot(path=str(SHOTS / "square-fit-game-over-phone.png"))
    person.close()
