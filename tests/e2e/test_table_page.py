"""The Set table page as a new player meets it, at 1280x800 and on a 390x844 phone: the board
uses the width it has, the phone puts the board first with the scores in view, a dealt card
arrives after the taken one has left, badges and scores stay inside their panel, a clock runs at
every multiplayer table, errors stand by the control that caused them and focus goes where the
next key goes. Positions and sizes are measured; screenshots (light and dark) go to
test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest

from cards.engine.card import all_cards
from cards.engine.rules import is_set
from tests.e2e.conftest import ARTIFACTS, E2E, PHONE
from tests.e2e.test_rated_game import sign_up
from tests.e2e.test_set_pages import Person, a_set, not_a_set

pytestmark = E2E

LAPTOP = {"width": 1280, "height": 800}


def new_table(server, options: str = "{'rules': 'classic', 'attributes': 4}", **extra) -> int:
    """Create an open Set table as an operator would; return its id. It deals at its first join
    unless its options say `'start': 'wait'` (a waiting room)."""
    more = "".join(f", {key}={value!r}" for key, value in extra.items())
    code = (
        "from games import services;"
        f"options = {{'start': 'now', **{options}}};"
        f"game = services.game_create(kind='set', options=options, is_open=True{more});"
        "print(game.pk)"
    )
    return int(server.shell(code).splitlines()[-1])


def seat(browser, server, game_id: int, name: str, viewport=LAPTOP) -> Person:
    """A person named `name` who follows the table's share link and sits down."""
    person = Person(browser, server, viewport=viewport)
    person.goto(f"/play/{game_id}/?join=1")
    person.page.fill("#name-input", name)
    person.page.click("#name-form button[type=submit]")
    # A first join may deal a puzzle (its sets counted): allow a loaded machine its time.
    person.page.wait_for_selector(f"#scores li[data-player='{name}'] .badge-you", timeout=20000)
    person.wait_live()
    return person


def start_if_waiting(person: Person) -> None:
    """A table that opens waiting (contract A) is started by whoever may start it."""
    page = person.page
    if page.locator("#start-btn").is_visible():
        page.click("#start-btn")
    page.wait_for_selector("#board .card", timeout=10000)


def rect(page, selector: str) -> dict:
    return page.eval_on_selector(
        selector,
        "n => { const r = n.getBoundingClientRect();"
        " return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,"
        " width: r.width, height: r.height}; }",
    )


