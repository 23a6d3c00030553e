"""The other ways to play Set, in a real browser (headless Debian chromium): UltraSet and
Set-Chain tables made from the lobby and played to their end, the daily puzzle found, shared
and listed among the day's best times, and the fork's modes: a GhostSet table (six cards a
claim) and a Junior table played to their end, at a desktop's and a phone's size."""

from __future__ import annotations

import itertools
import re

from cards.engine.fast import all_sets_codes
from cards.engine.table.codes import codes_of, is_set, texts_of
from cards.engine.table.modes import MODES, find_claim, is_ultra
from tests.e2e.conftest import E2E, PHONE
from tests.e2e.test_rated_game import sign_up
from tests.e2e.test_set_pages import Person, create_table

pytestmark = E2E


def an_ultra(cards: list[str], attributes: int) -> list[str]:
    for four in itertools.combinations(cards, 4):
        if is_ultra(codes_of(four, attributes), attributes):
            return list(four)
    raise AssertionError(f"no ultra among {cards}")


def a_chained_set(board: list[str], chain: list[str], attributes: int) -> tuple[str, list[str]]:
    for link in chain:
        for pair in itertools.combinations(board, 2):
            if is_set(codes_of((link, *pair), attributes), attributes):
                return link, list(pair)
    raise AssertionError(f"no set through {chain}")


def play_until_over(person: Person, claim_once) -> int:
    page = person.page
    claims = 0
    while page.locator("#result-panel").is_hidden():
        before = page.inner_text("#scores")
        clicked = claim_once() or []
        claims += 1
        # The score moved, and the board no longer shows the board cards just claimed (the
        # scores may be drawn a moment before the board).
        page.wait_for_function(
            "([sel, before, clicked]) => !document.querySelector('#result-panel').hidden || "
            "(document.querySelector(sel).innerText !== before && !clicked.some(c => "
            "document.querySelector(`#board .card:not(.taken)[data-card='${c}']`)))",
            arg=["#scores", before, clicked],
        )
    return claims


def test_an_ultraset_table_is_played_to_its_end_with_four_cards_a_claim(browser, server):
    ulla = Person(browser, server)
    ulla.name_myself("ulla")
    create_table(ulla, rules="classic", attributes="3", mode="ultra")
    page = ulla.page
    assert "UltraSet" in page.inner_text("h1")
    assert "Find an ultra: select four cards" in page.inner_text("#turn")
    first = an_ultra(ulla.cards(), 3)
    ulla.click_cards(first[:3])
    page.wait_for_selector("#turn:has-text('(3 of 4 selected)')")
    ulla.click_cards(first[3:])
    page.wait_for_selector("#message:has-text('Ultra!')")
    # The move's result (the message) comes a frame before its state (the scores, the board).
    page.wait_for_selector("#scores li[data-player=ulla] .score-value:text-is('1')")
    play_until_over(ulla, lambda: ulla.click_cards(an_ultra(ulla.cards(), 3)))
    assert re.search(r"Scores: ulla \d+\.", page.inner_text("#result-text")) or "won" in (
        page.inner_text("#result-text")
    )
    ulla.shot("mode-ultra-over")
    ulla.close()


def test_a_set_chain_table_keeps_the_last_set_beside_the_board(browser, server):
    cyd = Person(browser, server)
    cyd.name_myself("cyd")
    game_id = create_table(cyd, rules="classic", attributes="3", mode="chain")
    page = cyd.page
    board = cyd.cards()
    (first,) = [list(t) for t in itertools.combinations(board, 3) if is_set(codes_of(t, 3), 3)][:1]
    cyd.click_cards(first)
    page.wait_for_selector("#chain .card")
    chain = cyd.cards("#chain")
    assert sorted(chain) == sorted(first)
    assert "through the chain" in page.inner_text("#turn")
    # Three cards of the board are no chained set.
    cyd.shot("mode-chain")

    def claim_through_the_chain():
        link, pair = a_chained_set(cyd.cards(), cyd.cards("#chain"), 3)
        page.click(f'#chain .card[data-card="{link}"]')
        cyd.click_cards(pair)
        return pair

    link, pair = a_chained_set(cyd.cards(), chain, 3)
    claim_through_the_chain()
    page.wait_for_function(
        "link => [...document.querySelectorAll('#chain .card')].some(c => c.dataset.card === link)"
        " && document.querySelectorAll('#chain .card').length === 3",
        arg=link,
    )
    play_until_over(cyd, claim_through_the_chain)
    assert page.locator("#result-panel").is_visible()
    # The replay shows the chain under the board, step by step.
    replay = cyd.goto(f"/games/{game_id}/replay/")
    replay.wait_for_selector("#replay-root[data-loaded='1']")
    assert replay.locator("#replay-extra").is_hidden()  # the deal: no chain yet
    replay.click("#last-btn")
    replay.wait_for_selector("#replay-extra .area-heading:has-text('The chain')")
    assert replay.locator("#replay-extra .card").count() == 3
    cyd.close()


