"""Issue 29's "done when", its Play now part: four people in four browsers press Play now and are
seated together within seconds; the lobby shows how many wait, and a wait can be canceled."""

from __future__ import annotations

import re
import time

import pytest

from tests.conftest import Server
from tests.e2e.conftest import ARTIFACTS, E2E, PHONE
from tests.e2e.test_rated_game import sign_up
from tests.e2e.test_set_pages import Person

pytestmark = E2E

POOL = "set:set-classic"
LAPTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of this module's own whose Play now waits two minutes for a table of four: the
    first three presses (each waiting for the counts pushed to everyone) never outlast it on a
    busy machine, so the four sit together when the fourth presses."""
    running = Server(tmp_path_factory.mktemp("play-now"), POOL_WAIT_LIMIT_S="120").start()
    yield running
    running.stop()


def name_guest(person: Person, name: str):
    page = person.goto("/")
    page.fill("#play-name", name)
    page.click("button:has-text('Save name')")
    page.wait_for_selector(f".player-name:has-text('{name}')")
    return page


def test_four_people_press_play_now_and_sit_at_one_table(browser, server):
    people = [Person(browser, server, viewport=LAPTOP) for _ in range(4)]
    try:
        sign_up(people[0], "pn-ada")
        sign_up(people[1], "pn-bob")
        pages = [people[0].goto("/"), people[1].goto("/")]
        pages += [name_guest(people[2], "pn-cy"), name_guest(people[3], "pn-dee")]
        for page in pages:
            page.wait_for_selector("#pool-play")
            page.wait_for_load_state("networkidle")  # its lobby socket is open
        for n, page in enumerate(pages[:3]):
            page.select_option("#pool-mode", POOL)
            page.click("#pool-play")
            page.wait_for_selector("#pool-waiting:not([hidden])")
            assert "Waiting for players" in page.inner_text("#pool-waiting")
            # Everyone's lobby hears how many wait, pushed by the lobby socket.
            pages[3].wait_for_selector(f"#pool-counts li:has-text('Set classic, casual: {n + 1}')")
        if not ARTIFACTS.exists():
            ARTIFACTS.mkdir()
        pages[0].screenshot(path=str(ARTIFACTS / "play-now-waiting.png"))
        pages[3].screenshot(path=str(ARTIFACTS / "play-now-counts.png"))
        pages[3].select_option("#pool-mode", POOL)
        started = time.monotonic()
        pages[3].click("#pool-play")
        for page in pages:
            page.wait_for_url(re.compile(r"/play/\d+/"))
        seconds = time.monotonic() - started
        assert len({page.url.split("?")[0] for page in pages}) == 1  # one table
        names = ("pn-ada", "pn-bob", "pn-cy", "pn-dee")
        for page, name in zip(pages, names, strict=True):
            page.wait_for_selector(f"#scores li[data-player={name}] .badge-you")
            for other in names:
                page.wait_for_selector(f"#scores li[data-player={other}]")
        assert seconds < 15, seconds  # from the fourth press: seated together within seconds
        assert not any(p.errors for p in people), [p.errors for p in people]
    finally:
        for person in people:
            person.context.close()


def test_a_wait_is_canceled_and_the_phone_lobby_shows_play_now(browser, server):
    phone = Person(browser, server, viewport=PHONE)
    try:
        page = name_guest(phone, "pn-eve")
        page.wait_for_selector("#pool-play")
        page.select_option("#pool-mode", "square:square")
        assert page.locator("#pool-rated").count() == 0  # a guest plays casual
        page.click("#pool-play")
        page.wait_for_selector("#pool-waiting:not([hidden])")
        page.screenshot(path=str(ARTIFACTS / "play-now-phone.png"), full_page=False)
        page.click("#pool-cancel")
        page.wait_for_selector("#pool-play:visible")
        page.wait_for_selector(
            "#pool-here:has-text('Nobody waits in Square Game, casual')", state="attached"
        )
        page.wait_for_selector("#pool-mode option:has-text('Square Game')", state="attached")
        assert "waiting" not in page.inner_text("#pool-mode")  # nobody waits anywhere now
        # Leaving the lobby while waiting leaves the pool: nobody is seated in their absence.
        page.click("#pool-play")
        page.wait_for_selector("#pool-waiting:not([hidden])")
        assert page.request.get(f"{phone.server.url}/api/pool").json()["waiting"] is not None
        phone.goto("/solitaire/")
        deadline = time.monotonic() + 10
        while page.request.get(f"{phone.server.url}/api/pool").json()["waiting"] is not None:
            assert time.monotonic() < deadline, "the wait outlived the lobby page"
            time.sleep(0.2)
        assert not phone.errors, phone.errors
    finally:
        phone.context.close()


def test_a_guest_with_no_name_is_sent_to_the_name_field_not_told_about_headers(browser, server):
    """Play now before choosing a name: the page says, in a person's words, to choose one (the
    API's 401 sentence names the Authorization header, for programs), and the name field has
    the focus."""
    guest = Person(browser, server, viewport=LAPTOP)
    try:
        page = guest.goto("/")
        page.wait_for_selector("#pool-play")
        page.wait_for_load_state("networkidle")
        page.click("#pool-play")
        page.wait_for_selector("#pool-error:not([hidden])")
        said = page.inner_text("#pool-error")
        assert said == "Choose your name above (or log in), then press Play now.", said
        assert page.evaluate("document.activeElement.id") == "play-name"
        assert page.locator("#pool-waiting:not([hidden])").count() == 0
    finally:
        guest.context.close()
