"""The guard against shadowed packages: this project's top-level packages (``agents``, ``evals``, ``tools``,
``tasks``, ``geocore``) have common names, and installing the ``openai-agents``, ``evals``, ``tools`` or ``tasks``
distributions in the same environment puts another package under one of them. :func:`shadowed` says which name
resolves outside this project and which distribution owns it; ``evals`` checks it on import (``evals/__init__``),
before anything imports the others. It finds modules without importing them (and imports nothing of the project).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

PACKAGES = ("agents", "evals", "tools", "tasks", "geocore")
ROOT = Path(__file__).resolve().parent.parent  # the directory holding this project's packages


def _owners(name: str) -> list[str]:
    """The installed distributions that provide the top-level package ``name``, this project's left out."""
    owners = importlib.metadata.packages_distributions().get(name, [])
    return sorted({o for o in owners if o.lower() != "geogap"})


def shadowed() -> str | None:
    """One line naming each top-level package that resolves outside this project (and the distribution that
    provides it), or None when all five are this project's."""
    problems = []
    for name in PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
        if origin is not None and origin.parent.parent == ROOT:
            continue
        owners = _owners(name)
        where = f"{origin.parent}" if origin is not None else "nowhere"
        by = f" (installed by {', '.join(owners)})" if owners else ""
        fix = f"pip uninstall {' '.join(owners)}" if owners else "remove it from the path"
        problems.append(f"'{name}' resolves to {where}{by}, not to {ROOT / name}")
        if owners:
            problems[-1] += f": {fix}, or use another environment"
    if not problems:
        return None
    return "the package " + "; ".join(problems)
