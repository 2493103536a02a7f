"""Records that tasks produce: samples, parsed answers and scores."""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, model_validator

TargetT_co = TypeVar("TargetT_co", covariant=True)
"""A task's gold type (a TypedDict per task, e.g. ``DistanceTarget``); a bare ``Sample`` is ``Sample[Any]``."""
ValueT_co = TypeVar("ValueT_co", covariant=True)
"""The type of a parsed answer (``float`` km, an option index, a TypedDict); a bare ``Parsed`` is ``Parsed[Any]``."""
V = TypeVar("V")
R = TypeVar("R", bound=BaseModel)

Split = Literal["train", "dev", "test"]
SPLITS: tuple[Split, ...] = ("train", "dev", "test")


def _unchecked(cls: type[R], values: dict[str, Any], fields_set: set[str]) -> R:
    """A record holding ``values`` as given: pydantic's ``model_construct`` (no validation, no copies) without its
    per-field alias lookups, for the models of this module (no aliases, extras or private attributes).
    ``fields_set`` is shared by every record built this way: ``model_copy`` copies it before adding to it."""
    record = cls.__new__(cls)
    object.__setattr__(record, "__dict__", values)
    object.__setattr__(record, "__pydantic_fields_set__", fields_set)
    object.__setattr__(record, "__pydantic_extra__", None)
    object.__setattr__(record, "__pydantic_private__", None)
    return record


class Message(BaseModel):
    """One chat message shown to the model."""

    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str

    @classmethod
    def unchecked(cls, role: Literal["system", "user", "assistant"], content: str) -> Message:
        """A message a task generator built, not validated (see :meth:`Sample.unchecked`)."""
        return _unchecked(cls, {"role": role, "content": content}, _MESSAGE_FIELDS)


class Sample(BaseModel, Generic[TargetT_co]):
    """One item of a task: what the model sees, the typed gold, and the inputs it was rendered from.

    Generic in its gold for the type checker only: tasks annotate ``Sample[TheirTarget]`` (under postponed
    annotations, never evaluated), and samples are built and loaded unparametrised, so ``target`` is stored and
    read back as the JSON it was given."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Stable across runs and conditions, e.g. gpsbench.distance/test/00042")
    task: str
    split: Split = "test"
    messages: tuple[Message, ...] = Field(description="What the model sees, system prompt first")
    target: TargetT_co = Field(description="Typed gold answer (JSON-serialisable)")
    choices: tuple[str, ...] | None = None
    payload: dict[str, Any] = Field(default_factory=dict, description="Structured inputs of the prompt")
    meta: dict[str, Any] = Field(default_factory=dict, description="Breakdown keys: continent, difficulty, ...")

    @property
    def prompt(self) -> str:
        """The last user message."""
        return next(m.content for m in reversed(self.messages) if m.role == "user")

    @classmethod
    def unchecked(cls, *, id: str, task: str, split: Split, messages: tuple[Message, ...], target: Any,
                  choices: tuple[str, ...] | None = None, payload: dict[str, Any] | None = None,
                  meta: dict[str, Any] | None = None) -> Sample[Any]:
        """A sample a task generator built from values it has just computed, kept as given (not validated, no
        copies of ``payload`` and ``meta``, one fields set shared by all): half the time of validating, and
        lighter (benchmarks/README.md section 3). Every generator's samples are validated by the tests
        (``tests/tasks/test_unchecked_samples.py``); samples read from files are validated (``Sample(...)``,
        ``model_validate``)."""
        return _unchecked(cls, {"id": id, "task": task, "split": split, "messages": messages, "target": target,
                                "choices": choices, "payload": {} if payload is None else payload,
                                "meta": {} if meta is None else meta}, _SAMPLE_FIELDS)


_MESSAGE_FIELDS: set[str] = set(Message.model_fields)
_SAMPLE_FIELDS: set[str] = set(Sample.model_fields)


AnswerStatus = Literal["answered", "hedged", "unlocated", "unparsed", "refused", "truncated", "blocked"]
"""What a reply committed to (the scoring policy, docs/scoring.md):

- ``answered``: exactly one candidate answer was found; only these can earn credit;
- ``hedged``: the reply commits to more than one candidate (two options, a list, a range, "X or Y", an
  alternative in brackets); never credited;
- ``unlocated``: the reply commits to no answer the reader can locate (no answer label, no box, no committed
  sentence, and more than the answer alone): never credited, never "wrong", and never the last line in sight;
- ``unparsed``: no answer could be found (including a literal echo of a placeholder or of a given parameter);
- ``refused``: the reply declines to answer (or the provider reports a refusal);
- ``truncated``: the last model call stopped at the output-token limit; never credited, whatever the text says;
- ``blocked``: a safety/content filter stopped the reply, or the prompt was blocked.

