"""Tool-result fidelity on hand-made traces: agree, disagree and not comparable, per answer kind."""

from __future__ import annotations

from typing import Any

import pytest

from agents.trace import ModelCallEvent, ToolCallEvent, TraceEvent
from evals.fidelity import check, of_result
from evals.records import SampleResult
from tasks.records import Message, Parsed, Sample, Score

DIRECTIONS = ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest")
BEARING = '{"bearing_deg": 91.2, "compass_8": "E", "compass_16": "E"}'


def sample(choices: tuple[str, ...] | None = None, **payload: Any) -> Sample:
    return Sample(id="t/test/00000", task="t", messages=(Message(role="user", content="?"),), target={},
                  choices=choices, payload=payload)


def direction_sample() -> Sample:
    """STBench's form: options numbered from 1 in the payload, their labels as choices."""
    return sample(DIRECTIONS, options=[[i + 1, d] for i, d in enumerate(DIRECTIONS)])


def tool(result: str, status: str = "ok") -> ToolCallEvent:
    return ToolCallEvent(tool="t", status=status, result=result if status == "ok" else None,
                         error=None if status == "ok" else "boom")


def result(value: Any, trace: list[TraceEvent], *, status: str = "ok", parsed_ok: bool = True,
           tool_calls: int | None = None, tool_errors: int = 0) -> SampleResult:
    parsed = Parsed.success("raw", value) if parsed_ok else Parsed.failure("raw", "no answer")
    score = Score(correct=False, value=0.0) if parsed_ok else Score.unanswered(parsed)
    calls = sum(1 for e in trace if isinstance(e, ToolCallEvent)) if tool_calls is None else tool_calls
    return SampleResult(run_id="r", sample_id="t/test/00000", task="t", condition="tools", model="m", parsed=parsed,
                        score=score, trace=trace, status=status, tool_calls=calls, tool_errors=tool_errors)


def test_direction_the_issue_case_tool_east_answer_north_disagrees() -> None:
    s = direction_sample()
    assert check(1, [BEARING], s) == "disagree"  # option 1: North; the tool said E
    assert check(3, [BEARING], s) == "agree"  # option 3: East, the compass abbreviation's name
    assert check(2, [BEARING], s) == "disagree"  # Northeast is not E


def test_distance_within_tolerance_agrees() -> None:
    km = ['{"distance_km": 1250.0, "distance_miles": 776.7}']
    assert check(1240.0, km, None) == "agree"  # 10 km off: within 1 % of 1250
    assert check(1237.0, km, None) == "disagree"  # 13 km off: beyond 1 % (12.5 km)
    assert check(776.5, km, None) == "agree"  # the miles leaf matches too (some leaf)
    assert check(3.4, ['{"distance_km": 3.0}'], None) == "agree"  # small numbers: 0.5 absolute
    assert check(3.6, ['{"distance_km": 3.0}'], None) == "disagree"


def test_multiple_choice_letter_compares_the_options_text() -> None:
    s = sample(("Paris", "Lyon", "Nice"))  # GPSBench's form: the parsed answer is a 0-based index
    nearest = '{"reference": null, "cities": [{"name": "lyon", "distance_km": 3.2}, {"name": "Saint-Étienne"}]}'
    assert check(1, [nearest], s) == "agree"
    assert check(0, [nearest], s) == "disagree"
    assert check({"choice": 1, "segments": []}, [nearest], s) == "agree"  # GTR's form
    assert check({"choice": None, "segments": []}, [nearest], s) == "not_comparable"
    assert check(7, [nearest], s) == "not_comparable"  # no such option
    assert check(1, [nearest], None) == "not_comparable"  # an int without its sample: option or number?
    counts = sample(("1 time", "2 times"), options=[[1, "1 time"], [2, "2 times"]])
    assert check(2, ['{"count": 2, "pairs": [[1, 3], [2, 4]]}'], counts) == "agree"  # the text's leading number


def test_non_json_tool_result_is_not_comparable() -> None:
    assert check(42.0, ["The distance is 42 km"], None) == "not_comparable"
    # nothing matches the JSON result and the other may hold the value: not comparable either
    assert check(42.0, ["The distance is 42 km", '{"distance_km": 10.0}'], None) == "not_comparable"
    assert check(10.0, ["The distance is 42 km", '{"distance_km": 10.0}'], None) == "agree"


def test_answers_without_a_leaf_of_their_kind_or_nested_are_not_comparable() -> None:
    zone = '{"zone": "America/Panama", "matched": "Panama City", "country_code": "PA"}'
    assert check(-300, [zone], sample()) == "not_comparable"  # an offset answered where the tool gave a zone only
    time = {"hour": 14, "minute": 30, "dates": [[None, 3, 10]], "weekday": None}
    assert check(time, ['{"local_time": "2024-03-10 14:30"}'], sample()) == "not_comparable"
    assert check(True, ['{}'], None) == "not_comparable"


def test_offsets_pairs_texts_and_yes_no() -> None:
    offset = ['{"zone": "America/Panama", "utc_offset": "UTC-5", "utc_offset_hours": -5.0, "is_dst": false}']
    assert check(-300, offset, sample()) == "agree"  # GeoTemp's probe answers minutes: UTC-5 is -300
    assert check(300, offset, sample()) == "disagree"
    assert check(-330, ['{"utc_offset": "UTC-5:30"}'], sample()) == "agree"
    pair = {"lat": 48.8566, "lon": 2.3522, "dms": False, "lon_first": False}  # flags skipped
    assert check(pair, ['{"lat": 48.85, "lon": 2.35}'], None) == "agree"
    assert check({**pair, "lon": 12.0}, ['{"lat": 48.85, "lon": 2.35}'], None) == "disagree"
    assert check([48.85, 2.35], ['{"point": [48.8, 2.3]}'], None) == "agree"
    assert check("north east", ['{"compass_8": "NE"}'], None) == "agree"
    assert check("North-Northeast", ['{"compass_16": "NNE"}'], None) == "agree"
    assert check("yes", ['{"inside": true}'], None) == "agree"
    assert check("no", ['{"inside": true}'], None) == "disagree"


def test_which_results_are_checked() -> None:
    ok = tool('{"distance_km": 10.0}')
    assert of_result(result(10.0, [ModelCallEvent(), ok]), None) == "agree"
    assert of_result(result(20.0, [ok, tool("", "error")], tool_errors=1), None) == "disagree"
    assert of_result(result(10.0, [tool("", "error")], tool_errors=1), None) is None  # no successful tool result
    assert of_result(result(10.0, [ModelCallEvent()]), None) is None  # no tool call
    assert of_result(result(10.0, [ok], parsed_ok=False), None) is None  # the answer did not parse
    assert of_result(result(10.0, [ok], status="error"), None) is None  # failed: never enters
    # read without its trace: tool calls succeeded, what they returned is unknown
    assert of_result(result(10.0, [], tool_calls=2, tool_errors=1), None) == "not_comparable"
    assert of_result(result(10.0, [], tool_calls=1, tool_errors=1), None) is None


@pytest.mark.parametrize("leaf", ['"E"', '{"a": [{"b": "e"}]}', '["x", "E"]'])
def test_leaves_are_found_at_any_depth(leaf: str) -> None:
    assert check(3, [leaf], direction_sample()) == "agree"
