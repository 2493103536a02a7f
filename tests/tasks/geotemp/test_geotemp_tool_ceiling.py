"""Tool ceiling: for every GeoTemp task, real timezone tool calls reach the gold on generated samples."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta

import pytest
import pytz
from geotemp_oracle import pytz_gold
from geotemp_policy import final_text, follow_up, plan, run_tools
from langchain_core.messages import AIMessage, ToolMessage

from agents.scripted import ScriptedChatModel
from agents.tool_agent import ToolAgent
from tasks.records import Sample
from tasks.registry import get_task, resolve_tasks
from tools.registry import get_tools

GEOTEMP = resolve_tasks(["geotemp.*"])
PROBE_YEAR = 2023  # the probe asks "(as in 2023)"


def test_all_geotemp_tasks_are_registered() -> None:
    assert set(GEOTEMP) == {
        "geotemp.verification", "geotemp.time_time", "geotemp.time_place", "geotemp.time_time_place",
        "geotemp.time_time_place.inject_tz", "geotemp.time_time_place.replace_city", "geotemp.tz_probe",
        "geotemp.verification.styles", "geotemp.time_time.styles", "geotemp.time_place.styles",
        "geotemp.time_time_place.styles",
    }


def pytz_answer(sample: Sample) -> tuple[str | None, str]:
    """What the last tool result must say, recomputed with pytz from the payload: (local time, UTC offset)
    for the time tasks, (None, the mid-January UTC offset) for the probe."""
    if "location" in sample.payload:
        jan = pytz.timezone(sample.payload["location"]["zone"]).localize(datetime(PROBE_YEAR, 1, 15, 12))
        return None, utc_label(jan.utcoffset())
    _, target, _, offset = pytz_gold(sample)
    return target.strftime("%Y-%m-%d %H:%M"), utc_label(offset)


def utc_label(offset: timedelta | None) -> str:
    minutes = int((offset or timedelta(0)).total_seconds() // 60)
    h, m = divmod(abs(minutes), 60)
    return f"UTC{'-' if minutes < 0 else '+'}{h}" + (f":{m:02d}" if m else "")


@pytest.mark.parametrize("name", GEOTEMP)
def test_tool_calls_reach_the_gold(name: str) -> None:
    """The policy's answer scores, and the tool result it came from matches pytz (the gold and the tools
    share geocore's time arithmetic, so the score alone could not catch a wrong conversion)."""
    task = get_task(name)
    tools = {t.name: t for t in get_tools(list(task.toolsets))}
    samples = task.samples(split="test", limit=25, seed=3) + task.samples(split="train", limit=15, seed=4)
    for sample in samples:
        text, calls, result = run_tools(sample.prompt, tools)
        assert calls and all(c[0] in tools for c in calls)
        local_time, offset = pytz_answer(sample)
        assert result["utc_offset"] == offset and result.get("local_time", local_time) == local_time, result
        score = task.score(task.parse(text, sample), sample)
        assert score.correct, (sample.prompt, calls, text, score.explanation)


def _policy(messages, tool_names):
    prompt = next(m.content for m in messages if m.type == "human")
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if not results:
        name, args = plan(prompt)[0]
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": "c1"}])
    last = json.loads(results[-1].content)
    more = follow_up(prompt, last)
    if more:
        return AIMessage("", tool_calls=[{"name": more[0], "args": more[1], "id": "c2"}])
    return final_text(prompt, last)


@pytest.mark.parametrize("name", GEOTEMP)
def test_agent_loop_with_scripted_model_reaches_the_gold(name: str) -> None:
    task = get_task(name)
    sample = task.samples(limit=1, seed=5)[0]
    agent = ToolAgent(ScriptedChatModel(script=_policy), get_tools(list(task.toolsets)))
    out = asyncio.run(agent.run(list(sample.messages)))
    assert out.tool_calls >= 1 and out.stop_reason == "answered"
    assert task.score(task.parse(out.final_text, sample), sample).correct, out.final_text


def test_every_location_label_resolves_to_its_zone_group() -> None:
    """The ceiling holds beyond the sampled items: city_timezone finds every location as prompts name it."""
    from tasks.geotemp.locations import locations

    tool = {t.name: t for t in get_tools(["timezone"])}["city_timezone"]
    for loc in locations():
        zone = json.loads(tool.invoke({"city": loc.city, "country": loc.country}))["zone"]
        assert zone in loc.group, (loc.label, zone, loc.group)
