"""Done-when run of issue 39: a scripted model that uses whichever tool set it is offered (the domain tools, the
calculator or the python tool) answers gpsbench.distance, gpsbench.bearing, geotemp.time_place and
stbench.direction under intrinsic, tools[calculator], tools[python] and tools: all four conditions on the same
items, paired gaps between every pair, and each tools sample's funnel step stored and counted."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout
from datetime import datetime
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from test_figures_tables import plain

from evals.compare import main
from evals.store import RunStore
from geocore.timecalc import zone_for_city

TASKS = ("gpsbench.distance", "gpsbench.bearing", "geotemp.time_place", "stbench.direction")
CONDITIONS = ("intrinsic", "tools[calculator]", "tools[python]", "tools")
_TIME = re.compile(r"Today is \w+, (\w+ \d+)\w* at (\d\d:\d\d [AP]M) in (\d{4}) in (.+?)\. What time is it now in "
                   r"(.+?)\?")
HAVERSINE = ("2*6371*asin(sqrt(sin(radians({c}-{a})/2)**2 + cos(radians({a}))*cos(radians({c}))"
             "*sin(radians({d}-({b}))/2)**2))")
BEARING = ("(degrees(atan2(sin(radians({d}-({b})))*cos(radians({c})), cos(radians({a}))*sin(radians({c}))"
           " - sin(radians({a}))*cos(radians({c}))*cos(radians({d}-({b}))))) + 360) % 360")


def _kind(prompt: str) -> str:
    if "What time is it now" in prompt:
        return "time"
    if "great-circle distance" in prompt:
        return "distance"
    return "bearing" if "compass directions (N, NE" in prompt else "direction"


def _zone(place: str) -> str:
    city, country = (p.strip() for p in place.split(",", 1))
    return zone_for_city(city, country).zone


def _call(kind: str, prompt: str, tools: list[str]) -> dict | None:
    """The tool call this model makes: the domain tool when offered, else the calculator, else python."""
    if kind == "time":
        m = _TIME.search(prompt)
        assert m is not None, prompt
        start = datetime.strptime(f"{m[1]} {m[3]} {m[2]}", "%B %d %Y %I:%M %p").strftime("%Y-%m-%d %H:%M")
        if "convert_time" in tools:
            return {"name": "convert_time", "args": {"local_time": start, "from_place": m[4], "to_place": m[5]}}
        if "python" in tools:
            code = ("from datetime import datetime\nfrom zoneinfo import ZoneInfo\n"
                    f"t = datetime.strptime({start!r}, '%Y-%m-%d %H:%M').replace(tzinfo=ZoneInfo({_zone(m[4])!r}))\n"
                    f"print(t.astimezone(ZoneInfo({_zone(m[5])!r})).strftime('%Y-%m-%d %H:%M'))")
            return {"name": "python", "args": {"code": code}}
        return None  # the calculator cannot convert times: answer without it
    a, b, c, d = re.findall(r"-?\d+\.\d+|-?\d+", prompt.split("Point A is at", 1)[1])[:4]
    formula = HAVERSINE if kind == "distance" else BEARING
    if "distance_km" in tools:
        name = "distance_km" if kind == "distance" else "initial_bearing"
        return {"name": name, "args": {"lat1": float(a), "lon1": float(b), "lat2": float(c), "lon2": float(d)}}
    if "calculator" in tools:
        return {"name": "calculator", "args": {"expression": formula.format(a=a, b=b, c=c, d=d)}}
    if "python" in tools:
        return {"name": "python", "args": {"code": f"from math import *\nprint({formula.format(a=a, b=b, c=c, d=d)})"}}
    return None


def _answer(kind: str, result: str | None) -> str:
    if result is None:  # intrinsic (or no fitting tool): a fixed guess
        return {"distance": "FINAL ANSWER: 5000 km", "bearing": "FINAL ANSWER: 90° (E)", "direction": "FINAL ANSWER: 1",
                "time": "FINAL ANSWER: 12:00 PM"}[kind]
    if kind == "time":
        stamp = json.loads(result)["local_time"] if result.startswith("{") else result.strip()
        return f"FINAL ANSWER: {stamp[11:16]}"
    value = json.loads(result)
    number = float(next(iter(value.values())) if isinstance(value, dict) else value)
    if kind == "distance":
        return f"FINAL ANSWER: {number:.1f} km"
    sector = int(((number + 22.5) % 360) // 45)
    if kind == "bearing":
        return f"FINAL ANSWER: {number:.1f}° ({('N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW')[sector]})"
    return f"FINAL ANSWER: {sector + 1}"


def uses_any_tool(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    prompt = str(messages[-1].content) if not any(isinstance(m, ToolMessage) for m in messages) else next(
        str(m.content) for m in messages if m.type == "human")
    kind = _kind(prompt)
    done = [m for m in messages if isinstance(m, ToolMessage)]
    if done:
        return _answer(kind, str(done[-1].content))
    call = _call(kind, prompt, tools)
    if call is None:
        return _answer(kind, None)
    return AIMessage("", tool_calls=[{**call, "id": "c1"}])


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("kinds") / "run"
    argv = ["--model", f"scripted/{__name__}:uses_any_tool", "--tasks", ",".join(TASKS), "--limit", "2",
            "--condition", ",".join(CONDITIONS), "--no-cache", "--output", str(out)]
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert main(argv) == 0
    return out, printed.getvalue()


def test_four_tool_kinds_on_the_same_items(run: tuple[Path, str]) -> None:
    out, terminal = run
    with RunStore(out, create=False) as store:
        results = list(store.results())
    assert all(r.status == "ok" for r in results)
    items = {c: sorted(r.sample_id for r in results if r.condition == c) for c in CONDITIONS}
    assert len(items["intrinsic"]) == 8 and all(v == items["intrinsic"] for v in items.values())
    by = {(r.sample_id, r.condition): r for r in results}
    for r in results:
        if r.condition == "intrinsic":
            assert r.funnel is None and r.score is not None and not r.score.correct  # the fixed guesses are wrong on these items
            continue
        assert r.funnel is not None
        if r.condition == "tools[calculator]" and r.task == "geotemp.time_place":
            assert (r.funnel.passed, r.funnel.reason) == (0, "no_tool")
        else:  # the right tool, the item's arguments, the gold returned and kept: credited
            assert (r.funnel.passed, r.funnel.failed) == (6, None), (r.sample_id, r.condition, r.funnel, r.final_text)
            assert r.score is not None and r.score.correct
            assert not by[(r.sample_id, "intrinsic")].score.correct  # type: ignore[union-attr]
    report = json.loads((out / "results.json").read_text())
    pooled = report["overall"]
    assert set(pooled["gap"]) == set(CONDITIONS[1:])
    assert set(pooled["pairwise"]) == {"tools[python] vs tools[calculator]", "tools vs tools[calculator]",
                                       "tools vs tools[python]"}
    calc_vs_tools = pooled["pairwise"]["tools vs tools[calculator]"]
    assert calc_vs_tools["n_paired"] == 8 and calc_vs_tools["gained"] == 2 and calc_vs_tools["lost"] == 0  # time items
    lo, hi = calc_vs_tools["ci"]
    assert lo <= calc_vs_tools["gap"] == 0.25 <= hi
    funnel = pooled["tool_use"]["tools[calculator]"]["funnel"]
    assert funnel["n"] == 8 and funnel["reached"]["credited"] == 6 and funnel["stopped"] == {"no_tool": 2}
    said = " ".join(terminal.split())
    assert "funnel tools[calculator]: 8 → called 6 → tool 6 → args 6 → gold 6 → kept 6 → credited 6 · stopped: no_tool 2" in said
    assert "paired, all tasks: tools vs tools[calculator] +25.0 points" in said and "tools vs tools[python] +0.0" in said


# every two tool kinds, as the scripted model is written: each kind is right on every distance, bearing and direction
# item; on the 2 time items the calculator cannot help (wrong) while python and the domain tools are right. So
# b − a is +25.0 over 8 items (2 gained, 0 lost) when a is the calculator, else 0 (no answer changed).
PAIRS = {("tools[python]", "tools[calculator]"): (0.25, 2), ("tools", "tools[calculator]"): (0.25, 2),
         ("tools", "tools[python]"): (0.0, 0)}


def _text(g: dict) -> str:
    return f"{100 * g['gap']:+.1f} [{100 * g['ci'][0]:+.1f}, {100 * g['ci'][1]:+.1f}]"


def test_every_two_tool_kinds_have_a_paired_row_in_every_output(run: tuple[Path, str]) -> None:
    from rich.console import Console

    from evals.analysis import ALL_TASKS
    from evals.api import leaderboard_in_points
    from evals.leaderboard import build_leaderboard, print_leaderboard, read_entry
    from evals.paper_tables import build_tables, grid
    from evals.run_reader import RunReader
    from evals.tables_out import leaderboard_tables
    from evals.view.app import Viewer
    from evals.view.leaderboard import leaderboard_body

    out, _ = run
    pooled = json.loads((out / "results.json").read_text())["overall"]["pairwise"]
    pairwise_md = (out / "tables" / "pairwise.md").read_text()
    tex_rows = [[plain(c) for c in line.removesuffix("\\\\").split("&")]
                for line in (out / "tables" / "pairwise.tex").read_text().splitlines() if line.startswith("all tasks")]
    report_html = " ".join(re.sub(r"<[^>]+>", " ", (out / "report.html").read_text()).split())
    viewer = Viewer([out], wait_s=30)
    page = " ".join(re.sub(r"<[^>]+>", " ", viewer.handle(f"/runs/{next(iter(viewer.runs))}/").body.decode()).split())
    board = build_leaderboard([read_entry(out)])
    wide = io.StringIO()
    print_leaderboard(board, Console(file=wide, width=80))
    assert max(len(line) for line in wide.getvalue().splitlines()) <= 80
    terminal: list[str] = []  # the pooled rows of the terminal's pairwise table, a folded cell's lines joined
    for line in wide.getvalue().splitlines():
        if line.startswith(" all tasks "):
            terminal.append(line)
        elif terminal and line.startswith("   ") and line.strip():
            terminal[-1] += " " + line.strip()
    board_rows = [row for _, _, rows in leaderboard_tables(board) for row in rows]
    board_page = " ".join(re.sub(r"<[^>]+>", " ", leaderboard_body(board)).split())
    for (b, a), (gap, gained) in PAIRS.items():
        g = pooled[f"{b} vs {a}"]
        assert (g["gap"], g["n_paired"], g["gained"], g["lost"]) == (gap, 8, gained, 0)
        text = _text(g)
        assert f"| all tasks (pooled) | {b} − {a} | 8 | {text}" in " ".join(pairwise_md.split()), (b, a)
        assert ["all tasks (pooled)", f"{b} - {a}", "8", text, f"{g['mcnemar_p']:.2g}"] in tex_rows, (b, a, tex_rows)
        assert f"all tasks (pooled) {b} − {a} {text.split(' ')[0]} {text.split(' ', 1)[1]}" in report_html, (b, a)
        assert f"all tasks (pooled) {b} − {a} {text.split(' ')[0]} {text.split(' ', 1)[1]}" in page, (b, a)
        [pooled_row] = [r for r in board["rows"] if r["task"] == ALL_TASKS]
        assert pooled_row["pairwise"][f"{b} vs {a}"]["ci"] == g["ci"]
        [in_points] = [r for r in leaderboard_in_points(board)["rows"] if r["task"] == ALL_TASKS]  # the API's
        assert in_points["pairwise"][f"{b} vs {a}"]["ci"] == pytest.approx([100 * x for x in g["ci"]])
        assert [r for r in board_rows if r[1:3] == ["all tasks", f"{b} − {a}"]][0][-1] == text
        assert f"all tasks (pooled) {b} − {a} {text.split(' ')[0]} {text.split(' ', 1)[1]}" in board_page, (b, a)
        rows = {" ".join(row.split()) for row in terminal}  # a pair too wide for its cell folds after "−"
        assert {f"all tasks {b} − {a} 8 {text}", f"all tasks {b} − 8 {text} {a}"} & rows, (b, a, rows)
    # the paper table's distance column: a one-task column prints the per-task pairwise gap of that task
    results = list(RunReader(out).results(with_trace=False))
    headers, rows, kinds = grid(next(t for t in build_tables("gpsbench-paper", results, list(CONDITIONS))
                                     if t.name == "pure"))
    col = headers.index("Dist.")
    paper = {r[0]: r[col] for r, k in zip(rows, kinds, strict=True) if k == "pairwise"}
    distance = json.loads((out / "results.json").read_text())["tasks"]
    [dist] = [t for t in distance if t["task"] == "gpsbench.distance"]
    assert set(paper) == {f"gap {b} − {a} [95% CI]" for b, a in PAIRS}
    for b, a in PAIRS:
        assert paper[f"gap {b} − {a} [95% CI]"] == _text(dist["pairwise"][f"{b} vs {a}"])
