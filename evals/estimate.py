"""What a run will spend, before anything is called (``--dry-run``), and its cap (``--max-cost``).

The estimate is an upper bound from the prompts and the limits, not a prediction: prompt tokens are counted as
the prompt text's characters / :data:`CHARS_PER_TOKEN` (no tokenizer is downloaded; real counts differ by model);
every call is taken to write ``--max-tokens`` output tokens; a tool condition is taken to make ``--max-steps``
calls, each sending the prompt, the tools note and the tools' schemas again with every earlier reply. Tool
results and the model-call cache (a cached call costs nothing) are left out. Price: the price table
(``--prices``), without cached-input discounts.

``--max-cost USD`` stops a run once the cost of its stored results reaches the cap (exit code
:data:`EXIT_COST_CAP`; ``--resume`` continues it, with a higher cap or none); a model without a known price
cannot be capped and is refused before anything starts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool
from rich import box
from rich.console import Console
from rich.table import Table

from agents.protocol import DEFAULT_ANSWER_TOKENS
from evals.conditions import TOOLS_NOTE, ToolsCondition, VariantCondition, get_condition
from evals.options import RunConfig, UsageError
from evals.pricing import PriceError, PriceTable
from evals.records import RunSpec, SampleResult
from evals.run_reader import RunReader
from evals.runner import RunStopped
from tasks.build import SampleBuildError
from tasks.records import Sample
from tools.registry import get_tools

CHARS_PER_TOKEN = 4
EXIT_COST_CAP = 5  # docs/running.md "Exit codes and input checks"
NOTE = ("estimate, not a measurement: prompt tokens = prompt characters / 4; output at its caps (--max-tokens a "
        "call, --max-steps calls in tool conditions, earlier replies re-sent); tool results and cached calls left "
        "out: an upper bound")


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


def estimate_condition(spec: RunSpec, name: str, items: Iterable[tuple[Sample, Any]], price: PriceTable
                       ) -> ConditionEstimate:
    """The calls, tokens and cost of answering ``items`` ((sample, task) pairs, once per epoch) under ``name``."""
    cond = get_condition(name)
    inner = cond.inner if isinstance(cond, VariantCondition) else cond
    schemas: dict[tuple[str, ...], int] = {}
    n = calls = tokens_in = tokens_out = 0
    for sample, task in items:
        prompt = sum(tokens(m.content) for m in sample.messages)
        cap = output_cap(spec, sample.task)
        n += 1
        if isinstance(inner, ToolsCondition):
            steps = spec.max_steps
            head = prompt + tokens(TOOLS_NOTE) + _schema_tokens(inner.toolsets_for(task), schemas)
            tokens_in += sum(head + k * cap for k in range(steps))
        else:
            steps = 1
            tokens_in += prompt + (tokens(TOOLS_NOTE) if inner.name == "note-only" else 0)
        calls += steps
        tokens_out += steps * cap
    return ConditionEstimate(name, n, calls, tokens_in, tokens_out, price.cost(spec.model, tokens_in, tokens_out))


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


def _planned(cfg: RunConfig) -> tuple[RunSpec, set[tuple[str, str, int]], PriceTable]:
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
    from evals.compare import fail
    from evals.prepare import build_work

    table = Table(title="Dry run: nothing was called, nothing was written", box=box.SIMPLE_HEAD, caption=NOTE)
    for name in ("model", "condition", "items", "calls ≤", "input tok ≤", "output tok ≤", "USD ≤"):
        table.add_column(name, justify="left" if name in ("model", "condition") else "right", overflow="fold")
    total: float | None = 0.0
    for cfg in cfgs:
        try:
            spec, done, prices = _planned(cfg)
            if cfg.max_cost is not None:
                check_max_cost(cfg, spec.model)
            rows = estimate_run(spec, build_work(spec), prices, done)
        except UsageError as exc:
            return fail(str(exc), 2)
        except SampleBuildError as exc:
            return fail(f"{exc}; nothing was run", 1)
        for r in rows:
            table.add_row(spec.model, r.condition, f"{r.items:,}", f"{r.calls:,}", f"{r.input_tokens:,}",
                          f"{r.output_tokens:,}", "price unknown" if r.cost_usd is None else f"{r.cost_usd:.4f}")
            total = None if total is None or r.cost_usd is None else total + r.cost_usd
    out.print(table)
    out.print("estimated cost at most: " + ("unknown (a model has no price; give one with --prices FILE.toml)"
                                            if total is None else f"${total:.4f}"), markup=False, highlight=False)
    return 0


def check_max_cost(cfg: RunConfig, model: str | None = None) -> None:
    """``--max-cost`` must be a positive number and the model (``model``, else the run's) must have a price;
    raises UsageError."""
    cap = cfg.max_cost
    if cap is None:
        return
    if not math.isfinite(cap) or cap <= 0:
        raise UsageError(f"--max-cost must be a positive number of USD, got {cap}")
    if model is None:
        model = cfg.model
        if cfg.resume is not None:
            try:
                stored = RunReader(Path(cfg.resume)).read_spec()
            except (FileNotFoundError, ValueError):
                stored = None  # preparing the run reports it
            model = stored.spec.model if stored else model
    try:
        prices = PriceTable.load(cfg.prices)
    except PriceError as exc:
        raise UsageError(str(exc)) from None
    if prices.price(model) is None:
        raise UsageError(f"--max-cost needs the price of {model}, which is not in the price table; give one with "
                         "--prices FILE.toml")


class CostCapReached(RunStopped):
    """The run's spend reached ``--max-cost``; completed samples are stored (a kind of :class:`RunStopped`, so
    every executor stops on it as on a dead endpoint)."""


class CostMeter:
    """Adds up the cost of a run's results (those already stored first) and raises :class:`CostCapReached` once
    the total reaches the cap."""

    def __init__(self, cap: float, stored: Iterable[SampleResult]) -> None:
        self.cap = cap
        self.spent = sum(r.cost_usd or 0.0 for r in stored)

    def check(self) -> None:
        if self.spent >= self.cap:
            raise CostCapReached(f"spend ${self.spent:.4f} reached --max-cost ${self.cap:g}")

    def add(self, result: SampleResult) -> None:
        self.spent += result.cost_usd or 0.0
        self.check()