def test_the_daily_puzzle_is_found_shared_and_listed_among_the_days_best(browser, server):
    pia = Person(browser, server)
    sign_up(pia, "Pia")
    page = pia.goto("/puzzle/")
    assert "No account has found all six today yet." in page.inner_text("main")
    page.click("#puzzle-start")
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    pia.wait_live()
    assert "Daily puzzle" in page.inner_text("h1")
    board = pia.cards()
    assert len(board) == 12
    sets = [list(codes) for codes in all_sets_codes(codes_of(board, 4), 4)]
    assert len(sets) == 6
    page.click("#count-btn")
    page.wait_for_selector("#message:has-text('6 sets still to find')")
    texts = {code: text for text, code in zip(board, codes_of(board, 4), strict=True)}
    wrong = next(t for t in itertools.combinations(board, 3) if not is_set(codes_of(t, 4), 4))
    pia.click_cards(wrong)
    page.wait_for_selector("#message:has-text('Not a set.')")
    for found, codes in enumerate(sets, start=1):
        pia.click_cards([texts[code] for code in codes])
        page.wait_for_selector(f"#found-count:text-is('{found} of 6')")
        if found == 1:
            # The same set again is refused, and costs nothing.
            pia.click_cards([texts[code] for code in codes])
            page.wait_for_selector("#message:has-text('That set has been found already.')")
            pia.shot("mode-puzzle")
    page.wait_for_selector("#result-panel:not([hidden])")
    assert re.fullmatch(r"You found all 6 sets in \d+:\d\d\.", page.inner_text("#result-text"))
    line = page.input_value("#result-line")
    assert re.match(r"Set daily puzzle \d{4}-\d\d-\d\d: 6/6 sets in \d+:\d\d, 1 wrong claim ", line)
    assert line.endswith("/puzzle/")
    pia.shot("mode-puzzle-over")
    page = pia.goto("/puzzle/")
    best = page.inner_text("#puzzle-best")
    assert "Pia" in best and re.search(r"\d+\.\d s", best)
    assert "all six in" in page.inner_text("#puzzle-mine")
    assert re.search(r"\d{4}-\d\d-\d\d\t\d+\.\d s\t1", page.inner_text("#puzzle-days"))
    pia.close()


def a_claim(person: Person, mode: str) -> list[str]:
    """A claim of ``mode`` on the page's board, found by the engine's own finder."""
    attributes = MODES[mode].attributes
    board = person.cards()
    found = find_claim(mode, codes_of(board, attributes), attributes)
    assert found is not None, board
    return texts_of(found, attributes)


