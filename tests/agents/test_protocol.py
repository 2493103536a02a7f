"""The generation protocol per model family: what is sent, what is refused in one line, and the notes."""

from __future__ import annotations

import pytest

from agents.catalog import card_for
from agents.protocol import (
    REASONING_ALLOWANCE,
    Asked,
    ProtocolError,
    claude_thinks,
    gemini_generation,
    resolve_protocol,
)

PAPER = Asked(max_tokens=8192, temperature=0.0, reasoning_effort="low", thinking_budget=0, source="the paper")


@pytest.mark.parametrize(("name", "reasoning"), [
    ("o1", True), ("o3-mini", True), ("o4-mini-2025-04-16", True), ("gpt-5", True), ("gpt-5-mini", True),
    ("gpt-5.1", True), ("gpt-5.4-mini", True), ("gpt-5-chat-latest", False), ("gpt-4o", False),
    ("gpt-4.1-mini", False),
])
def test_openai_reasoning_models_by_the_model_table(name: str, reasoning: bool) -> None:
    card = card_for("openai", name)
    assert card is not None and card.reasoning is reasoning


def test_model_family_detection() -> None:
    assert [gemini_generation(n) for n in ("gemini-2.5-pro", "gemini-2.5-flash-lite", "gemini-3-pro-preview",
                                           "gemini-2.0-flash", "models/gemini-2.5-flash")] == \
        ["2.5", "2.5", "3", None, "2.5"]
    assert claude_thinks("claude-sonnet-4-5-20250929") and claude_thinks("claude-3-7-sonnet-latest")
    assert not claude_thinks("claude-3-5-haiku-latest")


def test_chat_models_get_what_was_asked() -> None:
    p = resolve_protocol("openai", "gpt-4o")
    assert (p.family, p.sent, p.notes, p.api) == ("chat", {"max_completion_tokens": 512, "temperature": 0.0}, [],
                                                  "chat")
    local = resolve_protocol("local", "qwen2.5-coder-1.5b", Asked(max_tokens=100), llama_like=True)
    assert local.sent == {"max_completion_tokens": 100, "max_tokens": 100, "temperature": 0.0}
    claude = resolve_protocol("anthropic", "claude-haiku-4-5", defaults=PAPER)
    assert claude.sent == {"max_tokens": 8192, "temperature": 0.0} and claude.family == "chat"


def test_openai_reasoning_default_and_paper_settings() -> None:
    p = resolve_protocol("openai", "o3")
    assert p.sent == {"api": "responses", "max_output_tokens": 512 + REASONING_ALLOWANCE, "store": False,
                      "include": ["reasoning.encrypted_content"]} and p.temperature is None
    assert any("temperature 0 (geogap's default) not sent" in n for n in p.notes)
    paper = resolve_protocol("openai", "gpt-5-mini", Asked(openai_api="chat"), defaults=PAPER)
    assert paper.sent == {"api": "chat", "max_completion_tokens": 8192 + REASONING_ALLOWANCE,
                          "reasoning_effort": "low"}
    assert any("(the paper) not sent" in n for n in paper.notes)
    assert resolve_protocol("openai", "o3", Asked(temperature=1.0)).temperature is None  # 1 is its own anyway


@pytest.mark.parametrize(("provider", "name", "asked", "message"), [
    ("openai", "o3", Asked(temperature=0.0), "--temperature 0 cannot be sent"),
    ("openai", "gpt-5", Asked(thinking_budget=2048), "not --thinking-budget"),
    ("openai", "gpt-5", Asked(reasoning_effort="extreme"), "--reasoning-effort must be one of"),
    ("openai", "gpt-4o", Asked(reasoning_effort="low"), "not a reasoning model"),
    ("google", "gemini-2.5-pro", Asked(reasoning_effort="none"), "cannot take --reasoning-effort none; it takes low"),
    ("google", "gemini-2.5-pro", Asked(thinking_budget=0), "cannot turn thinking off"),
    ("google", "gemini-3-pro-preview", Asked(reasoning_effort="low", thinking_budget=100), "not both"),
    ("anthropic", "claude-sonnet-4-5", Asked(thinking_budget=500), "at least 1024"),
    ("anthropic", "claude-sonnet-4-5", Asked(thinking_budget=2048, temperature=0.0), "--temperature 0 cannot"),
    ("anthropic", "claude-3-5-haiku-latest", Asked(thinking_budget=2048), "no extended thinking"),
    ("anthropic", "claude-sonnet-4-5", Asked(reasoning_effort="high", thinking_budget=2048), "not both"),
    ("vllm", "Qwen/Qwen3-8B", Asked(thinking_budget=2048), "not supported for OpenAI-compatible"),
])
def test_impossible_flags_are_refused_in_one_line(provider: str, name: str, asked: Asked, message: str) -> None:
    with pytest.raises(ProtocolError, match=message) as caught:
        resolve_protocol(provider, name, asked)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{provider}/{name}: ")


