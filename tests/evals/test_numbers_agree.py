"""Every printed figure agrees: a 2-epoch, three-condition scripted run with ``--baseline-condition tools``; the
terminal, results.json, tables/per_task.md and .tex, the paper tables, the leaderboard rows and the viewer print
the same n (items; answers apart) and intervals, and each accuracy interval is the Wilson interval that statsmodels
computes from the printed counts. The tables compile in a plain article with booktabs, with no overfull box,
where pdflatex is installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from test_figures_tables import plain

from agents.trace import ModelCallEvent, ToolCallEvent
from evals.analysis import compare, tool_calls_of
from evals.compare import main
from evals.fidelity import split_tool_calls
from evals.leaderboard import build_leaderboard, read_entry
from evals.paper_tables import build_tables, grid, to_json
from evals.records import SampleResult
from evals.run_reader import RunReader
from evals.stats import stratified_bootstrap_gap
from evals.tables_out import latex, write_tables
from evals.view.app import Viewer
from tasks.records import Score

proportion_confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint

POINT = re.compile(r"\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)")
TASK, ITEMS, EPOCHS = "gpsbench.distance", 5, 2
CONDITIONS = ["intrinsic", "tools", "tools[geodesy]"]


def policy(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Without tools: right only north of 30° N; with tools: calls distance_km and answers its result."""
    prompt = str(next(m.content for m in messages if m.type == "human"))
    (a1, o1), (a2, o2) = POINT.findall(prompt)[:2]
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if not tools:
        return "FINAL ANSWER: 1 km"
    if not results:
        args = {"lat1": float(a1), "lon1": float(o1), "lat2": float(a2), "lon2": float(o2)}
        return AIMessage("", tool_calls=[{"name": "distance_km", "id": "c1", "args": args}])
    return f"FINAL ANSWER: {json.loads(str(results[-1].content))['distance_km']:.1f} km"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    run_dir = tmp_path_factory.mktemp("agree") / "run"
    with pytest.MonkeyPatch.context() as mp:
        import io
        import sys

        out = io.StringIO()
        mp.setattr(sys, "stdout", out)
        code = main(["--model", f"scripted/{__name__}:policy", "--tasks", TASK, "--limit", str(ITEMS), "--epochs",
                     str(EPOCHS), "--conditions", ",".join(CONDITIONS), "--baseline-condition", "tools", "--no-cache",
                     "--output", str(run_dir)])
    assert code == 0
    return {"dir": run_dir, "terminal": out.getvalue(), "report": json.loads((run_dir / "results.json").read_text())}


