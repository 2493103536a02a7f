"""Judge an extracted GeoTemp answer against the gold: the clock time must match to the minute, and any day
the answer states for it must agree.

Day information is checked in this order, the first present deciding: a date (any of its readings; a stated
year must match too), else a relative day (``the next day``: day shift from the start date at l1), else a
weekday. A wrong weekday beside a right date is tolerated, as the paper's annotators did (Appendix D).
An answer with no day information is judged on its time alone.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, TypedDict

from tasks.geotemp.extract import TimeAnswer
from tasks.records import Parsed, Score

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _valid(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def day_verdict(answer: TimeAnswer, gold: date, start: date) -> tuple[bool | None, str, date | None]:
    """(agrees, what was checked, the answer's date if it fixes one); agrees is None when no day is stated."""
    if answer.dates:
        for year, month, day in answer.dates:
            if (year is None or year == gold.year) and (month, day) == (gold.month, gold.day):
                return True, f"date {gold.isoformat()}", gold
        y, m, d = answer.dates[0]
        said = _valid(y or gold.year, m, d)
        return False, f"date {y or '?'}-{m:02d}-{d:02d} is not {gold.isoformat()}", said
    if answer.day_shift is not None:
        want = (gold - start).days
        said = start + timedelta(days=answer.day_shift)
        return answer.day_shift == want, f"relative day {answer.day_shift:+d} (gold {want:+d})", said
    if answer.weekday is not None:
        ok = answer.weekday == gold.weekday()
        return ok, f"weekday {_WEEKDAYS[answer.weekday]} (gold {_WEEKDAYS[gold.weekday()]})", None
    return None, "no day stated", None


class DatetimeGold(TypedDict):
    """What :func:`judge_time` reads of a gold: the local target time, ``2023-06-19T10:34``."""

    datetime: str


def judge_time(parsed: Parsed[dict[str, Any]], target: DatetimeGold, start: str) -> Score:
    """Score a parsed time answer. ``error`` is in minutes: from the full datetime when the answer fixes a
    day, else the clock difference around the dial (at most 720)."""
    if not parsed.ok:
        return Score.unanswered(parsed, error_unit="minutes")
    answer = TimeAnswer.model_validate(parsed.answer)
    gold = datetime.fromisoformat(target["datetime"])
    start_date = datetime.fromisoformat(start).date()
    time_ok = (answer.hour, answer.minute) == (gold.hour, gold.minute)
    day_ok, checked, said = day_verdict(answer, gold.date(), start_date)
    if said is not None:
        given = datetime(said.year, said.month, said.day, answer.hour, answer.minute)
        error = abs((given - gold).total_seconds()) / 60.0
    else:
        diff = abs((answer.hour * 60 + answer.minute) - (gold.hour * 60 + gold.minute))
        error = float(min(diff, 1440 - diff))
    correct = time_ok and day_ok is not False
    return Score(correct=correct, value=1.0 if correct else 0.0, error=error, error_unit="minutes",
                 explanation=f"answer {answer.hour:02d}:{answer.minute:02d}, gold {gold:%H:%M} on {gold.date()}; "
                             f"{checked}")
