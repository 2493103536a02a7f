"""Aggregate stored results: per task and condition, paired gaps, tool use, breakdowns, run-vs-run comparisons.

Errors are not answers: a sample whose model call failed (status ``error``) is left out of accuracy, of the
paired gap and of McNemar, and counted apart; a task or condition with errors is marked incomplete.
``not_applicable`` results are left out on both sides.

Epochs are clustered by item (sample id): each item's answered epochs (status ok) are averaged first, and every
accuracy, interval and test is over items, never over (item, epoch) answers, which are not independent. The
accuracy is the mean of the items' accuracies with a Wilson interval over the items; the paired gap is the mean
of the items' differences (items answered in both conditions) with a percentile bootstrap over items; its test
is the exact sign-flip test on those differences (:func:`evals.stats.sign_flip_p`), which is exact McNemar when
each item's epochs agree. With one epoch all of these are the classic ones; k epochs that answer alike give
exactly the one-epoch figures. Among answered samples the answer statuses (answered,
hedged, unparsed, refused, truncated, blocked) are counted and given as shares; truncated and blocked answers
are in n and never credited, like hedged and refused ones. Each tool condition's answered samples are split by
whether they called a tool (accuracy each way, the paired cells against the baseline) and checked against what
their tools returned (:mod:`evals.fidelity`).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from agents.trace import ModelCallEvent
from evals import fidelity
from evals.funnel import Funnel
from evals.funnel import count as funnel_counts
from evals.records import SampleResult
from evals.stats import error_summary, paired_bootstrap_gap, sign_flip_p, wilson
from tasks.records import ANSWER_STATUSES, Sample
from tasks.registry import task_breakdowns

BASELINE_CONDITION = "intrinsic"
FAMILY = "family"
"""The breakdown every result has, by its task's family; the others are what each task declares
(:attr:`tasks.base.GeneratedTask.breakdowns`, read through :func:`tasks.registry.task_breakdowns`)."""
ALL_TASKS = "all"


class ConditionSummary(BaseModel):
    """One task (or group) under one condition."""

    n: int = Field(description="Answers (status ok), one per sample and epoch; errors and not-applicable ones "
                   "left out")
    items: int = Field(default=0, description="Distinct samples answered at least once: what the interval and the "
                       "gap count (= n with one epoch)")
    correct: int
    accuracy: float = Field(description="Mean over the items of each item's accuracy over its answered epochs "
                            "(= correct / n with one epoch, or when every item has as many answered epochs)")
    ci: tuple[float, float] = Field(description="Wilson 95 % interval of the accuracy over the items")
    mean_score: float = Field(description="Mean Score.value (accuracy, ST-IoU, ...), items weighted equally")
    parse_failures: int = Field(description="Answered samples whose reply gave no creditable answer (not 'answered')")
    parse_failure_rate: float = 0.0
    statuses: dict[str, int] = Field(default_factory=dict,
                                     description="Answer statuses of the n samples (tasks.records.ANSWER_STATUSES)")
    status_shares: dict[str, float] = Field(default_factory=dict, description="statuses / n; with --judge also "
                                            "'judged', the answered ones whose answer the judge located")
    judged: int = Field(default=0, description="Answered samples whose answer --judge located (the rules left them "
                        "unlocated); counted in 'answered'")
    errors: int = Field(description="Samples whose model call failed (provider error after retries, timeout, ...): "
                        "not in n, accuracy or the gap")
    complete: bool = Field(default=True, description="No sample ended in error")
    not_applicable: int = 0
    mean_error: float | None = Field(default=None, description="Mean absolute continuous error; null when the "
                                     "answers' errors are in different units (km, degrees, minutes: never pooled)")
    error_unit: str | None = None
    error_summary: dict[str, float] | None = Field(default=None, description="Continuous error: n, mean, median, "
                                                   "p90, max; null when units differ")
    tool_calls_per_sample: float = Field(default=0.0, description="Executed calls to offered tools / n")
    samples_with_tool_calls: int = Field(default=0, description="Answers with a call to an offered tool")
    unknown_tool_calls: int = Field(default=0, description="Calls to tools not offered (unknown names), apart")
    tool_error_rate: float | None = Field(default=None, description="Tool calls that returned an error / tool calls")
    input_tokens: int = 0
    output_tokens: int = 0
    output_tokens_per_sample: dict[str, float] | None = Field(default=None, description=(
        "Output tokens per answered sample (status ok), over all its model calls (the tools condition makes up to "
        "--max-steps calls, each up to --max-tokens): mean and median; null when n is 0"))
    truncated_share: float | None = Field(default=None, description=(
        "Answered samples whose last model call stopped at the output-token limit (status truncated) / n; null "
        "when n is 0"))
    cached_tokens: int = Field(default=0, description="Prompt tokens the provider read from its prompt (KV) cache, "
                               "part of input_tokens (failed samples included)")
    cached_share: float | None = Field(default=None, description="cached_tokens / input_tokens; null without input "
                                       "tokens")
    cost_usd: float | None = None
    mean_latency_s: float = 0.0
    latency_s: dict[str, float] | None = Field(default=None, description=(
        "Wall-clock seconds per answered sample (status ok), all its calls: p50 and p95 (linear interpolation); "
        "calls answered from the model-call cache take almost none; null when n is 0"))
    tokens_per_answered: float | None = Field(default=None, description=(
        "Input + output tokens spent (failed samples included) / answered samples; null when n is 0"))
    cost_per_answered_usd: float | None = Field(default=None, description=(
        "cost_usd (failed samples included: they were paid for) / answered samples; null when n is 0 or the cost "
        "is unknown"))
    retries: int = 0
    cache_hits: int = 0
    stop_reasons: dict[str, int] = Field(default_factory=dict)


class Rate(BaseModel):
    """Accuracy of some answers, epochs clustered by item (mean of the items' accuracies, = correct / n with one
    epoch), with its Wilson 95 % interval over the items; accuracy and interval null when n is 0."""

    n: int
    correct: int
    items: int = 0
    accuracy: float | None
    ci: tuple[float, float] | None

    @classmethod
    def of(cls, results: Sequence[SampleResult]) -> Rate:
        n, correct = len(results), sum(1 for r in results if _correct(r))
        means = list(item_means(results).values())
        acc = sum(means) / len(means) if means else None
        return cls(n=n, correct=correct, items=len(means), accuracy=acc,
                   ci=wilson(sum(means), len(means)) if means else None)


class PairedToolUse(BaseModel):
    """Pairs with the baseline (same sample id and epoch, answered in both) by baseline right/wrong, tools used
    or not in this condition, and this condition right/wrong: the eight cells of the 2×2×2, each named. These
    are counts of answers (one per epoch), descriptive: no interval is drawn from them."""

    n_paired: int = Field(description="Pairs answered (status ok) in both conditions; failed samples never pair")
    gained_with_tools: int = Field(description="Baseline wrong, called a tool, right")
    lost_despite_tools: int = Field(description="Baseline right, called a tool, wrong")
    same_with_tools_right: int = Field(description="Called a tool, right in both")
    same_with_tools_wrong: int = Field(description="Called a tool, wrong in both")
    never_tried_gained: int = Field(description="Baseline wrong, no tool call, right")
    never_tried_lost: int = Field(description="Baseline right, no tool call, wrong")
    never_tried_same_right: int = Field(description="No tool call, right in both")
    never_tried_same_wrong: int = Field(description="No tool call, wrong in both")


class Fidelity(BaseModel):
    """Whether final answers agree with what the tools returned (:mod:`evals.fidelity`)."""

    checked: int = Field(description="Answered samples (status ok, answer parsed) with a successful tool result "
                         "whose answer could be compared with the results' values")
    disagree: int = Field(description="Checked samples whose answer matches no value the tools returned")
    not_comparable: int = Field(description="Such samples whose answer cannot be compared (non-JSON result, no "
                                "value of the answer's kind, nested answer), counted apart")
    share: float | None = Field(description="disagree / checked; null when nothing was checked")


class ToolUse(BaseModel):
    """How one tool condition used its tools: adoption, accuracy by use, the paired cells and fidelity. Samples
    whose model call failed (status error) and not-applicable ones never enter."""

    n: int = Field(description="Samples answered (status ok) in this condition")
    used_tools: int = Field(description="Answered samples with at least one executed call (ok or error) to a tool "
                            "they were offered")
    used_share: float | None = Field(description="used_tools / n; null when n is 0")
    with_tools: Rate = Field(description="Accuracy of the answered samples that called a tool")
    without_tools: Rate = Field(description="Accuracy of the answered samples that called no tool")
    paired: PairedToolUse | None = Field(default=None, description="Against the baseline; null without one")
    fidelity: Fidelity
    funnel: Funnel | None = Field(default=None, description=(
        "The tool-use funnel of the answered samples whose task declares its gold call (evals/funnel.py); null "
        "when none does"))
    unknown_tool_calls: int = Field(default=0, description="Calls to tools the sample was not offered (unknown "
                                    "names): never adoption, never fidelity")
    samples_with_unknown_calls: int = Field(default=0, description="Answered samples with such a call")


class TaskComparison(BaseModel):
    task: str
    family: str = ""
    conditions: dict[str, ConditionSummary]
    gap: dict[str, Any] | None = Field(default=None, description="Per other condition: the paired gap vs intrinsic")
    pairwise: dict[str, Any] | None = Field(default=None, description=(
        "With three or more conditions, per pair of conditions other than the baseline ('b vs a', a listed "
        "first): the paired gap b − a on the items both answered (:func:`paired_gap`); null otherwise"))
    breakdowns: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    tool_use: dict[str, ToolUse] = Field(default_factory=dict, description=(
        "Per tool condition (its model calls were offered tools, or its name starts with 'tools'): adoption, "
        "accuracy with and without tool calls, the paired cells against the baseline and tool-result fidelity"))
    errors: int = Field(default=0, description="Samples that ended in error, over all conditions")
    complete: bool = Field(default=True, description="No sample of the task ended in error in any condition")


def family_of(task: str) -> str:
    return task.split(".", 1)[0]


def _correct(r: SampleResult) -> float:
    return float(bool(r.score and r.score.correct))


def _value(r: SampleResult) -> float:
    return float(r.score.value) if r.score else 0.0


def _items(results: Iterable[SampleResult]) -> dict[str, list[SampleResult]]:
    """Answered results (status ok) by sample id: the epochs of each item."""
    out: dict[str, list[SampleResult]] = defaultdict(list)
    for r in results:
        if r.status == "ok":
            out[r.sample_id].append(r)
    return out


def item_fractions(results: Iterable[SampleResult]) -> dict[str, Fraction]:
    """Per sample id, the exact share of its answered epochs (status ok) that are correct."""
    return {k: Fraction(sum(1 for r in rs if _correct(r)), len(rs)) for k, rs in _items(results).items()}


def item_means(results: Iterable[SampleResult], value: Callable[[SampleResult], float] | None = None) -> dict[str, float]:
    """Per sample id, the mean of ``value`` (default: correct as 0/1) over its answered epochs (status ok)."""
    fn = value or _correct
    return {k: sum(fn(r) for r in rs) / len(rs) for k, rs in _items(results).items()}


def tool_calls_of(r: SampleResult) -> tuple[int, int]:
    """Executed calls to tools ``r`` was offered, and calls to tools it was not (:func:`evals.fidelity.
    split_tool_calls`); a result read without its trace counts its stored tool calls as offered."""
    if not r.trace:
        return r.tool_calls, 0
    offered, unknown = fidelity.split_tool_calls(r.trace)
    return len(offered), len(unknown)


def _used_tools(r: SampleResult) -> bool:
    return tool_calls_of(r)[0] > 0


def answer_status(r: SampleResult) -> str:
    """The answer status of an answered result (a result without a score was never parsed: unparsed)."""
    return r.score.status if r.score else "unparsed"


def usage(results: Iterable[SampleResult]) -> dict[str, Any]:
    """What ``results`` spent, summed once for every report: tokens, cost (None when one result's cost is unknown;
    not-applicable results made no call and have none), model-call retries and cache hits."""
    rs = list(results)
    costs = [r.cost_usd for r in rs if r.status != "not_applicable"]
    return {"input_tokens": sum(r.input_tokens for r in rs), "output_tokens": sum(r.output_tokens for r in rs),
            "cached_tokens": sum(r.cached_tokens for r in rs),
            "cost_usd": None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
            "retries": sum(r.retries for r in rs), "cache_hits": sum(r.cache_hits for r in rs)}


def latency_percentiles(seconds: Sequence[float]) -> dict[str, float] | None:
    """p50 and p95 of ``seconds`` (linear interpolation between order statistics); None when empty."""
    if not seconds:
        return None
    p50, p95 = np.percentile(np.asarray(seconds, dtype=float), [50, 95])
    return {"p50": float(p50), "p95": float(p95)}


def _item_costs(results: Iterable[SampleResult]) -> dict[str, float | None]:
    """Per sample id, the mean cost of its results that made calls (failed ones included: they were paid for);
    None when one of them has no known cost."""
    by_item: dict[str, list[float | None]] = defaultdict(list)
    for r in results:
        if r.status != "not_applicable":
            by_item[r.sample_id].append(r.cost_usd)
    return {k: None if any(c is None for c in cs) else sum(c or 0.0 for c in cs) / len(cs)
            for k, cs in by_item.items()}


def cost_per_gained(base: Iterable[SampleResult], other: Iterable[SampleResult], ids: Sequence[str],
                    net_gain: float) -> float | None:
    """USD ``other`` spends beyond ``base`` on the paired items ``ids``, per answer gained net (``net_gain``: right
    answers in ``other`` minus right answers in ``base`` over those items, epochs averaged); None when nothing is
    gained net or a cost is unknown."""
    ca, cb = _item_costs(base), _item_costs(other)
    costs = [(ca.get(i), cb.get(i)) for i in ids]
    if net_gain <= 0 or any(a is None or b is None for a, b in costs):
        return None
    return sum((b or 0.0) - (a or 0.0) for a, b in costs) / net_gain


def summarise(results: Sequence[SampleResult]) -> ConditionSummary:
    """Summary of one condition's results: accuracy over the answered ones (status ok); errors and
    ``not_applicable`` ones counted apart. Tokens, cost and retries include the failed samples (they were spent)."""
    na = sum(1 for r in results if r.status == "not_applicable")
    spent = [r for r in results if r.status != "not_applicable"]
    rs = [r for r in spent if r.status == "ok"]
    n, n_errors = len(rs), len(spent) - len(rs)
    correct = sum(1 for r in rs if r.score and r.score.correct)
    accuracies, scores = item_means(rs), item_means(rs, _value)
    with_error = [r.score for r in rs if r.score and r.score.error is not None]
    units = {s.error_unit for s in with_error}
    errors = [s.error for s in with_error if s.error is not None] if len(units) == 1 else []  # never mix units
    unit = next(iter(units)) if len(units) == 1 else None
    statuses = Counter(answer_status(r) for r in rs)
    counts: dict[str, int] = {s: statuses.get(s, 0) for s in ANSWER_STATUSES}
    parse_failures = n - counts["answered"]
    judged = sum(1 for r in rs if r.judge is not None and r.judge.verdict == "answer")
    shares = {s: c / n if n else 0.0 for s, c in counts.items()}
    if any(r.judge is not None for r in rs):
        shares["judged"] = judged / n
    outs = [r.output_tokens for r in rs]
    calls = [tool_calls_of(r) for r in rs]
    tool_calls = sum(c for c, _ in calls)
    spent_usage = usage(spent)
    summary = error_summary(errors)
    cost = spent_usage["cost_usd"] if spent else None
    return ConditionSummary(
        n=n, items=len(accuracies), correct=correct,
        accuracy=sum(accuracies.values()) / len(accuracies) if accuracies else 0.0,
        ci=wilson(sum(accuracies.values()), len(accuracies)),
        mean_score=sum(scores.values()) / len(scores) if scores else 0.0,
        parse_failures=parse_failures, parse_failure_rate=parse_failures / n if n else 0.0,
        statuses=counts, status_shares=shares, judged=judged,
        output_tokens_per_sample={"mean": statistics.fmean(outs), "median": statistics.median(outs)} if outs else None,
        truncated_share=counts["truncated"] / n if n else None,
        errors=n_errors, complete=n_errors == 0, not_applicable=na,
        mean_error=summary["mean"] if summary else None, error_unit=unit, error_summary=summary,
        tool_calls_per_sample=tool_calls / n if n else 0.0,
        samples_with_tool_calls=sum(1 for c, _ in calls if c), unknown_tool_calls=sum(u for _, u in calls),
        tool_error_rate=sum(r.tool_errors for r in rs) / executed if (executed := sum(r.tool_calls for r in rs))
        else None,
        **{**spent_usage, "cost_usd": cost},
        cached_share=spent_usage["cached_tokens"] / spent_usage["input_tokens"] if spent_usage["input_tokens"] else None,
        mean_latency_s=sum(r.latency_s for r in rs) / n if n else 0.0,
        latency_s=latency_percentiles([r.latency_s for r in rs]),
        tokens_per_answered=(spent_usage["input_tokens"] + spent_usage["output_tokens"]) / n if n else None,
        cost_per_answered_usd=cost / n if n and cost is not None else None,
        stop_reasons=dict(Counter(r.stop_reason or r.status for r in spent)),
    )


def _both_answered(base: dict[str, SampleResult], other: dict[str, SampleResult]) -> list[str]:
    """Keys both sides answered (status ok): errors and not-applicable results never enter a pair."""
    return sorted(k for k in base.keys() & other.keys() if base[k].status == "ok" and other[k].status == "ok")


def paired_gap(base: Mapping[str, SampleResult], other: Mapping[str, SampleResult], *,
               bootstrap: bool = True) -> dict[str, Any]:
    """``other`` − ``base`` over the items (sample ids) both answered (status ok at least once on each side),
    each item's epochs averaged on each side first: the accuracy gap with a percentile bootstrap interval over
    items, the exact sign-flip p (``mcnemar_p``: exact McNemar when each item's epochs agree), the items whose
    accuracy went up (``gained``, wrong→right) and down (``lost``), the mean-score gap with its interval, and
    ``cost_per_gained_usd``: the USD ``other`` spent beyond ``base`` on those items per right answer gained net
    (:func:`cost_per_gained`; null when none is gained or a cost is unknown). ``n_paired`` counts items; ``epochs`` is the most answered epochs an item has on one side."""
    fa, fb = item_fractions(base.values()), item_fractions(other.values())
    shared = fa.keys() & fb.keys()
    ids = sorted(shared)
    a, b = [float(fa[i]) for i in ids], [float(fb[i]) for i in ids]
    gained = sum(1 for i in ids if fb[i] > fa[i])
    lost = sum(1 for i in ids if fa[i] > fb[i])
    if bootstrap:
        mean, lo, hi = paired_bootstrap_gap(a, b)
        sa, sb = item_means(base.values(), _value), item_means(other.values(), _value)
        smean, slo, shi = paired_bootstrap_gap([sa[i] for i in ids], [sb[i] for i in ids], seed=1)
    else:
        mean, lo, hi = (sum(b) - sum(a)) / len(ids) if ids else 0.0, float("nan"), float("nan")
        smean, slo, shi = mean, lo, hi
    epochs = max((len(rs) for side in (base, other) for k, rs in _items(side.values()).items() if k in shared),
                 default=0)
    net = float(sum(fb[i] - fa[i] for i in ids))
    return {"n_paired": len(ids), "epochs": epochs, "gap": mean, "ci": [lo, hi], "gained": gained, "lost": lost,
            "wrong_to_right": gained, "right_to_wrong": lost, "mcnemar_p": sign_flip_p([fb[i] - fa[i] for i in ids]),
            "score_gap": smean, "score_ci": [slo, shi],
            "cost_per_gained_usd": cost_per_gained(base.values(), other.values(), ids, net)}


def is_tool_condition(condition: str, results: Iterable[SampleResult]) -> bool:
    """A condition that offers tools: its model calls were offered some, or its name starts with ``tools``."""
    return condition.startswith("tools") or any(
        isinstance(e, ModelCallEvent) and e.tools_offered for r in results for e in r.trace)


def _fidelity(results: Iterable[SampleResult], samples: Mapping[str, Sample] | None) -> Fidelity:
    verdicts = Counter(fidelity.of_result(r, (samples or {}).get(r.sample_id)) for r in results)
    checked = verdicts["agree"] + verdicts["disagree"]
    return Fidelity(checked=checked, disagree=verdicts["disagree"], not_comparable=verdicts["not_comparable"],
                    share=verdicts["disagree"] / checked if checked else None)


def _paired_tool_use(base: dict[str, SampleResult], other: dict[str, SampleResult]) -> PairedToolUse:
    cells: Counter[tuple[bool, bool, bool]] = Counter(
        (bool(_correct(base[k])), _used_tools(other[k]), bool(_correct(other[k]))) for k in _both_answered(base, other))
    return PairedToolUse(
        n_paired=sum(cells.values()),
        gained_with_tools=cells[False, True, True], lost_despite_tools=cells[True, True, False],
        same_with_tools_right=cells[True, True, True], same_with_tools_wrong=cells[False, True, False],
        never_tried_gained=cells[False, False, True], never_tried_lost=cells[True, False, False],
        never_tried_same_right=cells[True, False, True], never_tried_same_wrong=cells[False, False, False])


def tool_use(conds: dict[str, dict[str, SampleResult]], conditions: Sequence[str], baseline: str = BASELINE_CONDITION,
             samples: Mapping[str, Sample] | None = None) -> dict[str, ToolUse]:
    """Per tool condition other than ``baseline`` (results keyed by sample id and epoch): adoption, accuracy with
    and without tool calls, the paired cells against ``baseline`` and fidelity (option answers read through
    ``samples``, by id). Only answered results (status ok) enter."""
    out = {}
    for c in conditions:
        if c == baseline or c not in conds or not is_tool_condition(c, conds[c].values()):
            continue
        answered = [r for r in conds[c].values() if r.status == "ok"]
        used = [r for r in answered if _used_tools(r)]
        unknown = [tool_calls_of(r)[1] for r in answered]
        out[c] = ToolUse(
            n=len(answered), used_tools=len(used), used_share=len(used) / len(answered) if answered else None,
            with_tools=Rate.of(used), without_tools=Rate.of([r for r in answered if not _used_tools(r)]),
            unknown_tool_calls=sum(unknown), samples_with_unknown_calls=sum(1 for u in unknown if u),
            paired=_paired_tool_use(conds[baseline], conds[c]) if baseline in conds else None,
            fidelity=_fidelity(answered, samples), funnel=funnel_counts(answered))
    return out


def _index(results: Iterable[SampleResult]) -> dict[str, dict[str, SampleResult]]:
    out: dict[str, dict[str, SampleResult]] = defaultdict(dict)
    for r in results:
        out[r.condition][f"{r.sample_id}#{r.epoch}"] = r
    return out


def _gaps(conds: dict[str, dict[str, SampleResult]], conditions: Sequence[str], baseline: str,
          bootstrap: bool = True) -> dict[str, Any] | None:
    others = [c for c in conditions if c != baseline and c in conds]
    if baseline not in conds or not others:
        return None
    return {c: paired_gap(conds[baseline], conds[c], bootstrap=bootstrap) for c in others}


def _pairwise(conds: dict[str, dict[str, SampleResult]], conditions: Sequence[str], baseline: str) -> dict[str, Any] | None:
    """Every pair of present conditions neither of which is ``baseline`` (those pairs are in the gap)."""
    present = [c for c in conditions if c in conds and c != baseline]
    if len(present) < 2:
        return None
    return {f"{b} vs {a}": paired_gap(conds[a], conds[b])
            for i, a in enumerate(present) for b in present[i + 1:]}


@lru_cache(maxsize=1024)
def _breakdown_keys(task: str) -> Mapping[str, tuple[str, ...]]:
    return task_breakdowns(task)


def dimensions_of(results: Iterable[SampleResult]) -> list[str]:
    """The breakdown dimensions the results' tasks declare, "family" first, then in task-name order."""
    out = [FAMILY]
    for task in sorted({r.task for r in results}):
        out.extend(d for d in _breakdown_keys(task) if d not in out)
    return out


def dimension_value(r: SampleResult, dimension: str) -> str | None:
    """The result's value on a breakdown dimension: its family, or the first of its task's declared meta keys
    present (None when its task declares no such dimension or none is present)."""
    if dimension == FAMILY:
        return family_of(r.task)
    for key in _breakdown_keys(r.task).get(dimension, ()):
        if r.meta.get(key) is not None:
            return str(r.meta[key])
    return None


def breakdowns(results: Sequence[SampleResult], conditions: Sequence[str], baseline: str = BASELINE_CONDITION,
               dimensions: Iterable[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Per dimension (default: :func:`dimensions_of` the results) with at least two values: per value, each
    condition's accuracy (``n`` items, ``answers`` apart) and the paired gaps."""
    out: dict[str, list[dict[str, Any]]] = {}
    for dim in dimensions_of(results) if dimensions is None else dimensions:
        groups: dict[str, list[SampleResult]] = defaultdict(list)
        for r in results:
            value = dimension_value(r, dim)
            if value is not None:
                groups[value].append(r)
        if len(groups) < 2:
            continue
        rows = []
        for value in sorted(groups):
            conds = _index(groups[value])
            summaries = {c: summarise(list(conds[c].values())) for c in conditions if c in conds}
            rows.append({
                "value": value,
                "conditions": {c: {"n": s.items, "answers": s.n, "correct": s.correct, "accuracy": s.accuracy,
                                   "ci": list(s.ci)}
                               for c, s in summaries.items()},
                "gap": _gaps(conds, conditions, baseline),
            })
        out[dim] = rows
    return out


def compare(results: list[SampleResult], conditions: list[str], baseline: str = BASELINE_CONDITION, *,
            with_breakdowns: bool = False, samples: Mapping[str, Sample] | None = None) -> list[TaskComparison]:
    """Per task: a summary per condition, for each other condition the paired gap against ``baseline``, and each
    tool condition's tool use (:func:`tool_use`, with ``samples`` by id for option answers)."""
    by_task: dict[str, list[SampleResult]] = defaultdict(list)
    for r in results:
        by_task[r.task].append(r)
    out = []
    for task in sorted(by_task):
        conds = _index(by_task[task])
        summary = {c: summarise(list(conds[c].values())) for c in conditions if c in conds}
        n_errors = sum(s.errors for s in summary.values())
        out.append(TaskComparison(
            task=task, family=family_of(task), conditions=summary, gap=_gaps(conds, conditions, baseline),
            pairwise=_pairwise(conds, conditions, baseline),
            tool_use=tool_use(conds, conditions, baseline, samples), errors=n_errors, complete=n_errors == 0,
            breakdowns=breakdowns(by_task[task], conditions, baseline,
                                  dimensions_of(by_task[task])[1:]) if with_breakdowns else {},
        ))
    return out


def overall(results: list[SampleResult], conditions: list[str], baseline: str = BASELINE_CONDITION, *,
            samples: Mapping[str, Sample] | None = None) -> TaskComparison:
    """All tasks pooled (items weighted equally), with the paired gap over every paired item and tool use."""
    conds = _index(results)
    summary = {c: summarise(list(conds[c].values())) for c in conditions if c in conds}
    n_errors = sum(s.errors for s in summary.values())
    return TaskComparison(task=ALL_TASKS, family="", conditions=summary, gap=_gaps(conds, conditions, baseline),
                          pairwise=_pairwise(conds, conditions, baseline),
                          tool_use=tool_use(conds, conditions, baseline, samples), errors=n_errors,
                          complete=n_errors == 0)


def compare_runs(current: list[SampleResult], baseline: list[SampleResult]) -> list[dict[str, Any]]:
    """Sample by sample against another run (e.g. another model): per task and condition present in both,
    current − baseline on the items both answered (:func:`paired_gap`, epochs averaged per item), with each
    run's accuracy over those items."""
    cur: dict[tuple[str, str], dict[str, SampleResult]] = defaultdict(dict)
    base: dict[tuple[str, str], dict[str, SampleResult]] = defaultdict(dict)
    for r in current:
        cur[(r.task, r.condition)][f"{r.sample_id}#{r.epoch}"] = r
    for r in baseline:
        base[(r.task, r.condition)][f"{r.sample_id}#{r.epoch}"] = r
    rows = []
    for key in sorted(cur.keys() & base.keys()):
        gap = paired_gap(base[key], cur[key])
        mc, mb = item_means(cur[key].values()), item_means(base[key].values())
        shared = sorted(mc.keys() & mb.keys())
        rows.append({"task": key[0], "condition": key[1], **gap,
                     "accuracy": sum(mc[k] for k in shared) / len(shared) if shared else 0.0,
                     "baseline_accuracy": sum(mb[k] for k in shared) / len(shared) if shared else 0.0})
    return rows
