"""Conditions: how a sample is answered. Registered by name with ``@register_condition(name)`` on a factory that
takes the condition string; a plug-in module (``geogap`` entry-point group) registers the same way.

Built in:

- ``intrinsic``: the model answers alone in one call.
- ``note-only``: like ``intrinsic`` (one call, no tools) but with the tools condition's system note
  (:data:`TOOLS_NOTE`), so the gap between ``intrinsic`` and ``tools`` splits into the note's effect
  (``note-only`` − ``intrinsic``) and the tools' (``tools`` − ``note-only``).
- ``tools``: the LangGraph agent with the task's own tool sets (see :class:`ToolsCondition` for why not all).
- ``tools[all]``: the agent with every registered tool set.
- ``tools[a,b]``: the agent with exactly these tool sets (ablations).
- ``tools-required``, ``tools-required[all]``, ``tools-required[a,b]``: like ``tools`` with the same tool sets,
  but the agent's first model call must call a tool (the provider's ``tool_choice`` that forces one,
  :attr:`agents.providers.Provider.forced_tool_choice`); later calls are free. So a gap can be split into whether
  the model chooses tools and how well it does with them. A provider that cannot force a call (``scripted/``) runs
  it as ``tools``, and the run says so in one line (:func:`unforced_note`).
- ``inject-tz`` / ``replace-city``: knowledge injection (GeoTemp §7): the intrinsic answerer on the task's
  ``inject_tz`` / ``replace_city`` variant (:class:`tasks.registry.Variant`), whose prompt adds each city's UTC
  offset / replaces each city by its offset. Samples of tasks without that variant are stored as
  ``not_applicable``.

A condition may transform a sample before it is answered (:meth:`BaseCondition.prepare`); results are always
stored under the original sample id, so every condition pairs with every other on the same items.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from agents.final_answer import STRUCTURED_NOTE, AnswerChannel, final_answer_tool
from agents.intrinsic import answer_intrinsic
from agents.model_call import DEFAULT_CALLER, ModelCaller
from agents.tool_agent import AgentLimits, ToolAgent
from agents.trace import AgentResult, TraceEvent
from evals.mcp import with_identity
from geocore.registry import Registry, UnknownNameError
from tasks.answer_kinds import answer_model
from tasks.answers.text import final_answer_segment
from tasks.base import Task
from tasks.records import Message, Sample
from tasks.registry import get_task, variant_name
from tools.registry import get_tools, toolset_names

TOOLS_NOTE = (
    "You can call tools. Use them for every calculation or lookup instead of working it out by hand; "
    "call each tool at most once with the same arguments, then give your answer."
)


@dataclass
class AnswerContext:
    """What a condition needs besides the sample: the model, its caller (retries, cache), limits, seeds."""

    model: BaseChatModel
    limits: AgentLimits = field(default_factory=AgentLimits)
    caller: ModelCaller = DEFAULT_CALLER
    seed: int = 42
    epoch: int = 0
    trace_sink: list[TraceEvent] = field(default_factory=list)
    forced_tool_choice: str | None = None
    """The model's provider's ``tool_choice`` that forces a tool call; None: it cannot force one."""
    answer_channel: AnswerChannel = "text"
    """``structured``: the final answer is a ``final_answer`` tool call (:mod:`agents.final_answer`)."""


class NotApplicable(Exception):
    """The condition does not apply to this sample (e.g. its task has no such prompt variant)."""


@runtime_checkable
class Condition(Protocol):
    """Decides the agent, its tool sets and any prompt change for a sample."""

    name: str
    uses_tools: bool
    """Whether it answers with the tool agent (up to ``--max-steps`` calls a sample) or in one call."""
    require_tool_call: bool
    """Whether the agent's first call is forced to call a tool (where the provider can force one)."""
    system_note: str | None
    """A note it appends to the system message (what the estimate counts)."""

    def toolsets_for(self, task: Task) -> tuple[str, ...]:
        """The tool sets it offers on ``task`` (none when it does not use tools)."""
        ...

    def unforced_name(self) -> str:
        """The condition it runs as where the provider cannot force a tool call."""
        ...

    def prepare(self, sample: Sample, task: Task, ctx: AnswerContext) -> tuple[Sample, Task]:
        """The sample (and the task that parses and scores it) to answer; raise NotApplicable to skip."""
        ...

    async def answer(self, sample: Sample, task: Task, ctx: AnswerContext) -> AgentResult:
        ...


