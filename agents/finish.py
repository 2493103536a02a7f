"""Why a model call ended, in one provider-neutral form, read from the LangChain reply.

Each provider's LangChain model puts its own value in ``AIMessage.response_metadata``:

- OpenAI chat completions and OpenAI-compatible servers (vLLM, llama.cpp, Ollama): ``finish_reason`` (``stop``,
  ``length``, ``tool_calls``, ``function_call``, ``content_filter``); a ``refusal`` text in the message
  (``additional_kwargs["refusal"]``, structured outputs) is a refusal whatever ``finish_reason`` says;
- OpenAI Responses API (langchain-openai ``use_responses_api``): ``status`` (``completed``, ``incomplete``,
  ``failed``) with ``incomplete_details.reason`` (``max_output_tokens``, ``content_filter``); a ``refusal``
  content block is a refusal;
- Anthropic (langchain-anthropic): ``stop_reason`` (``end_turn``, ``stop_sequence``, ``max_tokens``, ``tool_use``,
  ``refusal``, ``pause_turn``, ``model_context_window_exceeded``);
- Gemini (langchain-google-genai): ``finish_reason`` (``STOP``, ``MAX_TOKENS``, ``SAFETY``, ``RECITATION``,
  ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII``, ``IMAGE_SAFETY``, ...). A blocked prompt has no candidate at all:
  langchain-google-genai 4.x does not raise, it returns an empty message whose ``prompt_feedback.block_reason`` is
  set (``SAFETY``, ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``OTHER``, ...), read here as ``prompt_blocked``.

An OpenAI-compatible reply whose answer or tool call the server left only in its reasoning field
(:func:`agents.models.reasoning_flag`) is ``reasoning_only``. A reply that stopped normally and asks for tools is ``tool_calls`` (Gemini says ``STOP`` for those). A value not
listed is ``other``; a reply that names no reason at all (a scripted model) has none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from agents.trace import FinishReason

OPENAI: Mapping[str, FinishReason] = {"stop": "stop", "length": "length", "tool_calls": "tool_calls",
                                      "function_call": "tool_calls", "content_filter": "content_filter"}
ANTHROPIC: Mapping[str, FinishReason] = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
                                         "model_context_window_exceeded": "length", "tool_use": "tool_calls",
                                         "refusal": "refusal", "pause_turn": "other"}
GEMINI_SAFETY = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
                           "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"})
GEMINI: Mapping[str, FinishReason] = {"STOP": "stop", "MAX_TOKENS": "length",
                                      **{reason: "content_filter" for reason in GEMINI_SAFETY}}
NO_BLOCK = frozenset({"", "0", "BLOCKED_REASON_UNSPECIFIED", "BLOCK_REASON_UNSPECIFIED", "NONE"})


def _name(value: Any) -> str:
    """An enum's value (google-genai's enums are str enums; a cached reply holds the plain string), else str()."""
    return str(getattr(value, "value", value) if value is not None else "")


RESPONSES_INCOMPLETE: Mapping[str, FinishReason] = {"max_output_tokens": "length", "content_filter": "content_filter"}


def _refusal_block(message: BaseMessage) -> str | None:
    """The text of a ``refusal`` content block (the Responses API's refusal), or None."""
    if isinstance(message.content, list):
        for block in message.content:
            if isinstance(block, dict) and block.get("type") == "refusal":
                return str(block.get("refusal") or "")
    return None


def _neutral(message: BaseMessage) -> tuple[FinishReason, str] | None:
    meta = message.response_metadata or {}
    refusal, block = message.additional_kwargs.get("refusal"), _refusal_block(message)
    if refusal or block is not None:
        return "refusal", f"refusal: {str(refusal or block)[:200]}"
    if meta.get("object") == "response" and (status := meta.get("status")) is not None:
        if status == "incomplete":
            reason = str((meta.get("incomplete_details") or {}).get("reason"))
            return RESPONSES_INCOMPLETE.get(reason, "other"), f"incomplete: {reason}"
        return ("stop" if status == "completed" else "other"), str(status)
    if flag := message.additional_kwargs.get("reasoning_flag"):
        return "reasoning_only", f"{meta.get('finish_reason', 'stop')}; {flag}"
    if (stop := meta.get("stop_reason")) is not None:
        return ANTHROPIC.get(str(stop), "other"), str(stop)
    if (finish := meta.get("finish_reason")) is not None:
        raw = _name(finish)
        return GEMINI.get(raw) or OPENAI.get(raw) or "other", raw
    feedback = meta.get("prompt_feedback")
    if isinstance(feedback, Mapping) and (block := _name(feedback.get("block_reason"))) not in NO_BLOCK:
        return "prompt_blocked", f"prompt_feedback.block_reason={block}"
    return None


def finish_of(message: BaseMessage) -> tuple[FinishReason | None, str | None]:
    """(provider-neutral finish reason, the provider's raw value) of a reply; (None, None) when it names none."""
    found = _neutral(message)
    if found is None:
        return None, None
    reason, raw = found
    if reason == "stop" and isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
        reason = "tool_calls"
    return reason, raw
