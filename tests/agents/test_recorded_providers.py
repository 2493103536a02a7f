"""Each provider through its real client library (langchain-openai / openai, langchain-anthropic / anthropic,
langchain-google-genai / google-genai) against a loopback stand-in that replays recorded real API replies
(``tests/agents/recorded``: VCR cassettes of pydantic-ai and published API bodies). The protocol comes from the run
spec as a run makes it (:func:`evals.specs.make_spec`), so what these tests see on the wire is what a run sends."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from agents.messages import text_of, to_dict
from agents.model_call import ModelCaller, RetryPolicy
from agents.protocol import REASONING_ALLOWANCE
from evals.endpoints import SpecEndpointFactory
from evals.options import RunConfig
from evals.records import RunSpec
from evals.specs import make_spec
from tests.loopback import LoopbackServer, QuietHandler

RECORDED = Path(__file__).with_name("recorded")


def recorded(name: str) -> tuple[int, dict[str, Any]]:
    data = json.loads((RECORDED / name).read_text())
    return data["status"], data["body"]


class Replay:
    """A loopback API stand-in: answers each POST with the next recorded reply and keeps what it was sent."""

    def __init__(self, *replies: str) -> None:
        self.replies = [recorded(r) for r in replies]
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        replay = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                with replay.lock:
                    replay.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in
                                                                           self.headers.items()}, "body": body})
                    status, reply = replay.replies.pop(0) if len(replay.replies) > 1 else replay.replies[0]
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = LoopbackServer(Handler)
        # a client closing its kept-alive connection is not an error of the stand-in
        self.server.httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]

    def __enter__(self) -> Replay:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    @property
    def root(self) -> str:
        return self.server.url.removesuffix("/v1")


def spec_for(model: str, **options: Any) -> RunSpec:
    return make_spec(RunConfig(model=model, tasks="gpsbench.distance", conditions="intrinsic", **options))


def answer(spec: RunSpec, base_url: str, caller: ModelCaller | None = None) -> AIMessage:
    endpoint = SpecEndpointFactory(spec, base_url)(0)
    outcome = asyncio.run((caller or endpoint.caller).call(endpoint.model, [HumanMessage("What is the capital?")]))
    return outcome.reply


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("OPENAI_API_KEY", "sk-openai-secret"), ("ANTHROPIC_API_KEY", "sk-ant-secret"),
                        ("GOOGLE_API_KEY", "AIza-google-secret")):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)


def test_gpt5_at_default_settings_gets_room_to_reason_and_no_temperature() -> None:
    spec = spec_for("openai/gpt-5", openai_api="chat")  # the recorded reply is a chat completion
    protocol = spec.generation["gpsbench.distance"]
    with Replay("openai_gpt-5.json") as api:
        reply = answer(spec, api.server.url)
    body = api.requests[0]["body"]
    assert body["max_completion_tokens"] == 512 + REASONING_ALLOWANCE and "max_tokens" not in body
    assert "temperature" not in body  # the API takes only its own; 0 would be silently dropped by LangChain
    assert protocol.sent == {"api": "chat", "max_completion_tokens": 512 + REASONING_ALLOWANCE}
    assert protocol.temperature is None
    assert reply.content == "Paris."
    assert not spec.cache  # sampled at temperature 1: not cached by default


@pytest.mark.parametrize("model", ["openai/o3-mini", "openai/o1", "openai/o4-mini-2025-04-16"])
def test_o_series_runs_with_max_completion_tokens(model: str) -> None:
    spec = spec_for(model, reasoning_effort="low", openai_api="chat")
    with Replay("openai_o3-mini.json") as api:
        reply = answer(spec, api.server.url)
    body = api.requests[0]["body"]
    assert "temperature" not in body and body["reasoning_effort"] == "low"
    assert body["max_completion_tokens"] == spec.generation["gpsbench.distance"].max_tokens == 512 + REASONING_ALLOWANCE
    assert reply.content == "Hello there! How can I help you today?"
    assert reply.usage_metadata is not None and reply.usage_metadata["output_tokens"] == 87


def test_openai_key_stays_off_a_foreign_base_url() -> None:
    with Replay("openai_o3-mini.json") as api:
        answer(spec_for("openai/o3-mini", openai_api="chat"), api.server.url)
    assert api.requests[0]["headers"]["authorization"] == "Bearer not-needed"


def test_anthropic_key_goes_only_to_anthropic_unless_named() -> None:
    with Replay("anthropic_claude-3-7-sonnet_thinking.json") as api:
        answer(spec_for("anthropic/claude-3-7-sonnet-latest"), api.root)
        answer(spec_for("anthropic/claude-3-7-sonnet-latest", api_key_env="ANTHROPIC_API_KEY"), api.root)
    sent = [" ".join(r["headers"].values()) for r in api.requests]  # x-api-key or Authorization, by SDK version
    assert "sk-ant-secret" not in sent[0] and "not-needed" in sent[0]
    assert "sk-ant-secret" in sent[1]  # named by --api-key-env


def test_claude_thinking_sends_its_budget_and_keeps_thinking_out_of_the_answer() -> None:
    spec = spec_for("anthropic/claude-3-7-sonnet-latest", thinking_budget=1024)
    with Replay("anthropic_claude-3-7-sonnet_thinking.json") as api:
        reply = answer(spec, api.root)
    body = api.requests[0]["body"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert body["max_tokens"] == 512 + 1024 > body["thinking"]["budget_tokens"] and "temperature" not in body
    assert text_of(reply).startswith("# How to Cross the Street Safely") and "basic question" not in text_of(reply)


def test_gemini_thinking_model_budget_and_base_url_honoured() -> None:
    spec = spec_for("google/gemini-2.5-pro")
    with Replay("gemini-2.5-pro.json") as api:
        reply = answer(spec, api.root)
    request = api.requests[0]
    # the stand-in, not Google (the API version in the path is the library's choice)
    assert request["path"].startswith("/v1") and request["path"].endswith("/models/gemini-2.5-pro:generateContent")
    assert request["headers"].get("x-goog-api-key") == "not-needed"  # GOOGLE_API_KEY stays with Google
    config = request["body"]["generationConfig"]
    thinking = config["thinkingConfig"]  # google-genai writes this one in snake case; the API reads both
    assert thinking.get("thinkingBudget", thinking.get("thinking_budget")) == REASONING_ALLOWANCE
    assert config["maxOutputTokens"] == 512 + REASONING_ALLOWANCE and config["temperature"] == 0.0
    assert text_of(reply) == "The capital of France is **Paris**."


def test_gemini_429_is_retried_after_the_bodys_retry_delay() -> None:
    spec = spec_for("google/gemini-2.5-pro")
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    caller = ModelCaller(RetryPolicy(max_attempts=3, base_delay_s=0.0), sleep=sleep)
    with Replay("gemini_429_resource_exhausted.json", "gemini-2.5-pro.json") as api:
        reply = answer(spec, api.root, caller)
    assert len(api.requests) == 2 and text_of(reply) == "The capital of France is **Paris**."
    assert len(waits) == 1 and 51.0 <= waits[0] <= 51.0 * 1.1  # RetryInfo retryDelay "51s", plus <= 10 % jitter


def test_open_reasoning_model_keeps_reasoning_out_of_the_answer() -> None:
    spec = spec_for("openai-compatible/Qwen/Qwen3-235B-A22B-Thinking-2507", base_url="http://127.0.0.1:9/v1")
    assert spec.generation["gpsbench.distance"].family == "open-reasoning"
    with Replay("qwen3-thinking_reasoning_content.json") as api:
        reply = answer(spec, api.server.url)
    assert api.requests[0]["body"]["max_completion_tokens"] == 512 + REASONING_ALLOWANCE
    assert text_of(reply).startswith("Hello! 😊") and "Okay, the user" not in text_of(reply)
    assert to_dict(reply)["reasoning"].startswith("Okay, the user said")  # kept for the trace


def test_a_reasoning_model_runs_end_to_end_and_its_run_records_what_was_sent(tmp_path: Path,
                                                                              capsys: pytest.CaptureFixture[str],
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from evals.compare import main

    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    with Replay("openai_gpt-5.json") as api:
        rc = main(["--model", "openai/gpt-5", "--base-url", api.server.url, "--tasks", "gpsbench.distance",
                   "--limit", "1", "--condition", "intrinsic", "--openai-api", "chat", "--output", str(tmp_path / "run")])
    err = " ".join(capsys.readouterr().err.split())
    assert rc == 0 and len(api.requests) == 1
    body = api.requests[0]["body"]
    assert body["max_completion_tokens"] == 512 + REASONING_ALLOWANCE and "temperature" not in body
    assert f"generation: api chat, max_completion_tokens {512 + REASONING_ALLOWANCE} [openai-reasoning]" in err
    assert "temperature 0 (geogap's default) not sent" in err
    spec = json.loads((tmp_path / "run" / "results.json").read_text())["meta"]["spec"]
    protocol = spec["generation"]["gpsbench.distance"]
    assert protocol["sent"] == {"api": "chat", "max_completion_tokens": 512 + REASONING_ALLOWANCE}
    assert protocol["temperature"] is None
    assert spec["cache"] is False  # sampled at the model's own temperature: no cached replies by default


def test_an_unreachable_gemini_endpoint_is_a_connection_failure() -> None:
    """google-genai's async client fails with aiohttp's error: it must count as a connection failure, so that a
    run against a dead endpoint stops after a few samples instead of failing every one."""
    from agents.model_call import classify
    from agents.server_process import free_port

    endpoint = SpecEndpointFactory(spec_for("google/gemini-2.5-pro"), f"http://127.0.0.1:{free_port()}")(0)
    with pytest.raises(Exception) as caught:  # noqa: PT011 - whatever the SDK raises is what is classified
        asyncio.run(endpoint.model.ainvoke([HumanMessage("hi")]))
    assert classify(caught.value).label == "connection"
