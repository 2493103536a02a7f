"""The tools condition's agent: a small LangGraph loop of model calls and tool calls.

Guards: an explicit step limit (``max_steps`` model calls in all, the last one, which asks for the answer when a
limit stops the loop, included: the tool calls of every call but the last allowed one are executed, so with
``max_steps=2`` the first call's calls run and the second call answers from their results; calls made in the last
allowed call are traced as ``skipped``), a cap on tool calls per sample, tool errors and tool calls whose arguments are
not a JSON object returned to the model as ``ToolMessage(status="error")``
(``ToolNode(handle_tool_errors=tool_error_message)``: the reason, capped), and repeated identical calls, failed
ones included, not executed again: the model gets the earlier result (or error) back and, if a whole round is
repeats, one last call to answer. A reply whose every call repeats an earlier one and that already commits to an
answer (``commits_answer``, given by the caller) ends the sample with that answer: the repeats could bring
nothing new, and a further call would re-send the whole prompt. ``recursion_limit`` is set from the step limit
as a backstop. With ``forced_tool_choice`` (the provider's
value, see :attr:`agents.providers.Provider.forced_tool_choice`) the first model call must call a tool; later
calls, the final-answer call included, are free. An optional token budget per sample
(input + output tokens over all model calls) stops the loop without a further call. Model calls go through a
:class:`~agents.model_call.ModelCaller` (retries, cache); a run that fails raises
:class:`~agents.model_call.AgentError` carrying the trace recorded so far.

With ``final_tool`` (the structured answer channel, :mod:`agents.final_answer`) the model is offered its domain
tools and ``final_answer``; the loop ends at the first reply that calls ``final_answer`` (its other calls are
traced as skipped), and a final-answer call after a limit offers only ``final_answer``, forced with
``forced_final_choice`` where the provider can force a call.
"""

from __future__ import annotations

import json
import operator
import time
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from pydantic import BaseModel, Field, ValidationError

from agents.final_answer import FINALIZE_STRUCTURED
from agents.messages import ChatLike, dicts, text_of, to_langchain
from agents.model_call import DEFAULT_CALLER, AgentError, ModelCaller, ModelCallError, describe
from agents.trace import AgentResult, ToolCallEvent, TraceEvent

FINALIZE_PROMPT = (
    "Stop calling tools now. Using the tool results above, give your final answer in the format the task "
    "asked for."
)


class AgentLimits(BaseModel):
    """Per-sample limits of the tool agent."""

    max_steps: int = Field(default=6, ge=1, description="Model calls per sample, the final-answer call included")
    max_tool_calls: int = Field(default=8, ge=0, description="Tool calls executed per sample")
    max_tokens: int | None = Field(default=None, ge=1, description="Input + output tokens per sample (None: no cap)")


class _State(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    trace: Annotated[list[TraceEvent], operator.add]
    steps: int
    tool_calls: int
    tokens: int
    sent: int
    seen: dict[str, tuple[bool, str]]
    stop: str | None


TOOL_ERROR_CAP = 600


def tool_error_message(exc: Exception) -> str:
    """What the model reads when a tool call fails: the reason, capped, never an echo of its arguments (an echo
    of a long polygon list overflowed the embedded model's context on released STBench items)."""
    source = getattr(exc, "source", None)  # langgraph's ToolInvocationError wraps the ValidationError
    if isinstance(source, ValidationError):
        errors = source.errors()
        shown = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in errors[:4])
        more = f" (and {len(errors) - 4} more)" if len(errors) > 4 else ""
        text = f"invalid arguments for {getattr(exc, 'tool_name', 'the tool')}: {shown}{more}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    if len(text) > TOOL_ERROR_CAP:
        text = text[:TOOL_ERROR_CAP] + " ..."
    return f"Error: {text}\nPlease fix your mistakes."


def _call_key(name: str, args: Any) -> str:
    return name + ":" + json.dumps(args, sort_keys=True, default=str)


