"""GPSBench family contract: all 18 tasks register, generate deterministically with disjoint 60/10/30 splits,
carry breakdown meta, never crash their parsers, and reach the gold through their own tool sets (directly and
through the real tool agent driven by a scripted model)."""

from __future__ import annotations

import asyncio
from functools import cache

import pytest
from gps_oracles import brute_nearest
from gps_solvers import SOLVERS, drive, scripted_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.tool_agent import AgentLimits, ToolAgent
from evals.conditions import with_tools_note
from tasks import get_task, resolve_tasks
from tasks.gpsbench import APPLIED_TASKS, FORM_TASKS, LEVEL_TASKS, PROBE_TASKS, PURE_TASKS
from tasks.gpsbench.regions import CONTINENT_QUOTAS, SUBREGIONS
from tasks.records import Parsed, Sample, Score
from tests.tasks.tool_references import check_tool_result
from tools import get_tools

ALL_TASKS = PURE_TASKS + APPLIED_TASKS + PROBE_TASKS
CHECKED = ALL_TASKS + FORM_TASKS  # every task and answer form
N = 40


@cache
def generated(name: str, seed: int = 42, size: int = N) -> tuple[Sample, ...]:
    return tuple(get_task(name).generate(seed, size))  # type: ignore[attr-defined]


def test_seventeen_tasks_and_the_probe_are_registered() -> None:
    assert len(PURE_TASKS) == 9 and len(APPLIED_TASKS) == 8 and len(PROBE_TASKS) == 1
    # plus place association scored at country and admin-1 level (same items, coarser scorers)
    assert set(ALL_TASKS + LEVEL_TASKS + FORM_TASKS) <= set(resolve_tasks(["gpsbench.*"]))  # and any task added
    assert set(SOLVERS) == set(ALL_TASKS + FORM_TASKS)


@pytest.mark.parametrize("name", CHECKED)
def test_sizes_splits_and_determinism(name: str) -> None:
    task = get_task(name)
    assert task.paper_size == 3400 and task.default_size <= 200 and task.size == task.default_size
    assert get_task(name, size=3400).size == 3400
    first = generated(name)
    again = get_task(name).generate(42, N)
    assert [s.model_dump() for s in again] == [s.model_dump() for s in first]
    other = get_task(name).generate(7, N)
    assert [s.prompt for s in other] != [s.prompt for s in first]
    by_split = {sp: [s for s in first if s.split == sp] for sp in ("train", "dev", "test")}
    assert [len(by_split[k]) for k in ("train", "dev", "test")] == [24, 4, 12]
    ids = [s.id for s in first]
    assert len(set(ids)) == N and all(i.startswith(f"{name}/") for i in ids)
    small = get_task(name, size=N)
    assert [s.id for s in small.samples(split="test")] == [s.id for s in by_split["test"]]


@pytest.mark.parametrize("name", CHECKED)
def test_prompts_and_breakdown_meta(name: str) -> None:
    for s in generated(name):
        assert s.messages[0].role == "system" and "FINAL ANSWER" in s.messages[0].content
        assert s.messages[-1].role == "user" and "FINAL ANSWER:" in s.prompt
        keys = {"continent", "subregion"} | ({"difficulty", "noise_m"} if name != "gpsbench.distance" else set())
        assert keys <= set(s.meta)
        assert s.meta.get("track", "pure") in ("pure", "applied")
        assert s.meta["continent"] in CONTINENT_QUOTAS and s.meta["subregion"] in SUBREGIONS
        if s.choices is not None:
            assert all(c in s.prompt for c in s.choices)


@pytest.mark.parametrize("name", CHECKED)
def test_toolsets_exist_and_stay_small(name: str) -> None:
    task = get_task(name)
    tools = get_tools(list(task.toolsets))
    assert 1 <= len(tools) <= 10, [t.name for t in tools]
    for t in tools:
        assert t.description and len(t.description) > 40


# tasks whose every solver call goes to a formula tool with an independent reference (tests/tasks/tool_references)
FORMULA_TASKS = ("gpsbench.distance", "gpsbench.bearing", "gpsbench.interpolation", "gpsbench.polygon_area",
                 "gpsbench.coordinate_transformation", "gpsbench.relative_position_pure", "gpsbench.route_geometry",
                 "gpsbench.route_geometry.mcq", "gpsbench.bounding_box", "gpsbench.format_conversion",
                 "gpsbench.spatial_patterns")


@pytest.mark.parametrize("name", CHECKED)
def test_tool_ceiling_every_sample_solved_with_the_tasks_tools(name: str) -> None:
    """The solver's answer reaches the gold, and every formula-tool result it used matches an independent
    reference (the gold and the tools share geocore, so the score alone could not catch a wrong formula)."""
    task = get_task(name)
    for s in generated(name):
        text, calls = drive(s, tuple(task.toolsets))
        assert calls, "the solver must use a tool"
        checked = [check_tool_result(*call) for call in calls]
        assert all(checked) or name not in FORMULA_TASKS, [c[0] for c in calls]
        for tool, args, out in calls:
            if tool == "nearest_cities":  # the nearest city against raw GeoNames rows and an own haversine
                _, km = brute_nearest(args["lat"], args["lon"], args.get("min_population", 0))[0]
                assert out["cities"][0]["distance_km"] == pytest.approx(km, abs=2e-3), (s.id, out["cities"][0])
        parsed = task.parse(text, s)
        score = task.score(parsed, s)
        assert parsed.ok and score.correct, (s.id, text, score.explanation)


@pytest.mark.parametrize("name", CHECKED)
def test_tool_agent_replay_reaches_gold_within_default_limits(name: str) -> None:
    task = get_task(name)
    s = generated(name)[-1]
    _, calls = drive(s, tuple(task.toolsets))
    agent = ToolAgent(scripted_model(s), get_tools(list(task.toolsets)), AgentLimits())
    res = asyncio.run(agent.run(with_tools_note(s.messages)))
    assert res.stop_reason == "answered"
    tool_events = [e for e in res.trace if e.kind == "tool_call"]
    assert [e.tool for e in tool_events] == [c[0] for c in calls] and all(e.status == "ok" for e in tool_events)
    assert task.score(task.parse(res.final_text, s), s).correct


@pytest.mark.parametrize("name", CHECKED)
def test_parse_failure_keeps_raw_text_and_scores_as_failure(name: str) -> None:
    task = get_task(name)
    s = generated(name)[0]
    for text in ("", "I cannot answer that.", "FINAL ANSWER:"):
        parsed = task.parse(text, s)
        assert not parsed.ok and parsed.raw == text and parsed.reason
        score = task.score(parsed, s)
        assert score.parse_failed and not score.correct and score.value == 0.0


TEXTS = st.text(max_size=120) | st.builds(
    lambda a, b: f"{a}FINAL ANSWER: {b}", st.text(max_size=40),
    st.text(alphabet="0123456789.,-°'\" NSEWkmxyz:=()[]ABCDE\n", max_size=60))


@settings(max_examples=1_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(TEXTS, min_size=10, max_size=10))
def test_parsers_and_scorers_never_raise_on_10000_strings(texts: list[str]) -> None:
    """1,000 examples of 10 strings each: 10,000 random strings through all 18 parsers and scorers."""
    for name in CHECKED:
        task = get_task(name)
        s = generated(name)[0]
        for text in texts:
            parsed = task.parse(text, s)
            assert isinstance(parsed, Parsed) and parsed.raw == text
            assert isinstance(task.score(parsed, s), Score)
