"""What a run will spend, before anything is called (``--dry-run``), and its cap (``--max-cost``).

Two estimates, each of tokens, cost and wall time: the ceiling (below) and the typical run, from a pilot run's real
use (:func:`typical_run`) or, without one, from the prompts' sizes and typical reply lengths
(:func:`typical_condition`). The ceiling is an upper bound from the prompts and the limits, not a prediction: prompt tokens are counted as
the prompt text's characters / :data:`CHARS_PER_TOKEN` (no tokenizer is downloaded; real counts differ by model);
every call is taken to write ``--max-tokens`` output tokens; a tool condition is taken to make ``--max-steps``
calls, each sending the prompt, the tools note and the tools' schemas again with every earlier reply. Tool
results and the model-call cache (a cached call costs nothing) are left out. Price: the price table
(``--prices``), without cached-input discounts.

``--max-cost USD`` stops a run once the cost of its stored results reaches the cap (exit code
:data:`evals.cost.EXIT_COST_CAP`; ``--resume`` continues it, with a higher cap or none); a model without a known price
cannot be capped and is refused before anything starts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool
from rich import box
from rich.console import Console
from rich.table import Table

from agents.protocol import DEFAULT_ANSWER_TOKENS
from evals.conditions import get_condition
from evals.cost import check_max_cost
from evals.options import RunConfig, UsageError, fail
from evals.pricing import PriceError, PriceTable, tier_multiplier
from evals.records import RunSpec, SampleResult
from evals.run_reader import RunReader
from tasks.build import SampleBuildError
from tasks.records import Sample
from tools.registry import get_tools

CHARS_PER_TOKEN = 4
NOTE = ("estimate, not a measurement: prompt tokens = prompt characters / 4; output at its caps (--max-tokens a "
        "call, --max-steps calls in tool conditions, earlier replies re-sent); tool results and cached calls left "
        "out: an upper bound; wall time at the assumed speeds below")
# Without a pilot, the typical run: each answer writes TYPICAL_ANSWER_TOKENS (at most the cap); a tool condition
# makes one tool call (a TYPICAL_CALL_TOKENS reply, a TYPICAL_RESULT_TOKENS result) and then answers. Assumptions
# from a typical short answer with a FINAL ANSWER line, not measurements: a pilot run replaces them.
TYPICAL_ANSWER_TOKENS = 150
TYPICAL_CALL_TOKENS = 50
TYPICAL_RESULT_TOKENS = 40
# Speeds for wall time: (prompt tokens/s, output tokens/s, seconds per call, most speed-up from concurrent calls).
# local/: the embedded 1.5B Q4_K_M model measured on 2 threads (84 prompt and 24 output tokens/s; 4 slots answered
# 1.68x as fast as 1); others: assumed for a hosted API, concurrent calls not slowing each other.
SPEEDS = {"local": (84.0, 24.0, 0.0, 1.68), "scripted": (math.inf, math.inf, 0.0, math.inf)}
HOSTED_SPEED = (2000.0, 80.0, 0.5, math.inf)


def tokens(text: str) -> int:
    """Estimated tokens of ``text`` (characters / 4, rounded up)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class ConditionEstimate:
    """One condition of a run: items to answer (samples × epochs), calls and tokens at most, and the cost."""

    condition: str
    items: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


def _schema_tokens(toolsets: tuple[str, ...], cache: dict[tuple[str, ...], int]) -> int:
    if toolsets not in cache:
        cache[toolsets] = sum(tokens(json.dumps(convert_to_openai_tool(t))) for t in get_tools(list(toolsets)))
    return cache[toolsets]


