"""The Ray executor: answer samples on a Ray cluster, store every result on the driver.

``python -m evals.compare --executor ray [--ray-address ADDRESS]`` (:class:`evals.executors.RayExecutor`) runs
the same (sample, condition, epoch) items as the local executor (:func:`evals.runner.run_all`), with the same store, resume and cache semantics:

- **One writer.** Workers return each :class:`~evals.records.SampleResult` to the driver, which alone writes the
  run store (SQLite has one writer); a result is committed as soon as it arrives, so an interrupted run resumes
  like a local one.
- **Workers.** ``workers`` Ray actors (default: one per CPU of the cluster), each an asyncio loop answering up to
  ``ceil(max_connections / workers)`` samples at once, ``max_connections`` in flight in all. A worker is built
  with the run spec, the run's task objects (a task pickles to a few hundred bytes) and a picklable model
  factory (the CLI's builds the chat model from the spec and the base URL the driver resolved, e.g. of the
  embedded server it started); each call gives it a sample, its task name, the condition name and the epoch.
- **Lost workers.** An actor whose process dies is restarted by Ray and the samples it had in flight are retried
  on it (``max_restarts`` / ``max_task_retries``); a sample whose retries run out is stored as failed
  ("worker lost"), so the next resume redoes it. A sample is never stored twice: only the driver writes.
- **Cache.** One model-call cache for the whole cluster: the driver's SQLite file, served by a
  :class:`CacheActor` that Ray pins to the driver's node; every worker reads and writes it through
  :class:`SharedCache` (one Ray call per model call). Not a file on each node (a resumed run would miss what
  another node stored) and not SQLite on a network file system (its locking is not safe there); not a separate
  cache server either: the actor needs no port, address or credentials beyond the cluster's own, and lives and
  dies with the run.
- **MCP tool sets.** Each worker starts the run's MCP servers itself (:func:`tools.mcp_client.register_servers`
  with the driver's configuration, before its first sample) and holds one session per server, closed when the
  run ends; a stdio server's command must exist on every node, a URL server must be reachable from every node.
- **Model servers.** A server the run starts itself (``local/``, ``vllm/`` without ``--base-url``) listens on the
  driver's 127.0.0.1: workers on the driver's machine reach it, workers on other nodes do not; on a multi-node
  cluster pass ``--base-url`` of a server every node can reach.
- **Conditions** run one after another, as in the local executor.

Ray is an optional extra (``pip install -e '.[ray]'``). With no ``address`` and no Ray already initialised, a
local Ray instance is started for the run and stopped after it; with ``address`` (``auto`` or
``ray://host:10001``) the run joins that cluster, whose nodes must have this project installed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from agents.call_cache import CallCache
from evals.conditions import Condition, get_condition
from evals.pricing import PriceTable
from evals.records import RunSpec, SampleResult
from evals.runner import (
    Endpoint,
    EndpointFactory,
    ExecutorUnavailable,
    ProgressFn,
    _failed,
    answer_sample,
    pending_count,
    resolve_endpoint,
)
from evals.store import RunStore
from tasks.base import Task
from tasks.records import Sample
from tools.mcp_client import MCPServer, close_sessions, register_servers, registered_servers

RAY_HINT = "the ray executor needs Ray: pip install -e '.[ray]'"
PROJECT_ROOT = Path(__file__).resolve().parent.parent


class RayUnavailable(ExecutorUnavailable):
    """Ray is not installed, or the cluster could not be reached."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(RAY_HINT) from None
    return ray


