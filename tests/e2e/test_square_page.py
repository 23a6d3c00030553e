"""Playing the Square Game in a real browser (headless Debian chromium) against a real daphne.

A person names themself, starts a two-player game against an instant computer from /square/,
waits for the computer's opening, then places a piece the way a person does: click a piece in
the palette, turn it, move the ghost over the board (red where illegal, green where legal) and
click; or click one of the green dots that mark where the chosen piece fits. What is drawn (the
palette, the ghost, the board) is compared with where the engine lays the pieces. Every page is
watched for CSP violations and for globals its scripts define. Screenshots go to
test-artifacts/ (square-*.png) for a human to look at.
"""

from __future__ import annotations

import re

from squaregame.engine import piece_segments
from tests.e2e.conftest import E2E
from tests.e2e.test_set_pages import PHONE, Person

SIZE = 32

pytestmark = E2E


def start_game(person: Person, *, players: str, computers: str) -> int:
    page = person.goto("/square/")
    page.select_option("#square-players", players)
    page.select_option("#square-computers", computers)
    page.select_option("#square-speed", "instant")
    person.shot(f"square-new-game-{players}")
    page.click("button:has-text('Start a game')")
    page.wait_for_url(re.compile(r"/square/\d+/$"))
    person.wait_live()
    return int(re.search(r"/square/(\d+)/", page.url).group(1))


def my_view(person: Person, game_id: int) -> dict:
    """The view the page's session sees, read from the JSON API as the page itself would."""
    return person.page.evaluate(
        "id => fetch(`/api/games/${id}/`, {credentials: 'same-origin'}).then(r => r.json())",
        game_id,
    )["view"]


def centre(piece: int, permutation: int) -> tuple[float, float]:
    points = [p for seg in piece_segments(piece, permutation, 0, 0) for p in seg]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def screen_point(person: Person, x: float, y: float) -> tuple[float, float]:
    """Where board point (x, y) is on the screen, by the SVG's own screen transform (the board's
    y axis points up; the page shows the part of the board in play, letterboxed in its box)."""
    person.page.locator("#square-board svg.sq-svg").scroll_into_view_if_needed()
    return tuple(
        person.page.evaluate(
            """([x, y, size]) => {
              const svg = document.querySelector("#square-board svg.sq-svg");
              const point = svg.createSVGPoint();
              point.x = x;
              point.y = size - y;
              const screen = point.matrixTransform(svg.getScreenCTM());
              return [screen.x, screen.y];
            }""",
            [x, y, SIZE],
        )
    )


def illegal_spot(person: Person, view: dict, piece: int, perm: int) -> tuple[int, int]:
    """A zero point on the shown part of the board where the piece, so turned, is not legal."""
    svg = person.page.locator("#square-board svg.sq-svg")
    left, top, width, _ = map(float, svg.get_attribute("viewBox").split())
    legal = {tuple(move) for move in view["legal"]}
    for x in range(int(left) + 3, int(left + width) - 2):
        for y in range(int(SIZE - top - width) + 3, int(SIZE - top) - 2):
            if (piece, perm, x, y) not in legal:
                return x, y
    raise AssertionError("no illegal spot in sight")


def hover_zero_point(person: Person, piece: int, permutation: int, x: int, y: int):
    """Move the mouse so the ghost's zero point lands on (x, y): the piece's middle follows it."""
    cx, cy = centre(piece, permutation)
    person.page.mouse.move(*screen_point(person, x + cx, y + cy))


class Watch:
    """What a page says in its console that a user must never cause: CSP violations."""

    def __init__(self, person: Person):
        self.violations: list[str] = []
        person.page.on("console", self._console)

    def _console(self, message):
        if message.type == "error" and "Content Security Policy" in message.text:
            self.violations.append(message.text)


def globals_added(person: Person) -> list[str]:
    """The names the page's scripts added to ``window``: its own keys less those of an empty
    about:blank window in the same browser. The blank window is a frame of the page's own origin,
    so it is a secure context too (a top-level about:blank lacks ``caches`` and the like)."""
    return person.page.evaluate(
        """() => {
          const frame = document.createElement("iframe");
          document.body.appendChild(frame);
          const bare = new Set(Object.keys(frame.contentWindow));
          frame.remove();
          return Object.keys(window).filter((name) => !bare.has(name)).sort();
        }"""
    )


def lines(person: Person, selector: str, *, flip: int | None = SIZE) -> set[frozenset]:
    """The segments drawn by the <line>s under ``selector``, as sets of their two points. A board
    is drawn with y flipped (screen y = SIZE - y); the palette's pieces with y negated."""
    drawn = person.page.eval_on_selector_all(
        selector, "ls => ls.map(l => ['x1', 'y1', 'x2', 'y2'].map(a => +l.getAttribute(a)))"
    )
    out = set()
    for x1, y1, x2, y2 in drawn:
        y1, y2 = (flip - y1, flip - y2) if flip is not None else (-y1, -y2)
        out.add(frozenset({(round(x1), round(y1)), (round(x2), round(y2))}))
    return out


