"""The tool-use funnel in a real browser (headless Debian Chromium under Playwright): each tools answer's sample
page names the funnel step that failed and why (evals/funnel.py's names), and the run page and report.html show
each tool condition's counts down the steps and the reasons samples stopped. The expected steps are those the
fixture's scripted model is written to take (viewer_fixture_run's cases), not read from the run. Screenshots go to
test-artifacts/viewer/. Without Playwright or Chromium these tests skip locally and FAIL when CI is set."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest
from chromium import ARTIFACTS
from viewer_fixture_run import build_run

from evals.report import build_report
from evals.run_reader import RunReader
from evals.view.app import Viewer
from evals.view.report import write_report_html
from evals.view.server import serve_in_thread

# case → (failed step, reason) as the scripted model is written: "" for an answer credited at the last step
EXPECTED = {
    "gained": ("", ""),  # calls distance_km with the item's points and answers its result
    "both_right": ("called_tool", "no_tool"),  # offered tools, answers from memory
    "lost": ("right_args", "wrong_args"),  # passes markup as lat1: the call fails validation
    "both_wrong": ("answer_matches_tool", "ignored_result"),  # answers half the tool's distance
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    root = tmp_path_factory.mktemp("funnel-browser")
    ids = build_run(root / "run")
    reader = RunReader(root / "run")
    results = list(reader.results(bodies=False))
    report = build_report(results, ["intrinsic", "tools"], {"run_id": "viewer-fixture"},
                          samples=reader.samples(reader.tool_result_ids()))
    html = write_report_html(root / "run", report)
    viewer = Viewer([root / "run"])
    server, url = serve_in_thread(viewer)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield {"url": url, "ids": ids, "rid": next(iter(viewer.runs)), "report": html}
    server.shutdown()



@pytest.mark.parametrize("case", list(EXPECTED))
def test_the_sample_page_names_the_failed_funnel_step(page, site, case: str) -> None:
    pg = page
    sample_id = site["ids"][case][0]
    pg.goto(f"{site['url'].rstrip('/')}/runs/{site['rid']}/sample?id={quote(sample_id, safe='')}")
    answers = pg.locator(".answer")
    assert answers.count() == 2
    assert answers.nth(0).locator(".funnel").count() == 0  # intrinsic: no tools, no funnel
    funnel = answers.nth(1).locator(".funnel")
    failed, reason = EXPECTED[case]
    assert (funnel.get_attribute("data-failed"), funnel.get_attribute("data-reason")) == (failed, reason)
    label = funnel.locator(".fhead").inner_text()
    if failed:
        assert f"stopped at {failed} ({reason})" in label
        crossed = funnel.locator("li.f-fail")
        assert crossed.count() == 1 and crossed.get_attribute("data-step") == failed and reason in crossed.inner_text()
    else:
        assert "credited: every step passed" in label and funnel.locator("li.f-pass").count() == 6
    assert not pg.errors, pg.errors
    pg.screenshot(path=str(ARTIFACTS / f"funnel-sample-{case}.png"), full_page=True)


def test_the_run_page_and_report_show_the_funnel_counts(page, site) -> None:
    pg = page
    for where, url in (("run", f"{site['url'].rstrip('/')}/runs/{site['rid']}/"), ("report", site["report"].as_uri())):
        pg.goto(url)
        table = pg.locator("table.funnel-counts").last
        cells = {table.locator("td").nth(i).get_attribute("data-step"): table.locator("td").nth(i).inner_text()
                 for i in range(6)}
        # 9 answered tools samples: 8 called a tool (both_right did not), 7 with the item's arguments (lost's
        # markup argument), 6 kept the result (both_wrong halved it), all 6 credited
        assert cells == {"called_tool": "8", "right_tool": "8", "right_args": "7", "tool_returned_gold": "7",
                         "answer_matches_tool": "6", "credited": "6"}, (where, cells)
        assert "9 samples" in table.inner_text()
        stopped = pg.locator("p.funnel-stopped").last.inner_text()
        assert all(f"{r} 1" in stopped for r in ("no_tool", "wrong_args", "ignored_result")), (where, stopped)
        assert not pg.errors, pg.errors
        pg.screenshot(path=str(ARTIFACTS / f"funnel-{where}.png"), full_page=True)
