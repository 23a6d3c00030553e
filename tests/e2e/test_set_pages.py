"""Playing Set in a real browser (headless Debian chromium) against a real daphne server.

Each test drives the pages as a person would: the lobby, a table shared by two people, a
computer opponent, solitaire and a replay. Screenshots go to test-artifacts/ for a human to look
at (phone width 390 px, the dark theme, the color-blind marks).
"""

from __future__ import annotations

import itertools
import json
import re
import time

import pytest

from cards.engine.card import parse_card
from cards.engine.rules import is_set
from tests.e2e.conftest import ARTIFACTS, DESKTOP, E2E, PHONE, WAIT_MS

pytestmark = E2E


class Person:
    """One browser context (its own cookies, so its own session and name) with one page."""

    def __init__(self, browser, server, viewport=DESKTOP):
        self.server = server
        self.context = browser.new_context(viewport=viewport)
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", self._console)
        # The page's game sockets pass through here, so a test can drop one or hold a message.
        self.sockets: list = []
        self.sent: list[dict] = []
        self.drop_states = 0
        self.page.route_web_socket(re.compile(r"/ws/games/"), self._route)

    def _console(self, message):
        if message.type == "error" and "Content Security Policy" in message.text:
            self.errors.append(message.text)

    def _route(self, ws):
        server = ws.connect_to_server()
        self.sockets.append(ws)

        def to_server(message):
            self.sent.append(json.loads(message))
            server.send(message)

        def to_page(message):
            if self.drop_states and json.loads(message).get("type") == "state":
                self.drop_states -= 1
                return
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    def drop_connection(self):
        """Close the page's live socket as a lost network would."""
        self.sockets[-1].close(code=4000, reason="dropped by the test")

    def goto(self, path: str):
        self.page.goto(self.server.url + path)
        return self.page

    def name_myself(self, name: str):
        page = self.goto("/")
        page.fill("#play-name", name)  # the lobby asks a guest's name once, in play now
        page.click("button:has-text('Save name')")
        page.wait_for_selector(f".player-name:has-text('{name}')")
        return page

    def cards(self, board: str = "#board") -> list[str]:
        return self.page.eval_on_selector_all(
            f"{board} .card:not(.taken)", "cells => cells.map(c => c.dataset.card)"
        )

    def click_cards(self, cards):
        for card in cards:
            self.page.click(f'#board .card[data-card="{card}"]')

    def wait_live(self):
        self.page.wait_for_selector("#connection[data-state=live]")

    def shot(self, name: str):
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(
            path=str(ARTIFACTS / f"{name}.png"), full_page=True, animations="disabled"
        )

    def close(self):
        assert not self.errors, self.errors
        self.context.close()


def a_set(cards: list[str]) -> list[str]:
    for triple in itertools.combinations(cards, 3):
        if is_set(*(parse_card(card) for card in triple)):
            return list(triple)
    raise AssertionError(f"no set among {cards}")


def has_set(cards: list[str]) -> bool:
    triples = itertools.combinations([parse_card(card) for card in cards], 3)
    return any(is_set(*triple) for triple in triples)


def find_every_set(person: Person, *others: Person) -> None:
    """Click sets on `person`'s page until the game is over (each claim seen taken first); with
    `others` at the same table, each finds a set in turn, once its page shows the last one gone."""
    gone = (
        "taken => !taken.length || !document.getElementById('result-panel').hidden || !taken.every("
        "c => document.querySelector(`#board .card:not(.taken)[data-card='${c}']`))"
    )
    turns = itertools.cycle((person, *others))
    taken: list[str] = []
    while person.page.locator("#result-panel").is_hidden():
        player = next(turns)
        player.page.wait_for_function(gone, arg=taken)
        if not player.page.locator("#result-panel").is_hidden():
            break
        taken = a_set(player.cards())
        player.click_cards(taken)
        player.page.wait_for_function(gone, arg=taken)


def not_a_set(cards: list[str]) -> list[str]:
    for triple in itertools.combinations(cards, 3):
        if not is_set(*(parse_card(card) for card in triple)):
            return list(triple)
    raise AssertionError("every triple is a set")


