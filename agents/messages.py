"""Conversions between task messages, LangChain messages and plain dicts for traces."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage


class ChatLike(Protocol):
    """Anything with a role and content (tasks.Message fits); read-only, so frozen models and Literal roles fit."""

    @property
    def role(self) -> str: ...

    @property
    def content(self) -> str: ...


def to_langchain(messages: Iterable[ChatLike]) -> list[BaseMessage]:
    """Turn role/content messages into LangChain messages."""
    out: list[BaseMessage] = []
    for m in messages:
        if m.role == "system":
            out.append(SystemMessage(m.content))
        elif m.role == "user":
            out.append(HumanMessage(m.content))
        elif m.role == "assistant":
            out.append(AIMessage(m.content))
        else:
            raise ValueError(f"unsupported message role {m.role!r}")
    return out


def to_dict(message: BaseMessage) -> dict[str, Any]:
    """A JSON-ready view of a LangChain message for traces."""
    d: dict[str, Any] = {"role": message.type, "content": text_of(message)}
    if isinstance(message, AIMessage) and message.tool_calls:
        d["tool_calls"] = [{"id": c.get("id"), "name": c["name"], "args": c["args"]} for c in message.tool_calls]
    if isinstance(message, AIMessage) and (reasoning := message.additional_kwargs.get("reasoning_content")):
        d["reasoning"] = reasoning  # kept for the trace; never part of the answer text
    if isinstance(message, AIMessage) and message.invalid_tool_calls:
        d["invalid_tool_calls"] = [dict(c) for c in message.invalid_tool_calls]
    if isinstance(message, ToolMessage):
        d["tool_call_id"] = message.tool_call_id
        d["name"] = message.name
        d["status"] = message.status
    return d


def dicts(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    return [to_dict(m) for m in messages]


def text_of(message: BaseMessage) -> str:
    """The text of a message whose content may be a string or a list of content blocks."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


MAX_CALL_TOKENS = 100_000_000  # more tokens than any model reads or writes in one call


def _count(value: object) -> int:
    """A token count a server reported, if plausible (an integer in [0, MAX_CALL_TOKENS]); else 0: a negative or
    10^12 count is a server's bug, never added to a run's tokens or cost."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0
    return int(value) if 0 <= value <= MAX_CALL_TOKENS and float(value).is_integer() else 0


def usage(message: BaseMessage) -> tuple[int, int, int]:
    """(input, output, cached) tokens from a message's usage metadata; zeros when absent or implausible."""
    meta = getattr(message, "usage_metadata", None) or {}
    details = meta.get("input_token_details") or {}
    tokens_in, tokens_out = _count(meta.get("input_tokens", 0)), _count(meta.get("output_tokens", 0))
    return tokens_in, tokens_out, min(_count(details.get("cache_read", 0) or 0), tokens_in)
