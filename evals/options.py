"""The run configuration: every option of ``python -m evals.compare`` declared once.

Each field carries its type, default, help text and role: ``identity`` (decides what a run computes: given with
``--resume`` it must match the stored run), ``operational`` (stored in the run spec, may change on resume) or
``invocation`` (this call only: where to write, how to report, which executor). From these declarations come
the argparse flags (:func:`add_arguments`), the TOML ``--config`` loader (:func:`load_config`), the spec's
identity/operational split (:data:`OPERATIONAL_FIELDS`) and the stored :class:`evals.records.RunSpec`, which
shares :class:`RunSettings`.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
import types
from pathlib import Path
from typing import Any, Literal, NoReturn, Union, get_args, get_origin
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import EFFORT_SCALE
from agents.final_answer import ANSWER_CHANNELS, AnswerChannel
from agents.http_pool import DEFAULT_MAX_REPLY_BYTES
from agents.model_call import RetryPolicy
from agents.models import DEFAULT_MODEL, GenerationSettings
from agents.protocol import DEFAULT_ANSWER_TOKENS, OPENAI_APIS, REASONING_ALLOWANCE
from agents.secrets import redact
from agents.tool_agent import AgentLimits

Role = Literal["identity", "operational", "invocation"]
_GENERATION = GenerationSettings()  # the library defaults are the options' defaults
_LIMITS = AgentLimits()
_RETRIES = RetryPolicy()


class UsageError(Exception):
    """A bad flag or config value: reported on one line, exit code 2."""


def fail(message: str, code: int) -> int:
    """Print a one-line error (secrets masked) to stderr and return the exit code ``code``."""
    print(f"error: {redact(message)}", file=sys.stderr)
    return code


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one ``error:`` line (exit code 2), like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def option(default: Any, help: str, *, role: Role, flags: tuple[str, ...] = (), config: bool = True,
           **argparse_extra: Any) -> Any:
    """A field declaring one option: ``flags`` default to ``--field-name``; ``config`` False keeps it off TOML;
    ``argparse_extra`` (choices, metavar) goes to ``add_argument``. ``(default X)`` is added to the help when
    the default is not None."""
    return Field(default, description=help,
                 json_schema_extra={"role": role, "flags": list(flags), "config": config, "argparse": argparse_extra})


class RunSettings(BaseModel):
    """Options a run spec stores exactly as given (field names are the stored ones)."""

    model: str = option(DEFAULT_MODEL, "provider/name; providers: {providers}; a comma-separated list runs each "
                        "model on the same items, then a leaderboard", role="identity")
    base_url: str | None = option(None, "OpenAI-compatible endpoint for openai-compatible/ (required) and vllm/ "
                                  "(attach instead of starting vllm serve)", role="operational")
    suite: str | None = option(None, "a paper's protocol, with its paper-shaped table: {suites} (see --list)",
                               role="identity")
    dataset: str | None = option(None, "released data files for tasks that load them (stbench.official: a .jsonl "
                                 "file, or STBench's datasets/ or datasets/basic/ folder)", role="identity")
    dataset_kind: str | None = option(None, "kinds to keep from --dataset, comma-separated names or abbreviations "
                                      "(stbench.official: e.g. direction_determination,navigation or DD,NAV; "
                                      "default all)", role="identity")
    limit: int | None = option(None, "samples per task", role="identity")
    split: str = option("test", "the split answered", role="identity", choices=["train", "dev", "test"])
    seed: int = option(42, "dataset seed; epoch e sends seed+e to the model", role="identity")
    epochs: int = option(1, "answers per sample and condition", role="identity")
    temperature: float | None = option(None, "sampling temperature (default 0, or a paper suite's; OpenAI reasoning "
                                       "models and Claude thinking take only 1)", role="identity")
    max_tokens: int | None = option(None, f"output tokens for the answer per model call (default "
                                    f"{DEFAULT_ANSWER_TOKENS}, or a paper suite's; reasoning models get "
                                    f"{REASONING_ALLOWANCE:,} more for reasoning, or the thinking budget)",
                                    role="identity")
    reasoning_effort: str | None = option(None, "one reasoning scale for every model, resolved per model from "
                                          "geogap's model table (--list): OpenAI reasoning effort (max = xhigh), "
                                          "Claude adaptive thinking effort or budget_tokens, Gemini thinking_level "
                                          "or thinking_budget, Qwen3 enable_thinking (none = off, high = on); a "
                                          "level the model cannot take is refused before any call",
                                          role="identity", choices=list(EFFORT_SCALE))
    openai_api: str | None = option(None, "OpenAI API: responses (default for reasoning models: gpt-5 family, "
                                    "o-series; stateless, encrypted reasoning replayed) or chat (completions; "
                                    "the default for the rest)", role="identity", choices=list(OPENAI_APIS))
    thinking_budget: int | None = option(None, "thinking tokens: Gemini 2.5's thinking_budget, Claude's extended "
                                         "thinking budget_tokens (>= 1024; not with tools-required)",
                                         role="identity", metavar="TOKENS")
    judge: str | None = option(None, "provider/name of a model that locates the committed answer of replies the "
                               "rules leave unlocated (never where they committed); its agreement with the labelled "
                               "sets is printed with the run (docs/scoring.md \"The judge\"); default: no judge",
                               role="identity", metavar="provider/name")
    answer_channel: AnswerChannel = option("text", "how the final answer is given: text (the prompt's FINAL ANSWER "
                                           "line, as the papers do) or structured (a typed final_answer tool call "
                                           "in every condition; docs/scoring.md)", role="identity",
                                           choices=list(ANSWER_CHANNELS))
    max_steps: int = option(_LIMITS.max_steps, "model calls per sample in the tools condition", role="identity")
    max_tool_calls: int = option(_LIMITS.max_tool_calls, "tool calls per sample", role="identity")
    max_sample_tokens: int | None = option(None, "input+output tokens per sample (default: no cap)",
                                           role="identity")
    sample_timeout_s: float = option(600.0, "wall-clock seconds per sample", role="identity",
                                     flags=("--sample-timeout",))
    max_reply_bytes: int = option(DEFAULT_MAX_REPLY_BYTES, "cap of one model reply body in bytes; a longer reply "
                                  "fails its call, recorded in the trace", role="operational")
    api_key_env: str | None = option(None, "environment variable holding the key sent to --base-url "
                                     "(OPENAI_API_KEY, ANTHROPIC_API_KEY and GOOGLE_API_KEY go only to their own APIs unless named here)",
                                     role="operational", metavar="NAME")
    call_timeout_s: float = option(_GENERATION.timeout_s, "seconds per model-call attempt; a timeout is retried",
                                   role="operational", flags=("--call-timeout",))
    max_attempts: int = option(_RETRIES.max_attempts, "attempts per model call on 429/5xx/timeouts", role="operational")
    retry_base_delay_s: float = option(_RETRIES.base_delay_s, "base backoff in seconds: retry n waits up to base·2^(n-1), or what "
                                       "Retry-After asks", role="operational", flags=("--retry-delay",))
    service_tier: str | None = option(None, "openai/, google/: 'flex' sends service_tier flex (half price, slower, 429 "
                                      "when busy: retried with backoff; call timeout 900 s unless --call-timeout is "
                                      "given; docs/cost.md)", role="operational", metavar="TIER")
    batch: bool | None = option(None, "answer single-call conditions (intrinsic, note-only) through the provider's batch "
                                "API at batch prices (openai/ chat completions, anthropic/, google/; docs/cost.md); --resume collects "
                                "finished batches", role="operational")


class RunConfig(RunSettings):
    """Every option of a run, resolved from defaults < ``--config`` < the command line."""

    model_config = ConfigDict(extra="forbid")

    conditions: str = option("intrinsic,tools", "comma-separated conditions, e.g. intrinsic,tools,tools[geodesy]",
                             role="identity", flags=("--condition", "--conditions"))
    tasks: str | None = option(None, "comma-separated task names or globs (default: the quick suite)",
                               role="identity")
    size: str | None = option(None, "items generated per task before the 60/10/30 split: a number, or 'paper' for "
                              "the paper's size (default: each task's own, small)", role="identity")
    tool_call_parser: str | None = option(None, "vllm/: vLLM --tool-call-parser (default from the model family: "
                                          "hermes for Qwen2.5/3, llama3_json for Llama 3.x, mistral for Mistral)",
                                          role="invocation")
    vllm_args: list[str] | None = option(None, "vllm/: more `vllm serve` arguments, repeatable, each split like a "
                                         "shell line: --vllm-arg '--max-model-len 32768' --vllm-arg="
                                         "--enforce-eager (TOML: vllm-args = [\"--max-model-len\", \"32768\"])",
                                         role="invocation", flags=("--vllm-arg",), metavar="ARGS")
    max_connections: int | None = option(None, "concurrent samples (default: the provider's: local/ one per slot, "
                                         "8 remote)", role="operational")
    local_slots: int | None = option(None, "local/: parallel slots of the embedded server (default: --max-connections,"
                                     " else 2 per core from 2 to 8)", role="invocation")
    local_threads: int | None = option(None, "local/: llama.cpp threads of the embedded server (default: every core "
                                       "when under half a core is busy at start, else half)",
                                       role="invocation")
    cache: bool | None = option(None, "use the model-call cache even at temperature > 0", role="operational")
    compare_paper: bool | None = option(None, "with --suite: add the figures the paper published for its models as "
                                        "rows of the table", role="invocation")
    output: str | None = option(None, "run directory (default runs/<time>-<model>)", role="invocation")
    resume: Path | None = option(None, "resume the run in this directory (its stored spec is used)",
                                 role="invocation", config=False)
    prices: Path | None = option(None, "TOML price table overriding the built-in one (USD per 1M tokens)",
                                 role="invocation")
    baseline: Path | None = option(None, "another run directory to compare with, sample by sample",
                                   role="invocation")
    baseline_condition: str | None = option(None, "the condition every paired gap, interval and McNemar test is "
                                            "against in every output, e.g. tools to compare tools[mine] with it "
                                            "(default intrinsic)", role="invocation", metavar="NAME")
    export: str = option("jsonl,csv", "result files to write: jsonl,csv,parquet,inspect", role="invocation")
    executor: str = option("local", "where samples are answered: {executors}", role="invocation")
    ray_address: str | None = option(None, "Ray cluster to join (auto, ray://host:10001); default: start a local "
                                     "one", role="invocation")
    ray_workers: int | None = option(None, "Ray workers (default: one per CPU of the cluster)", role="invocation")
    models: Path | None = option(None, "file listing several models (TOML: models = [...]; or text: one per line, "
                                 "# comments): each runs the same items into its own directory under --output, "
                                 "then a leaderboard (--model a,b,c does the same)", role="invocation",
                                 metavar="FILE")
    dry_run: bool | None = option(None, "print samples × conditions × estimated tokens × price, then exit 0 "
                                  "without calling a model or writing anything", role="invocation")
    pilot: Path | None = option(None, "with --dry-run: a finished run of the same tasks and conditions (a small "
                                "--limit) whose real tokens and latency per answer give the typical figures beside "
                                "the ceiling", role="invocation", metavar="RUN_DIR")
    max_cost: float | None = option(None, "stop the run when its spend (USD, stored results included) reaches this "
                                    "cap, exit code 5 (--resume continues); needs a known price", role="invocation",
                                    metavar="USD")


def _meta(name: str) -> dict[str, Any]:
    extra = RunConfig.model_fields[name].json_schema_extra
    assert isinstance(extra, dict)
    return extra


def role_of(name: str) -> Role:
    return _meta(name)["role"]  # type: ignore[no-any-return]


def names_with(role: Role) -> list[str]:
    """The options of one role, in declaration order."""
    return [n for n in RunConfig.model_fields if role_of(n) == role]


# Spec fields that do not change what a run computes: they may differ between a run and its resumption.
OPERATIONAL_FIELDS = frozenset({*names_with("operational"), "versions", "git_revision"})


def flags_of(name: str) -> list[str]:
    return _meta(name)["flags"] or ["--" + name.replace("_", "-")]


def kind_of(name: str) -> type:
    """The option's value type without None (``int | None`` → int)."""
    annotation = RunConfig.model_fields[name].annotation
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    if get_origin(annotation) is list:
        return list
    if get_origin(annotation) is Literal:
        return str
    assert isinstance(annotation, type)
    return annotation


