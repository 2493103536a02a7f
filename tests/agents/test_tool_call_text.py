"""Recognising tool calls that a small model wrote as text."""

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
    assert strip_tool_calls('ok <tool_call>{"name": "x"}</tool_call>') == "ok"