def laid(piece: int, permutation: int, x: int = 0, y: int = 0) -> set[frozenset]:
    return {frozenset(segment) for segment in piece_segments(piece, permutation, x, y)}


def check_the_palette_draws_each_turn_as_the_engine_lays_it(person: Person):
    """Turn the pieces through all eight permutations with R and F: each palette piece, in each
    turn, is the engine's shape around its zero point."""
    page = person.page
    seen = set()
    for key in "rrrrfrrrr":
        perm = int(re.search(r"permutation (\d)", page.inner_text("#palette-perm")).group(1))
        seen.add(perm)
        for button in page.locator("#palette .sq-palette-piece").all():
            piece = int(button.get_attribute("data-piece"))
            selector = f"#palette .sq-palette-piece[data-piece='{piece}'] line"
            drawn = lines(person, selector, flip=None)
            assert drawn == laid(piece, perm), (piece, perm)
        page.keyboard.press(key)
    assert seen == set(range(1, 9))
    page.keyboard.press("f")  # back to permutation 1
    assert "permutation 1" in page.inner_text("#palette-perm")


def test_a_person_places_a_piece_with_the_palette_the_ghost_and_a_click(browser, server):
    sam = Person(browser, server)
    sam.name_myself("sam")
    watch = Watch(sam)
    game_id = start_game(sam, players="2", computers="1")
    page = sam.page
    # The computer (seat 2) makes the opening; then it is sam's turn (seat 1).
    page.wait_for_selector("#square-root[data-your-turn='1']")
    check_the_palette_draws_each_turn_as_the_engine_lays_it(sam)
    assert page.locator("#players li[data-player=sam] .badge-you").count() == 1
    assert page.inner_text("#players li[data-player=Computer1]").count("computer") == 1
    # The computer's opening, in words: its status code (2) stays in the API.
    last = page.inner_text("#last-status")
    assert last.startswith("Computer1 opened with piece") and "your turn" in last, last
    assert "Status" not in last and page.get_attribute("#last-status", "data-status") == "2"
    assert page.locator("#square-board .sq-seg[data-seat='2']").count() >= 3

    view = my_view(sam, game_id)
    assert view["your_turn"] and view["legal_count"] == len(view["legal"]) > 0
    # A legal placement that needs the piece turned: flipped and/or rotated.
    piece, perm, x, y = next((m for m in view["legal"] if m[1] in (2, 3, 6)), view["legal"][0])

    page.click(f"#palette .sq-palette-piece[data-piece='{piece}']")
    assert page.get_attribute(f".sq-palette-piece[data-piece='{piece}']", "aria-pressed") == "true"
    if perm >= 5:
        page.keyboard.press("f")
    for _ in range((perm - 1) % 4):
        page.click("#rotate-btn")
    assert f"permutation {perm}" in page.inner_text("#palette-perm")

    # Where the view lists no such placement the ghost is red ...
    ix, iy = illegal_spot(sam, view, piece, perm)
    hover_zero_point(sam, piece, perm, ix, iy)
    page.wait_for_selector("#ghost-info[data-legal='0']")
    assert "not legal" in page.inner_text("#ghost-info")
    sam.shot("square-ghost-illegal")
    # ... and on a legal placement it is green before anything is sent.
    hover_zero_point(sam, piece, perm, x, y)
    page.wait_for_selector("#ghost-info[data-legal='1']")
    assert f"Piece {piece}/{perm} at ({x},{y}): legal" in page.inner_text("#ghost-info")
    assert lines(sam, "#square-board .sq-ghost-seg") == laid(piece, perm, x, y)
    sam.shot("square-ghost-legal")

    before = page.locator("#square-board .sq-seg[data-seat='1']").count()
    assert before == 0
    page.mouse.down()
    page.mouse.up()
    page.wait_for_selector("#square-board .sq-seg[data-seat='1']", state="attached")
    count = page.locator("#square-board .sq-seg[data-seat='1']").count()
    assert count == len(piece_segments(piece, perm, x, y))
    assert lines(sam, "#square-board .sq-seg[data-seat='1']") == laid(piece, perm, x, y)
    # The move in words in the game's log (the message under the board tells it only until
    # the next move, which the instant computer may already have made).
    said = f"You placed piece {piece}/{perm} at ({x},{y})"
    page.wait_for_selector(f"#timeline .event-line:has-text('{said}')")
    assert page.locator(f"#palette .sq-palette-piece[data-piece='{piece}']").count() == 0
    assert page.locator("#square-board .sq-square").count() >= 1
    sam.shot("square-after-placing")

    # The replay draws the same board with the square renderer.
    replay = sam.goto(f"/games/{game_id}/replay/")
    replay.wait_for_selector("#replay-root[data-loaded='1']")
    replay.click("#last-btn")
    assert replay.locator("#replay-board .sq-seg[data-seat='1']").count() == count
    sam.shot("square-replay")
    assert not watch.violations, watch.violations
    sam.close()