def add_arguments(parser: argparse.ArgumentParser, choices: dict[str, list[str]], **placeholders: str) -> None:
    """One flag per option (``--cache`` with its ``--no-cache`` twin), help from the declarations with
    ``placeholders`` filled in, ``choices`` of options named from registries; every default is None so that
    :func:`resolve` can tell what was given."""
    for name, field in RunConfig.model_fields.items():
        meta = _meta(name)
        text = (field.description or "").format(**placeholders)
        if field.default is not None and kind_of(name) is not bool:
            text += f" (default {field.default})"
        kind = kind_of(name)
        if name == "cache":
            group = parser.add_mutually_exclusive_group()
            group.add_argument("--no-cache", dest=name, action="store_false", default=None,
                               help="do not use the model-call cache (default: used when temperature is 0)")
            group.add_argument(*flags_of(name), dest=name, action="store_true", default=None,
                               help="use the model-call cache even at temperature > 0")
        elif kind is bool:
            parser.add_argument(*flags_of(name), dest=name, action="store_true", default=None, help=text)
        elif kind is list:
            parser.add_argument(*flags_of(name), dest=name, action="append", default=None, help=text,
                                **meta["argparse"])
        else:
            extra = {**meta["argparse"], **({"choices": choices[name]} if name in choices else {})}
            if "choices" not in extra:  # the flag's name, not the field's (--sample-timeout SAMPLE_TIMEOUT)
                extra.setdefault("metavar", flags_of(name)[0].lstrip("-").replace("-", "_").upper())
            parser.add_argument(*flags_of(name), dest=name, type=kind, help=text, **extra)


