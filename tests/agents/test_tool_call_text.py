"""Recognising tool calls that a small model wrote as text."""

import pytest

from agents.tool_call_text import extract_tool_calls, strip_tool_calls

NAMES = ["distance_km", "initial_bearing"]


def test_block() -> None:
    text = '<tool_call>\n{"name": "distance_km", "arguments": {"lat1": 1, "lon1": 2}}\n</tool_call>'
    assert extract_tool_calls(text, NAMES) == [{"name": "distance_km", "arguments": {"lat1": 1, "lon1": 2}}]


def test_doubled_braces_and_unclosed_block() -> None:
    text = '<tool_call>\n{{"name": "distance_km", "arguments": {"lat1": 1}}}'
    assert extract_tool_calls(text, NAMES) == [{"name": "distance_km", "arguments": {"lat1": 1}}]


def test_fence_and_prose() -> None:
    fence = 'I will compute.\n```json\n{"name": "initial_bearing", "arguments": {"lat1": 0}}\n```\nDone.'
    assert extract_tool_calls(fence, NAMES)[0]["name"] == "initial_bearing"
    prose = 'Calling {"name": "distance_km", "arguments": {"lat1": 3}} now, then I answer.'
    assert extract_tool_calls(prose, NAMES) == [{"name": "distance_km", "arguments": {"lat1": 3}}]


def test_echo_with_result_and_unknown_names_are_not_calls() -> None:
    echo = '{"name": "distance_km", "arguments": {"lat1": 1}, "result": {"distance_km": 5}}'
    assert extract_tool_calls(echo, NAMES) == []
    assert extract_tool_calls('{"name": "other", "arguments": {}}', NAMES) == []
    assert extract_tool_calls("FINAL ANSWER: 12 km {not json}", NAMES) == []


def test_string_arguments_are_decoded() -> None:
    text = '<tool_call>{"name": "distance_km", "arguments": "{\\"lat1\\": 4}"}</tool_call>'
    assert extract_tool_calls(text, NAMES) == [{"name": "distance_km", "arguments": {"lat1": 4}}]


def test_strip() -> None:
    assert strip_tool_calls('ok <tool_call>{"name": "x"}</tool_call>', ["x"]) == "ok"


CALL = '{"name": "distance_km", "arguments": {"lat1": 40.7, "lon1": -74.5, "lat2": 10.7, "lon2": 78.7}}'


@pytest.mark.parametrize(("reply", "left"), [
    # the forms the embedded model wrote in the fixed suite's traces: each call was re-sent twice in the history,
    # once in the content and once as the template's <tool_call> block
    (f"<tools>\n{CALL}\n</tools>\nFINAL ANSWER: 1567.8 km", "FINAL ANSWER: 1567.8 km"),
    (f"{CALL}\nFINAL ANSWER: (6) Southwest", "FINAL ANSWER: (6) Southwest"),
    (f"I will compute it.\n```json\n{CALL}\n```\nThis will return the distance.",
     "I will compute it.\n\nThis will return the distance."),
    (f"<tool_call>\n{CALL}\n</tool_call>", ""),
])
def test_strip_removes_the_call_in_every_form_it_is_read_from(reply: str, left: str) -> None:
    assert extract_tool_calls(reply, NAMES)[0]["name"] == "distance_km"
    assert strip_tool_calls(reply, ["distance_km"]) == left


def test_strip_keeps_what_is_not_a_call() -> None:
    """An echo of a call with its result, JSON naming another tool and plain prose stay."""
    echo = '{"name": "distance_km", "arguments": {}, "result": 12}\nFINAL ANSWER: 12 km'
    assert strip_tool_calls(echo, ["distance_km"]) == echo
    assert strip_tool_calls(CALL, ["initial_bearing"]) == CALL
    assert strip_tool_calls("FINAL ANSWER: 5 km", ["distance_km"]) == "FINAL ANSWER: 5 km"
