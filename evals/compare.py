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
import sqlite3
import sys


def _interrupted_while_loading(signum: int, frame: object) -> None:
    """Ctrl-C while the modules below load (a second or two): one line and exit code 130; nothing is open yet."""
    sys.stderr.write("error: interrupted before the run started; nothing was run\n")
    os._exit(130)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, _interrupted_while_loading)

import argparse
from pathlib import Path

from rich.console import Console

from agents.providers import PROVIDERS
from evals.engine import Plan, execute, plan
from evals.estimate import print_estimate
from evals.executors import EXECUTORS
from evals.listing import print_listing
from evals.mcp import register as register_mcp
from evals.multi import model_list, run_models
from evals.options import OneLineParser, RunConfig, UsageError, add_arguments, fail, resolve
from evals.run import (
    EXIT_ERRORS,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    RunFailed,
    Terminated,
    on_sigterm,
)
from evals.suites import SUITES
from tools.mcp_client import MCPServerError

EXIT_CODES_HELP = ("exit codes: 0 complete; 1 could not run (model or server did not start, or a process building "
                   "samples died); 2 usage error "
                   "(including a run that selects no sample, or a run directory in use); 3 finished with samples "
                   "ended in error (incomplete: --resume retries them); 4 stopped early: the model server died or "
                   "the endpoint is unreachable (--resume continues); 5 stopped at --max-cost (--resume continues); 130 "
                   "interrupted; 143 terminated (SIGTERM); several models: the largest of their codes")


def build_parser() -> argparse.ArgumentParser:
    """The flags of every run option (:mod:`evals.options`), ``--config`` and ``--list``."""
    p = OneLineParser(prog="python -m evals.compare", description=__doc__.split("\n\n")[0],
                                epilog=EXIT_CODES_HELP, argument_default=None)
    add_arguments(p, choices={"executor": EXECUTORS.names()}, providers=", ".join(PROVIDERS.names()),
                  suites=", ".join(SUITES), executors="; ".join(EXECUTORS.get(n).description for n in EXECUTORS.names()))
    p.add_argument("--config", type=Path, help="TOML file of options (keys named like the flags)")
    p.add_argument("--mcp", action="append", default=[], metavar="NAME=COMMAND",
                   help="an MCP server as tool set NAME: a stdio command line, or a streamable-HTTP URL; repeatable "
                   "(also [mcp.NAME] tables in --config; docs/tools.md)")
    p.add_argument("--list", action="store_true", default=False,
                   help="list tasks, tool sets, conditions and models, then exit")
    return p


def main(argv: list[str] | None = None) -> int:
    """The CLI. Ctrl-C before the run starts and a store or disk that cannot be written end with one line."""
    try:
        return _main(argv)
    except (KeyboardInterrupt, sqlite3.Error, OSError, BaseExceptionGroup) as caught:
        exc: BaseException = caught
        while isinstance(exc, BaseExceptionGroup):  # the runner's task groups wrap what their tasks raised
            exc = exc.exceptions[0]
        if isinstance(exc, Terminated):
            return fail("terminated (SIGTERM) before the run started; nothing was run", EXIT_TERMINATED)
        if isinstance(exc, KeyboardInterrupt):
            return fail("interrupted before the run started; nothing was run", 130)
        if isinstance(exc, sqlite3.Error):
            return fail(f"cannot read or write a run store or the model-call cache: {exc}; completed samples are "
                        "stored: fix the cause, then --resume the run directory", EXIT_FAILED)
        if isinstance(exc, OSError):
            where = f" ({exc.filename})" if exc.filename else ""
            return fail(f"{exc.strerror or exc}{where}; completed samples are stored: fix the cause, then "
                        "--resume the run directory", EXIT_FAILED)
        raise


def _main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(stderr=True)
    out = Console() if sys.stdout.isatty() else Console(width=200)  # files and pipes get the full table
    try:
        register_mcp(args.config, args.mcp)
    except UsageError as exc:
        return fail(str(exc), EXIT_USAGE)
    except MCPServerError as exc:
        return fail(str(exc), EXIT_FAILED)
    if args.list:
        print_listing()
        return EXIT_OK
    try:
        cfg = resolve(args)
        models = model_list(cfg)
    except UsageError as exc:
        return fail(str(exc), EXIT_USAGE)
    if len(models) > 1:
        return run_models(cfg, models, run_plan, console, out)
    if cfg.models is not None:  # a models file naming one model
        cfg = RunConfig.model_validate({**cfg.model_dump(exclude_unset=True), "model": models[0], "models": None})
    if cfg.dry_run:
        return print_estimate([cfg], out)
    return run_config(cfg, console, out)


def run_config(cfg: RunConfig, console: Console, out: Console) -> int:
    """One run of ``cfg`` (one model): plan, then run it (:func:`run_plan`); the exit code."""
    try:
        p = plan(cfg)
    except RunFailed as exc:
        return fail(str(exc), exc.code)
    return run_plan(p, console, out)


def run_plan(p: Plan, console: Console, out: Console) -> int:
    """Run a planned run (:func:`evals.engine.execute`): print the table, write the run directory; the exit code."""
    try:
        done = execute(p, console, out)
    except RunFailed as exc:
        return fail(str(exc), exc.code) if str(exc) else exc.code
    return EXIT_ERRORS if done.failed else EXIT_OK


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)  # from here main() reports Ctrl-C
    signal.signal(signal.SIGTERM, on_sigterm)  # and SIGTERM, the same way (exit code 143)
    sys.exit(main())
