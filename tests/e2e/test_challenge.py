"""Issue 26's "done when", its browser part: two accounts in two browsers; one challenges the
other from the other's profile, the other sees the challenge on the lobby page and accepts, and
both land on the table, seated, its countdown begun; they play it to its end, taking turns to find
the sets, and both see the result."""

from __future__ import annotations

import re

from tests.e2e.conftest import E2E
from tests.e2e.test_rated_game import sign_up
from tests.e2e.test_set_pages import Person, find_every_set

pytestmark = E2E


def test_a_challenge_from_a_profile_is_accepted_in_the_lobby(browser, server):
    ana, bo = Person(browser, server), Person(browser, server)
    try:
        sign_up(ana, "chl-ana")
        sign_up(bo, "chl-bo")
        lobby = bo.goto("/")  # bo waits in the lobby (the server is shared: names of its own)
        lobby.wait_for_load_state("networkidle")

        profile = ana.goto("/u/chl-bo")
        profile.check("input[name=kind][value=set]")
        profile.select_option("#challenge-rules", "classic")
        profile.select_option("#challenge-attributes", "3")  # 27 cards: a short game
        profile.click("#challenge-send")
        profile.wait_for_selector("#challenge-status:has-text('Challenge sent')")
        # ana's own pages show her challenge, waiting.
        profile.wait_for_selector("#challenges .challenge:has-text('You challenged chl-bo')")

        # bo's lobby page shows it, pushed through his lobby socket.
        offer = lobby.wait_for_selector("#challenges .challenge:has-text('chl-ana challenges you')")
        assert "Set (classic, 3 attributes)" in offer.inner_text()
        lobby.click("#challenges button:has-text('Accept')")

        # Both land on the table: bo by his accept, ana by the gameStart her socket hears.
        lobby.wait_for_url(re.compile(r"/play/\d+/"))
        profile.wait_for_url(re.compile(r"/play/\d+/"))
        assert lobby.url.split("?")[0] == profile.url.split("?")[0]
        for page, name in ((profile, "chl-ana"), (lobby, "chl-bo")):
            page.wait_for_selector(f"#scores li[data-player={name}] .badge-you")
            page.wait_for_selector("#scores li[data-player=chl-ana]")
            page.wait_for_selector("#scores li[data-player=chl-bo]")

        # They play: each in turn finds a set on the board both see, to the end.
        lobby.wait_for_selector("#board .card:not(.taken)")
        find_every_set(bo, ana)
        for page in (profile, lobby):
            page.wait_for_selector("#result-panel:not([hidden])")
            page.wait_for_selector("#connection[data-state=over]")
        scores = profile.inner_text("#scores")
        assert "chl-ana" in scores and "chl-bo" in scores
        assert not ana.errors and not bo.errors, (ana.errors, bo.errors)
    finally:
        ana.context.close()
        bo.context.close()
