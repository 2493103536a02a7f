"""Executors: where a run's samples are answered, chosen by name (``--executor``) from one registry.

``local`` answers them with asyncio in this process (:func:`evals.runner.run_all`); ``ray`` on a Ray cluster
(:func:`evals.ray_executor.run_ray`). Both skip what the store holds, write every result to it at once and call
``on_result`` after each.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from evals.conditions import Condition
from evals.options import RunConfig, UsageError
from evals.pricing import PriceTable
from evals.records import RunSpec
from evals.runner import EndpointFactory, ProgressFn, Watch, run_all
from evals.runner import (
    ExecutorUnavailable as ExecutorUnavailable,  # raised by the executors; its home is the runner
)
from evals.store import RunStore
from geocore.registry import Registry
from tasks.base import Task
from tasks.records import Sample


@dataclass(frozen=True)
class Job:
    """What an executor answers: the run's missing (sample, condition, epoch) items and where they go."""

    run_id: str
    spec: RunSpec
    store: RunStore
    work: list[tuple[Sample, Task]]
    conditions: list[Condition]
    endpoints: EndpointFactory
    prices: PriceTable | None = None


class Executor(Protocol):
    """Answers a job; returns how many results were written. Raises ``RunStopped`` when the endpoint is gone."""

    description: str

    def execute(self, job: Job, on_result: ProgressFn | None, watch: Watch | None) -> int: ...


EXECUTORS: Registry[Any] = Registry("executor")  # name -> class built from the run configuration


@EXECUTORS.register("local")
class LocalExecutor:
    description = "local (default): asyncio in this process"

    def __init__(self, config: RunConfig) -> None:
        pass

    def execute(self, job: Job, on_result: ProgressFn | None, watch: Watch | None) -> int:
        return asyncio.run(run_all(job.run_id, job.spec, job.store, job.work, job.conditions, job.endpoints,
                                   on_result, prices=job.prices, watch=watch))


@EXECUTORS.register("ray")
class RayExecutor:
    description = "ray: a Ray cluster (pip install -e '.[ray]')"

    def __init__(self, config: RunConfig) -> None:
        from evals.ray_executor import import_ray

        import_ray()  # not installed: ExecutorUnavailable now, before anything is prepared
        self.address, self.workers = config.ray_address, config.ray_workers

    def execute(self, job: Job, on_result: ProgressFn | None, watch: Watch | None) -> int:
        from evals.ray_executor import run_ray

        return run_ray(job.run_id, job.spec, job.store, job.work, job.conditions, job.endpoints, on_result,
                       prices=job.prices, address=self.address, workers=self.workers)


def make_executor(config: RunConfig) -> Executor:
    """The executor ``config.executor`` names; an unknown name is a ``UsageError``."""
    if config.executor not in EXECUTORS:
        raise UsageError(f"--executor must be one of {', '.join(EXECUTORS.names())}, got {config.executor!r}")
    return EXECUTORS.get(config.executor)(config)  # type: ignore[no-any-return]