def test_a_watcher_sees_the_moves_live_and_the_phone_layout_fits(browser, server):
    ann = Person(browser, server)
    watches = [Watch(ann)]
    ann.name_myself("ann")
    game_id = start_game(ann, players="3", computers="1")
    # Two seats taken (ann, Computer1): a third person joins from the share link.
    share = ann.page.input_value("#share-url")
    assert share.endswith(f"/square/{game_id}/?join=1")
    ann.page.wait_for_selector("#players li[data-player=Computer1]")

    bo = Person(browser, server, viewport=PHONE)
    watches.append(Watch(bo))
    bo.page.goto(share)
    bo.page.fill("#name-input", "bo")
    bo.page.click("#name-form button[type=submit]")
    bo.page.wait_for_selector("#players li[data-player=bo] .badge-you")
    bo.wait_live()
    # bo sat last: seat 3 makes the opening, and ann sees it arrive over her socket.
    bo.page.wait_for_selector("#square-root[data-your-turn='1'][data-phase='opening']")
    bo.page.click("#palette .sq-palette-piece[data-piece='13']")
    bo.page.wait_for_selector("#ghost-info[data-legal='1']")
    bo.page.keyboard.press("Enter")
    ann.page.wait_for_selector("#square-board .sq-seg[data-seat='3']", state="attached")
    ann.page.wait_for_selector("#square-root[data-your-turn='1']")
    assert ann.page.locator("#square-board .sq-seg[data-seat='3']").count() == 5
    # A move out of turn is refused with the spec's -1 and changes nothing.
    bo.page.keyboard.press("p")
    bo.page.wait_for_selector("#message:has-text('only on your turn')")
    bo.shot("square-phone")
    width = bo.page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    ann.shot("square-three-players")
    assert globals_added(ann) == globals_added(bo) == []
    assert not any(watch.violations for watch in watches), [w.violations for w in watches]
    bo.close()
    ann.close()


def test_a_click_on_a_green_dot_places_the_piece_there(browser, server):
    cy = Person(browser, server)
    watch = Watch(cy)
    cy.name_myself("cy")
    game_id = start_game(cy, players="2", computers="1")
    page = cy.page
    page.wait_for_selector("#square-root[data-your-turn='1']")
    assert globals_added(cy) == []

    # Choose a piece that fits somewhere once turned, and turn it so.
    view = my_view(cy, game_id)
    piece, perm, x, y = next((m for m in view["legal"] if m[1] in (2, 6, 7)), view["legal"][0])
    page.click(f"#palette .sq-palette-piece[data-piece='{piece}']")
    if perm >= 5:
        page.keyboard.press("f")
    for _ in range((perm - 1) % 4):
        page.keyboard.press("r")
    assert f"permutation {perm}" in page.inner_text("#palette-perm")
    # One green dot for each place the piece fits turned this way ...
    fits = [(m[2], m[3]) for m in view["legal"] if m[:2] == [piece, perm]]
    assert page.locator("#square-board .sq-spot").count() == len(fits)
    # ... drawn where the piece's middle will be when it lies at (x, y).
    cx, cy_ = centre(piece, perm)
    dot = page.locator(f"#square-board .sq-spot[cx='{x + cx:g}'][cy='{SIZE - (y + cy_):g}']")
    assert dot.count() == 1
    dot.scroll_into_view_if_needed()
    box = dot.bounding_box()
    cy.shot("square-green-dots")

    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector(f"#timeline .event-line:has-text('You placed piece {piece}/{perm}')")
    page.wait_for_selector("#square-board .sq-seg[data-seat='1']", state="attached")
    # The engine took exactly the dot's placement, and the board shows it where the engine laid it.
    placed = [p for p in my_view(cy, game_id)["placements"] if p["seat"] == 1]
    assert [(p["piece"], p["permutation"], p["x"], p["y"]) for p in placed] == [(piece, perm, x, y)]
    assert lines(cy, "#square-board .sq-seg[data-seat='1']") == laid(piece, perm, x, y)
    assert page.locator(f"#palette .sq-palette-piece[data-piece='{piece}']").count() == 0
    cy.shot("square-dot-placed")
    assert globals_added(cy) == []
    assert not watch.violations, watch.violations
    cy.close()
