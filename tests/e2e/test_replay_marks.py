"""Issue 24, item 7: a replay marks the cards of the move its caption tells (never the next
one's), with a legend that says what each mark means; each kind's replay opens its own viewer
(Set War's rounds in the Set War viewer, never raw JSON; the Square Game's board in words)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import DESKTOP, E2E, PHONE, watched_page

pytestmark = E2E

SHOTS = Path("/tmp/shots/site")
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": PHONE}

# A classic table of one player dealt from 15 cards: a wrong claim, a hint, then a set found
# (three new cards dealt in its place). What the shell prints: the game id and the claims' cards.
PLAYED = """
import itertools, json
from cards.engine.deck import new_deck
from cards.engine.card import parse_card
from cards.engine.rules import is_set
from games import services
from games.models import Player
deck = [c.protocol for c in new_deck(3, rng=5)[:15]]
options = {'rules': 'classic', 'attributes': 3, 'start': 'now', 'deck': deck}
game = services.game_create(kind='set', options=options, is_open=True)
seat = services.game_join(game_id=game.pk, player=Player.objects.create(name='ann'))
game.refresh_from_db()
board = game.state['board']
triples = list(itertools.combinations(board, 3))
good = next(t for t in triples if is_set(*(parse_card(c) for c in t)))
bad = next(t for t in triples if not is_set(*(parse_card(c) for c in t)))
services.move_submit(game_id=game.pk, seat=seat, action={'type': 'claim', 'cards': list(bad)})
services.move_submit(game_id=game.pk, seat=seat, action={'type': 'hint'})
services.move_submit(game_id=game.pk, seat=seat, action={'type': 'claim', 'cards': list(good)})
print(json.dumps({'id': game.pk, 'good': good, 'bad': bad}))
"""


@pytest.fixture(scope="module")
def played(server):
    return json.loads(server.shell(PLAYED).splitlines()[-1])


def marked(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "nodes => nodes.map(n => n.dataset.card)")


def step_to(page, n: int) -> None:
    page.fill("#step-slider", str(n))
    page.wait_for_function(
        "n => document.querySelector('#step-label').textContent.startsWith(`Step ${n} of`)", arg=n
    )


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_each_step_marks_its_own_moves_cards_with_a_legend(browser, server, played, size):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with watched_page(browser, VIEWPORTS[size]) as (page, errors):
        page.goto(f"{server.url}/games/{played['id']}/replay/")
        page.wait_for_selector("#replay-root[data-loaded='1']")
        legend = page.inner_text("#replay-legend")
        assert "the cards of the move above" in legend and "dealt at this step" in legend
        assert page.is_visible("#replay-legend")
        # Step 0, the deal: nothing is marked (the next move's cards are not outlined).
        assert marked(page, "#replay-board .card.marked") == []
        assert marked(page, "#replay-board .card.dealt") == []
        # The steps are the join, then the moves; find the wrong claim by its caption.
        step_to(page, 2)
        assert "claims" in page.inner_text("#step-move")
        assert "not a set" in page.inner_text("#step-move")
        assert sorted(marked(page, "#replay-board .card.marked")) == sorted(played["bad"])
        assert page.is_hidden("#replay-taken")
        page.screenshot(path=str(SHOTS / f"replay-wrong-claim-{size}.png"), full_page=True)
        step_to(page, 3)  # the hint: while the game is played its card is its seat's alone
        assert "theirs until the end" in page.inner_text("#step-move")
        assert marked(page, "#replay-board .card.marked") == []
        assert marked(page, "#replay-board .card.hinted") == []
        before = marked(page, "#replay-board .card")
        step_to(page, 4)  # the set: taken above the board, three new cards tagged
        assert "a set!" in page.inner_text("#step-move")
        assert sorted(marked(page, "#replay-taken .card.marked")) == sorted(played["good"])
        after = marked(page, "#replay-board .card")
        new = [card for card in after if card not in before]
        assert len(new) == 3 and sorted(marked(page, "#replay-board .card.dealt")) == sorted(new)
        assert marked(page, "#replay-board .card.marked") == []
        label = page.get_attribute(f"#replay-board .card[data-card='{new[0]}']", "aria-label")
        assert label.endswith("new: dealt at this step")
        board = page.locator("#replay-board").bounding_box()
        assert board["x"] >= 0 and board["x"] + board["width"] <= VIEWPORTS[size]["width"] + 1
        page.screenshot(path=str(SHOTS / f"replay-set-found-{size}.png"), full_page=True)
        step_to(page, 1)  # back to the join: the claim after it is not marked here
        assert marked(page, "#replay-board .card.marked") == []
        assert not errors, errors


def test_a_set_war_games_replay_opens_the_set_war_viewer(browser, server):
    with watched_page(browser, DESKTOP) as (page, errors):
        page.goto(server.url + "/setwar/")
        made = page.evaluate(
            """async () => {
              const csrf = document.cookie.match(/csrftoken=([^;]+)/);
              const r = await fetch('/api/setwar/', {method: 'POST',
                headers: {'Content-Type': 'application/json',
                          'X-CSRFToken': csrf ? csrf[1] : ''},
                body: JSON.stringify({players: 3, seed: 7})});
              return r.json();
            }"""
        )
        page.goto(f"{server.url}/games/{made['id']}/replay/")
        page.wait_for_url(f"**/setwar/{made['id']}/")
        page.wait_for_selector("#sw-round-label")
        assert page.locator("#replay-json").count() == 0
        assert "{" not in page.inner_text("main")[:200]
        for size, viewport in VIEWPORTS.items():
            page.set_viewport_size(viewport)
            page.screenshot(path=str(SHOTS / f"replay-setwar-{size}.png"), full_page=False)
        assert not errors, errors


SQUARE = """
from games import services
from games.errors import GameError
from games.models import Player
game = services.game_create(kind='square', options={'players': 2}, is_open=True)
seats = [services.game_join(game_id=game.pk, player=Player.objects.create(name=name))
         for name in ('ann', 'bob')]
# The opening (its seat is drawn), then seat 1 closes two squares (tests/games/test_square_kind).
for x, y, piece, permutation in ((15, 15, 13, 4), (16, 16, 9, 1)):
    action = {'type': 'place', 'piece': piece, 'permutation': permutation, 'x': x, 'y': y}
    for seat in seats:
        try:
            services.move_submit(game_id=game.pk, seat=seat, action=action)
            break
        except GameError:
            continue
print(game.pk)
"""


def test_a_square_games_replay_draws_its_board_and_says_each_step_in_words(browser, server):
    game_id = int(server.shell(SQUARE).splitlines()[-1])
    for size, viewport in VIEWPORTS.items():
        with watched_page(browser, viewport) as (page, errors):
            page.goto(f"{server.url}/games/{game_id}/replay/")
            page.wait_for_selector("#replay-root[data-loaded='1']")
            page.keyboard.press("End")
            page.wait_for_selector("#replay-board svg.sq-svg")
            caption = page.inner_text("#replay-board .sq-replay-caption")
            assert "Status" not in caption, caption
            assert page.is_hidden("#replay-json")
            page.screenshot(path=str(SHOTS / f"replay-square-{size}.png"), full_page=True)
            assert not errors, errors