def test_gemini_thinking_budget_never_starves_the_answer() -> None:
    pro = resolve_protocol("google", "gemini-2.5-pro", defaults=PAPER)  # the paper's budget 0 is for Flash only
    assert pro.sent == {"max_output_tokens": 8192 + REASONING_ALLOWANCE, "temperature": 0.0,
                        "thinking_budget": REASONING_ALLOWANCE}
    assert any("cannot turn thinking off" in n for n in pro.notes)
    flash = resolve_protocol("google", "gemini-2.5-flash", defaults=PAPER)
    assert flash.sent == {"max_output_tokens": 8192, "temperature": 0.0, "thinking_budget": 0}
    given = resolve_protocol("google", "gemini-2.5-flash", Asked(max_tokens=256, thinking_budget=1000))
    assert given.sent["max_output_tokens"] == 1256 and given.sent["thinking_budget"] == 1000
    three = resolve_protocol("google", "gemini-3-pro-preview", Asked(reasoning_effort="low"))
    assert three.sent == {"max_output_tokens": 512 + REASONING_ALLOWANCE, "temperature": 0.0, "thinking_level": "low"}
    assert any("Google recommends" in n for n in three.notes)


def test_claude_thinking_budget_is_below_max_tokens_and_forbids_forcing() -> None:
    p = resolve_protocol("anthropic", "claude-sonnet-4-5-20250929", Asked(max_tokens=300, thinking_budget=2048))
    assert p.sent == {"max_tokens": 2348, "thinking": {"type": "enabled", "budget_tokens": 2048}}
    assert p.temperature is None and not p.forced_tool_choice_ok
    assert resolve_protocol("anthropic", "claude-sonnet-4-5").forced_tool_choice_ok


def test_open_reasoning_models_get_room_and_pass_the_effort() -> None:
    qwen3 = resolve_protocol("vllm", "Qwen/Qwen3-8B", Asked(temperature=0.6))
    assert qwen3.family == "open-reasoning" and qwen3.sent == {"max_completion_tokens": 512 + REASONING_ALLOWANCE,
                                                               "temperature": 0.6}
    oss = resolve_protocol("openai-compatible", "openai/gpt-oss-20b", Asked(reasoning_effort="high"),
                           llama_like=True)
    assert oss.sent["reasoning_effort"] == "high" and oss.sent["max_tokens"] == oss.max_tokens
    assert resolve_protocol("vllm", "Qwen/Qwen2.5-7B-Instruct").family == "chat"


# What the model table (agents/data/models.toml) makes of geogap's one effort scale, model by model.
@pytest.mark.parametrize(("provider", "name", "asked", "message"), [
    ("openai", "gpt-5.4", Asked(reasoning_effort="minimal"), "it takes none, low, medium, high, max"),
    ("openai", "gpt-5-mini", Asked(reasoning_effort="none"), "it takes minimal, low, medium, high, max"),
    ("openai", "gpt-5.4", Asked(reasoning_effort="extreme"), "must be one of none, minimal, low, medium, high, max"),
    ("openai", "gpt-4o", Asked(openai_api="responses"), "for reasoning models"),
    ("anthropic", "claude-opus-4-7", Asked(temperature=0.0), "--temperature 0 cannot be sent"),
    ("anthropic", "claude-opus-4-7", Asked(thinking_budget=4096), "thinks adaptively: give --reasoning-effort"),
    ("anthropic", "claude-opus-4-7", Asked(reasoning_effort="minimal"), "it takes none, low, medium, high, max"),
    ("google", "gemini-3-pro-preview", Asked(reasoning_effort="medium"), "it takes low, high, max"),
    ("google", "gemini-3-pro-preview", Asked(reasoning_effort="none"), "it takes low, high, max"),
    ("openai-compatible", "Qwen3-8B", Asked(reasoning_effort="low"), "it takes none, high"),
    ("anthropic", "claude-opus-4-7", Asked(openai_api="chat"), "--openai-api applies to openai/ models only"),
])
def test_a_level_the_model_cannot_take_is_one_line_naming_what_it_takes(provider: str, name: str, asked: Asked,
                                                                         message: str) -> None:
    with pytest.raises(ProtocolError, match=message) as caught:
        resolve_protocol(provider, name, asked)
    assert "\n" not in str(caught.value)


