"""Task registry: ``@register_task(name)`` classes and their declared variants, on
:class:`geocore.registry.Registry`.

A family module registers its tasks when imported; built-in families (``BUILTIN_FAMILIES``) are imported on the
first lookup, plug-in families when their module is loaded from the ``geogap`` entry-point group. The decorator
writes the task's name onto the class, so a task states its name once.

A variant is the one way to offer another form of a task's items (another prompt style, a coarser scoring
level, knowledge injected into the prompt): :class:`Variant` names a suffix and the class attributes it sets
otherwise, and is declared in the base task's decorator. It is registered as ``<base>.<suffix>`` and draws and
splits the base task's items (its ``base_name`` is the base task's name), so its samples pair with the base's by
index.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from geocore.registry import Registry, UnknownNameError
from tasks.base import Task
from tasks.scorers import Breakdowns

BUILTIN_FAMILIES: tuple[str, ...] = ("tasks.gpsbench", "tasks.geotemp", "tasks.stbench", "tasks.gtr")

_VARIANTS: dict[tuple[str, str], str] = {}
"""(base task, variant suffix) -> the variant's task name."""

C = TypeVar("C", bound=type)


class UnknownTaskError(UnknownNameError):
    """Raised when a task name or pattern matches nothing; the message lists the valid names."""


TASKS: Registry[Callable[..., Task]] = Registry("task", BUILTIN_FAMILIES, error=UnknownTaskError)


@dataclass(frozen=True)
class Variant:
    """Another form of a task's items: the base task class with ``overrides`` (class attributes it already
    declares, same types) set otherwise, registered as ``<base>.<suffix>``."""

    suffix: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    doc: str = ""
    """Appended to the base task's docstring."""


def _variant_class(base: type, base_name: str, variant: Variant) -> type:
    name = f"{base_name}.{variant.suffix}"
    for attr, value in variant.overrides.items():
        default = getattr(base, attr, None)
        if default is None or callable(default) or not isinstance(value, type(default)):
            raise TypeError(f"variant {name!r}: {attr}={value!r} does not override a {base.__name__} attribute "
                            f"of the same type")
    suffix = "".join(part.title() for part in variant.suffix.split("_"))
    return type(base.__name__ + suffix, (base,), {
        **variant.overrides, "name": name, "base_name": base_name, "__module__": base.__module__,
        "__doc__": " ".join(filter(None, (base.__doc__, variant.doc))),
    })


def register_task(name: str, variants: tuple[Variant, ...] = ()) -> Callable[[C], C]:
    """Class decorator: register the task ``name`` (``family.task``, set as the class's ``name``) and each of
    its ``variants`` as ``name.<suffix>``; a name registered twice is refused."""

    def deco(cls: C) -> C:
        TASKS.add(name, cls)
        cls.name = name  # type: ignore[attr-defined]
        for variant in variants:
            sub = _variant_class(cls, name, variant)
            TASKS.add(sub.name, sub)  # type: ignore[attr-defined]
            _VARIANTS[(name, variant.suffix)] = sub.name  # type: ignore[attr-defined]
        return cls

    return deco


def task_names() -> list[str]:
    """All registered task names, sorted."""
    return TASKS.names()


def resolve_tasks(patterns: list[str]) -> list[str]:
    """Expand names and globs (``gpsbench.*``) into task names, keeping order; unknown ones raise."""
    names = task_names()
    out: list[str] = []
    for pattern in patterns:
        matched = [n for n in names if fnmatch.fnmatchcase(n, pattern)] if any(c in pattern for c in "*?[") else (
            [pattern] if pattern in names else []
        )
        if not matched:
            raise TASKS.unknown(pattern)
        out.extend(m for m in matched if m not in out)
    return out


def get_task(name: str, **kwargs: object) -> Task:
    """Instantiate the task registered under ``name``."""
    return TASKS.get(name)(**kwargs)


def task_breakdowns(name: str) -> Breakdowns:
    """What results of task ``name`` break down by: its declared ``breakdowns``. A task not registered here (a run
    read back after its plug-in is gone) by every dimension some registered task declares, keys merged in name
    order."""
    if name in TASKS:
        return getattr(TASKS.get(name), "breakdowns", {})
    merged: dict[str, tuple[str, ...]] = {}
    for other in task_names():
        for dim, keys in getattr(TASKS.get(other), "breakdowns", {}).items():
            merged[dim] = merged.get(dim, ()) + tuple(k for k in keys if k not in merged.get(dim, ()))
    return merged


def variant_name(name: str, suffix: str) -> str | None:
    """The task name of the variant ``suffix`` declared by task ``name``, or None when it declares none."""
    TASKS.names()  # variants are recorded as their families are imported
    return _VARIANTS.get((name, suffix))
