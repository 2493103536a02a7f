"""Tool-result fidelity: does a final answer agree with what the sample's successful tool calls returned?

A result is *checked* when it was answered (status ok), its answer parsed (score status ``answered``) and at
least one tool call returned a result (trace ``ToolCallEvent`` status ``ok``). It *agrees* when its parsed answer
matches some leaf value of those JSON results:

- numbers within 1 % of the leaf or 0.5 absolute, whichever is larger (no task exposes a tolerance of its own);
- texts case-, space- and hyphen-insensitively; a compass abbreviation (``E``, ``NNE``) also reads as its name
  (``east``, ``north-northeast``), a ``UTC±H[:MM]`` offset also as its minutes east of UTC, yes/no as booleans;
- a multiple-choice answer (an option number or index, ``{"choice": i}``) by its option's text (the sample's
  ``choices``, numbered by ``payload["options"]`` where the task numbers them) and the number that text starts
  with ("2 times");
- a flat list or mapping (a coordinate pair) when each of its numbers and texts matches (flags are skipped).

It is *not comparable* when no tool result is JSON, when some part of the answer has no leaf of its kind (a number
answered where the tools returned only names), when the answer is nested (a clock time with its date readings),
or when an option answer has no sample to read its text from; when nothing matches and some tool result is not
JSON it is not comparable either (that result may hold the value). Otherwise it *disagrees*.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from agents.trace import ModelCallEvent, ToolCallEvent, TraceEvent
from evals.records import SampleResult
from geocore.geodesy import COMPASS_16, compass_name
from tasks.records import Sample

Verdict = Literal["agree", "disagree", "not_comparable"]
Form = tuple[Literal["number", "text", "bool"], Any]

REL_TOL = 0.01
ABS_TOL = 0.5
_OFFSET = re.compile(r"(?:UTC|GMT)\s?([+-])(\d{1,2})(?::(\d{2}))?", re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?![\d.])")
_YES_NO = {"yes": True, "no": False, "true": True, "false": False}


def _text(s: str) -> str:
    return re.sub(r"[\s\-_]+", "", s.casefold())


def forms(value: Any) -> list[Form]:
    """The ways one scalar can match: a number, a normalised text (and what it also reads as) or a boolean."""
    if isinstance(value, bool):
        return [("bool", value)]
    if isinstance(value, int | float):
        return [("number", float(value))] if math.isfinite(value) else []
    if not isinstance(value, str):
        return []
    out: list[Form] = [("text", _text(value))]
    key = value.strip().upper()
    if key in COMPASS_16:
        out.append(("text", _text(compass_name(key))))
    if (m := _OFFSET.fullmatch(value.strip())) is not None:
        sign = -1 if m.group(1) == "-" else 1
        out.append(("number", float(sign * (60 * int(m.group(2)) + int(m.group(3) or 0)))))
    if _text(value) in _YES_NO:
        out.append(("bool", _YES_NO[_text(value)]))
    return out


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif value is not None:
        yield value


def _same(a: Form, b: Form) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "number":
        return abs(a[1] - b[1]) <= max(REL_TOL * abs(b[1]), ABS_TOL)
    return bool(a[1] == b[1])


def _option_text(value: Any, sample: Sample) -> str | None:
    """The text of the option a multiple-choice answer chose, None when it names none."""
    choice = value.get("choice") if isinstance(value, dict) else value
    if not isinstance(choice, int) or isinstance(choice, bool):
        return None
    numbered = sample.payload.get("options")
    if isinstance(numbered, list) and all(isinstance(o, list) and len(o) == 2 and isinstance(o[1], str)
                                          for o in numbered):
        return next((label for n, label in numbered if n == choice), None)
    choices = sample.choices or ()
    return choices[choice] if 0 <= choice < len(choices) else None


def _is_option(value: Any) -> bool:
    """An int or ``{"choice": ...}``: an option when the sample has choices (a plain number otherwise)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, dict) and "choice" in value)


def _answer_items(answer: Any, sample: Sample | None) -> list[list[Form]] | None:
    """The forms of each part of ``answer`` that must match; None when it cannot be compared."""
    if _is_option(answer) and (sample is None or sample.choices):
        text = _option_text(answer, sample) if sample is not None else None
        if text is None:
            return None
        number = _LEADING_NUMBER.match(text.strip())
        return [forms(text) + (forms(float(number.group())) if number else [])]
    if isinstance(answer, dict | list):
        parts = list(answer.values()) if isinstance(answer, dict) else answer
        if any(isinstance(p, dict | list) for p in parts):
            return None
        items = [forms(p) for p in parts if p is not None and not isinstance(p, bool)]
    else:
        items = [forms(answer)]
    return items if items and all(items) else None


def check(answer: Any, tool_results: Sequence[str], sample: Sample | None) -> Verdict:
    """Whether ``answer`` (a parsed answer value) agrees with the leaves of ``tool_results`` (successful tool
    results as returned), reading option answers through ``sample``; see the module docstring."""
    parsed: list[Any] = []
    for text in tool_results:
        try:
            parsed.append(json.loads(text))
        except ValueError:
            continue
    leaves = [f for value in parsed for leaf in _leaves(value) for f in forms(leaf)]
    items = _answer_items(answer, sample)
    if items is None or not leaves:
        return "not_comparable"
    kinds = {f[0] for f in leaves}
    if any(not any(f[0] in kinds for f in item) for item in items):
        return "not_comparable"
    if all(any(_same(f, leaf) for f in item for leaf in leaves) for item in items):
        return "agree"
    return "not_comparable" if len(parsed) < len(tool_results) else "disagree"


def split_tool_calls(trace: Sequence[TraceEvent]) -> tuple[list[ToolCallEvent], list[ToolCallEvent]]:
    """The trace's executed tool calls (status ok or error) to a tool its model call offered, and those to a tool
    it did not offer (an unknown name, or no name). A model call that recorded no offer (``tools_offered`` None)
    leaves its calls counted as offered: nothing says otherwise."""
    offers = {e.id: e.tools_offered for e in trace if isinstance(e, ModelCallEvent)}
    known = {t for tools in offers.values() if tools for t in tools}
    offered: list[ToolCallEvent] = []
    unknown: list[ToolCallEvent] = []
    for e in trace:
        if not isinstance(e, ToolCallEvent) or e.status not in ("ok", "error"):
            continue
        tools = offers.get(e.parent_id) if e.parent_id in offers else (known or None)
        (offered if tools is None or e.tool in tools else unknown).append(e)
    return offered, unknown


def ok_tool_results(trace: Sequence[TraceEvent]) -> list[str]:
    """What the trace's successful calls to offered tools returned, in order."""
    return [e.result or "" for e in split_tool_calls(trace)[0] if e.status == "ok"]


def of_result(r: SampleResult, sample: Sample | None) -> Verdict | None:
    """The fidelity of one result, None when it is not checked (failed, no parsed answer, or no tool call that
    succeeded). A result read without its trace but counting successful tool calls is not comparable."""
    if r.status != "ok" or r.score is None or r.score.status != "answered" or r.parsed is None:
        return None
    results = ok_tool_results(r.trace)
    if not results:
        return "not_comparable" if not r.trace and r.tool_calls > r.tool_errors else None
    return check(r.parsed.value, results, sample)
