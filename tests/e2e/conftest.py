"""What every browser test shares: Debian's chromium, driven by Playwright.

Never `playwright install` (it downloads a browser, which this machine cannot): `make test`
installs Debian's chromium, and the tests skip with a clear reason where it is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# How long a step may take before a test fails: generous, for the suite on PostgreSQL and Redis
# runs a browser, servers and the database on 2 cores at once (a click then took 8 s at times).
WAIT_MS = 15_000
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

# Marks for every browser test module: one live server and one browser, on one xdist worker.
E2E = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
    ),
]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Each browser test module runs on one xdist worker (its browser and live server are its
    own), and the modules spread over the workers: `--dist loadgroup` keeps a group together."""
    here = Path(__file__).parent
    for item in items:
        if item.path.parent == here:
            item.add_marker(pytest.mark.xdist_group(f"browser-{item.path.stem}"))


@pytest.fixture(scope="module")
def browser():
    """One headless chromium for each browser test module, closed when it is done: Playwright's sync
    API keeps an event loop running in the test thread while it is open, and Django refuses to
    set up or flush a test database under a running loop (tests that come after, on the same
    xdist worker, would fail)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@contextmanager
def watched_page(browser, viewport=DESKTOP) -> Iterator[tuple[object, list[str]]]:
    """A page in a context of its own, and the console errors and script errors it shows (a
    policy violation is one); the context is closed after."""
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page, errors
    finally:
        context.close()
