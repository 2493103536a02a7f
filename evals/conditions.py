"""Conditions: how a sample is answered. ``intrinsic`` (one call, no tools) and ``tools`` (the LangGraph
agent with the task's tool sets); ``tools[a,b]`` picks tool sets for ablations. Registered by name, so a
plug-in (entry-point group ``geogap.conditions``) can add one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Protocol

from langchain_core.language_models import BaseChatModel

from agents.intrinsic import answer_intrinsic
from agents.tool_agent import AgentLimits, ToolAgent
from agents.trace import AgentResult
from tasks.base import Task
from tasks.records import Message, Sample
from tools.registry import get_tools

TOOLS_NOTE = (
    "You can call tools. Use them for every calculation or lookup instead of working it out by hand; "
    "call each tool at most once with the same arguments, then give your answer."
)


class Condition(Protocol):
    """Decides the agent, its tool sets and any prompt change for a sample."""

    name: str

    async def answer(self, sample: Sample, task: Task, model: BaseChatModel, limits: AgentLimits) -> AgentResult:
        ...


class IntrinsicCondition:
    """The model answers alone in one call."""

    name = "intrinsic"

    async def answer(self, sample: Sample, task: Task, model: BaseChatModel, limits: AgentLimits) -> AgentResult:
        return await answer_intrinsic(model, sample.messages)


def with_tools_note(messages: tuple[Message, ...]) -> list[Message]:
    """Append the tools note to the system message (or add one)."""
    out = list(messages)
    if out and out[0].role == "system":
        out[0] = Message(role="system", content=f"{out[0].content}\n\n{TOOLS_NOTE}")
    else:
        out.insert(0, Message(role="system", content=TOOLS_NOTE))
    return out


class ToolsCondition:
    """The LangGraph tool agent; tool sets are the task's own unless named (``tools[geodesy,timezone]``)."""

    def __init__(self, toolsets: tuple[str, ...] | None = None) -> None:
        self.toolsets = toolsets
        self.name = "tools" if toolsets is None else f"tools[{','.join(toolsets)}]"
        self._agents: dict[tuple[int, tuple[str, ...]], ToolAgent] = {}

    def toolsets_for(self, task: Task) -> tuple[str, ...]:
        return self.toolsets if self.toolsets is not None else tuple(task.toolsets)

    def check(self, task: Task) -> None:
        """Raise UnknownToolsetError now if a tool set this task needs is missing."""
        get_tools(list(self.toolsets_for(task)))

    async def answer(self, sample: Sample, task: Task, model: BaseChatModel, limits: AgentLimits) -> AgentResult:
        sets = self.toolsets_for(task)
        key = (id(model), sets)
        if key not in self._agents:
            self._agents[key] = ToolAgent(model, get_tools(list(sets)), limits)
        return await self._agents[key].run(with_tools_note(sample.messages))


ConditionFactory = Callable[[str], Condition]
_REGISTRY: dict[str, ConditionFactory] = {
    "intrinsic": lambda _: IntrinsicCondition(),
    "tools": lambda _: ToolsCondition(),
}
_PARAM = re.compile(r"^(?P<base>[a-z0-9_-]+)\[(?P<args>[^\]]*)\]$")


class UnknownConditionError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def register_condition(name: str, factory: ConditionFactory) -> None:
    """Add a condition; ``factory`` gets the full condition string (with any ``[...]`` arguments)."""
    _REGISTRY[name] = factory


def condition_names() -> list[str]:
    for ep in entry_points(group="geogap.conditions"):
        _REGISTRY.setdefault(ep.name, ep.load())
    return sorted(_REGISTRY) + ["tools[set1,set2]"]


def get_condition(spec: str) -> Condition:
    """Resolve ``intrinsic``, ``tools`` or ``tools[geodesy,gazetteer]``."""
    names = condition_names()
    m = _PARAM.match(spec.strip())
    if m and m.group("base") == "tools":
        sets = tuple(s.strip() for s in m.group("args").split(",") if s.strip())
        if not sets:
            raise UnknownConditionError(f"condition {spec!r} names no tool sets; e.g. tools[geodesy]")
        return ToolsCondition(sets)
    if spec in _REGISTRY:
        return _REGISTRY[spec](spec)
    raise UnknownConditionError(f"unknown condition {spec!r}; valid conditions: {', '.join(names)}")
