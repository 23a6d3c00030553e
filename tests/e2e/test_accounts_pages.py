"""Accounts in a real browser (headless Debian chromium): a guest signs up, sees the account's
name in the header, logs out and logs in again, under the site's strict Content-Security-Policy.
Screenshots of the sign-up page in both themes go to test-artifacts/."""

from __future__ import annotations

from tests.e2e.conftest import ARTIFACTS, E2E
from tests.e2e.test_set_pages import Person

pytestmark = E2E
PASSWORD = "correct horse battery"


def test_a_guest_signs_up_logs_out_and_logs_in_again(browser, server):
    person = Person(browser, server)
    page = person.page
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    person.name_myself("guest")

    page.click(".account-nav a:has-text('Sign up')")
    page.wait_for_selector("#id_username")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "accounts-signup-light.png"), full_page=True)
    page.click("#theme-toggle")
    page.screenshot(path=str(ARTIFACTS / "accounts-signup-dark.png"), full_page=True)

    # A name that is too long is refused with a message, not cut.
    page.fill("#id_username", "x" * 21)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_selector(".form-error:has-text('at most 20 characters; this one has 21')")
    assert page.input_value("#id_username") == "x" * 21

    page.fill("#id_username", "李雷")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_selector(".account-nav .account-name:has-text('李雷')")
    # The guest's player is the account's now: the lobby greets it by the account's name.
    page.wait_for_selector(".player-name:has-text('李雷')")

    # The header's name opens the account's profile, which links to the password change.
    page.click(".account-nav .account-name")
    page.wait_for_selector("h1:has-text('李雷')")
    page.click("a:has-text('Change your password')")
    page.wait_for_selector("#id_oldpassword")

    page.click(".account-nav button:has-text('Log out')")
    page.wait_for_selector(".account-nav a:has-text('Log in')")
    assert page.locator(".account-name").count() == 0

    page.click(".account-nav a:has-text('Log in')")
    page.fill("#id_login", "李雷")
    page.fill("#id_password", PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_selector(".account-nav .account-name:has-text('李雷')")
    assert not console, console
    person.close()
