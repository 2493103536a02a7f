"""Limits that hold: --call-timeout bounds an attempt's wall clock, replies are capped, non-object tool arguments
go back to the model as a tool error, --max-steps N means N model calls."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agents.model_call import ModelCaller, ModelCallError, RetryPolicy
from agents.model_spec import create_chat_model
from agents.models import GenerationSettings
from agents.scripted import ScriptedChatModel
from agents.tool_agent import AgentLimits, ToolAgent
from tasks.records import Message
from tests.loopback import LoopbackServer, QuietHandler
from tools import get_tools

PROMPT = [Message(role="user", content="Distance from (0,0) to (1,1)?")]


def _completion(content: str = "", tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}


class _Server(LoopbackServer):
    """A loopback server whose POST answer is chosen by ``mode``: ``drip`` (a valid reply, 1 byte/s) or ``big``
    (a valid reply padded to ``size`` bytes)."""

    def __init__(self, mode: str, size: int = 0) -> None:
        self.posts = 0
        outer = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.posts += 1
                body = json.dumps(_completion("FINAL ANSWER: 1 km" + " " * size)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    if mode == "drip":
                        for b in body:
                            self.wfile.write(bytes([b]))
                            self.wfile.flush()
                            time.sleep(1.0)
                    else:
                        self.wfile.write(body)
                except OSError:
                    pass

        super().__init__(Handler)


@pytest.fixture
def drip() -> Iterator[_Server]:
    with _Server("drip") as s:
        yield s


def test_a_server_dripping_one_byte_a_second_is_cut_at_the_call_timeout(drip: _Server) -> None:
    # the HTTP read timeout (30 s here) never fires: a byte arrives every second
    model = create_chat_model("openai-compatible/m", base_url=drip.url, max_retries=0,
                              settings=GenerationSettings(timeout_s=30.0))
    caller = ModelCaller(RetryPolicy(max_attempts=2, base_delay_s=0, attempt_timeout_s=1.5))
    t0 = time.monotonic()
    with pytest.raises(ModelCallError) as info:
        asyncio.run(caller.call(model, [HumanMessage("hi")]))
    took = time.monotonic() - t0
    assert took < 25.0  # two attempts of 1.5 s (slack for a busy machine), not 30 s or the ~300 s of the drip
    event = info.value.event
    assert event.retries == 1 and event.error is not None and "call-timeout 1.5 s" in event.error
    assert all(e.startswith("timeout") for e in event.retry_errors)
    assert drip.posts == 2


def test_a_reply_over_the_byte_cap_fails_at_once_and_says_so() -> None:
    with _Server("big", size=200_000) as server:
        model = create_chat_model("openai-compatible/m", base_url=server.url, max_retries=0, max_reply_bytes=50_000)
        caller = ModelCaller(RetryPolicy(max_attempts=3, base_delay_s=0))
        with pytest.raises(ModelCallError) as info:
            asyncio.run(caller.call(model, [HumanMessage("hi")]))
        assert server.posts == 1  # not retried: the same request would get the same reply
    event = info.value.event
    assert event.retries == 0 and event.error is not None
    assert event.error.startswith("reply_too_large") and "exceeded 50000 bytes" in event.error and "cut off" in event.error
    small = create_chat_model("openai-compatible/m", base_url="http://127.0.0.1:9/v1", max_retries=0,
                              max_reply_bytes=50_000,
                              async_transport=httpx.MockTransport(lambda r: httpx.Response(200, json=_completion("ok"))))
    assert asyncio.run(ModelCaller().call(small, [HumanMessage("hi")])).reply.content == "ok"  # under the cap


def test_tool_call_arguments_that_are_not_an_object_go_back_as_a_tool_error() -> None:
    replies = [
        _completion(tool_calls=[{"id": "c1", "type": "function",
                                 "function": {"name": "distance_km", "arguments": "[0, 0, 1, 1]"}}]),
        _completion("FINAL ANSWER: 157 km"),
    ]
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=replies[len(bodies) - 1])

    model = create_chat_model("openai-compatible/m", base_url="http://127.0.0.1:9/v1", max_retries=0,
                              async_transport=httpx.MockTransport(handler))
    res = asyncio.run(ToolAgent(model, get_tools(["geodesy"])).run(PROMPT))
    assert res.final_text == "FINAL ANSWER: 157 km" and res.stop_reason == "answered"
    tool_events = [e for e in res.trace if e.kind == "tool_call"]
    assert [(e.tool, e.status) for e in tool_events] == [("distance_km", "error")]
    assert tool_events[0].error is not None and "JSON list, not an object" in tool_events[0].error
    sent_back = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert len(sent_back) == 1 and "must be one JSON object" in sent_back[0]["content"]


@pytest.mark.parametrize("max_steps", [1, 2, 3, 5])
def test_max_steps_n_means_n_model_calls(max_steps: int) -> None:
    def script(messages: list[Any], tools: list[str]) -> AIMessage:  # always asks for another tool call
        n = sum(1 for m in messages if isinstance(m, ToolMessage))
        return AIMessage("", tool_calls=[{"name": "distance_km", "id": f"c{n}",
                                          "args": {"lat1": 0, "lon1": 0, "lat2": float(n), "lon2": 1}}])

    model = ScriptedChatModel(script=script)
    res = asyncio.run(ToolAgent(model, get_tools(["geodesy"]), AgentLimits(max_steps=max_steps, max_tool_calls=99))
                      .run(PROMPT))
    assert len(model.calls) == max_steps and res.steps == max_steps
    assert res.stop_reason == "step_limit"


def test_a_model_that_answers_at_once_makes_one_call_whatever_the_step_limit() -> None:
    model = ScriptedChatModel(script=["FINAL ANSWER: 157 km"])
    res = asyncio.run(ToolAgent(model, get_tools(["geodesy"]), AgentLimits(max_steps=1)).run(PROMPT))
    assert len(model.calls) == 1 and res.stop_reason == "answered" and res.final_text == "FINAL ANSWER: 157 km"
