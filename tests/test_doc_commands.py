"""Every fenced ``bash`` block of README.md and docs/*.md, run as written: each block is a bash script (``set -eu``)
run from a temporary folder, one folder per page so later blocks see what earlier ones wrote, with the repository on
``PYTHONPATH``. ``python``, ``python3``, ``pip``, ``ruff`` and ``inspect`` go through :mod:`tests.doc_shim`, whose
docstring is the skip-list (commands that need a key, a GPU, the network or the long main job run with
``--dry-run``; servers are rendered with ``--export``). Placeholders are filled in: ``runs/<run-dir>`` is a run of
the scripted distance model, STBench's ``datasets`` folders are the released files' first lines in
``tests/tasks/stbench/released``, and a ``toml`` block whose first line is ``# NAME.toml`` is written as NAME.toml."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RELEASED = ROOT / "tests" / "tasks" / "stbench" / "released"
PLACEHOLDERS = {
    ". .venv/bin/activate": "activate",
    "runs/<run-dir>": '"$RUN_DIR"',
    "../shared/data/stbench-sample/basic": str(RELEASED),
    "/path/STBench/datasets": str(RELEASED),
}
ONLY_SKIPPED = {"first-run.md"}  # its one block reinstalls the runtime from PyPI (the network)
SHIM = """set -eu
for p in python python3 pip ruff inspect activate; do eval "$p() { \\"$DOC_PY\\" -m tests.doc_shim $p \\"\\$@\\"; }"; done
"""


def blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", page.read_text(), re.S | re.M)


def filled(block: str) -> str:
    for placeholder, value in PLACEHOLDERS.items():
        block = block.replace(placeholder, value)
    assert "<" not in block.replace("<<", ""), f"an unfilled placeholder in:\n{block}"
    return block


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the scripted distance model (the ``runs/<run-dir>`` of the docs)."""
    out = tmp_path_factory.mktemp("doc-run") / "run"
    done = subprocess.run([sys.executable, "-m", "evals.compare", "--model",
                           "scripted/tests.evals.test_mcp_runs:distance_policy", "--tasks", "gpsbench.distance",
                           "--limit", "2", "--condition", "intrinsic,tools", "--no-cache", "--output", str(out)],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def test_the_pages_have_command_blocks() -> None:
    assert len([b for page in PAGES for b in blocks(page, "bash")]) >= 10  # the test below has something to run


def test_the_set_up_commands_are_what_ci_runs() -> None:
    main_job, tests = blocks(ROOT / "README.md", "bash")[:2]
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci  # .ci/run runs the README's second command verbatim
    assert main_job.endswith("python -m evals.compare --condition intrinsic,tools\n")
    assert main_job.split(" && pip ")[0] == tests.split(" && pip ")[0]


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, "bash")], ids=lambda p: p.name)
def test_every_command_block_runs(page: Path, run_dir: Path, tmp_path: Path) -> None:
    for toml in blocks(page, "toml"):
        name = re.match(r"# (\S+\.toml)\n", toml)
        if name:
            (tmp_path / name.group(1)).write_text(toml)
    log = tmp_path / "doc.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DOC_PY": sys.executable, "DOC_LOG": str(log),
           "RUN_DIR": str(run_dir), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for block in blocks(page, "bash"):
        done = subprocess.run(["bash", "-c", SHIM + filled(block)], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"{page.name}:\n{block}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    ran = [line for line in log.read_text().splitlines() if line.startswith("ran\t")]
    assert ran or page.name in ONLY_SKIPPED, f"{page.name}: every command was skipped"


def test_the_readme_fits_in_ten_thousand_bytes() -> None:
    """The README is a map (issue 35): what geogap is, the two commands, what the job prints, links to docs/."""
    assert len((ROOT / "README.md").read_bytes()) <= 10_000
