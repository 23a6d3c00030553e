"""Issue 26's "done when", its browser part: two accounts in two browsers; one challenges the
other from the other's profile, the other sees the challenge on the lobby page and accepts, and
both land on the table, seated, its countdown begun."""

from __future__ import annotations

import re

from tests.e2e.conftest import E2E
from tests.e2e.test_rated_game import sign_up
from tests.e2e.test_set_pages import Person

pytestmark = E2E


def test_a_challenge_from_a_profile_is_accepted_in_the_lobby(browser, server):
    ada, bob = Person(browser, server), Person(browser, server)
    try:
        sign_up(ada, "ada")
        sign_up(bob, "bob")
        lobby = bob.goto("/")  # bob waits in the lobby
        lobby.wait_for_load_state("networkidle")

        profile = ada.goto("/u/bob")
        profile.check("input[name=kind][value=set]")
        profile.select_option("#challenge-rules", "classic")
        profile.click("#challenge-send")
        profile.wait_for_selector("#challenge-status:has-text('Challenge sent')")
        # ada's own pages show her challenge, waiting.
        profile.wait_for_selector("#challenges .challenge:has-text('You challenged bob')")

        # bob's lobby page shows it, pushed through his lobby socket.
        offer = lobby.wait_for_selector("#challenges .challenge:has-text('ada challenges you')")
        assert "Set (classic, 4 attributes)" in offer.inner_text()
        lobby.click("#challenges button:has-text('Accept')")

        # Both land on the table: bob by his accept, ada by the gameStart her socket hears.
        lobby.wait_for_url(re.compile(r"/play/\d+/"))
        profile.wait_for_url(re.compile(r"/play/\d+/"))
        assert lobby.url.split("?")[0] == profile.url.split("?")[0]
        for page, name in ((profile, "ada"), (lobby, "bob")):
            page.wait_for_selector(f"#scores li[data-player={name}] .badge-you")
            page.wait_for_selector("#scores li[data-player=ada]")
            page.wait_for_selector("#scores li[data-player=bob]")
        assert not ada.errors and not bob.errors, (ada.errors, bob.errors)
    finally:
        ada.context.close()
        bob.context.close()
