"""``--service-tier flex`` for openai/: sent as ``service_tier``, a 429 "Resource Unavailable" retried with backoff as
OpenAI's flex guide documents (https://developers.openai.com/api/docs/guides/flex-processing: slower replies,
occasional 429s, a 15-minute client timeout), priced at flex prices; through the real openai client."""

from __future__ import annotations

import json
import threading

import pytest
from loopback import LoopbackServer, QuietHandler

from evals.compare import main
from evals.run_reader import RunReader
from tasks import get_task

MODEL = "openai/gpt-4.1-mini"  # a chat-completions model (agents/data/models.toml): the stand-in speaks that API


class FlexWorld:
    def __init__(self, busy: int) -> None:
        self.busy = busy  # the first `busy` requests are answered 429
        self.bodies: list[dict] = []
        self.lock = threading.Lock()
        self.gold = {s.messages[-1].content: s.target["km"] for s in get_task("gpsbench.distance").samples(limit=3)}

    def take(self, handler: QuietHandler) -> tuple[dict, bool]:
        """Read and record one request body; whether it is to be answered 429."""
        body = json.loads(handler.rfile.read(int(handler.headers["Content-Length"])))
        with self.lock:
            self.bodies.append(body)
            busy = self.busy > 0
            self.busy -= busy
        return body, busy


def handler(world: FlexWorld) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def do_POST(self) -> None:  # noqa: N802
            body, busy = world.take(self)
            if busy:
                data = json.dumps({"error": {"message": "Resource Unavailable", "type": "resource_unavailable",
                                             "param": None, "code": "resource_unavailable"}}).encode()
                self.send_response(429)
            else:
                km = world.gold[body["messages"][-1]["content"]]
                data = json.dumps({
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
                    "service_tier": "flex",
                    "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                                 "message": {"role": "assistant", "content": f"FINAL ANSWER: {km:.1f} km"}}],
                    "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}}).encode()
                self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def run(tmp_path, url: str, *extra: str) -> int:
    prices = tmp_path / "prices.toml"
    prices.write_text(f'["{MODEL}"]\ninput = 1.0\noutput = 10.0\n')
    return main(["--model", MODEL, "--base-url", url, "--api-key-env", "OPENAI_API_KEY", "--tasks",
                 "gpsbench.distance", "--limit", "3", "--conditions", "intrinsic", "--max-connections", "1",
                 "--retry-delay", "0.01", "--prices", str(prices), "--output", str(tmp_path / "run"), *extra])


def test_flex_is_sent_retried_on_429_and_priced_at_flex(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    world = FlexWorld(busy=2)
    with LoopbackServer(handler(world)) as server:
        assert run(tmp_path, server.url, "--service-tier", "flex") == 0
    assert all(b.get("service_tier") == "flex" for b in world.bodies) and len(world.bodies) == 5  # 3 + 2 retried
    reader = RunReader(tmp_path / "run")
    results = list(reader.results())
    assert all(r.status == "ok" and r.score.correct for r in results)
    assert sum(r.retries for r in results) == 2
    # 1,000 in × $1/M + 100 out × $10/M = $0.002 at list; flex is half
    assert all(r.cost_usd == pytest.approx(0.001) for r in results)
    spec = reader.read_spec().spec
    assert spec.service_tier == "flex" and spec.call_timeout_s == 900.0


GEMINI = "google/gemini-2.5-flash"
BUSY = {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                  "status": "RESOURCE_EXHAUSTED"}}  # google.rpc RESOURCE_EXHAUSTED, without a RetryInfo delay


def gemini_handler(world: FlexWorld) -> type[QuietHandler]:
    """``generateContent`` (https://ai.google.dev/gemini-api/docs/flex-inference: ``service_tier`` flex in the
    request, best-effort availability): the first ``busy`` requests answered 429 RESOURCE_EXHAUSTED."""
    class Handler(QuietHandler):
        def do_POST(self) -> None:  # noqa: N802
            body, busy = world.take(self)
            if busy:
                return self.send_json(429, BUSY)
            km = world.gold["".join(p.get("text", "") for p in body["contents"][-1]["parts"])]
            self.send_json(200, {"candidates": [{"content": {"role": "model", "parts": [
                {"text": f"FINAL ANSWER: {km:.1f} km"}]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 100, "totalTokenCount": 1100},
                "modelVersion": "gemini-2.5-flash", "responseId": "r"})

    return Handler


def test_gemini_flex_sends_service_tier_retries_429_and_is_priced_at_flex(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    world = FlexWorld(busy=2)
    prices = tmp_path / "prices.toml"
    prices.write_text(f'["{GEMINI}"]\ninput = 1.0\noutput = 10.0\n')
    with LoopbackServer(gemini_handler(world)) as server:
        assert main(["--model", GEMINI, "--base-url", server.url.removesuffix("/v1"), "--tasks", "gpsbench.distance",
                     "--limit", "3", "--conditions", "intrinsic", "--max-connections", "1", "--retry-delay", "0.01",
                     "--prices", str(prices), "--service-tier", "flex", "--output", str(tmp_path / "run")]) == 0
    assert [b.get("serviceTier") for b in world.bodies] == ["flex"] * 5  # 3 + 2 retried, each on the flex tier
    results = list(RunReader(tmp_path / "run").results())
    assert all(r.status == "ok" and r.score.correct for r in results) and sum(r.retries for r in results) == 2
    assert all(r.cost_usd == pytest.approx(0.001) for r in results)  # $0.002 at list, half on flex


def test_flex_is_refused_for_other_providers_and_tiers(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert main(["--model", "anthropic/claude-test", "--tasks", "gpsbench.distance", "--limit", "1",
                 "--service-tier", "flex", "--output", str(tmp_path / "a")]) == 2
    assert "only 'flex' for openai/ and google/ models" in capsys.readouterr().err
