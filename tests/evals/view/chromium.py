"""Debian's Chromium under Playwright for the viewer's browser tests: one launcher, skipped outside CI when no
browser is available and failed in CI."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "viewer"


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


@contextmanager
def launch_chromium() -> Iterator[object]:
    """A headless Chromium (Playwright's Browser), closed on exit."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        unavailable(f"playwright is not importable ({exc})")
    if not Path(CHROMIUM).exists():
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        except Exception as exc:  # noqa: BLE001 - any launch failure means no browser
            unavailable(f"Chromium did not start: {exc}")
        yield b
        b.close()


@contextmanager
def open_page(browser: object) -> Iterator[object]:
    """A 1400×900 page in a fresh context whose console errors and page errors collect in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(10_000)
    pg.errors = []
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    context.close()
