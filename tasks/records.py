"""Records that tasks produce: samples, parsed answers and scores."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Split = Literal["train", "dev", "test"]
SPLITS: tuple[Split, ...] = ("train", "dev", "test")


class Message(BaseModel):
    """One chat message shown to the model."""

    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class Sample(BaseModel):
    """One item of a task: what the model sees, the typed gold, and the inputs it was rendered from."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Stable across runs and conditions, e.g. gpsbench.distance/test/00042")
    task: str
    split: Split = "test"
    messages: tuple[Message, ...] = Field(description="What the model sees, system prompt first")
    target: Any = Field(description="Typed gold answer (JSON-serialisable)")
    choices: tuple[str, ...] | None = None
    payload: dict[str, Any] = Field(default_factory=dict, description="Structured inputs of the prompt")
    meta: dict[str, Any] = Field(default_factory=dict, description="Breakdown keys: continent, difficulty, ...")

    @property
    def prompt(self) -> str:
        """The last user message."""
        return next(m.content for m in reversed(self.messages) if m.role == "user")


class Parsed(BaseModel):
    """An answer extracted from the model's raw text, or a parse failure with its reason."""

    model_config = ConfigDict(frozen=True)

    raw: str
    ok: bool
    value: Any = None
    reason: str | None = Field(default=None, description="Why parsing failed, when ok is False")

    @classmethod
    def success(cls, raw: str, value: Any) -> Parsed:
        return cls(raw=raw, ok=True, value=value)

    @classmethod
    def failure(cls, raw: str, reason: str) -> Parsed:
        return cls(raw=raw, ok=False, reason=reason)


class Score(BaseModel):
    """How good a parsed answer is: binary correctness, a value in [0, 1] and a continuous error."""

    model_config = ConfigDict(frozen=True)

    correct: bool
    value: float = Field(ge=0.0, le=1.0)
    error: float | None = Field(default=None, description="Continuous error in error_unit (km, degrees, ...)")
    error_unit: str | None = None
    explanation: str = ""
    parse_failed: bool = False
