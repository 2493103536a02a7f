"""A knowledge-injection condition draws the variant's split only as far as the samples it answers need: the
first items of a paper-size split cost a few items, not the whole split; a late item is still found."""

from __future__ import annotations

from evals.conditions import AnswerContext, VariantCondition
from tasks.records import Sample
from tasks.registry import get_task


def _ctx() -> AnswerContext:
    from agents.scripted import ScriptedChatModel

    return AnswerContext(model=ScriptedChatModel(script=["FINAL ANSWER: x"]), seed=42)


def test_the_first_samples_draw_only_the_first_variant_items() -> None:
    task = get_task("geotemp.time_time_place", size=2000)
    cond = VariantCondition("inject-tz", "inject_tz")
    for sample in task.samples(limit=2):
        twin, variant = cond.prepare(sample, task, _ctx())
        assert twin.target == sample.target and variant.name == "geotemp.time_time_place.inject_tz"
    ((limit, items),) = cond._siblings.values()
    assert limit == 8 and len(items) == 8  # of the split's ~600 test items


def test_a_late_item_grows_the_draw_until_it_is_found() -> None:
    task = get_task("geotemp.time_time_place")
    samples: list[Sample] = task.samples()
    cond = VariantCondition("inject-tz", "inject_tz")
    twin, _ = cond.prepare(samples[-1], task, _ctx())
    assert twin.target == samples[-1].target and twin.id.endswith(samples[-1].id.rsplit("/", 2)[-2:][1])
    ((limit, items),) = cond._siblings.values()
    assert len(items) >= len(samples)
