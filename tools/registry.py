"""Tool-set registry: ``@toolset(name)`` factories on :class:`geocore.registry.Registry`.

A tool set is a named zero-argument factory returning LangChain tools. Built-in modules (``BUILTIN_MODULES``) are
imported on the first lookup; a plug-in package registers its tool sets with the same decorator in the module its
``geogap`` entry point names (see docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from langchain_core.tools import BaseTool

from geocore.registry import ENTRY_POINT_GROUP, Registry, UnknownNameError, plugin_note

BUILTIN_MODULES: tuple[str, ...] = ("tools.geodesy", "tools.timezone", "tools.gazetteer", "tools.projections",
                                   "tools.shapes", "tools.geometry", "tools.trajectory", "tools.graph",
                                   "tools.calculator", "tools.python_exec")

ToolsetFactory = Callable[[], list[BaseTool]]


class Toolset(NamedTuple):
    """A registered tool set: its factory and a one-line description."""

    factory: ToolsetFactory
    description: str


TOOLSETS: Registry[Toolset] = Registry("tool set", BUILTIN_MODULES)


class UnknownToolsetError(UnknownNameError):
    """A tool set name that is neither built in nor installed; the message lists what is available."""


def toolset(name: str, description: str = "") -> Callable[[ToolsetFactory], ToolsetFactory]:
    """Decorator: register ``factory`` as the tool set ``name`` (described by ``description`` or its docstring's
    first line); a name registered twice is refused."""

    def deco(factory: ToolsetFactory) -> ToolsetFactory:
        TOOLSETS.add(name, Toolset(factory, description or (factory.__doc__ or "").strip().split("\n")[0]))
        return factory

    return deco


def toolset_names() -> list[str]:
    """Names of all available tool sets."""
    return TOOLSETS.names()


def describe_toolsets() -> dict[str, str]:
    """Each available tool set's one-line description, by name."""
    return {n: TOOLSETS.get(n).description for n in TOOLSETS.names()}


def get_toolset(name: str) -> list[BaseTool]:
    """The tools of one tool set."""
    if name not in TOOLSETS:
        raise UnknownToolsetError(
            f"tool set {name!r} is not available (not built in and no installed plug-in registers it; plug-ins are "
            f"loaded from the '{ENTRY_POINT_GROUP}' entry-point group); available: "
            f"{', '.join(TOOLSETS.names()) or 'none'}{plugin_note()}"
        )
    return list(TOOLSETS.get(name).factory())


def get_tools(names: list[str]) -> list[BaseTool]:
    """The tools of several tool sets, de-duplicated by tool name (first wins)."""
    tools: dict[str, BaseTool] = {}
    for name in names:
        for t in get_toolset(name):
            tools.setdefault(t.name, t)
    return list(tools.values())
