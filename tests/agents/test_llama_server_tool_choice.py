"""The embedded server's handler without a model: which tool_choice forces a call, the grammar of that call, the
prompt tokens llama.cpp reuses, and the reply the handler builds from them (a fake Llama)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("jinja2")

from agents.llama_server import (  # noqa: E402
    forced_call_grammar,
    forced_tools,
    make_handler,
    reused_prompt_tokens,
)

DISTANCE: dict[str, Any] = {"type": "function", "function": {"name": "distance_km", "description": "d", "parameters": {
    "type": "object", "properties": {"lat1": {"type": "number"}, "lon1": {"type": "number"}},
    "required": ["lat1", "lon1"]}}}
LOOKUP: dict[str, Any] = {"type": "function", "function": {"name": "lookup_city", "parameters": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}
TEMPLATE = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}<assistant>"


@pytest.mark.parametrize(("choice", "names"), [
    ("required", ["distance_km", "lookup_city"]),
    ({"type": "function", "function": {"name": "lookup_city"}}, ["lookup_city"]),
    ("auto", []), ("none", []), (None, []),
])
def test_forced_tools(choice: Any, names: list[str]) -> None:
    assert [f["name"] for f in forced_tools([DISTANCE, LOOKUP], choice)] == names


def test_forced_tools_without_tools_or_with_an_unknown_name() -> None:
    assert forced_tools(None, "required") == [] and forced_tools([], "required") == []
    with pytest.raises(ValueError, match="'nope', which is not among the tools offered"):
        forced_tools([DISTANCE], {"type": "function", "function": {"name": "nope"}})


def test_grammar_is_the_tool_call_tag_then_one_call_object() -> None:
    grammar = forced_call_grammar([DISTANCE["function"], LOOKUP["function"]])
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    assert rules["root"] == '"<tool_call>\\n" call'
    assert rules["call"] == "call-0 | call-1"
    assert rules["call-0"] == '"{" space call-0-name-kv "," space call-0-arguments-kv "}" space'
    assert rules["call-0-name"] == r'"\"distance_km\""' and rules["call-1-name"] == r'"\"lookup_city\""'
    assert rules["call-0-arguments"] == ('"{" space call-0-arguments-lat1-kv "," space call-0-arguments-lon1-kv '
                                         '"}" space')
    assert rules["call-0-arguments-lat1-kv"] == r'"\"lat1\"" space ":" space number'
    assert rules["call-1-arguments-name-kv"] == r'"\"name\"" space ":" space string'
    assert rules["space"] == '" "?'  # no newlines inside the call

def test_grammar_of_a_tool_without_parameters_takes_an_empty_object() -> None:
    rules = dict(line.split(" ::= ", 1) for line in forced_call_grammar([{"name": "now"}]).splitlines())
    assert rules["call"] == '"{" space call-name-kv "," space call-arguments-kv "}" space'
    assert rules["call-arguments"] == '"{" space  "}" space'


@pytest.mark.parametrize(("held", "prompt", "live", "reused"), [
    ([], [1, 2, 3], True, 0),  # nothing evaluated yet
    ([1, 2, 3, 9], [1, 2, 3, 4, 5], True, 3),  # a common prefix, then the prompts differ
    ([7, 2, 3], [1, 2, 3], True, 0),
    ([1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5], True, 4),  # the last prompt and its reply: one token read again
    ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], True, 5),  # exactly this prompt, its logits live: nothing read
    ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], False, 4),
    ([1, 2], [1], True, 0),
])
def test_reused_prompt_tokens(held: list[int], prompt: list[int], live: bool, reused: int) -> None:
    assert reused_prompt_tokens(held, prompt, logits_live=live) == reused


class FakeInputIds(list[int]):
    def tolist(self) -> list[int]:
        return list(self)


class FakeLlama:
    """Tokenizes one token per character; remembers the last prompt like Llama's ``_input_ids``."""

    def __init__(self, reply: str, held: str = "") -> None:
        self.reply = reply
        self._input_ids = FakeInputIds(ord(c) for c in held)
        self._requires_eval = False
        self.calls: list[dict[str, Any]] = []

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        assert add_bos and special
        return [ord(c) for c in text.decode()]

    def create_completion(self, **kw: Any) -> dict[str, Any]:
        self.calls.append(kw)
        n = len(kw["prompt"])
        return {"choices": [{"text": self.reply, "finish_reason": "stop"}], "model": "m",
                "usage": {"prompt_tokens": n, "completion_tokens": 4, "total_tokens": n + 4}}


def test_handler_forces_a_call_and_reports_cached_tokens() -> None:
    call = '<tool_call>\n{"name": "lookup_city", "arguments": {"name": "Oslo"}}'
    llama = FakeLlama(call, held="<user>hi<assistant>X")
    handler = make_handler(TEMPLATE)
    out = handler(llama=llama, messages=[{"role": "user", "content": "hi there"}], tools=[DISTANCE, LOOKUP],
                  tool_choice={"type": "function", "function": {"name": "lookup_city"}})
    grammar = llama.calls[0]["grammar"]._grammar
    assert '"\\"lookup_city\\""' in grammar and "distance_km" not in grammar
    assert llama.calls[0]["prompt"] == [ord(c) for c in "<user>hi there<assistant>"]
    message = out["choices"][0]["message"]
    assert out["choices"][0]["finish_reason"] == "tool_calls"
    assert message["tool_calls"][0]["function"] == {"name": "lookup_city", "arguments": '{"name": "Oslo"}'}
    assert out["usage"] == {"prompt_tokens": 25, "completion_tokens": 4, "total_tokens": 29,
                            "prompt_tokens_details": {"cached_tokens": 8}}  # "<user>hi" is held


def test_handler_leaves_auto_unconstrained() -> None:
    llama = FakeLlama("FINAL ANSWER: 3")
    out = make_handler(TEMPLATE)(llama=llama, messages=[{"role": "user", "content": "q"}], tools=[DISTANCE],
                                 tool_choice="auto")
    assert llama.calls[0]["grammar"] is None and "tool_calls" not in out["choices"][0]["message"]
    assert out["usage"]["prompt_tokens_details"] == {"cached_tokens": 0}
    json.dumps(out)
