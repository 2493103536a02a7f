"""The embedded server's chat handler and HTTP endpoint without a model: which tool_choice forces a call, the
grammar of that call, and the replies built from llama.cpp's text completion — through the real OpenAI client
(LangChain's ChatOpenAI) against the endpoint on loopback, with llama.cpp's replies replayed from a recording
(``data/xllamacpp_completions.json``: xllamacpp 2026.10.11549, Qwen2.5-Coder-1.5B Q4_K_M)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from langchain_core.messages import HumanMessage

pytest.importorskip("jinja2")

from agents.llama_server import (  # noqa: E402
    STOPS,
    call_schema,
    forced_tools,
    make_handler,
)
from agents.messages import usage  # noqa: E402
from agents.model_spec import create_chat_model  # noqa: E402
from agents.models import GenerationSettings  # noqa: E402
from tests.loopback import LoopbackServer  # noqa: E402

RECORDED = json.loads((Path(__file__).parent / "data" / "xllamacpp_completions.json").read_text())
TEMPLATE: str = RECORDED["template"]
FORCED, FORCED_AGAIN, AUTO, TOO_LONG = RECORDED["exchanges"]
DISTANCE: dict[str, Any] = {"type": "function", "function": {
    "name": "distance_km", "description": "Great-circle distance in km", "parameters": {
        "type": "object", "properties": {"lat1": {"type": "number"}, "lon1": {"type": "number"},
                                         "lat2": {"type": "number"}, "lon2": {"type": "number"}},
        "required": ["lat1", "lon1", "lat2", "lon2"]}}}
LOOKUP: dict[str, Any] = {"type": "function", "function": {
    "name": "lookup_city", "description": "Coordinates of a city", "parameters": {
        "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}
COMPARED = ("prompt", "grammar", "stop", "max_tokens", "cache_prompt")


class Replay:
    """Stands in for ``xllamacpp.Server.handle_completions``: each request must be the recorded one (the fields
    that decide the completion); the recorded reply comes back."""

    def __init__(self, *exchanges: dict[str, Any]) -> None:
        self.exchanges = list(exchanges)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        exchange = self.exchanges.pop(0)
        assert {k: request.get(k) for k in COMPARED} == {k: exchange["request"].get(k) for k in COMPARED}
        return dict(exchange["reply"])


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[LoopbackServer] = []

    def start(complete: Any) -> str:
        server = LoopbackServer(make_handler(TEMPLATE, complete, "xllamacpp test")).__enter__()
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.__exit__()


def chat(url: str, max_tokens: int) -> Any:
    return create_chat_model("local/qwen2.5-coder-1.5b", base_url=url, max_retries=0,
                             settings=GenerationSettings(max_tokens=max_tokens))


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


def test_the_call_schema_names_one_offered_tool_with_only_its_parameters() -> None:
    schema = call_schema([DISTANCE["function"], LOOKUP["function"]])
    first, second = schema["oneOf"]
    assert first["properties"]["name"] == {"const": "distance_km"} and second["properties"]["name"] == {
        "const": "lookup_city"}
    assert first["required"] == ["name", "arguments"] and first["additionalProperties"] is False
    arguments = second["properties"]["arguments"]
    assert arguments["required"] == ["name"] and arguments["additionalProperties"] is False
    assert call_schema([{"name": "now"}])["properties"]["arguments"] == {
        "type": "object", "properties": {}, "additionalProperties": False}


def test_each_tools_definitions_are_kept_apart() -> None:
    point = {"type": "object", "properties": {"lat": {"type": "number"}}}
    a = {"name": "a", "parameters": {"type": "object", "properties": {"p": {"$ref": "#/$defs/Point"}},
                                     "$defs": {"Point": point}}}
    b = {"name": "b", "parameters": {"type": "object", "properties": {"p": {"$ref": "#/definitions/Point"}},
                                     "definitions": {"Point": {"type": "string"}}}}
    schema = call_schema([a, b])
    assert schema["$defs"] == {"f0-Point": {**point, "additionalProperties": False},
                               "f1-Point": {"type": "string"}}
    refs = [c["properties"]["arguments"]["properties"]["p"]["$ref"] for c in schema["oneOf"]]
    assert refs == ["#/$defs/f0-Point", "#/$defs/f1-Point"]


def test_the_grammar_is_the_tool_call_tag_then_the_call_object() -> None:
    pytest.importorskip("xllamacpp")
    from agents.llama_server import forced_call_grammar

    grammar = forced_call_grammar([DISTANCE["function"], LOOKUP["function"]])
    header, start, call = grammar.splitlines()
    assert header == "%llguidance {}" and start == 'start: "<tool_call>\\n" call'
    assert call.startswith("call: %json ")
    assert json.loads(call.removeprefix("call: %json ")) == call_schema([DISTANCE["function"], LOOKUP["function"]])
    assert FORCED["request"]["grammar"] == forced_call_grammar([LOOKUP["function"]])  # what the model obeyed


def test_a_forced_call_through_the_openai_client(serve: Any) -> None:
    replay = Replay(FORCED, FORCED_AGAIN)
    model = chat(serve(replay), 40).bind_tools([DISTANCE, LOOKUP], tool_choice={
        "type": "function", "function": {"name": "lookup_city"}})
    question = [HumanMessage("How far is Oslo from Paris?")]
    first, second = model.invoke(question), model.invoke(question)
    for reply in (first, second):
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("lookup_city", {"name": "Oslo"})]
        assert reply.content == FORCED["reply"]["choices"][0]["text"]  # the raw text is kept
        assert reply.response_metadata["finish_reason"] == "tool_calls"
    assert usage(first) == (268, 20, 0) and usage(second) == (268, 20, 267)  # llama.cpp's reused prompt tokens
    assert replay.requests[0]["stop"] == STOPS and replay.requests[0]["temperature"] == 0.0


def test_an_unforced_reply_is_free_text(serve: Any) -> None:
    replay = Replay(AUTO)
    model = chat(serve(replay), 12).bind_tools([DISTANCE], tool_choice="auto")
    reply = model.invoke([HumanMessage("What is 2 + 3? Reply as FINAL ANSWER: <number>.")])
    assert reply.content == "FINAL ANSWER: 5" and reply.tool_calls == []
    assert "grammar" not in replay.requests[0] and usage(reply) == (223, 7, 154)
    assert replay.requests[0]["max_tokens"] == 12  # max_tokens honoured


def test_llama_cpp_refusals_reach_the_client_as_failed_calls(serve: Any) -> None:
    url = serve(Replay(TOO_LONG))
    with pytest.raises(openai.BadRequestError, match="exceeds the available context size"):
        chat(url, 5).invoke([HumanMessage("word " * 1100)])
    with httpx.Client() as client:
        streamed = client.post(f"{url}/chat/completions", json={"messages": [{"role": "user", "content": "x"}],
                                                                "stream": True})
        assert streamed.status_code == 400 and "streaming is not supported" in streamed.json()["error"]["message"]
        unknown = client.post(f"{url}/chat/completions", json={
            "messages": [{"role": "user", "content": "x"}], "tools": [DISTANCE],
            "tool_choice": {"type": "function", "function": {"name": "nope"}}})
        assert unknown.status_code == 400 and "not among the tools offered" in unknown.json()["error"]["message"]
        assert client.post(f"{url}/chat/completions", content=b"{").status_code == 400
        assert client.get(f"{url}/nowhere").status_code == 404


def test_models_and_text_completions(serve: Any) -> None:
    def complete(request: dict[str, Any]) -> dict[str, Any]:
        return TOO_LONG["reply"] if request["prompt"] == "long" else AUTO["reply"]

    url = serve(complete)
    with httpx.Client() as client:
        models = client.get(f"{url}/models")
        assert models.json()["data"][0]["id"] == "local"
        assert models.headers["server"].startswith("geogap-llama (xllamacpp test)")
        assert client.post(f"{url}/completions", json={"prompt": "p"}).json() == AUTO["reply"]
        assert client.post(f"{url}/completions", json={"prompt": "long"}).status_code == 400


def test_requests_are_answered_concurrently(serve: Any) -> None:
    """Each connection gets its own thread: two requests are in the engine at once (the engine's slots then run
    them in one batch). A server that answered one at a time would leave the barrier waiting and fail both."""
    barrier = threading.Barrier(2, timeout=60)

    def complete(request: dict[str, Any]) -> dict[str, Any]:
        barrier.wait()
        return AUTO["reply"]

    url = serve(complete)

    def ask(i: int) -> int:
        with httpx.Client(timeout=120) as client:
            body = {"messages": [{"role": "user", "content": f"q{i}"}], "max_tokens": 4}
            return client.post(f"{url}/chat/completions", json=body).status_code

    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(ask, range(2))) == [200, 200]