def create_table(person: Person, *, start: bool = True, **choices) -> int:
    """Create a Set table from the lobby form; return its id from the page it opens. The table
    opens waiting for its players: with `start`, its creator deals at once (an unrated table can
    still be joined once started), as the tests before the waiting room played."""
    page = person.goto("/")
    open_table_options(page)
    for field, value in choices.items():
        if field in ("rules", "visibility"):
            page.check(f"input[name={field}][value={value}]")
        else:
            page.select_option(f"#{field}", value)
    page.click("button:has-text('Create table')")
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    person.wait_live()
    if start and choices.get("computers", "0") == "0":
        start_table(person)
    return int(re.search(r"/play/(\d+)/", page.url).group(1))


def open_table_options(page) -> None:
    """Unfold the lobby's "New table" options (folded under what a player does most)."""
    if page.locator("#new-table:not([open]) > summary").count():
        page.click("#new-table > summary")


def start_table(person: Person) -> None:
    """Press Start in a table's waiting room and wait for the deal (3 s on)."""
    page = person.page
    page.click("#start-btn")
    page.wait_for_selector("#board .card", timeout=10000)


# --- two people at one table ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def duo(browser, server):
    """Ada creates an open classic table from the lobby; Bob follows her share link; Ada deals."""
    ada = Person(browser, server)
    ada.name_myself("ada")
    game_id = create_table(ada, start=False, rules="classic", attributes="4", visibility="open")
    share = ada.page.input_value("#share-url")
    assert share.endswith(f"/play/{game_id}/?join=1")

    bob = Person(browser, server, viewport=PHONE)
    bob.page.goto(share)
    # Bob has no name yet: the table asks for one, then seats him.
    bob.page.fill("#name-input", "bob")
    bob.page.click("#name-form button[type=submit]")
    bob.page.wait_for_selector("#scores li[data-player=bob] .badge-you")
    bob.wait_live()
    ada.page.wait_for_selector("#scores li[data-player=bob]")
    start_table(ada)
    bob.page.wait_for_selector("#board .card")
    yield ada, bob, game_id
    ada.close()
    bob.close()


def test_the_lobby_creates_a_table_and_its_share_link_seats_a_newcomer(duo):
    ada, bob, game_id = duo
    assert bob.page.locator("#join-panel").is_hidden()
    assert "/play/" in bob.page.url and "join" not in bob.page.url
    # Neither has an account: each row says "guest", drawn from the view and the seats' refresh.
    ada.page.wait_for_selector("#scores li[data-player=bob] .badge-guest")
    bob.page.wait_for_selector("#scores li[data-player=ada] .badge-guest")
    lobby = bob.goto("/")
    row = lobby.locator(f"#open-tables tr[data-game='{game_id}']")
    assert "ada" in row.inner_text() and "bob" in row.inner_text()
    assert row.locator("a:has-text('Return')").count() == 1
    bob.shot("lobby-phone")
    bob.goto(f"/play/{game_id}/")
    bob.wait_live()


def test_a_set_claimed_by_one_player_reaches_the_other_within_a_second(duo):
    ada, bob, _ = duo
    triple = a_set(ada.cards())
    ada.click_cards(triple[:2])
    assert ada.page.locator("#board .card.selected").count() == 2
    started = time.monotonic()
    ada.click_cards(triple[2:])
    ada.page.wait_for_selector("#message:has-text('Set!')")
    bob.page.wait_for_function(
        "cards => !cards.some(c => document.querySelector(`#board .card[data-card='${c}']`))",
        arg=triple,
        timeout=1000,
    )
    assert time.monotonic() - started < 1.5
    assert bob.page.inner_text("#scores li[data-player=ada] .score-value") == "1"
    ada.shot("table-after-a-set")
    bob.shot("table-phone-seen-by-bob")


def test_a_wrong_claim_says_so_and_locks_the_player_out(duo):
    ada, bob, _ = duo
    bob.click_cards(not_a_set(bob.cards()))
    bob.page.wait_for_selector("#message:has-text('Not a set')")
    assert "locked out" in bob.page.inner_text("#message")
    bob.page.wait_for_selector("#turn:has-text('locked out')")  # the state, a frame later
    ada.page.wait_for_selector("#scores li[data-player=bob] .badge-locked")
    # The other player reads it too, not only as a badge.
    ada.page.wait_for_selector(
        "#message:has-text('bob claimed three cards that are not a set and is locked out')"
    )
    # Another click while locked out explains why nothing happens.
    bob.page.click("#board .card >> nth=0")
    bob.page.wait_for_selector("#message:has-text('locked out until another player')")
    bob.shot("table-phone-locked-out")


