"""Scripted policies for the structured answer channel (tests/evals/test_answer_channel.py): each finds the sample
its prompt belongs to and answers it through ``final_answer`` (after one domain tool call when tools are offered),
or only in text, or with arguments that do not validate, or with a hedging string, or with two different answers."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agents.final_answer import FINAL_ANSWER
from tasks.records import Sample
from tasks.registry import get_task
from tests.tasks.test_answer_kinds import gold_args

TASKS = ("gpsbench.distance", "gpsbench.bearing", "gpsbench.proximity", "stbench.direction", "geotemp.time_place",
         "gtr.next_spot", "gtr.geo_location")


_LOCK = threading.Lock()  # the scripted model answers in worker threads; samples are drawn once


@cache
def _by_prompt() -> dict[str, tuple[Any, Sample]]:
    return {s.prompt: (get_task(n), s) for n in TASKS for s in get_task(n).samples(limit=3)}


def by_prompt() -> dict[str, tuple[Any, Sample]]:
    with _LOCK:
        return _by_prompt()


def _call(name: str, args: dict[str, Any], i: int = 1) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call-{i}", "type": "tool_call"}])


def _policy(answer: Callable[[Any, Sample], AIMessage | str]) -> Callable[[list[BaseMessage], list[str]],
                                                                          AIMessage | str]:
    def policy(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
        prompt = next(str(m.content) for m in reversed(messages) if m.type == "human" and "Stop calling" not in
                      str(m.content))
        task, sample = by_prompt()[prompt]
        domain = [t for t in tools if t != FINAL_ANSWER]
        if domain and not any(isinstance(m, ToolMessage) for m in messages):
            return _call(domain[0], {}, 0)  # one domain call first (its error goes back to the model)
        return answer(task, sample)
    return policy


right = _policy(lambda task, s: _call(FINAL_ANSWER, gold_args(task, s)))
text_only = _policy(lambda task, s: "Working it out.\nFINAL ANSWER: " + render_gold(task, s))
invalid = _policy(lambda task, s: _call(FINAL_ANSWER, {"answer": 42, "unexpected": True}))
hedged = _policy(lambda task, s: _call(FINAL_ANSWER, {"time": f"{s.target['clock']} or 11:00 PM"}))
two_calls = _policy(lambda task, s: AIMessage("", tool_calls=[
    {"name": FINAL_ANSWER, "args": gold_args(task, s), "id": "call-1", "type": "tool_call"},
    {"name": FINAL_ANSWER, "args": {"time": "11:00 PM" if s.target["clock"] != "11:00 PM" else "1:00 AM"},
     "id": "call-2", "type": "tool_call"}]))


def render_gold(task: Any, s: Sample) -> str:
    from tasks.answer_kinds import answer_model, render
    return render(task, answer_model(task, s).model_validate(gold_args(task, s))).removeprefix("FINAL ANSWER: ")
