"""Several models in one command (``--model a,b`` / ``--models FILE``), the leaderboard and ``--baseline``, end to
end through the CLI with two scripted policies.

``expert`` answers right from memory when point A is north of the equator and says 1 km otherwise; with tools
it calls ``distance_km`` and answers with its result (always right). ``hedger`` says 1 km alone and, offered
tools, calls none and names two distances (a hedge). The expected figures are counted from the samples' prompts
here, not by the code under test: expert's gap = the share of items with A at or south of the equator, hedger's
gap 0, so the difference of gaps (expert − hedger) equals expert's gap.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from evals.compare import main
from evals.run_reader import RunReader

POINT = re.compile(r"\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)")
TASKS = "gpsbench.distance"
LIMIT = 12


def _points(messages: list[BaseMessage]) -> tuple[float, float, float, float]:
    prompt = next(m.content for m in messages if m.type == "human")
    (a1, o1), (a2, o2) = POINT.findall(str(prompt))[:2]
    return float(a1), float(o1), float(a2), float(o2)


def _haversine(la1: float, lo1: float, la2: float, lo2: float) -> float:
    p1, p2, dl = math.radians(la1), math.radians(la2), math.radians(lo2 - lo1)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def expert(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    la1, lo1, la2, lo2 = _points(messages)
    if not tools:
        return f"FINAL ANSWER: {_haversine(la1, lo1, la2, lo2):.1f} km" if la1 > 0 else "FINAL ANSWER: 1 km"
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if not results:
        return AIMessage("", tool_calls=[{"name": "distance_km", "id": "c1",
                                          "args": {"lat1": la1, "lon1": lo1, "lat2": la2, "lon2": lo2}}])
    return f"FINAL ANSWER: {json.loads(str(results[-1].content))['distance_km']:.1f} km"


def hedger(messages: list[BaseMessage], tools: list[str]) -> str:
    return "FINAL ANSWER: 100 km or 200 km" if tools else "FINAL ANSWER: 1 km"


EXPERT, HEDGER = f"scripted/{__name__}:expert", f"scripted/{__name__}:hedger"


def _south_share(run_dir: Path) -> tuple[int, int]:
    """(items with point A at or south of the equator, items) among the samples stored in ``run_dir``."""
    samples = RunReader(run_dir).samples().values()
    lats = [float(POINT.findall(s.prompt)[0][0]) for s in samples]
    return sum(1 for la in lats if la <= 0), len(lats)


@pytest.fixture(scope="module")
def two_models(tmp_path_factory: pytest.TempPathFactory) -> dict:
    parent = tmp_path_factory.mktemp("multi") / "board"
    import io
    from contextlib import redirect_stderr, redirect_stdout

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--model", f"{EXPERT},{HEDGER}", "--tasks", TASKS, "--limit", str(LIMIT), "--no-cache",
                     "--output", str(parent)])
    return {"code": code, "parent": parent, "out": out.getvalue(), "err": err.getvalue()}


def test_two_models_run_the_same_items_into_one_parent(two_models: dict) -> None:
    assert two_models["code"] == 0, two_models["err"]
    parent = two_models["parent"]
    dirs = sorted(p for p in parent.iterdir() if (p / "run.sqlite").is_file())
    assert [d.name for d in dirs] == sorted([re.sub(r"[^A-Za-z0-9._-]+", "_", m) for m in (EXPERT, HEDGER)])
    ids = [set(RunReader(d).samples()) for d in dirs]
    assert ids[0] == ids[1] and len(ids[0]) == LIMIT
    for d in dirs:
        assert (d / "results.json").is_file() and (d / "report.html").is_file()
    for name in ("results.json", "report.html", "tables/leaderboard.md", "tables/leaderboard.tex"):
        assert (parent / name).is_file(), name


def test_the_leaderboard_holds_each_models_gap_and_their_difference(two_models: dict) -> None:
    parent = two_models["parent"]
    board = json.loads((parent / "results.json").read_text())["leaderboard"]
    south, n = _south_share(parent / re.sub(r"[^A-Za-z0-9._-]+", "_", EXPERT))
    assert 0 < south < n  # the fixture has spread: some items gained, some not
    rows = {r["model"]: r for r in board["rows"] if r["task"] == TASKS}
    ex, he = rows[EXPERT], rows[HEDGER]
    assert ex["conditions"]["intrinsic"]["accuracy"] == pytest.approx((n - south) / n)
    assert ex["conditions"]["tools"]["accuracy"] == 1.0
    assert ex["gap"]["tools"]["gap"] == pytest.approx(south / n) and ex["gap"]["tools"]["n_paired"] == n
    assert ex["conditions"]["tools"]["tool_adoption"] == 1.0
    assert he["gap"]["tools"]["gap"] == 0.0 and he["conditions"]["tools"]["tool_adoption"] == 0.0
    assert he["conditions"]["tools"]["statuses"] == {"hedged": 1.0}
    assert he["conditions"]["intrinsic"]["statuses"] == {"answered": 1.0}
    assert ex["cost_usd"] == 0.0  # scripted models are free (the built-in price table): known, 0
    [diff] = [d for d in board["differences"] if d["task"] == TASKS]
    assert (diff["a"], diff["b"], diff["n_items"]) == (EXPERT, HEDGER, n)
    assert diff["difference"] == pytest.approx(south / n)
    lo, hi = diff["ci"]
    assert 0 <= lo < south / n < hi  # every item's difference is 0 or 1, some of each: a real interval


def test_the_terminal_shows_the_leaderboard_and_the_difference(two_models: dict) -> None:
    out = " ".join(two_models["out"].split())
    assert f"{EXPERT} · tools vs intrinsic · cost $0.0000" in out and f"{HEDGER} · tools vs intrinsic" in out
    assert f"Difference of gaps (A − B), tools: A = {EXPERT}, B = {HEDGER}" in out
    board = json.loads((two_models["parent"] / "results.json").read_text())["leaderboard"]
    [diff] = [d for d in board["differences"] if d["task"] == TASKS]
    assert f"{100 * diff['difference']:+.1f} [{100 * diff['ci'][0]:+.1f}, {100 * diff['ci'][1]:+.1f}]" in out
    assert "leaderboard of 2 models" in out


def test_the_parent_report_links_each_models_report(two_models: dict) -> None:
    html = (two_models["parent"] / "report.html").read_text()
    assert "Difference of gaps" in html and "Leaderboard" in html
    for m in (EXPERT, HEDGER):
        assert f'href="{re.sub(r"[^A-Za-z0-9._-]+", "_", m)}/report.html"' in html


def test_a_models_file_and_a_baseline_give_the_same_figures(two_models: dict, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    listing = tmp_path / "models.toml"
    listing.write_text(f'models = ["{HEDGER}"]\n')
    first = tmp_path / "hedger"
    assert main(["--models", str(listing), "--tasks", TASKS, "--limit", str(LIMIT), "--no-cache", "--output",
                 str(first)]) == 0
    second = tmp_path / "expert"
    assert main(["--model", EXPERT, "--tasks", TASKS, "--limit", str(LIMIT), "--no-cache", "--output", str(second),
                 "--baseline", str(first)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{EXPERT} · tools vs intrinsic" in out and f"A = {EXPERT}, B = {HEDGER}" in out
    board = json.loads((second / "results.json").read_text())["leaderboard"]
    parent_board = json.loads((two_models["parent"] / "results.json").read_text())["leaderboard"]
    pick = [(d["a"], d["b"], d["difference"], d["ci"], d["n_items"]) for d in board["differences"] if d["task"] == TASKS]
    want = [(d["a"], d["b"], d["difference"], d["ci"], d["n_items"]) for d in parent_board["differences"]
            if d["task"] == TASKS]
    assert pick == want  # this run − its baseline: the same pair as expert − hedger in the two-model command
    assert "Difference of gaps" in (second / "report.html").read_text()
    assert (second / "tables" / "leaderboard.md").is_file()


@pytest.mark.parametrize(("argv", "needle"), [
    (["--model", f"{EXPERT},{EXPERT}"], "twice"),
    (["--model", f"{EXPERT},"], "empty model name"),
    (["--model", f"{EXPERT},azure/gpt-4o"], "valid providers"),
    (["--model", f"{EXPERT},{HEDGER}", "--resume", "x"], "--resume takes one model's run directory"),
    (["--model", f"{EXPERT},{HEDGER}", "--baseline", "x"], "the leaderboard compares them"),
    (["--model", "openai-compatible/a,openai-compatible/b", "--base-url", "http://127.0.0.1:9/v1", "--max-cost", "1"],
     "--max-cost needs the price of"),
])
def test_bad_model_lists_are_one_line_errors_before_anything_runs(argv: list[str], needle: str, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--tasks", TASKS, "--limit", "2", "--output", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and needle in err and "\n" not in err
    assert not (tmp_path / "p").exists()


def test_a_models_file_that_is_not_a_list_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "m.toml"
    bad.write_text('models = "openai/gpt-4o"\n')
    assert main(["--models", str(bad), "--output", str(tmp_path / "p")]) == 2
    assert "needs a list of model strings" in capsys.readouterr().err
    text = tmp_path / "m.txt"
    text.write_text(f"# two models\n{EXPERT}\n\n{HEDGER}  # the second\n")
    assert main(["--models", str(text), "--model", EXPERT, "--output", str(tmp_path / "p")]) == 2
    assert "--models and --model are exclusive" in capsys.readouterr().err


def test_the_viewer_finds_the_parents_leaderboard(two_models: dict, tmp_path: Path) -> None:
    from evals.view.__main__ import main as view_main

    assert view_main([str(two_models["parent"]), "--export", str(tmp_path / "site")]) == 0
    page = (tmp_path / "site" / "leaderboard.html").read_text()
    assert all(f'data-model="{m}"' in page for m in (EXPERT, HEDGER)) and "Difference of gaps" in page
    assert 'href="leaderboard.html"' in (tmp_path / "site" / "index.html").read_text()


def test_the_viewer_computes_a_leaderboard_of_any_two_runs(two_models: dict) -> None:
    from evals.view.app import Viewer
    from evals.view.runs import find_runs

    viewer = Viewer(find_runs([two_models["parent"]]))  # the runs alone, no parent leaderboard given
    assert not viewer.boards
    response = viewer.handle("/leaderboard")
    assert response.status == 200
    page = response.body.decode() if isinstance(response.body, bytes) else ""
    board = json.loads((two_models["parent"] / "results.json").read_text())["leaderboard"]
    [diff] = [d for d in board["differences"] if d["task"] == TASKS]
    assert f"{100 * diff['difference']:+.1f}" in page and all(f'data-model="{m}"' in page for m in (EXPERT, HEDGER))
    assert 'href="/leaderboard"' in viewer.handle("/").body.decode()  # type: ignore[union-attr]
