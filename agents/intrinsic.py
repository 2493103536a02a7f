"""The intrinsic condition's answerer: one model call, no tools."""

from __future__ import annotations

import time
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from agents.messages import ChatLike, dicts, text_of, to_dict, to_langchain, usage
from agents.trace import AgentResult, TraceEvent


async def answer_intrinsic(model: BaseChatModel, messages: Sequence[ChatLike]) -> AgentResult:
    """Ask ``model`` once and return its text with a one-event trace."""
    lc_messages = to_langchain(messages)
    t0 = time.time()
    reply = await model.ainvoke(lc_messages)
    latency = time.time() - t0
    tin, tout, tcached = usage(reply)
    event = TraceEvent(
        kind="model_call",
        start=t0,
        latency_s=latency,
        messages_in=dicts(lc_messages),
        message_out=to_dict(reply),
        raw_text=text_of(reply),
        input_tokens=tin,
        output_tokens=tout,
        cached_tokens=tcached,
    )
    return AgentResult.from_trace(text_of(reply), [event], latency)
