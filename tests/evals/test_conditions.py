"""Conditions: tool-set selection, knowledge-injection variants (GeoTemp and a tiny fake task), plug-ins."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

import pytest
from langchain_core.messages import AIMessage

from agents.scripted import ScriptedChatModel
from evals.conditions import (
    AnswerContext,
    BaseCondition,
    NotApplicable,
    UnknownConditionError,
    commits_answer,
    get_condition,
)
from evals.records import RunSpec
from evals.runner import run_all
from evals.store import RunStore
from geocore.registry import Registry
from tasks import GeneratedTask, get_task
from tasks.records import Message, Parsed, Sample, Score
from tasks.registry import Variant
from tools.registry import toolset_names


def test_tools_conditions_pick_tool_sets() -> None:
    task = get_task("gpsbench.distance")
    assert get_condition("tools").toolsets_for(task) == tuple(task.toolsets)
    everything = get_condition("tools[all]")
    assert everything.name == "tools[all]" and everything.toolsets_for(task) == tuple(toolset_names())
    assert get_condition("tools[geodesy]").toolsets_for(task) == ("geodesy",)
    with pytest.raises(UnknownConditionError, match="cannot be combined"):
        get_condition("tools[all,geodesy]")


@pytest.mark.parametrize(("reply", "commits"), [
    ('{"name": "distance_km", "arguments": {}}\nFINAL ANSWER: 13670.93 km', True),
    ("FINAL ANSWER: (6) Southwest", True),
    ("FINAL ANSWER:", False),
    ("FINAL ANSWER:   \n", False),
    ("Let me call the tool again.", False),
    ("", False),
])
def test_commits_answer_needs_a_final_answer_line_with_content(reply: str, commits: bool) -> None:
    assert commits_answer(reply) is commits


def test_tools_condition_takes_the_answer_written_beside_a_repeated_call() -> None:
    """The condition gives its agent the answer check: a reply that repeats its call and answers ends the sample
    (two model calls, not three)."""
    task = get_task("gpsbench.distance")
    sample = task.samples(limit=1)[0]
    call = {"name": "distance_km", "args": {"lat1": 0.0, "lon1": 0.0, "lat2": 1.0, "lon2": 1.0}, "id": "a"}
    model = ScriptedChatModel(script=[AIMessage("", tool_calls=[call]),
                                      AIMessage("FINAL ANSWER: 157.2 km", tool_calls=[{**call, "id": "b"}]),
                                      "FINAL ANSWER: 1 km"])
    res = asyncio.run(get_condition("tools").answer(sample, task, AnswerContext(model=model)))
    assert len(model.calls) == 2 and res.final_text == "FINAL ANSWER: 157.2 km"


def ctx(seed: int = 42) -> AnswerContext:
    return AnswerContext(model=ScriptedChatModel(script=["FINAL ANSWER: x"]), seed=seed)


def test_inject_tz_uses_the_geotemp_variant_of_the_same_item() -> None:
    task = get_task("geotemp.time_time_place")
    cond = get_condition("inject-tz")
    for sample in task.samples(limit=3):
        asked, scorer = cond.prepare(sample, task, ctx())
        assert scorer.name == "geotemp.time_time_place.inject_tz"
        assert asked.id == sample.id.replace(task.name, scorer.name) and asked.target == sample.target
        assert "(time zone UTC" in asked.prompt and "(time zone UTC" not in sample.prompt
    replaced, _ = get_condition("replace-city").prepare(sample, task, ctx())
    assert replaced.target == sample.target and "time zone" in replaced.prompt
    distance = get_task("gpsbench.distance")
    with pytest.raises(NotApplicable, match="no 'inject_tz' variant"):
        cond.prepare(distance.samples(limit=1)[0], distance, ctx())


class TinyTask(GeneratedTask):
    """A plug-in task with a ``shout`` variant (its prompt upper-cased); item 1 of the variant has other gold."""

    family = "tiny"
    loud: ClassVar[bool] = False

    def generate(self, seed: int, size: int) -> list[Sample]:
        words = ["alpha", "beta", "gamma"][:size]
        return [Sample(id=self.sample_id("test", i), task=self.name, split="test",
                       messages=(Message(role="user", content=(f"say {w}".upper() if self.loud else f"say {w}")),),
                       target=w.upper() if self.loud and i == 1 else w, meta={"continent": "EU"})
                for i, w in enumerate(words)]

    def parse(self, text: str, sample: Sample) -> Parsed:
        return Parsed.success(text, text.strip().lower())

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        ok = parsed.value == sample.target
        return Score(correct=ok, value=float(ok))


def test_a_plugin_variant_condition_runs_and_reports_not_applicable(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from evals import conditions
    from tasks import registry

    monkeypatch.setattr(registry, "TASKS", Registry("task"))
    monkeypatch.setattr(registry, "_VARIANTS", {})
    monkeypatch.setattr(conditions.CONDITIONS, "_entries", dict(conditions.CONDITIONS._entries))
    registry.register_task("tiny.echo", variants=(Variant("shout", {"loud": True}),))(TinyTask)
    conditions.register_condition("shout")(lambda name: conditions.VariantCondition(name, "shout"))
    assert "shout" in conditions.condition_names()
    task = TinyTask(size=2)
    samples = task.samples()
    spec = RunSpec(model="scripted/echo", tasks=[task.name], conditions=["intrinsic", "shout"])
    store = RunStore(tmp_path / "run")
    store.add_samples(samples)
    seen: list[str] = []

    def echo(messages, tools):
        prompt = messages[-1].content
        seen.append(prompt)
        return prompt.split()[-1]

    conds = [get_condition("intrinsic"), get_condition("shout")]
    written = asyncio.run(run_all("r", spec, store, [(s, task) for s in samples], conds,
                                  ScriptedChatModel(script=echo)))
    assert written == 4 and "SAY ALPHA" in seen and "SAY BETA" not in seen
    by = {(r.sample_id, r.condition): r for r in store.results()}
    shout = by[("tiny.echo/test/00000", "shout")]
    assert shout.status == "ok" and shout.final_text == "ALPHA" and shout.score.correct  # scored on the variant
    skipped = by[("tiny.echo/test/00001", "shout")]
    assert skipped.status == "not_applicable" and "tiny.echo.shout has no item matching" in skipped.error
    assert skipped.score is None
    assert asyncio.run(run_all("r", spec, store, [(s, task) for s in samples], conds,
                               ScriptedChatModel(script=echo))) == 0  # nothing left: n/a counts as done


def test_inject_tz_through_the_runner_pairs_on_the_base_ids(tmp_path: Path) -> None:
    geo = get_task("geotemp.time_time_place")
    dist = get_task("gpsbench.distance")
    work = [(s, geo) for s in geo.samples(limit=2)] + [(s, dist) for s in dist.samples(limit=1)]
    spec = RunSpec(model="scripted/x", tasks=[geo.name, dist.name], conditions=["intrinsic", "inject-tz"])
    store = RunStore(tmp_path / "run")
    prompts: list[str] = []

    def answer(messages, tools):
        prompts.append(messages[-1].content)
        return "FINAL ANSWER: 10:00 AM"

    asyncio.run(run_all("r", spec, store, work, [get_condition("intrinsic"), get_condition("inject-tz")],
                        ScriptedChatModel(script=answer)))
    by = {(r.sample_id, r.condition): r for r in store.results()}
    for s, _ in work[:2]:
        r = by[(s.id, "inject-tz")]
        assert r.status == "ok" and r.task == geo.name and r.meta["asked_sample_id"].startswith(geo.name + ".inject_tz/")
    assert by[(work[2][0].id, "inject-tz")].status == "not_applicable"
    assert sum("(time zone UTC" in p for p in prompts) == 2


def test_base_condition_defaults() -> None:
    c = BaseCondition()
    s = get_task("gpsbench.distance").samples(limit=1)[0]
    assert c.prepare(s, None, ctx()) == (s, None)  # type: ignore[arg-type]
    assert c.check(None) is None  # type: ignore[arg-type]
