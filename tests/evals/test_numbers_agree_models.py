"""Every printed figure agrees across two models: a 2-epoch, two-model scripted run (``--model a,b``) of
``intrinsic`` and ``tools``. For both models the terminal, each run's results.json, tables/per_task.md and .tex,
report.html, the paper tables and the viewer's run page, and the parent's leaderboard (terminal, results.json,
tables/leaderboard.md and .tex, report.html, the viewer's page) print the same n (items; answers apart) and the same
intervals; and each is recomputed here without the code under test, from what the scripted models are written to
do on each stored prompt:

- accuracy: the Wilson interval statsmodels computes from the items' summed mean correctness over n items;
- a paired gap, and a difference of two models' gaps: the exact bootstrap distribution of the mean of the per-item
  differences (every resample of n items enumerated by convolution), whose 2.5 % and 97.5 % quantiles the
  printed 2,000-resample percentile bounds must hit (up to Monte Carlo error);
- McNemar p: the exact sign-flip test, every sign pattern of the per-item differences enumerated.

The models answer some items right in one epoch of two, so item means are fractional and n (items) and answers
differ.
"""

from __future__ import annotations

import html
import io
import itertools
import json
import math
import re
import threading
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from test_figures_tables import plain

from evals.compare import main
from evals.paper_tables import build_tables, grid
from evals.run_reader import RunReader
from evals.view.app import Viewer
from evals.view.runs import find_runs

proportion_confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint

POINT = re.compile(r"\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)")
TASK, ITEMS, EPOCHS = "gpsbench.distance", 10, 2
CONDITIONS = ["intrinsic", "tools"]
_seen: Counter[tuple[str, str]] = Counter()
_lock = threading.Lock()


def _points(prompt: str) -> tuple[float, float, float, float]:
    (a1, o1), (a2, o2) = POINT.findall(prompt)[:2]
    return float(a1), float(o1), float(a2), float(o2)


def _prompt(messages: list[BaseMessage]) -> str:
    return str(next(m.content for m in messages if m.type == "human"))


def _haversine(la1: float, lo1: float, la2: float, lo2: float) -> float:
    p1, p2, dl = math.radians(la1), math.radians(la2), math.radians(lo2 - lo1)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def _odd_sight(who: str, messages: list[BaseMessage]) -> bool:
    """True the first, third, ... time ``who`` sees this prompt: one of an item's two epochs."""
    with _lock:
        _seen[(who, _prompt(messages))] += 1
        return _seen[(who, _prompt(messages))] % 2 == 1


def _with_tool(messages: list[BaseMessage]) -> AIMessage | str:
    la1, lo1, la2, lo2 = _points(_prompt(messages))
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if not results:
        args = {"lat1": la1, "lon1": lo1, "lat2": la2, "lon2": lo2}
        return AIMessage("", tool_calls=[{"name": "distance_km", "id": "c1", "args": args}])
    return f"FINAL ANSWER: {json.loads(str(results[-1].content))['distance_km']:.1f} km"


def _right(messages: list[BaseMessage]) -> str:
    return f"FINAL ANSWER: {_haversine(*_points(_prompt(messages))):.1f} km"


def north(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Alone: right north of 30° N, right in one epoch of two from 0° to 30° N, else 1 km. With tools: calls
    distance_km and answers its result."""
    if tools:
        return _with_tool(messages)
    la1 = _points(_prompt(messages))[0]
    return _right(messages) if la1 > 30 or (la1 > 0 and _odd_sight("north", messages)) else "FINAL ANSWER: 1 km"


def east(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Alone: right east of 0° E, else 1 km. With tools: east of 60° W calls distance_km; west of it names two
    distances in one epoch of two (a hedge, never credited) and 1 km in the other."""
    lo1 = _points(_prompt(messages))[1]
    if not tools:
        return _right(messages) if lo1 > 0 else "FINAL ANSWER: 1 km"
    if lo1 > -60:
        return _with_tool(messages)
    return "FINAL ANSWER: 100 km or 200 km" if _odd_sight("east", messages) else "FINAL ANSWER: 1 km"


def expected(model: str, condition: str, prompt: str) -> Fraction:
    """An item's mean correctness over its two epochs, from what the model is written to do (not from the run)."""
    la1, lo1, _, _ = _points(prompt)
    if model == "north":
        return Fraction(1) if condition == "tools" or la1 > 30 else Fraction(1, 2) if la1 > 0 else Fraction(0)
    if condition == "intrinsic":
        return Fraction(int(lo1 > 0))
    return Fraction(int(lo1 > -60))


MODELS = {"north": f"scripted/{__name__}:north", "east": f"scripted/{__name__}:east"}


def slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model)