def shoot(person: Person, name: str) -> None:
    """Screenshots in the light and the dark theme (the theme is put back after)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page = person.page
    for theme in ("light", "dark"):
        page.evaluate("t => document.documentElement.dataset.theme = t", theme)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{theme}.png"), animations="disabled")
    page.evaluate("() => document.documentElement.dataset.theme = 'light'")


@pytest.fixture(scope="module")
def pair(browser, server):
    """Ann at a laptop and Ben on a phone at one classic table, the cards dealt."""
    game_id = new_table(server)
    ann = seat(browser, server, game_id, "ann")
    ben = seat(browser, server, game_id, "ben", viewport=PHONE)
    ann.page.wait_for_selector("#scores li[data-player=ben]")
    start_if_waiting(ann)
    ben.page.wait_for_selector("#board .card")
    yield ann, ben, game_id
    ann.close()
    ben.close()


def test_the_board_uses_the_width_it_has_at_1280x800(pair):
    ann, _, _ = pair
    page = ann.page
    board = rect(page, "#board")
    side = rect(page, ".table-layout .side")
    cards = page.eval_on_selector_all(
        "#board .card:not(.taken)", "cs => cs.map(c => c.getBoundingClientRect().right)"
    )
    # The cards reach the sidebar: no empty band between the board and it.
    assert side["left"] - max(cards) < 40, (board, side, max(cards))
    # The whole board, and the buttons under it, are in the window without scrolling.
    assert rect(page, "#controls")["bottom"] <= LAPTOP["height"]
    card = rect(page, "#board .card:not(.taken)")
    assert card["width"] > card["height"] > 100  # wide cards, large enough to read
    shoot(ann, "table-1280x800")


def test_on_a_phone_the_board_comes_first_under_a_compact_header_with_the_scores_in_view(pair):
    _, ben, _ = pair
    page = ben.page
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    header = rect(page, ".site-header")
    assert header["height"] < 60, header
    scores = rect(page, "#scorebar")
    board = rect(page, "#board")
    assert scores["bottom"] <= board["top"] and 0 < scores["top"] < 200, (scores, board)
    assert page.locator("#scorebar li[data-player=ann]").is_visible()
    assert page.locator("#scorebar li[data-player=ben].me").is_visible()
    assert board["top"] < 230, board
    # Twelve cards, three to a row: the first nine at least are in the first screen.
    ninth = page.eval_on_selector_all(
        "#board .card:not(.taken)",
        "cs => cs.map(c => c.getBoundingClientRect().bottom).sort((a, b) => a - b)[8]",
    )
    assert ninth <= PHONE["height"], ninth
    shoot(ben, "table-390x844")


def test_a_dealt_card_arrives_after_the_taken_one_has_left_its_slot(pair):
    ann, _, _ = pair
    watch_overlap(ann.page)
    triple = a_set(ann.cards())
    ann.click_cards(triple)
    assert_arrivals_wait(ann.page)


def set_free_deck() -> list[str]:
    """A whole deck whose first twelve cards hold no set and whose thirteenth makes one."""
    cards = list(all_cards(4))
    random.Random(7).shuffle(cards)
    board: list = []
    for card in cards:
        pairs = itertools.combinations(board, 2)
        if len(board) < 12 and not any(is_set(a, b, card) for a, b in pairs):
            board.append(card)
    third = next(c for c in cards if c not in board and is_set(board[0], board[1], c))
    rest = [c for c in cards if c not in board and c != third]
    return [card.protocol for card in board + [third] + rest]


def test_a_card_moved_into_a_taken_ones_slot_arrives_after_it_has_left(browser, server):
    # Fifteen cards (the first twelve hold no set): the set taken, no card is dealt and the
    # last column's cards move into the holes; they too wait until the taken ones have left.
    options = f"{{'rules': 'classic', 'attributes': 4, 'deck': {set_free_deck()!r}}}"
    game_id = new_table(server, options)
    ann = seat(browser, server, game_id, "ann")
    try:
        start_if_waiting(ann)
        ann.page.wait_for_function(
            "document.querySelectorAll('#board .card:not(.taken)').length === 15"
        )
        watch_overlap(ann.page)
        cards = ann.cards()
        triple = a_set(cards)
        assert any(cards.index(card) < 12 for card in triple), (cards, triple)
        ann.click_cards(triple)
        assert_arrivals_wait(ann.page)
        assert len(ann.cards()) == 12
    finally:
        ann.close()


def assert_arrivals_wait(page) -> None:
    page.wait_for_selector("#message:has-text('Set!')")
    page.wait_for_timeout(1200)
    assert page.evaluate("window.ghosts") > 0  # the taken cards were seen leaving
    assert page.evaluate("window.overlap") < 0.05, page.evaluate("window.overlap")


def watch_overlap(page) -> None:
    # Every frame, for each slot with a leaving card, how visible the new card there is.
    page.evaluate(
        """() => {
          window.overlap = 0; window.ghosts = 0;
          const opacity = (n) => Number(getComputedStyle(n.querySelector('svg') || n).opacity)
            * Number(getComputedStyle(n).opacity);
          const frame = () => {
            for (const ghost of document.querySelectorAll('#board .card.taken')) {
              window.ghosts += 1;
              const slot = `${ghost.style.gridRow}/${ghost.style.gridColumn}`;
              for (const card of document.querySelectorAll('#board .card:not(.taken)')) {
                if (`${card.style.gridRow}/${card.style.gridColumn}` !== slot) continue;
                window.overlap = Math.max(window.overlap, Math.min(opacity(ghost), opacity(card)));
              }
            }
            requestAnimationFrame(frame);
          };
          requestAnimationFrame(frame);
        }"""
    )


def test_a_locked_out_badge_stays_on_one_line_and_the_score_inside_the_panel(pair):
    ann, ben, _ = pair
    wrong = not_a_set(ann.cards())
    ann.click_cards(wrong)
    ann.page.wait_for_selector("#scores li[data-player=ann] .badge-locked")
    page = ann.page
    badge = rect(page, "#scores li[data-player=ann] .badge-locked")
    line = page.eval_on_selector(
        "#scores li[data-player=ann] .badge-locked",
        "b => parseFloat(getComputedStyle(b).lineHeight)",
    )
    assert badge["height"] <= line * 1.3 + 2, badge  # one line, never two
    panel = rect(page, "#scores")
    for name in ("ann", "ben"):
        value = rect(page, f"#scores li[data-player={name}] .score-value")
        assert panel["left"] <= value["left"] and value["right"] <= panel["right"] + 0.5
    # The other player's line of the game: ben plays on (it unlocks ann) for the next tests.
    ben.click_cards(a_set(ben.cards()))
    ann.page.wait_for_selector("#scores li[data-player=ann] .badge-locked", state="detached")


def test_a_multiplayer_table_shows_a_running_game_clock(pair):
    ann, ben, _ = pair
    for person in (ann, ben):
        page = person.page
        clock = page.locator("#game-clock")
        assert clock.is_visible()
        first = clock.inner_text()
        assert re.fullmatch(r"\d+:\d\d", first), first
        page.wait_for_function(
            "first => document.getElementById('game-clock').textContent !== first",
            arg=first,
            timeout=5000,  # it ticks every second; a browser starved by the suite, later
        )


def test_a_name_taken_at_the_table_is_said_by_the_join_box_which_keeps_the_focus(
    browser, server, pair
):
    _, _, game_id = pair
    other = Person(browser, server, viewport=PHONE)
    other.name_myself("ann")  # the same name as the player seated
    page = other.goto(f"/play/{game_id}/?join=1")  # the share link: it tries to seat "ann"
    page.wait_for_selector("#join-error:not([hidden])")
    error = page.inner_text("#join-error")
    assert "taken" in error and "ann" in error.lower(), error
    assert error not in page.inner_text("#message")  # not under the board
    field = rect(page, "#join-name")
    said = rect(page, "#join-error")
    assert 0 <= said["top"] - field["bottom"] < 80, (field, said)
    assert page.evaluate("document.activeElement.id") == "join-name"
    assert page.get_attribute("#join-name", "aria-invalid") == "true"
    shoot(other, "table-join-error-390x844")
    # A free name joins, and the keys go to the board.
    page.fill("#join-name", "ann2")
    assert page.locator("#join-error").is_hidden()
    page.click("#join-btn")
    page.wait_for_selector("#scores li[data-player=ann2] .badge-you")
    other.wait_live()
    page.wait_for_function("document.activeElement && document.activeElement.id === 'board'")
    other.close()


def test_the_invite_link_focuses_the_name_field(browser, server, pair):
    _, _, game_id = pair
    newcomer = Person(browser, server, viewport=PHONE)
    page = newcomer.goto(f"/play/{game_id}/?join=1")
    assert page.evaluate("document.activeElement.id") == "name-input"
    field = rect(page, "#name-input")
    assert field["top"] >= 0 and field["bottom"] <= PHONE["height"]  # in view
    newcomer.close()


def test_a_puzzle_table_does_not_count_the_empty_deck(browser, server):
    game_id = new_table(server, "{'rules': 'classic', 'mode': 'puzzle'}")
    person = seat(browser, server, game_id, "pia")
    page = person.page
    start_if_waiting(person)
    assert "Cards left in the deck" not in page.inner_text("main")
    assert page.locator("#clock").is_visible()  # the puzzle's own clock
    person.close()


def test_a_hint_at_a_rated_table_asks_first_and_says_it_makes_the_game_unrated(browser, server):
    game_id = new_table(server, "{'rules': 'classic', 'attributes': 3}", rated=True)
    # A rated table seats accounts: Hana signs up, then follows the table's link.
    person = Person(browser, server)
    sign_up(person, "Hana")
    person.goto(f"/play/{game_id}/?join=1")
    person.page.wait_for_selector("#scores li[data-player='Hana'] .badge-you")
    person.wait_live()
    start_if_waiting(person)
    page = person.page
    person.sent.clear()
    page.click("#hint-btn")
    page.wait_for_selector("#hint-ask:not([hidden])")
    assert "unrated" in page.inner_text("#hint-ask")
    assert page.evaluate("document.activeElement.id") == "hint-yes"
    assert not [m for m in person.sent if m.get("type") == "hint"]  # nothing asked yet
    shoot(person, "table-rated-hint-1280x800")
    page.keyboard.press("Escape")
    assert page.locator("#hint-ask").is_hidden()
    assert page.evaluate("document.activeElement.id") == "hint-btn"
    page.click("#hint-btn")
    page.click("#hint-no")
    assert page.locator("#board .card.hinted").count() == 0
    watcher = Person(browser, server)
    watcher.goto(f"/play/{game_id}/")
    watcher.page.wait_for_selector("#rated-note:not(.unrated)")
    page.click("#hint-btn")
    page.click("#hint-yes")
    page.wait_for_selector("#board .card.hinted")
    assert page.locator("#hint-ask").is_hidden()
    # The note under the players says it live, to the player and to a watcher, without a reload.
    for who in (person, watcher):
        who.page.wait_for_selector("#rated-note.unrated")
        assert who.page.inner_text("#rated-note") == (
            "Not rated: Hana took a hint. It moves no rating."
        )
    watcher.close()
    person.close()


def test_a_declare_score_stays_inside_the_panel_beside_a_long_name_and_its_badges(browser, server):
    # A declarer's minute to pick (5 s by default): the badges are measured on two pages
    # before the declaring one is taken away.
    game_id = new_table(server, "{'rules': 'declare', 'attributes': 4, 'declare_ms': 60000}")
    long_name = "Bartholomew_Zimmerma"  # 20 letters, the longest a name may be
    person = seat(browser, server, game_id, long_name, viewport=LAPTOP)
    other = seat(browser, server, game_id, "Ida", viewport=PHONE)
    start_if_waiting(person)
    person.page.click("#add-btn")  # "voted to add"
    person.page.wait_for_selector(f"#scores li[data-player='{long_name}'] .badge-voted")
    person.page.click("#declare-btn")  # "declaring"
    for who in (person, other):
        page = who.page
        page.wait_for_selector(f"#scores li[data-player='{long_name}'] .badge-declaring")
        panel = rect(page, "#scores")
        row = f"#scores li[data-player='{long_name}']"
        value = rect(page, f"{row} .score-value")
        assert value["right"] <= panel["right"] + 0.5 and value["left"] >= panel["left"]
        for badge in page.locator(f"{row} .badge").all():
            box = badge.bounding_box()
            assert box["height"] < 24, box  # one line each, never broken in two
            assert box["x"] + box["width"] <= panel["right"] + 0.5
    shoot(person, "table-declare-badges-1280x800")
    other.page.locator("#scores").scroll_into_view_if_needed()
    shoot(other, "table-declare-badges-390x844")
    person.close()
    other.close()


def test_a_spectator_is_offered_the_players_next_game_never_a_seat_error(browser, server):
    deck = (
        "from cards.engine.deck import new_deck;"
        "print(repr([c.protocol for c in new_deck(3, rng=5)[:12]]))"
    )
    cards = server.shell(deck).splitlines()[-1]
    game_id = new_table(server, f"{{'rules': 'classic', 'attributes': 3, 'deck': {cards}}}")
    player = seat(browser, server, game_id, "cleo")
    server.shell(
        f"from games import services; services.seat_add_computer(game_id={game_id}, "
        "speed='instant')",
    )
    start_if_waiting(player)
    watcher = Person(browser, server, viewport=PHONE)
    page = watcher.goto(f"/play/{game_id}/")
    # Connected: "Live", or "Game over" where the instant computer has already won.
    page.wait_for_selector("#connection[data-state=live], #connection[data-state=over]")
    page.wait_for_selector("#result-panel:not([hidden])", timeout=20000)
    assert page.locator("#rematch-btn").is_hidden()  # a spectator has no "Play again"
    player.page.wait_for_selector("#result-panel:not([hidden])", timeout=20000)
    player.page.click("#rematch-btn")
    player.page.wait_for_url(lambda url: not url.endswith(f"/play/{game_id}/"))
    new_id = int(re.search(r"/play/(\d+)/", player.page.url).group(1))
    assert new_id != game_id
    page.wait_for_selector("#next-game:not([hidden])")
    assert "cleo started a new game" in page.inner_text("#rematch-note")
    assert "seat" not in page.inner_text("main").lower()  # no seat-token sentence anywhere
    shoot(watcher, "table-spectator-next-game-390x844")
    page.click("#join-next")
    page.wait_for_url(re.compile(rf"/play/{new_id}/"))
    page.wait_for_selector("#name-input")  # a watcher with no name picks one to join
    watcher.close()
    player.close()


# --- the waiting room (contract A) and the story log (contract B) on the table page -----------


def test_a_table_waits_for_its_players_chats_then_deals_after_a_countdown(browser, server):
    game_id = new_table(server, "{'rules': 'classic', 'attributes': 4, 'start': 'wait'}")
    host = seat(browser, server, game_id, "Tove")
    guest = seat(browser, server, game_id, "Uno", viewport=PHONE)
    host.page.wait_for_selector("#scores li[data-player=Uno]")
    for person in (host, guest):
        page = person.page
        page.wait_for_selector("#waiting-room:not([hidden])")
        assert page.locator("#board").is_hidden()
        assert page.locator("#controls").is_hidden()
        assert page.locator("#game-clock").is_hidden()  # no clock before the deal
        assert "Tove, Uno" in page.inner_text("#waiting-names")
        room = rect(page, "#waiting-room")
        assert room["top"] < 260, room  # the room is where the board will be, in view
        side = rect(page, ".table-layout .side")
        if person is guest:  # one column on a phone: the room is as wide as the screen
            assert room["width"] > PHONE["width"] - 40 and side["top"] > room["bottom"]
        else:  # the side keeps its place beside the room, as it will beside the board
            assert room["right"] < side["left"] and side["width"] < 330
    assert host.page.locator("#start-btn").is_visible()
    assert guest.page.locator("#start-btn").is_hidden()  # only the host may start
    assert "Tove starts the game" in guest.page.inner_text("#waiting-text")
    # They chat while waiting.
    guest.page.fill("#chat-input", "ready when you are")
    guest.page.press("#chat-input", "Enter")
    host.page.wait_for_selector("#timeline li:has-text('ready when you are')")
    shoot(host, "table-waiting-1280x800")
    shoot(guest, "table-waiting-390x844")
    host.page.click("#start-btn")
    for person in (host, guest):
        person.page.wait_for_selector("#waiting-text:has-text('The cards are dealt in')")
    shoot(guest, "table-countdown-390x844")
    for person in (host, guest):
        person.page.wait_for_selector("#board .card", timeout=8000)
        assert person.page.locator("#waiting-room").is_hidden()
        assert re.fullmatch(r"0:0\d", person.page.inner_text("#game-clock"))
    # The host's next key goes to the board: a card's key picks it.
    host.page.wait_for_function("document.activeElement && document.activeElement.id === 'board'")
    host.page.keyboard.press("Digit1")
    host.page.wait_for_selector("#board .card.selected")
    host.close()
    guest.close()


def test_the_table_log_tells_the_story_with_cards_and_why_and_keeps_it_on_reload(browser, server):
    game_id = new_table(server)
    ann = seat(browser, server, game_id, "Vera")
    ben = seat(browser, server, game_id, "Wim", viewport=PHONE)
    ben.click_cards(not_a_set(ben.cards()))
    ben.page.wait_for_selector("#message:has-text('Not a set')")
    ann.page.fill("#chat-input", "unlucky, Wim")
    ann.page.press("#chat-input", "Enter")
    ann.click_cards(a_set(ann.cards()))
    for person in (ann, ben):
        page = person.page
        wrong = page.locator("#timeline .story-wrong")
        wrong.wait_for()
        assert "Wim claimed three cards that are not a set" in wrong.inner_text()
        assert wrong.locator(".story-card svg").count() == 3
        assert "two alike, one different" in wrong.locator(".story-why").inner_text()
        found = page.locator("#timeline .story-set")
        found.wait_for()
        assert found.locator(".story-card svg").count() == 3
        page.wait_for_selector("#timeline .story-chat:has-text('unlucky, Wim')")
        # Each line once: the story's ids are unique in the list.
        ids = page.eval_on_selector_all("#timeline > li", "ls => ls.map(l => l.dataset.entry)")
        assert len(ids) == len(set(ids)) >= 5, ids
        log = rect(page, "#timeline")
        card = page.locator("#timeline .story-card").first.bounding_box()
        assert log["left"] <= card["x"] and card["x"] + card["width"] <= log["right"]
    ben.page.locator("#timeline").scroll_into_view_if_needed()
    shoot(ben, "table-story-390x844")
    shoot(ann, "table-story-1280x800")
    before = ben.page.inner_text("#timeline")
    ben.page.reload()
    ben.page.wait_for_selector("#timeline .story-set")
    ben.page.wait_for_function(
        "n => document.querySelectorAll('#timeline > li').length >= n", arg=len(ids)
    )
    assert ben.page.inner_text("#timeline") == before  # a reload keeps the whole log
    ann.close()
    ben.close()