def test_a_dropped_connection_comes_back_and_catches_up(duo):
    ada, bob, _ = duo
    bob.drop_connection()
    bob.page.wait_for_selector("#connection[data-state=reconnecting]")
    triple = a_set(ada.cards())
    ada.click_cards(triple)  # while Bob is away; it also lifts his lockout
    ada.page.wait_for_selector("#scores li[data-player=ada] .score-value:text-is('2')")
    bob.wait_live()
    bob.page.wait_for_selector("#scores li[data-player=ada] .score-value:text-is('2')")
    assert not set(triple) & set(bob.cards())
    assert "locked out" not in bob.page.inner_text("#turn")


def test_a_lost_state_leaves_a_version_gap_and_the_page_asks_for_it_again(duo):
    _, bob, _ = duo
    bob.wait_live()
    before = bob.page.inner_text("#scores li[data-player=bob] .score-value")
    bob.sent.clear()
    bob.drop_states = 1  # the state of Bob's own set never reaches his page
    triple = a_set(bob.cards())
    bob.click_cards(triple)
    bob.page.wait_for_selector(
        f"#scores li[data-player=bob] .score-value:text-is('{int(before) + 1}')"
    )
    assert {"type": "sync"} in bob.sent  # the result named a version no state had shown
    assert not set(triple) & set(bob.cards())


def test_the_phone_layout_fits_390_pixels_in_the_dark_with_color_blind_marks(duo):
    _, bob, _ = duo
    page = bob.page
    page.click("#theme-toggle")
    page.click("#colorblind-toggle")
    assert page.get_attribute("html", "data-theme") == "dark"
    page.wait_for_selector("#board .card .cb-mark")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    width = page.eval_on_selector("#board .card", "card => card.getBoundingClientRect().width")
    assert width >= 100  # three landscape cards a row, large enough to read
    bob.shot("table-phone-dark-colorblind")
    page.reload()
    assert page.get_attribute("html", "data-theme") == "dark"  # remembered
    page.click("#theme-toggle")
    page.click("#colorblind-toggle")


# --- a computer opponent, then the replay of that game -------------------------------------------


@pytest.fixture(scope="module")
def computer_game(browser, server):
    """A classic 3-attribute table dealt from a 12-card deck: Cleo joins it from the lobby's
    link, then an instant computer opponent sits down and plays it to its end."""
    created = (
        "from games import services;"
        "from cards.engine.deck import new_deck;"
        "deck = [c.protocol for c in new_deck(3, rng=5)[:12]];"
        "game = services.game_create(kind='set', options={'rules': 'classic', "
        "'attributes': 3, 'deck': deck, 'start': 'now'}, is_open=True);"
        "print(game.pk)"
    )
    game_id = int(server.shell(created).splitlines()[-1])
    cleo = Person(browser, server)
    cleo.name_myself("cleo")
    page = cleo.goto(f"/play/{game_id}/?join=1")
    page.wait_for_selector("#scores li[data-player=cleo] .badge-you")
    server.shell(
        f"from games import services; services.seat_add_computer(game_id={game_id}, "
        "speed='instant')",
    )
    yield game_id, cleo
    cleo.close()


def test_a_table_with_a_computer_opponent_plays_to_its_end(computer_game):
    game_id, cleo = computer_game
    page = cleo.page
    page.reload()  # the socket learns of the computer's first move time when it connects
    page.wait_for_selector("#scores li[data-player=Computer1] .badge-computer")
    page.wait_for_selector("#result-panel:not([hidden])", timeout=15000)
    result = page.inner_text("#result-text")
    assert "Computer1" in result, result
    assert page.inner_text("#turn") == "Game over."
    assert page.locator("#board button.card").count() == 0  # nothing left to play
    cleo.shot("table-computer-game-over")
    page.click("#replay-link")
    page.wait_for_url(re.compile(rf"/games/{game_id}/replay/$"))


