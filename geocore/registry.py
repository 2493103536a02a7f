"""Name → factory registries for tasks, tool sets, conditions and providers, with plug-ins by entry point.

The one plug-in mechanism of geogap. It sits in ``geocore`` because that is the package every layer may import
(it imports nothing of the project). Each layer makes its own ``Registry`` and registers with a decorator; the
built-in modules are imported lazily, on the first lookup. Plug-ins are installed packages with an entry point in
the single group ``geogap``, whose value is a module (or ``module:object``): loading it runs its ``register``
decorators, whichever registries they fill. A plug-in that fails to load is named in one line (see
:meth:`Registry.errors`) by every registry, the same way, instead of a traceback.

Order does not matter, and built-ins stay lazy: a built-in always holds its own name, taking it back from a
plug-in that registered it first. A name taken twice (a plug-in's tool set called ``geodesy``, two plug-ins with
one task name) is one line naming both sides (:class:`NameClash`); for a plug-in that line is its load error
(:meth:`Registry.errors`); between plug-ins the first keeps the name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

T = TypeVar("T")

ENTRY_POINT_GROUP = "geogap"

_plugins_loaded = False
_plugin_errors: list[str] = []
_loading: list[EntryPoint] = []  # the plug-in whose module is being imported (innermost last)


class UnknownNameError(KeyError):
    """A name that no registry entry has; the message lists the valid names."""

    def __str__(self) -> str:
        return str(self.args[0])


class NameClash(ValueError):
    """A name registered twice: the message names both sides."""


def _describe(ep: EntryPoint, exc: BaseException) -> str:
    cause = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, NameClash):
        return f"{_plugin_label(ep)} failed to load: {cause}"
    return f"{_plugin_label(ep)} failed to load: {type(exc).__name__}" + (f": {cause}" if cause else "")


_importing: list[str] = []  # the built-in module being imported by a registry (innermost last)


def _module_of(obj: object) -> str:
    """The module defining ``obj`` (or the factory it wraps)."""
    inner = getattr(obj, "factory", None) or getattr(obj, "__wrapped__", None) or obj
    return str(getattr(inner, "__module__", None) or type(inner).__module__)


def _plugin_label(ep: EntryPoint) -> str:
    return f"plug-in {ep.name!r} ({ep.value})"


def load_plugins() -> list[str]:
    """Load every entry point of the ``geogap`` group once; returns the one-line errors of those that failed."""
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            _loading.append(ep)
            outer = list(_importing)  # a plug-in loaded while a built-in module is imported is still a plug-in
            _importing.clear()
            try:
                ep.load()
            except Exception as exc:  # a broken third-party package must not take the framework down
                _plugin_errors.append(_describe(ep, exc))
            finally:
                _loading.pop()
                _importing.extend(outer)
    return list(_plugin_errors)


def plugin_note() -> str:
    """`` (plug-in ... failed to load: ...)`` naming every broken plug-in, or ``""``: the suffix of every
    unknown-name message, so a name a broken plug-in would have provided is explained the same way everywhere."""
    broken = "; ".join(load_plugins())
    return f" ({broken})" if broken else ""


class Registry(Generic[T]):
    """Factories of one kind (``"task"``, ``"tool set"``, …) by name; built-ins imported on first use."""

    def __init__(self, kind: str, builtins: tuple[str, ...] = (), *,
                 error: type[UnknownNameError] = UnknownNameError) -> None:
        self.kind = kind
        self.builtins = builtins
        self.error = error
        self._entries: dict[str, T] = {}
        self._origins: dict[str, tuple[str, bool, EntryPoint | None]] = {}  # who registered it, built-in, plug-in
        self._loaded = False

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated factory under ``name``; a second entry of one name is refused."""

        def deco(obj: T) -> T:
            self.add(name, obj)
            return obj

        return deco

    def add(self, name: str, obj: T) -> None:
        """Register ``obj`` under ``name`` (what the decorator does). A name already held: a built-in takes it
        back from a plug-in (the clash is recorded as that plug-in's error); otherwise :class:`NameClash`."""
        builtin = self._is_builtin(obj)
        origin = f"built-in {_module_of(obj)}" if builtin else _plugin_label(_loading[-1]) if _loading else _module_of(obj)
        held = self._entries.get(name)
        if held is not None and held is not obj:
            line = (f"{self.kind} {name!r} of {{loser}} clashes with the {self.kind} {name!r} of {{keeper}}, which "
                    "keeps the name; rename one of them")
            first, first_builtin, ep = self._origins[name]
            if not (builtin and not first_builtin):
                raise NameClash(line.format(loser=origin, keeper=first))
            message = line.format(loser=first, keeper=origin)
            _plugin_errors.append(f"{_plugin_label(ep)} failed to load: {message}" if ep else message)
        self._entries[name] = obj
        self._origins[name] = (origin, builtin, _loading[-1] if _loading else None)

    def _is_builtin(self, obj: object) -> bool:
        """Defined in one of this registry's built-in modules (or registered while one is imported)."""
        module = _module_of(obj)
        return any(module == b or module.startswith(b + ".") for b in self.builtins) or bool(_importing and
                                                                                             not _loading)

    def remove(self, name: str) -> None:
        """Forget ``name`` (an entry made at run time, such as an MCP server's tool set, that is configured anew)."""
        self._entries.pop(name, None)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for module in self.builtins:
            _importing.append(module)
            try:
                importlib.import_module(module)
            finally:
                _importing.pop()
        load_plugins()

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        self._load()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def get(self, name: str) -> T:
        """The factory registered under ``name``; ``UnknownNameError`` lists the valid names and broken plug-ins."""
        self._load()
        if name not in self._entries:
            raise self.unknown(name)
        return self._entries[name]

    def unknown(self, name: str, valid: list[str] | None = None) -> UnknownNameError:
        """The error (of the registry's ``error`` class) for a name nothing registered: the valid names (``valid``,
        default every registered one) and every plug-in that failed to load, in one line."""
        shown = self.names() if valid is None else valid
        return self.error(f"unknown {self.kind} {name!r}; valid {self.kind}s: {', '.join(shown)}{plugin_note()}")

    def errors(self) -> list[str]:
        """One line per installed plug-in that failed to load (for ``--list`` and start-up warnings)."""
        self._load()
        return list(_plugin_errors)
