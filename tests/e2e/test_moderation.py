"""Issue 28's "done when", its browser part: a player reports a line in one browser; a moderator
in another sees it with its context, deletes it and mutes the writer, who is told why and until
when; the log shows it all. Also the report control and the moderation page at a desktop's and a
phone's width, light and dark (screenshots in test-artifacts/)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import DESKTOP, E2E, PHONE, WAIT_MS
from tests.e2e.test_rated_game import sign_up
from tests.e2e.test_set_pages import Person

pytestmark = E2E
expect = pytest.importorskip("playwright.sync_api").expect

WIDE = {"width": 1280, "height": 800}


def write(person: Person, text: str, *, taken: bool = True) -> None:
    """Write a line; `taken`: wait until the server took it (its input is empty again)."""
    person.page.fill("#chat-input", text)
    person.page.press("#chat-input", "Enter")
    if taken:
        expect(person.page.locator("#chat-input")).to_have_value("", timeout=WAIT_MS)


def shots(person: Person, name: str) -> None:
    """The page as it is, at a desktop's and a phone's width, light and dark."""
    for size_name, size in (("wide", WIDE), ("phone", PHONE)):
        person.page.set_viewport_size(size)
        for scheme in ("light", "dark"):
            person.page.emulate_media(color_scheme=scheme)
            person.context.add_cookies(
                [{"name": "theme", "value": scheme, "url": person.server.url}]
            )
            person.page.evaluate(f"document.documentElement.dataset.theme = '{scheme}'")
            person.shot(f"moderation-{name}-{size_name}-{scheme}")
    person.page.set_viewport_size(DESKTOP)


def phone_layout(page) -> None:
    """At a phone's width each action's field is under its label, as wide as the report, and a
    duration's field keeps its word "minutes" beside it (the rows wrapped mid-sentence)."""
    page.set_viewport_size(PHONE)
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('.mod-report .mod-action label')].map((label) => {
          const field = label.querySelector('input').getBoundingClientRect();
          const box = label.getBoundingClientRect();
          const report = label.closest('.mod-report').getBoundingClientRect();
          const word = label.querySelector('.mod-minutes');
          return {label: box.left, field: field.left, right: field.right, edge: report.right,
                  top: field.top, labelTop: box.top,
                  together: word ? word.getBoundingClientRect().height < 2 * field.height : true};
        })"""
    )
    assert boxes
    for box in boxes:
        assert abs(box["field"] - box["label"]) < 1, box  # under its label, not beside it
        assert box["right"] <= box["edge"], box  # nothing cut at the report's edge
        assert box["top"] > box["labelTop"], box
        assert box["together"], box
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.set_viewport_size(DESKTOP)


def test_a_reported_line_is_deleted_and_its_writer_muted_by_a_moderator(browser, server):
    ada, rex, mia = (Person(browser, server) for _ in range(3))
    try:
        sign_up(ada, "mod-ada")
        sign_up(rex, "mod-rex")
        sign_up(mia, "mod-mia")
        server.shell(
            "from django.contrib.auth import get_user_model\n"
            "from django.contrib.auth.models import Group\n"
            "user = get_user_model().objects.get(username='mod-mia')\n"
            "user.groups.add(Group.objects.get(name='moderators'))\n"
        )
        lobby = ada.goto("/")
        lobby.wait_for_load_state("networkidle")  # her lobby socket is open: lines come live
        rex.goto("/").wait_for_load_state("networkidle")
        write(rex, "hello everyone")
        write(rex, "mod-ada plays like a donkey")
        write(ada, "that is not nice")
        line = lobby.locator("#lobby-chat .chat-line", has_text="like a donkey")
        line.wait_for()
        own = lobby.locator("#lobby-chat .chat-line", has_text="that is not nice")
        own.wait_for()
        assert own.locator(".report-button").count() == 0  # one's own line: no Report
        line.locator(".report-button").click()
        lobby.wait_for_selector("#report-dialog[open]")
        assert "mod-rex's line" in lobby.inner_text("#report-what")
        lobby.select_option("#report-reason", "abuse")
        lobby.fill("#report-note", "An insult, at me.")
        shots(ada, "report-dialog")
        lobby.click("#report-send")
        lobby.wait_for_selector("#report-status:has-text('Thank you')")

        # The moderator sees it, with the lines before and after it.
        page = mia.goto("/")
        page.click(".account-nav a:has-text('Moderation')")
        report = page.locator(".mod-report").first
        report.wait_for()
        assert "Abuse or harassment" in report.inner_text()
        assert "An insult, at me." in report.inner_text()
        lines = report.locator(".mod-lines .chat-line").all_inner_texts()
        # The lobby is shared with the other tests' people: keep this test's own lines.
        ours = [t.split(" ", 1)[1] for t in lines if t.startswith("mod-")]
        assert ours == [
            "hello everyone",
            "mod-ada plays like a donkey",
            "that is not nice",
        ]
        assert "mod-ada plays like a donkey" in report.locator(".mod-reported").inner_text()
        shots(mia, "page")
        phone_layout(mia.page)

        # She deletes the line: it says so on ada's lobby at once.
        report.locator("form[data-action=delete] input[name=reason]").fill("An insult.")
        report.locator("form[data-action=delete] button").click()
        page.wait_for_selector(".mod-reported.chat-removed:has-text('removed by a moderator')")
        lobby.wait_for_selector("#lobby-chat .chat-removed:has-text('removed by a moderator')")
        assert "donkey" not in lobby.inner_text("#lobby-chat")

        # She mutes the writer for an hour; he is told why and until when.
        report = page.locator(".mod-report").first
        report.locator("form[data-action=mute] input[name=minutes]").fill("60")
        report.locator("form[data-action=mute] input[name=reason]").fill("Insults in the lobby.")
        report.locator("form[data-action=mute] button").click()
        page.wait_for_selector("#mod-log tr[data-action=mute]")
        write(rex, "why?", taken=False)
        rex.page.wait_for_selector("#lobby-chat .chat-error:has-text('muted from chat until')")
        assert "Insults in the lobby." in rex.page.inner_text("#lobby-chat .chat-error")
        rex.goto("/")
        notice = rex.page.inner_text("#sanction-notice")
        assert "muted from chat" in notice and "UTC" in notice and "Insults in the lobby." in notice

        # She closes the report; the log shows it all.
        report = page.locator(".mod-report").first
        report.locator("form[data-action=close] input[name=note]").fill("Line removed, muted.")
        report.locator("form[data-action=close] button").click()
        page.wait_for_selector("#no-reports")
        log = page.inner_text("#mod-log")
        for words in ("delete", "mute", "close", "An insult.", "Insults in the lobby.", "mod-mia"):
            assert words in log, words
        assert "mod-ada plays like a donkey" in log  # what the line said, kept by the log
        shots(mia, "log")

        # The mute is listed in force; she lifts it early, and he writes again at once.
        sanction = page.locator(".mod-sanction[data-name=mod-rex][data-kind=mute]")
        assert "muted from chat" in sanction.inner_text()
        assert "Insults in the lobby." in sanction.inner_text()
        shots(mia, "sanctions")
        sanction.locator("input[name=reason]").fill("He said sorry.")
        sanction.locator("button:has-text('Lift the mute')").click()
        page.wait_for_selector("#mod-log tr[data-action=unmute]")
        assert page.locator(".mod-sanction[data-name=mod-rex]").count() == 0
        assert "He said sorry." in page.inner_text("#mod-log")
        rex.goto("/").wait_for_load_state("networkidle")
        assert rex.page.locator("#sanction-notice").count() == 0
        write(rex, "sorry, mod-ada")
        lobby.locator("#lobby-chat .chat-line", has_text="sorry, mod-ada").wait_for()
        for person in (ada, rex, mia):
            assert not person.errors, person.errors
    finally:
        for person in (ada, rex, mia):
            person.context.close()


def test_a_block_from_a_profile_hides_the_blocked_ones_lobby_lines(browser, server):
    ivy, max_ = Person(browser, server), Person(browser, server)
    try:
        sign_up(ivy, "blk-ivy")
        sign_up(max_, "blk-max")
        max_.goto("/").wait_for_load_state("networkidle")
        write(max_, "blk-max was here")
        profile = ivy.goto("/u/blk-max")
        assert profile.inner_text("#block-button") == "Block"
        shots(ivy, "profile")
        profile.click("#block-button")
        profile.wait_for_selector("#block-button[aria-pressed=true]:has-text('Unblock')")
        assert "blocked" in profile.inner_text("#report-status")
        profile.click(".manners .report-button[data-about=name]")
        profile.wait_for_selector("#report-dialog[open]")
        assert "The name blk-max" in profile.inner_text("#report-what")
        profile.click("#report-cancel")
        lobby = ivy.goto("/")
        lobby.wait_for_load_state("networkidle")
        assert "blk-max was here" not in lobby.inner_text("#lobby-chat")
        write(max_, "and again")  # pushed live: not to her either
        write(ivy, "quiet here")
        lobby.wait_for_selector("#lobby-chat .chat-line:has-text('quiet here')")
        assert "and again" not in lobby.inner_text("#lobby-chat")
        ivy.goto("/u/blk-max").click("#block-button")  # unblocked: shown again
        ivy.page.wait_for_selector("#block-button[aria-pressed=false]")
        assert "and again" in ivy.goto("/").inner_text("#lobby-chat")
        assert not ivy.errors and not max_.errors, (ivy.errors, max_.errors)
    finally:
        ivy.context.close()
        max_.context.close()
