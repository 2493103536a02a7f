"""Trace records: every model call and tool call an agent made, in order, with parent ids."""

from __future__ import annotations

import time
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class _Event(BaseModel):
    """What every trace event has. Rows stored before events were split by kind carry the other kind's fields
    (all null or zero); ``extra="ignore"`` drops them on load."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str = Field(default_factory=new_id)
    start: float = Field(default_factory=time.time, description="Unix time the call started")
    latency_s: float = 0.0


FinishReason = Literal["stop", "length", "tool_calls", "refusal", "content_filter", "prompt_blocked",
                       "reasoning_only", "other"]
"""Why a model call ended, provider-neutral (:mod:`agents.finish`): a natural stop, the output-token limit, a stop to
call tools, an API-level refusal, a safety/content filter on the reply, a blocked prompt, a server that put the
answer or a tool call only in its reasoning field (``reasoning_only``), anything else."""


class ModelCallEvent(_Event):
    """One model call: what was sent and returned, its tokens, cache hit and retries."""

    kind: Literal["model_call"] = "model_call"
    messages_in: list[dict[str, Any]] | None = Field(default=None, description="Messages new since the last call")
    message_out: dict[str, Any] | None = None
    raw_text: str | None = Field(default=None, description="The model's text exactly as returned")
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_hit: bool = False
    retries: int = Field(default=0, description="Failed attempts retried before this call's outcome")
    retry_errors: list[str] = Field(default_factory=list, description="Why each retried attempt failed")
    tools_offered: list[str] | None = None
    finish_reason: FinishReason | None = Field(default=None, description="Why the call ended; None: not reported")
    finish_reason_raw: str | None = Field(default=None, description="The provider's own value (stop_reason, ...)")
    status: Literal["error"] | None = Field(default=None, description="'error' when the call failed for good")
    error: str | None = None


class ToolCallEvent(_Event):
    """One tool call the model asked for, executed or not (``status``)."""

    kind: Literal["tool_call"] = "tool_call"
    parent_id: str | None = Field(default=None, description="The model call whose tool_calls caused this tool call")
    tool: str | None = Field(default=None, description="None when the model's call named no tool")
    tool_call_id: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    result: str | None = None
    status: Literal["ok", "error", "repeated", "skipped"]
    error: str | None = None


TraceEvent = Annotated[ModelCallEvent | ToolCallEvent, Field(discriminator="kind")]
"""One model call or tool call; enough for a viewer to draw a timeline."""


class TraceUsage(BaseModel):
    """What a trace used, summed once: tokens, model calls, executed tool calls (repeats and skipped calls
    excluded), tool errors, retried attempts and cache hits."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    retries: int = 0
    cache_hits: int = 0

    @classmethod
    def of(cls, trace: list[TraceEvent]) -> TraceUsage:
        models = [e for e in trace if isinstance(e, ModelCallEvent)]
        tools = [e for e in trace if isinstance(e, ToolCallEvent)]
        return cls(input_tokens=sum(e.input_tokens for e in models), output_tokens=sum(e.output_tokens for e in models),
                   cached_tokens=sum(e.cached_tokens for e in models), model_calls=len(models),
                   tool_calls=sum(1 for e in tools if e.status in ("ok", "error")),
                   tool_errors=sum(1 for e in tools if e.status == "error"),
                   retries=sum(e.retries for e in models), cache_hits=sum(1 for e in models if e.cache_hit))


class AgentResult(BaseModel):
    """What an agent returns for one sample: its final text, its trace and its accounting."""

    model_config = ConfigDict(frozen=True)

    final_text: str
    trace: list[TraceEvent] = Field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0
    steps: int = 0
    tool_calls: int = Field(default=0, description="Tool calls executed (repeats and skipped calls excluded)")
    stop_reason: Literal["answered", "step_limit", "tool_call_limit", "repeated_call", "token_limit"] = "answered"

    @classmethod
    def from_trace(cls, final_text: str, trace: list[TraceEvent], latency_s: float, **kw: Any) -> AgentResult:
        usage = TraceUsage.of(trace)
        return cls(final_text=final_text, trace=trace, input_tokens=usage.input_tokens,
                   output_tokens=usage.output_tokens, cached_tokens=usage.cached_tokens, latency_s=latency_s,
                   steps=usage.model_calls, tool_calls=usage.tool_calls, **kw)
