"""Provider resolution and request shapes, offline through an HTTP mock transport."""

from __future__ import annotations

import json

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agents.model_spec import UnknownProviderError, create_chat_model, parse_model
from agents.models import GenerationSettings


def completion(content: str = "FINAL ANSWER: 1 km") -> dict:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}


def test_parse_model() -> None:
    assert str(parse_model("vllm/Qwen/Qwen2.5-7B")) == "vllm/Qwen/Qwen2.5-7B"
    with pytest.raises(UnknownProviderError, match="valid providers: ") as caught:
        parse_model("azure/gpt")
    listed = str(caught.value).split("valid providers: ")[1].split(", ")
    assert listed == sorted(listed)  # every registered provider, sorted (evals.api adds python/ when imported)
    assert {"anthropic", "google", "local", "openai", "openai-compatible", "scripted", "vllm"} <= set(listed)
    with pytest.raises(UnknownProviderError, match="provider/name"):
        parse_model("gpt-4o")


def test_llama_compatible_request_shape() -> None:
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append({"url": str(request.url), "body": json.loads(request.content), "headers": dict(request.headers)})
        return httpx.Response(200, json=completion())

    model = create_chat_model("openai-compatible/my-model", base_url="http://127.0.0.1:9/v1",
                              settings=GenerationSettings(max_tokens=77), transport=httpx.MockTransport(handler))
    history = [HumanMessage("q"), AIMessage("", tool_calls=[{"name": "t", "args": {"a": 1}, "id": "c"}]),
               ToolMessage("5", tool_call_id="c")]
    reply = model.invoke(history)
    assert reply.content == "FINAL ANSWER: 1 km" and reply.usage_metadata["output_tokens"] == 3
    body = seen[0]["body"]
    assert seen[0]["url"] == "http://127.0.0.1:9/v1/chat/completions"
    assert body["model"] == "my-model" and body["max_tokens"] == 77 and body["temperature"] == 0.0
    assert body["messages"][1]["content"] == ""  # null content would get HTTP 500 from llama.cpp
    assert body["messages"][1]["tool_calls"][0]["function"]["name"] == "t"


def test_openai_request_carries_key_header_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=completion())

    model = create_chat_model("openai/gpt-4o-mini", transport=httpx.MockTransport(handler))
    model.invoke([HumanMessage("q")])
    assert seen[0].url.host == "api.openai.com"
    assert seen[0].headers["authorization"] == "Bearer sk-test-123"


def test_local_needs_a_base_url() -> None:
    with pytest.raises(ValueError, match="base URL"):
        create_chat_model("local/qwen2.5-coder-1.5b")