def _config_names() -> dict[str, str]:
    """Config key (underscored) → option; every flag of an option is a key, ``no_cache`` is ``cache`` negated."""
    out = {}
    for name in RunConfig.model_fields:
        if _meta(name)["config"]:
            out[name] = name
            out.update({f.lstrip("-").replace("-", "_"): name for f in flags_of(name)})
    return out


LIST_KEYS = frozenset({"conditions", "tasks", "export", "dataset_kind"})  # a TOML list is joined with commas
TYPE_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string", Path: "a path (string)"}


def _config_value(raw_key: str, key: str, value: Any, path: Path) -> Any:
    """``value`` of the TOML key ``raw_key`` as option ``key`` takes it, never coerced: an integer option refuses
    2.7, a switch refuses 0; a list of strings is joined for the comma-separated options, ``size`` takes an
    integer as its digits. Raises UsageError."""
    kind = kind_of(key)
    if kind is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"option {raw_key!r} in {path} must be a list of strings, got {value!r}")
        return value
    if key in LIST_KEYS and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    if key == "size" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    ok = (isinstance(value, bool) if kind is bool
          else isinstance(value, int) and not isinstance(value, bool) if kind is int
          else isinstance(value, int | float) and not isinstance(value, bool) if kind is float
          else isinstance(value, str))
    if not ok:
        raise UsageError(f"option {raw_key!r} in {path} must be {TYPE_WORDS.get(kind, kind.__name__)}, got "
                         f"{value!r}")
    choices = _meta(key)["argparse"].get("choices")
    if choices and value not in choices:
        raise UsageError(f"option {raw_key!r} in {path} must be one of {', '.join(choices)}, got {value!r}")
    return Path(value) if kind is Path else float(value) if kind is float else value


