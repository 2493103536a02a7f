"""docs/extending.md's four recipes applied inside a fresh clone, as built-ins (the files and registration lines the
page's table names), then the test suite run on that clone with no test edit: the suite is indifferent to what is
registered.

``python -m tests.extending_clone [PYTEST PATH ...]`` clones this repository's committed HEAD into a temporary
directory, adds the example task (``tasks/gpsbench/antipode.py`` and its import line), tool set
(``tools/kinematics.py`` and its ``BUILTIN_MODULES`` entry), condition (``evals/conditions_terse.py`` and its
``BUILTIN_MODULES`` entry) and provider (its class in ``agents/providers.py``), and runs pytest there on the paths
given (default :data:`DEFAULT_PATHS`); the exit code is pytest's. ``--keep`` leaves the clone for a look.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "extending.md"
DEFAULT_PATHS = ("tests",)


def examples() -> list[tuple[str, str]]:
    """Each Python example of the page as (the file its first line names, its code), in page order."""
    return [(code.splitlines()[0].removeprefix("# ").split(":")[0].strip(), code)
            for code in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)]


def _insert_after(path: Path, anchor: str, text: str) -> None:
    source = path.read_text()
    if anchor not in source:
        raise SystemExit(f"{path}: {anchor!r} not found; the recipe no longer applies as written")
    path.write_text(source.replace(anchor, anchor + text, 1))


def apply_recipes(root: Path) -> list[str]:
    """Apply the four recipes to the tree at ``root``; the files written or edited, relative to it."""
    blocks = examples()
    by_file = {name: code for name, code in blocks}
    (root / "tasks/gpsbench/antipode.py").write_text(by_file["tasks/gpsbench/antipode.py"])
    _insert_after(root / "tasks/gpsbench/__init__.py", "from tasks.gpsbench import (  # noqa: F401  "
                  "(each module registers its task)\n", "    antipode,\n")
    (root / "tools/kinematics.py").write_text(by_file["tools/kinematics.py"])
    _insert_after(root / "tools/registry.py", 'BUILTIN_MODULES: tuple[str, ...] = ("tools.geodesy", ',
                  '"tools.kinematics", ')
    condition, provider = (code for name, code in blocks if name == "my_plugin/__init__.py")
    (root / "evals/conditions_terse.py").write_text(condition.replace("# my_plugin/__init__.py",
                                                                      "# evals/conditions_terse.py", 1))
    conditions = root / "evals/conditions.py"
    conditions.write_text(conditions.read_text().replace('BUILTIN_MODULES: tuple[str, ...] = ()',
                                                         'BUILTIN_MODULES: tuple[str, ...] = ("evals.conditions_terse",)'))
    if "evals.conditions_terse" not in conditions.read_text():
        raise SystemExit("evals/conditions.py: BUILTIN_MODULES not found as the recipe says")
    # inside geogap the provider is a class in agents/providers.py itself: its import of that module goes
    body = "\n".join(line for line in provider.splitlines()[1:] if not line.startswith("from agents.providers"))
    providers = root / "agents/providers.py"
    providers.write_text(providers.read_text() + "\n" + body.rstrip() + "\n")
    return ["tasks/gpsbench/antipode.py", "tasks/gpsbench/__init__.py", "tools/kinematics.py", "tools/registry.py",
            "evals/conditions_terse.py", "evals/conditions.py", "agents/providers.py"]


def clone(where: Path) -> Path:
    """A fresh clone of this repository's committed HEAD at ``where``/geogap (local, so quick)."""
    target = where / "geogap"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(target)], check=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=list(DEFAULT_PATHS), help="pytest paths, in the clone")
    parser.add_argument("--keep", action="store_true", help="leave the clone in place and print where")
    args = parser.parse_args(argv)
    where = Path(tempfile.mkdtemp(prefix="geogap-recipes-"))
    try:
        tree = clone(where)
        touched = apply_recipes(tree)
        print(f"recipes applied in {tree}: {', '.join(touched)}", flush=True)
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *args.paths],
                              cwd=tree, env=env)
        return done.returncode
    finally:
        if args.keep:
            print(f"clone kept at {where}")
        else:
            shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
