"""The structured answer channel's typed answers: one pydantic model per answer kind, built per sample.

Under ``--answer-channel structured`` the model gives its final answer as the arguments of a ``final_answer``
tool whose schema is :func:`answer_model` of the task's :attr:`~tasks.base.GeneratedTask.answer_kind` (option
labels and units are the sample's own enums). :func:`read_structured` validates the arguments, renders them as
the committed ``FINAL ANSWER:`` line the task's own parser reads (:func:`render`) and returns that parser's
result: the scorer is the same in both channels, and a string field that hedges ("C or D") is still hedged.
Arguments that are missing or do not validate are ``unlocated``, never guessed (docs/scoring.md).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from tasks.records import Parsed, Sample

AnswerKind = Literal["option", "quantity", "number", "coordinate", "time", "interval", "text"]
"""What a task's answer is: one option label; a value and its unit; a number; a (latitude, longitude) pair; a
time (and date); an option with camera intervals (GTR forecasts); free text (a place, a list, anything else)."""

OptionLabels = Literal["letters", "numbers", "choices"] | tuple[str, ...]
"""How a task's options are named: ``letters`` A, B, ... over ``sample.choices``; ``numbers`` the option numbers
of ``sample.payload["options"]`` (STBench); ``choices`` the choice texts; or fixed words (Yes, No)."""

WORKING = Field(default=None, description="Optional brief working before committing (not scored)")


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    working: str | None = WORKING


class NumberAnswer(_Answer):
    value: float = Field(description="The number")


class CoordinateAnswer(_Answer):
    latitude: float = Field(ge=-90, le=90, description="Latitude in decimal degrees, negative south")
    longitude: float = Field(ge=-180, le=180, description="Longitude in decimal degrees, negative west")


class TimeAnswer(_Answer):
    time: str = Field(description="The clock time, e.g. 07:00 PM")
    date: str | None = Field(default=None, description="The weekday and date, e.g. Thursday, March 23, 2023")


class TextAnswer(_Answer):
    answer: str = Field(description="The answer, in the form the question asks for")


class Segment(BaseModel):
    model_config = ConfigDict(extra="forbid")

    camera: str = Field(description="The camera, e.g. C437")
    start: float = Field(description="When the target enters its view (seconds)")
    end: float = Field(description="When it leaves (seconds)")


def option_labels(how: OptionLabels, sample: Sample) -> tuple[str, ...]:
    """The labels of ``sample``'s options named ``how``."""
    if isinstance(how, tuple):
        return how
    if how == "numbers":
        return tuple(str(n) for n, _ in sample.payload.get("options") or ())
    choices = sample.choices or ()
    return tuple(choices) if how == "choices" else tuple(chr(ord("A") + i) for i in range(len(choices)))


def enum(values: tuple[str, ...]) -> Any:
    """``Literal[values]``: a JSON-schema enum of these strings."""
    return Literal.__getitem__(values)


def answer_model(task: Any, sample: Sample) -> type[BaseModel]:
    """The pydantic model of ``task``'s final answer on ``sample`` (its kind, option labels and units)."""
    kind: AnswerKind = getattr(task, "answer_kind", "text")
    if kind in ("option", "interval"):
        labels = option_labels(getattr(task, "answer_options", "letters"), sample)
        fields: dict[str, Any] = {"option": (enum(labels), Field(description="The chosen option"))}
        if kind == "interval":
            fields["segments"] = (list[Segment], Field(description="Each camera on the way and its interval"))
        return create_model("OptionAnswer", __base__=_Answer, **fields)
    if kind == "quantity":
        units: tuple[str, ...] = task.answer_units
        unit: Any = (enum(units), Field(description="The unit"))
        return create_model("QuantityAnswer", __base__=NumberAnswer, unit=unit)
    fixed: dict[str, type[BaseModel]] = {"number": NumberAnswer, "coordinate": CoordinateAnswer, "time": TimeAnswer,
                                         "text": TextAnswer}
    return fixed[kind]


def _num(value: float) -> str:
    return f"{value:.10f}".rstrip("0").rstrip(".") if value == value and abs(value) != float("inf") else str(value)


def render(task: Any, answer: BaseModel) -> str:
    """The committed line the task's parser reads for a validated ``answer`` (coordinates labelled, so the
    named fields fix the axis order whatever order the prompt asks for)."""
    a = answer.model_dump()
    kind: AnswerKind = getattr(task, "answer_kind", "text")
    if kind == "option":
        body = a["option"]
    elif kind == "interval":
        body = "; ".join([a["option"], *(f"{s['camera']} [{_num(s['start'])}, {_num(s['end'])}]"
                                         for s in a["segments"])])
    elif kind == "quantity":
        body = f"{_num(a['value'])} {a['unit']}"
    elif kind == "number":
        body = _num(a["value"]) + "".join(getattr(task, "answer_units", ())[:1])
    elif kind == "coordinate":
        body = f"latitude {_num(a['latitude'])}, longitude {_num(a['longitude'])}"
    elif kind == "time":
        body = a["time"] + (f", {a['date']}" if a.get("date") else "")
    else:
        body = a["answer"]
    return f"FINAL ANSWER: {body}"


def read_structured(task: Any, sample: Sample, args: dict[str, Any] | list[dict[str, Any]] | None,
                    why_missing: str) -> Parsed:
    """The parse of a ``final_answer`` call's ``args`` on ``sample``: rendered and read by the task's own parser;
    ``unlocated`` (with ``why_missing``, or the validation errors) when there are none or they do not validate;
    ``hedged`` when the reply made several calls that commit to different answers (a list of ``args``)."""
    if args is None:
        return Parsed.unlocated("", why_missing)
    if isinstance(args, list):
        return Parsed.hedged(str(args)[:500], f"{len(args)} final_answer calls with different answers", args)
    try:
        answer = answer_model(task, sample).model_validate(args)
    except ValidationError as exc:
        shown = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()[:3])
        return Parsed.unlocated(str(args), f"final_answer arguments do not validate: {shown}")
    return task.parse(render(task, answer), sample)  # type: ignore[no-any-return]
