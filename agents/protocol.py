"""The generation protocol: what every model call of a run sends, resolved per model from what the run asks.

A run asks for an answer budget (``--max-tokens``), a temperature, a reasoning effort on geogap's one scale
(``--reasoning-effort none|minimal|low|medium|high|max``, :data:`agents.catalog.EFFORT_SCALE`), a thinking budget
and, for OpenAI, an API (``--openai-api responses|chat``), from its flags or, where a flag is not given, from a
paper suite's settings (``evals.suites``) or geogap's defaults (512 tokens, temperature 0).
:func:`resolve_protocol` turns that into what the model takes, from its card in the model table
(:mod:`agents.catalog`), not from name patterns:

- **OpenAI reasoning models** (gpt-5 family, o-series): the Responses API by default (``store: false``,
  ``include: ["reasoning.encrypted_content"]``, ``reasoning.effort``, ``max_output_tokens``; no ``seed``: the
  Responses API has none), chat completions with ``--openai-api chat`` (where the model takes ``tools`` with an
  effort there: :attr:`GenerationProtocol.tools_refusal` otherwise). Output cap = answer budget +
  :data:`REASONING_ALLOWANCE`; no temperature (a ``--temperature`` other than 1 is refused).
- **Claude**: adaptive thinking (``thinking: {type: adaptive}`` + ``output_config.effort``) for models that have
  it (Opus 4.6+), ``budget_tokens`` for older ones (from ``--thinking-budget`` or the effort scale); thinking
  means no temperature and no forced ``tool_choice`` (:attr:`GenerationProtocol.forced_tool_choice_ok`).
- **Gemini**: ``thinking_level`` for 3.x (only the levels the model takes), ``thinking_budget`` for 2.5;
  ``max_output_tokens`` = answer budget + thinking room.
- **Open models** on OpenAI-compatible servers: Qwen3-style hybrid thinking gets
  ``chat_template_kwargs: {enable_thinking: ...}`` from the effort (none = off, high = on); reasoning models
  (:func:`agents.vllm_server.reasoning_parser_for`) get answer budget + :data:`REASONING_ALLOWANCE`.
- A hosted model with no card gets conservative defaults and a note saying so: OpenAI ones the Responses API with
  no temperature and no seed, Claude ones no temperature.

The resolved :class:`GenerationProtocol` is stored in the run spec per task (and so in ``results.json``), is part
of the model-call cache key (``sent``) and is printed at the start of a run; ``sent`` is what goes on the wire.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import EFFORT_SCALE, ModelCard, card_for

if TYPE_CHECKING:
    from agents.models import GenerationSettings

DEFAULT_ANSWER_TOKENS = 512
DEFAULT_TEMPERATURE = 0.0
REASONING_ALLOWANCE = 16_384
"""Output tokens a reasoning model gets for its reasoning on top of the answer budget (unless a thinking budget is
given): the 512-token default gave gpt-5-mini and gemini-2.5-pro empty replies."""
OPENAI_APIS = ("responses", "chat")
RESPONSES_INCLUDE = ["reasoning.encrypted_content"]
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
    openai_api: str | None = None  # --openai-api: responses or chat (OpenAI models only)


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
    api: str | None = Field(default=None, description="OpenAI: responses or chat (completions)")
    thinking: dict[str, Any] | None = Field(default=None, description="Claude's thinking parameter, as sent")
    enable_thinking: bool | None = Field(default=None, description="chat_template_kwargs.enable_thinking sent")
    replay_reasoning: bool = Field(default=False, description="reasoning_content sent back on assistant messages")
    seed_ok: bool = Field(default=True, description="Whether the model takes a seed (else none is sent)")
    tools_refusal: str | None = Field(default=None, description="Why tool conditions cannot run (None: they can)")
    card: str | None = Field(default=None, description="The model-table row that decided it (None: no row)")
    sent: dict[str, Any] = Field(description="The generation parameters of every request, as the API names them")
    notes: list[str] = Field(default_factory=list, description="Where it departs from what was asked, and why")

    def settings(self, *, timeout_s: float, seed: int | None) -> GenerationSettings:
        """The chat-model settings that send this protocol."""
        from agents.models import GenerationSettings

        return GenerationSettings(temperature=self.temperature, max_tokens=self.max_tokens, timeout_s=timeout_s,
                                  seed=seed if self.seed_ok else None, reasoning_effort=self.reasoning_effort,
                                  thinking_budget=self.thinking_budget, thinking_level=self.thinking_level,
                                  api=self.api, thinking=self.thinking, enable_thinking=self.enable_thinking,
                                  replay_reasoning=self.replay_reasoning)

    def tag(self) -> str:
        """A few words for a table's title: the API, effort and thinking sent ("" for a plain chat model)."""
        parts = [f"{self.api} API" if self.api == "responses" else None,
                 f"effort {self.reasoning_effort}" if self.reasoning_effort else None,
                 f"thinking {self.thinking['type']}" if self.thinking else None,
                 f"thinking_level {self.thinking_level}" if self.thinking_level else None,
                 f"thinking_budget {self.thinking_budget}" if self.thinking_budget and not self.thinking else None,
                 None if self.enable_thinking is None else f"enable_thinking {str(self.enable_thinking).lower()}"]
        return ", ".join(p for p in parts if p)

    def describe(self) -> str:
        """One line: the parameters sent, then the notes."""
        params = ", ".join(f"{k} {v}" for k, v in self.sent.items())
        return f"{params} [{self.family}]" + "".join(f"; {n}" for n in self.notes)


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