def local_runtime_env(extra_paths: tuple[str, ...] = ()) -> dict[str, Any]:
    """A runtime env that lets workers on this machine import the project (and ``extra_paths``) even when it is
    run from a checkout rather than installed."""
    paths = [str(PROJECT_ROOT), *extra_paths, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {"env_vars": {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}}


class CacheActor:
    """The run's model-call cache (a :class:`~agents.call_cache.CallCache` file on the driver's machine), served
    to every node's workers."""

    def __init__(self, path: str) -> None:
        self.cache = CallCache(Path(path))

    def get(self, key: str, max_age_s: float | None = None) -> AIMessage | None:
        return self.cache.get(key, max_age_s)

    def put(self, key: str, model: str, reply: AIMessage) -> None:
        self.cache.put(key, model, reply)

    def close(self) -> None:
        self.cache.close()


@dataclass(frozen=True)
class SharedCache:
    """A worker's view of the :class:`CacheActor` (a :class:`~agents.call_cache.CallStore`): each get and put is
    one Ray call, waited for, so what one node stored is there for every node's next call."""

    actor: Any

    def get(self, key: str, max_age_s: float | None = None) -> AIMessage | None:
        return import_ray().get(self.actor.get.remote(key, max_age_s))  # type: ignore[no-any-return]

    def put(self, key: str, model: str, reply: AIMessage) -> None:
        import_ray().get(self.actor.put.remote(key, model, reply))


class SampleWorker:
    """One worker: answers samples on its own event loop with its own endpoints, conditions, tasks and MCP
    servers."""

    def __init__(self, run_id: str, spec: RunSpec, model: BaseChatModel | EndpointFactory, tasks: dict[str, Task],
                 prices: PriceTable | None, mcp: tuple[MCPServer, ...] = ()) -> None:
        self.run_id, self.spec, self.model, self.tasks, self.prices = run_id, spec, model, tasks, prices
        self.mcp, self.mcp_ready = mcp, not mcp
        self.mcp_lock: asyncio.Lock | None = None
        self.endpoints: dict[int, Endpoint] = {}
        self.conditions: dict[str, Condition] = {}

    async def answer(self, sample: Sample, task: str, condition: str, epoch: int, attempts: int) -> str:
        """Answer one sample of the task named ``task``; the result as JSON (validated again on the driver)."""
        if not self.mcp_ready:  # the run's MCP servers, started once in this process (in a thread: it waits)
            self.mcp_lock = self.mcp_lock or asyncio.Lock()
            async with self.mcp_lock:
                if not self.mcp_ready:
                    await asyncio.to_thread(register_servers, list(self.mcp))
                    self.mcp_ready = True
        if condition not in self.conditions:
            self.conditions[condition] = get_condition(condition)
        if epoch not in self.endpoints:
            self.endpoints[epoch] = resolve_endpoint(self.model, self.spec, epoch)
        result = await answer_sample(self.run_id, self.spec, sample, self.tasks[task], self.conditions[condition],
                                     self.endpoints[epoch], epoch, prices=self.prices, attempts=attempts)
        return result.model_dump_json()

    async def close(self) -> None:
        """Close this worker's MCP sessions (their stdio servers exit)."""
        await close_sessions()


@dataclass
class _Flight:
    sample: Sample
    condition: Condition
    epoch: int
    attempts: int
    worker: int


def run_ray(run_id: str, spec: RunSpec, store: RunStore, work: list[tuple[Sample, Task]],
            conditions: list[Condition], model: BaseChatModel | EndpointFactory,
            on_result: ProgressFn | None = None, *, prices: PriceTable | None = None, address: str | None = None,
            workers: int | None = None, max_retries: int = 3) -> int:
    """Like :func:`evals.runner.run_all`, on Ray; returns how many results were written.

    ``model`` must be picklable (a chat model, or a factory of each epoch's endpoint). ``max_retries`` bounds
    restarts of a lost worker and retries of the samples it had in flight.
    """
    ray = import_ray()
    if not pending_count(store, work, conditions, spec.epochs):
        return 0  # nothing to do: no cluster needed
    started = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(include_dashboard=False, log_to_driver=False, runtime_env=local_runtime_env())
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailable(f"cannot start or reach Ray{f' at {address}' if address else ''}: {exc}") from None
        started = True
    try:
        return _drive(ray, run_id, spec, store, work, conditions, model, on_result, prices, workers, max_retries)
    finally:
        if started:
            ray.shutdown()


class _Dispatcher:
    """Keeps up to ``capacity`` samples of one condition in flight, on the least loaded worker."""

    def __init__(self, ray: Any, pool: list[Any], capacity: int, cond: Condition,
                 items: Iterator[tuple[Sample, Task, int]], tries: dict[tuple[str, str, int], int],
                 lost: set[int]) -> None:
        self.ray, self.pool, self.capacity, self.cond, self.items = ray, pool, capacity, cond, items
        self.tries, self.lost = tries, lost
        self.flights: dict[Any, _Flight] = {}
        self.load = [0] * len(pool)

    def fill(self) -> None:
        live = [w for w in range(len(self.pool)) if w not in self.lost]
        if not live:
            raise RayUnavailable("every Ray worker was lost for good (restarts exhausted); completed samples are "
                                 "stored, resume the run to redo the rest")
        while len(self.flights) < self.capacity and (item := next(self.items, None)) is not None:
            sample, task, epoch = item
            w = min(live, key=self.load.__getitem__)
            attempts = self.tries.get((sample.id, self.cond.name, epoch), 0) + 1
            ref = self.pool[w].answer.remote(sample, task.name, self.cond.name, epoch, attempts)
            self.flights[ref] = _Flight(sample, self.cond, epoch, attempts, w)
            self.load[w] += 1

    def finished(self) -> list[tuple[Any, _Flight]]:
        """Wait for at least one flight to land; every landed one, removed from the flights."""
        pending = list(self.flights)
        ready, rest = self.ray.wait(pending, num_returns=1)
        if rest:
            more, _ = self.ray.wait(rest, num_returns=len(rest), timeout=0)
            ready = [*ready, *more]
        out = []
        for ref in ready:
            flight = self.flights.pop(ref)
            self.load[flight.worker] -= 1
            out.append((ref, flight))
        return out


def _drive(ray: Any, run_id: str, spec: RunSpec, store: RunStore, work: list[tuple[Sample, Task]],
           conditions: list[Condition], model: BaseChatModel | EndpointFactory, on_result: ProgressFn | None,
           prices: PriceTable | None, workers: int | None, max_retries: int) -> int:
    cpus = float(ray.cluster_resources().get("CPU", 1.0))
    n = max(1, workers or int(cpus) or 1)
    per_worker = max(1, math.ceil(spec.max_connections / n))
    actor = ray.remote(num_cpus=min(1.0, cpus / n), max_restarts=max_retries, max_task_retries=max_retries,
                       max_concurrency=per_worker)(SampleWorker)
    tasks = {t.name: t for _, t in work}  # constructor arguments survive a restart of the worker
    mcp = tuple(s for name, s in registered_servers().items() if name in spec.mcp)
    cache = _shared_cache(ray, model)
    if cache is not None:
        model = dataclasses.replace(model, shared_cache=SharedCache(cache))  # type: ignore[type-var]
    pool = [actor.remote(run_id, spec, model, tasks, prices, mcp) for _ in range(n)]
    lost: set[int] = set()  # workers lost for good
    done = store.completed()
    tries = store.attempts()
    written = 0
    try:
        for cond in conditions:  # one condition after another, as in the local executor
            items = ((s, t, e) for e in range(spec.epochs) for s, t in work if (s.id, cond.name, e) not in done)
            dispatch = _Dispatcher(ray, pool, max(1, spec.max_connections), cond, items, tries, lost)
            dispatch.fill()
            while dispatch.flights:
                for ref, flight in dispatch.finished():
                    result, gone = _collect(ray, ref, run_id, spec, flight, prices)
                    if gone:
                        lost.add(flight.worker)
                    store.add_result(result)
                    written += 1
                    if on_result:
                        on_result(result)
                dispatch.fill()
    finally:
        _stop(ray, pool, cache)
    return written


def _shared_cache(ray: Any, model: Any) -> Any:
    """The run's :class:`CacheActor` on this (the driver's) node, when the model factory names a cache file."""
    path = getattr(model, "cache_path", None)
    if path is None or not dataclasses.is_dataclass(model):
        return None
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = NodeAffinitySchedulingStrategy(node_id=ray.get_runtime_context().get_node_id(), soft=False)
    return ray.remote(num_cpus=0, scheduling_strategy=here)(CacheActor).remote(str(path))


def _stop(ray: Any, pool: list[Any], cache: Any) -> None:
    """Close the workers' MCP sessions and the cache, then end the actors."""
    closing = [a.close.remote() for a in pool] + ([cache.close.remote()] if cache is not None else [])
    try:
        ray.get(closing, timeout=60)
    except (ray.exceptions.RayError, TimeoutError):  # a lost worker has nothing left to close
        pass
    for a in [*pool, *([cache] if cache is not None else [])]:
        ray.kill(a)


def _collect(ray: Any, ref: Any, run_id: str, spec: RunSpec, flight: _Flight,
             prices: PriceTable | None) -> tuple[SampleResult, bool]:
    """The result of one finished flight, and whether its worker is lost for good (restarts exhausted: the sample
    is then stored as failed, so a resume redoes it)."""
    try:
        return SampleResult.model_validate_json(ray.get(ref)), False
    except ray.exceptions.RayActorError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        detail, lost = f"worker lost: {type(exc).__name__}: {first}", True
    except ray.exceptions.RayError as exc:
        detail, lost = f"worker failed: {type(exc).__name__}: {str(exc)[:300]}", False
    return _failed(run_id, spec, flight.sample, flight.condition, flight.epoch, detail, [], prices, flight.attempts,
                   0.0), lost
