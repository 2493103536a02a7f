"""The viewer in a real browser: headless Debian Chromium driven by Playwright (no browser download).

Opens a run made by the runner with a scripted model, reads its tool-use section and follows it to the answers
given without a tool call and those disagreeing with their tools, filters to "gained with tools", opens a sample, checks
both answers and the tool timeline, and checks that markup in a model answer stayed text and did not run.
The same walk is repeated on the static export opened from disk. Screenshots go to test-artifacts/viewer/.
Without Playwright or Chromium these tests skip locally and FAIL when the CI variable is set.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import ARTIFACTS
from viewer_fixture_run import build_run

from evals.view.app import Viewer
from evals.view.export import export
from evals.view.server import serve_in_thread

XSS_TEXT = "<script>window.__xss=1</script>"



@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    root = tmp_path_factory.mktemp("viewer-browser")
    ids = build_run(root / "run")
    viewer = Viewer([root / "run"])
    server, url = serve_in_thread(viewer)
    index = export(Viewer([root / "run"]).runs, root / "export")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield {"url": url, "ids": ids, "export": index, "root": root}
    server.shutdown()


@pytest.fixture
def page(browser, site):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(10_000)
    pg.requests, pg.errors, pg.dialogs = [], [], []
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    context.close()


def assert_no_injection(pg) -> None:
    assert pg.evaluate("typeof window.__xss") == "undefined"
    assert not pg.dialogs and not pg.errors, (pg.dialogs, pg.errors)


def open_gained_sample(pg, ids: dict, shots: str) -> None:
    """From a run page: list → "gained with tools" → the sample whose intrinsic answer carries markup."""
    pg.get_by_role("link", name="browse all samples →").click()
    pg.locator("a.chip", has_text="gained with tools").click()
    rows = pg.locator("table.samples tbody tr")
    expected = len(ids["gained"]) + len(ids["parse"]) + len(ids["xss"]) + len(ids["hedged"])
    assert rows.count() == expected
    assert rows.locator(".badge.o-gained").count() == expected
    pg.screenshot(path=str(ARTIFACTS / f"{shots}samples-gained.png"), full_page=True)
    xss_id = ids["xss"][0]
    pg.get_by_role("link", name=xss_id.split("/", 1)[1]).click()
    pg.wait_for_selector(".answer")
    answers = pg.locator(".answer")
    assert answers.count() == 2
    intrinsic, tools = answers.nth(0), answers.nth(1)
    assert "intrinsic" in intrinsic.locator(".head").inner_text() and "wrong" in intrinsic.locator(".head").inner_text()
    assert XSS_TEXT in intrinsic.locator("pre.final").inner_text()
    assert "right" in tools.locator(".head").inner_text()
    steps = tools.locator("ol.tl > li")
    assert steps.count() == 5  # model, tool, model, repeated tool, model
    assert "distance_km" in steps.nth(1).inner_text() and "ok" in steps.nth(1).inner_text()
    assert "repeated" in steps.nth(3).inner_text()
    assert pg.locator("svg.sketch").is_visible()
    assert_no_injection(pg)
    pg.screenshot(path=str(ARTIFACTS / f"{shots}sample.png"), full_page=True)


def test_served_run_gained_filter_sample_and_no_script_runs(page, site) -> None:
    pg = page
    pg.goto(site["url"])
    pg.get_by_role("link", name="run", exact=True).click()
    assert pg.locator("h1").inner_text().startswith("run")
    assert pg.locator("table.grid").first.inner_text().count("gpsbench.distance") == 1
    assert pg.locator("svg.gapchart").is_visible()
    pg.screenshot(path=str(ARTIFACTS / "run.png"), full_page=True)
    table = pg.locator("table.grid").first
    assert "intrinsic status %" in table.inner_text() and "80/10/0/10/0/0/0" in table.inner_text()  # answered/hedged/...
    assert "incomplete" in table.inner_text()  # one tools sample ended in error
    pg.locator("a.chip.o-hedged").click()  # the sample list filtered by answer status
    pg.wait_for_url("**/samples?outcome=hedged")
    rows = pg.locator("table.samples tbody tr")
    assert rows.count() == 1 and rows.locator(".badge.o-hedged").count() == 1
    assert site["ids"]["hedged"][0].split("/", 1)[1] in rows.inner_text()
    pg.go_back()
    tool_use = pg.locator("details", has_text="called a tool in 8/9")  # the run page's tool-use section
    assert tool_use.is_visible() and "disagrees with its tools 1 of 7 checked" in tool_use.inner_text()
    assert tool_use.locator('td[title^="gained with tools"]').inner_text() == "6"
    tool_use.get_by_role("link", name="never tried").click()  # the list of answers given without a tool call
    pg.wait_for_url("**outcome=no_tool_call**")
    rows = pg.locator("table.samples tbody tr")
    assert rows.count() == 1 and site["ids"]["both_right"][0].split("/", 1)[1] in rows.inner_text()
    assert pg.locator("a.chip.on", has_text="answered without calling a tool").is_visible()
    pg.locator("a.chip", has_text="disagrees with its tools").click()
    pg.wait_for_url("**outcome=disagrees**")
    rows = pg.locator("table.samples tbody tr")
    assert rows.count() == 1 and rows.locator(".badge.o-disagrees").count() == 1
    assert site["ids"]["both_wrong"][0].split("/", 1)[1] in rows.inner_text()
    pg.screenshot(path=str(ARTIFACTS / "samples-disagrees.png"), full_page=True)
    pg.goto(site["url"])
    pg.get_by_role("link", name="run", exact=True).click()
    open_gained_sample(pg, site["ids"], "")
    pg.keyboard.press("ArrowLeft")  # previous sample within the gained list
    pg.wait_for_url("**id=" + site["ids"]["parse"][0].replace("/", "%2F") + "**")  # the one before, by id
    assert "parse failure" in pg.locator(".answer").nth(0).inner_text()
    pg.keyboard.press("u")  # back to the list page holding this sample
    pg.wait_for_url("**/samples?outcome=gained")
    pg.fill("input[type=search]", "__xss")
    pg.keyboard.press("Enter")
    pg.wait_for_url("**q=__xss**")
    assert pg.locator("table.samples tbody tr").count() == 1
    assert_no_injection(pg)
    host = site["url"].rstrip("/")
    assert all(u.startswith((host, "data:")) for u in pg.requests), pg.requests


def test_static_export_opens_from_disk(page, site) -> None:
    pg = page
    pg.goto(site["export"].as_uri())
    pg.get_by_role("link", name="run", exact=True).click()
    assert pg.locator("svg.gapchart").is_visible()
    open_gained_sample(pg, site["ids"], "export-")
    assert all(u.startswith(("file://", "data:")) for u in pg.requests), pg.requests


def test_compare_page_toggles_runs(browser, site, tmp_path: Path) -> None:
    second = tmp_path / "run-b"
    shutil.copytree(site["root"] / "run", second)
    server, url = serve_in_thread(Viewer([site["root"] / "run", second]))
    pg = browser.new_page()
    try:
        pg.goto(url)
        pg.get_by_role("button", name="compare selected runs side by side →").click()
        assert pg.locator("th.group").count() == 2
        pg.locator("input[data-run-toggle='1']").uncheck()
        assert pg.locator("th.group").nth(1).is_hidden() and pg.locator("th.group").nth(0).is_visible()
        pg.screenshot(path=str(ARTIFACTS / "compare.png"), full_page=True)
    finally:
        pg.close()
        server.shutdown()
