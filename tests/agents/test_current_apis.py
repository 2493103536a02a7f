"""The stand-ins of today's APIs (:mod:`tests.standins`) refuse what the real APIs refuse, through the real client
libraries, and geogap reads their endings: so the end-to-end tests (tests/evals/test_current_models.py) pass
because geogap sends what the APIs take, not because the stand-ins take anything.

Pages: https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context (stateless replay),
openai/openai-openapi #541 (chat completions 400 for tools + effort),
https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html (Opus 4.7),
https://ai.google.dev/gemini-api/docs/thought-signatures, https://ai.google.dev/gemini-api/docs/thinking."""

from __future__ import annotations

import base64
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agents.finish import finish_of
from agents.model_spec import create_chat_model
from agents.models import GenerationSettings
from tests.standins import ENCRYPTED, StandIn

QUESTION = "Point A is at (40.7062, -74.5493) and point B is at (10.7505, 78.7763) (latitude, longitude). Distance?"
TOOL = {"type": "function", "function": {"name": "distance_km", "description": "great-circle distance", "parameters": {
    "type": "object", "properties": {k: {"type": "number"} for k in ("lat1", "lon1", "lat2", "lon2")}}}}
RESPONSES = GenerationSettings(api="responses", temperature=None, seed=None, reasoning_effort="high")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123456")
    monkeypatch.setenv("GEOGAP_TEST_KEY_A", "test-key-123")


def responses_model(server: StandIn, settings: GenerationSettings = RESPONSES) -> Any:
    return create_chat_model("openai/gpt-5.4", base_url=server.url, settings=settings, max_retries=0)


def test_responses_api_tool_step_replays_encrypted_reasoning_in_order() -> None:
    with StandIn() as server:
        model = responses_model(server).bind_tools([TOOL])
        first = model.invoke([HumanMessage(QUESTION)])
        assert first.tool_calls and finish_of(first) == ("tool_calls", "completed")
        second = model.invoke([HumanMessage(QUESTION), first,
                               ToolMessage("13670.9", tool_call_id=first.tool_calls[0]["id"])])
    assert "FINAL ANSWER: 13670.9 km" in str(second.content)
    body = server.requests[1][1]
    assert [i.get("type") for i in body["input"]][1:4] == ["reasoning", "function_call", "function_call_output"]
    assert body["input"][1]["encrypted_content"] == f"{ENCRYPTED}1" and body["reasoning"] == {"effort": "high"}
    assert "seed" not in body and "temperature" not in body and body["store"] is False


def test_responses_api_without_the_reasoning_item_is_a_400() -> None:
    """The stand-in's rule bites: the call replayed without its reasoning item is refused as the API does."""
    with StandIn() as server:
        model = responses_model(server).bind_tools([TOOL])
        first = model.invoke([HumanMessage(QUESTION)])
        bare = AIMessage(content=[b for b in first.content if b.get("type") != "reasoning"],
                         tool_calls=first.tool_calls, response_metadata=first.response_metadata)
        with pytest.raises(openai.BadRequestError, match="without its required 'reasoning' item"):
            model.invoke([HumanMessage(QUESTION), bare, ToolMessage("1", tool_call_id=first.tool_calls[0]["id"])])


def test_responses_api_incomplete_and_refusal_are_their_own_endings() -> None:
    with StandIn() as server:
        cut = responses_model(server, GenerationSettings(api="responses", temperature=None, seed=None,
                                                         max_tokens=16)).invoke([HumanMessage(QUESTION)])
    assert finish_of(cut) == ("length", "incomplete: max_output_tokens")
    with StandIn(refuse=True) as server:
        refused = responses_model(server).invoke([HumanMessage(QUESTION)])
    assert finish_of(refused) == ("refusal", "refusal: I can't help with that.")


def test_chat_completions_answers_400_for_tools_with_effort() -> None:
    with StandIn() as server:
        chat = create_chat_model("openai/gpt-5.4", base_url=server.url, max_retries=0, settings=GenerationSettings(
            api="chat", temperature=None, reasoning_effort="high")).bind_tools([TOOL])
        with pytest.raises(openai.BadRequestError, match="Please use /v1/responses"):
            chat.invoke([HumanMessage(QUESTION)])


