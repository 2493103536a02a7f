"""Records the evaluation loop stores: the run spec and one result per sample, condition and epoch."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.trace import TraceEvent
from tasks.records import Parsed, Score

# Spec fields that do not change what a run computes: they may differ between a run and its resumption.
OPERATIONAL_FIELDS = frozenset({"base_url", "api_key_env", "max_reply_bytes", "max_connections", "cache", "max_attempts", "retry_base_delay_s", "call_timeout_s",
                                "versions",
                                "git_revision"})


class RunSpec(BaseModel):
    """Everything that defines a run; two runs with equal identities are the same run (resume)."""

    model_config = ConfigDict(frozen=True)

    model: str
    base_url: str | None = None
    tasks: list[str]
    task_limits: dict[str, int | None] = Field(default_factory=dict, description="Samples per task (None: all)")
    conditions: list[str]
    split: str = "test"
    limit: int | None = None
    size: int | str | None = Field(default=None, description="Items generated per task ('paper' = paper size)")
    suite: str | None = Field(default=None, description="--suite: the paper protocol run (evals.suites)")
    dataset: str | None = Field(default=None, description="--dataset: released files for tasks that load them")
    dataset_kind: str | None = Field(default=None, description="--dataset-kind: kinds kept from --dataset")
    seed: int = Field(default=42, description="Dataset seed; model calls of epoch e send seed + e")
    epochs: int = 1
    temperature: float = 0.0
    max_tokens: int = 512
    max_steps: int = 6
    max_tool_calls: int = 8
    max_sample_tokens: int | None = None
    sample_timeout_s: float = 600.0
    call_timeout_s: float = Field(default=300.0, description="Seconds per model call attempt before it is retried")
    max_reply_bytes: int = Field(default=4 * 1024 * 1024, description="Cap of one reply body (longer: the call fails)")
    api_key_env: str | None = Field(default=None, description="Environment variable holding the key for base_url")
    max_connections: int = 1
    max_attempts: int = Field(default=6, description="Attempts per model call (rate limits, 5xx, timeouts)")
    retry_base_delay_s: float = Field(default=1.0, description="Backoff before retry n: up to base·2^(n-1) s")
    cache: bool = True
    versions: dict[str, str] = Field(default_factory=dict)
    git_revision: str | None = None
    dataset_hash: str | None = None

    def identity(self) -> dict[str, Any]:
        """The fields that decide the results (operational ones such as concurrency left out)."""
        return self.model_dump(exclude=set(OPERATIONAL_FIELDS))

    def differences(self, other: RunSpec) -> list[str]:
        """Names of identity fields whose values differ from ``other``'s."""
        a, b = self.identity(), other.identity()
        return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))


Status = Literal["ok", "error", "not_applicable"]


class SampleResult(BaseModel):
    """One sample answered under one condition (``not_applicable``: the condition does not apply to it)."""

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
    cost_usd: float | None = Field(default=None, description="Spent on this sample's calls (cache hits are free)")
    model_calls: int = 0
    tool_calls: int = 0
    tool_errors: int = Field(default=0, description="Tool calls that returned an error to the model")
    retries: int = Field(default=0, description="Model-call attempts retried (rate limits, 5xx, timeouts)")
    cache_hits: int = 0
    stop_reason: str | None = None
    status: Status = "ok"
    error: str | None = None
    attempts: int = Field(default=1, description="Times this sample was tried across runs and resumptions")
    meta: dict[str, Any] = Field(default_factory=dict)