# ---- the independent recomputations -------------------------------------------------------------------------


def wilson_text(k: Fraction, n: int) -> str:
    lo, hi = proportion_confint(float(k), n, alpha=0.05, method="wilson")
    return f"{100 * float(k) / n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def bootstrap_distribution(diffs: list[Fraction]) -> dict[Fraction, float]:
    """The exact distribution of the mean of n draws with replacement from ``diffs`` (n = len(diffs))."""
    n = len(diffs)
    one = Counter(diffs)
    dist: dict[Fraction, float] = {Fraction(0): 1.0}
    for _ in range(n):
        step: dict[Fraction, float] = {}
        for total, p in dist.items():
            for d, count in one.items():
                step[total + d] = step.get(total + d, 0.0) + p * count / n
        dist = step
    return {total / n: p for total, p in dist.items()}


def bound_ok(printed: float, dist: dict[Fraction, float], q: float, tol: float = 0.015) -> bool:
    """Whether ``printed`` is a q-quantile of ``dist`` up to the Monte Carlo error of 2,000 resamples (sd about
    0.0035 at q = 0.025): a value v of the distribution with P(X < v) ≤ q + tol and P(X ≤ v) ≥ q − tol."""
    for v in sorted(dist):
        below = sum(p for x, p in dist.items() if x < v)
        if abs(float(v) - printed) < 1e-9:
            return below <= q + tol and below + dist[v] >= q - tol
    return False


def sign_flip_p(diffs: list[Fraction]) -> float:
    """Two-sided exact sign-flip p: the share of sign patterns with |sum| at least the observed |sum|."""
    nonzero = [d for d in diffs if d]
    observed = abs(sum(nonzero))
    patterns = list(itertools.product((1, -1), repeat=len(nonzero)))
    return sum(abs(sum(s * d for s, d in zip(signs, nonzero, strict=True))) >= observed
               for signs in patterns) / len(patterns)


def gap_text(g: float, lo: float, hi: float) -> str:
    return f"{100 * g:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"


# ---- the run ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    parent = tmp_path_factory.mktemp("agree2") / "board"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--model", ",".join(MODELS.values()), "--tasks", TASK, "--limit", str(ITEMS), "--epochs",
                     str(EPOCHS), "--conditions", ",".join(CONDITIONS), "--no-cache", "--output", str(parent)])
    assert code == 0, err.getvalue()
    terminal = out.getvalue()
    dirs = {name: parent / slug(m) for name, m in MODELS.items()}
    prompts = {s.id: s.prompt for s in RunReader(dirs["north"]).samples().values()}
    assert prompts == {s.id: s.prompt for s in RunReader(dirs["east"]).samples().values()}  # the same items
    item = {(name, c): {sid: expected(name, c, p) for sid, p in prompts.items()} for name in MODELS for c in CONDITIONS}
    # the terminal: each model's run from its table's title, then the leaderboard
    first, second = (terminal.index(f"{MODELS[name]} · split") for name in MODELS)
    board_at = terminal.index(f"{MODELS['north']} · tools vs intrinsic")
    return {"parent": parent, "dirs": dirs, "item": item, "ids": sorted(prompts),
            "terminal": {"north": terminal[first:second], "east": terminal[second:board_at]},
            "board_terminal": terminal[board_at:]}


def diffs_of(run: dict, name: str) -> list[Fraction]:
    return [run["item"][(name, "tools")][i] - run["item"][(name, "intrinsic")][i] for i in run["ids"]]


