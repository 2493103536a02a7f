"""The final-answer tool of the structured answer channel (LangChain's ToolStrategy pattern): the model commits its
answer as the arguments of one ``final_answer`` call whose schema is the task's typed answer. The tool is never
executed; the agent stops at the call and the arguments are read from the trace (:func:`final_call`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Literal, get_args

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel

from agents.trace import ModelCallEvent, TraceEvent

AnswerChannel = Literal["text", "structured"]
"""How a run's final answers are given: the prompt's answer line (``text``, the papers' way and the default) or a
typed ``final_answer`` tool call (``structured``)."""
ANSWER_CHANNELS: tuple[AnswerChannel, ...] = get_args(AnswerChannel)
FINAL_ANSWER = "final_answer"
FENCE = re.compile(r"\A```(?:json)?\s*\n?(.*?)\n?```\Z", re.DOTALL)
STRUCTURED_NOTE = (f"Give your final answer by calling the {FINAL_ANSWER} tool once, with the answer in its "
                   "arguments; the answer is read only from that call.")
"""The system note of every condition under the structured channel (the same in each, so pairs stay fair)."""
FINALIZE_STRUCTURED = (f"Stop calling tools now. Using the tool results above, call {FINAL_ANSWER} with your final "
                       "answer.")


def _not_executed(**_: Any) -> str:  # pragma: no cover - the agent stops at the call
    return "recorded"


def final_answer_tool(schema: type[BaseModel]) -> BaseTool:
    """The ``final_answer`` tool taking ``schema``'s fields as its arguments."""
    return StructuredTool.from_function(_not_executed, name=FINAL_ANSWER, args_schema=schema,
                                        description="Commit your final answer. Call it once, last.")


def final_call(trace: list[TraceEvent]) -> tuple[dict[str, Any] | list[dict[str, Any]] | None, str]:
    """The arguments of the ``final_answer`` call of the last model call in ``trace``
    (:func:`final_answer_args`)."""
    last = next((e for e in reversed(trace) if isinstance(e, ModelCallEvent)), None)
    out = (last.message_out or {}) if last is not None else {}
    content = out.get("content")
    return final_answer_args(out.get("tool_calls") or (), out.get("invalid_tool_calls") or (),
                             content if isinstance(content, str) else "")


def final_answer_args(tool_calls: Iterable[dict[str, Any]], invalid_tool_calls: Iterable[dict[str, Any]] = (),
                      content: str = "") -> tuple[dict[str, Any] | list[dict[str, Any]] | None, str]:
    """The arguments of one reply's ``final_answer`` calls (LangChain's ``tool_calls`` dicts); a list of them when
    the reply made several with different answers (a hedge: ``working`` aside); None, with why, when there are
    none (no call, or arguments that are not a JSON object). A reply with no call whose whole text ``content`` is
    one JSON object (fenced or not) gives that object, as a provider's JSON mode does: it is the answer only if
    it validates against the answer's schema (:func:`tasks.answer_kinds.read_structured`), so prose, a list or
    another tool's call echoed stays unlocated."""
    answers: list[dict[str, Any]] = []
    for call in tool_calls:
        if call.get("name") == FINAL_ANSWER:
            args = call.get("args")
            if not isinstance(args, dict):
                return None, f"{FINAL_ANSWER} arguments are not an object"
            if all(_answer_part(args) != _answer_part(seen) for seen in answers):
                answers.append(args)
    if answers:
        return answers[0] if len(answers) == 1 else answers, ""
    for bad in invalid_tool_calls:
        if bad.get("name") == FINAL_ANSWER:
            return None, f"{FINAL_ANSWER} arguments are not valid JSON: {str(bad.get('args'))[:200]}"
    if (whole := _whole_json_object(content)) is not None:
        return whole, ""
    return None, f"the reply never called {FINAL_ANSWER}"


def _whole_json_object(content: str) -> dict[str, Any] | None:
    """``content`` as a JSON object when that is all it is (a Markdown code fence around it allowed)."""
    text = FENCE.sub(r"\1", content.strip()).strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _answer_part(args: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments without its free-text ``working``: what two calls must share to be one answer."""
    return {k: v for k, v in args.items() if k != "working"}
