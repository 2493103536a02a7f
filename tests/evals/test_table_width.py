"""The main table fits the terminal: at 80, 120 and 200 columns no line is longer, no cell is cut, and the gap with
its interval and p is always whole; what is left out at a width is named in the caption."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from evals.analysis import TaskComparison, compare, overall
from evals.records import SampleResult
from evals.report import print_table
from tasks.records import Score

TASKS = ("gpsbench.relative_position_applied", "geotemp.time_time_place.styles", "stbench.direction_determination")


def comparisons(conditions: list[str]) -> list[TaskComparison]:
    rs = []
    for task in TASKS:
        for i in range(20):
            rs.append(SampleResult(run_id="r", sample_id=f"{task}/{i}", task=task, condition="intrinsic", model="m",
                                   score=Score(correct=i < 4, value=float(i < 4))))
            for c in conditions[1:]:
                rs.append(SampleResult(run_id="r", sample_id=f"{task}/{i}", task=task, condition=c, model="m",
                                       tool_calls=1, status="error" if i == 19 else "ok",
                                       score=Score(correct=i < 16, value=float(i < 16))))
    return compare(rs, conditions) + [overall(rs, conditions)]


def render(conditions: list[str], width: int) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    print_table(comparisons(conditions), conditions, console, title="local/qwen2.5-coder-1.5b · split test · seed 42")
    return console.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("conditions", [["intrinsic", "tools"], ["intrinsic", "tools", "tools[geodesy]",
                                                                 "tools-required"]])
@pytest.mark.parametrize("width", [80, 120, 200])
def test_the_table_fits_and_the_gap_is_whole(conditions: list[str], width: int) -> None:
    text = render(conditions, width)
    main = text.split("Tool use")[0]
    assert max(len(line) for line in main.splitlines()) <= width
    assert "…" not in main  # no cell cropped
    # per task 4/20 vs 16/19 answered (one failed): gap over the 19 paired items = 12/19 = +63.2 points, p from
    # McNemar 12 gained / 0 lost = 2 · 2⁻¹² = 0.00049; pooled over 57 items: 36/57 = +63.2 too, p = 2 · 2⁻³⁶
    assert main.count("+63.2") == 4 * (len(conditions) - 1)
    assert main.count("0.00049") == 3 * (len(conditions) - 1)
    assert main.count("2.9e-11") == len(conditions) - 1
    assert len(re.findall(r"\[[+-]\d+\.\d, [+-]\d+\.\d\]", main)) == 4 * (len(conditions) - 1)  # gap intervals
    for c in conditions[1:]:
        assert c in main
    tool_use = text.split("Tool use")[1]  # the tool-use table fits too: its cells go on two lines
    assert max(len(line) for line in tool_use.splitlines()) <= width and "…" not in tool_use
    assert tool_use.count("19/19") == 3 * (len(conditions) - 1)  # used a tool on every answered sample
    rows = 4 * (len(conditions) - 1)  # 3 tasks and all, per tool condition: each row ends in its disagree cell
    assert len(re.findall(r" 0/0 *$", tool_use, flags=re.MULTILINE)) == rows, tool_use


def test_wider_terminals_show_more_and_the_caption_names_what_is_left_out() -> None:
    narrow, middle, wide = (render(["intrinsic", "tools"], w).split("Tool use")[0] for w in (80, 120, 200))
    assert ("not shown at this width: status %, out tokens/sample, truncated %, tool calls/sample, errors"
            in " ".join(narrow.split()))
    assert "tool calls" not in narrow.replace("tool calls/sample", "") and "errors" in narrow
    assert "tool calls /sample" in wide and "truncated %" in wide
    assert "not shown at this width: status %, out tokens/sample" in " ".join(wide.split())
    assert "intrinsic acc % [95% CI]" in wide and "20 / 19" in wide  # one line per task, items per condition
    assert "20.0 [8.1, 41.6]" in wide  # intrinsic 4/20, Wilson by hand: centre 0.2483, half-width 0.1677
    assert len(middle.splitlines()) <= len(narrow.splitlines())


def test_an_unbounded_console_keeps_every_column() -> None:
    text = render(["intrinsic", "tools"], 400)
    assert "intrinsic status %" in text and "errors" in text and "not shown" not in text


def test_dotted_lines_break_task_names_after_their_dots() -> None:
    from evals.report import dotted_lines

    assert dotted_lines("stbench.direction.completion", 12) == "stbench.\ndirection.\ncompletion"
    assert dotted_lines("stbench.direction.completion", 18) == "stbench.direction.\ncompletion"
    assert dotted_lines("gtr.geo_location", 16) == "gtr.geo_location"
    assert dotted_lines("gpsbench.relative_position_applied", 10) == "gpsbench.\nrelative_position_applied"


def test_the_tool_use_table_breaks_task_names_at_their_dots_not_inside_a_part() -> None:
    """At 80 columns the Tool use table's task column is narrower than the quick suite's names: they go on
    several lines, each part of a name whole (the column once printed 'geotemp.tz_prob' over 'e')."""
    import evals.report as report

    names = ("geotemp.tz_probe", "gtr.geo_location", "stbench.direction.completion")
    rs = []
    for task in names:
        for i in range(4):
            for c, right in (("intrinsic", i < 1), ("tools", i < 3)):
                rs.append(SampleResult(run_id="r", sample_id=f"{task}/{i}", task=task, condition=c, model="m",
                                       tool_calls=int(c == "tools"), score=Score(correct=right, value=float(right))))
    comps = compare(rs, ["intrinsic", "tools"]) + [overall(rs, ["intrinsic", "tools"])]
    for width, broken in ((80, True), (200, False)):
        console = Console(width=width, file=io.StringIO(), color_system=None)
        table = report.render_tool_use(comps, width=width)
        assert table is not None
        console.print(table)
        text = console.file.getvalue()  # type: ignore[attr-defined]
        assert max(len(line) for line in text.splitlines()) <= width
        cells = [line[:20].strip() for line in text.splitlines()]
        for name in names:
            if broken:
                assert name not in text
                parts = [p + "." for p in name.split(".")[:-1]] + [name.split(".")[-1]]
                assert all(any(cell.startswith(p) for cell in cells) for p in parts), (name, text)
            else:
                assert name in text


def test_the_main_table_wraps_a_long_task_name_after_a_dot() -> None:
    """At 80 columns the main table's task column holds 'geotemp.tz_probe' but not the STBench name, which goes
    on two lines after a dot (it once printed 'stbench.direction.c' over 'ompletion')."""
    names = ("geotemp.tz_probe", "stbench.direction.completion")
    rs = [SampleResult(run_id="r", sample_id=f"{task}/0", task=task, condition=c, model="m",
                       score=Score(correct=c == "tools", value=float(c == "tools")))
          for task in names for c in ("intrinsic", "tools")]
    console = Console(width=80, file=io.StringIO(), color_system=None)
    print_table(compare(rs, ["intrinsic", "tools"]) + [overall(rs, ["intrinsic", "tools"])], ["intrinsic", "tools"],
                console)
    main = console.file.getvalue().split("Tool use")[0]  # type: ignore[attr-defined]
    firsts = [line.split("│")[1].strip() for line in main.splitlines() if line.startswith("│")]
    assert "geotemp.tz_probe" in firsts
    assert "stbench.direction." in firsts and "completion" in firsts
