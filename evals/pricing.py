"""Cost accounting: USD per million tokens, from a built-in table the user can override.

The built-in list prices (``evals/data/prices.toml``, with its sources and the date they were read) cover the
current OpenAI (gpt-5.6 Sol/Terra/Luna, gpt-5.5, gpt-5.4 and its mini/nano/pro, gpt-5.2, gpt-5.1, gpt-5*, gpt-4.1*,
gpt-4o*, o1, o3, o3-mini, o4-mini), Anthropic (Claude Opus 4.7, 4.6, Sonnet 4.6, 4.5, 4.1, 4, 3.7, 3.5) and Google
(Gemini 3 / 3.1 Pro preview, 3 Flash preview, 2.5 Pro / Flash / Flash-Lite) models; what each model takes is in
geogap's model table (``agents/data/models.toml``). Prices change, so
pass ``--prices FILE.toml`` to override or add models::

    ["openai/gpt-4o"]
    input = 2.50          # USD per 1M input tokens
    output = 10.00        # USD per 1M output tokens
    cached_input = 1.25   # optional: USD per 1M cached input tokens (default: input)

    ["vllm/*"]            # glob patterns work; the most specific (longest) match wins
    input = 0
    output = 0

A dated or aliased id takes its family's price (:func:`family_id`: ``claude-sonnet-4-5-20250929``,
``gpt-4o-2024-08-06``, ``claude-3-7-sonnet-latest``, ``gemini-2.0-flash-001``). Models served by this framework
(``local/...``) cost 0; a model with no price has no cost (``None``): the run warns at its start and reports the
cost as unknown. Cached input tokens are part of the input tokens and are billed at ``cached_input``; calls
answered from the model-call cache cost nothing.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

BUILTIN_PRICE_FILE = Path(__file__).with_name("data") / "prices.toml"
TIER_FILE = Path(__file__).with_name("data") / "tiers.toml"
TIERS = ("list", "batch", "flex")
_DATED = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|-\d{3}|-0)$")


class Price(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0, description="USD per 1M input tokens")
    output: float = Field(ge=0, description="USD per 1M output tokens")
    cached_input: float | None = Field(default=None, ge=0, description="USD per 1M cached input tokens")


def family_id(model: str) -> str:
    """``model`` without a date or alias suffix: ``anthropic/claude-sonnet-4-5-20250929`` ->
    ``anthropic/claude-sonnet-4-5``, ``openai/gpt-4o-2024-08-06`` -> ``openai/gpt-4o``, ``anthropic/claude-sonnet-4-0``
    -> ``anthropic/claude-sonnet-4``."""
    return _DATED.sub("", model)


def _entries(data: dict[str, Any], path: Path) -> dict[str, Price]:
    out = {}
    for model, entry in data.items():
        if not isinstance(entry, dict):
            raise PriceError(f"{path}: [{model!r}] must be a table with input and output prices")
        try:
            out[model] = Price.model_validate(entry)
        except ValueError as exc:
            first = str(exc).splitlines()[1:2]
            raise PriceError(f"{path}: bad price for {model!r}: {' '.join(first) or exc}") from None
    return out


class PriceError(ValueError):
    """A price file that cannot be read; the message names the file and the entry."""


def _read(path: Path) -> dict[str, Price]:
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PriceError(f"cannot read prices from {path}: {exc}") from None
    return _entries(data, path)


BUILTIN_PRICES: dict[str, Price] = _read(BUILTIN_PRICE_FILE)


def _tier_table() -> dict[str, dict[str, float]]:
    return {pattern: {k: float(v) for k, v in entry.items()} for pattern, entry in
            tomllib.loads(TIER_FILE.read_text()).items()}


TIER_MULTIPLIERS: dict[str, dict[str, float]] = _tier_table()


def tier_multiplier(model: str, tier: str) -> float:
    """The share of the list price ``model`` costs on ``tier`` (``list``, ``batch``, ``flex``;
    ``evals/data/tiers.toml``, sources there); 1.0 where its provider has no such tier."""
    if tier not in TIERS:
        raise PriceError(f"unknown price tier {tier!r}: one of {', '.join(TIERS)}")
    for pattern, entry in TIER_MULTIPLIERS.items():
        if fnmatch.fnmatchcase(model, pattern):
            return entry.get(tier, 1.0)
    return 1.0


class PriceTable:
    """Look up a model's price (exact name or glob) and cost a call."""

    def __init__(self, prices: dict[str, Price] | None = None) -> None:
        self.prices = dict(BUILTIN_PRICES if prices is None else prices)

    @classmethod
    def load(cls, path: Path | None) -> PriceTable:
        """The built-in table, overridden entry by entry by ``path`` (TOML) when given."""
        table = cls()
        if path is not None:
            table.prices.update(_read(Path(path)))
        return table

    def price(self, model: str) -> Price | None:
        """The price of ``model``: its own entry, else its family's (:func:`family_id`), each exact or by the
        most specific glob; None when unknown."""
        for name in dict.fromkeys((model, family_id(model))):
            if name in self.prices:
                return self.prices[name]
            matches = [p for p in self.prices if any(c in p for c in "*?[") and fnmatch.fnmatchcase(name, p)]
            if matches:
                return self.prices[max(matches, key=len)]
        return None

    def at_tier(self, model: str, tier: str) -> PriceTable:
        """This table with ``model`` priced on ``tier`` (:func:`tier_multiplier` × its list price)."""
        table = PriceTable(self.prices)
        p, k = self.price(model), tier_multiplier(model, tier)
        if p is not None:
            table.prices[model] = Price(input=p.input * k, output=p.output * k,
                                        cached_input=None if p.cached_input is None else p.cached_input * k)
        return table

    def cost(self, model: str, input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float | None:
        """USD for one call, or None when the model has no price."""
        p = self.price(model)
        if p is None:
            return None
        cached = min(cached_tokens, input_tokens)
        cached_rate = p.input if p.cached_input is None else p.cached_input
        return ((input_tokens - cached) * p.input + cached * cached_rate + output_tokens * p.output) / 1e6