def _heads(spec: RunSpec, name: str, items: Iterable[tuple[Sample, Any]]) -> Iterator[tuple[int, int, bool]]:
    """Per item: the tokens one call sends before any reply (the prompt, the condition's note and, in a tool
    condition, the tools' schemas), the call's output cap, and whether the condition offers tools."""
    cond = get_condition(name)
    schemas: dict[tuple[str, ...], int] = {}
    for sample, task in items:
        head = sum(tokens(m.content) for m in sample.messages) + (tokens(cond.system_note) if cond.system_note else 0)
        if cond.uses_tools:
            head += _schema_tokens(cond.toolsets_for(task), schemas)
        yield head, output_cap(spec, sample.task), cond.uses_tools


def estimate_condition(spec: RunSpec, name: str, items: Iterable[tuple[Sample, Any]], price: PriceTable
                       ) -> ConditionEstimate:
    """The calls, tokens and cost of answering ``items`` ((sample, task) pairs, once per epoch) under ``name``."""
    n = calls = tokens_in = tokens_out = 0
    for head, cap, tools in _heads(spec, name, items):
        n += 1
        steps = spec.max_steps if tools else 1
        tokens_in += sum(head + k * cap for k in range(steps))
        calls += steps
        tokens_out += steps * cap
    return ConditionEstimate(name, n, calls, tokens_in, tokens_out, price.cost(spec.model, tokens_in, tokens_out))


def wall_s(spec: RunSpec, calls: int, tokens_in: int, tokens_out: int) -> float:
    """Seconds to make ``calls`` calls reading ``tokens_in`` and writing ``tokens_out`` at the model's
    :data:`SPEEDS` (else :data:`HOSTED_SPEED`), ``--max-connections`` at a time."""
    read, write, per_call, most = SPEEDS.get(spec.model.split("/", 1)[0], HOSTED_SPEED)
    return (calls * per_call + tokens_in / read + tokens_out / write) / min(most, max(1, spec.max_connections or 1))


def typical_condition(spec: RunSpec, name: str, items: Iterable[tuple[Sample, Any]], price: PriceTable) -> Typical:
    """The typical spend of answering ``items`` under ``name`` without a pilot: each prompt's measured size, a
    :data:`TYPICAL_ANSWER_TOKENS` answer, and in a tool condition one tool call before it (see the constants)."""
    n = calls = tokens_in = tokens_out = 0
    for head, cap, tools in _heads(spec, name, items):
        answer = min(cap, TYPICAL_ANSWER_TOKENS)
        n += 1
        if tools:
            call = min(cap, TYPICAL_CALL_TOKENS)
            calls, tokens_in = calls + 2, tokens_in + 2 * head + call + TYPICAL_RESULT_TOKENS
            tokens_out += call + answer
        else:
            calls, tokens_in, tokens_out = calls + 1, tokens_in + head, tokens_out + answer
    return Typical(name, n, tokens_in, tokens_out, price.cost(spec.model, tokens_in, tokens_out),
                   wall_s(spec, calls, tokens_in, tokens_out))


def output_cap(spec: RunSpec, task: str) -> int:
    """The output tokens a call of ``task`` may use: its resolved generation protocol's cap (answer budget plus
    any reasoning room), else ``--max-tokens``, else the default answer budget."""
    protocol = spec.generation.get(task)
    return protocol.max_tokens if protocol is not None else spec.max_tokens or DEFAULT_ANSWER_TOKENS


def estimate_run(spec: RunSpec, work: list[tuple[Sample, Any]], prices: PriceTable,
                 done: set[tuple[str, str, int]] | None = None) -> list[ConditionEstimate]:
    """Per condition, the estimate for the (sample, condition, epoch) items not in ``done``."""
    done = done or set()
    return [estimate_condition(spec, c, ((s, t) for e in range(spec.epochs) for s, t in work
                                         if (s.id, c, e) not in done), prices) for c in spec.conditions]


