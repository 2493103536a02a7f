"""Paper suites: the majority vote, track averages, MAE cells and paired gaps of the paper-shaped tables, the
published figures file, and each suite end to end through ``python -m evals.compare`` on a scripted model."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

import evals.compare as compare
from evals.paper_tables import TABLES, build_tables, cell, gap, grid, load_published
from evals.records import SampleResult
from evals.suites import GPSBENCH_APPLIED, GPSBENCH_PURE, SUITES
from tasks import get_task
from tasks.records import Parsed, Score


def result(task: str, sid: str, condition: str, *, correct: bool = False, status: str = "answered",
           error: float | None = None, value: float | None = None, run_status: str = "ok",
           **meta: Any) -> SampleResult:
    parsed = Parsed.success("x", 1) if status == "answered" else Parsed(raw="x", ok=False, status=status)
    score = (Score(correct=correct, value=value if value is not None else float(correct), error=error,
                   error_unit="m" if error is not None else None)
             if status == "answered" else Score.unanswered(parsed))
    return SampleResult(run_id="r", sample_id=sid, task=task, condition=condition, model="m", score=score,
                        status=run_status, meta=meta)  # type: ignore[arg-type]


def geotemp_item(task: str, item: str, condition: str, outcomes: list[str]) -> list[SampleResult]:
    """Three style results of one item; an outcome is right, wrong, hedged or error."""
    return [result(task, f"{task}[{style}]/test/{item}", condition, correct=o == "right",
                   status="hedged" if o == "hedged" else "answered", run_status="error" if o == "error" else "ok",
                   item=f"{task}/test/{item}", style=style)
            for style, o in zip(("neutral", "short", "cot"), outcomes, strict=True)]


def by_condition(results: list[SampleResult]) -> dict[str, list[SampleResult]]:
    out: dict[str, list[SampleResult]] = {}
    for r in results:
        out.setdefault(r.condition, []).append(r)
    return out


def test_majority_vote_needs_two_right_styles_and_all_three_answered() -> None:
    t = "geotemp.time_place.styles"
    rs = (geotemp_item(t, "1", "intrinsic", ["right", "right", "wrong"])  # majority right
          + geotemp_item(t, "2", "intrinsic", ["right", "wrong", "wrong"])  # one right: no
          + geotemp_item(t, "3", "intrinsic", ["right", "hedged", "wrong"])  # a hedge is no answer
          + geotemp_item(t, "4", "intrinsic", ["right", "right", "error"])  # not all answered: no unit
          + [r for i in "1234" for r in geotemp_item(t, i, "tools", ["right", "right", "right"])])
    tables = {tb.name: tb for tb in build_tables("geotemp-paper", rs, ["intrinsic", "tools"])}
    maj = tables["majority"]
    assert maj.cells["intrinsic"]["time_place"] == {"value": pytest.approx(1 / 3), "n": 3,
                                                    "hedged": pytest.approx(1 / 9)}
    assert maj.cells["tools"]["time_place"]["value"] == 1.0 and maj.cells["tools"]["time_place"]["n"] == 4
    g = maj.gaps["tools"]["time_place"]
    assert g["n_paired"] == 3 and g["gap"] == pytest.approx(2 / 3)
    assert 0 <= g["ci"][0] <= 2 / 3 <= g["ci"][1] <= 1
    assert maj.cells["intrinsic"]["verification"]["value"] is None  # not in this run
    styles = tables["styles"].cells["intrinsic"]
    assert styles["time_place/neutral"]["value"] == 1.0 and styles["time_place/cot"]["value"] == 0.0
    assert styles["time_place/short"]["value"] == 0.5  # right, wrong, hedged (wrong), right
    assert styles["time_place/cot"]["n"] == 3  # item 4's cot ended in error: left out


def test_tracks_average_task_accuracies_and_overall_averages_the_tracks() -> None:
    rs: list[SampleResult] = []
    for t in GPSBENCH_PURE + GPSBENCH_APPLIED:
        n_right = 3 if t == "distance" else (1 if t == "proximity" else 0)
        size = 3 if t == "distance" else 1  # distance has three items: pooled and averaged accuracies differ
        for i in range(size):
            for cond in ("intrinsic", "tools"):
                rs.append(result(f"gpsbench.{t}", f"gpsbench.{t}/test/{i}", cond,
                                 correct=cond == "tools" or i < n_right))
    track = next(tb for tb in build_tables("gpsbench-paper", rs, ["intrinsic", "tools"]) if tb.name == "track")
    cells = track.cells["intrinsic"]
    assert cells["pure"]["value"] == pytest.approx(1 / 9)  # distance 100 %, 8 tasks 0 %; pooled would be 3/11
    assert cells["applied"]["value"] == pytest.approx(1 / 8)
    assert cells["overall"]["value"] == pytest.approx((1 / 9 + 1 / 8) / 2)
    assert track.gaps["tools"]["pure"]["gap"] == pytest.approx(8 / 9)
    partial = [r for r in rs if r.task != "gpsbench.bearing"]
    track = next(tb for tb in build_tables("gpsbench-paper", partial, ["intrinsic"]) if tb.name == "track")
    assert track.cells["intrinsic"]["pure"]["value"] is None  # a track with a task missing is not averaged


def test_mae_cell_uses_answered_predictions_and_counts_hedges() -> None:
    task = "stbench.trajectory_prediction.completion"
    rs = [result(task, "a", "intrinsic", error=100.0), result(task, "b", "intrinsic", error=300.0),
          result(task, "c", "intrinsic", status="hedged"),
          result(task, "a", "tools", error=10.0), result(task, "b", "tools", status="unparsed"),
          result(task, "c", "tools", error=20.0)]
    table = build_tables("stbench-paper", rs, ["intrinsic", "tools"])[0]
    tp = next(c for c in table.columns if c.key == "TP")
    conds = by_condition(rs)
    assert cell(conds, "intrinsic", tp) == {"value": 200.0, "n": 2, "hedged": pytest.approx(1 / 3)}
    assert cell(conds, "tools", tp)["value"] == 15.0
    g = gap(conds, "tools", tp)
    assert g["n_paired"] == 1 and g["gap"] == -90.0  # only "a" has an error on both sides
    headers, rows, kinds = grid(table)
    assert "TP (m)" in headers and rows[0][headers.index("TP (m)")] == "200.0"
    assert g["ci"] == [None, None]  # one pair: no interval, never the point shown as certain
    assert rows[kinds.index("gap")][headers.index("TP (m)")] == "-90.0 [–, –]"
    both = rs + [result(task, "d", "intrinsic", error=50.0), result(task, "d", "tools", error=40.0)]
    lo, hi = gap(by_condition(both), "tools", tp)["ci"]
    assert lo == -90.0 and hi == -10.0  # two pairs (-90, -10): the resampled means span both


def test_published_figures_match_the_papers_and_the_table_columns() -> None:
    pub = load_published()
    assert pub["gpsbench-paper"]["track"]["rows"]["GPT-5.1"] == [72.0, 84.4]  # Table 3: Applied, Pure GPS
    pure = pub["gpsbench-paper"]["pure"]
    assert pure["rows"]["Qwen3-8B"][pure["columns"].index("gpsbench.route_geometry.mcq")] == 8.6  # Table 5
    st = pub["stbench-paper"]["main"]
    assert st["rows"]["GPT-4o"][st["columns"].index("NAV")] == 0.7552 and st["rows"]["GPT-4o"][-1] is None
    assert st["rows"]["Falcon-7B"][st["columns"].index("TP")] == 3572.8
    gtr = pub["gtr-paper"]["main"]
    assert gtr["rows"]["Human"][-1] == 78.61 and gtr["rows"]["GPT-5"][gtr["columns"].index("gtr.causal_reordering/indoor")] == 86.2
    assert pub["geotemp-paper"]["majority"]["rows"]["Llama3-70B"] == [56.1, 33.4]
    for suite, tables in pub.items():
        keys = {t.name: {c.key for c in t.columns} for t in TABLES[suite]()}
        for name, t in tables.items():
            assert t["source"].split()[0] == SUITES[suite].paper  # names the paper and its table
            assert set(t["columns"]) <= keys[name], (suite, name)
            assert len(t["units"]) == len(t["columns"]) and all(len(v) == len(t["columns"]) for v in t["rows"].values())


# --------------------------------------------------------------------------- the CLI on a scripted model

SIZE = {"gpsbench-paper": "20", "geotemp-paper": "20", "stbench-paper": "20", "gtr-paper": "20"}


def answer_a(messages: list[BaseMessage], tools: list[str]) -> str:
    return "FINAL ANSWER: A"


@functools.cache
def gtr_golds() -> dict[str, str]:
    return {s.prompt: s.target["letter"] for name in SUITES["gtr-paper"].tasks
            for s in get_task(name, size=20).samples(limit=1)}


def gtr_policy(messages: list[BaseMessage], tools: list[str]) -> str:
    """Right with tools, hedged (never credited) without."""
    return f"FINAL ANSWER: {gtr_golds()[str(messages[-1].content)]}" if tools else "FINAL ANSWER: A or B"


def run_suite(tmp_path: Path, suite: str, policy: str, *extra: str) -> int:
    """``suite`` through the CLI, answered by the scripted provider running ``policy`` of this module."""
    return compare.main(["--model", f"scripted/{__name__}:{policy}", "--suite", suite, "--limit", "1",
                         "--size", SIZE[suite], "--no-cache", "--output", str(tmp_path / "run"), *extra])


@pytest.mark.parametrize("suite", list(SUITES))
def test_each_suite_runs_end_to_end_with_its_paper_tables(suite: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert run_suite(tmp_path, suite, "answer_a", "--compare-paper") == 0
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    spec = data["meta"]["spec"]
    assert spec["suite"] == suite and spec["tasks"] == list(SUITES[suite].tasks)
    per_task = 3 if suite == "geotemp-paper" else 1  # --limit counts GeoTemp items, each in three styles
    assert data["meta"]["results"] == 2 * per_task * len(SUITES[suite].tasks)
    paper = data["paper_tables"]
    assert paper["suite"] == suite and [t["name"] for t in paper["tables"]] == [t.name for t in TABLES[suite]()]
    for t in paper["tables"]:
        kinds = t["grid"]["kinds"]
        assert kinds[:5] == ["condition", "condition", "gap", "hedged", "n"]
        assert [r[0] for r in t["grid"]["rows"][:3]] == ["intrinsic", "tools", "gap tools − intrinsic [95% CI]"]
        assert ("published" in kinds) == (t["published"] is not None)
    assert any(t["published"] for t in paper["tables"])
    html = (tmp_path / "run" / "report.html").read_text()
    out = capsys.readouterr().out
    for t in paper["tables"]:
        assert t["title"] in out and t["title"] in html.replace("&amp;", "&")
    assert "(published)" in out and "(published)" in html


def test_gtr_suite_cells_show_conditions_gap_and_hedges(tmp_path: Path) -> None:
    assert run_suite(tmp_path, "gtr-paper", "gtr_policy") == 0
    main = json.loads((tmp_path / "run" / "results.json").read_text())["paper_tables"]["tables"][0]
    headers, rows = main["grid"]["headers"], main["grid"]["rows"]
    gl = next(h for h in headers if h.startswith("GL ") and main["cells"]["tools"][
        main["columns"][headers.index(h) - 1]["key"]]["n"])
    col = headers.index(gl)
    assert [rows[0][col], rows[1][col], rows[2][col], rows[3][col], rows[4][col]] == [
        "0.0", "100.0", "+100.0 [–, –]", "100 / 0", "1 / 1"]  # one pair: a gap, no interval
    assert main["published"] is None  # only with --compare-paper


@pytest.mark.parametrize(("argv", "needle"), [
    (["--suite", "nope"], "valid suites: gpsbench-paper, geotemp-paper, stbench-paper, gtr-paper"),
    (["--suite", "gtr-paper", "--tasks", "gtr.*"], "--suite and --tasks are exclusive"),
    (["--compare-paper"], "--compare-paper needs --suite"),
])
def test_suite_flag_errors_are_one_line(argv: list[str], needle: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert compare.main([*argv, "--output", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and needle in err and "\n" not in err


def test_list_names_the_suites(capsys: pytest.CaptureFixture[str]) -> None:
    assert compare.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "suites (--suite NAME):" in out and "quick (default)" in out
    assert all(f"  {name}: " in out for name in SUITES)
