"""``report.html``: the viewer's run page as one offline file, with what a finished run's report adds (totals,
a suite's paper-shaped tables with published rows, the comparison with a baseline run, the notes)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from viewer_fixture_run import build_run

from evals.paper_tables import build_tables, to_json
from evals.report import build_report
from evals.run_reader import RunReader
from evals.view.markup import JS
from evals.view.report import write_report_html

CONDITIONS = ["intrinsic", "tools"]


class Fetches(HTMLParser):
    """Every URL the page would load or link to, and its scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")
        self.urls += [v or "" for k, v in attrs if k in ("href", "src", "action", "srcset", "poster")]

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    run_dir = tmp_path_factory.mktemp("report") / "run"
    build_run(run_dir)
    results = RunReader(run_dir).results(with_trace=False)
    meta = {"run_id": "viewer-fixture", "wall_s": 12.5, "failed": 1, "input_tokens": 4321, "output_tokens": 765,
            "cost_usd": None, "baseline_run_dir": "runs/older"}
    report = build_report(results, CONDITIONS, meta, baseline_results=results)
    tables = build_tables("gpsbench-paper", results, CONDITIONS, compare_paper=True)
    report["paper_tables"] = {"suite": "gpsbench-paper", "compare_paper": True, "tables": [to_json(t) for t in tables]}
    return write_report_html(run_dir, report).read_text()


def test_report_is_one_offline_file(report_page: str) -> None:
    found = Fetches()
    found.feed(report_page)
    assert found.urls == ["data:,"]  # the empty favicon: no link, no image, no stylesheet to fetch
    assert found.scripts == [JS]
    for text in ("@import", "url(", "http:", "https:"):
        assert text not in report_page


def test_report_shows_the_run_page_and_the_reports_additions(report_page: str) -> None:
    for text in ('class="gapchart"', "intrinsic status %", ">80/10/10/0<", "(incomplete)", "gained with tools",
                 "by region", "wall time", "12.5 s", "4,321 / 765", "runs/older", "Against baseline run",
                 "Paper-shaped tables", "GPSBench Table 3: Pure GPS / Applied / Overall", "(published)",
                 "Published: ", "Wilson 95 %", "McNemar"):
        assert text in report_page, text
    assert report_page.count("<details open>") == report_page.count("<details") - report_page.count(
        "<details><summary>versions")  # every breakdown unfolded (the versions list stays folded)
