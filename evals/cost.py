"""The cost cap of a run (``--max-cost USD``): checked before anything starts (a positive number, a model with a
price), then metered while the run goes; reaching it stops the run with exit code :data:`EXIT_COST_CAP`
(``--resume`` continues, with a higher cap or none)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

from evals.options import RunConfig, UsageError
from evals.pricing import PriceError, PriceTable
from evals.records import SampleResult
from evals.run_reader import RunReader
from evals.runner import RunStopped

EXIT_COST_CAP = 5  # docs/running.md "Exit codes and input checks"


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
