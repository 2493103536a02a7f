"""The tool-use funnel: how far a tools sample got from calling a tool to being credited, and where it stopped.

A task declares the domain tool call that computes its gold (``Task.gold_call(sample)`` →
:class:`tasks.records.GoldCall`). A sample's executed tool calls (trace status ok or error) pass, in order
(:data:`evals.records.FUNNEL_STEPS`):

1. ``called_tool``: some tool was called;
2. ``right_tool``: a tool that can compute the answer (``GoldCall.tools``, or a generic tool of
   ``GoldCall.generic``: ``calculator``, ``python``);
3. ``right_args``: such a call with the item's arguments. Domain tools: coordinates within
   :data:`COORD_TOL` degrees; other numbers within 1e-6; times equal; places with the same UTC offset at the
   item's time. A miss is named: ``latlon_swapped`` (each point's latitude and longitude exchanged),
   ``points_swapped`` (A and B exchanged, right for a symmetric gold), ``radians`` (coordinates in radians),
   ``wrong_zone``, ``wrong_time``, ``wrong_args``. Generic tools: each number of the gold call appears in the
   expression or code (within the same tolerance) and each place by its city name or a time zone of the same
   offset; a miss is ``wrong_args``;
4. ``tool_returned_gold``: one of those calls returned the gold (its ``result_key``; a generic tool's output
   holding a number within the tolerance, or the gold text); else ``tool_error`` (all failed) or ``wrong_result``;
5. ``answer_matches_tool``: the parsed answer agrees with that result (:func:`evals.fidelity.check`; when it
   cannot be compared, a credited answer agrees); an answer that is not ``answered`` stops here with its status,
   a disagreeing one is ``ignored_result``;
6. ``credited``: the scorer credited it (else ``not_credited``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from agents.trace import ToolCallEvent, TraceEvent
from evals import fidelity
from evals.records import FUNNEL_STEPS, FunnelStep, SampleResult
from geocore import timecalc
from tasks.records import GoldCall, Parsed, Sample, Score

COORD_TOL = 0.01  # degrees (about 1 km): the printed coordinates, rounded to two decimals, still pass
COORD_KEYS = (("lat1", "lon1"), ("lat2", "lon2"), ("lat", "lon"))
PLACE_KEYS = ("place", "from_place", "to_place")
TIME_KEYS = ("local_time",)
GENERIC_TEXT = {"calculator": "expression", "python": "code"}
# a minus is a sign unless it follows a name, a number or a closing bracket ("141.55-37.26" holds 37.26)
_NUMBER = re.compile(r"(?:(?<![\w.)\]])-)?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_ZONE = re.compile(r"\b[A-Z][A-Za-z_]+/[A-Za-z_]+(?:/[A-Za-z_]+)?\b")


def _close(a: Any, b: Any, tol: float) -> bool:
    try:
        return abs(float(a) - float(b)) <= tol
    except (TypeError, ValueError):
        return False


def _points(args: dict[str, Any]) -> list[tuple[Any, Any]]:
    return [(args.get(la), args.get(lo)) for la, lo in COORD_KEYS if la in args or lo in args]


def _offset_at(place: str, local: str) -> Any:
    where = timecalc.resolve_place(place, "place")
    return timecalc.at_place(timecalc.parse_local_datetime(local, "time"), where).utcoffset()


def _coordinates_verdict(got: dict[str, Any], gold: GoldCall) -> str | None:
    want = _points(gold.args)
    if not want:
        return None
    have = _points(got)
    if len(have) != len(want):
        return "wrong_args"

    def same(pts: Sequence[tuple[Any, Any]], tol: float = COORD_TOL) -> bool:
        return all(_close(h[0], w[0], tol) and _close(h[1], w[1], tol) for h, w in zip(have, pts, strict=True))

    if same(want):
        return None
    if len(want) == 2 and same(want[::-1]):
        return None if gold.symmetric else "points_swapped"
    if same([(lo, la) for la, lo in want]) or (len(want) == 2 and same([(lo, la) for la, lo in want[::-1]])):
        return "latlon_swapped"
    if same([(float(la) * 0.017453292519943295, float(lo) * 0.017453292519943295) for la, lo in want], 1e-4):
        return "radians"
    return "wrong_args"


def _domain_args(got: dict[str, Any], gold: GoldCall) -> str | None:
    """None when ``got`` are the gold call's arguments, else the named miss."""
    verdict = _coordinates_verdict(got, gold)
    if verdict:
        return verdict
    coordinate_keys = {k for pair in COORD_KEYS for k in pair}
    start = next((str(gold.args[k]) for k in TIME_KEYS if k in gold.args), None)
    for key, want in gold.args.items():
        if key in coordinate_keys:
            continue
        have = got.get(key)
        if key in TIME_KEYS:
            try:
                if timecalc.parse_local_datetime(str(have)) != timecalc.parse_local_datetime(str(want)):
                    return "wrong_time"
            except ValueError:
                return "wrong_time"
        elif key in PLACE_KEYS:
            try:
                if start is None or _offset_at(str(have), start) != _offset_at(str(want), start):
                    return "wrong_zone"
            except ValueError:
                return "wrong_zone"
        elif isinstance(want, int | float):
            if not _close(have, want, 1e-6 * max(1.0, abs(float(want)))):
                return "wrong_args"
        elif str(have).casefold() != str(want).casefold():
            return "wrong_args"
    return None