@dataclass
class _Ask:
    """One resolution: the merged settings, where they came from, and the notes gathered so far."""

    model: str
    name: str
    answer: int
    temperature: float
    temp_flag: bool
    temp_source: str
    effort: str | None
    effort_flag: bool
    budget: int | None
    budget_flag: bool
    origin: str
    card: ModelCard | None
    notes: list[str]

    def refuse(self, message: str) -> ProtocolError:
        return ProtocolError(f"{self.model}: {message}")

    def no_temperature(self, why: str) -> None:
        if self.temp_flag and self.temperature != 1:
            raise self.refuse(f"--temperature {self.temperature:g} cannot be sent ({why}); drop --temperature")
        self.notes.append(f"temperature {self.temperature:g} ({self.temp_source}) not sent: {why}")

    def scale_value(self) -> str | None:
        """The card's value for the asked effort; a flag the model cannot take is refused, a suite's default it
        cannot take is dropped with a note; None when no effort is asked or it is dropped."""
        if self.effort is None:
            return None
        if self.effort not in EFFORT_SCALE:
            raise self.refuse(f"--reasoning-effort must be one of {', '.join(EFFORT_SCALE)}")
        if self.card is None:
            return self.effort
        value = self.card.effort_value(self.effort)
        if value is not None:
            return value
        if self.effort_flag:
            raise self.refuse(f"cannot take --reasoning-effort {self.effort}; it takes {self.card.takes()}")
        self.notes.append(f"reasoning effort {self.effort} ({self.origin}) not sent: the model takes "
                          f"{self.card.takes()}")
        return None

    def unknown(self) -> None:
        self.notes.append("not in geogap's model table (agents/data/models.toml): conservative defaults")

    def protocol(self, family: str, cap: int, sent: dict[str, Any], **fields: Any) -> GenerationProtocol:
        fields.setdefault("temperature", None)
        return GenerationProtocol(family=family, answer_tokens=self.answer, max_tokens=cap, sent=sent,
                                  notes=self.notes, card=self.card.key if self.card else None, **fields)


def _openai(ask: _Ask, api_flag: str | None) -> GenerationProtocol:
    card = ask.card
    if card is not None and not card.reasoning:
        if api_flag == "responses":
            raise ask.refuse("--openai-api responses is for reasoning models; this one runs on chat completions")
        return _chat(ask, "max_completion_tokens", seed_ok=card.seed, api="chat")
    if card is None:
        ask.unknown()
    if ask.budget_flag:
        raise ask.refuse("OpenAI models take --reasoning-effort, not --thinking-budget"
                         + (f" ({card.takes()})" if card else ""))
    api = api_flag or (card.api if card else "responses")
    effort = ask.scale_value()
    ask.no_temperature("OpenAI reasoning models sample only at their own temperature 1")
    cap = ask.answer + REASONING_ALLOWANCE
    ask.notes.append(f"output cap = {ask.answer} answer + {REASONING_ALLOWANCE} reasoning")
    tools_refusal = None
    if card is not None and api == "chat":
        effort_on = effort not in (None, "none") or (effort is None and card.default_effort not in (None, "none"))
        if card.chat_tools == "never" or (card.chat_tools == "effort" and effort_on):
            tools_refusal = (f"{ask.model} answers HTTP 400 on chat completions for tools"
                             + ("" if card.chat_tools == "never" else " with a reasoning effort")
                             + " (openai/openai-openapi #541); drop --openai-api chat"
                             + ("" if card.chat_tools == "never" else " or use --reasoning-effort none"))
    if api == "responses":
        sent: dict[str, Any] = {"api": "responses", "max_output_tokens": cap, "store": False,
                                "include": RESPONSES_INCLUDE}
        if effort is not None:
            sent["reasoning"] = {"effort": effort}
        ask.notes.append("no seed sent (the Responses API takes none)")
    else:
        sent = {"api": "chat", "max_completion_tokens": cap}
        if effort is not None:
            sent["reasoning_effort"] = effort
    return ask.protocol("openai-reasoning", cap, sent, reasoning_effort=effort, api=api,
                        seed_ok=api == "chat" and (card is None or card.seed), tools_refusal=tools_refusal)


