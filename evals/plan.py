"""How many items a study needs: ``python -m evals.plan RUN_DIR --gap 5``.

From a pilot run, per task: the share of paired items on which the condition and the baseline disagree (one
right, the other wrong: McNemar's discordant pairs), and from it the items needed to detect a gap of ``--gap``
points with a two-sided McNemar test at ``--alpha`` (0.05) and ``--power`` (0.8), by Connor's formula
(R. J. Connor, "Sample size for testing differences in proportions for the paired-sample design", Biometrics 43
(1), 207-211, 1987, p. 209; the formula of SAS PROC POWER's PAIREDFREQ and of common calculators)::

    n = (z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - delta^2))^2 / delta^2

with ``psi`` the discordant share and ``delta`` the gap. A pilot with fewer discordant pairs than the gap is
planned at ``psi = delta`` (every discordant pair one way; marked). The count is for the asymptotic McNemar test;
the exact test the report prints is a little conservative, so a few more items keep its power near the target.
One epoch per item is assumed.

The cost is the pilot's tokens per result (failed ones included), repriced with the price table (``--prices``,
or the pilot model's price; ``--model`` prices the same tokens as another model), times the items needed, per
condition, at list price, with single-call conditions on the provider's batch tier (``batch``), with every
condition on its flex tier (``flex``), and with both (``batch+flex``), from ``evals/data/tiers.toml``.
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

from rich.console import Console
from rich.table import Table

from evals.analysis import BASELINE_CONDITION, compare
from evals.pricing import PriceError, PriceTable, tier_multiplier
from evals.records import SampleResult
from evals.run_reader import RunReader, is_run_dir

PLANS = ("list", "batch", "flex", "batch+flex")


def mcnemar_items(discordant: float, gap: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Paired items for a two-sided McNemar test at ``alpha`` to detect ``gap`` (difference of the two
    accuracies, a share) with ``power``, given the share of discordant pairs (Connor 1987)."""
    if not 0 < gap < 1 or not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("gap, alpha and power must lie between 0 and 1")
    psi = max(discordant, gap)
    z = NormalDist()
    root = z.inv_cdf(1 - alpha / 2) * math.sqrt(psi) + z.inv_cdf(power) * math.sqrt(max(psi - gap * gap, 0.0))
    return math.ceil(root * root / (gap * gap))


@dataclass(frozen=True)
class TaskPlan:
    """One task: the pilot's pairs, discordant share and gap; the items needed; the cost of those items per plan."""

    task: str
    condition: str
    pilot_pairs: int
    discordant: float | None
    pilot_gap: float | None
    floored: bool
    items: int | None
    cost_usd: dict[str, float | None]


def _cost_per_result(results: list[SampleResult], prices: PriceTable, model: str | None) -> float | None:
    spent = [r for r in results if r.status != "not_applicable"]
    if not spent:
        return None
    costs = [prices.cost(model or r.model, r.input_tokens, r.output_tokens, r.cached_tokens) for r in spent]
    return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs) / len(spent)


def _single_call(results: list[SampleResult]) -> bool:
    return all(r.model_calls <= 1 for r in results)


def plan(results: list[SampleResult], gap: float, *, prices: PriceTable, model: str | None = None,
         alpha: float = 0.05, power: float = 0.8, baseline: str = BASELINE_CONDITION) -> list[TaskPlan]:
    """Per task and non-baseline condition of a pilot's ``results``: the items for ``gap`` (a share) and their
    cost under each of :data:`PLANS` (both conditions answer every item)."""
    conditions = sorted({r.condition for r in results}, key=lambda c: (c != baseline, c))
    if baseline not in conditions or len(conditions) < 2:
        raise ValueError(f"the pilot needs the {baseline!r} condition and another one to pair it with")
    by: dict[tuple[str, str], list[SampleResult]] = defaultdict(list)
    for r in results:
        by[r.task, r.condition].append(r)
    out = []
    for comp in compare(results, conditions, baseline):
        for cond, g in (comp.gap or {}).items():
            pairs = g["n_paired"]
            psi = (g["gained"] + g["lost"]) / pairs if pairs else None
            items = mcnemar_items(psi, gap, alpha, power) if psi is not None else None
            out.append(TaskPlan(
                task=comp.task, condition=cond, pilot_pairs=pairs, discordant=psi, pilot_gap=g["gap"] if pairs else None,
                floored=psi is not None and psi < gap, items=items,
                cost_usd=_costs(by[comp.task, baseline], by[comp.task, cond], items, prices, model)))
    return out