def test_the_replay_steps_through_a_finished_game(browser, server, computer_game):
    computer_game, _ = computer_game
    watcher = Person(browser, server)
    # The computer plays the game out on its own (the test above watches it do so).
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        page = watcher.goto(f"/api/games/{computer_game}/")
        if '"status":"over"' in page.content().replace(" ", ""):
            break
        time.sleep(0.5)
    page = watcher.goto(f"/games/{computer_game}/replay/")
    page.wait_for_selector("#replay-root[data-loaded='1']")
    label = page.inner_text("#step-label")
    total = int(re.search(r"Step 0 of (\d+)", label).group(1))
    assert total >= 3  # two joins, then the computer's sets
    first_board = watcher.cards("#replay-board")
    assert len(first_board) == 9
    page.click("#next-btn")
    assert page.inner_text("#step-label").startswith("Step 1 of")
    page.keyboard.press("End")
    assert page.inner_text("#step-label").startswith(f"Step {total} of")
    assert "game over" in page.inner_text("#step-move")
    assert page.locator("#next-btn").is_disabled()
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#step-label").startswith(f"Step {total - 1} of")
    page.fill("#step-slider", "0")
    assert watcher.cards("#replay-board") == first_board
    # The moves are listed with their actor and outcome; clicking one jumps there.
    moves = page.locator("#move-list li")
    assert moves.count() == total + 1
    assert "Computer1 claims" in page.inner_text("#move-list")
    moves.nth(2).locator("button").click()
    assert page.inner_text("#step-label").startswith("Step 2 of")
    watcher.shot("replay-desktop")
    lobby = watcher.goto("/")
    row = lobby.locator(f"#finished-games tr[data-game='{computer_game}']")
    assert "Computer1" in row.inner_text()
    assert (
        row.locator("a:has-text('Replay')")
        .get_attribute("href")
        .endswith(f"/games/{computer_game}/replay/")
    )
    watcher.close()


def test_on_a_phone_the_replay_opens_at_its_top_and_stepping_keeps_it_there(
    browser, server, computer_game
):
    computer_game, _ = computer_game
    phone = Person(browser, server, viewport=PHONE)
    page = phone.goto(f"/games/{computer_game}/replay/")
    page.wait_for_selector("#replay-root[data-loaded='1']")
    page.wait_for_timeout(200)
    assert page.evaluate("window.scrollY") == 0
    page.keyboard.press("End")  # the last step: the list below the board scrolls, not the page
    assert page.inner_text("#step-label").startswith("Step ")
    assert page.evaluate("window.scrollY") == 0
    phone.close()


# --- declare rules and solitaire -----------------------------------------------------------------


def test_declare_rules_count_down_and_score_a_set(browser, server):
    dora = Person(browser, server)
    dora.name_myself("dora")
    create_table(dora, rules="declare", attributes="4", visibility="private")
    page = dora.page

    def add_cards():
        columns = int(page.get_attribute("#board", "data-cols"))
        page.click("#add-btn")  # the only player present: her vote is everyone's
        page.wait_for_selector(f"#board[data-cols='{columns + 1}']")
        assert "Three more cards were added" in page.inner_text("#message")

    # A wrong pick at 0 points says what the penalty did: nothing, scores never go below 0.
    dora.click_cards(not_a_set(dora.cards()))
    page.wait_for_selector("#message:has-text('Not a set')")
    assert "−5 points, but the score stays at 0." in page.inner_text("#message")
    while not has_set(dora.cards()):  # a declare board may hold no set: vote for more cards
        add_cards()
    triple = a_set(dora.cards())
    dora.click_cards(triple[:1])  # picking while nobody declares declares first
    page.wait_for_selector("#countdown:not([hidden])")
    page.wait_for_selector("#board .card.selected")
    assert page.inner_text("#turn") == "Your turn: pick three cards!"
    dora.shot("table-declare-countdown")
    dora.click_cards(triple[1:])
    page.wait_for_selector("#message:has-text('Set! +10')")
    # The move's result (the message) comes a frame before its state (the scores).
    page.wait_for_selector("#scores li[data-player=dora] .score-value:text-is('10')")
    page.click("#count-btn")
    page.wait_for_selector("#message:has-text('on the board')")
    if not has_set(dora.cards()):
        add_cards()
    if has_set(dora.cards()):
        page.click("#hint-btn")
        page.wait_for_selector("#board .card.hinted")
    add_cards()
    dora.close()


