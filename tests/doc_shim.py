"""What a documented command becomes when tests/test_doc_commands.py runs it: ``python -m tests.doc_shim PROGRAM
ARGS...`` (the doc blocks' ``python``, ``python3``, ``pip``, ``ruff`` and ``inspect`` are shell functions calling
this). Each command runs as written except where it needs what a test has not got; those rules are the skip-list:

- ``pip install ...``, ``python3 -m venv ...``, ``. .venv/bin/activate``: need the network or make an environment;
  not run (the test checks the set-up commands are ``.ci/run``'s, byte for byte).
- ``python -m pytest ...``: the suite that runs this test; not run.
- ``python -m evals.compare ...`` without ``--list``, ``--dry-run`` or a ``scripted/`` model: needs a key, a GPU or
  the long main job, so it runs with ``--dry-run`` (the options checked, the samples built, nothing called), and
  with ``--limit 1`` when it has no ``--limit`` (a paper-size build takes a minute).
- ``python -m evals.view DIR...`` without ``--export``: serves until stopped, so it runs with ``--export`` into a
  temporary folder (every page rendered from the same run directories).
- ``inspect view ...``: serves until stopped; not run here (tests/evals/test_docs_mcp_inspect.py serves it).

Every command, run or not, is logged to ``$DOC_LOG`` as ``ran|skipped <reason>\\t<command>``."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def log(what: str, argv: list[str]) -> None:
    with open(os.environ["DOC_LOG"], "a") as out:
        out.write(f"{what}\t{shlex.join(argv)}\n")


def skip(reason: str, argv: list[str]) -> int:
    log(f"skipped {reason}", argv)
    return 0


def python(args: list[str]) -> list[str] | str:
    """The command to run for ``python ARGS``, or why it is not run."""
    if args[:2] == ["-m", "pytest"]:
        return "the suite itself"
    if args[:2] == ["-m", "venv"]:
        return "makes an environment"
    if args[:2] == ["-m", "evals.compare"] and not {"--list", "--dry-run"} & set(args) and not any(
            a.startswith("scripted/") for a in args):
        args = [*args, "--dry-run", *([] if "--limit" in args else ["--limit", "1"])]
    if args[:2] == ["-m", "evals.view"] and "--export" not in args:
        args = [*args, "--export", tempfile.mkdtemp(prefix="doc-view-")]
    if args and not args[0].startswith("-") and not Path(args[0]).exists():
        args = [str(ROOT / args[0]), *args[1:]]  # a script path written from the repository's root
    return [sys.executable, *args]


def main(argv: list[str]) -> int:
    program, args = argv[0], argv[1:]
    if program in ("python", "python3"):
        command = python(args)
    elif program == "pip":
        command = "needs the network"
    elif program == "activate":
        command = "makes an environment"
    elif program == "inspect":
        command = "serves until stopped (tests/evals/test_docs_mcp_inspect.py serves it)"
    elif program == "ruff":
        command = [sys.executable, "-m", "ruff", *args]
    else:
        print(f"doc_shim: no rule for {program}", file=sys.stderr)
        return 127
    if isinstance(command, str):
        return skip(command, argv)
    log("ran", argv)
    cwd = ROOT if program == "ruff" else None  # `ruff check .` means the repository
    return subprocess.run(command, cwd=cwd, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
