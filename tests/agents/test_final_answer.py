"""The final-answer tool in the agents (agents/final_answer.py): the tools loop ends at a final_answer call, its
other calls are not executed; after a limit the last call offers only final_answer; the arguments are read from
the trace, and a reply without the call, or with arguments that are not JSON, has none."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel

from agents.final_answer import FINAL_ANSWER, FINALIZE_STRUCTURED, final_answer_tool, final_call
from agents.intrinsic import answer_intrinsic
from agents.scripted import ScriptedChatModel
from agents.tool_agent import AgentLimits, ToolAgent
from agents.trace import ModelCallEvent, ToolCallEvent
from tasks.records import Message
from tools import get_tools

PROMPT = [Message(role="system", content="Answer."), Message(role="user", content="Distance from (0,0) to (1,1)?")]
POINTS = {"lat1": 0.0, "lon1": 0.0, "lat2": 1.0, "lon2": 1.0}


class Km(BaseModel):
    value: float


TOOL = final_answer_tool(Km)


def calls(*pairs: tuple[str, dict]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(pairs)])


def test_the_loop_ends_at_final_answer_and_skips_its_other_calls() -> None:
    model = ScriptedChatModel(script=[calls(("distance_km", POINTS)),
                                      calls(("final_answer", {"value": 157.2}), ("distance_km", {**POINTS, "lat2": 2.0}))])
    res = asyncio.run(ToolAgent(model, get_tools(["geodesy"]), final_tool=TOOL).run(PROMPT))
    assert res.stop_reason == "answered" and res.steps == 2 and res.tool_calls == 1
    assert final_call(res.trace) == ({"value": 157.2}, "")
    tools = [e for e in res.trace if isinstance(e, ToolCallEvent)]
    assert [(e.tool, e.status) for e in tools] == [("distance_km", "ok"), ("distance_km", "skipped")]
    first = next(e for e in res.trace if isinstance(e, ModelCallEvent))
    assert first.tools_offered is not None and first.tools_offered[-1] == FINAL_ANSWER  # beside the domain tools
    assert "distance_km" in first.tools_offered


def test_after_a_limit_the_last_call_offers_only_final_answer() -> None:
    def policy(messages: list[BaseMessage], tools: list[str]) -> AIMessage:
        if tools == [FINAL_ANSWER]:
            assert messages[-1].content == FINALIZE_STRUCTURED
            return calls((FINAL_ANSWER, {"value": 157.2}))
        return calls(("distance_km", {**POINTS, "lat2": float(len(messages))}))

    agent = ToolAgent(ScriptedChatModel(script=policy), get_tools(["geodesy"]), AgentLimits(max_steps=2),
                      final_tool=TOOL)
    res = asyncio.run(agent.run(PROMPT))
    last = [e for e in res.trace if isinstance(e, ModelCallEvent)][-1]
    assert last.tools_offered == [FINAL_ANSWER] and final_call(res.trace)[0] == {"value": 157.2}


def test_intrinsic_offers_only_final_answer() -> None:
    model = ScriptedChatModel(script=[calls((FINAL_ANSWER, {"value": 157.0}))])
    res = asyncio.run(answer_intrinsic(model, PROMPT, final_tool=TOOL))
    [event] = res.trace
    assert isinstance(event, ModelCallEvent) and event.tools_offered == [FINAL_ANSWER]
    assert final_call(res.trace) == ({"value": 157.0}, "")


def test_a_reply_without_the_call_or_with_bad_json_has_no_arguments() -> None:
    text = asyncio.run(answer_intrinsic(ScriptedChatModel(script=["FINAL ANSWER: 157 km"]), PROMPT, final_tool=TOOL))
    assert final_call(text.trace) == (None, "the reply never called final_answer")
    bad = AIMessage("", invalid_tool_calls=[{"name": FINAL_ANSWER, "args": "{value: 157", "id": "c0",
                                             "error": "bad json", "type": "invalid_tool_call"}])
    res = asyncio.run(answer_intrinsic(ScriptedChatModel(script=[bad]), PROMPT, final_tool=TOOL))
    args, why = final_call(res.trace)
    assert args is None and why.startswith("final_answer arguments are not valid JSON: {value: 157")


def test_several_final_answer_calls_with_different_answers_are_a_list_and_the_same_answer_twice_is_one() -> None:
    """Two different committed answers in one reply are a hedge (read_structured marks it); the same answer sent
    twice, its working aside, is one answer."""
    two = ScriptedChatModel(script=[calls((FINAL_ANSWER, {"value": 157.0}), (FINAL_ANSWER, {"value": 203.0}))])
    res = asyncio.run(answer_intrinsic(two, PROMPT, final_tool=TOOL))
    assert final_call(res.trace) == ([{"value": 157.0}, {"value": 203.0}], "")
    same = ScriptedChatModel(script=[calls((FINAL_ANSWER, {"working": "a", "value": 157.0}),
                                           (FINAL_ANSWER, {"working": "b", "value": 157.0}))])
    res = asyncio.run(answer_intrinsic(same, PROMPT, final_tool=TOOL))
    assert final_call(res.trace) == ({"working": "a", "value": 157.0}, "")


@pytest.mark.parametrize(("reply", "expected"), [
    ('{"option": "4"}', {"option": "4"}),  # the 1.5B embedded model's tools-condition reply, verbatim
    ('```json\n{"value": 157.2}\n```', {"value": 157.2}),
    ('  {"working": "haversine", "value": 157.2}\n', {"working": "haversine", "value": 157.2}),
])
def test_a_reply_that_is_only_a_json_object_gives_it_as_the_arguments(reply: str, expected: dict) -> None:
    res = asyncio.run(answer_intrinsic(ScriptedChatModel(script=[reply]), PROMPT, final_tool=TOOL))
    assert final_call(res.trace) == (expected, "")


@pytest.mark.parametrize("reply", [
    'The answer is {"value": 157.2}',  # prose around it: the JSON is not the whole reply
    '{"value": 157.2}\nor maybe 203 km',
    '[{"value": 157.2}]',  # a list, not one object
    '{"value": 157.2',  # not JSON
    "FINAL ANSWER: 157 km",
])
def test_a_reply_that_is_more_or_less_than_one_json_object_gives_none(reply: str) -> None:
    res = asyncio.run(answer_intrinsic(ScriptedChatModel(script=[reply]), PROMPT, final_tool=TOOL))
    assert final_call(res.trace) == (None, "the reply never called final_answer")


def test_a_json_reply_is_the_answer_only_if_it_validates_against_the_schema() -> None:
    from tasks import get_task
    from tasks.answer_kinds import read_structured

    task = get_task("stbench.direction.completion")
    s = task.samples(limit=1)[0]
    gold = str(s.target["option"])
    args, why = final_call(asyncio.run(answer_intrinsic(
        ScriptedChatModel(script=[f'{{"option": "{gold}"}}']), PROMPT, final_tool=TOOL)).trace)
    assert task.score(read_structured(task, s, args, why), s).correct
    echo = '{"name": "initial_bearing", "arguments": {"lat1": 1, "lon1": 2, "lat2": 3, "lon2": 4}}'
    args, why = final_call(asyncio.run(answer_intrinsic(ScriptedChatModel(script=[echo]), PROMPT,
                                                        final_tool=TOOL)).trace)
    parsed = read_structured(task, s, args, why)
    assert parsed.status == "unlocated" and "do not validate" in (parsed.reason or "")
