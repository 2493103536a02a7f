"""Today's frontier models as they are used, end to end: ``python -m evals.compare --condition intrinsic,tools``
through the real client libraries against loopback stand-ins that enforce each API's documented rules
(:mod:`tests.standins`: the Responses API's stateless reasoning replay, Claude Opus 4.7's adaptive-only thinking and
no temperature, Gemini 3's thought signatures and thinking levels, Qwen3's thinking switch, DeepSeek's
reasoning_content on tool-call turns). Every sample answers, the tools samples call tools, what was sent is in
results.json, ``--max-cost`` works for the hosted ones, and a setting a model cannot take is one line before any
call."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from evals.compare import main
from evals.pricing import PriceTable
from tests.standins import ENCRYPTED, StandIn, offered


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_TEST_KEY", "test-key-123")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-test-key")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def run(model: str, tmp_path: Path, *extra: str, **standin: bool) -> tuple[int, dict[str, Any], list[dict[str, Any]],
                                                                           StandIn]:
    out = tmp_path / "run"
    with StandIn(**standin) as server:
        os.environ["GOOGLE_GEMINI_BASE_URL"] = server.root  # the google-genai SDK's own base-URL setting
        try:
            base = [] if model.startswith("google/") else [
                "--base-url", server.root if model.startswith("anthropic/") else server.url]
            code = main(["--model", model, *base, "--api-key-env", "GEOGAP_TEST_KEY", "--tasks", "gpsbench.distance",
                         "--limit", "3", "--condition", "intrinsic,tools", "--no-cache", "--output", str(out), *extra])
        finally:
            del os.environ["GOOGLE_GEMINI_BASE_URL"]
    data = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else {}
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()] if (
        out / "results.jsonl").exists() else []
    return code, data, rows, server


def sent(data: dict[str, Any]) -> dict[str, Any]:
    generation = data["meta"]["spec"]["generation"]["gpsbench.distance"]
    return dict(generation["sent"])


TAGS = {"openai/gpt-5.4": "(responses API, effort high)", "openai/gpt-5.6": "(responses API)",
        "anthropic/claude-opus-4-7": "(effort max, thinking adaptive)",
        "google/gemini-3-pro-preview": "(thinking_level low)", "openai-compatible/Qwen/Qwen3-8B": "(enable_thinking false)"}
CASES = {
    "openai/gpt-5.4": (["--reasoning-effort", "high"], {"api": "responses", "max_output_tokens": 16_896,
                                                         "store": False, "include": ["reasoning.encrypted_content"],
                                                         "reasoning": {"effort": "high"}}),
    "openai/gpt-5.6": ([], {"api": "responses", "max_output_tokens": 16_896, "store": False,
                            "include": ["reasoning.encrypted_content"]}),
    "anthropic/claude-opus-4-7": (["--reasoning-effort", "max"], {"max_tokens": 16_896,
                                                                  "thinking": {"type": "adaptive"},
                                                                  "output_config": {"effort": "max"}}),
    "google/gemini-3-pro-preview": (["--reasoning-effort", "low"], {"max_output_tokens": 16_896,
                                                                    "temperature": 0.0, "thinking_level": "low"}),
    "openai-compatible/Qwen/Qwen3-8B": (["--reasoning-effort", "none"], {
        "max_completion_tokens": 512, "max_tokens": 512, "temperature": 0.0,
        "chat_template_kwargs": {"enable_thinking": False}}),
}


@pytest.mark.parametrize("model", list(CASES))
def test_every_sample_answers_tools_are_called_and_what_was_sent_is_recorded(model: str, tmp_path: Path,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    flags, expected = CASES[model]
    hosted = not model.startswith("openai-compatible/")
    code, data, rows, server = run(model, tmp_path, *flags, *(["--max-cost", "1"] if hosted else []))
    assert code == 0
    assert f"{model} {TAGS[model]} · split test" in " ".join(capsys.readouterr().out.split())  # the table's title
    assert sent(data) == expected
    by_condition = {c: [r for r in rows if r["condition"] == c] for c in ("intrinsic", "tools")}
    for cond, results in by_condition.items():
        assert len(results) == 3 and {r["parsed"]["status"] for r in results} == {"answered"}, cond
        assert all(r["status"] == "ok" for r in results)
    assert all(r["tool_calls"] >= 1 for r in by_condition["tools"])
    assert all(r["score"]["correct"] for r in by_condition["tools"])  # the stand-in answers the tool's result
    if hosted:
        assert data["meta"]["cost"] == "priced" and data["meta"]["cost_usd"] > 0
    paths = {path for path, _ in server.requests}
    if model.startswith("openai/"):
        assert paths == {"/v1/responses"}
        assert all("seed" not in body and "temperature" not in body for _, body in server.requests)


def test_responses_replay_keeps_each_reasoning_item_before_its_call(tmp_path: Path) -> None:
    """Stateless replay: the second step of a tools sample sends the first step's reasoning item, with its
    encrypted content, right before the function call it came with."""
    _, _, _, server = run("openai/gpt-5.4", tmp_path)
    second = [body for _, body in server.requests if any(i.get("type") == "function_call_output"
                                                           for i in body["input"])]
    assert second
    for body in second:
        kinds = [i.get("type") for i in body["input"]]
        at = kinds.index("function_call")
        assert kinds[at - 1] == "reasoning" and body["input"][at - 1]["encrypted_content"].startswith(ENCRYPTED)
        assert kinds[at + 1] == "function_call_output" and body["store"] is False


def test_anthropic_adaptive_thinking_goes_back_with_its_signature(tmp_path: Path) -> None:
    _, _, _, server = run("anthropic/claude-opus-4-7", tmp_path)
    follow_ups = [b for _, b in server.requests if len(b["messages"]) > 1]
    assert follow_ups and all(b["thinking"] == {"type": "adaptive"} and "temperature" not in b for b in follow_ups)
    assert all(b["messages"][1]["content"][0]["type"] == "thinking" for b in follow_ups)


def test_gemini_3_function_calls_go_back_with_their_thought_signature(tmp_path: Path) -> None:
    _, _, _, server = run("google/gemini-3-pro-preview", tmp_path, "--reasoning-effort", "max")
    follow_ups = [b for _, b in server.requests if len(b["contents"]) > 1]
    assert follow_ups and all(any("thoughtSignature" in p for p in b["contents"][1]["parts"]) for b in follow_ups)
    levels = {str(c.get("thinkingLevel", c.get("thinking_level"))).lower()  # google-genai writes thinking_level
              for c in (b["generationConfig"]["thinkingConfig"] for _, b in server.requests)}
    assert levels == {"high"}


def test_qwen3_thinking_on_gets_reasoning_room(tmp_path: Path) -> None:
    code, data, _, server = run("openai-compatible/Qwen/Qwen3-8B", tmp_path, "--reasoning-effort", "high")
    assert code == 0 and sent(data)["chat_template_kwargs"] == {"enable_thinking": True}
    assert all(b["chat_template_kwargs"] == {"enable_thinking": True} and b["max_tokens"] == 16_896
               for _, b in server.requests)


def test_deepseek_reasoning_content_goes_back_on_tool_call_turns(tmp_path: Path) -> None:
    code, _, rows, server = run("openai-compatible/deepseek-reasoner", tmp_path, deepseek=True)
    assert code == 0 and all(r["status"] == "ok" for r in rows)
    assert any(m.get("reasoning_content") for _, b in server.requests for m in b["messages"]
               if m["role"] == "assistant")


def test_other_servers_never_get_reasoning_back(tmp_path: Path) -> None:
    run("openai-compatible/Qwen/Qwen3-8B", tmp_path)
    _, _, _, server = run("openai-compatible/Qwen/Qwen3-8B", tmp_path / "b")
    assert not any("reasoning_content" in m for _, b in server.requests for m in b["messages"])


@pytest.mark.parametrize(("standin", "kind", "condition"), [
    ("answer_in_reasoning", "answer only in the reasoning", "intrinsic"),
    ("call_in_reasoning", "tool call written inside the reasoning", "tools"),
])
def test_what_a_server_left_in_its_reasoning_is_flagged(standin: str, kind: str, condition: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, data, rows, _ = run("openai-compatible/Qwen/Qwen3-8B", tmp_path, **{standin: True})
    printed = capsys.readouterr().out
    assert code == 0
    flagged = [r for r in rows if r["condition"] == condition]
    assert {r["parsed"]["status"] for r in flagged} == {"unparsed"}
    assert all("reasoning field" in r["parsed"]["reason"] for r in flagged)
    warning = f"warning: {condition}: 3 of 3 samples: {kind}"
    assert warning in printed and any(w.startswith(warning) for w in data["meta"]["warnings"])


@pytest.mark.parametrize(("model", "flags", "message"), [
    ("openai/gpt-5.4", ["--reasoning-effort", "minimal"], "it takes none, low, medium, high, max"),
    ("openai/gpt-5.4", ["--reasoning-effort", "high", "--openai-api", "chat"], "HTTP 400 on chat completions"),
    ("openai/gpt-5.6", ["--openai-api", "chat"], "HTTP 400 on chat completions for tools"),
    ("anthropic/claude-opus-4-7", ["--temperature", "0"], "--temperature 0 cannot be sent"),
    ("anthropic/claude-opus-4-7", ["--thinking-budget", "4096"], "thinks adaptively"),
    ("google/gemini-3-pro-preview", ["--reasoning-effort", "medium"], "it takes low, high, max"),
])
def test_a_setting_the_model_cannot_take_is_one_line_before_any_call(model: str, flags: list[str], message: str,
                                                                     tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _, server = run(model, tmp_path, *flags)
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and len(err.splitlines()) == 1
    assert server.requests == []


def test_tools_forced_with_adaptive_thinking_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(["--model", "anthropic/claude-opus-4-7", "--base-url", "http://127.0.0.1:9", "--api-key-env",
                 "GEOGAP_TEST_KEY", "--tasks", "gpsbench.distance", "--limit", "1", "--condition",
                 "tools-required", "--output", str(out)])
    assert code == 2 and "forces a tool call" in capsys.readouterr().err


@pytest.mark.parametrize("model", [
    "openai/gpt-5.6", "openai/gpt-5.5", "openai/gpt-5.4", "openai/gpt-5.4-mini", "openai/gpt-5.4-nano",
    "openai/gpt-5.2", "openai/gpt-5.1", "openai/gpt-5", "openai/gpt-5-mini", "openai/o3", "openai/o4-mini",
    "openai/gpt-4.1", "anthropic/claude-opus-4-7", "anthropic/claude-opus-4-6", "anthropic/claude-sonnet-4-6",
    "anthropic/claude-sonnet-4-5-20250929", "anthropic/claude-haiku-4-5", "google/gemini-3-pro-preview",
    "google/gemini-3.1-pro-preview", "google/gemini-3-flash-preview", "google/gemini-2.5-pro",
    "google/gemini-2.5-flash",
])
def test_every_current_hosted_model_has_a_price(model: str) -> None:
    """--max-cost refuses a model without one."""
    assert PriceTable().price(model) is not None


@pytest.mark.parametrize("model", ["openai/gpt-5.4", "openai-compatible/Qwen/Qwen3-8B"])
def test_structured_channel_through_the_real_clients(model: str, tmp_path: Path) -> None:
    """--answer-channel structured through langchain-openai (Responses API and chat completions): intrinsic offers
    only final_answer with tool_choice "required" (one call), tools offers its domain tools beside it and ends at
    the final_answer call; every answer is read from the call's arguments."""
    code, data, rows, server = run(model, tmp_path, "--answer-channel", "structured")
    assert code == 0 and data["meta"]["spec"]["answer_channel"] == "structured"
    assert len(rows) == 6 and {r["parsed"]["status"] for r in rows} == {"answered"}
    intrinsic = [r for r in rows if r["condition"] == "intrinsic"]
    assert all(r["structured_answer"]["value"] == 1000.0 and r["model_calls"] == 1 for r in intrinsic)
    tools = [r for r in rows if r["condition"] == "tools"]
    assert all(r["score"]["correct"] and r["tool_calls"] == 1 and r["model_calls"] == 2 for r in tools)
    assert all(r["answer_channel"] == "structured" for r in rows)
    alone = [b for _, b in server.requests if offered(b) == {"final_answer"}]
    assert len(alone) == 3 and all(b["tool_choice"] == "required" for b in alone)  # forced: the one call answers
    assert sum(1 for _, b in server.requests if len(offered(b)) > 1) == 6  # tools: domain tools + final_answer
