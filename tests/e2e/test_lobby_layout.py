"""Issue 24, items 4, 6 and 8 in a real browser: the lobby leads with what a player does most
(play now beside the live tables, in the first screen at 1280x800 and near the top at 390x844),
folds the table options (opened with the keyboard, and a table made from them), offers only the
choices the server accepts (the option rules it sends), shows what the server still refuses
beside its control with the focus there, at the lobby's address; the header holds one line at
1280 px. Screenshots, light and dark, in test-artifacts/ (and /tmp/shots/lobby/ when it exists)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.conftest import ARTIFACTS, E2E, PHONE
from tests.e2e.test_rated_game import sign_up
from tests.e2e.test_set_pages import Person

pytestmark = E2E
LAPTOP = {"width": 1280, "height": 800}
SHOTS = [ARTIFACTS, Path("/tmp/shots/lobby")]

SEED_TABLES = (
    "from django.contrib.auth import get_user_model\n"
    "from games import services\n"
    "from games.models import Game, Player\n"
    "for n, rules in enumerate(['classic', 'declare', 'classic', 'declare']):\n"
    "    game = services.game_create(kind='set', options={'rules': rules, 'attributes': 4},"
    " is_open=True)\n"
    "    for name in (f'Ann{n}', f'Bob{n}'):\n"
    "        services.game_join(game_id=game.pk, player=Player.objects.create(name=name))\n"
)


def shoot(page, name: str) -> None:
    for folder in SHOTS:
        if folder.parent.exists():
            folder.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(folder / f"{name}.png"), full_page=False)


def wait_for_focus(page, element_id: str) -> None:
    """Wait until the element `element_id` has the focus (the page moves it once loaded)."""
    page.wait_for_function(
        "id => document.activeElement && document.activeElement.id === id", arg=element_id
    )


def force_declare_ultra(page) -> None:
    """Declare + UltraSet, forced past the form (an old page, or a hand-made post): the server
    refuses it beside the way to play."""
    page.evaluate(
        "() => { for (const el of document.querySelectorAll('#table-form input, "
        "#table-form option')) el.disabled = false;"
        " document.querySelector('input[name=rules][value=declare]').checked = true;"
        " document.querySelector('#mode').value = 'ultra'; }"
    )


def box(page, selector: str) -> dict:
    """Where the first element `selector` is drawn, in one read (the lobby's socket may redraw
    the lists at any moment)."""
    found = page.evaluate(
        "(selector) => { const el = document.querySelector(selector);"
        " if (!el) return null; const r = el.getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height}; }",
        selector,
    )
    assert found is not None, selector
    return found


@pytest.mark.parametrize(
    "viewport, size, top", [(LAPTOP, "desktop", 800), (PHONE, "phone", 844)], ids=["1280", "390"]
)
def test_the_lobby_leads_with_play_now_and_the_live_tables(browser, server, viewport, size, top):
    server.shell(SEED_TABLES)
    person = Person(browser, server, viewport=viewport)
    try:
        page = person.goto("/")
        page.wait_for_selector("#open-tables tbody tr")
        shoot(page, f"lobby-{size}-light")
        # Play now and the first open table are both in the first screen.
        assert box(page, "button[value=computer]")["y"] < top / 2
        row = box(page, "#open-tables tbody tr")
        assert row["y"] + row["height"] <= top, row
        # The table options are folded, and open with the keyboard.
        assert not page.is_visible("#new-table .options-body")
        header = box(page, ".site-header")
        if size == "desktop":
            # "Log in" and "Sign up" on the header's one line.
            login, signup = (
                box(page, ".account-nav a[href*=login]"),
                box(page, ".account-nav a[href*=signup]"),
            )
            assert abs(login["y"] - signup["y"]) < 2 and header["height"] < 64, header
            assert box(page, "#tables-heading")["y"] < 300
        else:
            assert header["height"] < 140, header
        shoot(page, f"lobby-{size}-light")
        page.click("#theme-toggle")
        page.wait_for_selector("html[data-theme=dark]")
        shoot(page, f"lobby-{size}-dark")
        page.click("#theme-toggle")
        assert not person.errors
    finally:
        person.context.close()


def test_the_folded_options_open_with_the_keyboard_and_make_a_table(browser, server):
    person = Person(browser, server, viewport=LAPTOP)
    try:
        page = person.goto("/")
        page.focus("#new-table > summary")
        page.keyboard.press("Enter")
        page.wait_for_selector("#new-table .options-body", state="visible")
        page.fill("#play-name", "Keyes")
        page.check("input[name=rules][value=declare]")
        page.select_option("#attributes", "3")
        page.select_option("#length", "quick")
        shoot(page, "lobby-desktop-options-open")
        page.click("button:has-text('Create table')")
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        assert not person.errors
    finally:
        person.context.close()


def test_an_impossible_combination_cannot_be_chosen_and_says_why(browser, server):
    person = Person(browser, server, viewport=PHONE)
    try:
        sign_up(person, "Rhea")
        page = person.goto("/")
        page.click("#new-table > summary")
        # Declare: no way to play but the card game itself, and the note says why.
        page.check("input[name=rules][value=declare]")
        assert page.is_disabled("#mode option[value=ultra]")
        assert page.is_disabled("#attributes option[value='5']")
        assert "classic" in page.inner_text("#mode-note")
        # UltraSet: declare is off in turn; 3 attributes can be played but not rated.
        page.check("input[name=rules][value=classic]")
        page.select_option("#mode", "ultra")
        assert page.is_disabled("input[name=rules][value=declare]")
        page.select_option("#attributes", "3")
        assert page.is_disabled("#rated")
        assert "4 attributes only" in page.inner_text("#rated-note")
        # A quick game is never rated; the whole deck is, and then one computer may sit there
        # (it plays as its speed's bot account), not two.
        page.select_option("#attributes", "4")
        page.select_option("#length", "quick")
        assert page.is_disabled("#rated") and "quick game" in page.inner_text("#rated-note")
        page.select_option("#length", "full")
        page.check("#rated")
        assert not page.is_disabled("#computers option[value='1']")
        assert page.is_disabled("#computers option[value='2']")
        assert "accounts only" in page.inner_text("#computers-note")
        page.locator("#rated").scroll_into_view_if_needed()
        shoot(page, "lobby-phone-options-rules")
        assert not person.errors
    finally:
        person.context.close()


def test_a_choice_the_server_refuses_comes_back_beside_its_control_at_the_lobby(browser, server):
    person = Person(browser, server, viewport=LAPTOP)
    try:
        sign_up(person, "Ines")
        page = person.goto("/")
        page.click("#new-table > summary")
        page.select_option("#length", "quick")
        # An old page, or a hand-made post: Rated ticked for a quick game anyway.
        page.evaluate(
            "() => { const box = document.querySelector('#rated');"
            " box.disabled = false; box.checked = true; }"
        )
        page.click("button:has-text('Create table')")
        page.wait_for_selector("#rated-error")
        assert re.search(r"/(#new-table)?$", page.url) and "/play/new" not in page.url
        assert "not rated" in page.inner_text("#rated-error")
        # The form has turned Rated off for a quick game since: its message has the focus.
        wait_for_focus(page, "rated-error")
        assert page.is_disabled("#rated") and "quick game" in page.inner_text("#rated-note")
        assert (
            page.is_visible("#new-table .options-body") and page.input_value("#length") == "quick"
        )
        shoot(page, "lobby-desktop-refused")
        # Declare + UltraSet, forced past the form: the message is beside the way to play.
        force_declare_ultra(page)
        page.click("button:has-text('Create table')")
        page.wait_for_selector("#mode-error")
        assert "/play/new" not in page.url and "classic" in page.inner_text("#mode-error")
        wait_for_focus(page, "mode")
        shoot(page, "lobby-desktop-refused-mode")
        assert not person.errors
    finally:
        person.context.close()


def test_a_refused_control_keeps_the_focus_when_the_page_finishes_loading_late(browser, server):
    """The server sends a refused form back at /#new-table. A browser scrolls to that fragment
    when the page has loaded, and Chromium takes the focus away then (the folded options cannot
    have it): on a slow network, with the lobby's script run well before the page's last one,
    the refused control lost its focus. The last script is held back here for a second."""
    person = Person(browser, server, viewport=LAPTOP)
    try:
        sign_up(person, "Iris")
        page = person.goto("/")

        def late(route):
            page.wait_for_timeout(1500)
            route.continue_()

        page.route(re.compile(r"/js/pages/pool\.js"), late)
        page.click("#new-table > summary")
        force_declare_ultra(page)
        page.click("button:has-text('Create table')")
        page.wait_for_load_state("load")
        assert page.url.endswith("/#new-table") and page.is_visible("#mode-error")
        wait_for_focus(page, "mode")
        page.wait_for_timeout(300)  # and it stays there
        assert page.evaluate("() => document.activeElement.id") == "mode"
        assert not person.errors
    finally:
        person.context.close()
