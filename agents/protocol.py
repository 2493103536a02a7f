"""The generation protocol: what every model call of a run sends, resolved per model from what the run asks.

A run asks for an answer budget (``--max-tokens``), a temperature, a reasoning effort and a thinking budget, from
its flags or, where a flag is not given, from a paper suite's settings (``evals.suites``) or geogap's defaults
(512 tokens, temperature 0). :func:`resolve_protocol` turns that into what the model's family accepts:

- **OpenAI reasoning models** (o1, o3, o4-mini, gpt-5 except gpt-5-chat): ``max_completion_tokens`` = answer
  budget + :data:`REASONING_ALLOWANCE` (reasoning tokens count against it); no temperature is sent (they accept
  only their own, 1: a ``--temperature`` other than 1 is refused, a suite's or the default 0 is dropped with a
  note); ``--reasoning-effort`` is sent as ``reasoning_effort``; ``--thinking-budget`` is refused.
- **Gemini thinking models** (2.5, 3): ``max_output_tokens`` = answer budget + thinking budget (thinking counts
  against it). Gemini 2.5 gets ``thinking_budget`` (``--thinking-budget``, default :data:`REASONING_ALLOWANCE`);
  Gemini 3 gets ``thinking_level`` from ``--reasoning-effort`` (else its own dynamic thinking, room
  :data:`REASONING_ALLOWANCE`).
- **Claude** with ``--thinking-budget N`` (N >= 1024, Claude 3.7 and 4.x): extended thinking with
  ``budget_tokens`` N and ``max_tokens`` = answer budget + N (the API needs budget_tokens < max_tokens); no
  temperature (thinking works only at 1). Thinking is incompatible with a forced ``tool_choice``, so
  ``tools-required`` conditions are refused with it (:attr:`GenerationProtocol.forced_tool_choice_ok`).
- **Open reasoning models** served by vLLM or another OpenAI-compatible server (Qwen3, QwQ, DeepSeek-R1, gpt-oss,
  ...: :func:`agents.vllm_server.reasoning_parser_for`): answer budget + :data:`REASONING_ALLOWANCE`.
- Every other model: the answer budget and the temperature as asked.

The resolved :class:`GenerationProtocol` is stored in the run spec per task, is part of the model-call cache key
(``sent``) and is printed at the start of a run; ``sent`` is what goes on the wire.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from agents.models import GenerationSettings

DEFAULT_ANSWER_TOKENS = 512
DEFAULT_TEMPERATURE = 0.0
REASONING_ALLOWANCE = 16_384
"""Output tokens a reasoning model gets for its reasoning on top of the answer budget (unless a thinking budget is
given): the 512-token default gave gpt-5-mini and gemini-2.5-pro empty replies."""
OPENAI_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
GEMINI_LEVELS = ("minimal", "low", "medium", "high")
CLAUDE_MIN_BUDGET = 1024  # Anthropic's minimum budget_tokens


class ProtocolError(ValueError):
    """A generation setting the model cannot take; the message is one line naming the flag."""


@dataclass(frozen=True)
class Asked:
    """Generation settings asked by one source; None: not asked (the next source or the model decides).
    ``source`` says where they come from (its part before a colon names it in notes: "GPSBench App. D")."""

    max_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    source: str = "flags"


class GenerationProtocol(BaseModel):
    """What every call of one task sends to one model (``sent``), and how it was decided."""

    model_config = ConfigDict(frozen=True)

    family: str = Field(description="chat, openai-reasoning, gemini-thinking, claude-thinking or open-reasoning")
    answer_tokens: int = Field(description="Output tokens asked for the answer")
    max_tokens: int = Field(description="The output cap sent: the answer budget plus any reasoning room")
    temperature: float | None = Field(description="Temperature sent; None: none sent (the model's own)")
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    thinking_level: str | None = None
    forced_tool_choice_ok: bool = Field(default=True, description="Whether a forced tool_choice can be sent")
    sent: dict[str, Any] = Field(description="The generation parameters of every request, as the API names them")
    notes: list[str] = Field(default_factory=list, description="Where it departs from what was asked, and why")

    def settings(self, *, timeout_s: float, seed: int | None) -> GenerationSettings:
        """The chat-model settings that send this protocol."""
        from agents.models import GenerationSettings

        return GenerationSettings(temperature=self.temperature, max_tokens=self.max_tokens, timeout_s=timeout_s,
                                  seed=seed, reasoning_effort=self.reasoning_effort,
                                  thinking_budget=self.thinking_budget, thinking_level=self.thinking_level)

    def describe(self) -> str:
        """One line: the parameters sent, then the notes."""
        params = ", ".join(f"{k} {v}" for k, v in self.sent.items())
        return f"{params} [{self.family}]" + "".join(f"; {n}" for n in self.notes)


def openai_reasoning(name: str) -> bool:
    """o1/o3/o4 (any size or date) and gpt-5* except the gpt-5-chat models."""
    n = name.lower()
    return bool(re.match(r"o\d+(-|$)", n)) or (n.startswith("gpt-5") and "chat" not in n)


def gemini_generation(name: str) -> str | None:
    """``"2.5"`` or ``"3"`` for Gemini thinking models, else None."""
    m = re.match(r"(?:models/)?gemini-(\d+(?:\.\d+)?)", name.lower())
    if not m:
        return None
    version = float(m.group(1))
    return "2.5" if version == 2.5 else ("3" if version >= 3 else None)


def claude_thinks(name: str) -> bool:
    """Claude models with extended thinking by ``budget_tokens``: 3.7 Sonnet and 4 to 4.6 (later ones think
    adaptively, which geogap does not send)."""
    n = name.lower()
    return "3-7" in n or bool(re.search(r"(opus|sonnet|haiku)-4(?:-[0-6](?!\d))?(?:$|-\d{8}|-latest)", n))


def _pick(flag: Any, default: Any, fallback: Any) -> tuple[Any, bool]:
    """The value and whether a flag gave it."""
    if flag is not None:
        return flag, True
    return (default if default is not None else fallback), False


def resolve_protocol(provider: str, name: str, flags: Asked = Asked(), defaults: Asked = Asked(),
                     *, llama_like: bool = False) -> GenerationProtocol:
    """The protocol for ``provider/name``: ``flags`` over ``defaults`` over geogap's defaults, adapted to the
    model's family (module docstring). Raises :class:`ProtocolError` for a flag the model cannot honour."""
    model = f"{provider}/{name}"
    answer, _ = _pick(flags.max_tokens, defaults.max_tokens, DEFAULT_ANSWER_TOKENS)
    temperature, temp_flag = _pick(flags.temperature, defaults.temperature, DEFAULT_TEMPERATURE)
    origin = defaults.source.split(":")[0]  # "GPSBench App. D" of "GPSBench App. D: temperature 0, ..."
    temp_source = "--temperature" if temp_flag else (origin if defaults.temperature is not None
                                                      else "geogap's default")
    effort, effort_flag = _pick(flags.reasoning_effort, defaults.reasoning_effort, None)
    budget, budget_flag = _pick(flags.thinking_budget, defaults.thinking_budget, None)
    notes: list[str] = []

    def refuse(message: str) -> ProtocolError:
        return ProtocolError(f"{model}: {message}")

    def no_temperature(why: str) -> None:
        if temp_flag and temperature != 1:
            raise refuse(f"--temperature {temperature:g} cannot be sent ({why}); drop --temperature")
        notes.append(f"temperature {temperature:g} ({temp_source}) not sent: {why}")

    if provider == "openai" and openai_reasoning(name):
        if budget_flag:
            raise refuse("OpenAI reasoning models take --reasoning-effort, not --thinking-budget")
        if effort is not None and effort not in OPENAI_EFFORTS:
            raise refuse(f"--reasoning-effort must be one of {', '.join(OPENAI_EFFORTS)}")
        no_temperature("OpenAI reasoning models sample only at their own temperature 1")
        cap = answer + REASONING_ALLOWANCE
        notes.append(f"max_completion_tokens = {answer} answer + {REASONING_ALLOWANCE} reasoning")
        sent: dict[str, Any] = {"max_completion_tokens": cap}
        if effort is not None:
            sent["reasoning_effort"] = effort
        return GenerationProtocol(family="openai-reasoning", answer_tokens=answer, max_tokens=cap, temperature=None,
                                  reasoning_effort=effort, sent=sent, notes=notes)
    if provider == "google" and (generation := gemini_generation(name)) is not None:
        level = None
        if generation == "2.5":
            if effort_flag:
                raise refuse("Gemini 2.5 takes --thinking-budget N (tokens), not --reasoning-effort")
            if budget is not None and budget == 0 and "pro" in name.lower():
                if budget_flag:
                    raise refuse("Gemini 2.5 Pro cannot turn thinking off (--thinking-budget 128 or more)")
                notes.append(f"thinking budget 0 ({origin}) not sent: Gemini 2.5 Pro cannot turn thinking off")
                budget = None
            budget = REASONING_ALLOWANCE if budget is None or budget < 0 else budget
        else:
            if effort_flag and budget_flag:
                raise refuse("give --reasoning-effort (thinking_level) or --thinking-budget, not both")
            if effort is not None:
                if effort not in GEMINI_LEVELS:
                    raise refuse(f"--reasoning-effort for Gemini 3 is its thinking_level: {', '.join(GEMINI_LEVELS)}")
                level, budget = effort, None
            elif not budget_flag:
                budget = None
            if temperature < 1:
                notes.append(f"temperature {temperature:g} sent; Google recommends Gemini 3's default 1.0 "
                             "(lower may loop)")
        room = budget if budget is not None else REASONING_ALLOWANCE
        cap = answer + room
        notes.append(f"max_output_tokens = {answer} answer + {room} thinking")
        sent = {"max_output_tokens": cap, "temperature": temperature}
        if budget is not None:
            sent["thinking_budget"] = budget
        if level is not None:
            sent["thinking_level"] = level
        return GenerationProtocol(family="gemini-thinking", answer_tokens=answer, max_tokens=cap,
                                  temperature=temperature, thinking_budget=budget, thinking_level=level, sent=sent,
                                  notes=notes)
    if provider == "anthropic":
        if effort_flag:
            raise refuse("Claude takes --thinking-budget N (extended thinking), not --reasoning-effort")
        if budget:
            if not claude_thinks(name):
                if budget_flag:
                    raise refuse("this Claude model has no extended thinking (--thinking-budget needs Claude 3.7 "
                                 "or 4.x)")
            elif budget < CLAUDE_MIN_BUDGET:
                raise refuse(f"--thinking-budget must be at least {CLAUDE_MIN_BUDGET} for Claude")
            else:
                no_temperature("Claude's extended thinking works only at temperature 1")
                cap = answer + budget
                notes.append(f"max_tokens = {answer} answer + {budget} thinking; a forced tool_choice is "
                             "incompatible with thinking")
                return GenerationProtocol(
                    family="claude-thinking", answer_tokens=answer, max_tokens=cap, temperature=None,
                    thinking_budget=budget, forced_tool_choice_ok=False, notes=notes,
                    sent={"max_tokens": cap, "thinking": {"type": "enabled", "budget_tokens": budget}})
        return GenerationProtocol(family="chat", answer_tokens=answer, max_tokens=answer, temperature=temperature,
                                  sent={"max_tokens": answer, "temperature": temperature}, notes=notes)
    if provider in ("openai", "google"):
        if effort_flag or budget_flag:
            raise refuse("not a reasoning model: --reasoning-effort and --thinking-budget do not apply")
        key = "max_output_tokens" if provider == "google" else "max_completion_tokens"
        return GenerationProtocol(family="chat", answer_tokens=answer, max_tokens=answer, temperature=temperature,
                                  sent={key: answer, "temperature": temperature}, notes=notes)
    # OpenAI-compatible servers (vllm/, openai-compatible/, local/) and plug-in providers
    if budget_flag:
        raise refuse("--thinking-budget is not supported for OpenAI-compatible servers (use --reasoning-effort "
                     "where the server takes one)")
    from agents.vllm_server import reasoning_parser_for

    family, cap = "chat", answer
    if provider != "local" and reasoning_parser_for(name) is not None:
        family, cap = "open-reasoning", answer + REASONING_ALLOWANCE
        notes.append(f"max_completion_tokens = {answer} answer + {REASONING_ALLOWANCE} reasoning")
    sent = {"max_completion_tokens": cap, **({"max_tokens": cap} if llama_like else {}), "temperature": temperature}
    if effort_flag:
        sent["reasoning_effort"] = effort
    return GenerationProtocol(family=family, answer_tokens=answer, max_tokens=cap, temperature=temperature,
                              reasoning_effort=effort if effort_flag else None, sent=sent, notes=notes)