def _anthropic(ask: _Ask) -> GenerationProtocol:
    card = ask.card
    if card is None:
        ask.unknown()
    mode = card.thinking if card else ("budget" if claude_thinks(ask.name) else "adaptive")
    effort = ask.scale_value() if ask.effort_flag else None  # a suite's effort is for GPT-5 (suites.py)
    if mode == "adaptive":
        if ask.budget_flag:
            raise ask.refuse("this Claude model thinks adaptively: give --reasoning-effort "
                             f"({card.takes() if card else 'low, medium, high, max'}), not --thinking-budget")
        if effort == "" or (card is None and not ask.effort_flag):
            if card is None or not card.temperature:
                ask.no_temperature("this Claude model takes only its default temperature")
                return ask.protocol("chat", ask.answer, {"max_tokens": ask.answer}, seed_ok=False)
            return _chat(ask, "max_tokens", seed_ok=False)
        ask.no_temperature("Claude's thinking works only at temperature 1")
        cap = ask.answer + REASONING_ALLOWANCE
        ask.notes.append(f"max_tokens = {ask.answer} answer + {REASONING_ALLOWANCE} thinking; a forced tool_choice "
                         "is incompatible with thinking")
        thinking = {"type": "adaptive"}
        sent: dict[str, Any] = {"max_tokens": cap, "thinking": thinking}
        if effort:
            sent["output_config"] = {"effort": effort}
        return ask.protocol("claude-adaptive", cap, sent, thinking=thinking, reasoning_effort=effort or None,
                            forced_tool_choice_ok=False, seed_ok=False)
    if ask.effort_flag and ask.budget_flag:
        raise ask.refuse("give --reasoning-effort or --thinking-budget, not both")
    budget = int(effort) if effort else (None if effort == "" else ask.budget)
    if budget and mode != "budget":
        if ask.budget_flag:
            raise ask.refuse("this Claude model has no extended thinking (--thinking-budget needs Claude 3.7 or 4.x)")
        budget = None
    if budget and budget < CLAUDE_MIN_BUDGET:
        raise ask.refuse(f"--thinking-budget must be at least {CLAUDE_MIN_BUDGET} for Claude")
    if not budget:
        return _chat(ask, "max_tokens", seed_ok=False)
    ask.no_temperature("Claude's extended thinking works only at temperature 1")
    cap = ask.answer + budget
    ask.notes.append(f"max_tokens = {ask.answer} answer + {budget} thinking; a forced tool_choice is incompatible "
                     "with thinking")
    budget_thinking: dict[str, Any] = {"type": "enabled", "budget_tokens": budget}
    return ask.protocol("claude-thinking", cap, {"max_tokens": cap, "thinking": budget_thinking}, thinking_budget=budget,
                        thinking=budget_thinking, forced_tool_choice_ok=False, seed_ok=False)


def _gemini(ask: _Ask) -> GenerationProtocol:
    card = ask.card
    generation = gemini_generation(ask.name)
    if card is None:
        ask.unknown()
    if (card is not None and not card.reasoning) or (card is None and generation is None):
        return _chat(ask, "max_output_tokens", seed_ok=False)
    mode = card.thinking if card else ("level" if generation == "3" else "gemini-budget")
    budget, level = ask.budget, None
    if mode == "gemini-budget":
        if ask.effort_flag and ask.budget_flag:
            raise ask.refuse("give --reasoning-effort or --thinking-budget, not both")
        if ask.effort_flag:  # a suite's effort is for GPT-5 (suites.py); its thinking budget is for Gemini
            value = ask.scale_value()
            budget = int(value) if value is not None else None
        if budget == 0 and (card is None or "none" not in card.efforts):
            if ask.budget_flag or ask.effort_flag:
                raise ask.refuse("this Gemini model cannot turn thinking off (--thinking-budget 128 or more)")
            ask.notes.append(f"thinking budget 0 ({ask.origin}) not sent: this Gemini model cannot turn thinking off")
            budget = None
        budget = REASONING_ALLOWANCE if budget is None or budget < 0 else budget
    else:
        if ask.effort_flag and ask.budget_flag:
            raise ask.refuse("give --reasoning-effort (thinking_level) or --thinking-budget, not both")
        effort = ask.scale_value()
        if effort is not None and (ask.effort_flag or not ask.budget_flag):
            level, budget = effort, None
        elif not ask.budget_flag:
            budget = None
        if ask.temperature < 1:
            ask.notes.append(f"temperature {ask.temperature:g} sent; Google recommends Gemini 3's default 1.0 "
                             "(lower may loop)")
    room = budget if budget is not None else REASONING_ALLOWANCE
    cap = ask.answer + room
    ask.notes.append(f"max_output_tokens = {ask.answer} answer + {room} thinking")
    sent: dict[str, Any] = {"max_output_tokens": cap, "temperature": ask.temperature}
    if budget is not None:
        sent["thinking_budget"] = budget
    if level is not None:
        sent["thinking_level"] = level
    return ask.protocol("gemini-thinking", cap, sent, temperature=ask.temperature, thinking_budget=budget,
                        thinking_level=level, seed_ok=False)


