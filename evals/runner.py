"""The runner: answer every (sample, condition, epoch), parse, score and store each result at once.

Asynchronous, with at most ``spec.max_connections`` samples in flight. Model calls go through a
:class:`~agents.model_call.ModelCaller` (retries with backoff on rate limits, 5xx and timeouts; the cache).
Per-sample limits: model calls (steps), tool calls, tokens, wall time. A sample that still fails (provider
error after retries, a timeout, a crash in a parser) is stored with its error and partial trace, and the run
goes on — unless the endpoint itself is gone: after :data:`DEAD_ENDPOINT_AFTER` consecutive samples that failed
to connect (refused, DNS, TLS), or as soon as ``watch`` reports that a model server this run started has died,
the run stops with :class:`RunStopped` (samples in flight are cancelled, not stored). Each result is committed on its own, so a killed run loses no completed sample; work already
completed in the store is skipped, so re-running the same run directory resumes it and redoes only missing or
failed samples. Conditions run one after another (all intrinsic answers, then all tool answers) so a local
server keeps its prompt cache warm.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel

from agents.final_answer import FINAL_ANSWER, final_call
from agents.model_call import AgentError, ModelCaller, RetryPolicy, describe
from agents.secrets import redact
from agents.tool_agent import AgentLimits
from agents.trace import AgentResult, ModelCallEvent, TraceEvent, TraceUsage
from evals import funnel
from evals.conditions import AnswerContext, Condition, NotApplicable
from evals.judge import Judge, judged_parse
from evals.pricing import PriceTable
from evals.records import RunSpec, SampleResult
from evals.store import RunStore
from tasks.answer_kinds import read_structured
from tasks.base import Task
from tasks.records import AnswerStatus, Parsed, Sample, Score
from tools.mcp_client import close_sessions

ProgressFn = Callable[[SampleResult], None]
Watch = Callable[[], "str | None"]
T = TypeVar("T")
DEAD_ENDPOINT_AFTER = 3
"""Consecutive samples failing to connect after which the endpoint is taken for dead and the run stops."""
WATCH_INTERVAL_S = 0.2
CONNECTION_LABEL = "connection:"  # how agents.model_call labels a call that could not reach the endpoint


class ExecutorUnavailable(RuntimeError):
    """The executor cannot run here (not installed, cluster unreachable): one line, exit code 1 (re-exported by
    :mod:`evals.executors`, whose executors raise it)."""


class RunStopped(Exception):
    """The run cannot go on (its model server died, its endpoint is unreachable); completed samples are stored
    and ``--resume`` continues."""


def connection_failure(result: SampleResult) -> bool:
    """Whether ``result`` failed because its last model call never reached the endpoint (refused, DNS, TLS)."""
    if result.status != "error":
        return False
    calls = [e for e in result.trace if e.kind == "model_call"]
    return bool(calls) and calls[-1].status == "error" and (calls[-1].error or "").startswith(CONNECTION_LABEL)


def endpoint_name(model: object, spec: RunSpec) -> str:
    """The endpoint a run calls, credentials masked: the factory's or the spec's base URL, else the provider."""
    url = getattr(model, "base_url", None) or spec.base_url
    return redact(str(url)) if url else f"{spec.model} (the provider's API)"


@dataclass(frozen=True)
class Endpoint:
    """The model of one epoch, the caller that calls it (retries, cache) and its provider's ``tool_choice`` that
    forces a tool call (None: it cannot force one)."""

    model: BaseChatModel
    caller: ModelCaller
    forced_tool_choice: str | None = None
    per_task: Mapping[str, Endpoint] = field(default_factory=dict)
    """Endpoints of tasks whose generation protocol differs (a paper's per-task output budget)."""


EndpointFactory = Callable[[int], "Endpoint | BaseChatModel"]


def retry_policy(spec: RunSpec) -> RetryPolicy:
    return RetryPolicy(max_attempts=spec.max_attempts, base_delay_s=spec.retry_base_delay_s,
                       attempt_timeout_s=spec.call_timeout_s)


def limits_of(spec: RunSpec) -> AgentLimits:
    return AgentLimits(max_steps=spec.max_steps, max_tool_calls=spec.max_tool_calls, max_tokens=spec.max_sample_tokens)


ENDED: dict[str, tuple[AnswerStatus, str]] = {
    "length": ("truncated", "the reply was cut at the output-token limit"),
    "content_filter": ("blocked", "the provider's safety filter stopped the reply"),
    "prompt_blocked": ("blocked", "the provider blocked the prompt"),
    "refusal": ("refused", "the provider reports a refusal"),
    "reasoning_only": ("unparsed", "the server left the answer or a tool call only in its reasoning field, not in "
                                   "the reply (its reasoning parser; agents.models.reasoning_flag)"),
}
"""Finish reasons of a sample's last model call that decide its answer status whatever the text parses to."""


def ended_status(trace: list[TraceEvent], parsed: Parsed) -> Parsed | None:
    """The parse that the way the sample's last model call ended imposes (docs/scoring.md "Errors and answer
    statuses"): ``truncated`` at the token limit, ``blocked`` by a safety filter or a prompt block, ``refused`` for
    an API-level refusal; None when the call ended otherwise (``parsed`` stands). The text's own parse is named in
    the reason, never credited."""
    last = next((e for e in reversed(trace) if isinstance(e, ModelCallEvent)), None)
    if last is None or last.finish_reason not in ENDED:
        return None
    status, why = ENDED[last.finish_reason]
    alone = f"parsed to {parsed.value!r}" if parsed.ok else f"was {parsed.status}"
    return Parsed(raw=parsed.raw, ok=False, status=status,
                  reason=f"{why} (finish reason {last.finish_reason_raw}); the text alone {alone}")


def trace_cost(trace: Sequence[TraceEvent], model: str, prices: PriceTable | None, *,
               cache_hits: bool = False) -> float | None:
    """USD of the trace's model calls (cache hits free); with ``cache_hits`` what its cache hits would have cost
    (the spend the cache avoided). None when the model has no price, even with no call."""
    if prices is None or prices.price(model) is None:
        return None
    total = 0.0
    for e in trace:
        if e.kind != "model_call" or e.cache_hit != cache_hits:
            continue
        c = prices.cost(model, e.input_tokens, e.output_tokens, e.cached_tokens)
        if c is None:
            return None
        total += c
    return total


def _accounting(trace: list[TraceEvent], spec: RunSpec, prices: PriceTable | None) -> dict[str, Any]:
    return {**TraceUsage.of(trace).model_dump(), "cost_usd": trace_cost(trace, spec.model, prices)}


def _failed(run_id: str, spec: RunSpec, sample: Sample, cond: Condition, epoch: int, detail: str,
            trace: list[TraceEvent], prices: PriceTable | None, attempts: int, latency_s: float) -> SampleResult:
    return SampleResult(
        run_id=run_id, sample_id=sample.id, task=sample.task, condition=cond.name, epoch=epoch, model=spec.model,
        status="error", error=detail, meta=dict(sample.meta), trace=trace, attempts=attempts, latency_s=latency_s,
        score=Score(correct=False, value=0.0, explanation=f"sample failed: {detail[:200]}"),
        **_accounting(trace, spec, prices),
    )


async def answer_sample(run_id: str, spec: RunSpec, sample: Sample, task: Task, cond: Condition,
                        endpoint: Endpoint | BaseChatModel, epoch: int = 0, *, prices: PriceTable | None = None,
                        attempts: int = 1) -> SampleResult:
    """Answer, parse and score one sample under one condition; never raises for a sample-level failure."""
    if not isinstance(endpoint, Endpoint):
        endpoint = Endpoint(endpoint, ModelCaller(retry_policy(spec)))
    endpoint = endpoint.per_task.get(sample.task, endpoint)
    ctx = AnswerContext(model=endpoint.model, limits=limits_of(spec), caller=endpoint.caller, seed=spec.seed,
                        epoch=epoch, forced_tool_choice=endpoint.forced_tool_choice,
                        answer_channel=spec.answer_channel)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    asked, scorer = sample, task
    try:
        prepare = getattr(cond, "prepare", None)
        if prepare is not None:
            asked, scorer = prepare(sample, task, ctx)
        res: AgentResult = await asyncio.wait_for(cond.answer(asked, scorer, ctx), timeout=spec.sample_timeout_s)
    except asyncio.CancelledError:
        raise
    except NotApplicable as exc:
        return SampleResult(run_id=run_id, sample_id=sample.id, task=sample.task, condition=cond.name, epoch=epoch,
                            model=spec.model, status="not_applicable", error=str(exc), meta=dict(sample.meta),
                            attempts=attempts)
    except TimeoutError:
        return _failed(run_id, spec, sample, cond, epoch, f"timeout: sample exceeded {spec.sample_timeout_s:g} s",
                       list(ctx.trace_sink), prices, attempts, loop.time() - t0)
    except AgentError as exc:
        return _failed(run_id, spec, sample, cond, epoch, str(exc), exc.trace, prices, attempts, loop.time() - t0)
    except Exception as exc:  # noqa: BLE001 - a failing sample is recorded, not fatal
        return _failed(run_id, spec, sample, cond, epoch, describe(exc), list(ctx.trace_sink), prices, attempts,
                       loop.time() - t0)
    structured, why_not = final_call(res.trace) if spec.answer_channel == "structured" else (None, "")
    try:
        parsed = (read_structured(scorer, asked, structured, why_not) if spec.answer_channel == "structured"
                  else scorer.parse(res.final_text, asked))
    except Exception as exc:  # noqa: BLE001 - a parser bug is a parse failure, recorded with its reason
        parsed = Parsed.failure(res.final_text, f"parser crashed: {type(exc).__name__}: {exc}")
    parsed = ended_status(res.trace, parsed) or parsed
    reading = None
    if parsed.status == "unlocated" and spec.judge and spec.answer_channel == "text":  # evals/judge.py
        try:
            verdict = await Judge.named(spec.judge).locate(asked, scorer, res.final_text)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a failed judge call fails the sample: resume redoes it
            return _failed(run_id, spec, sample, cond, epoch, f"judge {spec.judge}: {describe(exc)}", res.trace,
                           prices, attempts, loop.time() - t0)
        reading, parsed = verdict.reading, judged_parse(verdict, parsed)
    if parsed.status != "answered":  # the policy holds whatever a task's scorer does: no answer, no credit
        score = Score.unanswered(parsed)
    else:
        try:
            score = scorer.score(parsed, asked)
        except Exception:  # noqa: BLE001
            score = Score(correct=False, value=0.0, status="unparsed",
                          explanation="scorer crashed: " + traceback.format_exc(limit=2))
    meta = dict(sample.meta)
    if asked is not sample:
        meta["asked_sample_id"] = asked.id
    return SampleResult(
        run_id=run_id, sample_id=sample.id, task=sample.task, condition=cond.name, epoch=epoch, model=spec.model,
        final_text=res.final_text, parsed=parsed, score=score, trace=res.trace, latency_s=res.latency_s,
        stop_reason=res.stop_reason, meta=meta, attempts=attempts, judge=reading,
        answer_channel=spec.answer_channel, structured_answer=structured,
        funnel=funnel.of_sample(res.trace, scorer, asked, parsed, score) if _offered_tools(res.trace) else None,
        **_accounting(res.trace, spec, prices),
    )


def _offered_tools(trace: list[TraceEvent]) -> bool:
    return any(isinstance(e, ModelCallEvent) and set(e.tools_offered or ()) - {FINAL_ANSWER} for e in trace)


def _pending_iter(done: set[tuple[str, str, int]], work: list[tuple[Sample, Task]], cond: Condition,
                  epochs: int) -> Iterator[tuple[Sample, Task, Condition, int]]:
    return ((s, t, cond, e) for e in range(epochs) for s, t in work if (s.id, cond.name, e) not in done)


def pending_count(store: RunStore, work: list[tuple[Sample, Task]], conditions: list[Condition], epochs: int) -> int:
    done = store.completed()
    return sum(1 for c in conditions for _ in _pending_iter(done, work, c, epochs))


def resolve_endpoint(model: BaseChatModel | EndpointFactory, spec: RunSpec, epoch: int) -> Endpoint:
    """The endpoint of one epoch: ``model`` itself with a default caller, or what the factory gives."""
    if isinstance(model, BaseChatModel):
        return Endpoint(model, ModelCaller(retry_policy(spec)))
    made = model(epoch)
    return made if isinstance(made, Endpoint) else Endpoint(made, ModelCaller(retry_policy(spec)))


async def drain(items: Iterator[T], size: int, work: Callable[[T], Awaitable[None]]) -> None:
    """Run ``work`` on every item with at most ``size`` in flight: ``size`` workers pull from one iterator, so
    memory stays flat whatever the number of items (no coroutine per item is created up front)."""

    async def worker() -> None:
        for item in items:
            await work(item)

    async with asyncio.TaskGroup() as group:
        for _ in range(max(1, size)):
            group.create_task(worker())


async def _watch(watch: Watch) -> None:
    """Raise :class:`RunStopped` as soon as ``watch`` names a reason (polled every ``WATCH_INTERVAL_S``)."""
    while True:
        if (reason := watch()) is not None:
            raise RunStopped(reason)
        await asyncio.sleep(WATCH_INTERVAL_S)


async def run_all(run_id: str, spec: RunSpec, store: RunStore, work: list[tuple[Sample, Task]],
                  conditions: list[Condition], model: BaseChatModel | EndpointFactory,
                  on_result: ProgressFn | None = None, *, prices: PriceTable | None = None,
                  watch: Watch | None = None) -> int:
    """Run every missing (sample, condition, epoch); returns how many results were written.

    ``model`` is a chat model (used for every epoch, with a default caller) or a factory giving each epoch's
    :class:`Endpoint` (or chat model). At most ``spec.max_connections`` samples are in flight. ``watch``
    returns why the run cannot go on (e.g. the model server died), or None. Raises :class:`RunStopped` when
    ``watch`` reports or after :data:`DEAD_ENDPOINT_AFTER` consecutive connection failures; what completed
    before stays stored.
    """
    done = store.completed()
    tries = store.attempts()
    endpoints: dict[int, Endpoint] = {}
    written = 0
    unreachable = 0

    async def one(item: tuple[Sample, Task, Condition, int]) -> None:
        nonlocal written, unreachable
        sample, task, cond, epoch = item
        if epoch not in endpoints:
            endpoints[epoch] = resolve_endpoint(model, spec, epoch)
        result = await answer_sample(run_id, spec, sample, task, cond, endpoints[epoch], epoch, prices=prices,
                                     attempts=tries.get((sample.id, cond.name, epoch), 0) + 1)
        if watch is not None and result.status == "error" and (reason := watch()) is not None:
            raise RunStopped(reason)  # the sample failed because the server died: not stored, resume redoes it
        store.add_result(result)
        written += 1
        if on_result:
            on_result(result)
        unreachable = unreachable + 1 if connection_failure(result) else 0 if result.status == "ok" else unreachable
        if unreachable >= DEAD_ENDPOINT_AFTER:
            last = (result.error or "")[:200]
            raise RunStopped(f"endpoint {endpoint_name(model, spec)} is unreachable: {unreachable} samples in a "
                             f"row could not connect ({last})")

    async def every_condition() -> None:
        for cond in conditions:  # one condition after another: a local server keeps its prompt cache warm
            await drain(_pending_iter(done, work, cond, spec.epochs), spec.max_connections, one)

    try:
        async with asyncio.TaskGroup() as group:
            watcher = group.create_task(_watch(watch)) if watch is not None else None
            await every_condition()
            if watcher is not None:
                watcher.cancel()
    except* RunStopped as stopped:
        raise _first_leaf(stopped) from None
    finally:
        await close_sessions()  # the MCP sessions this run's tool calls opened (their servers exit)
    return written


def _first_leaf(group: BaseExceptionGroup[RunStopped]) -> RunStopped:
    first: BaseException = group
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    assert isinstance(first, RunStopped)
    return first