def load_config(path: Path) -> dict[str, Any]:
    """Options from a TOML file; unknown keys and wrong types (nothing is coerced) are usage errors."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read config {path}: {exc}") from None
    names = _config_names()
    out: dict[str, Any] = {}
    for raw_key, value in data.items():
        key = raw_key.replace("-", "_")
        if key == "mcp":  # [mcp.NAME] tables: MCP servers as tool sets (evals.mcp)
            continue
        negated = key == "no_cache"
        if negated:
            key = "cache"
        if key not in names:
            valid = ", ".join(flags_of(n)[0].lstrip("-") for n in RunConfig.model_fields if _meta(n)["config"])
            raise UsageError(f"unknown option {raw_key!r} in {path}; valid options: {valid}")
        name = names[key]
        if name in out:
            raise UsageError(f"option {raw_key!r} in {path} sets {flags_of(name)[0]} a second time")
        checked = _config_value(raw_key, name, value, path)
        out[name] = not checked if negated else checked
    return out


# Bounds of numeric options, (least, most) with None for no bound; checked for every run, resumed or not.
BOUNDS: dict[str, tuple[float | None, float | None]] = {
    "limit": (1, 10_000_000), "epochs": (1, 1000), "seed": (-(2**53), 2**53), "temperature": (0, 2),
    "max_tokens": (1, 1_000_000), "max_steps": (1, 1000), "max_tool_calls": (0, 10_000),
    "max_sample_tokens": (1, 10**9), "max_reply_bytes": (1024, 2**30), "max_attempts": (1, 100),
    "max_connections": (1, 1024), "ray_workers": (1, 100_000), "retry_base_delay_s": (0, 3600),
    "local_slots": (1, 64), "local_threads": (1, 1024), "thinking_budget": (0, 1_000_000),
}
POSITIVE_MAX = {"sample_timeout_s": 7 * 86400, "call_timeout_s": 86400}  # > 0 and at most this many seconds


def check_base_url(url: str) -> None:
    """An http(s) URL with a host and neither query nor fragment (the client appends ``/chat/completions`` to
    the path: a query would swallow it); raises UsageError."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise UsageError(f"--base-url {redact(url)!r} is not a valid URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--base-url {redact(url)!r} must be an http:// or https:// URL with a host, e.g. "
                         "http://127.0.0.1:8000/v1")
    if parts.query or parts.fragment or url.rstrip().endswith(("?", "#")):
        raise UsageError(f"--base-url {redact(url)!r} must not carry a query string or fragment (the client "
                         "appends /chat/completions to its path); give a key with --api-key-env NAME")


def check_bounds(cfg: RunConfig) -> None:
    """Every numeric option within its bounds (:data:`BOUNDS`, :data:`POSITIVE_MAX`); raises UsageError."""
    for name, (least, most) in BOUNDS.items():
        value = getattr(cfg, name)
        if value is None:
            continue
        if least is not None and value < least:
            raise UsageError(f"{flags_of(name)[0]} must be >= {least}, got {value}")
        if most is not None and value > most:
            raise UsageError(f"{flags_of(name)[0]} must be <= {most:,}, got {value}")
    for name, most in POSITIVE_MAX.items():
        value = getattr(cfg, name)
        if not 0 < value <= most:
            raise UsageError(f"{flags_of(name)[0]} must be > 0 and <= {most:,} seconds, got {value}")


def resolve(args: argparse.Namespace) -> RunConfig:
    """Defaults < ``--config`` < command line; the result's ``model_fields_set`` is what was given."""
    given = {k: v for k, v in vars(args).items() if k in RunConfig.model_fields and v is not None}
    config = load_config(args.config) if getattr(args, "config", None) else {}
    return RunConfig.model_validate({**config, **given})