def _generic_args(text: str, gold: GoldCall) -> str | None:
    """None when the expression or code holds every number and place of the gold call."""
    numbers = [float(n) for n in _NUMBER.findall(text)]
    start = next((str(gold.args[k]) for k in TIME_KEYS if k in gold.args), None)
    for key, want in gold.args.items():
        if isinstance(want, int | float) and not isinstance(want, bool):
            if not any(abs(n - float(want)) <= COORD_TOL for n in numbers):
                return "wrong_args"
        elif key in PLACE_KEYS:
            city = str(want).split(",")[0].strip().casefold()
            if city in text.casefold():
                continue
            try:
                target = _offset_at(str(want), start) if start else None
                zones = [z for z in _ZONE.findall(text) if _safe_offset(z, start) == target]
            except ValueError:
                zones = []
            if not zones:
                return "wrong_zone"
    return None


def _safe_offset(zone: str, start: str | None) -> Any:
    try:
        return _offset_at(zone, start) if start else None
    except ValueError:
        return None


def _dig(value: Any, key: str) -> Any:
    for part in key.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def _is_gold(value: Any, gold: GoldCall) -> bool:
    if isinstance(gold.gold, str):
        return isinstance(value, str) and value.strip().casefold() == gold.gold.casefold()
    try:
        diff = abs(float(value) - float(gold.gold))
    except (TypeError, ValueError):
        return False
    if gold.angle:
        diff = min(diff % 360.0, 360.0 - diff % 360.0)
    return diff <= max(gold.tolerance, 1e-9)


def _returned_gold(call: ToolCallEvent, gold: GoldCall) -> bool:
    if call.status != "ok" or call.result is None:
        return False
    if call.tool in gold.tools:
        try:
            return _is_gold(_dig(json.loads(call.result), gold.result_key), gold)
        except ValueError:
            return False
    if isinstance(gold.gold, str):
        text = call.result.casefold()
        return gold.gold.casefold() in text or gold.gold.replace(" ", "T").casefold() in text
    return any(_is_gold(float(n), gold) for n in _NUMBER.findall(call.result))


def _args_miss(call: ToolCallEvent, gold: GoldCall) -> str | None:
    if call.tool in gold.tools:
        return _domain_args(call.args, gold)
    return _generic_args(str(call.args.get(GENERIC_TEXT.get(call.tool or "", ""), "")), gold)


