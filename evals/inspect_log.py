"""A run as inspect_ai eval logs: one ``.eval`` file per condition, for ``inspect view`` and
``inspect_ai.log.read_eval_log`` (the ``inspect`` extra).

Each log holds one sample per (sample, epoch) of its condition: the prompt as ``input``, the gold as ``target``
(JSON text), the whole conversation rebuilt from the trace (system and user messages, every model reply with its
tool calls, every tool result, errors flagged) and the trace as transcript events (a model event per model call, a
tool event per tool call), the final text as ``output``, geogap's score as the ``geogap``
score (``value`` in [0, 1], the parsed ``answer``, the explanation; ``metadata``: correct, answer status, error
and unit) and the sample's ``meta`` plus its task and result status as metadata. A sample that failed carries its
error; one the condition does not apply to has no score. The log's ``metadata.geogap_run_spec`` is the run spec,
its model the run's model, its metrics accuracy over the answered samples (as geogap counts it: failed samples
left out) overall and per task. A log whose condition had failed samples has status ``error``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.records import RunSpec, SampleResult
from evals.run_reader import RunReader
from tasks.records import Sample


class InspectUnavailable(RuntimeError):
    """inspect_ai is not installed."""


def _conversation(trace: Iterable[Any], model: str = "") -> tuple[list[Any], list[Any]]:
    """The trace as inspect chat messages (each model call's new messages, then its reply) and as inspect events
    for the transcript: a ``ModelEvent`` per model call (the conversation so far as its input, the tools offered,
    its reply, error and cache read) and a ``ToolEvent`` per tool call (arguments, result or error)."""
    from inspect_ai.event import ModelEvent, ToolEvent
    from inspect_ai.model import ChatMessageAssistant, GenerateConfig, ModelOutput
    from inspect_ai.tool import ToolCallError, ToolInfo

    out: list[Any] = []
    events: list[Any] = []
    for event in trace:
        when = datetime.fromtimestamp(event.start, UTC)
        done = datetime.fromtimestamp(event.start + event.latency_s, UTC)
        if event.kind == "tool_call":
            events.append(ToolEvent(
                id=event.tool_call_id or event.id, function=event.tool or "", arguments=event.args,
                result=event.result or "", timestamp=when, completed=done, working_time=event.latency_s,
                error=ToolCallError("unknown", event.error or event.status) if event.status != "ok" else None))
            continue
        _append(out, event.messages_in or [])
        asked = list(out)
        _append(out, [event.message_out] if event.message_out else [])
        reply = out[-1] if len(out) > len(asked) and isinstance(out[-1], ChatMessageAssistant) else None
        events.append(ModelEvent(
            model=model or "model", input=asked,
            tools=[ToolInfo(name=t, description=t) for t in event.tools_offered or []],
            tool_choice="auto" if event.tools_offered else "none", config=GenerateConfig(),
            output=ModelOutput.from_message(reply) if reply is not None else ModelOutput.from_content(model, ""),
            error=event.error, cache="read" if event.cache_hit else None, retries=event.retries or None,
            timestamp=when, completed=done, working_time=event.latency_s))
    return out, events


def _append(out: list[Any], messages: Iterable[dict[str, Any]]) -> None:
    """Add stored trace messages (LangChain dicts) to ``out`` as inspect chat messages."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser
    from inspect_ai.tool import ToolCall, ToolCallError

    for m in messages:
        role, text = m.get("role"), str(m.get("content") or "")
        if role == "system":
            out.append(ChatMessageSystem(content=text))
        elif role == "human":
            out.append(ChatMessageUser(content=text))
        elif role == "ai":
            calls = [ToolCall(id=str(c.get("id") or ""), function=str(c.get("name")), arguments=c.get("args") or {})
                     for c in m.get("tool_calls") or []]
            out.append(ChatMessageAssistant(content=text, tool_calls=calls or None))
        elif role == "tool":
            error = ToolCallError("unknown", text) if m.get("status") == "error" else None
            out.append(ChatMessageTool(content=text, tool_call_id=m.get("tool_call_id"), function=m.get("name"),
                                       error=error))


def _sample(r: SampleResult, sample: Sample | None) -> Any:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    prompt: list[Any] = [ChatMessageSystem(content=m.content) if m.role == "system" else ChatMessageUser(content=m.content)
                         for m in (sample.messages if sample else ())]
    target = sample.target if sample else ""
    messages, events = _conversation(r.trace, r.model)
    scores = None
    if r.score is not None and r.status == "ok":
        s = r.score
        scores = {"geogap": Score(value=s.value, answer=None if r.parsed is None else json.dumps(r.parsed.value,
                                                                                                   default=str),
                                  explanation=s.explanation,
                                  metadata={"correct": s.correct, "status": s.status, "error": s.error,
                                            "error_unit": s.error_unit})}
    return EvalSample(
        id=r.sample_id, epoch=r.epoch + 1, input=prompt or r.sample_id,
        target=target if isinstance(target, str) else json.dumps(target, default=str, sort_keys=True),
        messages=messages, events=events, output=ModelOutput.from_content(r.model, r.final_text), scores=scores,
        metadata={**r.meta, "task": r.task, "status": r.status, "stop_reason": r.stop_reason,
                  "tool_calls": r.tool_calls, "tool_errors": r.tool_errors},
        model_usage={r.model: ModelUsage(input_tokens=r.input_tokens, output_tokens=r.output_tokens,
                                         total_tokens=r.input_tokens + r.output_tokens)},
        total_time=r.latency_s,
        error=EvalError(message=r.error or "", traceback="", traceback_ansi="") if r.status == "error" else None,
    )


def _accuracy(results: list[SampleResult]) -> float:
    answered = [r for r in results if r.status == "ok" and r.score is not None]
    return sum(bool(r.score and r.score.correct) for r in answered) / len(answered) if answered else 0.0


def eval_log(run_id: str, spec: RunSpec, condition: str, results: list[SampleResult], samples: dict[str, Sample],
             created: datetime, completed: datetime) -> Any:
    """The inspect eval log of one condition's results."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
    )
    from inspect_ai.model import GenerateConfig, ModelUsage

    tasks = sorted({r.task for r in results})
    metrics = {"accuracy": EvalMetric(name="accuracy", value=_accuracy(results))}
    metrics.update({f"accuracy/{t}": EvalMetric(name=f"accuracy/{t}", value=_accuracy([r for r in results
                                                                                       if r.task == t]))
                    for t in tasks})
    failed = sum(r.status == "error" for r in results)
    tokens_in, tokens_out = sum(r.input_tokens for r in results), sum(r.output_tokens for r in results)
    usage = ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out)
    stamp = created.isoformat()
    return EvalLog(
        status="error" if failed else "success",
        eval=EvalSpec(
            eval_id=f"{run_id}-{_slug(condition)}", run_id=run_id, created=stamp, task=f"geogap/{condition}",
            task_id=_slug(condition), task_display_name=f"{condition} ({', '.join(tasks)})",
            dataset=EvalDataset(name=", ".join(spec.tasks), samples=len({r.sample_id for r in results}),
                                sample_ids=sorted({r.sample_id for r in results})),
            model=spec.model, model_base_url=spec.base_url,
            model_generate_config=GenerateConfig(temperature=spec.temperature, max_tokens=spec.max_tokens,
                                                 seed=spec.seed),
            config=EvalConfig(epochs=spec.epochs, limit=spec.limit),
            metadata={"geogap_run_spec": spec.model_dump(mode="json"), "condition": condition},
        ),
        results=EvalResults(total_samples=len(results), completed_samples=len(results) - failed,
                            scores=[EvalScore(name="geogap", scorer="geogap", metrics=metrics)]),
        stats=EvalStats(started_at=stamp, completed_at=completed.isoformat(), model_usage={spec.model: usage}),
        error=EvalError(message=f"{failed} samples ended in error (geogap: incomplete; --resume retries them)",
                        traceback="", traceback_ansi="") if failed else None,
        samples=[_sample(r, samples.get(r.sample_id)) for r in results],
    )


def _slug(condition: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", condition.lower()).strip("-")


def write_inspect_logs(reader: RunReader, out_dir: Path) -> list[Path]:
    """One ``.eval`` log per condition of the run in ``reader`` into ``out_dir``; raises InspectUnavailable."""
    try:
        from inspect_ai.log import write_eval_log
    except ImportError:
        raise InspectUnavailable("the inspect format needs inspect_ai: pip install 'geogap[inspect]'") from None
    stored = reader.read_spec()
    if stored is None:
        raise ValueError("the store holds no run spec")
    run_id, spec = stored.run_id, stored.spec
    results = list(reader.results())
    samples = reader.samples()
    created = datetime.fromtimestamp(stored.created, UTC)
    completed = datetime.fromtimestamp(reader.last_result_time() or stored.created, UTC)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for condition in spec.conditions:
        mine = sorted((r for r in results if r.condition == condition), key=lambda r: (r.sample_id, r.epoch))
        path = out_dir / f"{created.strftime('%Y-%m-%dT%H-%M-%S+00-00')}_{_slug(condition)}_{run_id}.eval"
        write_eval_log(eval_log(run_id, spec, condition, mine, samples, created, completed), path, format="eval")
        paths.append(path)
    return paths