def text_of(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def md_rows(path: Path) -> list[dict[str, str]]:
    """The rows of every table in a markdown file, each by its own table's header."""
    rows: list[dict[str, str]] = []
    lines = path.read_text().splitlines()
    header: list[str] = []
    for line, after in zip(lines, [*lines[1:], ""], strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        if after.startswith("|--"):
            header = cells
        elif line.startswith("|") and not line.startswith("|--"):
            rows.append(dict(zip(header, cells, strict=True)))
    return rows


def test_the_models_have_spread_and_fractional_items(run: dict) -> None:
    for name in MODELS:
        d = diffs_of(run, name)
        assert len(set(d)) > 1  # a real bootstrap interval, not the no-spread fallback
    assert any(v.denominator == 2 for v in run["item"][("north", "intrinsic")].values())  # epochs disagree
    assert any(v.denominator == 2 for v in diffs_of(run, "north"))


@pytest.mark.parametrize("name", list(MODELS))
def test_each_models_run_prints_the_recomputed_figures_everywhere(run: dict, name: str) -> None:
    run_dir = run["dirs"][name]
    report = json.loads((run_dir / "results.json").read_text())
    [task] = report["tasks"]
    [row] = md_rows(run_dir / "tables" / "per_task.md")
    tex = (run_dir / "tables" / "per_task.tex").read_text()
    tex_cells = [plain(c) for line in tex.splitlines() if line.startswith(TASK)
                 for c in line.removesuffix("\\\\").split("&")[1:]]
    viewer = Viewer([run_dir], wait_s=30)
    page = text_of(viewer.handle(f"/runs/{next(iter(viewer.runs))}/").body.decode())
    report_html = text_of((run_dir / "report.html").read_text())
    terminal = " ".join(run["terminal"][name].split())
    assert re.search(rf"{re.escape(TASK)} │ {ITEMS} │", terminal)  # the terminal's n is the items
    assert (row["n"], row["answers"]) == (str(ITEMS), str(ITEMS * EPOCHS))
    for c in CONDITIONS:
        k = sum(run["item"][(name, c)].values(), Fraction(0))
        s = task["conditions"][c]
        assert (s["items"], s["n"]) == (ITEMS, ITEMS * EPOCHS)
        assert Fraction(s["correct"], EPOCHS) == k  # the printed count is the expected one
        want = wilson_text(k, ITEMS)
        assert row[f"{c} acc % [95% CI]"] == want and want in tex_cells, c
        for where, text in (("terminal", terminal), ("viewer", page), ("report.html", report_html)):
            assert want in text, (where, c, want)
    g = task["gap"]["tools"]
    diffs = diffs_of(run, name)
    assert g["n_paired"] == ITEMS and Fraction(g["gap"]).limit_denominator(100) == sum(diffs) / ITEMS
    dist = bootstrap_distribution(diffs)
    assert bound_ok(g["ci"][0], dist, 0.025) and bound_ok(g["ci"][1], dist, 0.975), (g["ci"], dist)
    assert g["mcnemar_p"] == pytest.approx(sign_flip_p(diffs), abs=1e-9)
    text = gap_text(g["gap"], *g["ci"])
    assert row["gap tools − intrinsic (pts) [95% CI]"] == text and text in tex_cells
    assert row["McNemar p tools"] == f"{g['mcnemar_p']:.2g}"
    for where, shown in (("terminal", terminal), ("viewer", page), ("report.html", report_html)):
        assert text in shown, (where, text)
    # the paper table's distance column: the same gap, the same items
    results = list(RunReader(run_dir).results(with_trace=False))
    headers, rows, kinds = grid(next(t for t in build_tables("gpsbench-paper", results, CONDITIONS) if t.name == "pure"))
    col = headers.index("Dist.")
    [gap_row] = [r for r, k in zip(rows, kinds, strict=True) if k == "gap"]
    [n_row] = [r for r, k in zip(rows, kinds, strict=True) if k == "n"]
    assert gap_row[col] == text and n_row[col] == f"{ITEMS} / {ITEMS}"


def test_the_leaderboard_prints_both_models_figures_and_their_difference(run: dict) -> None:
    parent = run["parent"]
    board = json.loads((parent / "results.json").read_text())["leaderboard"]
    md = md_rows(parent / "tables" / "leaderboard.md")
    tex = plain((parent / "tables" / "leaderboard.tex").read_text())
    terminal = " ".join(run["board_terminal"].split())
    report_html = text_of((parent / "report.html").read_text())
    viewer = Viewer(find_runs([parent]), boards={parent.name: parent}, wait_s=30)
    page = text_of(viewer.handle("/leaderboard").body.decode())
    for name, model in MODELS.items():
        run_report = json.loads((run["dirs"][name] / "results.json").read_text())["tasks"][0]
        [row] = [r for r in board["rows"] if r["model"] == model and r["task"] == TASK]
        for c in CONDITIONS:
            mine, theirs = row["conditions"][c], run_report["conditions"][c]
            assert (mine["n"], mine["answers"]) == (ITEMS, ITEMS * EPOCHS)
            assert mine["accuracy"] == theirs["accuracy"] and mine["ci"] == pytest.approx(theirs["ci"])
        g, own = row["gap"]["tools"], run_report["gap"]["tools"]
        assert (g["gap"], g["n_paired"], g["mcnemar_p"]) == (own["gap"], own["n_paired"], own["mcnemar_p"])
        assert g["ci"] == pytest.approx(own["ci"])
        text = gap_text(g["gap"], *g["ci"])
        [md_row] = [r for r in md if r.get("model") == model and r.get("task") == TASK]
        assert md_row["gap (pts) [95% CI]"] == text
        acc = f"{100 * row['conditions']['tools']['accuracy']:.1f}"
        assert md_row["acc tools %"] == acc
        for where, shown in (("terminal", terminal), (".tex", tex), ("report.html", report_html), ("viewer", page)):
            assert text in " ".join(shown.split()), (where, name, text)
    # the difference of the two models' gaps, per item, recomputed
    [d] = [d for d in board["differences"] if d["task"] == TASK]
    assert (d["a"], d["b"], d["n_items"]) == (MODELS["north"], MODELS["east"], ITEMS)
    per_item = [a - b for a, b in zip(diffs_of(run, "north"), diffs_of(run, "east"), strict=True)]
    assert Fraction(d["difference"]).limit_denominator(100) == sum(per_item) / ITEMS
    dist = bootstrap_distribution(per_item)
    assert bound_ok(d["ci"][0], dist, 0.025) and bound_ok(d["ci"][1], dist, 0.975), (d["ci"], dist)
    text = gap_text(d["difference"], *d["ci"])
    [md_diff] = [r for r in md if r.get("A − B")]
    assert md_diff["Δ gap (pts) [95% CI]"] == text and md_diff["items"] == str(ITEMS)
    for where, shown in (("terminal", terminal), (".tex", tex), ("report.html", report_html), ("viewer", page)):
        assert text in " ".join(shown.split()), (where, text)


def test_the_api_reads_the_same_figures_in_points(run: dict) -> None:
    from evals import api

    loaded = api.load(run["parent"])
    assert isinstance(loaded, api.ModelsResult) and list(loaded.models) == list(MODELS.values())
    board = json.loads((run["parent"] / "results.json").read_text())["leaderboard"]
    for name, model in MODELS.items():
        [task] = loaded.models[model].tasks
        for c in CONDITIONS:
            k = sum(run["item"][(name, c)].values(), Fraction(0))
            lo, hi = proportion_confint(float(k), ITEMS, alpha=0.05, method="wilson")
            s = task.conditions[c]
            assert (s.items, s.n) == (ITEMS, ITEMS * EPOCHS)
            assert s.accuracy == pytest.approx(100 * float(k) / ITEMS) and s.ci == pytest.approx((100 * lo, 100 * hi))
        g = task.gap["tools"]  # type: ignore[index]
        [row] = [r for r in loaded.leaderboard["rows"] if r["model"] == model]  # type: ignore[index]
        stored = json.loads((run["dirs"][name] / "results.json").read_text())["tasks"][0]["gap"]["tools"]
        assert g["gap"] == pytest.approx(100 * stored["gap"]) and g["ci"] == pytest.approx([100 * x for x in stored["ci"]])
        assert row["gap"]["tools"]["ci"] == pytest.approx(g["ci"]) and g["n_paired"] == ITEMS
    [d] = loaded.leaderboard["differences"]  # type: ignore[index]
    assert d["ci"] == pytest.approx([100 * x for x in board["differences"][0]["ci"]])