def test_openai_reasoning_models_go_to_the_responses_api_with_their_own_effort_names() -> None:
    p = resolve_protocol("openai", "gpt-5.4", Asked(reasoning_effort="max"))
    assert p.api == "responses" and p.sent["reasoning"] == {"effort": "xhigh"} and p.sent["store"] is False
    assert not p.seed_ok and p.settings(timeout_s=1, seed=7).seed is None and p.tools_refusal is None
    assert p.card == "openai/gpt-5.4*"


def test_chat_completions_refuses_tools_where_the_api_answers_400() -> None:
    assert "tools with a reasoning effort" in (resolve_protocol(
        "openai", "gpt-5.4", Asked(reasoning_effort="high", openai_api="chat")).tools_refusal or "")
    assert resolve_protocol("openai", "gpt-5.4", Asked(reasoning_effort="none", openai_api="chat")).tools_refusal \
        is None
    assert "HTTP 400" in (resolve_protocol("openai", "gpt-5.6", Asked(openai_api="chat")).tools_refusal or "")
    assert resolve_protocol("openai", "gpt-5-mini", Asked(openai_api="chat")).tools_refusal is None


def test_claude_adaptive_thinking_with_effort_and_budget_tokens_for_older_claude() -> None:
    opus = resolve_protocol("anthropic", "claude-opus-4-7", Asked(reasoning_effort="high"))
    assert opus.sent == {"max_tokens": 512 + REASONING_ALLOWANCE, "thinking": {"type": "adaptive"},
                         "output_config": {"effort": "high"}}
    assert opus.temperature is None and not opus.forced_tool_choice_ok
    default = resolve_protocol("anthropic", "claude-opus-4-7")  # as it is used: adaptive, the API's own effort
    assert default.thinking == {"type": "adaptive"} and "output_config" not in default.sent
    off = resolve_protocol("anthropic", "claude-opus-4-7", Asked(reasoning_effort="none"))
    assert off.sent == {"max_tokens": 512} and off.forced_tool_choice_ok
    older = resolve_protocol("anthropic", "claude-sonnet-4-5", Asked(reasoning_effort="medium"))
    assert older.sent["thinking"] == {"type": "enabled", "budget_tokens": 8192}


def test_gemini_levels_and_budgets_from_the_scale() -> None:
    assert resolve_protocol("google", "gemini-3-pro-preview", Asked(reasoning_effort="max")).thinking_level == "high"
    flash = resolve_protocol("google", "gemini-2.5-flash", Asked(reasoning_effort="none"))
    assert flash.sent["thinking_budget"] == 0


def test_qwen3_thinking_switch_over_openai_compatible() -> None:
    off = resolve_protocol("openai-compatible", "Qwen/Qwen3-8B", Asked(reasoning_effort="none"), llama_like=True)
    assert off.sent["chat_template_kwargs"] == {"enable_thinking": False} and off.max_tokens == 512
    on = resolve_protocol("vllm", "Qwen/Qwen3-8B", Asked(reasoning_effort="high"))
    assert on.enable_thinking is True and on.max_tokens == 512 + REASONING_ALLOWANCE


def test_unknown_hosted_models_get_conservative_defaults_and_a_note() -> None:
    future = resolve_protocol("openai", "gpt-6")
    assert future.api == "responses" and future.temperature is None and not future.seed_ok and future.card is None
    assert any("not in geogap's model table" in n for n in future.notes)
    claude5 = resolve_protocol("anthropic", "claude-opus-5-5")
    assert claude5.temperature is None and "temperature" not in claude5.sent
