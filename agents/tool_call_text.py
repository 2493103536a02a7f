"""Find tool calls that a small model wrote as text, and render tool-call history for its template.

Qwen-style models write calls as ``<tool_call>{...}</tool_call>`` blocks, as fenced JSON, or as a JSON object
inside prose; some copy the template's doubled braces ``{{"name": ...}}``. After a tool result they often echo
the call with an added ``"result"`` field: that is not a new call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

TOOL_CALL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
FENCE = re.compile(r"```(?:json|tool_call)?\s*(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def _objects(text: str) -> list[tuple[int, int, dict[str, Any]]]:
    """Every top-level JSON object in ``text`` as (start, end, value), doubled braces tolerated."""
    found: list[tuple[int, int, dict[str, Any]]] = []
    i = 0
    while (i := text.find("{", i)) != -1:
        for candidate, shift in ((text[i:], 0), (_undouble(text[i:]), 1)):
            try:
                value, end = _DECODER.raw_decode(candidate)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                span_end = i + end + (_doubled_extra(text[i:], end) if shift else 0)
                found.append((i, span_end, value))
                i = span_end - 1
                break
        i += 1
    return found


def _undouble(s: str) -> str:
    return s[1:] if s.startswith("{{") else s


def _doubled_extra(original: str, end: int) -> int:
    # the undoubled candidate dropped one leading brace; the original also ends with an extra "}"
    tail = original[end + 1:end + 2]
    return 2 if tail == "}" else 1


def _as_call(obj: dict[str, Any], known: set[str] | None) -> dict[str, Any] | None:
    if "result" in obj or "output" in obj:  # an echo of an earlier call with its result
        return None
    name = obj.get("name")
    args = obj.get("arguments", obj.get("parameters", obj.get("args")))
    if not isinstance(name, str) or (known is not None and name not in known):
        return None
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return {"name": name, "arguments": args, "invalid": True}
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None
    return {"name": name, "arguments": args}


def _located_calls(text: str, known: set[str]) -> tuple[list[dict[str, Any]], list[tuple[int, int]]]:
    """The calls in ``text`` (see :func:`extract_tool_calls`) and the spans of text they were read from."""
    blocks = list(TOOL_CALL_BLOCK.finditer(text))
    calls: list[dict[str, Any]] = []
    spans: list[tuple[int, int]] = []
    for block in blocks:
        for _, _, obj in _objects(block.group(1)):
            call = _as_call(obj, None)
            if call:
                calls.append(call)
                spans.append(block.span())
                break
    if calls:
        return calls, spans
    for fence in FENCE.finditer(text):
        found = [c for _, _, o in _objects(fence.group(1)) if (c := _as_call(o, known))]
        if found:
            return found, [fence.span()]
    for start, end, obj in _objects(text):
        call = _as_call(obj, known)
        if call:
            return [call], [(start, end)]
    return [], []


def extract_tool_calls(text: str, tool_names: Iterable[str]) -> list[dict[str, Any]]:
    """Tool calls in ``text`` as ``{"name", "arguments"}`` dicts, in order.

    ``<tool_call>`` blocks win; otherwise fenced JSON; otherwise the first JSON object in prose that names a
    known tool. Blocks may name unknown tools (the agent then reports the error to the model); the looser
    forms must name a known tool.
    """
    return _located_calls(text, set(tool_names))[0]


EMPTY_WRAPPER = re.compile(r"<(tools?|tool_call)>\s*</\1>|```(?:json|tool_call)?\s*```")


def strip_tool_calls(text: str, tool_names: Iterable[str]) -> str:
    """``text`` without the calls :func:`extract_tool_calls` reads in it (a ``<tool_call>`` block, a fence, or the
    JSON object in prose, and a wrapper left empty), so the template, which re-renders the calls from
    ``tool_calls``, does not show them twice."""
    _, spans = _located_calls(text, set(tool_names))
    for start, end in reversed(spans):
        text = text[:start] + text[end:]
    return EMPTY_WRAPPER.sub("", text).strip()