class BaseCondition:
    """Defaults for conditions: one call, no tools, no note, no transformation, no up-front checks."""

    name: str = ""
    uses_tools: bool = False
    require_tool_call: bool = False
    system_note: str | None = None
    single_call: bool = False
    """Answers with one model call and no tools: it can go through a provider's batch API (evals.batch)."""

    def toolsets_for(self, task: Task) -> tuple[str, ...]:
        return ()

    def unforced_name(self) -> str:
        return self.name

    def prepare(self, sample: Sample, task: Task, ctx: AnswerContext) -> tuple[Sample, Task]:
        return sample, task

    def check(self, task: Task) -> None:
        """Raise now (before any model call) if this condition cannot run on ``task`` at all."""

    async def answer(self, sample: Sample, task: Task, ctx: AnswerContext) -> AgentResult:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class Channel:
    """How a sample's final answer is given: its messages (the structured channel's note added), the caller (its
    cache key naming the channel) and the ``final_answer`` tool (None in the text channel)."""

    messages: list[Message]
    caller: ModelCaller
    final_tool: BaseTool | None = None


def channel(messages: Sequence[Message], sample: Sample, task: Task, ctx: AnswerContext) -> Channel:
    """The answer channel of ``ctx`` applied to ``messages``: unchanged under ``text``; under ``structured`` the
    same note and a ``final_answer`` tool typed by the task's answer kind in every condition."""
    if ctx.answer_channel == "text":
        return Channel(list(messages), ctx.caller)
    return Channel(with_system_note(tuple(messages), STRUCTURED_NOTE), ctx.caller.keyed(answer_channel="structured"),
                   final_answer_tool(answer_model(task, sample)))


async def answer_alone(messages: Sequence[Message], sample: Sample, task: Task, ctx: AnswerContext) -> AgentResult:
    """One model call on ``messages`` in ``ctx``'s answer channel."""
    ch = channel(messages, sample, task, ctx)
    return await answer_intrinsic(ctx.model, ch.messages, ch.caller, ch.final_tool, ctx.forced_tool_choice)


class IntrinsicCondition(BaseCondition):
    """The model answers alone in one call."""

    name = "intrinsic"
    single_call = True

    async def answer(self, sample: Sample, task: Task, ctx: AnswerContext) -> AgentResult:
        return await answer_alone(sample.messages, sample, task, ctx)


def with_system_note(messages: tuple[Message, ...], note: str) -> list[Message]:
    """Append ``note`` to the task's system message after a blank line (or add one): one system message, first."""
    out = list(messages)
    if out and out[0].role == "system":
        out[0] = Message(role="system", content=f"{out[0].content}\n\n{note}")
    else:
        out.insert(0, Message(role="system", content=note))
    return out


def with_tools_note(messages: tuple[Message, ...]) -> list[Message]:
    """Append the tools note to the system message (or add one)."""
    return with_system_note(messages, TOOLS_NOTE)


class NoteOnlyCondition(BaseCondition):
    """The model answers alone in one call, its prompt carrying the tools condition's note (no tools offered)."""

    name = "note-only"
    system_note: str | None = TOOLS_NOTE
    single_call = True

    async def answer(self, sample: Sample, task: Task, ctx: AnswerContext) -> AgentResult:
        return await answer_alone(with_tools_note(sample.messages), sample, task, ctx)


ALL_TOOLSETS = "all"
TOOLS = "tools"
TOOLS_REQUIRED = "tools-required"


def commits_answer(text: str) -> bool:
    """Whether a reply already commits to an answer: a ``FINAL ANSWER:`` line with something after it. The agent
    ends a sample on such a reply when its tool calls only repeat earlier ones; a reply without the line (a
    completion-style prompt) gets the agent's usual last call instead."""
    return bool(final_answer_segment(text))