def wilson_text(k: int, n: int) -> str:
    """The interval statsmodels computes, in the tables' format."""
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return f"{100 * k / n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def md_row(path: Path, first: str) -> dict[str, str]:
    lines = [line for line in path.read_text().splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    [row] = [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith(f"| {first} ")]
    return dict(zip(header, row, strict=True))


def test_every_output_prints_the_same_items_and_intervals(run: dict) -> None:
    report = run["report"]
    [task] = report["tasks"]
    assert report["meta"]["baseline_condition"] == "tools"
    row = md_row(run["dir"] / "tables" / "per_task.md", TASK)
    assert row["n"] == str(ITEMS) and row["answers"] == str(ITEMS * EPOCHS)  # n = items; answers apart
    tex = (run["dir"] / "tables" / "per_task.tex").read_text()
    tex_cells = [plain(c) for line in tex.splitlines() if line.startswith(TASK)
                 for c in line.removesuffix("\\\\").split("&")[1:]]
    viewer = Viewer([run["dir"]], wait_s=30)
    page = viewer.handle(f"/runs/{next(iter(viewer.runs))}/").body.decode()
    page_text = re.sub(r"<[^>]+>", " ", page)
    terminal = [line for line in run["terminal"].splitlines() if TASK in line][0]
    assert re.search(rf"│\s*{ITEMS}\s*│", terminal)  # the terminal's n is the items too
    for c in CONDITIONS:
        s = task["conditions"][c]
        assert (s["items"], s["n"]) == (ITEMS, ITEMS * EPOCHS)
        k = s["correct"] // EPOCHS  # the epochs answer alike (temperature 0): each item is right in both or neither
        want = wilson_text(k, ITEMS)  # recomputed from the printed counts by statsmodels
        assert row[f"{c} acc % [95% CI]"] == want
        assert want in tex_cells and want in terminal
        value, interval = want.split(" ", 1)
        assert re.search(rf"{re.escape(value)}\s+{re.escape(interval)}", page_text), c
    for c in ("intrinsic", "tools[geodesy]"):
        g = task["gap"][c]
        text = f"{100 * g['gap']:+.1f} [{100 * g['ci'][0]:+.1f}, {100 * g['ci'][1]:+.1f}]"
        assert g["n_paired"] == ITEMS
        assert row[f"gap {c} − tools (pts) [95% CI]"] == text and text in terminal
        assert text in tex_cells or text.replace("-", "-") in tex_cells
        assert row[f"McNemar p {c}"] == f"{g['mcnemar_p']:.2g}"
        point, interval = text.split(" ", 1)
        assert re.search(rf"{re.escape(point)}\s+{re.escape(interval)}", page_text), c
    assert "tools[geodesy]" in task["tool_use"] and "tools" not in task["tool_use"]  # tools is the baseline here


def test_tools_mine_against_tools_has_its_own_paired_row(run: dict) -> None:
    # tools and tools[geodesy] are both right on every item: every pair moved alike (no change), so the
    # interval is Newcombe's paired one: with p1 = p2 = 1 and an empty margin (phi = 0), ±(1 − L), L the Wilson
    # lower bound of 5/5, here from statsmodels.
    g = run["report"]["tasks"][0]["gap"]["tools[geodesy]"]
    lower, _ = proportion_confint(ITEMS, ITEMS, alpha=0.05, method="wilson")
    assert g["gap"] == 0.0 and g["ci"] == pytest.approx([-(1 - lower), 1 - lower], abs=1e-6)
    assert g["mcnemar_p"] == 1.0


def test_the_leaderboard_keeps_the_runs_baseline_and_its_gaps(run: dict) -> None:
    entry = read_entry(run["dir"])
    assert entry.baseline_condition == "tools"
    board = build_leaderboard([entry])
    assert board["baseline"] == "tools" and board["compared"] == ["intrinsic", "tools[geodesy]"]
    [row] = board["rows"]
    assert row["conditions"]["intrinsic"]["n"] == ITEMS and row["conditions"]["intrinsic"]["answers"] == ITEMS * EPOCHS
    task = run["report"]["tasks"][0]
    for c in ("intrinsic", "tools[geodesy]"):
        assert row["gap"][c]["ci"] == pytest.approx(task["gap"][c]["ci"])
    assert build_leaderboard([entry], "intrinsic")["baseline"] == "intrinsic"


@pytest.mark.parametrize("how", ["flag", "toml"])
def test_a_baseline_condition_not_in_the_run_is_one_line(how: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--model", f"scripted/{__name__}:policy", "--tasks", TASK, "--limit", "1", "--output",
            str(tmp_path / "run")]
    if how == "flag":
        argv += ["--baseline-condition", "tools[nope]"]
    else:
        (tmp_path / "c.toml").write_text('baseline-condition = "tools[nope]"\n')
        argv += ["--config", str(tmp_path / "c.toml")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --baseline-condition tools[nope]: not one of the run's conditions") and "\n" not in err


def test_paper_tables_print_the_per_task_gap_and_its_fallback(run: dict, tmp_path: Path) -> None:
    results = list(RunReader(run["dir"]).results(with_trace=False))
    tables = build_tables("gpsbench-paper", results, CONDITIONS, baseline="tools")
    table5 = next(t for t in tables if t.name == "pure")
    headers, rows, kinds = grid(table5)
    col = headers.index("Dist.")
    row = md_row(run["dir"] / "tables" / "per_task.md", TASK)
    gaps = {r[0]: r[col] for r, k in zip(rows, kinds, strict=True) if k == "gap"}
    assert gaps["gap intrinsic − tools [95% CI]"] == row["gap intrinsic − tools (pts) [95% CI]"]
    assert gaps["gap tools[geodesy] − tools [95% CI]"] == row["gap tools[geodesy] − tools (pts) [95% CI]"]
    [n_row] = [r for r, k in zip(rows, kinds, strict=True) if k == "n"]
    assert n_row[col] == " / ".join([str(ITEMS)] * len(CONDITIONS))  # items, as per_task.md's n
    # the track column pools nine strata; only distance has pairs here, so its gap has none (no partial mean)
    report = dict(run["report"], paper_tables={"suite": "gpsbench-paper", "compare_paper": False,
                                              "tables": [to_json(t) for t in tables]})
    write_tables(tmp_path, report)
    assert "\\label{tab:geogap-paper-1}" in (tmp_path / "paper.tex").read_text()


def test_stratified_interval_falls_back_like_the_per_task_one() -> None:
    # two strata, every pair gained in both: the bootstrap cannot vary, so each stratum gets Newcombe's interval
    # (here all-gained: [1 − √2·c, 1] with c = (z²/n)/(1 + z²/n)) and they combine by square-and-add
    z2 = 1.959964 ** 2
    c = (z2 / 4) / (1 + z2 / 4)
    point, lo, hi = stratified_bootstrap_gap([(1.0, [0.0] * 4, [1.0] * 4), (1.0, [0.0] * 4, [1.0] * 4)])
    half = (2 ** 0.5) * c  # one stratum's distance below 1
    assert point == 1.0 and hi == 1.0 and lo == pytest.approx(1 - ((0.5 * half) ** 2 * 2) ** 0.5, abs=1e-9)
    # one stratum is exactly the per-task interval (the same seed and draws)
    from evals.stats import paired_bootstrap_gap

    a, b = [0.0, 1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0, 1.0]
    assert stratified_bootstrap_gap([(1.0, a, b)]) == paired_bootstrap_gap(a, b)


def test_adoption_and_fidelity_count_only_offered_tools() -> None:
    call = ModelCallEvent(tools_offered=["distance_km"])
    unknown = ToolCallEvent(parent_id=call.id, tool="no_such_tool", status="error", error="unknown tool")
    known = ToolCallEvent(parent_id=call.id, tool="distance_km", status="ok", result='{"distance_km": 5.0}')
    assert split_tool_calls([call, unknown, known]) == ([known], [unknown])

    def result(i: int, cond: str, trace: list) -> SampleResult:
        return SampleResult(run_id="r", sample_id=f"t/test/{i}", task="t", condition=cond, epoch=0, model="m",
                            status="ok", trace=trace, tool_calls=sum(isinstance(e, ToolCallEvent) for e in trace),
                            score=Score(correct=True, value=1.0))

    rs = [result(0, "intrinsic", []), result(1, "intrinsic", []),
          result(0, "tools", [call, unknown]), result(1, "tools", [call, unknown, known])]
    assert [tool_calls_of(r) for r in rs[2:]] == [(0, 1), (1, 1)]
    [comp] = compare(rs, ["intrinsic", "tools"])
    use = comp.tool_use["tools"]
    assert (use.used_tools, use.n, use.unknown_tool_calls, use.samples_with_unknown_calls) == (1, 2, 2, 2)
    assert comp.conditions["tools"].samples_with_tool_calls == 1 and comp.conditions["tools"].unknown_tool_calls == 2


WORST = "−100.0 [−100.0, −100.0]"


def _compile(tmp_path: Path, body: str) -> str:
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                                      + body + "\n\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert done.returncode == 0, log[-2000:]
    return log


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (texlive-latex-base)")
def test_tables_compile_in_a_plain_article_without_overfull_boxes(run: dict, tmp_path: Path) -> None:
    results = list(RunReader(run["dir"]).results(with_trace=False))
    report = dict(run["report"], paper_tables={"suite": "gtr-paper", "compare_paper": False, "tables": [
        to_json(t) for t in build_tables("gtr-paper", results, CONDITIONS, baseline="tools")]})
    write_tables(tmp_path, report)
    wide = latex(["task", *(f"TimeTimePlace neutral {i}" for i in range(15))],
                 [[f"gpsbench.relative_position_applied {j}", *[WORST] * 15] for j in range(3)],
                 caption="Δ gap × 2 ≤ 3 · 4 → 5 ± 6°", label="tab:wide")
    log = _compile(tmp_path, "\\input{per_task.tex}\n\\input{paper.tex}\n" + wide)
    assert "Overfull \\hbox" not in log
    pdf = (tmp_path / "doc.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
