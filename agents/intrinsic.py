"""The intrinsic condition's answerer: one model call, no tools."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from agents.messages import ChatLike, dicts, text_of, to_dict, to_langchain, usage
from agents.model_call import DEFAULT_CALLER, AgentError, ModelCaller, ModelCallError
from agents.trace import AgentResult, ModelCallEvent


async def answer_intrinsic(model: BaseChatModel, messages: Sequence[ChatLike],
                           caller: ModelCaller | None = None) -> AgentResult:
    """Ask ``model`` once (through ``caller``: retries, cache) and return its text with a one-event trace."""
    lc_messages = to_langchain(messages)
    try:
        out = await (caller or DEFAULT_CALLER).call(model, lc_messages)
    except ModelCallError as exc:
        event = exc.event.model_copy(update={"messages_in": dicts(lc_messages)})
        raise AgentError(str(exc), [event]) from exc.cause
    reply = out.reply
    tin, tout, tcached = usage(reply)
    event = ModelCallEvent(
        start=out.start,
        latency_s=out.latency_s,
        messages_in=dicts(lc_messages),
        message_out=to_dict(reply),
        raw_text=text_of(reply),
        input_tokens=tin,
        output_tokens=tout,
        cached_tokens=tcached,
        cache_hit=out.cache_hit,
        retries=out.retries,
        retry_errors=out.retry_errors,
    )
    return AgentResult.from_trace(text_of(reply), [event], out.latency_s)
