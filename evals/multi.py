"""Several models in one command: ``--model a,b,c`` or ``--models FILE``.

Every model runs the same spec (so the same items) into its own run directory under one parent directory
(``--output``, default ``runs/<time>-models-<random>``), one model after another; then the parent gets the
leaderboard (:mod:`evals.leaderboard`) in the terminal, ``results.json``, ``report.html``, ``tables/`` and
``figures/``. Every model's options are checked before the first one starts. Running the same command again
with the same ``--output`` resumes each model's run. The exit code is the largest of the models' codes.
"""

from __future__ import annotations

import json
import secrets
import time
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console

from evals.cost import check_max_cost
from evals.engine import Plan, plan
from evals.leaderboard import Entry, build_leaderboard, print_leaderboard, read_entry, slug, unique_labels
from evals.options import RunConfig, UsageError, fail
from evals.prepare import check_values
from evals.run import RunFailed
from evals.run_reader import is_run_dir
from evals.specs import make_spec

RunOne = Callable[[Plan, Console, Console], int]
MANIFEST = "models.json"


def read_models_file(path: Path) -> list[str]:
    """Model strings from a TOML file (``models = ["a", "b"]``) or a text file (one a line, ``#`` comments)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--models {path}: cannot read it ({exc})") from None
    if Path(path).suffix.lower() == ".toml":
        try:
            models = tomllib.loads(text).get("models")
        except tomllib.TOMLDecodeError as exc:
            raise UsageError(f"--models {path}: not valid TOML ({exc})") from None
        if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
            raise UsageError(f'--models {path}: needs a list of model strings, e.g. models = ["openai/gpt-4o", '
                             '"local/qwen2.5-coder-1.5b"]')
        return [m.strip() for m in models]
    return [s for line in text.splitlines() if (s := line.split("#", 1)[0].strip())]


def model_list(cfg: RunConfig) -> list[str]:
    """The models a command runs: ``--models FILE`` or ``--model`` split at commas; raises UsageError."""
    if cfg.models is not None:
        if "model" in cfg.model_fields_set:
            raise UsageError("--models and --model are exclusive: list every model in the file")
        models = read_models_file(cfg.models)
        where = f"--models {cfg.models}"
    else:
        models = [m.strip() for m in cfg.model.split(",")]
        where = f"--model {cfg.model!r}"
    if not models or any(not m for m in models):
        raise UsageError(f"{where} has an empty model name (each is provider/name, comma-separated)")
    repeated = sorted({m for m in models if models.count(m) > 1})
    if repeated:
        raise UsageError(f"{where} lists {', '.join(repeated)} twice")
    if len(models) > 1:
        if cfg.resume is not None:
            raise UsageError("--resume takes one model's run directory; to continue a run of several models, run "
                             "the same command again with the same --output")
        if cfg.baseline is not None:
            raise UsageError("--baseline compares one run with another; with several models the leaderboard "
                             "compares them")
    return models


def default_parent() -> Path:
    return Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-models-{secrets.token_hex(3)}"


def child_dirs(parent: Path, models: list[str]) -> list[Path]:
    """One directory per model under ``parent``, named after the model (made unique)."""
    out: list[Path] = []
    for m in models:
        name, n = slug(m), 2
        while parent / name in out:
            name, n = f"{slug(m)}-{n}", n + 1
        out.append(parent / name)
    return out


def run_models(cfg: RunConfig, models: list[str], run_one: RunOne, console: Console, out: Console, *,
               on_error: Callable[[str, int], int] = fail) -> int:
    """Check every model's options, then run each (``run_one``) and write the leaderboard; the exit code.
    ``on_error`` takes a refused run's one-line message and exit code (the CLI prints it; :mod:`evals.api`
    raises)."""
    from evals.estimate import print_estimate

    parent = Path(cfg.output) if cfg.output else default_parent()
    dirs = child_dirs(parent, models)
    cfgs = [cfg.model_copy(update={"model": m, "output": str(d), "models": None}) for m, d in zip(models, dirs, strict=True)]
    try:
        if is_run_dir(parent):
            raise UsageError(f"--output {parent} is one model's run directory; give a new or a parent directory")
        if cfg.dry_run:
            for c in cfgs:
                check_values(c)
                make_spec(c)
                check_max_cost(c)
            return print_estimate(cfgs, out)
        plans: list[Plan] = []
        for c in cfgs:
            plans.append(plan(c, like=plans[-1] if plans else None))
    except UsageError as exc:
        return on_error(str(exc), 2)
    except RunFailed as exc:
        return on_error(str(exc), exc.code)
    parent.mkdir(parents=True, exist_ok=True)
    (parent / MANIFEST).write_text(json.dumps({"models": [{"model": m, "run_dir": d.name}
                                                          for m, d in zip(models, dirs, strict=True)]}, indent=2))
    codes = []
    for i, (c, p) in enumerate(zip(cfgs, plans, strict=True), 1):
        console.print(f"model {i} of {len(cfgs)}: {c.model} → {c.output}", markup=False, highlight=False)
        code = run_one(p, console, out)
        codes.append(code)
        if code == 130:
            return code
    entries = [read_entry(d) for d in dirs if is_run_dir(d)]
    if len(entries) > 1:
        write_leaderboard(parent, entries, out)
        out.print(f"leaderboard of {len(entries)} models → {parent}", markup=False, highlight=False)
    else:
        console.print("no leaderboard: fewer than two models have a run to compare", markup=False)
    if any(codes):
        console.print(f"not every model's run is complete (exit codes {', '.join(map(str, codes))}); run the same "
                      f"command again with --output {parent} to continue them", markup=False, highlight=False)
    return max(codes)


def write_leaderboard(parent: Path, entries: list[Entry], out: Console) -> dict[str, Any]:
    """Print the leaderboard of ``entries`` and write the parent's results.json, report.html, tables and
    figures; returns the leaderboard."""
    from evals.figures import write_leaderboard_figures
    from evals.report import write_results_json
    from evals.tables_out import write_leaderboard_tables
    from evals.view.leaderboard import write_leaderboard_html

    labels = unique_labels([e.model for e in entries], [e.run_dir for e in entries])
    entries = [replace(e, label=lab) for e, lab in zip(entries, labels, strict=True)]
    board = build_leaderboard(entries)
    print_leaderboard(board, out)
    write_results_json(parent / "results.json", {"meta": {"kind": "leaderboard", "models": len(entries)},
                                                 "leaderboard": board})
    write_leaderboard_html(parent, board)
    write_leaderboard_tables(parent / "tables", board)
    note = write_leaderboard_figures(parent / "figures", board)
    if note:
        out.print(note, markup=False, highlight=False)
    return board