def _choice_caller(caller: ModelCaller, tool_choice: str) -> ModelCaller:
    """``caller`` (same retries, same cache) whose cache key also names ``tool_choice``: a forced call and a free
    call on the same messages are different requests."""
    return caller.keyed(tool_choice=tool_choice)


class ToolAgent:
    """A LangGraph agent over any LangChain chat model that supports ``bind_tools``."""

    def __init__(self, model: BaseChatModel, tools: Sequence[BaseTool], limits: AgentLimits | None = None,
                 caller: ModelCaller | None = None, forced_tool_choice: str | None = None,
                 commits_answer: Callable[[str], bool] | None = None, final_tool: BaseTool | None = None,
                 forced_final_choice: str | None = None) -> None:
        self.model = model
        self.commits_answer = commits_answer
        self.final_tool = final_tool
        self.tools = [*tools, *([final_tool] if final_tool is not None else [])]
        self.limits = limits or AgentLimits()
        self.caller = caller or DEFAULT_CALLER
        self.bound = model.bind_tools(self.tools) if self.tools else model
        self.first: tuple[Runnable[Any, Any], ModelCaller] = (self.bound, self.caller)
        if self.tools and forced_tool_choice is not None:
            self.first = (model.bind_tools(self.tools, tool_choice=forced_tool_choice),
                          _choice_caller(self.caller, forced_tool_choice))
        self.last: tuple[Runnable[Any, Any], ModelCaller, list[BaseTool]] = (self.bound, self.caller, self.tools)
        if final_tool is not None:  # the final-answer call offers only final_answer, forced where possible
            self.last = ((model.bind_tools([final_tool], tool_choice=forced_final_choice),
                          _choice_caller(self.caller, forced_final_choice)) if forced_final_choice is not None
                         else (model.bind_tools([final_tool]), self.caller)) + ([final_tool],)
        self.tool_node = ToolNode(list(tools), handle_tool_errors=tool_error_message)
        self.graph = self._build()

    async def _model_call(self, state: _State, extra: list[AnyMessage] | None = None,
                          last: bool = False) -> dict[str, Any]:
        messages = list(state["messages"]) + list(extra or [])
        sent = state.get("sent", 0)
        runnable, caller = self.first if not state.get("steps") else (self.bound, self.caller)
        offered = self.tools
        if last:
            runnable, caller, offered = self.last
        try:
            out = await caller.call(runnable, messages, offered)
        except ModelCallError as exc:
            event = exc.event.model_copy(update={"messages_in": dicts(messages[sent:]),
                                                 "tools_offered": [t.name for t in offered]})
            raise ModelCallError(exc.cause, event) from exc.cause
        reply = out.reply
        event = out.event(dicts(messages[sent:]), [t.name for t in offered])
        return {"messages": [*(extra or []), reply], "trace": [event], "steps": state.get("steps", 0) + 1,
                "sent": len(messages) + 1, "tokens": state.get("tokens", 0) + event.input_tokens + event.output_tokens}

    async def _agent(self, state: _State) -> dict[str, Any]:
        update = await self._model_call(state)
        reply: AIMessage = update["messages"][-1]
        calls = len(reply.tool_calls) + len(reply.invalid_tool_calls)
        if self._final_answer_called(reply):  # the structured answer: the loop ends, other calls not executed
            update["stop"] = "answered"
            update["trace"] += self._skipped(reply, update["trace"][-1].id, "Not executed: final_answer was called.")
        elif calls and self._answered_with_repeats(state, reply):
            update["stop"] = "answered"
            update["trace"] += self._repeats(reply.tool_calls, update["trace"][-1].id, state.get("seen") or {})
        elif calls:
            if self.limits.max_tokens is not None and update["tokens"] >= self.limits.max_tokens:
                update["stop"] = "token_limit"
            elif update["steps"] >= self.limits.max_steps:  # no call left to answer from their results
                update["stop"] = "step_limit"
                update["trace"] += self._skipped(reply, update["trace"][-1].id, "Not executed: the step limit was reached.")
            elif state.get("tool_calls", 0) + calls > self.limits.max_tool_calls:
                update["stop"] = "tool_call_limit"
        return update

    def _final_answer_called(self, reply: AIMessage) -> bool:
        name = self.final_tool.name if self.final_tool is not None else None
        return name is not None and any(c.get("name") == name for c in [*reply.tool_calls, *reply.invalid_tool_calls])

    def _answered_with_repeats(self, state: _State, reply: AIMessage) -> bool:
        """Whether ``reply`` commits to an answer and every call in it repeats an earlier call."""
        seen = state.get("seen") or {}
        return (self.commits_answer is not None and not reply.invalid_tool_calls
                and all(_call_key(c["name"], c["args"]) in seen for c in reply.tool_calls)
                and self.commits_answer(text_of(reply)))

    @staticmethod
    def _repeats(calls: list[ToolCall], parent: str | None, seen: dict[str, tuple[bool, str]]) -> list[TraceEvent]:
        """Trace events for calls that repeat earlier calls (not executed), with the earlier result or error."""
        events: list[TraceEvent] = []
        for call in calls:
            failed, content = seen[_call_key(call["name"], call["args"])]
            events.append(ToolCallEvent(parent_id=parent, tool=call["name"], tool_call_id=call["id"],
                                        args=call["args"], result=None if failed else content,
                                        error=content if failed else None, status="repeated"))
        return events

    def _skipped(self, reply: AIMessage, parent: str | None, msg: str) -> list[TraceEvent]:
        """Trace events for the tool calls of ``reply`` that are not executed (every call the model made is traced;
        a final_answer call is the answer, read from the model call's reply, not a tool call)."""
        final = self.final_tool.name if self.final_tool is not None else None
        return [ToolCallEvent(parent_id=parent, tool=call.get("name"), tool_call_id=call.get("id"),
                              args=args if isinstance(args := call.get("args"), dict) else {"raw": args},
                              status="skipped", error=msg)
                for call in [*reply.tool_calls, *reply.invalid_tool_calls] if call.get("name") != final]

    async def _tools(self, state: _State) -> dict[str, Any]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        parent = state["trace"][-1].id if state.get("trace") else None
        seen = dict(state.get("seen") or {})
        out: list[ToolMessage] = []
        events: list[TraceEvent] = []
        repeats = 0
        for bad in last.invalid_tool_calls:
            msg = (f"Error: {bad.get('name')!r} was not called: its arguments must be one JSON object "
                   f"({bad.get('error') or 'not valid JSON'}): {bad.get('args')}")
            out.append(ToolMessage(msg, tool_call_id=bad.get("id") or "invalid", name=bad.get("name") or "", status="error"))
            events.append(ToolCallEvent(parent_id=parent, tool=bad.get("name"), tool_call_id=bad.get("id"),
                                        args={"raw": bad.get("args")}, status="error", error=msg))
        for call in last.tool_calls:
            key = _call_key(call["name"], call["args"])
            if key in seen:
                repeats += 1
                failed, content = seen[key]
                msg = (f"You already called {call['name']} with these arguments and it failed: {content}"
                       "\nDo not call it again with the same arguments." if failed else
                       f"You already called {call['name']} with these arguments. Its result was: {content}. "
                       "Do not call it again; use this result.")
                out.append(ToolMessage(msg, tool_call_id=call["id"], name=call["name"], status="error"))
                events.extend(self._repeats([call], parent, seen))
                continue
            t0 = time.time()
            result = await self.tool_node.ainvoke({"messages": [AIMessage("", tool_calls=[call])]})
            message: ToolMessage = result["messages"][0]
            content = text_of(message)
            failed = message.status == "error"
            seen[key] = (failed, content)
            out.append(message)
            events.append(ToolCallEvent(parent_id=parent, start=t0, latency_s=time.time() - t0,
                                        tool=call["name"], tool_call_id=call["id"], args=call["args"],
                                        result=None if failed else content, error=content if failed else None,
                                        status="error" if failed else "ok"))
        update: dict[str, Any] = {"messages": out, "trace": events, "seen": seen,
                                  "tool_calls": state.get("tool_calls", 0) + len(events) - repeats}
        if repeats and repeats == len(events):
            update["stop"] = "repeated_call"
        return update

    async def _finalize(self, state: _State) -> dict[str, Any]:
        last = state["messages"][-1]
        extra: list[AnyMessage] = []
        skipped: list[TraceEvent] = []
        if isinstance(last, AIMessage):  # calls the limits stopped still need an answer in the history
            parent = state["trace"][-1].id if state.get("trace") else None
            msg = f"Not executed: the {state.get('stop')} was reached."
            skipped = self._skipped(last, parent, msg)
            extra = [ToolMessage(msg, tool_call_id=call.get("id") or "skipped", name=call.get("name") or "",
                                 status="error") for call in [*last.tool_calls, *last.invalid_tool_calls]]
        prompt = FINALIZE_PROMPT if self.final_tool is None else FINALIZE_STRUCTURED
        update = await self._model_call(state, extra=[*extra, HumanMessage(prompt)], last=True)
        update["trace"] = skipped + update["trace"] + self._skipped(
            update["messages"][-1], update["trace"][-1].id, "Not executed: the final-answer call may not call tools.")
        update["stop"] = state.get("stop") or "step_limit"  # reached after tools with one call left
        return update

    def _after_agent(self, state: _State) -> str:
        last = state["messages"][-1]
        if state.get("stop") in ("token_limit", "answered") or state.get("steps", 0) >= self.limits.max_steps:
            return END
        if state.get("stop"):
            return "finalize"
        if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls):
            return "tools"
        return END

    def _after_tools(self, state: _State) -> str:
        """After executing a round of calls: the last allowed call, when only one is left, is the final-answer call."""
        return "finalize" if state.get("stop") or state.get("steps", 0) + 1 >= self.limits.max_steps else "agent"

    def _build(self) -> Any:
        g = StateGraph(_State)
        g.add_node("agent", self._agent)
        g.add_node("tools", self._tools)
        g.add_node("finalize", self._finalize)
        g.add_edge(START, "agent")
        g.add_conditional_edges("agent", self._after_agent, ["tools", "finalize", END])
        g.add_conditional_edges("tools", self._after_tools, ["agent", "finalize"])
        g.add_edge("finalize", END)
        return g.compile()

    async def run(self, messages: Sequence[ChatLike], trace_sink: list[TraceEvent] | None = None) -> AgentResult:
        """Run the loop on one sample's messages.

        ``trace_sink``, if given, is kept equal to the trace so far while the loop runs, so a caller that
        cancels the run (a wall-clock limit) still has what happened. A failure raises :class:`AgentError`.
        """
        t0 = time.time()
        state: dict[str, Any] = {"trace": []}
        try:
            async for state in self.graph.astream(
                {"messages": to_langchain(messages), "trace": [], "steps": 0, "tool_calls": 0, "sent": 0, "seen": {},
                 "tokens": 0},
                config={"recursion_limit": 3 * self.limits.max_steps + 6}, stream_mode="values",
            ):
                if trace_sink is not None:
                    trace_sink[:] = state.get("trace", [])
        except ModelCallError as exc:
            raise AgentError(str(exc), [*state.get("trace", []), exc.event]) from exc.cause
        except Exception as exc:  # noqa: BLE001 - any failure keeps the partial trace
            raise AgentError(describe(exc), list(state.get("trace", []))) from exc
        last = state["messages"][-1]
        final = text_of(last) if isinstance(last, AIMessage) else ""
        return AgentResult.from_trace(final, state["trace"], time.time() - t0,
                                      stop_reason=state.get("stop") or "answered")
