"""The tool agent and the intrinsic answerer, driven by a scripted chat model."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from agents.intrinsic import answer_intrinsic
from agents.scripted import ScriptedChatModel
from agents.tool_agent import FINALIZE_PROMPT, AgentLimits, ToolAgent
from agents.trace import ModelCallEvent
from tasks.records import Message
from tools import get_tools

PROMPT = [Message(role="system", content="Answer."), Message(role="user", content="Distance from (0,0) to (1,1)?")]


def call(name: str, cid: str, **args: float) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": cid}])


def run(agent: ToolAgent):
    return asyncio.run(agent.run(PROMPT))


def test_intrinsic_is_one_call_with_usage() -> None:
    model = ScriptedChatModel(script=["It is far. FINAL ANSWER: 157 km"])
    res = asyncio.run(answer_intrinsic(model, PROMPT))
    assert res.final_text.endswith("157 km")
    [event] = res.trace
    assert isinstance(event, ModelCallEvent) and event.messages_in is not None
    assert res.output_tokens > 0 and event.messages_in[1]["content"].startswith("Distance")


def test_tool_call_result_reaches_model_and_trace() -> None:
    model = ScriptedChatModel(script=[call("distance_km", "c1", lat1=0, lon1=0, lat2=1, lon2=1), "FINAL ANSWER: 157.2 km"])
    res = run(ToolAgent(model, get_tools(["geodesy"])))
    assert res.stop_reason == "answered" and res.final_text == "FINAL ANSWER: 157.2 km"
    kinds = [(e.kind, e.status) for e in res.trace]
    assert kinds == [("model_call", None), ("tool_call", "ok"), ("model_call", None)]
    tool_event = res.trace[1]
    assert tool_event.parent_id == res.trace[0].id and tool_event.tool_call_id == "c1"
    assert '"distance_km": 157.24' in tool_event.result
    # the second model call saw the tool result as a ToolMessage
    last_in = model.calls[-1]
    assert isinstance(last_in[-1], ToolMessage) and "157.24" in last_in[-1].content
    assert res.tool_calls == 1 and res.steps == 2


@pytest.mark.parametrize("args", [{"lat1": 123, "lon1": 0, "lat2": 1, "lon2": 1}, {"lat1": 0}])
def test_bad_arguments_come_back_as_error_message(args: dict) -> None:
    model = ScriptedChatModel(script=[AIMessage("", tool_calls=[{"name": "distance_km", "args": args, "id": "x"}]),
                                      "FINAL ANSWER: unknown"])
    res = run(ToolAgent(model, get_tools(["geodesy"])))
    assert res.stop_reason == "answered"
    err = res.trace[1]
    assert err.status == "error" and ("lat1" in err.error if "lon1" in args else "lon1: Field required" in err.error)
    sent = model.calls[-1][-1]
    assert isinstance(sent, ToolMessage) and sent.status == "error"


def test_unknown_tool_is_an_error_not_a_crash() -> None:
    model = ScriptedChatModel(script=[call("teleport", "t1", x=1), "FINAL ANSWER: 1 km"])
    res = run(ToolAgent(model, get_tools(["geodesy"])))
    assert res.trace[1].status == "error" and "teleport" in res.trace[1].error
    assert res.final_text == "FINAL ANSWER: 1 km"


def test_repeated_identical_call_is_not_executed_and_loop_stops() -> None:
    same = dict(lat1=0, lon1=0, lat2=1, lon2=1)
    model = ScriptedChatModel(script=[call("distance_km", "a", **same), call("distance_km", "b", **same),
                                      "FINAL ANSWER: 157 km"])
    res = run(ToolAgent(model, get_tools(["geodesy"])))
    statuses = [e.status for e in res.trace if e.kind == "tool_call"]
    assert statuses == ["ok", "repeated"]
    assert res.stop_reason == "repeated_call" and res.tool_calls == 1
    assert model.calls[-1][-1].content == FINALIZE_PROMPT
    assert res.final_text == "FINAL ANSWER: 157 km"


def test_step_limit_forces_an_answer() -> None:
    def script(messages, tools):
        n = sum(1 for m in messages if isinstance(m, AIMessage))
        if tools and messages[-1].content != FINALIZE_PROMPT:
            return call("distance_km", f"c{n}", lat1=0, lon1=0, lat2=float(n % 80), lon2=1)
        return "FINAL ANSWER: 5 km"

    model = ScriptedChatModel(script=script)
    res = run(ToolAgent(model, get_tools(["geodesy"]), AgentLimits(max_steps=3, max_tool_calls=50)))
    assert res.stop_reason == "step_limit"
    assert res.steps == 3 and len(model.calls) == 3  # 2 agent steps + the forced final call: 3 model calls in all
    # both agent steps' calls run (the second one's results reach the final call); only the last call answers
    assert [e.status for e in res.trace if e.kind == "tool_call"] == ["ok", "ok"]
    final_in = model.calls[-1]
    assert [m.tool_call_id for m in final_in if isinstance(m, ToolMessage)] == ["c0", "c1"]
    assert final_in[-1].content == FINALIZE_PROMPT and res.tool_calls == 2
    assert res.final_text == "FINAL ANSWER: 5 km"


def test_tool_call_cap() -> None:
    many = AIMessage("", tool_calls=[{"name": "distance_km", "args": {"lat1": 0, "lon1": 0, "lat2": i, "lon2": 1},
                                      "id": f"k{i}"} for i in range(5)])
    model = ScriptedChatModel(script=[many, "FINAL ANSWER: 1 km"])
    res = run(ToolAgent(model, get_tools(["geodesy"]), AgentLimits(max_steps=5, max_tool_calls=3)))
    assert res.stop_reason == "tool_call_limit" and res.tool_calls == 0
    assert all(e.status == "skipped" for e in res.trace if e.kind == "tool_call")


@pytest.mark.parametrize("max_steps", [1, 2])
def test_every_tool_call_the_model_makes_is_traced_even_when_not_executed(max_steps: int) -> None:
    """A call made on the last allowed step (max_steps=1) or in the final-answer call (max_steps=2: the model
    ignores the request to answer) is not executed but is in the trace as ``skipped`` (seen on the embedded model);
    with max_steps=2 the first call's call is executed."""
    script = [call("distance_km", f"c{i}", lat1=0, lon1=i, lat2=1, lon2=1) for i in range(max_steps)]
    model = ScriptedChatModel(script=script)
    res = run(ToolAgent(model, get_tools(["geodesy"]), AgentLimits(max_steps=max_steps)))
    made = [c["id"] for e in res.trace if e.kind == "model_call" for c in (e.message_out or {}).get("tool_calls", [])]
    traced = [(e.tool_call_id, e.status) for e in res.trace if e.kind == "tool_call"]
    assert made == [f"c{i}" for i in range(max_steps)]
    assert [cid for cid, _ in traced] == made
    assert [status for _, status in traced] == ["ok"] * (max_steps - 1) + ["skipped"]
    assert res.tool_calls == max_steps - 1
    assert sum(e.kind == "model_call" for e in res.trace) == max_steps


