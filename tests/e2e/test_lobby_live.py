"""The live lobby in a real browser (headless Debian chromium) against a real daphne server: one
person keeps the lobby open while another comes, makes a table, plays it to its end and goes;
the first sees each step without a reload."""

from __future__ import annotations

from tests.e2e.conftest import E2E
from tests.e2e.test_set_pages import Person, create_table, find_every_set

pytestmark = E2E


def test_the_lobby_shows_who_comes_and_goes_and_tables_made_and_ended_without_a_reload(
    browser, server
):
    amy = Person(browser, server)
    lobby = amy.goto("/")
    lobby.wait_for_selector("#online-now .online-guests")  # its own socket: a guest watching
    lobby.evaluate("window.notReloaded = true")

    ben = Person(browser, server)
    ben.name_myself("ben_live")
    lobby.wait_for_selector("#online-now li:has-text('ben_live')")

    game_id = create_table(ben, rules="classic", attributes="3", length="quick")
    row = f"#open-tables tr[data-game='{game_id}']"
    lobby.wait_for_selector(f"{row}:has-text('ben_live')")
    assert lobby.locator(f"{row} a[aria-label='Join game {game_id}']").is_visible()
    # Ben left the lobby for his table: no longer online there.
    lobby.wait_for_selector("#online-now li:has-text('ben_live')", state="detached")

    find_every_set(ben)
    lobby.wait_for_selector(row, state="detached")
    # ... and is among the finished games, with its score and a replay, still without a reload.
    finished = f"#finished-games tr[data-game='{game_id}']"
    lobby.wait_for_selector(f"{finished}:has-text('ben_live')")
    assert lobby.locator(f"{finished} a[aria-label='Replay game {game_id}']").is_visible()

    ben.goto("/")
    lobby.wait_for_selector("#online-now li:has-text('ben_live')")
    ben.close()  # the browser goes: its socket closes
    lobby.wait_for_selector("#online-now li:has-text('ben_live')", state="detached")
    assert lobby.evaluate("window.notReloaded") is True
    amy.close()
