"""Task registry: ``@register_task`` classes, built-in families imported lazily, plug-ins by entry point.

A family module registers its tasks when imported. Built-in families are listed in ``BUILTIN_FAMILIES`` and
imported only when a name is resolved or listed; third-party families register through the ``geogap.tasks``
entry-point group (the entry point's value is a module to import, or a task class).
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TypeVar

from tasks.base import Task

BUILTIN_FAMILIES: tuple[str, ...] = ("tasks.gpsbench", "tasks.geotemp", "tasks.stbench", "tasks.gtr")
ENTRY_POINT_GROUP = "geogap.tasks"

_FACTORIES: dict[str, Callable[..., Task]] = {}
_loaded = False

T = TypeVar("T")


class UnknownTaskError(KeyError):
    """Raised when a task name or pattern matches nothing; the message lists the valid names."""

    def __str__(self) -> str:
        return str(self.args[0])


def register_task(name: str) -> Callable[[T], T]:
    """Class decorator: register a task factory under ``name`` (``family.task``)."""

    def deco(factory: T) -> T:
        _FACTORIES[name] = factory  # type: ignore[assignment]
        return factory

    return deco


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for module in BUILTIN_FAMILIES:
        importlib.import_module(module)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        obj = ep.load()
        if isinstance(obj, type) and getattr(obj, "name", None):
            _FACTORIES.setdefault(obj.name, obj)
    _loaded = True


def task_names() -> list[str]:
    """All registered task names, sorted."""
    _load_all()
    return sorted(_FACTORIES)


def resolve_tasks(patterns: list[str]) -> list[str]:
    """Expand names and globs (``gpsbench.*``) into task names, keeping order; unknown ones raise."""
    names = task_names()
    out: list[str] = []
    for pattern in patterns:
        matched = [n for n in names if fnmatch.fnmatchcase(n, pattern)] if any(c in pattern for c in "*?[") else (
            [pattern] if pattern in names else []
        )
        if not matched:
            raise UnknownTaskError(f"unknown task {pattern!r}; valid tasks: {', '.join(names)}")
        out.extend(m for m in matched if m not in out)
    return out


def get_task(name: str, **kwargs: object) -> Task:
    """Instantiate the task registered under ``name``."""
    _load_all()
    if name not in _FACTORIES:
        raise UnknownTaskError(f"unknown task {name!r}; valid tasks: {', '.join(sorted(_FACTORIES))}")
    return _FACTORIES[name](**kwargs)