def test_solitaire_runs_a_clock_counts_sets_shows_one_and_ends_with_the_time(browser, server):
    sol = Person(browser, server, viewport=PHONE)
    page = sol.goto("/solitaire/")
    page.fill("#solo-name", "solo")
    page.select_option("#solo-attributes", "3")  # the 27-card deck: a whole game in seconds
    page.click("button:has-text('Start the clock')")
    page.wait_for_url(re.compile(r"/solitaire/\d+/$"))
    sol.wait_live()
    page.click("#count-btn")
    page.wait_for_selector("#message:has-text('on the board')")
    assert re.search(r"There (is 1 set|are \d+ sets) on the board", page.inner_text("#message"))
    page.click("#hint-btn")
    page.wait_for_selector("#board .card.hinted")
    # Keys work too: each card shows its key. Play the whole deck.
    found = 0
    while page.locator("#result-panel").is_hidden():
        for card in a_set(sol.cards()):
            key = page.get_attribute(f'#board .card[data-card="{card}"]', "data-key")
            page.keyboard.press(key)
        found += 1
        page.wait_for_selector(f"#sets-found:text-is('{found}')")
        if found == 1:
            assert re.fullmatch(r"\d+:\d\d", page.inner_text("#clock"))
            sol.shot("solitaire-phone")
    page.wait_for_selector("#result-panel:not([hidden])")
    result = page.inner_text("#result-text")
    assert re.fullmatch(rf"You found {found} sets in \d+:\d\d\.", result), result
    assert page.inner_text("#clock") == result.rsplit(" ", 1)[1].rstrip(".")
    sol.shot("solitaire-phone-over")
    assert f"{found} sets" in sol.goto("/solitaire/").inner_text("main")
    sol.close()


def start_solitaire(person: Person, name: str):
    """Start a solitaire of the whole deck under `name`; its page, live."""
    page = person.goto("/solitaire/")
    page.fill("#solo-name", name)
    page.click("button:has-text('Start the clock')")
    page.wait_for_url(re.compile(r"/solitaire/\d+/$"))
    person.wait_live()
    return page


def test_a_card_under_a_resting_pointer_holds_still_while_the_clock_ticks(browser, server):
    """A pointer resting on a card's bottom edge: the card's face lifts, and its box (what a
    click hits) stays where it is while the page changes around it. (A lifted box left the
    pointer, lost its hover at the clock's next tick, fell back under the pointer and rose
    again: the card shook as long as the pointer rested, and a test's click once waited 15 s
    for it to hold still.)"""
    sol = Person(browser, server)
    page = start_solitaire(sol, "still")
    card = page.locator("#board .card").first
    page.wait_for_timeout(700)  # the deal's animation is over
    box = card.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] - 1)
    tops = set()
    for _ in range(60):  # three ticks of the clock
        page.wait_for_timeout(50)
        tops.add(round(card.bounding_box()["y"], 1))
    assert tops == {round(box["y"], 1)}, tops
    lifted = card.evaluate("c => getComputedStyle(c.querySelector('svg')).transform")
    assert lifted != "none", "the hovered card's face did not lift"
    page.mouse.down()
    page.mouse.up()
    assert "selected" in card.get_attribute("class")
    sol.close()


def test_keys_mirror_the_board_and_a_chosen_layout_names_them(browser, server):
    kim = Person(browser, server)
    page = start_solitaire(kim, "kim")

    def key_of(row: int, col: int) -> str:
        cards = page.locator("#board .card:not(.taken)")
        for n in range(cards.count()):
            card = cards.nth(n)
            grid = card.evaluate("node => [node.style.gridRow, node.style.gridColumn]")
            if grid == [str(row + 1), str(col + 1)]:
                return card.get_attribute("data-key")
        raise AssertionError(f"no card at row {row}, column {col}")

    # QWERTY: the rows of cards are 1 2 3 4 / q w e r / a s d f.
    assert [key_of(0, 0), key_of(0, 3), key_of(1, 0), key_of(2, 3)] == ["1", "4", "q", "f"]
    page.click("summary:has-text('How to play')")
    page.select_option("#keyboard-layout", "azerty")
    assert [key_of(1, 0), key_of(2, 0)] == ["a", "q"]
    assert "a z e r t y u i o p" in page.inner_text("#key-rows")
    # The key in Q's place selects the card AZERTY calls A.
    card = page.locator('#board .card[data-key="a"]')
    page.keyboard.press("KeyQ")
    page.wait_for_selector('#board .card.selected[data-key="a"]')
    assert card.get_attribute("aria-pressed") == "true"
    page.reload()  # the browser remembers the layout
    kim.wait_live()
    assert page.input_value("#keyboard-layout") == "azerty"
    assert key_of(1, 0) == "a"
    kim.close()


