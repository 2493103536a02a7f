"""Forcing a tool call per provider, offline: the request shape of ``tools-required`` on OpenAI-compatible servers
(an HTTP mock transport), Anthropic's bound choice, and cached prompt tokens read back from an OpenAI-style reply."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from langchain_core.messages import HumanMessage

from agents.messages import usage
from agents.model_spec import create_chat_model
from agents.providers import PROVIDERS
from evals.conditions import AnswerContext, get_condition
from tasks import get_task


def completion(message: dict[str, Any], usage_: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
            "usage": usage_ or {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}


def test_forcing_values_per_provider() -> None:
    built_in = ("anthropic", "google", "local", "openai", "openai-compatible", "scripted", "vllm")
    assert {name: PROVIDERS.get(name).forced_tool_choice for name in built_in} == {
        "anthropic": "any", "google": "any", "local": "required", "openai": "required",
        "openai-compatible": "required", "scripted": None, "vllm": "required"}


def test_tools_required_sends_required_on_the_first_call_only() -> None:
    bodies: list[dict[str, Any]] = []
    call = {"id": "c1", "type": "function",
            "function": {"name": "distance_km", "arguments": json.dumps({"lat1": 0, "lon1": 0, "lat2": 0, "lon2": 1})}}

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        if len(bodies) == 1:
            return httpx.Response(200, json=completion({"content": "", "tool_calls": [call]}))
        return httpx.Response(200, json=completion({"content": "FINAL ANSWER: 111.2 km"}))

    provider = "openai-compatible"
    model = create_chat_model(f"{provider}/m", base_url="http://127.0.0.1:9/v1", max_retries=0,
                              async_transport=httpx.MockTransport(handler))
    task = get_task("gpsbench.distance")
    ctx = AnswerContext(model=model, forced_tool_choice=PROVIDERS.get(provider).forced_tool_choice)
    result = asyncio.run(get_condition("tools-required[geodesy]").answer(task.samples(limit=1)[0], task, ctx))
    assert result.final_text == "FINAL ANSWER: 111.2 km" and len(bodies) == 2
    assert bodies[0]["tool_choice"] == "required" and bodies[0]["tools"]
    assert "tool_choice" not in bodies[1] and bodies[1]["tools"]


def test_anthropic_binds_any_in_its_own_shape() -> None:
    chat_anthropic = pytest.importorskip("langchain_anthropic").ChatAnthropic
    from tools.registry import get_tools

    bound = chat_anthropic(model="claude-x", api_key="k").bind_tools(
        get_tools(["geodesy"]), tool_choice=PROVIDERS.get("anthropic").forced_tool_choice)
    assert bound.kwargs["tool_choice"] == {"type": "any"}  # type: ignore[attr-defined]


def test_cached_prompt_tokens_of_an_openai_style_reply_reach_the_trace_counts() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=completion({"content": "hi"}, {
            "prompt_tokens": 120, "completion_tokens": 3, "total_tokens": 123,
            "prompt_tokens_details": {"cached_tokens": 95}}))

    model = create_chat_model("local/qwen", base_url="http://127.0.0.1:9/v1", transport=httpx.MockTransport(handler))
    assert usage(model.invoke([HumanMessage("q")])) == (120, 3, 95)
