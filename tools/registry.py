"""Tool-set registry: ``@toolset`` factories, built-ins imported lazily, plug-ins via ``geogap.toolsets``.

A tool set is a named factory returning LangChain tools. Built-in modules listed in ``BUILTIN_MODULES`` are
imported when a name is resolved or listed. A plug-in package declares an entry point in the
``geogap.toolsets`` group whose value is a zero-argument factory returning a list of tools; the entry point's
name is the tool set's name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points

from langchain_core.tools import BaseTool

BUILTIN_MODULES: tuple[str, ...] = ("tools.geodesy", "tools.timezone", "tools.gazetteer", "tools.projections", "tools.shapes", "tools.geometry", "tools.trajectory", "tools.graph")
ENTRY_POINT_GROUP = "geogap.toolsets"

ToolsetFactory = Callable[[], list[BaseTool]]
_FACTORIES: dict[str, ToolsetFactory] = {}
_DESCRIPTIONS: dict[str, str] = {}
_loaded = False


class UnknownToolsetError(KeyError):
    """A tool set name that is neither built in nor installed; the message lists what is available."""

    def __str__(self) -> str:
        return str(self.args[0])


def toolset(name: str, description: str = "") -> Callable[[ToolsetFactory], ToolsetFactory]:
    """Decorator: register ``factory`` as the tool set ``name``."""

    def deco(factory: ToolsetFactory) -> ToolsetFactory:
        _FACTORIES[name] = factory
        _DESCRIPTIONS[name] = description or _first_line(factory.__doc__)
        return factory

    return deco


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().split("\n")[0]


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for module in BUILTIN_MODULES:
        importlib.import_module(module)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            factory = ep.load()
        except Exception as exc:  # a broken plug-in must not take the product down
            _DESCRIPTIONS[ep.name] = f"unavailable: {exc}"
            continue
        _FACTORIES.setdefault(ep.name, factory)
        _DESCRIPTIONS.setdefault(ep.name, _first_line(factory.__doc__))
    _loaded = True


def toolset_names() -> list[str]:
    """Names of all available tool sets."""
    _load()
    return sorted(_FACTORIES)


def describe_toolsets() -> dict[str, str]:
    _load()
    return {n: _DESCRIPTIONS.get(n, "") for n in sorted(_FACTORIES)}


def get_toolset(name: str) -> list[BaseTool]:
    """The tools of one tool set."""
    _load()
    if name not in _FACTORIES:
        raise UnknownToolsetError(
            f"tool set {name!r} is not available (not built in and no installed plug-in registers it under the "
            f"'{ENTRY_POINT_GROUP}' entry point); available: {', '.join(sorted(_FACTORIES)) or 'none'}"
        )
    return list(_FACTORIES[name]())


def get_tools(names: list[str]) -> list[BaseTool]:
    """The tools of several tool sets, de-duplicated by tool name (first wins)."""
    tools: dict[str, BaseTool] = {}
    for name in names:
        for t in get_toolset(name):
            tools.setdefault(t.name, t)
    return list(tools.values())
