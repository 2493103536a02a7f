"""Browser fixtures shared by the viewer's Chromium tests: each module defines its own ``site`` (the runs and the
served viewer), built before Playwright starts its event loop."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chromium import launch_chromium, open_page


@pytest.fixture(scope="module")
def browser(site: dict) -> Iterator[object]:
    """One headless Chromium per module, started after the module's ``site``."""
    with launch_chromium() as b:
        yield b


@pytest.fixture
def page(browser: object, site: dict) -> Iterator[object]:
    """A fresh 1400×900 page per test, its console and page errors in ``page.errors`` (chromium.open_page)."""
    with open_page(browser) as pg:
        yield pg
