"""Run a prepared run: start the provider's model server if it has one, answer the missing samples on the chosen
executor with a progress bar, then print the table and write the report files."""

from __future__ import annotations

import sys
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from agents.call_cache import CallCache
from agents.models import parse_model
from agents.providers import PROVIDERS, ServerUnavailable
from agents.secrets import redact
from evals.analysis import TaskComparison, usage
from evals.conditions import unforced_note
from evals.endpoints import SpecEndpointFactory
from evals.executors import Executor, ExecutorUnavailable, Job
from evals.export import ExportError, export
from evals.prepare import Prepared
from evals.records import SampleResult
from evals.report import build_report, print_table, write_results_json
from evals.run_reader import RunReader
from evals.runner import RunStopped
from evals.view.report import write_report_html

# Exit codes (README "Exit codes"; --help).
EXIT_OK = 0  # every selected sample answered (or not applicable)
EXIT_FAILED = 1  # could not run: the model or its server did not start, a non-portable llama.cpp build, ...
EXIT_USAGE = 2  # bad flags or config, a run that selects no sample, a run directory in use
EXIT_ERRORS = 3  # the run finished but some samples ended in error: results incomplete (--resume retries them)
EXIT_STOPPED = 4  # the run stopped early: its model server died or its endpoint is unreachable (--resume continues)


EXIT_TERMINATED = 143  # stopped by SIGTERM (128 + 15); completed samples are kept


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread by :func:`on_sigterm` so that it unwinds as Ctrl-C does."""


def on_sigterm(signum: int, frame: object) -> None:
    """The SIGTERM handler of the CLI: stop like Ctrl-C (completed samples are stored), exit code 143."""
    raise Terminated


class RunFailed(Exception):
    """The run could not go on; ``code`` is the exit code, the message one line (already printed if empty)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def answer(run: Prepared, conditions: list[Any], todo: int, executor: Executor, console: Console, *,
           tool_call_parser: str | None = None) -> None:
    """Serve the model (if its provider has a server), then answer the ``todo`` missing items; raises
    :class:`RunFailed`."""
    spec = run.spec
    model = parse_model(spec.model)
    provider = PROVIDERS.get(model.provider)
    if note := unforced_note(spec.model, conditions, provider.forced_tool_choice):
        console.print(note, markup=False, highlight=False)
    cache = CallCache() if spec.cache else None
    with ExitStack() as stack:
        if cache is not None:
            stack.callback(cache.close)
        try:
            served = stack.enter_context(provider.serve(model.name, spec.base_url, log_path=Path(run.run_dir) /
                                                        "server.log", tool_call_parser=tool_call_parser,
                                                        say=console.print))
        except ValueError as exc:  # e.g. no tool-call parser known for the model
            raise RunFailed(str(exc), EXIT_USAGE) from None
        except ServerUnavailable as exc:
            raise RunFailed(str(exc), EXIT_FAILED) from None
        identity: dict[str, Any] | None = None
        if cache is not None:
            identity, why_not = provider.identity(model.name, served, api_key_env=spec.api_key_env,
                                                  versions=spec.versions)
            if why_not:
                console.print(f"warning: {why_not}")
                cache = None
        factory = SpecEndpointFactory(spec, served.base_url, cache.path if cache is not None else None,
                                      identity or {}, cache)
        job = Job(run.run_id, spec, run.store, run.work, conditions, factory, run.prices)
        _execute(job, executor, todo, console, run.run_dir, served.watch)


def _execute(job: Job, executor: Executor, todo: int, console: Console, run_dir: Path, watch: Any) -> None:
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=False)
    tally: Counter[tuple[str, str]] = Counter()
    with progress:
        bar = progress.add_task("samples", total=todo)

        def on_result(r: SampleResult) -> None:
            mark = r.status if r.status != "ok" else ("correct" if r.score and r.score.correct else "wrong")
            tally[(r.condition, mark)] += 1
            right = tally[(r.condition, "correct")]
            answered = right + tally[(r.condition, "wrong")]  # errors and not-applicable samples are no answers
            failed = tally[(r.condition, "error")]
            progress.update(bar, advance=1, description=f"{r.condition:<12} {right}/{answered} right"
                            + (f", {failed} failed" if failed else ""))

        try:
            executor.execute(job, on_result, watch)
        except ExecutorUnavailable as exc:
            console.print(f"error: {exc}")
            raise RunFailed("", EXIT_FAILED) from None
        except RunStopped as exc:
            progress.stop()
            print(f"error: {redact(f'run stopped: {exc}')}", file=sys.stderr)
            print(f"completed samples are stored; resume with --resume {run_dir}", file=sys.stderr)
            raise RunFailed("", EXIT_STOPPED) from None
        except KeyboardInterrupt as exc:
            how, code = ("terminated (SIGTERM)", EXIT_TERMINATED) if isinstance(exc, Terminated) else ("interrupted", 130)
            progress.stop()
            print(f"error: {how}: completed samples are stored; resume with --resume {run_dir}", file=sys.stderr)
            raise RunFailed("", code) from None


