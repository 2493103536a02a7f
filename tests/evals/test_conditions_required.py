"""``tools-required``: the agent's first model call is bound with the provider's forcing ``tool_choice``, later calls
are not; same tool-set forms and errors as ``tools``; one note when the provider cannot force a call."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatResult

from agents.call_cache import CallCache
from agents.model_call import ModelCaller
from agents.providers import PROVIDERS
from agents.scripted import ScriptedChatModel
from agents.tool_agent import AgentLimits, ToolAgent
from evals.compare import main
from evals.conditions import (
    AnswerContext,
    ToolsCondition,
    UnknownConditionError,
    forced_call_error,
    get_condition,
    unforced_note,
)
from evals.endpoints import SpecEndpointFactory
from evals.records import RunSpec
from evals.store import RunStore
from tasks import get_task
from tests.replay import Replay, user_text
from tools.registry import UnknownToolsetError, get_tools, toolset_names

DISTANCE_ARGS = {"lat1": 0.0, "lon1": 0.0, "lat2": 0.0, "lon2": 1.0}


def tool_then_answer(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Calls ``distance_km`` once when tools are offered, then answers."""
    if "distance_km" in tools and not any(isinstance(m, ToolMessage) for m in messages):
        return AIMessage("", tool_calls=[{"name": "distance_km", "args": DISTANCE_ARGS, "id": "c1"}])
    return "FINAL ANSWER: 111.2 km"


class ChoiceRecorder(ScriptedChatModel):
    """A scripted model that records, per call, the ``tool_choice`` its binding was made with."""

    tool_choice: Any = None

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None,  # type: ignore[override]
                   **kwargs: Any) -> ChoiceRecorder:
        bound = ChoiceRecorder(script=self.script, tool_names=[t.name for t in tools], tool_choice=tool_choice)
        bound._state = self._state
        return bound

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        self._state.setdefault("choices", []).append(self.tool_choice)
        return super()._generate(messages, stop, run_manager, **kwargs)


def answer(condition: str, model: ChoiceRecorder, forced: str | None) -> list[Any]:
    task = get_task("gpsbench.distance")
    sample = task.samples(limit=1)[0]
    ctx = AnswerContext(model=model, forced_tool_choice=forced)
    result = asyncio.run(get_condition(condition).answer(sample, task, ctx))
    assert result.final_text == "FINAL ANSWER: 111.2 km"
    return list(model._state["choices"])


def test_only_the_first_call_is_forced() -> None:
    assert answer("tools-required", ChoiceRecorder(script=tool_then_answer), "required") == ["required", None]
    assert answer("tools-required[geodesy]", ChoiceRecorder(script=tool_then_answer), "any") == ["any", None]


def test_tools_is_never_forced_and_a_provider_that_cannot_force_runs_free() -> None:
    assert answer("tools", ChoiceRecorder(script=tool_then_answer), "required") == [None, None]
    assert answer("tools-required", ChoiceRecorder(script=tool_then_answer), None) == [None, None]


FORCING = sorted({v for name in PROVIDERS.names() if (v := PROVIDERS.get(name).forced_tool_choice) is not None})


@pytest.mark.parametrize("forced", FORCING)
def test_tools_required_with_two_steps_executes_the_forced_call_then_answers(forced: str) -> None:
    """``--max-steps 2``: the forced call's tool call runs, and the second (free) call answers from its result, for
    every provider's forcing value."""
    script = [AIMessage("", tool_calls=[{"name": "distance_km", "args": DISTANCE_ARGS, "id": "c1"}]),
              "FINAL ANSWER: 111.2 km"]
    model = ChoiceRecorder(script=script)
    agent = ToolAgent(model, get_tools(["geodesy"]), AgentLimits(max_steps=2), forced_tool_choice=forced)
    result = asyncio.run(agent.run(get_task("gpsbench.distance").samples(limit=1)[0].messages))
    assert result.stop_reason == "step_limit" and model._state["choices"] == [forced, None]
    [tool] = [e for e in result.trace if e.kind == "tool_call"]
    assert tool.status == "ok" and '"distance_km": 111.19' in (tool.result or "") and result.tool_calls == 1
    answered_from = [m for m in model.calls[1] if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in answered_from] == ["c1"] and "111.19" in str(answered_from[0].content)
    assert result.final_text == "FINAL ANSWER: 111.2 km"