def test_anthropic_opus_4_7_refuses_budget_tokens_and_forced_tools_with_thinking() -> None:
    with StandIn() as server:
        client = anthropic.Anthropic(base_url=server.root, api_key="test-key-123", max_retries=0)
        with pytest.raises(anthropic.BadRequestError, match="thinking.type.enabled is not supported"):
            client.messages.create(model="claude-opus-4-7", max_tokens=2048, messages=[
                {"role": "user", "content": QUESTION}], thinking={"type": "enabled", "budget_tokens": 1024})
        with pytest.raises(anthropic.BadRequestError, match="tool_choice forces tool use"):
            client.messages.create(model="claude-opus-4-7", max_tokens=2048, messages=[
                {"role": "user", "content": QUESTION}], thinking={"type": "adaptive"},
                tools=[{"name": "distance_km", "input_schema": {"type": "object"}}], tool_choice={"type": "any"})


def test_anthropic_adaptive_thinking_with_tools_across_turns() -> None:
    with StandIn() as server:
        model = create_chat_model("anthropic/claude-opus-4-7", base_url=server.root, max_retries=0,
                                  settings=GenerationSettings(temperature=None, thinking={"type": "adaptive"},
                                                              reasoning_effort="high"),
                                  api_key_env="GEOGAP_TEST_KEY_A").bind_tools([TOOL])
        first = model.invoke([HumanMessage(QUESTION)])
        second = model.invoke([HumanMessage(QUESTION), first,
                               ToolMessage("13670.9", tool_call_id=first.tool_calls[0]["id"])])
    assert "FINAL ANSWER: 13670.9 km" in str(second.content) and finish_of(second)[0] == "stop"
    body = server.requests[1][1]
    assert body["output_config"] == {"effort": "high"} and body["messages"][1]["content"][0]["type"] == "thinking"


def test_gemini_3_needs_the_thought_signature_and_a_level_pro_takes() -> None:
    with StandIn() as server:
        client = genai.Client(api_key="google-test-key", http_options=genai_types.HttpOptions(base_url=server.root))
        with pytest.raises(genai_errors.ClientError, match="Supported levels: LOW, HIGH"):
            client.models.generate_content(model="gemini-3-pro-preview", contents=QUESTION,
                                           config=genai_types.GenerateContentConfig(
                                               thinking_config=genai_types.ThinkingConfig(thinking_level="MEDIUM")))
        call = genai_types.Part(function_call=genai_types.FunctionCall(name="distance_km", args={}))
        with pytest.raises(genai_errors.ClientError, match="missing a thought_signature"):
            client.models.generate_content(model="gemini-3-pro-preview", contents=[
                genai_types.Content(role="user", parts=[genai_types.Part(text=QUESTION)]),
                genai_types.Content(role="model", parts=[call])])
        signed = genai_types.Part(function_call=call.function_call,
                                  thought_signature=base64.b64decode(base64.b64encode(b"stand-in-thought-signature-1")))
        reply = client.models.generate_content(model="gemini-3-pro-preview", contents=[
            genai_types.Content(role="user", parts=[genai_types.Part(text=QUESTION)]),
            genai_types.Content(role="model", parts=[signed]),
            genai_types.Content(role="user", parts=[genai_types.Part(function_response=genai_types.FunctionResponse(
                name="distance_km", response={"result": 13670.9}))])])
    assert "FINAL ANSWER: 13670.9 km" in (reply.text or "")


@pytest.mark.parametrize(("enable", "reasoning"), [(True, True), (False, False)])
def test_qwen3_thinking_switch_over_openai_compatible(enable: bool, reasoning: bool) -> None:
    with StandIn() as server:
        model = create_chat_model("openai-compatible/Qwen3-8B", base_url=server.url, max_retries=0,
                                  settings=GenerationSettings(enable_thinking=enable))
        reply = model.invoke([HumanMessage(QUESTION)])
    assert server.requests[0][1]["chat_template_kwargs"] == {"enable_thinking": enable}
    assert bool(reply.additional_kwargs.get("reasoning_content")) is reasoning
    assert "FINAL ANSWER" in str(reply.content)
