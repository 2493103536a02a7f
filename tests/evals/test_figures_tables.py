"""Figures (SVG, PNG, PDF) and tables (Markdown, LaTeX booktabs) written with every run, from a scripted run through
the CLI: the files exist, parse, and hold the run's numbers (accuracies counted here from the prompts)."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_multi_model import EXPERT, POINT

from evals.compare import main
from evals.run_reader import RunReader
from evals.tables_out import latex, markdown, write_run_outputs

PNG = b"\x89PNG\r\n\x1a\n"
TASK, LIMIT = "gpsbench.distance", 12


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("figs") / "run"
    assert main(["--model", EXPERT, "--tasks", TASK, "--limit", str(LIMIT), "--no-cache", "--output",
                 str(run_dir)]) == 0
    return run_dir


def _expected(run_dir: Path) -> dict[str, str]:
    """Accuracies and gap in the tables' format, counted from the stored prompts (see test_multi_model)."""
    samples = RunReader(run_dir).samples().values()
    south = sum(1 for s in samples if float(POINT.findall(s.prompt)[0][0]) <= 0)
    n = len(samples)
    return {"n": str(n), "intrinsic": f"{100 * (n - south) / n:.1f}", "tools": "100.0", "gap": f"{100 * south / n:+.1f}"}


def plain(cell: str) -> str:
    """A LaTeX cell as the Markdown cell's text: the stacked value and interval on one line, math minus a hyphen."""
    cell = re.sub(r"\\begin\{tabular\}\[t\]\{@\{\}[lr]@\{\}\}|\\end\{tabular\}", "", cell.strip())
    return cell.replace(" \\\\ ", " ").replace("{", "").replace("}", "").replace("$-$", "-").strip()


def _svg_texts(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    return ["".join(e.itertext()) for e in root.iter() if e.tag.endswith("text")]


def test_tables_hold_the_runs_numbers_in_markdown_and_latex(run: Path) -> None:
    want = _expected(run)
    md = (run / "tables" / "per_task.md").read_text()
    [row] = [line for line in md.splitlines() if line.startswith(f"| {TASK}")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == want["n"]
    assert cells[2].startswith(want["intrinsic"] + " [") and cells[3].startswith(want["tools"] + " [")
    assert cells[4].startswith(want["gap"] + " [")
    report = json.loads((run / "results.json").read_text())
    gap = report["tasks"][0]["gap"]["tools"]
    assert cells[4] == f"{100 * gap['gap']:+.1f} [{100 * gap['ci'][0]:+.1f}, {100 * gap['ci'][1]:+.1f}]"
    assert cells[5] == f"{gap['mcnemar_p']:.2g}"
    tex = (run / "tables" / "per_task.tex").read_text()
    for rule in ("\\toprule", "\\midrule", "\\bottomrule", "\\begin{tabular}", "\\end{tabular}", "\\caption{"):
        assert rule in tex
    [tex_row] = [line for line in tex.splitlines() if line.strip().startswith(TASK)]
    tex_cells = [plain(c) for c in tex_row.rstrip().removesuffix("\\\\").split("&")]
    assert tex_cells[1:5] == cells[1:5]
    body = "\n".join(line for line in tex.splitlines() if not line.startswith("% "))  # the one comment line
    assert tex.startswith("% needs \\usepackage{booktabs}") and "%" not in body.replace("\\%", "")  # escaped


def test_latex_and_markdown_escape_what_would_break_them() -> None:
    tex = latex(["task", "share"], [["a_b & c", "50% – #1"]], caption="x_y")
    assert "a\\_b \\& c" in tex and "50\\% -- \\#1" in tex and "\\caption{x\\_y}" in tex
    assert "$-$3.0" in latex(["x", "gap"], [["a", "-3.0 [-5.0, -1.0]"]]) and "{lr}" in latex(["x", "n"], [["a-b", "3"]])
    assert "a \\| b" in markdown(["t"], [["a | b"]])


def test_figures_are_svg_and_png_with_the_runs_labels(run: Path) -> None:
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (the figures and test extras have it)")
    figures = run / "figures"
    for name in ("gap_forest", "accuracy_by_region", "tool_use"):
        assert (figures / f"{name}.png").read_bytes()[:8] == PNG, name
        assert (figures / f"{name}.pdf").read_bytes()[:5] == b"%PDF-", name
        assert _svg_texts(figures / f"{name}.svg"), name
    want = _expected(run)
    assert TASK in _svg_texts(figures / "gap_forest.svg") and want["gap"] in _svg_texts(figures / "gap_forest.svg")
    regions = {str(s.meta["continent"]) for s in RunReader(run).samples().values()}
    assert len(regions) > 1
    assert regions <= set(_svg_texts(figures / "accuracy_by_region.svg"))
    assert TASK in _svg_texts(figures / "tool_use.svg")
    svg = (figures / "gap_forest.svg").read_text()
    assert re.search(r"#1a7f37|#6e7781", svg)  # the viewer's gain / flat colours


def test_without_matplotlib_figures_are_skipped_with_one_line(run: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    report = json.loads((run / "results.json").read_text())
    note = write_run_outputs(tmp_path, report)
    assert note is not None and "matplotlib is not installed" in note and "\n" not in note
    assert not (tmp_path / "figures").exists()
    assert (tmp_path / "tables" / "per_task.tex").is_file()


def test_paper_tables_are_written_with_the_suites_cells(run: Path, tmp_path: Path) -> None:
    from evals.paper_tables import build_tables, to_json
    from evals.tables_out import write_tables

    results = list(RunReader(run).results(with_trace=False))
    report = json.loads((run / "results.json").read_text())
    report["paper_tables"] = {"suite": "gpsbench-paper", "compare_paper": False, "tables": [
        to_json(t) for t in build_tables("gpsbench-paper", results, ["intrinsic", "tools"])]}
    write_tables(tmp_path, report)
    md = (tmp_path / "paper.md").read_text()
    assert "GPSBench Table 5" in md
    table5 = md[md.index("GPSBench Table 5"):].split("\n\n")[1].splitlines()
    header = [c.strip() for c in table5[0].strip("|").split("|")]
    want = _expected(run)
    for condition in ("intrinsic", "tools"):
        [row] = [line for line in table5 if line.startswith(f"| {condition} ")]
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[header.index("Dist.")] == want[condition]  # the only task this run answered
        assert cells[header.index("Bearing")] == "–"
    tex = (tmp_path / "paper.tex").read_text()
    assert tex.count("\\toprule") == tex.count("\\bottomrule") >= len(report["paper_tables"]["tables"])
    assert tex.count("\\label{") == len(report["paper_tables"]["tables"])
    rows = [[plain(c) for c in line.removesuffix("\\\\").split("&")] for line in tex.splitlines() if "&" in line]
    assert any(r[0] == "intrinsic" and want["intrinsic"] in r for r in rows)