def tools_condition(spec: str) -> ToolsCondition:
    cond = get_condition(spec)
    assert isinstance(cond, ToolsCondition)
    return cond


def test_tool_set_forms_resolve_like_tools() -> None:
    task = get_task("gpsbench.distance")
    required = tools_condition("tools-required")
    assert required.name == "tools-required" and required.toolsets_for(task) == tuple(task.toolsets)
    geodesy = tools_condition(" tools-required[geodesy] ")
    assert geodesy.name == "tools-required[geodesy]" and geodesy.toolsets_for(task) == ("geodesy",)
    everything = tools_condition("tools-required[all]")
    assert everything.name == "tools-required[all]" and everything.toolsets_for(task) == tuple(toolset_names())


@pytest.mark.parametrize(("spec", "message"), [
    ("tools-required[]", r"names no tool sets; e.g. tools-required\[geodesy\] or tools-required\[all\]"),
    ("tools-required[all,geodesy]", "'all' cannot be combined with other tool sets"),
    ("tools-requird", "unknown condition 'tools-requird'"),
])
def test_bad_forms_give_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(UnknownConditionError, match=message):
        get_condition(spec)


def test_an_unknown_tool_set_is_refused_before_any_call() -> None:
    with pytest.raises(UnknownToolsetError, match="no_such_set"):
        tools_condition("tools-required[no_such_set]").check(get_task("gpsbench.distance"))


def test_unforced_note_names_each_required_condition_once() -> None:
    conds = [get_condition(c) for c in ("intrinsic", "tools", "tools-required", "tools-required[geodesy]")]
    assert unforced_note("scripted/m:f", conds, None) == (
        "note: scripted/m:f cannot force a tool call; tools-required runs as tools, "
        "tools-required[geodesy] runs as tools[geodesy]")
    assert unforced_note("local/qwen", conds, "required") is None
    assert unforced_note("scripted/m:f", conds[:2], None) is None


