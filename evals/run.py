"""Run a prepared run: start the provider's model server if it has one, answer the missing samples on the chosen
executor with a progress bar, then print the table and write the report files."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import replace
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
from agents.local_model import MAX_AUTO_SLOTS
from agents.model_spec import parse_model
from agents.providers import PROVIDERS, ServerUnavailable
from agents.secrets import redact
from agents.trace import ModelCallEvent
from evals.analysis import TaskComparison, usage
from evals.batch import BatchUnsupported, run_batched
from evals.conditions import unforced_note
from evals.cost import EXIT_COST_CAP, CostCapReached, CostMeter
from evals.endpoints import SpecEndpointFactory
from evals.executors import Executor, ExecutorUnavailable, Job
from evals.export import ExportError, export
from evals.leaderboard import (
    build_leaderboard,
    print_leaderboard,
    read_entry,
    render_run_differences,
    unique_labels,
)
from evals.mcp import failure_lines
from evals.prepare import Prepared
from evals.pricing import PriceTable
from evals.progress import ProgressLines, Tally
from evals.records import SampleResult
from evals.report import build_report, print_table, write_results_json
from evals.run_reader import RunReader
from evals.runner import RunStopped, trace_cost
from evals.tables_out import write_run_outputs
from evals.view.report import write_report_html

# Exit codes (docs/running.md "Exit codes and input checks"; --help).
EXIT_OK = 0  # every selected sample answered (or not applicable)
EXIT_FAILED = 1  # could not run: the model or its server did not start, a non-portable llama.cpp build, ...
EXIT_USAGE = 2  # bad flags or config, a run that selects no sample, a run directory in use
EXIT_ERRORS = 3  # the run finished but some samples ended in error: results incomplete (--resume retries them)
EXIT_STOPPED = 4  # the run stopped early: its model server died or its endpoint is unreachable (--resume continues)
# EXIT_COST_CAP = 5 (evals.cost): the run's spend reached --max-cost (--resume continues)


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


def cost_meter(run: Prepared, max_cost: float | None) -> CostMeter | None:
    """The meter of ``max_cost`` (USD; None: no cap) over the run's stored results; raises :class:`RunFailed`
    (exit code 5) when they already reach it."""
    if max_cost is None:
        return None
    meter = CostMeter(max_cost, run.store.results(with_trace=False))
    try:
        meter.check()
    except CostCapReached as exc:
        raise RunFailed(f"{exc} before this call; nothing was run: --resume {run.run_dir} with a higher "
                        "--max-cost (or none) continues", EXIT_COST_CAP) from None
    return meter


def answer(run: Prepared, conditions: list[Any], todo: int, executor: Executor, console: Console, *,
           tool_call_parser: str | None = None, serve_args: list[str] | None = None,
           max_cost: float | None = None, local_slots: int | None = None,
           local_threads: int | None = None) -> None:
    """Serve the model (if its provider has a server; the embedded one with ``local_slots`` slots, default one per
    connection up to ``MAX_AUTO_SLOTS``, and ``local_threads`` threads, default by the load at start), then
    answer the ``todo`` missing items, stopping when the spend reaches ``max_cost`` (USD); raises
    :class:`RunFailed`."""
    spec = run.spec
    model = parse_model(spec.model)  # its provider is known: evals.prepare.check_measurable
    provider = PROVIDERS.get(model.provider)
    if note := unforced_note(spec.model, conditions, provider.forced_tool_choice):
        console.print(note, markup=False, highlight=False)
    meter = cost_meter(run, max_cost)
    cache = CallCache() if spec.cache else None
    with ExitStack() as stack:
        if cache is not None:
            stack.callback(cache.close)
        try:
            served = stack.enter_context(provider.serve(model.name, spec.base_url, log_path=Path(run.run_dir) /
                                                        "server.log", tool_call_parser=tool_call_parser,
                                                        say=console.print, serve_args=serve_args or (),
                                                        slots=local_slots or min(spec.max_connections,
                                                                                 MAX_AUTO_SLOTS),
                                                        threads=local_threads))
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
        if spec.batch:
            todo -= answer_batched(run, conditions, factory, console)
        prices = run.prices.at_tier(spec.model, spec.service_tier) if spec.service_tier else run.prices
        job = Job(run.run_id, spec, run.store, run.work, conditions, factory, prices)
        execute_job(job, executor, todo, console, run.run_dir, served.watch, meter)


def answer_batched(run: Prepared, conditions: list[Any], factory: SpecEndpointFactory, console: Console) -> int:
    """``--batch``: the single-call conditions through the provider's batch API (:mod:`evals.batch`), progress as
    lines; returns the results stored. Stopping keeps the batches recorded: ``--resume`` collects them."""
    def say(counts: dict[str, int]) -> None:
        console.print(f"batches: {counts['submitted']} submitted, {counts['in_progress']} in progress, "
                      f"{counts['done']} done", markup=False, highlight=False)

    try:
        return run_batched(run.run_id, run.spec, run.store, Path(run.run_dir), run.work, conditions, factory,
                           run.prices, on_poll=say)
    except BatchUnsupported as exc:
        raise RunFailed(str(exc), EXIT_USAGE) from None
    except KeyboardInterrupt as exc:
        how, code = ("terminated (SIGTERM)", EXIT_TERMINATED) if isinstance(exc, Terminated) else ("interrupted", 130)
        raise RunFailed(f"{how}: submitted batches are recorded in {run.run_dir}/batches.json; --resume "
                        f"{run.run_dir} collects them", code) from None


def execute_job(job: Job, executor: Executor, todo: int, console: Console, run_dir: Path, watch: Any,
                meter: CostMeter | None = None) -> None:
    """Answer the job with a live progress bar on a terminal, else plain progress lines
    (:class:`evals.progress.ProgressLines`: nohup, Slurm, CI see progress while the run goes); ``meter`` stops
    the run at its cost cap."""
    if console.is_terminal:
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=False)
        tally = Tally()
        bar = progress.add_task("samples", total=todo)

        def on_bar(r: SampleResult) -> None:
            tally.add(r)
            progress.update(bar, advance=1, description=tally.describe(r.condition))

        shown: Any = progress
        update = on_bar
    else:
        shown = ProgressLines(todo, lambda line: console.print(line, markup=False, highlight=False, soft_wrap=True))
        update = shown.update

    def on_result(r: SampleResult) -> None:
        update(r)
        if meter is not None:
            meter.add(r)

    with shown:
        try:
            executor.execute(job, on_result, watch)
        except ExecutorUnavailable as exc:
            raise RunFailed(str(exc), EXIT_FAILED) from None
        except CostCapReached as exc:
            if isinstance(shown, Progress):
                shown.stop()
            raise RunFailed(f"stopped: {exc}; completed samples are stored: --resume {run_dir} with a higher "
                            f"--max-cost (or none) continues (exit code {EXIT_COST_CAP})", EXIT_COST_CAP) from None
        except RunStopped as exc:
            if isinstance(shown, Progress):
                shown.stop()
            raise RunFailed(redact(f"run stopped: {exc}; completed samples are stored; resume with --resume {run_dir}"),
                            EXIT_STOPPED) from None
        except KeyboardInterrupt as exc:
            how, code = ("terminated (SIGTERM)", EXIT_TERMINATED) if isinstance(exc, Terminated) else ("interrupted", 130)
            if isinstance(shown, Progress):
                shown.stop()
            raise RunFailed(f"{how}: completed samples are stored; resume with --resume {run_dir}", code) from None


def ended_lines(pooled: TaskComparison, caps: Sequence[int]) -> list[str]:
    """One line per condition with truncated or blocked answers: how many, and that they earn no credit;
    ``caps``: the output caps the tasks' generation protocols sent per call."""
    lines = []
    shown = sorted(set(caps))
    cap = (f"{shown[0]:,}" if len(shown) == 1 else f"{shown[0]:,} to {shown[-1]:,}") if shown else "the model's"
    for cond, s in pooled.conditions.items():
        cut, blocked = s.statuses.get("truncated", 0), s.statuses.get("blocked", 0)
        if cut:
            lines.append(f"note: {cond}: {cut} of {s.n} answers were cut at the output-token limit ({cap} tokens "
                         "per call): status truncated, never credited, in n")
        if blocked:
            lines.append(f"note: {cond}: {blocked} of {s.n} answers were blocked by the provider's safety filter: "
                         "status blocked, never credited, in n")
    return lines