def test_a_ghostset_table_is_played_to_its_end_six_cards_a_claim(browser, server):
    gus = Person(browser, server)
    gus.name_myself("gus")
    page = gus.goto("/")
    page.click("#new-table > summary")
    label = page.inner_text("#mode option[value=ghostset]")
    assert label.startswith("GhostSet \u2014 Find 6 cards")
    gus.shot("mode-lobby-desktop")
    game_id = create_table(gus, rules="classic", attributes="4", mode="ghostset")
    assert "GhostSet" in page.inner_text("h1")
    assert len(gus.cards()) in (10, 12, 15)
    assert "Find a ghostset: select six cards" in page.inner_text("#turn")
    six = a_claim(gus, "ghostset")
    # Five cards that are not a GhostSet with a sixth: the log says why.
    board = gus.cards()
    wrong = next(
        list(t)
        for t in itertools.combinations(board, 6)
        if find_claim("ghostset", codes_of(t, 4), 4) is None
    )
    gus.click_cards(wrong[:5])
    page.wait_for_selector("#turn:has-text('(5 of 6 selected)')")
    gus.click_cards(wrong[5:])
    page.wait_for_selector("#message:has-text('Not a ghostset')")
    page.wait_for_selector(".story :text('the counts must be')")
    gus.shot("mode-ghostset-desktop")
    gus.click_cards(six)
    page.wait_for_function("() => document.querySelector('#scores').innerText.includes('1')")
    claims = 1 + play_until_over(gus, lambda: gus.click_cards(a_claim(gus, "ghostset")))
    assert 11 <= claims <= 14
    assert page.locator("#result-panel").is_visible()
    gus.shot("mode-ghostset-over")
    # The export knows the mode.
    exported = page.request.get(f"{server.url}/api/games/{game_id}/export").json()
    assert exported["options"]["mode"] == "ghostset"
    gus.close()


def test_a_junior_table_is_played_to_its_end_on_a_phone(browser, server):
    jo = Person(browser, server, viewport=PHONE)
    jo.name_myself("jo")
    page = jo.goto("/")
    page.click("#new-table > summary")
    jo.shot("mode-lobby-phone")
    create_table(jo, rules="classic", attributes="3", mode="junior")
    assert len(jo.cards()) in (9, 12)
    jo.shot("mode-junior-phone")
    claims = play_until_over(jo, lambda: jo.click_cards(a_claim(jo, "junior")))
    assert 6 <= claims <= 10
    assert page.locator("#result-panel").is_visible()
    jo.close()


def test_a_megaset_board_of_16_fits_a_laptop_and_a_phone(browser, server):
    for viewport, name in (({"width": 1280, "height": 800}, "desktop"), (PHONE, "phone")):
        meg = Person(browser, server, viewport=viewport)
        meg.name_myself(f"meg{name[0]}")
        create_table(meg, rules="classic", attributes="5", mode="megaset")
        page = meg.page
        assert len(meg.cards()) in (16, 18, 21, 24)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        meg.shot(f"mode-megaset-{name}")
        meg.click_cards(a_claim(meg, "megaset"))
        page.wait_for_selector("#message:has-text('Set!')")
        meg.close()


def test_a_deck_puzzle_is_played_to_its_end_board_after_board(browser, server):
    dee = Person(browser, server)
    dee.name_myself("dee")
    create_table(dee, rules="classic", attributes="4", mode="deckpuzzle")
    page = dee.page
    assert "Deck Puzzle" in page.inner_text("h1")
    page.wait_for_selector("#found-count:has-text('0 of')")

    def a_new_claim() -> list[str]:
        board = dee.cards()
        found = page.eval_on_selector_all(
            "#found-sets li",
            "items => items.map(i => [...i.querySelectorAll('.card')]"
            ".map(c => c.dataset.card).sort().join(' '))",
        )
        for cards in all_sets_codes(codes_of(board, 4), 4):
            texts = texts_of(cards, 4)
            if " ".join(sorted(texts)) not in found:
                return texts
        raise AssertionError("every set of the board was found")

    # A set found stays on the board, and is refused if claimed again: on the first board that
    # holds more than the one set found (a board of one set is cleared at once).
    claims = 0
    while True:
        first = a_new_claim()
        dee.click_cards(first)
        claims += 1
        page.wait_for_selector(f"#scores li[data-player=dee] .score-value:text-is('{claims}')")
        if all(card in dee.cards() for card in first):  # still dealt: the board goes on
            break
    page.wait_for_selector("#found-count:has-text('1 of')")
    dee.click_cards(first[::-1])  # the same set again
    page.wait_for_selector("#message:has-text('This Set was already found.')")
    claims += play_until_over(dee, lambda: dee.click_cards(a_new_claim()))
    assert 12 <= claims <= 35  # spec §7: 13 to 25 in ten deals, a sanity range
    page.wait_for_selector("#timeline :text('Board clear:')")
    dee.shot("mode-deckpuzzle-over")
    dee.close()
