"""Prepare a run: check the options, open (or resume) its run directory and store, generate the work items.

Everything that can be checked is checked here, before a model is started: a bad value is a ``UsageError``.
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.model_spec import UnknownProviderError, parse_model
from agents.providers import PROVIDERS
from agents.secrets import add_secret_url
from evals.analysis import BASELINE_CONDITION
from evals.conditions import forced_call_error, get_condition
from evals.export import ExportError, parse_formats
from evals.options import RunConfig, UsageError, check_base_url, check_bounds
from evals.pricing import PriceError, PriceTable
from evals.records import RunSpec, SampleResult
from evals.specs import make_spec, resumed_spec
from evals.store import RunDirInUse, RunStore
from tasks.build import SampleBuildError, build_samples
from tasks.records import Sample
from tasks.registry import UnknownTaskError, get_task

FLOAT_OPTIONS = {"temperature": "--temperature", "sample_timeout_s": "--sample-timeout",
                 "call_timeout_s": "--call-timeout", "retry_base_delay_s": "--retry-delay"}


@dataclass
class Prepared:
    """A validated run: spec, directory, store, work items and report options."""

    spec: RunSpec
    run_id: str
    run_dir: Path
    store: RunStore
    work: list[tuple[Sample, Any]]
    prices: PriceTable
    formats: list[str]
    baseline: Path | None
    resumed: bool
    baseline_condition: str = BASELINE_CONDITION


def baseline_condition(name: str | None, conditions: Sequence[str]) -> str:
    """The condition every gap is against: ``name`` (one of ``conditions``: else a UsageError), by default
    ``intrinsic``."""
    if name is None:
        return BASELINE_CONDITION
    if name not in conditions:
        raise UsageError(f"--baseline-condition {name}: not one of the run's conditions ({', '.join(conditions)})")
    return name


def check_values(cfg: RunConfig) -> None:
    """Checks every run needs, resumed or not: finite numbers, a named output, tasks, a key variable that is set."""
    for key, flag in FLOAT_OPTIONS.items():
        if getattr(cfg, key) is not None and not math.isfinite(getattr(cfg, key)):
            raise UsageError(f"{flag} must be a finite number, got {getattr(cfg, key)}")
    if cfg.output is not None and not str(cfg.output).strip():
        raise UsageError("--output must name a directory")
    if cfg.tasks is not None and not [t for t in str(cfg.tasks).split(",") if t.strip()]:
        raise UsageError(f"--tasks names no task ({cfg.tasks!r}); e.g. --tasks 'gpsbench.*'")
    check_bounds(cfg)
    if cfg.base_url is not None:
        check_base_url(cfg.base_url)
        add_secret_url(cfg.base_url)  # a user:pass@ in it is masked everywhere, as is the Basic header it makes
    if cfg.resume is not None and cfg.output is not None and Path(cfg.output).resolve() != Path(cfg.resume).resolve():
        raise UsageError("--output cannot be combined with --resume: a resumed run writes into its own directory "
                         f"({cfg.resume})")
    if cfg.api_key_env and not os.environ.get(cfg.api_key_env):
        raise UsageError(f"--api-key-env {cfg.api_key_env}: that environment variable is not set")
    for flag, value in (("--output", cfg.output), ("--resume", cfg.resume)):
        if value is not None:
            _check_run_dir(flag, Path(value))


def _check_run_dir(flag: str, run_dir: Path) -> None:
    """A run directory that can be created and written, whose existing store (if any) can be read."""
    from evals.store import STORE_VERSION, store_version

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
            if store_version(db) > STORE_VERSION:  # older formats are migrated when the run opens the store
                raise ValueError(f"store format {store_version(db)}, newer than this geogap's {STORE_VERSION}")
            row = db.execute("SELECT spec FROM run LIMIT 1").fetchone()
            if row is not None:
                RunSpec.model_validate_json(row[0])
            rows = db.execute("SELECT record FROM results LIMIT 16").fetchall()
            errors = []
            for (record,) in rows:  # one corrupt row is answered again (RunStore.drop_unreadable): none readable is
                try:  # another version's store
                    SampleResult.model_validate_json(record)
                    break
                except ValueError as exc:
                    errors.append(exc)
            if rows and len(errors) == len(rows):
                raise errors[0]
        finally:
            db.close()
    except (sqlite3.Error, ValueError) as exc:
        reason = str(exc).splitlines()[0][:200]
        raise UsageError(f"{flag} {run_dir}: its run store cannot be read ({reason}): corrupt, or written by an "
                         "incompatible version of geogap; use another directory") from None


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


def open_exclusive(run_dir: Path) -> RunStore:
    """The run store of ``run_dir``, locked for this run; a directory another run is writing is a usage error."""
    try:
        return RunStore(run_dir, exclusive=True)
    except RunDirInUse as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:  # e.g. under /proc or on a read-only file system: nothing was run
        raise UsageError(f"{run_dir}: cannot create or write the run directory ({exc.strerror or exc})") from None


def _open_resumed(run_dir: Path, cfg: RunConfig) -> tuple[RunStore, str, RunSpec]:
    if not (run_dir / "run.sqlite").exists():
        raise UsageError(f"--resume {run_dir}: no run store there (run.sqlite)")
    store = open_exclusive(run_dir)
    stored = store.read_spec()
    try:
        if stored is None:
            raise UsageError(f"--resume {run_dir}: the store holds no run spec")
        return store, stored[0], resumed_spec(stored[1], cfg)
    except UsageError:
        store.close()
        raise


def check_measurable(spec: RunSpec) -> None:
    """A run that can be measured: a key its provider can send, conditions its limits allow (``tools-required``
    needs two steps where the provider forces the call); raises UsageError, before any directory is written."""
    try:
        provider = PROVIDERS.get(parse_model(spec.model).provider)
    except UnknownProviderError as exc:  # e.g. resuming a run of evals.api's python/ chat model objects
        hint = " (a chat model object of evals.api: resume with api.run(model=<it>, resume=DIR))" if (
            spec.model.startswith("python/")) else ""
        raise UsageError(f"{exc}{hint}") from None
    if missing := provider.missing_key(spec.base_url, spec.api_key_env):
        raise UsageError(missing)
    conditions = [get_condition(c) for c in spec.conditions]
    if error := forced_call_error(conditions, provider.forced_tool_choice, spec.max_steps):
        raise UsageError(error)


OUR_FILES = ("results.json", "report.html", "results.jsonl", "results.csv", "results.parquet", "server.log")


def _check_not_foreign(run_dir: Path) -> None:
    """A directory holding files of our names but no run store is someone's own: never written over."""
    if run_dir.is_dir() and not (run_dir / "run.sqlite").exists():
        theirs = [name for name in OUR_FILES if (run_dir / name).exists()]
        if theirs:
            raise UsageError(f"--output {run_dir} holds {', '.join(theirs)} but no run store (run.sqlite): not a "
                             "geogap run directory, and a run would overwrite them; choose another --output")