def _costs(base: list[SampleResult], other: list[SampleResult], items: int | None, prices: PriceTable,
           model: str | None) -> dict[str, float | None]:
    sides = [(rs, _cost_per_result(rs, prices, model), model or rs[0].model) for rs in (base, other)]
    if items is None or any(c is None for _, c, _ in sides):
        return dict.fromkeys(PLANS)
    return {name: sum(items * (per or 0.0) * tier_multiplier(m, _tier(name, _single_call(rs))) for rs, per, m in sides)
            for name in PLANS}


def _tier(plan_name: str, single_call: bool) -> str:
    """The price tier a condition runs on under ``plan_name``: batch takes single-call conditions only."""
    if single_call and plan_name in ("batch", "batch+flex"):
        return "batch"
    return "flex" if plan_name in ("flex", "batch+flex") else "list"


def render(plans: list[TaskPlan], gap: float, alpha: float, power: float) -> Table:
    table = Table(title=f"Items to detect a {100 * gap:g}-point gap (McNemar, two-sided α {alpha:g}, power "
                  f"{100 * power:g} %; Connor 1987)", caption=(
        "discordant: pilot pairs with one side right, the other wrong · *: fewer discordant pairs than the gap, "
        "planned at discordant = gap · cost: both conditions on every item, the pilot's tokens per result repriced; "
        "batch: single-call conditions on the batch tier; flex: every condition on the flex tier (list price where "
        "the provider has no such tier)"))
    for name, right in (("task", False), ("condition", False), ("pilot pairs", True), ("discordant %", True),
                        ("pilot gap", True), ("items", True), *((f"{p} $", True) for p in PLANS)):
        table.add_column(name, justify="right" if right else "left")
    totals: dict[str, float | None] = dict.fromkeys(PLANS, 0.0)
    for p in plans:
        for name in PLANS:
            c, t = p.cost_usd[name], totals[name]
            totals[name] = None if c is None or t is None else t + c
        table.add_row(p.task, p.condition, str(p.pilot_pairs),
                      "–" if p.discordant is None else f"{100 * p.discordant:.1f}{'*' if p.floored else ''}",
                      "–" if p.pilot_gap is None else f"{100 * p.pilot_gap:+.1f}",
                      "–" if p.items is None else f"{p.items:,}",
                      *(_usd(p.cost_usd[name]) for name in PLANS))
    table.add_section()
    table.add_row("total", "", "", "", "", f"{sum(p.items or 0 for p in plans):,}", *(_usd(totals[n]) for n in PLANS))
    return table


def _usd(x: float | None) -> str:
    return "–" if x is None else f"{x:,.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.plan", description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", type=Path, help="a pilot run directory (both conditions on the same items)")
    ap.add_argument("--gap", type=float, required=True, help="the gap to detect, in accuracy points (5 = 5 points)")
    ap.add_argument("--alpha", type=float, default=0.05, help="two-sided significance level (default 0.05)")
    ap.add_argument("--power", type=float, default=0.8, help="power (default 0.8)")
    ap.add_argument("--model", default=None, help="price the pilot's tokens as this model's (default: its own)")
    ap.add_argument("--prices", type=Path, default=None, help="a TOML price file over the built-in table")
    args = ap.parse_args(argv)
    try:
        if not is_run_dir(args.run_dir):
            raise ValueError(f"{args.run_dir} is not a run directory (no run.sqlite)")
        results = list(RunReader(args.run_dir).results(with_trace=False))
        plans = plan(results, args.gap / 100, prices=PriceTable.load(args.prices), model=args.model,
                     alpha=args.alpha, power=args.power)
    except (ValueError, PriceError, sqlite3.Error) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    Console().print(render(plans, args.gap / 100, args.alpha, args.power))
    if any(p.items is None for p in plans):
        print("note: tasks without pilot pairs cannot be planned (–): run a pilot with both conditions on them",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