def reasoning_only_lines(results: Sequence[SampleResult]) -> list[str]:
    """One warning per condition and kind where the server left answers or tool calls only in its reasoning field
    (finish reason ``reasoning_only``, :func:`agents.models.reasoning_flag`): a server artefact, not the model's
    answer, so those samples are ``unparsed`` and the run says why."""
    found: dict[tuple[str, str], int] = {}
    totals: dict[str, int] = {}
    for r in results:
        totals[r.condition] = totals.get(r.condition, 0) + 1
        kinds = {str(e.finish_reason_raw).partition("; ")[2] for e in r.trace
                 if isinstance(e, ModelCallEvent) and e.finish_reason == "reasoning_only"}
        for kind in kinds:
            found[r.condition, kind] = found.get((r.condition, kind), 0) + 1
    return [f"warning: {cond}: {n} of {totals[cond]} samples: {kind} (the server's reasoning parser kept it "
            "there; check its --reasoning-parser and tool-call parser): status unparsed"
            for (cond, kind), n in found.items()]


def cache_saved(results: Sequence[SampleResult], model: str, prices: PriceTable) -> float | None:
    """What the calls answered from the model-call cache would have cost (None without a price)."""
    costs = [trace_cost(r.trace, model, prices, cache_hits=True) for r in results]
    return None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6)


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
            "cost": "unknown" if run.prices.price(spec.model) is None else "priced",
            "baseline_run_dir": str(run.baseline) if run.baseline else None,
            "cache_saved_usd": cache_saved(results, spec.model, run.prices)}
    if spec.mcp:
        meta["mcp_failures"] = failure_lines(results, spec)
    if warnings := reasoning_only_lines(results):
        meta["warnings"] = warnings
    loaded = {t.name: t for _, t in run.work if hasattr(t, "load_report")}
    if loaded:  # tasks reading released files: per-file accounting of every line, printed and in results.json
        meta["load_reports"] = {name: t.load_report for name, t in loaded.items()}
        for t in loaded.values():
            for line in t.load_summary():
                out.print(line, markup=False, highlight=False)
    report = build_report(results, spec.conditions, meta, baseline_results, samples=samples,
                          baseline=run.baseline_condition)
    # the table shows the report's own comparisons (computed once, tool use and fidelity included)
    comparisons = [TaskComparison.model_validate(t) for t in report["tasks"]]
    rows = comparisons + ([TaskComparison.model_validate(report["overall"])] if len(comparisons) > 1 else [])
    sent = " / ".join(dict.fromkeys(t for p in spec.generation.values() if (t := p.tag())))
    print_table(rows, spec.conditions, out,
                title=f"{spec.model}{f' ({sent})' if sent else ''} · split {spec.split} · seed {spec.seed}",
                baseline=run.baseline_condition)
    for line in ended_lines(TaskComparison.model_validate(report["overall"]),
                            [p.max_tokens for p in spec.generation.values()]) + meta.get("warnings", []):
        out.print(line, markup=False, highlight=False)
    if spec.suite:
        from evals.paper_tables import add_paper_tables

        add_paper_tables(report, results, spec, out, compare_paper=compare_paper, baseline=run.baseline_condition)
    if run.baseline is not None:  # the two runs' leaderboard: gaps side by side and their difference
        entries = [read_entry(run.run_dir), read_entry(run.baseline)]  # differences: this run − the baseline
        labels = unique_labels([e.model for e in entries], [e.run_dir for e in entries])
        report["leaderboard"] = build_leaderboard([replace(e, label=lab) for e, lab in zip(entries, labels, strict=True)],
                                                  run.baseline_condition)
        print_leaderboard(report["leaderboard"], out)
        out.print(render_run_differences(report["baseline_run"]))
    write_results_json(run.run_dir / "results.json", report)
    write_report_html(run.run_dir, report)
    note = write_run_outputs(run.run_dir, report)
    if note:
        console.print(note, markup=False, highlight=False)
    try:
        export(store, run.formats)
    except ExportError as exc:
        console.print(f"warning: {exc}")
    for line in meta.get("mcp_failures", []):  # dead or slow MCP servers: their calls were tool errors
        out.print(line, markup=False, highlight=False)
    failed = meta["failed"]
    cost = f" · ${meta['cost_usd']:.4f}" if meta["cost_usd"] else ""
    if meta["cost_usd"] is None and run.prices.price(spec.model) is None:
        cost = f" · cost unknown (no price for {spec.model})"
    if meta["cache_hits"]:
        saved = meta.get("cache_saved_usd")
        cost += (f" · {meta['cache_hits']} cached calls" + ("" if saved is None else f" saved ${saved:.4f}")
                 + " (answered from the model-call cache, not billed)")
    out.print(f"wall {wall:.1f} s · {out_tokens} output tokens{cost} · {len(results)} results"
              + (f" · {failed} failed samples (see results.jsonl)" if failed else "") + f" · run dir {run.run_dir}")
    if failed:
        console.print(f"incomplete: {failed} samples ended in error and are left out of accuracy and the gap; "
                      f"--resume {run.run_dir} retries them (exit code {EXIT_ERRORS})")
    return int(failed)