def planned(cfg: RunConfig) -> tuple[RunSpec, set[tuple[str, str, int]], PriceTable]:
    """The spec a run of ``cfg`` would have, what its directory already holds, and the prices; writes nothing."""
    from evals.prepare import check_values
    from evals.specs import make_spec, resumed_spec

    check_values(cfg)
    try:
        prices = PriceTable.load(cfg.prices)
    except PriceError as exc:
        raise UsageError(str(exc)) from None
    if cfg.resume is None:
        return make_spec(cfg), set(), prices
    try:
        reader = RunReader(Path(cfg.resume))
        stored = reader.read_spec()
    except FileNotFoundError:
        raise UsageError(f"--resume {cfg.resume}: no run store there (run.sqlite)") from None
    if stored is None:
        raise UsageError(f"--resume {cfg.resume}: the store holds no run spec")
    return resumed_spec(stored.spec, cfg), reader.completed(), prices


def print_estimate(cfgs: list[RunConfig], out: Console) -> int:
    """``--dry-run``: the estimate of every run in ``cfgs`` (one per model), printed; exit code 0, or one line and
    2 (usage) or 1 (samples could not be built). Nothing is called and nothing is written."""
    from evals.prepare import build_work

    table = Table(title="Dry run: nothing was called, nothing was written (ceiling)", box=box.SIMPLE_HEAD,
                  caption=NOTE)
    typical: list[tuple[str, list[Typical], Path | None]] = []
    for name in ("model", "condition", "items", "calls ≤", "input tok ≤", "output tok ≤", "USD ≤", "wall s ≤"):
        table.add_column(name, justify="left" if name in ("model", "condition") else "right", overflow="fold")
    total: float | None = 0.0
    tiers: dict[str, float] = {"batch": 0.0, "flex": 0.0}
    for cfg in cfgs:
        try:
            spec, done, prices = planned(cfg)
            if cfg.max_cost is not None:
                check_max_cost(cfg, spec.model)
            work = build_work(spec)
            rows = estimate_run(spec, work, prices, done)
            if cfg.pilot is not None:
                if not (Path(cfg.pilot) / "run.sqlite").exists():
                    raise UsageError(f"--pilot {cfg.pilot}: no run store there (run.sqlite)")
                pilot = RunReader(Path(cfg.pilot)).results(with_trace=False)
                typical.append((spec.model, typical_run(spec, work, prices, pilot, done), Path(cfg.pilot)))
            else:
                typical.append((spec.model, [typical_condition(spec, c, ((s, t) for e in range(spec.epochs)
                                                                         for s, t in work if (s.id, c, e) not in done),
                                                               prices) for c in spec.conditions], None))
        except UsageError as exc:
            return fail(str(exc), 2)
        except SampleBuildError as exc:
            return fail(f"{exc}; nothing was run", 1)
        for r in rows:
            table.add_row(spec.model, r.condition, f"{r.items:,}", f"{r.calls:,}", f"{r.input_tokens:,}",
                          f"{r.output_tokens:,}", "price unknown" if r.cost_usd is None else f"{r.cost_usd:.4f}",
                          f"{wall_s(spec, r.calls, r.input_tokens, r.output_tokens):,.0f}")
            total = None if total is None or r.cost_usd is None else total + r.cost_usd
            single = getattr(get_condition(r.condition), "single_call", False)
            tiers["batch"] += (r.cost_usd or 0.0) * tier_multiplier(spec.model, "batch" if single else "list")
            tiers["flex"] += (r.cost_usd or 0.0) * tier_multiplier(spec.model, "flex")
    out.print(table)
    out.print("estimated cost at most: " + ("unknown (a model has no price; give one with --prices FILE.toml)"
                                            if total is None else f"${total:.4f}"), markup=False, highlight=False)
    if total is not None:
        out.print(f"at most, with --batch (single-call conditions at batch prices, the rest at list): "
                  f"${tiers['batch']:.4f}; every condition at flex prices: ${tiers['flex']:.4f} "
                  "(list price where a provider has no such tier; docs/cost.md)", markup=False, highlight=False)
    read, write, per_call, _ = HOSTED_SPEED
    out.print(f"wall time: local/ at the embedded model's measured {SPEEDS['local'][0]:.0f} prompt and "
              f"{SPEEDS['local'][1]:.0f} output tokens/s (2 threads, concurrent calls at most "
              f"{SPEEDS['local'][3]}x as fast); other models at an assumed {read:.0f} prompt and {write:.0f} output "
              f"tokens/s and {per_call} s a call, --max-connections at a time", markup=False, highlight=False)
    for model, measured, pilot_dir in typical:
        print_typical(model, measured, pilot_dir, out)
    if any(p is None for _, _, p in typical):
        out.print("typical figures from real use: give --pilot RUN_DIR (a small finished run of the same tasks)",
                  markup=False, highlight=False)
    return 0