class ToolsCondition(BaseCondition):
    """The LangGraph tool agent.

    ``tools`` offers the task's own tool sets (``task.toolsets``, what makes it solvable), not every default
    tool set: each tool's schema is part of every prompt, and the embedded 1.5B model reads prompts at about
    84 tokens/s, so offering every tool set would multiply the cost of each call and bury the relevant tools.
    ``tools[all]`` offers every registered tool set (what "all default tool sets" means literally);
    ``tools[a,b]`` offers exactly the named sets (ablations). With ``require_tool_call`` (``tools-required``) the
    agent's first call is forced to call a tool where the provider can force one.
    """

    def __init__(self, toolsets: tuple[str, ...] | None = None, require_tool_call: bool = False) -> None:
        self.toolsets = toolsets
        self.uses_tools = True
        self.require_tool_call = require_tool_call
        self.system_note = TOOLS_NOTE
        base = TOOLS_REQUIRED if require_tool_call else TOOLS
        self.name = base if toolsets is None else f"{base}[{','.join(toolsets)}]"
        self._agents: dict[tuple[int, int, tuple[str, ...], tuple[Any, ...], str | None], ToolAgent] = {}

    def unforced_name(self) -> str:
        return ToolsCondition(self.toolsets).name

    def toolsets_for(self, task: Task) -> tuple[str, ...]:
        if self.toolsets is None:
            return tuple(task.toolsets)
        if self.toolsets == (ALL_TOOLSETS,):
            return tuple(toolset_names())
        return self.toolsets

    def check(self, task: Task) -> None:
        """Raise UnknownToolsetError now if a tool set this task needs is missing."""
        get_tools(list(self.toolsets_for(task)))

    async def answer(self, sample: Sample, task: Task, ctx: AnswerContext) -> AgentResult:
        sets = self.toolsets_for(task)
        choice = ctx.forced_tool_choice if self.require_tool_call else None
        ch = channel(with_tools_note(sample.messages), sample, task, ctx)
        if ch.final_tool is not None:  # the tool's schema is the sample's (its option labels): an agent per sample
            agent = ToolAgent(ctx.model, get_tools(list(sets)), ctx.limits, with_identity(ch.caller, sets), choice,
                              final_tool=ch.final_tool, forced_final_choice=ctx.forced_tool_choice)
            return await agent.run(ch.messages, trace_sink=ctx.trace_sink)
        key = (id(ctx.model), id(ctx.caller), sets, tuple(ctx.limits.model_dump().values()), choice)
        if key not in self._agents:
            caller = with_identity(ctx.caller, sets)  # an MCP server's identity is part of the cache key
            self._agents[key] = ToolAgent(ctx.model, get_tools(list(sets)), ctx.limits, caller, choice,
                                          commits_answer=commits_answer)
        return await self._agents[key].run(ch.messages, trace_sink=ctx.trace_sink)


class VariantCondition(BaseCondition):
    """Answer a prompt variant of each sample (knowledge injection) with an inner condition (intrinsic).

    The variant of a sample is the item with the same split and index of the task's registered variant
    ``variant`` (:class:`tasks.registry.Variant`; GeoTemp's ``geotemp.time_time_place.inject_tz`` is one), when it
    has the same gold. Otherwise the sample is not applicable.
    """

    def __init__(self, name: str, variant: str, inner: BaseCondition | None = None) -> None:
        self.name = name
        self.variant = variant
        self.inner = inner or IntrinsicCondition()
        self.uses_tools, self.system_note = self.inner.uses_tools, self.inner.system_note
        self.require_tool_call = self.inner.require_tool_call
        self.single_call = self.inner.single_call
        # per (variant, split, seed, size): the variant's first items of the split (how many asked for, by id)
        self._siblings: dict[tuple[str, str, int, int | None], tuple[int | None, dict[str, Sample]]] = {}

    def _twin(self, task: Task, sample: Sample, seed: int) -> tuple[Task, Sample | None] | None:
        """The variant task and its item with ``sample``'s split and index (None: no such item). The variant's
        split is drawn only as far as needed, growing fourfold (a --limit 2 run draws 8 items, not the split)."""
        name = variant_name(task.name, self.variant)
        if name is None:
            return None
        size = getattr(task, "size", None)
        sibling = get_task(name, size=size) if size is not None else get_task(name)
        key = (name, sample.split, seed, size)
        twin_id = sibling.name + sample.id[len(task.name):]
        limit, items = self._siblings.get(key, (0, {}))
        while twin_id not in items and limit is not None:
            limit = max(8, 4 * limit)
            drawn = sibling.samples(split=sample.split, seed=seed, limit=limit)  # type: ignore[arg-type]
            items = {s.id: s for s in drawn}
            if len(drawn) < limit:
                limit = None  # the whole split is drawn
            self._siblings[key] = (limit, items)
        return sibling, items.get(twin_id)

    def prepare(self, sample: Sample, task: Task, ctx: AnswerContext) -> tuple[Sample, Task]:
        found = self._twin(task, sample, ctx.seed) if sample.id.startswith(task.name + "/") else None
        if found is None:
            raise NotApplicable(f"task {task.name} has no {self.variant!r} variant")
        sibling, twin = found
        if twin is None or twin.target != sample.target:
            raise NotApplicable(f"{sibling.name} has no item matching {sample.id}")
        return twin, sibling

    def toolsets_for(self, task: Task) -> tuple[str, ...]:
        return self.inner.toolsets_for(task)

    async def answer(self, sample: Sample, task: Task, ctx: AnswerContext) -> AgentResult:
        return await self.inner.answer(sample, task, ctx)


ConditionFactory = Callable[[str], Condition]
"""Makes a condition from its full condition string (with any ``[...]`` arguments)."""

