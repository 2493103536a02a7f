"""Each declared gold call, run through the real tool, returns the sample's gold (tasks/records.GoldCall): the
declaration names the tool, its arguments and where the gold sits in its result correctly."""

from __future__ import annotations

import json

import pytest

from agents.trace import ToolCallEvent
from evals.funnel import step
from tasks.registry import get_task
from tools import get_tools

DECLARED = ("gpsbench.distance", "gpsbench.bearing", "gpsbench.place_association", "stbench.direction",
            "geotemp.verification", "geotemp.time_time", "geotemp.time_place", "geotemp.time_time_place")
TOOLS = {t.name: t for t in get_tools(["geodesy", "timezone", "gazetteer"])}


@pytest.mark.parametrize("name", DECLARED)
def test_the_gold_call_returns_the_gold(name: str) -> None:
    task = get_task(name)
    for sample in task.samples(limit=5):
        gold = task.gold_call(sample)
        assert gold is not None and gold.tools[0] in TOOLS
        value = json.loads(TOOLS[gold.tools[0]].invoke(gold.args))
        for part in gold.result_key.split("."):
            value = value[int(part)] if part.isdigit() else value[part]
        if isinstance(gold.gold, str):
            assert value == gold.gold, sample.id
        else:
            assert abs(value - gold.gold) <= max(gold.tolerance, 1e-3), sample.id
        # and the funnel follows it: the right call, no final answer yet, stops at the answer step
        call = ToolCallEvent(tool=gold.tools[0], args=gold.args, status="ok", result=TOOLS[gold.tools[0]].invoke(gold.args))
        assert step([call], gold, None, None, sample).passed == 4


def test_tasks_without_a_single_gold_call_declare_none() -> None:
    assert getattr(get_task("gtr.next_spot"), "gold_call", None) is None
    replaced = get_task("geotemp.time_time_place.replace_city")
    assert replaced.gold_call(replaced.samples(limit=1)[0]) is None
