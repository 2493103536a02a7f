"""The runner: answer every (sample, condition, epoch), parse, score and store each result at once.

A sample that fails (provider error, timeout, crash in a parser) is stored with its error and the run goes
on. Work already completed in the store is skipped, so re-running the same run directory resumes it.
Conditions run one after another (all intrinsic answers, then all tool answers) so a local server keeps its
prompt cache warm; within a condition up to ``max_connections`` samples run at once.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable

from langchain_core.language_models import BaseChatModel

from agents.tool_agent import AgentLimits
from evals.conditions import Condition
from evals.records import RunSpec, SampleResult
from evals.store import RunStore
from tasks.base import Task
from tasks.records import Parsed, Sample, Score

ProgressFn = Callable[[SampleResult], None]


def _error_result(run_id: str, spec: RunSpec, sample: Sample, cond: Condition, epoch: int, exc: BaseException) -> SampleResult:
    detail = f"{type(exc).__name__}: {exc}".strip()
    return SampleResult(
        run_id=run_id, sample_id=sample.id, task=sample.task, condition=cond.name, epoch=epoch, model=spec.model,
        status="error", error=detail or type(exc).__name__, meta=dict(sample.meta),
        score=Score(correct=False, value=0.0, explanation=f"sample failed: {detail[:200]}"),
    )


async def answer_sample(run_id: str, spec: RunSpec, sample: Sample, task: Task, cond: Condition,
                        model: BaseChatModel, epoch: int = 0) -> SampleResult:
    """Answer, parse and score one sample under one condition; never raises for a sample-level failure."""
    limits = AgentLimits(max_steps=spec.max_steps, max_tool_calls=spec.max_tool_calls)
    try:
        res = await asyncio.wait_for(cond.answer(sample, task, model, limits), timeout=spec.sample_timeout_s)
    except asyncio.CancelledError:
        raise
    except TimeoutError as exc:
        return _error_result(run_id, spec, sample, cond, epoch,
                             TimeoutError(f"sample exceeded {spec.sample_timeout_s:.0f} s") if not str(exc) else exc)
    except Exception as exc:  # noqa: BLE001 - a failing sample is recorded, not fatal
        return _error_result(run_id, spec, sample, cond, epoch, exc)
    try:
        parsed = task.parse(res.final_text, sample)
    except Exception as exc:  # noqa: BLE001 - a parser bug is a parse failure, recorded with its traceback
        parsed = Parsed.failure(res.final_text, f"parser crashed: {type(exc).__name__}: {exc}")
    try:
        score = task.score(parsed, sample)
    except Exception:  # noqa: BLE001
        score = Score(correct=False, value=0.0, explanation="scorer crashed: " + traceback.format_exc(limit=2))
    return SampleResult(
        run_id=run_id, sample_id=sample.id, task=sample.task, condition=cond.name, epoch=epoch, model=spec.model,
        final_text=res.final_text, parsed=parsed, score=score, trace=res.trace, input_tokens=res.input_tokens,
        output_tokens=res.output_tokens, cached_tokens=res.cached_tokens, latency_s=res.latency_s,
        tool_calls=res.tool_calls, stop_reason=res.stop_reason, meta=dict(sample.meta),
    )


async def run_all(run_id: str, spec: RunSpec, store: RunStore, work: list[tuple[Sample, Task]],
                  conditions: list[Condition], model: BaseChatModel, on_result: ProgressFn | None = None) -> int:
    """Run every missing (sample, condition, epoch); returns how many results were written."""
    done = store.completed()
    sem = asyncio.Semaphore(max(1, spec.max_connections))
    written = 0

    async def one(sample: Sample, task: Task, cond: Condition, epoch: int) -> None:
        nonlocal written
        async with sem:
            result = await answer_sample(run_id, spec, sample, task, cond, model, epoch)
        store.add_result(result)
        written += 1
        if on_result:
            on_result(result)

    for cond in conditions:
        jobs = [one(s, t, cond, e) for e in range(spec.epochs) for s, t in work if (s.id, cond.name, e) not in done]
        await asyncio.gather(*jobs)
    return written


def pending_count(store: RunStore, work: list[tuple[Sample, Task]], conditions: list[Condition], epochs: int) -> int:
    done = store.completed()
    return sum(1 for c in conditions for e in range(epochs) for s, _ in work if (s.id, c.name, e) not in done)
