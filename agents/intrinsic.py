"""The intrinsic condition's answerer: one model call, no tools."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from agents.messages import ChatLike, dicts, to_langchain
from agents.model_call import DEFAULT_CALLER, AgentError, ModelCaller, ModelCallError
from agents.trace import AgentResult


async def answer_intrinsic(model: BaseChatModel, messages: Sequence[ChatLike],
                           caller: ModelCaller | None = None) -> AgentResult:
    """Ask ``model`` once (through ``caller``: retries, cache) and return its text with a one-event trace."""
    lc_messages = to_langchain(messages)
    try:
        out = await (caller or DEFAULT_CALLER).call(model, lc_messages)
    except ModelCallError as exc:
        event = exc.event.model_copy(update={"messages_in": dicts(lc_messages)})
        raise AgentError(str(exc), [event]) from exc.cause
    event = out.event(dicts(lc_messages))
    return AgentResult.from_trace(event.raw_text or "", [event], out.latency_s)