def _open_new(cfg: RunConfig, checked: RunSpec | None) -> tuple[RunStore, str, RunSpec, Path, bool]:
    spec = checked or make_spec(cfg)
    if checked is None:
        check_measurable(spec)
    run_dir = Path(cfg.output or default_run_dir(spec.model))
    _check_not_foreign(run_dir)
    store = open_exclusive(run_dir)
    previous = store.read_spec()
    if previous is not None:
        stored = previous[1]  # a run from before task versions is the same run when all else is
        diff = spec.differences(stored.model_copy(update={"dataset_hash": None,
                                                          "task_versions": stored.task_versions or spec.task_versions}))
        if diff:
            store.close()
            raise UsageError(f"{run_dir} holds a different run (differs in {', '.join(diff)}); use "
                             f"--resume {run_dir} to continue it or another --output")
    run_id = previous[0] if previous else hashlib.sha256(f"{time.time()}{run_dir}".encode()).hexdigest()[:12]
    return store, run_id, spec, run_dir, previous is not None


def build_work(spec: RunSpec) -> list[tuple[Sample, Any]]:
    """The (sample, task) items of ``spec``; raises UsageError (unknown task, bad value, no sample) or
    SampleBuildError."""
    try:
        tasks = {n: make_task(n, spec.size, spec.dataset, spec.dataset_kind) for n in spec.tasks}
        limits = spec.task_limits or {n: spec.limit for n in spec.tasks}
        built = build_samples(tasks, split=spec.split, seed=spec.seed, limits=limits)  # type: ignore[arg-type]
        work = [(s, tasks[n]) for n in spec.tasks for s in built[n]]
    except (UnknownTaskError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if not work:
        raise UsageError(f"the selection has no samples (tasks {', '.join(spec.tasks)}, split {spec.split}); "
                         "choose other --tasks, --split or a larger --size")
    return work


FLEX_CALL_TIMEOUT_S = 900.0  # OpenAI's flex guide raises the client timeout to 15 minutes (Gemini: 1-15 min target)
FLEX_PROVIDERS = ("openai", "google")


def check_service_tier(tier: str | None, model: str) -> None:
    """``--service-tier``: only ``flex``, only for openai/ and google/ models; raises UsageError."""
    if tier is not None and (tier != "flex" or parse_model(model).provider not in FLEX_PROVIDERS):
        raise UsageError(f"--service-tier {tier}: only 'flex' for openai/ and google/ models is supported")


def service_tier(spec: RunSpec) -> RunSpec:
    """``--service-tier``: only ``flex``, only for openai/ and google/ models; the call timeout rises to
    :data:`FLEX_CALL_TIMEOUT_S` unless set higher (the synchronous calls are priced at flex prices:
    :func:`evals.run.answer`)."""
    if spec.service_tier is None:
        return spec
    check_service_tier(spec.service_tier, spec.model)
    if spec.call_timeout_s < FLEX_CALL_TIMEOUT_S:
        spec = spec.model_copy(update={"call_timeout_s": FLEX_CALL_TIMEOUT_S})
    return spec


def check_run_options(cfg: RunConfig) -> tuple[PriceTable, list[str]]:
    """The checks of :func:`check_values`, the price table, the export formats and the baseline run; raises
    UsageError and writes nothing."""
    check_values(cfg)
    if cfg.resume is None:
        check_service_tier(cfg.service_tier, cfg.model)
    try:
        prices = PriceTable.load(cfg.prices)
        formats = parse_formats(cfg.export)
    except (PriceError, ExportError) as exc:
        raise UsageError(str(exc)) from None
    if cfg.baseline is not None and not (Path(cfg.baseline) / "run.sqlite").exists():
        raise UsageError(f"--baseline {cfg.baseline}: no run store there (run.sqlite)")
    return prices, formats


@dataclass(frozen=True)
class Checked:
    """What :func:`evals.engine.plan` checked and built for a run: its spec, samples, price table and export
    formats, so opening the run does not build or check them again."""

    spec: RunSpec
    work: list[tuple[Sample, Any]]
    prices: PriceTable
    formats: list[str]


def prepare(cfg: RunConfig, checked: Checked | None = None) -> Prepared:
    """Open (or resume) the run directory of ``cfg`` and store its spec and samples: those ``checked`` holds
    (:func:`evals.engine.plan`'s), else built and checked here; raises UsageError. A resumed run's spec is the
    one its store holds once locked, checked again only if it is not the one planned."""
    prices, formats = (checked.prices, checked.formats) if checked else check_run_options(cfg)
    if cfg.resume is not None:
        run_dir = Path(cfg.resume)
        store, run_id, spec = _open_resumed(run_dir, cfg)
        resumed = True
        try:
            if checked is None or spec != checked.spec:
                check_measurable(spec)
        except UsageError:
            store.close()
            raise
    else:
        store, run_id, spec, run_dir, resumed = _open_new(cfg, checked.spec if checked else None)
    try:
        work = build_work(spec) if checked is None else checked.work
        baseline = baseline_condition(cfg.baseline_condition, spec.conditions)
    except (UsageError, SampleBuildError):
        store.close()
        raise
    digest = dataset_hash([s for s, _ in work])
    if resumed:
        stored_spec = store.read_spec()
        if stored_spec and stored_spec[1].dataset_hash not in (None, digest):
            store.close()
            raise UsageError(f"the tasks now generate different samples than the run in {run_dir} "
                             f"(dataset hash {digest} ≠ {stored_spec[1].dataset_hash}); start a new --output")
    spec = spec.model_copy(update={"dataset_hash": digest})
    try:
        spec = service_tier(spec)
    except UsageError:
        store.close()
        raise
    if dropped := store.drop_unreadable():
        print(f"warning: {dropped} stored results of {run_dir} could not be read (corrupt) and are answered again",
              file=sys.stderr)
    store.write_spec(run_id, spec)
    store.add_samples([s for s, _ in work])
    return Prepared(spec, run_id, run_dir, store, work, prices, formats,
                    Path(cfg.baseline) if cfg.baseline else None, resumed, baseline)
