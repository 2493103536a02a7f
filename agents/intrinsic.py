"""The intrinsic condition's answerer: one model call, no domain tools (under the structured answer channel, only
the ``final_answer`` tool, forced where the provider can force a tool call)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool

from agents.messages import ChatLike, dicts, to_langchain
from agents.model_call import DEFAULT_CALLER, AgentError, ModelCaller, ModelCallError
from agents.trace import AgentResult


async def answer_intrinsic(model: BaseChatModel, messages: Sequence[ChatLike],
                           caller: ModelCaller | None = None, final_tool: BaseTool | None = None,
                           forced_tool_choice: str | None = None) -> AgentResult:
    """Ask ``model`` once (through ``caller``: retries, cache) and return its text with a one-event trace.

    With ``final_tool`` the call offers only that tool, with ``forced_tool_choice`` (the provider's value that
    forces a tool call, None where it cannot) so the one call is the final-answer call."""
    lc_messages = to_langchain(messages)
    caller = caller or DEFAULT_CALLER
    runnable: Runnable[Any, Any] = model
    tools: list[BaseTool] = []
    if final_tool is not None:
        tools = [final_tool]
        if forced_tool_choice is not None:
            runnable, caller = model.bind_tools(tools, tool_choice=forced_tool_choice), caller.keyed(
                tool_choice=forced_tool_choice)
        else:
            runnable = model.bind_tools(tools)
    try:
        out = await caller.call(runnable, lc_messages, tools)
    except ModelCallError as exc:
        event = exc.event.model_copy(update={"messages_in": dicts(lc_messages),
                                             "tools_offered": [t.name for t in tools] or None})
        raise AgentError(str(exc), [event]) from exc.cause
    event = out.event(dicts(lc_messages), [t.name for t in tools] or None)
    return AgentResult.from_trace(event.raw_text or "", [event], out.latency_s)
