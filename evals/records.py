"""Records the evaluation loop stores: the run spec and one result per sample, condition and epoch."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.trace import TraceEvent
from tasks.records import Parsed, Score


class RunSpec(BaseModel):
    """Everything that defines a run; two runs with equal specs are the same run (resume)."""

    model_config = ConfigDict(frozen=True)

    model: str
    base_url: str | None = None
    tasks: list[str]
    conditions: list[str]
    split: str = "test"
    limit: int | None = None
    seed: int = 42
    epochs: int = 1
    temperature: float = 0.0
    max_tokens: int = 512
    max_steps: int = 6
    max_tool_calls: int = 8
    sample_timeout_s: float = 600.0
    max_connections: int = 1
    versions: dict[str, str] = Field(default_factory=dict)
    git_revision: str | None = None
    dataset_hash: str | None = None


class SampleResult(BaseModel):
    """One sample answered under one condition."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    sample_id: str
    task: str
    condition: str
    epoch: int = 0
    model: str
    final_text: str = ""
    parsed: Parsed | None = None
    score: Score | None = None
    trace: list[TraceEvent] = Field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float | None = None
    tool_calls: int = 0
    stop_reason: str | None = None
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    attempts: int = 1
    meta: dict[str, Any] = Field(default_factory=dict)
