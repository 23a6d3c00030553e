"""Every way to play Set that no other browser test plays to its end, played to its end in a
real browser (headless Debian chromium), as issue 27 asks: UltraSet-Chain, Ultra9, MegaSet,
Shuffle, Ultra9 Puzzle, 4Set, 4Set Jr-Chain, 4Set Jr-Puzzle and Memory.

Each table is made from the lobby's form as a user makes it, started from its waiting room,
and played in the page by clicking the cards of a claim each time, found from what the page
shows: the board's ``data-card`` attributes, the chain beside it (chain modes) and the list of
claims found on this board (puzzles); in Memory, whose cards lie face down, the cards are
turned up three at a time by clicking and remembered, and a set among those remembered is
claimed by clicking its places. The game ends by the mode's own rule (no claim left and no card
left to deal, or every board of a puzzle deck cleared); then the result panel shows, the turn
line says "Game over.", the player's score is the number of claims made, and the page logged
no script error. A screenshot of each table mid-game at a phone's 390x844 goes to
test-artifacts/every-mode-<mode>-phone.png.

MegaSet (243 cards) and 4Set (256 cards) are played on a test deck (the ``deck`` option: 36 and
40 cards of the mode's own deck, shuffled from a seed), created over the JSON API and joined
from the table's link (their tables are made from the lobby in test_set_modes.py and
test_four_and_memory.py; the lobby's "Quick: 18 cards" length would leave a claim or two): the
board of 16 (15) is dealt from it, and the claims take cards until no claim is left with no
card to deal, which is each mode's own end rule. Every other mode deals its whole deck.
"""

from __future__ import annotations

import itertools
import json
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from cards.engine.fast import is_set_codes
from cards.engine.table.codes import codes_of, texts_of
from cards.engine.table.modes import MODES, find_claim
from cards.rules import shuffled_texts
from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_set_pages import Person, create_table

pytestmark = E2E

#: The long modes' test decks: how many cards of the mode's own deck, shuffled from a seed.
DECKS = {"megaset": 36, "4set": 40}
PLAYED = [
    "ultrachain",
    "ultra9",
    "megaset",
    "shuffle",
    "ultra9puzzle",
    "4set",
    "4setjrchain",
    "4setjrpuzzle",
    "memory",
]
#: A bound on the claims of a game, so a page that never ends fails instead of looping.
MOST_CLAIMS = 120


def score_of(person: Person, name: str) -> int:
    return int(person.page.inner_text(f"#scores li[data-player={name}] .score-value"))


def wait_for_the_claim(person: Person, before: int, name: str) -> None:
    """Wait until the score went up or the game is over."""
    person.page.wait_for_function(
        "([name, before]) => { const s = document.querySelector("
        "`#scores li[data-player=${name}] .score-value`); "
        "return (s && +s.innerText > before) || !document.querySelector('#result-panel').hidden; }",
        arg=[name, before],
    )


def a_claim_on_the_page(person: Person, mode: str) -> tuple[list[str], list[str]]:
    """A claim of ``mode`` from what the page shows: (cards to click on the board, cards to
    click in the chain)."""
    rules = MODES[mode]
    page = person.page
    attributes, values = rules.attributes, rules.values
    board = person.cards()
    chain = person.cards("#chain") if rules.chain else []
    found: list[tuple[int, ...]] = []
    if rules.puzzle:
        found = [
            tuple(sorted(codes_of(cards, attributes, values)))
            for cards in page.eval_on_selector_all(
                "#found-sets li",
                "items => items.map(i => [...i.querySelectorAll('.card')]"
                ".map(c => c.dataset.card))",
            )
        ]
    claim = find_claim(
        mode,
        codes_of(board, attributes, values),
        attributes,
        chain=codes_of(chain, attributes, values),
        found=found,
    )
    assert claim is not None, (mode, board, chain, found)
    texts = texts_of(claim, attributes, values)
    return [t for t in texts if t not in chain], [t for t in texts if t in chain]


def create_over_the_api(person: Person, mode: str) -> int:
    """Create a table of ``mode`` dealt from a test deck over the JSON API, dealt at once, and
    sit at it from its page's link, as a player who got the link does."""
    rules = MODES[mode]
    deck = shuffled_texts(mode, rules.attributes, 27)[: DECKS[mode]]
    options = {"rules": "classic", "mode": mode, "attributes": rules.attributes, "deck": deck}
    created = person.page.request.post(
        f"{person.server.url}/api/games/",
        data={"kind": "set", "open": True, "options": {**options, "start": "now"}},
    )
    assert created.status == 201, created.text()
    game_id = created.json()["id"]
    page = person.goto(f"/play/{game_id}/?join=1")
    page.wait_for_selector("#scores li .badge-you")
    person.wait_live()
    page.wait_for_selector("#board .card")
    return game_id


