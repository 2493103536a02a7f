"""GTR scoring: MCQ accuracy and ST-IoU (spatial hit × temporal IoU, averaged over segments).

Prediction tasks report both on one Score: ``correct`` = the camera choice (MCQ accuracy, evals' ``accuracy``),
``value`` = ST-IoU (evals' ``mean_score``).

ST-IoU (GTR-Bench §3): for a predicted segment (camera, interval) against the gold one,
``1(camera right) × |T_p ∩ T_gt| / |T_p ∪ T_gt|``. A trajectory is scored segment by segment in order and
averaged over ``max(len(pred), len(gold))`` segments, so missing and extra segments both cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from tasks.gtr.parsing import ForecastAnswer
from tasks.gtr.prompts import LETTERS
from tasks.records import Parsed, Sample, Score
from tasks.scorers import ChoiceScorer

Segment = tuple[str, tuple[float, float] | None]


class ChoiceGold(TypedDict):
    """What the scorers read of a GTR gold: the gold option's index, letter and text (each task adds keys)."""

    index: int
    letter: str
    answer: str


class ForecastGold(ChoiceGold):
    """A prediction gold: also the true segments, ``[[camera, [from, to]], ...]``, and cameras."""

    segments: list[list[Any]]
    cameras: list[str]


def interval_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Temporal IoU of two closed intervals (endpoints in either order). Two identical instants give 1."""
    a0, a1 = sorted((float(a[0]), float(a[1])))
    b0, b1 = sorted((float(b[0]), float(b[1])))
    inter = max(0.0, min(a1, b1) - max(a0, b0))
    union = (a1 - a0) + (b1 - b0) - inter
    if union <= 0.0:
        return 1.0 if (a0, a1) == (b0, b1) else 0.0
    return inter / union


def segment_st_iou(pred: Segment, gold: Segment) -> float:
    """1(camera right) × temporal IoU for one segment; a prediction without an interval scores 0."""
    if pred[0].upper() != gold[0].upper() or pred[1] is None or gold[1] is None:
        return 0.0
    return interval_iou(pred[1], gold[1])


def st_iou(pred: Sequence[Segment], gold: Sequence[Segment]) -> float:
    """ST-IoU of a predicted trajectory against the gold one, position by position."""
    n = max(len(pred), len(gold))
    if n == 0:
        return 1.0
    return sum(segment_st_iou(p, g) for p, g in zip(pred, gold, strict=False)) / n


def time_error_s(pred: Sequence[Segment], gold: Sequence[Segment]) -> float | None:
    """Mean absolute offset of interval midpoints over segments whose camera is right (None if none is)."""
    offs = [abs(sum(p[1]) / 2 - sum(g[1]) / 2) for p, g in zip(pred, gold, strict=False)
            if p[0].upper() == g[0].upper() and p[1] is not None and g[1] is not None]
    return sum(offs) / len(offs) if offs else None


def as_segments(raw: Sequence[Sequence[object]]) -> list[Segment]:
    """``[[cam, start, end], ...]`` or ``[[cam, [start, end]], ...]`` (JSON form) -> segments."""
    out: list[Segment] = []
    for item in raw:
        if len(item) == 3:
            cam, s, e = item
            out.append((str(cam), None if s is None else (float(s), float(e))))  # type: ignore[arg-type]
        else:
            cam, iv = item
            out.append((str(cam), None if iv is None else (float(iv[0]), float(iv[1]))))  # type: ignore[index]
    return out


score_mcq = ChoiceScorer(gold_key="index", answer_key="choice", letters=LETTERS)
"""GTR accuracy (:class:`tasks.scorers.ChoiceScorer`): the parsed option index against the gold index."""


def score_forecast(parsed: Parsed[ForecastAnswer], sample: Sample[ForecastGold]) -> Score:
    """A prediction answer scored both ways (GTR-Bench Table 3):

    - ``Score.correct`` is the camera choice (MCQ accuracy): the chosen option, by letter or by naming exactly
      its cameras, is the gold one;
    - ``Score.value`` is the ST-IoU of the stated segments against the gold ones (camera hit × temporal IoU,
      averaged over segments): 0 for cameras named without an interval, tiny for a right camera with a huge
      interval such as [0, 100000];
    - ``error`` is the mean offset (s) of interval midpoints over segments whose camera is right.

    The explanation carries both as ``mcq_correct=<bool> st_iou=<value>``.
    """
    gold_idx = int(sample.target["index"])
    if not parsed.ok:
        return Score.unanswered(parsed, error_unit="s")
    gold = as_segments(sample.target["segments"])
    pred = as_segments(parsed.answer["segments"])
    value = min(1.0, max(0.0, st_iou(pred, gold)))
    choice = parsed.answer.get("choice")
    correct = choice == gold_idx
    picked = LETTERS[choice] if choice is not None else "none of the options"
    return Score(correct=correct, value=value, error=time_error_s(pred, gold), error_unit="s",
                 explanation=f"mcq_correct={correct} st_iou={value:.3f}; camera choice {picked}, gold "
                             f"{LETTERS[gold_idx]}")
