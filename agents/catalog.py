"""geogap's model table (``agents/data/models.toml``): what each hosted model takes.

A :class:`ModelCard` says whether a model reasons, which OpenAI API it is run on, how geogap's one effort scale
(:data:`EFFORT_SCALE`) is sent to it, and whether it takes a temperature, a seed and a forced tool choice.
:func:`card_for` finds a model's card (exact key, else the longest matching glob; dated ids and ``-latest`` take
their family's card); a model with no card gets None and the caller's conservative defaults.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MODEL_TABLE = Path(__file__).with_name("data") / "models.toml"
EFFORT_SCALE = ("none", "minimal", "low", "medium", "high", "max")
"""``--reasoning-effort``: one scale for every provider, resolved per model by its card's ``efforts``."""
_DATED = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|-\d{3}|-0)$")

Thinking = Literal["effort", "adaptive", "budget", "level", "gemini-budget", "switch", ""]


class ModelCard(BaseModel):
    """One row of the model table (field meanings: the table's header)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(description="The table key that matched (a model id or a glob)")
    reasoning: bool = False
    api: Literal["responses", "chat"] = "chat"
    chat_tools: Literal["yes", "effort", "never"] = "yes"
    thinking: Thinking = ""
    efforts: dict[str, str] = Field(default_factory=dict)
    default_effort: str | None = None
    temperature: bool = True
    seed: bool = True
    forced_tools: bool = True
    replay_reasoning: bool = False
    context: int | None = None
    max_output: int | None = None
    source: str = ""

    def effort_value(self, effort: str) -> str | None:
        """What the API gets for scale level ``effort``; None when the model cannot take it."""
        return self.efforts.get(effort)

    def describe(self) -> str:
        """One line for ``--list``: what the model takes."""
        parts = [f"{self.api} API" if self.key.startswith("openai/") else None,
                 f"{self.thinking or 'no reasoning control'}" + (f" ({self.takes()})" if self.efforts else ""),
                 f"API default effort {self.default_effort}" if self.default_effort else None,
                 None if self.temperature else "no temperature", None if self.seed else "no seed",
                 None if self.forced_tools else "no forced tool_choice with thinking",
                 f"context {self.context:,}" if self.context else None,
                 f"output {self.max_output:,}" if self.max_output else None]
        return ", ".join(p for p in parts if p)

    def takes(self) -> str:
        """The scale levels this model takes, in scale order, for a one-line refusal."""
        return ", ".join(e for e in EFFORT_SCALE if e in self.efforts) or "none (it has no reasoning control)"


@functools.cache
def model_table() -> dict[str, ModelCard]:
    """Every card of the table, by key."""
    data = tomllib.loads(MODEL_TABLE.read_text())
    return {key: ModelCard(key=key, **row) for key, row in data.items()}


def card_for(provider: str, name: str) -> ModelCard | None:
    """The card of ``provider/name``: its own row, else its family's (date or alias suffix dropped), each exact or
    by the most specific glob (case-insensitive); None when the table has no row for it."""
    table = model_table()
    model = f"{provider}/{name.removeprefix('models/')}".lower()
    for wanted in dict.fromkeys((model, _DATED.sub("", model))):
        if wanted in table:
            return table[wanted]
        matches = [k for k in table if any(c in k for c in "*?[") and fnmatch.fnmatchcase(wanted, k)]
        if matches:
            return table[max(matches, key=len)]
    return None
