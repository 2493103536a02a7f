"""Our retry wrapper around model calls: which failures are retried, backoff and Retry-After, recorded attempts;
agent failures keep their partial trace; the per-sample token budget."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage

from agents.intrinsic import answer_intrinsic
from agents.model_call import AgentError, ModelCaller, ModelCallError, RetryPolicy, classify, retry_after
from agents.scripted import ScriptedChatModel
from agents.tool_agent import AgentLimits, ToolAgent
from agents.trace import ModelCallEvent
from tasks.records import Message
from tools import get_tools

REQUEST = httpx.Request("POST", "http://test/v1/chat/completions")


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers or {}, request=REQUEST)
    cls = {429: openai.RateLimitError, 500: openai.InternalServerError, 400: openai.BadRequestError}.get(
        status, openai.APIStatusError)
    return cls(f"status {status}", response=response, body=None)


def test_classify() -> None:
    rate = classify(status_error(429, {"retry-after": "7"}))
    assert rate.retryable and rate.label == "rate_limit" and rate.retry_after_s == 7.0
    assert classify(status_error(500)).retryable and classify(status_error(503)).label == "server_error_503"
    assert not classify(status_error(400)).retryable and classify(status_error(400)).label == "http_400"
    assert not classify(status_error(401)).retryable
    assert classify(openai.APITimeoutError(request=REQUEST)).label == "timeout"
    assert classify(openai.APIConnectionError(request=REQUEST)).label == "connection"
    assert classify(TimeoutError()).label == "timeout"
    assert classify(json.JSONDecodeError("x", "{", 1)).label == "bad_response"
    assert not classify(RuntimeError("model crashed")).retryable


def test_retry_after_forms() -> None:
    assert retry_after(status_error(429, {"retry-after-ms": "250"})) == 0.25
    assert retry_after(status_error(429, {"retry-after": "3"})) == 3.0
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    dated = retry_after(status_error(429, {"retry-after": when}))
    assert dated is not None and 25 < dated <= 30
    assert retry_after(status_error(429)) is None
    assert retry_after(RuntimeError()) is None


def flaky(failures: list[BaseException], answer: str = "FINAL ANSWER: 1 km") -> ScriptedChatModel:
    pending = list(failures)

    def script(messages, tools):
        if pending:
            raise pending.pop(0)
        return answer

    return ScriptedChatModel(script=script)


def test_retries_with_backoff_and_retry_after_are_recorded() -> None:
    delays: list[float] = []

    async def sleep(s: float) -> None:
        delays.append(s)

    model = flaky([status_error(429, {"retry-after": "2"}), status_error(500), openai.APITimeoutError(request=REQUEST)])
    caller = ModelCaller(RetryPolicy(max_attempts=5, base_delay_s=1.0), sleep=sleep, rng=random.Random(0))
    res = asyncio.run(answer_intrinsic(model, [Message(role="user", content="q")], caller))
    event = res.trace[0]
    assert isinstance(event, ModelCallEvent) and res.final_text == "FINAL ANSWER: 1 km" and event.retries == 3
    assert len(model.calls) == 4
    assert [e.split(":")[0] for e in event.retry_errors] == ["rate_limit", "server_error_500", "timeout"]
    assert 2.0 <= delays[0] <= 2.2  # Retry-After honoured, ≤ 10 % jitter on top
    assert 0 <= delays[1] <= 2.0 and 0 <= delays[2] <= 4.0  # full jitter under base·2^(n-1)


def test_retry_after_is_capped_and_backoff_is_bounded() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0, max_retry_after_s=10.0)
    rng = random.Random(1)
    assert all(0 <= policy.backoff(n, rng) <= min(5.0, 2 ** (n - 1)) for n in range(1, 12) for _ in range(50))
    delays: list[float] = []

    async def sleep(s: float) -> None:
        delays.append(s)

    caller = ModelCaller(policy, sleep=sleep)
    asyncio.run(caller.call(flaky([status_error(429, {"retry-after": "3600"})]), [HumanMessage("q")]))
    assert 10.0 <= delays[0] <= 11.0


def test_gives_up_after_max_attempts_and_does_not_retry_client_errors() -> None:
    async def sleep(s: float) -> None:
        pass

    caller = ModelCaller(RetryPolicy(max_attempts=3), sleep=sleep)
    model = flaky([status_error(500)] * 5)
    with pytest.raises(AgentError) as info:
        asyncio.run(answer_intrinsic(model, [Message(role="user", content="q")], caller))
    assert len(model.calls) == 3 and "after 3 attempts" in str(info.value)
    [event] = info.value.trace
    assert isinstance(event, ModelCallEvent) and event.status == "error" and event.retries == 2
    assert event.messages_in is not None and event.messages_in[0]["content"] == "q"
    bad = flaky([status_error(400)])
    with pytest.raises(ModelCallError) as err:
        asyncio.run(caller.call(bad, [HumanMessage("q")]))
    assert len(bad.calls) == 1 and err.value.event.retries == 0 and "http_400" in str(err.value)


def test_tool_agent_failure_keeps_partial_trace_and_records_retries() -> None:
    async def sleep(s: float) -> None:
        pass

    call = AIMessage("", tool_calls=[{"name": "distance_km", "id": "c1",
                                      "args": {"lat1": 0, "lon1": 0, "lat2": 1, "lon2": 1}}])
    state = {"n": 0}

    def script(messages, tools):
        state["n"] += 1
        if state["n"] == 1:
            return call
        raise status_error(500)

    agent = ToolAgent(ScriptedChatModel(script=script), get_tools(["geodesy"]),
                      caller=ModelCaller(RetryPolicy(max_attempts=2), sleep=sleep))
    with pytest.raises(AgentError) as info:
        asyncio.run(agent.run([Message(role="user", content="q")]))
    kinds = [(e.kind, e.status) for e in info.value.trace]
    assert kinds == [("model_call", None), ("tool_call", "ok"), ("model_call", "error")]
    last = info.value.trace[-1]
    assert isinstance(last, ModelCallEvent) and last.retries == 1 and last.tools_offered


def test_token_budget_stops_the_loop_without_another_call() -> None:
    calls = [AIMessage("", tool_calls=[{"name": "distance_km", "id": f"c{i}",
                                        "args": {"lat1": i, "lon1": 0, "lat2": 1, "lon2": 1}}]) for i in range(5)]
    model = ScriptedChatModel(script=calls)
    agent = ToolAgent(model, get_tools(["geodesy"]), AgentLimits(max_steps=10, max_tokens=60))
    res = asyncio.run(agent.run([Message(role="user", content="word " * 25)]))
    used = [e.input_tokens + e.output_tokens for e in res.trace if e.kind == "model_call"]
    assert res.stop_reason == "token_limit" and len(model.calls) == res.steps == len(used) < 5
    assert sum(used[:-1]) < 60 <= sum(used)  # stopped by the call that crossed the budget, no further call
    assert res.trace[-1].kind == "model_call"  # its tool calls were not executed


def _gemini_error(status: int) -> Exception:
    """What langchain-google-genai raises for a Gemini error: its own class, raised from google-genai's."""
    from google.genai import errors
    from langchain_google_genai.chat_models import _handle_client_error, _handle_server_error

    body = json.loads((Path(__file__).with_name("recorded") / "gemini_429_resource_exhausted.json").read_text())["body"]
    body["error"]["code"] = status
    sdk_cls = errors.ClientError if status < 500 else errors.ServerError
    try:
        try:
            raise sdk_cls(status, body, None)
        except errors.ClientError as sdk:
            _handle_client_error(sdk, {"model": "gemini-2.5-pro"})
        except errors.ServerError as sdk:
            _handle_server_error(sdk)
    except Exception as wrapped:  # noqa: BLE001 - the LangChain error is what the caller sees
        return wrapped
    raise AssertionError("langchain-google-genai raised nothing")


def test_gemini_errors_are_classified_by_status_with_the_bodys_retry_delay() -> None:
    rate = classify(_gemini_error(429))
    assert (rate.retryable, rate.label, rate.retry_after_s) == (True, "rate_limit", 51.0)
    busy = classify(_gemini_error(503))
    assert (busy.retryable, busy.label, busy.retry_after_s) == (True, "server_error_503", 51.0)
    bad = classify(_gemini_error(400))
    assert (bad.retryable, bad.label) == (False, "http_400")


def test_a_class_name_does_not_decide() -> None:
    class RateLimitError(Exception):  # named like a rate limit, but the server said 400
        status_code = 400

    assert not classify(RateLimitError("bad request")).retryable
    assert classify(RateLimitError("bad request")).label == "http_400"
