"""The run engine: every run (the CLI, several models, :mod:`evals.api`) goes plan → open → answer → report here.

:func:`plan` does every check a run's options allow (names, bounds, cost cap, executor, forced tool choice,
MCP servers, a vLLM server's flags) and builds the conditions and the samples, writing nothing: a refused run
leaves no directory. :func:`execute` then opens (or resumes) the run directory, answers the missing samples and
writes the report. Both raise :class:`evals.run.RunFailed` with the CLI's one-line message and exit code.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from agents.models import insecure_url
from agents.secrets import redact
from evals.conditions import Condition, forced_call_error, get_condition
from evals.cost import check_max_cost
from evals.estimate import planned
from evals.executors import Executor, ExecutorUnavailable, make_executor
from evals.options import RunConfig, UsageError
from evals.prepare import (
    Checked,
    Prepared,
    baseline_condition,
    build_work,
    check_measurable,
    check_run_options,
    prepare,
)
from evals.pricing import PriceTable
from evals.records import RunSpec
from evals.run import EXIT_FAILED, EXIT_USAGE, RunFailed, answer, report
from evals.runner import pending_count
from evals.specs import serve_args, start_lines
from tasks.build import SampleBuildError
from tasks.records import Sample
from tools.mcp_client import MCPServerError

OBJECT_PREFIX = "python/"  # evals.api's chat model objects
PAPER_NEEDS_SUITE = "--compare-paper needs --suite (the published figures are a paper's)"
Answerer = Callable[[Prepared, list[Condition], int, Executor, Console], None]
"""Answers the ``todo`` missing items of a prepared run (default: :func:`evals.run.answer` with the provider's
model); raises :class:`RunFailed`."""


@dataclass(frozen=True)
class Plan:
    """A checked run, nothing yet written: its options, spec, conditions, samples and executor."""

    cfg: RunConfig
    spec: RunSpec
    conditions: list[Condition]
    work: list[tuple[Sample, Any]]
    executor: Executor
    serve_args: list[str]
    prices: PriceTable
    formats: list[str]


def plan(cfg: RunConfig, *, forced_tool_choice: str | None = None, chat_object: bool = False,
         like: Plan | None = None) -> Plan:
    """Check ``cfg`` and build its run without writing anything; raises :class:`RunFailed` (exit code 2 for bad
    options, 1 when the executor, an MCP server or the samples cannot be had). ``chat_object``: the model is an
    :mod:`evals.api` object forcing a tool call with ``forced_tool_choice``. ``like``: another model's plan whose
    samples this one shares when it asks the same (several models hold one copy of them)."""
    try:
        return _plan(cfg, forced_tool_choice, chat_object, like)
    except UsageError as exc:
        raise RunFailed(str(exc), EXIT_USAGE) from None
    except SampleBuildError as exc:
        raise RunFailed(f"{exc}; nothing was run", EXIT_FAILED) from None
    except (ExecutorUnavailable, MCPServerError) as exc:  # MCP: a server a resumed run names did not start
        raise RunFailed(str(exc), EXIT_FAILED) from None


SAMPLE_FIELDS = {"tasks", "task_limits", "limit", "size", "split", "seed", "dataset", "dataset_kind"}
"""The spec fields that decide a run's samples (:func:`evals.prepare.build_work`)."""


def _plan(cfg: RunConfig, forced_tool_choice: str | None, chat_object: bool, like: Plan | None) -> Plan:
    check_max_cost(cfg)
    executor = make_executor(cfg)
    if cfg.compare_paper and not cfg.suite and cfg.resume is None:
        raise UsageError(PAPER_NEEDS_SUITE)
    _, formats = check_run_options(cfg)
    spec, done, prices = planned(cfg)
    if cfg.compare_paper and not spec.suite:
        raise UsageError(PAPER_NEEDS_SUITE)
    check_measurable(spec)
    baseline_condition(cfg.baseline_condition, spec.conditions)
    conditions = [get_condition(c) for c in spec.conditions]
    if chat_object and (error := forced_call_error(conditions, forced_tool_choice, spec.max_steps)):
        raise UsageError(error)
    vllm_args = serve_args(cfg.vllm_args, spec.model, spec.base_url)
    same = like is not None and like.spec.model_dump(include=SAMPLE_FIELDS) == spec.model_dump(include=SAMPLE_FIELDS)
    work = like.work if like is not None and same else build_work(spec)
    if spec.model.startswith(OBJECT_PREFIX) and not chat_object and any(
            (s.id, c, e) not in done for s, _ in work for c in spec.conditions for e in range(spec.epochs)):
        raise UsageError(f"{cfg.resume} was answered by a chat model object ({spec.model}): pass it again as "
                         "model= to resume")
    return Plan(cfg, spec, conditions, work, executor, vllm_args, prices, formats)


@dataclass(frozen=True)
class Executed:
    """A run that went to its report: where, its id and final spec, how many samples ended in error."""

    run_dir: Path
    run_id: str
    spec: RunSpec
    failed: int


def execute(p: Plan, console: Console, out: Console, answerer: Answerer | None = None) -> Executed:
    """Open the run directory of ``p``, answer its missing items (with ``answerer``, default the provider's
    model), print the table and write the report. Raises :class:`RunFailed`."""
    try:
        run = prepare(p.cfg, Checked(p.spec, p.work, p.prices, p.formats))
    except UsageError as exc:  # the directory is in use, or holds another run
        raise RunFailed(str(exc), EXIT_USAGE) from None
    except MCPServerError as exc:
        raise RunFailed(str(exc), EXIT_FAILED) from None
    spec = run.spec
    if insecure_url(spec.base_url):
        console.print(f"warning: {redact(str(spec.base_url))} is plain http to another machine: prompts and answers "
                      "(and any key) cross the network unencrypted")
    todo = pending_count(run.store, run.work, p.conditions, spec.epochs)
    total = len(run.work) * len(p.conditions) * spec.epochs
    console.print(f"run {run.run_id}: {len(run.work)} samples × {len(p.conditions)} conditions × {spec.epochs} "
                  f"epochs on {spec.model} → {run.run_dir}" + (f" (resuming: {todo} of {total} to do)"
                                                               if run.resumed else ""))
    for line in start_lines(spec, run.prices):
        console.print(line, markup=False, highlight=False)
    t0 = time.time()
    with run.store:
        if todo:
            if answerer is None:
                answer(run, p.conditions, todo, p.executor, console, tool_call_parser=p.cfg.tool_call_parser,
                       serve_args=p.serve_args, max_cost=p.cfg.max_cost, local_slots=p.cfg.local_slots,
                       local_threads=p.cfg.local_threads)
            else:
                answerer(run, p.conditions, todo, p.executor, console)
        failed = report(run, time.time() - t0, out, console, compare_paper=bool(p.cfg.compare_paper))
    return Executed(Path(run.run_dir), run.run_id, run.spec, failed)
