"""Each model call's finish reason, read through the real client libraries (langchain-openai/openai,
langchain-anthropic/anthropic, langchain-google-genai/google-genai) from loopback stand-ins replaying recorded
replies (tests/replies), into the trace event; it survives the model-call cache."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from agents.call_cache import CallCache
from agents.finish import finish_of
from agents.intrinsic import answer_intrinsic
from agents.model_call import ModelCaller
from agents.model_spec import create_chat_model
from agents.trace import ModelCallEvent
from tasks.records import Message
from tests.replay import Replay, recorded

PROMPT = [Message(role="user", content="Distance from (0,0) to (1,1)? End with FINAL ANSWER: X km")]
ANTHROPIC = "anthropic/claude-sonnet-4-20250514"
GEMINI = "google/gemini-2.5-flash"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-test-key")


def model_at(model: str, server: Replay, monkeypatch: pytest.MonkeyPatch) -> BaseChatModel:
    """The provider's real LangChain model pointed at ``server`` (Gemini through the google-genai SDK's own
    GOOGLE_GEMINI_BASE_URL)."""
    if model.startswith("google/"):
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.root)
        return create_chat_model(model, max_retries=0)
    return create_chat_model(model, base_url=server.root if model.startswith("anthropic/") else server.url,
                             max_retries=0)


CASES = [
    ("openai/gpt-4o", "openai_length", "length", "length"),
    ("openai-compatible/m", "openai_length", "length", "length"),  # vLLM, llama.cpp: the same field
    ("openai/gpt-4o", "openai_content_filter", "content_filter", "content_filter"),
    ("openai/gpt-4o", "openai_refusal", "refusal", "refusal: I'm sorry, I cannot assist with that request."),
    (ANTHROPIC, "anthropic_refusal", "refusal", "refusal"),
    (ANTHROPIC, "anthropic_tool_use", "tool_calls", "tool_use"),
    (GEMINI, "gemini_safety", "content_filter", "SAFETY"),
    (GEMINI, "gemini_prompt_blocked", "prompt_blocked", "prompt_feedback.block_reason=SAFETY"),
    (GEMINI, "gemini_stop", "stop", "STOP"),
]


@pytest.mark.parametrize(("model", "reply", "neutral", "raw"), CASES)
def test_recorded_reply_gives_its_finish_reason_in_the_trace(model: str, reply: str, neutral: str, raw: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    with Replay(lambda path, body: recorded(reply)) as server:
        res = asyncio.run(answer_intrinsic(model_at(model, server, monkeypatch), PROMPT))
    [event] = res.trace
    assert isinstance(event, ModelCallEvent)
    assert (event.finish_reason, event.finish_reason_raw) == (neutral, raw)
    path = server.requests[0][0]
    assert path.endswith({"anthropic": "/v1/messages", "google": ":generateContent"}.get(
        model.split("/")[0], "/chat/completions"))


@pytest.mark.parametrize(("model", "reply", "neutral"), [(GEMINI, "gemini_prompt_blocked", "prompt_blocked"),
                                                          (GEMINI, "gemini_safety", "content_filter"),
                                                          (ANTHROPIC, "anthropic_refusal", "refusal")])
def test_the_finish_reason_survives_the_call_cache(model: str, reply: str, neutral: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply answered from the cache has the finish reason it had when it was stored (google-genai's enums are
    stored as their strings)."""
    cache = CallCache(tmp_path / "calls.sqlite")
    caller = ModelCaller(cache=cache, identity={"model": model})
    with Replay(lambda path, body: recorded(reply)) as server:
        model_ = model_at(model, server, monkeypatch)
        first, again = (asyncio.run(answer_intrinsic(model_, PROMPT, caller)).trace[0] for _ in range(2))
    cache.close()
    assert len(server.requests) == 1 and isinstance(again, ModelCallEvent) and again.cache_hit
    assert isinstance(first, ModelCallEvent) and first.finish_reason == again.finish_reason == neutral
    assert first.finish_reason_raw == again.finish_reason_raw


@pytest.mark.parametrize(("metadata", "expected"), [
    ({"finish_reason": "MALFORMED_FUNCTION_CALL"}, ("other", "MALFORMED_FUNCTION_CALL")),
    ({"finish_reason": "RECITATION"}, ("content_filter", "RECITATION")),
    ({"stop_reason": "pause_turn"}, ("other", "pause_turn")),
    ({"stop_reason": "max_tokens"}, ("length", "max_tokens")),
    ({"finish_reason": "abort"}, ("other", "abort")),
    ({"prompt_feedback": {"block_reason": 0, "safety_ratings": []}}, (None, None)),  # "no block" as the proto says
    ({}, (None, None)),  # a scripted model names no reason
])
def test_values_outside_the_recordings(metadata: dict, expected: tuple) -> None:
    assert finish_of(AIMessage("x", response_metadata=metadata)) == expected


def test_a_normal_stop_that_calls_tools_is_tool_calls() -> None:
    """Gemini ends a function call with STOP; the neutral form says what the call did."""
    reply = AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "1"}], response_metadata={"finish_reason": "STOP"})
    assert finish_of(reply) == ("tool_calls", "STOP")