def report(run: Prepared, wall: float, out: Console, console: Console, *, compare_paper: bool = False) -> int:
    """Print the table (and a suite's paper-shaped tables), write the report files; returns how many samples of
    the run ended in error."""
    spec, store = run.spec, run.store
    ids = {s.id for s, _ in run.work}
    # traces without message bodies: tool use and tool-result fidelity need the tool calls and their results
    results = [r for r in store.results(bodies=False) if r.sample_id in ids and r.condition in spec.conditions]
    samples = {s.id: s for s, _ in run.work}
    baseline_results = None
    if run.baseline is not None:
        baseline_results = list(RunReader(run.baseline).results(with_trace=False))
    spent = usage(results)
    out_tokens = spent["output_tokens"]
    gen_time = sum(r.latency_s for r in results)
    meta = {"run_id": run.run_id, "run_dir": str(run.run_dir), "spec": spec.model_dump(), "wall_s": round(wall, 2),
            "results": len(results), "failed": sum(1 for r in results if r.status == "error"),
            "not_applicable": sum(1 for r in results if r.status == "not_applicable"),
            **spent, "output_tokens_per_s": round(out_tokens / gen_time, 2) if gen_time else None,
            "cost_usd": None if spent["cost_usd"] is None else round(spent["cost_usd"], 6),
            "baseline_run_dir": str(run.baseline) if run.baseline else None}
    loaded = {t.name: t for _, t in run.work if hasattr(t, "load_report")}
    if loaded:  # tasks reading released files: per-file accounting of every line, printed and in results.json
        meta["load_reports"] = {name: t.load_report for name, t in loaded.items()}
        for t in loaded.values():
            for line in t.load_summary():
                out.print(line, markup=False, highlight=False)
    report = build_report(results, spec.conditions, meta, baseline_results, samples=samples)
    # the table shows the report's own comparisons (computed once, tool use and fidelity included)
    comparisons = [TaskComparison.model_validate(t) for t in report["tasks"]]
    rows = comparisons + ([TaskComparison.model_validate(report["overall"])] if len(comparisons) > 1 else [])
    print_table(rows, spec.conditions, out, title=f"{spec.model} · split {spec.split} · seed {spec.seed}")
    if spec.suite:
        from evals.paper_tables import add_paper_tables

        add_paper_tables(report, results, spec, out, compare_paper=compare_paper)
    if report.get("baseline_run"):
        for row in report["baseline_run"]:
            out.print(f"vs baseline {row['task']} {row['condition']}: {100 * row['gap']:+.1f} pts "
                      f"[{100 * row['ci'][0]:+.1f}, {100 * row['ci'][1]:+.1f}] on {row['n_paired']} paired, "
                      f"McNemar p {row['mcnemar_p']:.2g}")
    write_results_json(run.run_dir / "results.json", report)
    write_report_html(run.run_dir, report)
    try:
        export(store, run.formats)
    except ExportError as exc:
        console.print(f"warning: {exc}")
    failed = meta["failed"]
    cost = f" · ${meta['cost_usd']:.4f}" if meta["cost_usd"] else ""
    out.print(f"wall {wall:.1f} s · {out_tokens} output tokens{cost} · {len(results)} results"
              + (f" · {failed} failed samples (see results.jsonl)" if failed else "") + f" · run dir {run.run_dir}")
    if failed:
        console.print(f"incomplete: {failed} samples ended in error and are left out of accuracy and the gap; "
                      f"--resume {run.run_dir} retries them (exit code {EXIT_ERRORS})")
    return int(failed)
