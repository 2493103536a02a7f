"""The note-only condition: the tools condition's system note, no tools, one call."""

from __future__ import annotations

import asyncio

from agents.scripted import ScriptedChatModel
from evals.conditions import TOOLS_NOTE, AnswerContext, condition_names, get_condition
from tasks import get_task

TASK = "gpsbench.distance"


def _first_call(condition: str) -> tuple[list[list[str]], list[str]]:
    """The tools offered in each model call, and the messages of the first call."""
    task = get_task(TASK)
    sample = task.samples(limit=1)[0]
    offered: list[list[str]] = []

    def answer(messages: object, tools: list[str]) -> str:
        offered.append(list(tools))
        return "FINAL ANSWER: 5 km"

    model = ScriptedChatModel(script=answer)
    asyncio.run(get_condition(condition).answer(sample, task, AnswerContext(model=model)))
    return offered, [str(m.content) for m in model.calls[0]]


def test_note_only_sends_the_tools_note_without_tools_in_one_call() -> None:
    task_system = str(get_task(TASK).samples(limit=1)[0].messages[0].content)
    offered, sent = _first_call("note-only")
    assert offered == [[]]  # one call, no tools
    assert sent[0] == f"{task_system}\n\n{TOOLS_NOTE}"
    assert TOOLS_NOTE.startswith("You can call tools.")


def test_note_only_differs_from_intrinsic_by_the_note_and_from_tools_by_the_tools_alone() -> None:
    _, intrinsic = _first_call("intrinsic")
    _, note_only = _first_call("note-only")
    offered, tools = _first_call("tools")
    assert note_only == tools  # the same messages ...
    assert "distance_km" in offered[0]  # ... but only the tools condition offers tools
    assert note_only[1:] == intrinsic[1:] and note_only[0] == intrinsic[0] + "\n\n" + TOOLS_NOTE


def test_note_only_is_registered() -> None:
    assert "note-only" in condition_names()
    assert get_condition("note-only").name == "note-only"