def _chat(ask: _Ask, cap_key: str, *, seed_ok: bool, api: str | None = None) -> GenerationProtocol:
    """A model without reasoning control: the answer budget and the temperature as asked."""
    if ask.effort_flag and ask.effort != "none" or ask.budget_flag:
        takes = f" (it takes {ask.card.takes()})" if ask.card and ask.card.efforts else ""
        raise ask.refuse(f"not a reasoning model: --reasoning-effort and --thinking-budget do not apply{takes}")
    sent: dict[str, Any] = {cap_key: ask.answer, "temperature": ask.temperature}
    return ask.protocol("chat", ask.answer, sent, temperature=ask.temperature, seed_ok=seed_ok, api=api)


def _open(ask: _Ask, provider: str, llama_like: bool) -> GenerationProtocol:
    """OpenAI-compatible servers (vllm/, openai-compatible/, local/) and plug-in providers."""
    if ask.budget_flag:
        raise ask.refuse("--thinking-budget is not supported for OpenAI-compatible servers (use --reasoning-effort "
                         "where the server takes one)")
    from agents.vllm_server import reasoning_parser_for

    card = ask.card if provider != "local" else None
    switch = card is not None and card.thinking == "switch"
    enable = None
    if switch and ask.effort_flag:
        enable = ask.scale_value() == "true"
    family, cap = "chat", ask.answer
    thinks = provider != "local" and (reasoning_parser_for(ask.name) is not None or switch)
    if thinks and enable is not False:
        family, cap = "open-reasoning", ask.answer + REASONING_ALLOWANCE
        ask.notes.append(f"max_completion_tokens = {ask.answer} answer + {REASONING_ALLOWANCE} reasoning")
    sent: dict[str, Any] = {"max_completion_tokens": cap, **({"max_tokens": cap} if llama_like else {}),
                            "temperature": ask.temperature}
    effort = None
    if enable is not None:
        sent["chat_template_kwargs"] = {"enable_thinking": enable}
    elif ask.effort_flag:
        effort = ask.effort
        sent["reasoning_effort"] = effort
    replay = card is not None and card.replay_reasoning
    if replay:
        ask.notes.append("reasoning_content sent back on assistant messages (the server requires it with tools)")
    return ask.protocol(family, cap, sent, temperature=ask.temperature, reasoning_effort=effort,
                        enable_thinking=enable, replay_reasoning=replay)


def resolve_protocol(provider: str, name: str, flags: Asked = Asked(), defaults: Asked = Asked(),
                     *, llama_like: bool = False) -> GenerationProtocol:
    """The protocol for ``provider/name``: ``flags`` over ``defaults`` over geogap's defaults, adapted to what the
    model takes (its card in :mod:`agents.catalog`; module docstring). Raises :class:`ProtocolError` (one line)
    for a flag the model cannot honour."""
    answer, _ = _pick(flags.max_tokens, defaults.max_tokens, DEFAULT_ANSWER_TOKENS)
    temperature, temp_flag = _pick(flags.temperature, defaults.temperature, DEFAULT_TEMPERATURE)
    origin = defaults.source.split(":")[0]  # "GPSBench App. D" of "GPSBench App. D: temperature 0, ..."
    temp_source = "--temperature" if temp_flag else (origin if defaults.temperature is not None
                                                      else "geogap's default")
    effort, effort_flag = _pick(flags.reasoning_effort, defaults.reasoning_effort, None)
    budget, budget_flag = _pick(flags.thinking_budget, defaults.thinking_budget, None)
    ask = _Ask(f"{provider}/{name}", name, answer, temperature, temp_flag, temp_source, effort, effort_flag, budget,
               budget_flag, origin, card_for(provider, name), [])
    if flags.openai_api is not None:
        if provider != "openai":
            raise ask.refuse("--openai-api applies to openai/ models only")
        if flags.openai_api not in OPENAI_APIS:
            raise ask.refuse(f"--openai-api must be one of {', '.join(OPENAI_APIS)}")
    if provider == "openai":
        return _openai(ask, flags.openai_api)
    if provider == "anthropic":
        return _anthropic(ask)
    if provider == "google":
        return _gemini(ask)
    return _open(ask, provider, llama_like)