Tasks' parsers give the first four; ``truncated``, ``blocked`` and API-level refusals are decided where the parse
meets the trace (``evals.runner``), from how the model call ended.
"""
ANSWER_STATUSES: tuple[AnswerStatus, ...] = ("answered", "hedged", "unlocated", "unparsed", "refused", "truncated",
                                              "blocked")


class Parsed(BaseModel, Generic[ValueT_co]):
    """An answer extracted from the model's raw text, or why there is none (its status and reason).

    Generic in the answer's type for the type checker only, as :class:`Sample` is in its gold."""

    model_config = ConfigDict(frozen=True)

    raw: str
    ok: bool
    value: ValueT_co | None = Field(default=None, description="The answer when ok; a hedge's candidates otherwise")
    reason: str | None = Field(default=None, description="Why no answer was taken, when ok is False")
    status: AnswerStatus = "answered"

    @model_validator(mode="after")
    def _status_matches_ok(self) -> Parsed:
        if self.ok != (self.status == "answered"):
            if self.ok:
                raise ValueError(f"an ok parse must have status 'answered', not {self.status!r}")
            object.__setattr__(self, "status", "unparsed")
        return self

    @property
    def answer(self) -> ValueT_co:
        """The answer of an ok parse: what a scorer reads once it has checked ``ok``."""
        if not self.ok:
            raise ValueError(f"a {self.status} parse has no answer")
        return cast(ValueT_co, self.value)

    def no_answer(self) -> Parsed[Any]:
        """This parse, which has no answer, as a parse of any answer type (status, reason and candidates kept)."""
        if self.ok:
            raise ValueError("an ok parse has an answer")
        return self

    @staticmethod
    def success(raw: str, value: V) -> Parsed[V]:
        return Parsed(raw=raw, ok=True, value=value)

    @classmethod
    def failure(cls, raw: str, reason: str) -> Parsed:
        """No answer found (status ``unparsed``)."""
        return cls(raw=raw, ok=False, reason=reason, status="unparsed")

    @classmethod
    def hedged(cls, raw: str, reason: str, candidates: Any = None) -> Parsed:
        """The reply commits to several candidates (kept in ``value`` for the trace, never scored)."""
        return cls(raw=raw, ok=False, reason=reason, status="hedged", value=candidates)

    @classmethod
    def unlocated(cls, raw: str, reason: str) -> Parsed:
        """The reply commits to no answer the reader can locate (status ``unlocated``): never guessed."""
        return cls(raw=raw, ok=False, reason=reason, status="unlocated")

    @classmethod
    def refused(cls, raw: str, reason: str = "the reply declines to answer") -> Parsed:
        return cls(raw=raw, ok=False, reason=reason, status="refused")


class Score(BaseModel):
    """How good a parsed answer is: binary correctness, a value in [0, 1] and a continuous error."""

    model_config = ConfigDict(frozen=True)

    correct: bool
    value: float = Field(ge=0.0, le=1.0)
    error: float | None = Field(default=None, description="Continuous error in error_unit (km, degrees, ...)")
    error_unit: str | None = None
    explanation: str = ""
    parse_failed: bool = Field(default=False, description="No credited answer was taken: status is not 'answered'")
    status: AnswerStatus = "answered"

    @model_validator(mode="after")
    def _sync_status(self) -> Score:
        if self.parse_failed and self.status == "answered":
            object.__setattr__(self, "status", "unparsed")
        elif self.status != "answered":
            object.__setattr__(self, "parse_failed", True)
        if self.status != "answered" and (self.correct or self.value > 0):
            raise ValueError(f"a {self.status} answer cannot earn credit")
        return self

    @classmethod
    def unanswered(cls, parsed: Parsed, **extra: Any) -> Score:
        """The zero score of a parse without an answer, carrying its status and reason."""
        return cls(correct=False, value=0.0, status=parsed.status,
                   explanation=extra.pop("explanation", None) or parsed.reason or parsed.status, **extra)


class GoldCall(BaseModel):
    """The domain tool call that computes a sample's gold, from the same geocore call its generator makes
    (``Task.gold_call(sample)``; evals/funnel.py follows a tools sample's calls against it)."""

    model_config = ConfigDict(frozen=True)

    tools: tuple[str, ...] = Field(description="Tools whose result is the gold, the one over the generator's call "
                                   "first")
    args: dict[str, Any] = Field(description="That call's arguments for this sample")
    result_key: str = Field(description="Where the gold is in the tool's JSON result: a key, dotted for nesting "
                            "('cities.0.name')")
    gold: float | str = Field(description="The gold value as the tool returns it")
    tolerance: float = Field(default=0.0, description="A number within this of the gold is the gold")
    angle: bool = Field(default=False, description="Numbers are compass angles (differences wrap at 360)")
    symmetric: bool = Field(default=False, description="The two points' order does not change the gold")
    generic: tuple[str, ...] = Field(default=("calculator", "python"), description=(
        "Generic tools (tool sets of the same name) that can also compute the gold"))