def step(trace: Sequence[TraceEvent], gold: GoldCall, parsed: Parsed | None, score: Score | None,
         sample: Sample | None) -> FunnelStep:
    """The funnel step one tools sample reached (see the module docstring)."""
    calls = [e for e in trace if isinstance(e, ToolCallEvent) and e.status in ("ok", "error")]
    if not calls:
        return FunnelStep(passed=0, failed=FUNNEL_STEPS[0], reason="no_tool")
    capable = [c for c in calls if c.tool in gold.tools or (c.tool in gold.generic and c.tool in GENERIC_TEXT)]
    if not capable:
        return FunnelStep(passed=1, failed=FUNNEL_STEPS[1], reason="wrong_tool", tool=calls[-1].tool)
    misses = [(c, _args_miss(c, gold)) for c in capable]
    right = [c for c, miss in misses if miss is None]
    if not right:
        last, miss = misses[-1]
        return FunnelStep(passed=2, failed=FUNNEL_STEPS[2], reason=miss, tool=last.tool)
    gold_calls = [c for c in right if _returned_gold(c, gold)]
    if not gold_calls:
        reason = "tool_error" if all(c.status == "error" for c in right) else "wrong_result"
        return FunnelStep(passed=3, failed=FUNNEL_STEPS[3], reason=reason, tool=right[-1].tool)
    call = gold_calls[-1]
    credited = bool(score and score.correct)
    status = score.status if score else "unparsed"
    if parsed is None or status != "answered":
        return FunnelStep(passed=4, failed=FUNNEL_STEPS[4], reason=status, tool=call.tool)
    verdict = fidelity.check(parsed.value, [call.result or ""], sample)
    if verdict == "disagree" or (verdict == "not_comparable" and not credited):
        return FunnelStep(passed=4, failed=FUNNEL_STEPS[4], reason="ignored_result", tool=call.tool)
    if not credited:
        return FunnelStep(passed=5, failed=FUNNEL_STEPS[5], reason="not_credited", tool=call.tool)
    return FunnelStep(passed=6, tool=call.tool)


def of_sample(trace: Sequence[TraceEvent], task: Any, sample: Sample, parsed: Parsed | None,
              score: Score | None) -> FunnelStep | None:
    """The funnel step of a tools sample whose task declares its gold call (``gold_call``), else None."""
    gold_call = getattr(task, "gold_call", None)
    gold = gold_call(sample) if gold_call is not None else None
    return step(trace, gold, parsed, score, sample) if gold is not None else None


class Funnel(BaseModel):
    """A tool condition's funnel: of its answered samples with a funnel step, how many passed each step, and
    why the others stopped."""

    n: int = Field(description="Answered samples (status ok) with a funnel step (their task declares its gold call)")
    reached: dict[str, int] = Field(description="Per step (FUNNEL_STEPS), samples that passed it")
    stopped: dict[str, int] = Field(description="Samples that stopped, by reason")
    credited_without_funnel: int = Field(description="Credited samples that stopped before the end (answered "
                                         "right without following the gold call: by hand or another route)")


def count(results: Iterable[SampleResult]) -> Funnel | None:
    """The funnel of answered results that carry a step; None when none does."""
    steps = [(r.funnel, bool(r.score and r.score.correct)) for r in results if r.status == "ok" and r.funnel]
    if not steps:
        return None
    return Funnel(n=len(steps), reached={s: sum(1 for f, _ in steps if f.passed > i) for i, s in enumerate(FUNNEL_STEPS)},
                  stopped=dict(Counter(f.reason or "" for f, _ in steps if f.failed)),
                  credited_without_funnel=sum(1 for f, ok in steps if ok and f.failed))


def line(funnel: Funnel) -> str:
    """``10 → called 9 → tool 8 → args 6 → gold 6 → kept 5 → credited 5``: the counts down the funnel."""
    short = ("called", "tool", "args", "gold", "kept", "credited")
    return " → ".join([str(funnel.n)] + [f"{name} {funnel.reached[s]}" for name, s in zip(short, FUNNEL_STEPS, strict=True)])