def play_by_clicking(person: Person, mode: str, name: str) -> int:
    """Click claims until the result panel shows; return how many were made."""
    page = person.page
    claims = 0
    rows_seen = False
    while page.locator("#result-panel").is_hidden():
        assert claims < MOST_CLAIMS, f"{mode}: no end after {claims} claims"
        on_board, in_chain = a_claim_on_the_page(person, mode)
        before = score_of(person, name)
        for card in in_chain:
            page.click(f'#chain .card[data-card="{card}"]')
        person.click_cards(on_board)
        wait_for_the_claim(person, before, name)
        claims += 1
        assert score_of(person, name) == claims, f"{mode}: claim {claims} did not score"
        if MODES[mode].puzzle and not rows_seen:
            # A claim found is listed in a row of small cards, its fourth as small as the rest
            # (a board's last claim deals the next board, whose list starts empty: a board of
            # one set shows no row, so look at the first claim that leaves one).
            widths = page.eval_on_selector_all(
                "#found-sets .card", "cards => cards.map(c => c.getBoundingClientRect().width)"
            )
            if widths:
                rows_seen = True
                assert len(widths) == MODES[mode].size and max(widths) - min(widths) < 1, widths
        if claims == 1:  # mid-game (a quick MegaSet or 4Set ends at its third claim)
            person.shot(f"every-mode-{mode}-phone")
    assert rows_seen or not MODES[mode].puzzle, f"{mode}: no claim was listed as found"
    return claims


def play_memory(person: Person, name: str) -> int:
    """Turn cards up three at a time and claim a set among those remembered, until the end."""
    page = person.page
    known: dict[int, str] = {}

    def places() -> int:
        return page.locator("#board .card").count()

    def turn_up(p: int, before: int) -> None:
        """Click a place until its card lies face up (or, at a claim's third card, until the
        claim scored: its new card comes face down at once). A click while the last claim's
        answer is on its way is not taken, as a person would see: click again."""
        for attempt in range(5):
            page.click(f'#board .card[data-index="{p}"]')
            try:
                page.wait_for_function(
                    "([i, name, before]) => { const c = document.querySelector("
                    "`#board .card[data-index='${i}']`); const s = document.querySelector("
                    "`#scores li[data-player=${name}] .score-value`); "
                    "return !c || !c.classList.contains('face-down') || +s.innerText > before "
                    "|| !document.querySelector('#result-panel').hidden; }",
                    arg=[p, name, before],
                    timeout=3000,
                )
                return
            except PlaywrightTimeout:
                if attempt == 4:
                    raise

    def turn_up_three(chunk: list[int]) -> bool:
        """Turn up three places (their claim goes at the third); True if it scored."""
        nonlocal tries
        tries += 1
        before = score_of(person, name)
        count = places()
        for p in chunk:
            turn_up(p, before)
            card = page.evaluate(  # (None: the board closed up at the claim's end)
                "i => document.querySelector(`#board .card[data-index='${i}']`)?.dataset.card",
                p,
            )
            if card and not card.startswith("#"):  # face up ("#5": a face-down place)
                known[p] = card
        # Scored (new cards come face down), or refused (the three stay face up, none chosen).
        page.wait_for_function(
            "([name, before, chunk]) => { const s = document.querySelector("
            "`#scores li[data-player=${name}] .score-value`); "
            "if (+s.innerText > before || !document.querySelector('#result-panel').hidden) "
            "return true; return /Not a Set/.test(document.querySelector('#message').innerText)"
            " && chunk.every(i => !document.querySelector(`#board .card[data-index='${i}']`)"
            ".classList.contains('face-down')); }",
            arg=[name, before, chunk],
        )
        if score_of(person, name) == before:
            return False
        for p in chunk:
            known.pop(p, None)
        if places() != count:  # the board closed up: its places moved
            known.clear()
        return True

    claims = 0
    shot = False
    tries = 0  # claims of three places the page should have sent
    while page.locator("#result-panel").is_hidden():
        assert claims < MOST_CLAIMS, f"memory: no end after {claims} claims"
        count = places()
        triple = next(
            (
                list(t)
                for t in itertools.combinations(sorted(known), 3)
                if is_set_codes(*codes_of([known[p] for p in t], 4))
            ),
            None,
        )
        if triple is not None:
            assert turn_up_three(triple), f"memory: the set {triple} did not score"
            claims += 1
        else:
            unknown = [p for p in range(count) if p not in known]
            assert unknown, f"memory: no set among the {count} cards, and the game goes on"
            chunk = (unknown + [p for p in range(count) if p in known])[:3]
            if turn_up_three(chunk):
                claims += 1
        if claims and page.locator("#result-panel").is_hidden():
            assert score_of(person, name) == claims
        if claims >= 3 and not shot:
            shot = True
            person.shot("every-mode-memory-phone")
    # One claim a three turned up: a set scored is not claimed again on its new cards.
    sent = [m for m in person.sent if "positions" in json.dumps(m)]
    assert len(sent) == tries, (len(sent), tries)
    return claims


@pytest.mark.parametrize("mode", PLAYED)
def test_each_mode_is_played_to_its_end_in_the_browser(browser, server, mode):
    started = time.monotonic()
    name = "pat"
    pat = Person(browser, server, viewport=PHONE)
    pat.name_myself(name)
    rules = MODES[mode]
    choices = {"rules": "classic", "attributes": str(rules.attributes), "mode": mode}
    if mode in DECKS:
        create_over_the_api(pat, mode)
    else:
        create_table(pat, **choices)
    page = pat.page
    assert rules.title in page.inner_text("h1")
    if mode == "memory":
        claims = play_memory(pat, name)
    else:
        claims = play_by_clicking(pat, mode, name)
    page.wait_for_selector("#result-panel:not([hidden])")
    assert page.inner_text("#turn") == "Game over."
    assert page.inner_text("#deck-left-side") == "0"  # ended by its own rule, the deck dealt
    assert score_of(pat, name) == claims
    assert name in page.inner_text("#result-text")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    pat.shot(f"every-mode-{mode}-over-phone")
    pat.close()  # no script error, no policy violation
    print(f"{mode}: {claims} claims in {time.monotonic() - started:.1f} s")