FAKE_AUDIO = """
window.__notes = [];
class FakeAudio {
  constructor() { this.currentTime = 0; this.state = "running"; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createGain() {
    return {gain: {setValueAtTime() {}, exponentialRampToValueAtTime() {}}, connect: (x) => x};
  }
  createOscillator() {
    const note = {type: "", frequency: {value: 0}, connect: (x) => x, stop() {}};
    note.start = () => window.__notes.push(note.frequency.value);
    return note;
  }
}
window.AudioContext = FakeAudio;
"""


def test_sounds_for_sets_and_wrong_claims_a_remembered_mute_and_cards_leaving_in_place(
    browser, server
):
    sol = Person(browser, server)
    sol.page.add_init_script(FAKE_AUDIO)  # counts the notes the page plays
    page = sol.goto("/solitaire/")
    page.fill("#solo-name", "ear")
    page.select_option("#solo-attributes", "3")
    page.click("button:has-text('Start the clock')")
    page.wait_for_url(re.compile(r"/solitaire/\d+/$"))
    sol.wait_live()
    notes = lambda: page.evaluate("window.__notes.slice()")  # noqa: E731

    def claim(cards, found):
        sol.click_cards(cards)
        page.wait_for_selector(f"#sets-found:text-is('{found}')")

    taken = a_set(sol.cards())
    sol.click_cards(taken)
    # The cards taken leave from where they were, drawn once more over the cards dealt there.
    # (Seen and counted in one call: they are gone half a second later.)
    leaving = page.wait_for_function(
        "() => document.querySelectorAll('#board .card.taken').length"
    ).json_value()
    assert 1 <= leaving <= 3
    page.wait_for_selector("#sets-found:text-is('1')")
    # The set rises (660 then 880 Hz).
    assert [n for n in notes() if n in (660, 880)][:2] == [660, 880]
    sol.click_cards(not_a_set(sol.cards()))
    page.wait_for_selector("#message:has-text('Not a set')")
    assert 220 in notes()  # a wrong claim falls

    page.click("#sound-toggle")  # mute, remembered by the browser
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "false"
    before = len(notes())
    claim(a_set(sol.cards()), 2)
    assert len(notes()) == before
    page.reload()
    sol.wait_live()
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "false"

    # With less motion asked for, the taken cards simply go.
    page.emulate_media(reduced_motion="reduce")
    claim(a_set(sol.cards()), 3)
    assert all(not g.is_visible() for g in page.locator("#board .card.taken").all())
    sol.close()


def test_two_players_finish_a_game_and_play_again_in_one_click_each(browser, server):
    ada, bob = Person(browser, server), Person(browser, server)
    ada.name_myself("ada2")
    game_id = create_table(ada, rules="classic", attributes="3", visibility="open")
    bob.name_myself("bob2")
    bob.page.goto(ada.page.input_value("#share-url"))
    bob.page.wait_for_selector("#scores li[data-player=bob2] .badge-you")
    bob.wait_live()
    page = ada.page
    page.wait_for_selector("#scores li[data-player=bob2]")
    find_every_set(ada)
    bob.page.wait_for_selector("#result-panel:not([hidden]) #rematch-btn")

    page.click("#rematch-btn")  # Ada asks first: a new table, the same options
    page.wait_for_url(lambda url: re.search(r"/play/\d+/$", url) and f"/{game_id}/" not in url)
    new_id = int(re.search(r"/play/(\d+)/", page.url).group(1))
    assert new_id != game_id
    ada.wait_live()
    # Bob is told, and one click seats him at the same new table.
    bob.page.wait_for_selector("#rematch-note:has-text('ada2 wants to play again')")
    bob.page.click("#rematch-btn")
    bob.page.wait_for_url(f"**/play/{new_id}/")
    bob.page.wait_for_selector("#scores li[data-player=bob2] .badge-you")
    page.wait_for_selector("#scores li[data-player=bob2]")
    assert "Classic, 3 attributes" in page.inner_text("h1")
    ada.close()
    bob.close()