def test_a_scripted_run_prints_the_note_once_and_stores_the_condition(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    model = f"scripted/{__name__}:tool_then_answer"
    argv = ["--model", model, "--tasks", "gpsbench.distance", "--limit", "2", "--no-cache", "--conditions",
            "intrinsic,tools-required", "--output", str(tmp_path / "run")]
    assert main(argv) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert err.count(f"note: {model} cannot force a tool call; tools-required runs as tools") == 1
    with RunStore(tmp_path / "run", create=False) as store:
        conditions = sorted(r.condition for r in store.results())
    assert conditions == ["intrinsic", "intrinsic", "tools-required", "tools-required"]


def test_a_forced_call_and_a_free_call_do_not_share_a_cache_entry(tmp_path: Path) -> None:
    messages = get_task("gpsbench.distance").samples(limit=1)[0].messages
    cache = CallCache(tmp_path / "calls.sqlite")

    def run(forced: str | None) -> list[bool]:
        caller = ModelCaller(cache=cache, identity={"model": "scripted/x"})
        agent = ToolAgent(ScriptedChatModel(script=tool_then_answer), get_tools(["geodesy"]), caller=caller,
                          forced_tool_choice=forced)
        result = asyncio.run(agent.run(messages))
        return [e.cache_hit for e in result.trace if e.kind == "model_call"]

    try:
        assert run(None) == [False, False]
        assert run("required") == [False, True]  # the forced first call is a new request; the second is not
        assert run("required") == [True, True]
    finally:
        cache.close()


@pytest.mark.parametrize(("model", "forced"), [("openai-compatible/m", "required"), (f"scripted/{__name__}:tool_then_answer", None)])
def test_each_epochs_endpoint_carries_its_providers_forcing_value(model: str, forced: str | None) -> None:
    spec = RunSpec(model=model, tasks=["gpsbench.distance"], conditions=["tools-required"])
    assert SpecEndpointFactory(spec, "http://127.0.0.1:9/v1")(0).forced_tool_choice == forced


@pytest.mark.parametrize("steps, code", [("1", 2), ("2", 3)])
def test_a_forced_call_with_one_step_is_refused_before_any_call(steps: str, code: int, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """--max-steps 1 would leave the forced call no answer: a usage error (2) before any call. With 2 steps the
    run goes on to the (dead) endpoint: its samples end in error (3)."""
    argv = ["--model", "openai-compatible/x", "--base-url", "http://127.0.0.1:9/v1", "--tasks", "gpsbench.distance",
            "--limit", "1", "--no-cache", "--conditions", "intrinsic,tools-required", "--max-steps", steps,
            "--max-attempts", "1", "--output", str(tmp_path / "run")]
    assert main(argv) == code
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    forced = ("error: tools-required forces a tool call on the first model call, so --max-steps 1 leaves no call to "
              "answer with; use --max-steps 2 or more")
    assert errors == ([forced] if steps == "1" else [])
    if steps == "1":  # refused before its directory is written: the corrected command may use the same --output
        assert not (tmp_path / "run").exists()
        argv[argv.index("--max-steps") + 1] = "2"
        assert main(argv) == 3
    with RunStore(tmp_path / "run", create=False) as store:
        assert len(list(store.results())) == 2


def test_a_forced_call_error_only_where_the_provider_forces_and_one_step_is_allowed() -> None:
    conds = [get_condition("intrinsic"), get_condition("tools-required[geodesy]")]
    assert forced_call_error(conds, "required", 1) is not None and "tools-required[geodesy]" in str(
        forced_call_error(conds, "required", 1))
    assert forced_call_error(conds, "required", 2) is None
    assert forced_call_error(conds, None, 1) is None  # runs as tools: its one call may answer
    assert forced_call_error([get_condition("tools")], "required", 1) is None


POINTS = re.compile(r"\((-?\d+\.\d+), (-?\d+\.\d+)\)")


def forced_then_answer(path: str, request: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-compatible server: asked with tool_choice required, it calls distance_km on the prompt's two
    points; given the tool's result, it answers with it."""
    done = [m for m in request["messages"] if m["role"] == "tool"]
    if done:
        message = {"role": "assistant", "content": f"FINAL ANSWER: {json.loads(done[-1]['content'])['distance_km']} km"}
    else:
        assert request.get("tool_choice") == "required"
        (a1, o1), (a2, o2) = POINTS.findall(user_text(request))[:2]
        args = {"lat1": float(a1), "lon1": float(o1), "lat2": float(a2), "lon2": float(o2)}
        message = {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "distance_km", "arguments": json.dumps(args)}}]}
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [
        {"index": 0, "message": message, "finish_reason": "stop" if done else "tool_calls"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}}


def test_tools_required_with_two_steps_runs_the_forced_call_through_a_stand_in(tmp_path: Path) -> None:
    """docs/conditions.md's tools-required --max-steps 2 through the real openai client: the forced call's tool call is
    executed, its result reaches the second request, and the answer from it is credited."""
    with Replay(forced_then_answer) as server:
        argv = ["--model", "openai-compatible/m", "--base-url", server.url, "--tasks", "gpsbench.distance", "--limit",
                "1", "--no-cache", "--conditions", "tools-required", "--max-steps", "2", "--output", str(tmp_path / "run")]
        assert main(argv) == 0
    first, second = (body for _, body in server.requests)
    assert first["tool_choice"] == "required" and "tool_choice" not in second
    [tool_message] = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool_message["tool_call_id"] == "call_1" and '"distance_km"' in tool_message["content"]
    with RunStore(tmp_path / "run", create=False) as store:
        [result] = list(store.results())
    assert result.tool_calls == 1 and result.model_calls == 2 and result.score is not None and result.score.correct
    assert [(e.kind, e.status) for e in result.trace] == [("model_call", None), ("tool_call", "ok"), ("model_call", None)]