BUILTIN_MODULES: tuple[str, ...] = ()
"""Modules of further built-in conditions (beside this one's), imported on the first lookup."""

_PARAM = re.compile(r"^(?P<base>[a-z0-9_-]+)\[(?P<args>[^\]]*)\]$")


class UnknownConditionError(UnknownNameError):
    """A condition that is not registered, or ``tools[...]`` / ``tools-required[...]`` with bad arguments."""


CONDITIONS: Registry[ConditionFactory] = Registry("condition", BUILTIN_MODULES, error=UnknownConditionError)


def register_condition(name: str) -> Callable[[ConditionFactory], ConditionFactory]:
    """Decorator: register a condition factory under ``name``; a name registered twice is refused."""
    return CONDITIONS.register(name)


@register_condition("intrinsic")
def intrinsic(spec: str) -> Condition:
    return IntrinsicCondition()


@register_condition("note-only")
def note_only(spec: str) -> Condition:
    return NoteOnlyCondition()


def _toolsets(spec: str) -> tuple[str, ...] | None:
    """The tool sets named by ``base[a,b]`` (None for a bare ``base``); UnknownConditionError for bad forms."""
    m = _PARAM.match(spec)
    if not m:
        return None
    sets = tuple(s.strip() for s in m.group("args").split(",") if s.strip())
    base = m.group("base")
    if not sets:
        raise UnknownConditionError(f"condition {spec!r} names no tool sets; e.g. {base}[geodesy] or {base}[all]")
    if ALL_TOOLSETS in sets and len(sets) > 1:
        raise UnknownConditionError(f"condition {spec!r}: 'all' cannot be combined with other tool sets")
    return sets


@register_condition(TOOLS)
def tools(spec: str) -> Condition:
    """``tools`` (the task's own tool sets), ``tools[all]`` or ``tools[a,b]``."""
    return ToolsCondition(_toolsets(spec))


@register_condition(TOOLS_REQUIRED)
def tools_required(spec: str) -> Condition:
    """``tools-required``, ``tools-required[all]`` or ``tools-required[a,b]``: ``tools`` whose first call must call
    a tool."""
    return ToolsCondition(_toolsets(spec), require_tool_call=True)


@register_condition("inject-tz")
def inject_tz(spec: str) -> Condition:
    return VariantCondition(spec, "inject_tz")


@register_condition("replace-city")
def replace_city(spec: str) -> Condition:
    return VariantCondition(spec, "replace_city")


def condition_names() -> list[str]:
    """The registered conditions, the tool agent's forms first (``tools-required`` takes the same arguments)."""
    first = ["intrinsic", TOOLS, "tools[all]", "tools[set1,set2]", TOOLS_REQUIRED, "tools-required[set1,set2]"]
    return first + [n for n in CONDITIONS.names() if n not in first]


def unforced_note(model: str, conditions: Sequence[Condition], forced_tool_choice: str | None) -> str | None:
    """The one line a run prints when it has ``tools-required`` conditions but ``model``'s provider cannot force a
    tool call (they then run as ``tools``); None otherwise."""
    required = [c for c in conditions if c.require_tool_call]
    if forced_tool_choice is not None or not required:
        return None
    runs = ", ".join(f"{c.name} runs as {c.unforced_name()}" for c in required)
    return f"note: {model} cannot force a tool call; {runs}"


def forced_call_error(conditions: Sequence[Condition], forced_tool_choice: str | None, max_steps: int) -> str | None:
    """Why a run cannot measure its ``tools-required`` conditions, or None: with one model call per sample the
    forced tool call is the only call, and no answer can follow its result."""
    required = [c.name for c in conditions if c.require_tool_call]
    if forced_tool_choice is None or not required or max_steps >= 2:
        return None
    return (f"{', '.join(required)} forces a tool call on the first model call, so --max-steps {max_steps} leaves no "
            "call to answer with; use --max-steps 2 or more")


def split_conditions(text: str) -> list[str]:
    """Split a comma-separated condition list, keeping commas inside brackets: ``intrinsic,tools[a,b]``."""
    out, depth, current = [], 0, ""
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += ch
    out.append(current)
    return [c.strip() for c in out if c.strip()]


def get_condition(spec: str) -> Condition:
    """Resolve ``intrinsic``, ``tools``, ``tools[all]``, ``tools[geodesy,gazetteer]``, ``tools-required[...]`` or a
    registered name."""
    spec = spec.strip()
    m = _PARAM.match(spec)
    name = m.group("base") if m and m.group("base") in (TOOLS, TOOLS_REQUIRED) else spec
    if name not in CONDITIONS:
        raise CONDITIONS.unknown(spec, condition_names())
    return CONDITIONS.get(name)(spec)
