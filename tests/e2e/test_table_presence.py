"""Two people at a table see each other come and go (issue 17, item 2), in a real browser."""

from __future__ import annotations

from tests.e2e.conftest import E2E
from tests.e2e.test_set_pages import Person, create_table

pytestmark = E2E


def test_two_players_see_each_other_come_and_go(browser, server):
    ada = Person(browser, server)
    ada.name_myself("ada_here")
    game_id = create_table(ada, rules="classic", attributes="3")
    ada.page.wait_for_selector("#scores li[data-player=ada_here] .badge-here")
    bob = Person(browser, server)
    bob.name_myself("bob_here")
    bob.goto(f"/play/{game_id}/?join=1")
    bob.page.wait_for_selector("#scores li[data-player=bob_here] .badge-you")
    bob.wait_live()
    ada.page.wait_for_selector("#scores li[data-player=bob_here] .badge-here")
    bob.page.wait_for_selector("#scores li[data-player=ada_here] .badge-here")
    bob.goto("/")  # bob leaves the table: his socket closes
    ada.page.wait_for_selector("#scores li[data-player=bob_here] .badge-away")
    bob.goto(f"/play/{game_id}/")  # and comes back
    ada.page.wait_for_selector("#scores li[data-player=bob_here] .badge-here")
    ada.close()
    bob.close()