def test_a_tool_error_names_the_reason_without_echoing_long_arguments() -> None:
    """A failing call with a long argument gets a short reason back (an echo of the arguments once overflowed
    the embedded model's context); validation errors name the field."""
    path = [[104.2 + i / 1e4, 33.2] for i in range(400)]
    model = ScriptedChatModel(script=[AIMessage("", tool_calls=[{"name": "distance_km", "args": {"lat1": path},
                                                                  "id": "x"}]), "FINAL ANSWER: unknown"])
    res = run(ToolAgent(model, get_tools(["geodesy"])))
    err = res.trace[1].error
    assert res.trace[1].status == "error" and "lat1" in err and "104.2" not in err and len(err) < 700


def test_repeating_a_failed_call_is_not_executed_again() -> None:
    """A call that failed and is made again with the same arguments gets its error back and stops the loop (seen
    on the embedded model: convert_time with a malformed time four times, to the step limit)."""
    bad = dict(lat1=123.0, lon1=0.0, lat2=1.0, lon2=1.0)
    model = ScriptedChatModel(script=[call("distance_km", "a", **bad), call("distance_km", "b", **bad),
                                      "FINAL ANSWER: unknown"])
    res = run(ToolAgent(model, get_tools(["geodesy"])))
    first, again = [e for e in res.trace if e.kind == "tool_call"]
    assert (first.status, again.status) == ("error", "repeated")
    assert again.result is None and again.error == first.error
    assert res.stop_reason == "repeated_call" and res.tool_calls == 1 and len(model.calls) == 3
    told = model.calls[-1][-2]
    assert isinstance(told, ToolMessage) and "it failed" in told.content and "lat1" in told.content


def _answering_repeat(text: str) -> AIMessage:
    return AIMessage(text, tool_calls=[{"name": "distance_km", "args": dict(lat1=0, lon1=0, lat2=1, lon2=1),
                                        "id": "b"}])


def test_a_repeat_that_commits_to_an_answer_ends_the_sample() -> None:
    """Seen on the embedded model: after the result, the reply repeats the call and writes its answer; asking
    again cost a whole prompt and once got an empty reply. With ``commits_answer`` that reply is the answer."""
    same = dict(lat1=0, lon1=0, lat2=1, lon2=1)
    model = ScriptedChatModel(script=[call("distance_km", "a", **same),
                                      _answering_repeat("FINAL ANSWER: 157.2 km"), "FINAL ANSWER: 1 km"])
    res = run(ToolAgent(model, get_tools(["geodesy"]), commits_answer=lambda t: "FINAL ANSWER: 1" in t))
    assert len(model.calls) == 2 and res.steps == 2
    assert res.stop_reason == "answered" and res.final_text == "FINAL ANSWER: 157.2 km"
    repeat = res.trace[-1]
    assert repeat.kind == "tool_call" and repeat.status == "repeated" and repeat.parent_id == res.trace[-2].id
    assert '"distance_km": 157.24' in repeat.result and res.tool_calls == 1


@pytest.mark.parametrize("commits", [None, lambda t: False])
def test_a_repeat_without_a_committed_answer_gets_the_last_call(commits) -> None:
    same = dict(lat1=0, lon1=0, lat2=1, lon2=1)
    model = ScriptedChatModel(script=[call("distance_km", "a", **same),
                                      _answering_repeat("FINAL ANSWER: 157.2 km"), "FINAL ANSWER: 157 km"])
    res = run(ToolAgent(model, get_tools(["geodesy"]), commits_answer=commits))
    assert len(model.calls) == 3 and res.stop_reason == "repeated_call" and res.final_text == "FINAL ANSWER: 157 km"


def test_a_new_call_beside_an_answer_is_still_executed() -> None:
    """An answer written next to a call not made before is a guess made before the result: the call runs and
    the model is asked again."""
    model = ScriptedChatModel(script=[AIMessage("FINAL ANSWER: 99 km", tool_calls=[
        {"name": "distance_km", "args": dict(lat1=0, lon1=0, lat2=1, lon2=1), "id": "a"}]), "FINAL ANSWER: 157 km"])
    res = run(ToolAgent(model, get_tools(["geodesy"]), commits_answer=lambda t: True))
    assert len(model.calls) == 2 and res.trace[1].status == "ok" and res.final_text == "FINAL ANSWER: 157 km"
