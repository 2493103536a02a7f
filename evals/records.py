"""Records the evaluation loop stores: the run spec and one result per sample, condition and epoch."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.final_answer import AnswerChannel
from agents.protocol import GenerationProtocol
from agents.trace import TraceEvent
from evals.options import OPERATIONAL_FIELDS, RunSettings
from tasks.records import Parsed, Score


class RunSpec(RunSettings):
    """Everything that defines a run; two runs with equal identities are the same run (resume). The options it
    stores as given come from :class:`evals.options.RunSettings`; these are resolved by the run."""

    model_config = ConfigDict(frozen=True)

    tasks: list[str]
    task_limits: dict[str, int | None] = Field(default_factory=dict, description="Samples per task (None: all)")
    conditions: list[str]
    size: int | str | None = Field(default=None, description="Items generated per task ('paper' = paper size)")
    max_connections: int = Field(default=1, description="Concurrent samples (resolved from the provider)")
    cache: bool = Field(default=True, description="Whether model calls go through the call cache")
    task_versions: dict[str, str] = Field(default_factory=dict, description="Per task, its version (a run "
                                          "written before tasks had versions stores none)")
    versions: dict[str, str] = Field(default_factory=dict)
    git_revision: str | None = None
    dataset_hash: str | None = None
    generation: dict[str, GenerationProtocol] = Field(
        default_factory=dict, description="Per task, the generation protocol every call sends (agents.protocol)")
    mcp: dict[str, dict[str, Any]] = Field(default_factory=dict, description="MCP tool sets used: how each server "
                                           "is launched, its name and version, its tools' digest (evals.mcp)")

    def identity(self) -> dict[str, Any]:
        """The fields that decide the results (operational ones such as concurrency left out)."""
        return self.model_dump(exclude=set(OPERATIONAL_FIELDS))

    def differences(self, other: RunSpec) -> list[str]:
        """Names of identity fields whose values differ from ``other``'s."""
        a, b = self.identity(), other.identity()
        return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))


Status = Literal["ok", "error", "not_applicable"]


class JudgeReading(BaseModel):
    """What ``--judge`` made of a reply the rules left unlocated (evals/judge.py)."""

    model_config = ConfigDict(frozen=True)

    model: str = Field(description="The judge, provider/name")
    verdict: Literal["answer", "none", "hedge", "unread"] = Field(
        description="answer: it located the answer (scored by the task); none: no answer; hedge: the reply leaves "
                    "its answer open; unread: the task's parser could not read the judge's reply")
    said: str = Field(description="The judge's reply (first 300 characters)")
    note: str = ""


FUNNEL_STEPS = ("called_tool", "right_tool", "right_args", "tool_returned_gold", "answer_matches_tool", "credited")
"""The tool-use funnel's steps, in order (evals/funnel.py)."""


class FunnelStep(BaseModel):
    """How far one tools sample got down the tool-use funnel (:data:`FUNNEL_STEPS`) and why it stopped."""

    passed: int = Field(ge=0, le=len(FUNNEL_STEPS), description="Steps passed in order (6: credited)")
    failed: str | None = Field(default=None, description="The first step failed; None when all passed")
    reason: str | None = Field(default=None, description=(
        "Why: no_tool, wrong_tool, latlon_swapped, points_swapped, radians, wrong_zone, wrong_time, wrong_args, "
        "tool_error, wrong_result, ignored_result, hedged/unparsed/... (the answer status), not_credited"))
    tool: str | None = Field(default=None, description="The tool of the call followed (the last one that got "
                             "furthest)")


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
    judge: JudgeReading | None = Field(default=None, description="The judge's reading where --judge read this "
                                       "reply (only replies the rules left unlocated); verdict 'answer': judged")
    funnel: FunnelStep | None = Field(default=None, description="Tools samples of tasks that declare their gold "
                                      "call: the tool-use funnel (evals/funnel.py)")
    answer_channel: AnswerChannel = Field(default="text", description="The channel the answer was read from: the "
                                          "reply's text, or its final_answer call (structured)")
    structured_answer: dict[str, Any] | list[dict[str, Any]] | None = Field(
        default=None, description="The final_answer call's arguments as the model sent them (structured channel); "
                                  "a list when it sent several different answers (hedged)")
