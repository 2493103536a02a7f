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
    reader = RunReader(run_dir)
    results = list(reader.results(bodies=False))
    meta = {"run_id": "viewer-fixture", "wall_s": 12.5, "failed": 1, "input_tokens": 4321, "output_tokens": 765,
            "cost_usd": None, "baseline_run_dir": "runs/older"}
    report = build_report(results, CONDITIONS, meta, baseline_results=results,
                          samples=reader.samples(reader.tool_result_ids()))
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
    for text in ('class="gapchart"', "intrinsic status %", ">80/10/0/10/0/0/0<", "(incomplete)", "gained with tools",
                 "by region", "wall time", "12.5 s", "4,321 / 765", "runs/older", "Against baseline run",
                 "Paper-shaped tables", "GPSBench Table 3: Pure GPS / Applied / Overall", "(published)",
                 "Published: ", "Wilson 95 %", "McNemar"):
        assert text in report_page, text
    assert report_page.count("<details open>") == report_page.count("<details") - report_page.count(
        "<details><summary>versions")  # every breakdown and tool-use block unfolded (the versions list stays folded)


def test_report_shows_tool_use_with_named_cells_and_fidelity(report_page: str) -> None:
    """The fixture's tools condition: 8 of 9 answers called a tool (right from memory once), 6 gained with
    tools, 1 lost despite them, 1 wrong in both after a tool call; 1 of the 7 checked answers disagrees."""
    section = report_page[report_page.index("<h2>Tool use"):report_page.index("<h2>Gap by task")]
    assert ("gpsbench.distance</b> · tools: called a tool in 8/9 (88.9 %) · disagrees with its tools 1 of 7 "
            "checked (14.3 %)") in section
    for name, what, n in (("gained with tools", "intrinsic wrong, called a tool, right", 6),
                          ("lost despite tools", "intrinsic right, called a tool, wrong", 1),
                          ("same with tools", "called a tool, right in both", 0),
                          ("same with tools", "called a tool, wrong in both", 1),
                          ("never tried, gained", "intrinsic wrong, no tool call, right", 0),
                          ("never tried, lost", "intrinsic right, no tool call, wrong", 0),
                          ("never tried, same", "no tool call, right in both", 1)):
        assert f'title="{name}: {what}">{n}<' in section, name
    assert "<b>75.0</b>" in section and "6/8" in section and "<b>100.0</b>" in section and "1/1" in section
    assert "href" not in section  # one offline file: counts without links
