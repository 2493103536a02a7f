"""The embedded server's prompt rendering: template fixes, with no model needed."""

import json

import pytest

pytest.importorskip("jinja2")

from agents.llama_server import SINGLE_EXAMPLE, normalise_messages, render_prompt  # noqa: E402

TEMPLATE = (
    "{% if tools %}TOOLS:{% for t in tools %}{{ t | tojson }}{% endfor %}"
    "{{ \"\\n<tool_call>\\n{{\\\"name\\\": <function-name>, \\\"arguments\\\": <args-json-object>}}\\n</tool_call>\" }}"
    "{% endif %}{% for m in messages %}[{{ m.role }}]{{ m.content }}"
    "{% for c in m.tool_calls or [] %}<call>{{ c.function.arguments | tojson }}</call>{% endfor %}{% endfor %}"
)


def test_single_braces_in_call_example_and_arguments_not_double_encoded() -> None:
    tools = [{"type": "function", "function": {"name": "distance_km", "parameters": {}}}]
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "1", "type": "function", "function": {"name": "distance_km", "arguments": '{"lat1": 1}'}}]},
        {"role": "tool", "content": '{"distance_km": 5}', "tool_call_id": "1"},
    ]
    prompt = render_prompt(TEMPLATE, messages, tools)
    assert SINGLE_EXAMPLE in prompt and "{{" not in prompt
    assert '<call>{"lat1": 1}</call>' in prompt  # a dict rendered once, not a JSON string encoded twice


def test_normalise_null_content_and_strip_echoed_call_text() -> None:
    msgs = normalise_messages([
        {"role": "assistant", "content": 'x <tool_call>{"name": "a"}</tool_call>',
         "tool_calls": [{"id": "1", "function": {"name": "a", "arguments": "{}"}}]},
        {"role": "user", "content": None},
    ])
    assert msgs[0]["content"] == "x" and msgs[0]["tool_calls"][0]["function"]["arguments"] == {}
    assert msgs[1]["content"] == ""
    json.dumps(msgs)
