"""Cost accounting: USD per million tokens, from a small built-in table the user can override.

The built-in list prices were copied from the providers' public price pages (checked 2025); prices change,
so pass ``--prices FILE.toml`` to override or add models::

    ["openai/gpt-4o"]
    input = 2.50          # USD per 1M input tokens
    output = 10.00        # USD per 1M output tokens
    cached_input = 1.25   # optional: USD per 1M cached input tokens (default: input)

    ["vllm/*"]            # glob patterns work; the most specific (longest) match wins
    input = 0
    output = 0

Models served by this framework (``local/...``) cost 0; a model with no price has no cost (``None``).
Cached input tokens are part of the input tokens and are billed at ``cached_input``; calls answered from
the model-call cache cost nothing.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class Price(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0, description="USD per 1M input tokens")
    output: float = Field(ge=0, description="USD per 1M output tokens")
    cached_input: float | None = Field(default=None, ge=0, description="USD per 1M cached input tokens")


BUILTIN_PRICES: dict[str, Price] = {
    "local/*": Price(input=0, output=0),
    "openai/gpt-4o": Price(input=2.50, output=10.00, cached_input=1.25),
    "openai/gpt-4o-mini": Price(input=0.15, output=0.60, cached_input=0.075),
    "openai/gpt-4.1": Price(input=2.00, output=8.00, cached_input=0.50),
    "openai/gpt-4.1-mini": Price(input=0.40, output=1.60, cached_input=0.10),
    "openai/gpt-4.1-nano": Price(input=0.10, output=0.40, cached_input=0.025),
    "anthropic/claude-3-5-haiku-latest": Price(input=0.80, output=4.00, cached_input=0.08),
    "anthropic/claude-3-7-sonnet-latest": Price(input=3.00, output=15.00, cached_input=0.30),
    "anthropic/claude-sonnet-4-0": Price(input=3.00, output=15.00, cached_input=0.30),
    "google/gemini-2.0-flash": Price(input=0.10, output=0.40, cached_input=0.025),
    "google/gemini-2.5-flash": Price(input=0.30, output=2.50, cached_input=0.075),
}


class PriceError(ValueError):
    """A price file that cannot be read; the message names the file and the entry."""


class PriceTable:
    """Look up a model's price (exact name or glob) and cost a call."""

    def __init__(self, prices: dict[str, Price] | None = None) -> None:
        self.prices = dict(BUILTIN_PRICES if prices is None else prices)

    @classmethod
    def load(cls, path: Path | None) -> PriceTable:
        """The built-in table, overridden entry by entry by ``path`` (TOML) when given."""
        table = cls()
        if path is None:
            return table
        try:
            data = tomllib.loads(Path(path).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise PriceError(f"cannot read prices from {path}: {exc}") from None
        for model, entry in data.items():
            if not isinstance(entry, dict):
                raise PriceError(f"{path}: [{model!r}] must be a table with input and output prices")
            try:
                table.prices[model] = Price.model_validate(entry)
            except ValueError as exc:
                first = str(exc).splitlines()[1:2]
                raise PriceError(f"{path}: bad price for {model!r}: {' '.join(first) or exc}") from None
        return table

    def price(self, model: str) -> Price | None:
        if model in self.prices:
            return self.prices[model]
        matches = [p for p in self.prices if any(c in p for c in "*?[") and fnmatch.fnmatchcase(model, p)]
        return self.prices[max(matches, key=len)] if matches else None

    def cost(self, model: str, input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float | None:
        """USD for one call, or None when the model has no price."""
        p = self.price(model)
        if p is None:
            return None
        cached = min(cached_tokens, input_tokens)
        cached_rate = p.input if p.cached_input is None else p.cached_input
        return ((input_tokens - cached) * p.input + cached * cached_rate + output_tokens * p.output) / 1e6