@dataclass(frozen=True)
class Typical:
    """One condition's typical spend, from a pilot run's real use per answer (by task, else over its tasks)."""

    condition: str
    items: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    wall_s: float
    measured: int = 0  # items whose task and condition the pilot answered (the others took the condition's mean)


def typical_run(spec: RunSpec, work: list[tuple[Sample, Any]], prices: PriceTable, pilot: Iterable[SampleResult],
                done: set[tuple[str, str, int]] | None = None) -> list[Typical]:
    """Per condition, the items not in ``done`` at the pilot's mean input tokens, output tokens and latency per
    answered result (status ok) of the same task and condition (else of the condition over all tasks); wall time
    = latency summed / ``spec.max_connections``. A condition the pilot never answered is left out."""
    done = done or set()
    per: dict[tuple[str, str], list[SampleResult]] = {}
    for r in pilot:
        if r.status == "ok":
            per.setdefault((r.task, r.condition), []).append(r)
            per.setdefault(("", r.condition), []).append(r)

    def mean(rs: list[SampleResult]) -> tuple[float, float, float]:
        return (sum(r.input_tokens for r in rs) / len(rs), sum(r.output_tokens for r in rs) / len(rs),
                sum(r.latency_s for r in rs) / len(rs))

    out = []
    for c in spec.conditions:
        if ("", c) not in per:
            continue
        todo = [s for e in range(spec.epochs) for s, _ in work if (s.id, c, e) not in done]
        means = [mean(per.get((s.task, c)) or per[("", c)]) for s in todo]
        tin, tout = round(sum(m[0] for m in means)), round(sum(m[1] for m in means))
        out.append(Typical(c, len(todo), tin, tout, prices.cost(spec.model, tin, tout),
                           sum(m[2] for m in means) / max(1, spec.max_connections),
                           sum(1 for s in todo if (s.task, c) in per)))
    return out


def print_typical(model: str, rows: list[Typical], pilot: Path | None, out: Console) -> None:
    if pilot is None:
        table = Table(title="Typical, from the prompts' measured sizes (no pilot)", box=box.SIMPLE_HEAD, caption=(
            f"typical: each prompt's characters / 4, a {TYPICAL_ANSWER_TOKENS}-token answer, in a tool condition "
            f"one tool call first ({TYPICAL_CALL_TOKENS}-token call, {TYPICAL_RESULT_TOKENS}-token result, the "
            "prompt and tools sent twice); assumed, not measured; the table above is the ceiling"))
    else:
        table = Table(title=f"Typical, from the pilot run {pilot} (its real use per answer)", box=box.SIMPLE_HEAD,
                      caption="typical: the pilot's mean tokens and latency per answer of the same task and condition "
                      "(measured) or of the condition over its tasks; the table above is the ceiling")
    for name in ("model", "condition", "items", "measured", "input tok", "output tok", "USD", "wall s"):
        table.add_column(name, justify="left" if name in ("model", "condition") else "right", overflow="fold")
    for r in rows:
        table.add_row(model, r.condition, f"{r.items:,}", "–" if pilot is None else f"{r.measured:,}",
                      f"{r.input_tokens:,}",
                      f"{r.output_tokens:,}", "price unknown" if r.cost_usd is None else f"{r.cost_usd:.4f}",
                      f"{r.wall_s:,.0f}")
    out.print(table)
