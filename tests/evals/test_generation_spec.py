"""The generation protocol in the run spec: paper suites' settings per task, flags overriding them, the lines a run
prints at its start, the cache key, per-task endpoints and the refusals that happen before any call."""

from __future__ import annotations

import pytest

from agents.protocol import REASONING_ALLOWANCE
from evals.endpoints import SpecEndpointFactory, cache_identity
from evals.options import RunConfig, UsageError, load_config
from evals.pricing import PriceTable
from evals.specs import make_spec, serve_args, start_lines
from evals.suites import SUITES

TRAJECTORY = "stbench.trajectory_prediction.completion"


def spec(**options: object):
    return make_spec(RunConfig(**options))


def test_stbench_suite_sends_its_papers_budget_per_task() -> None:
    s = spec(model="openai/gpt-4o", suite="stbench-paper")
    budgets = {t: p.sent["max_completion_tokens"] for t, p in s.generation.items()}
    assert budgets[TRAJECTORY] == 50 and {b for t, b in budgets.items() if t != TRAJECTORY} == {15}
    assert s.max_tokens is None  # the flag was not given; the spec keeps both
    lines = start_lines(s, PriceTable())
    assert lines[0].startswith("generation settings of STBench §5.1: max_new_tokens 15 (50 for trajectory")
    assert any(line.startswith(f"generation ({TRAJECTORY}): max_completion_tokens 50") for line in lines)
    assert not any("overridden" in line for line in lines) and not any("no price" in line for line in lines)


def test_a_flag_overrides_the_paper_and_says_so() -> None:
    s = spec(model="openai/gpt-4o", suite="gtr-paper", max_tokens=1000)
    assert {p.sent["max_completion_tokens"] for p in s.generation.values()} == {1000}
    assert {p.sent["temperature"] for p in s.generation.values()} == {0.1}  # the paper's, not overridden
    assert not s.cache  # temperature 0.1: not cached unless asked
    lines = start_lines(s, PriceTable())
    assert "GTR-Bench" in lines[0] and lines[1] == "  overridden by --max-tokens 1000"


@pytest.mark.parametrize(("suite", "tokens", "temperature"), [
    ("gpsbench-paper", 8192, 0.0), ("geotemp-paper", 256, 0.0), ("gtr-paper", 16_384, 0.1)])
def test_each_paper_suite_carries_its_settings(suite: str, tokens: int, temperature: float) -> None:
    g = SUITES[suite].generation
    assert (g.max_tokens, g.temperature) == (tokens, temperature) and g.source


def test_reasoning_model_on_a_paper_suite() -> None:
    s = spec(model="openai/gpt-5-mini", suite="gpsbench-paper")
    p = next(iter(s.generation.values()))
    assert p.sent == {"api": "responses", "max_output_tokens": 8192 + REASONING_ALLOWANCE, "store": False,
                      "include": ["reasoning.encrypted_content"], "reasoning": {"effort": "low"}}
    assert any("GPSBench App. D" in n and "not sent" in n for n in p.notes)


def test_claude_thinking_with_a_forced_tool_call_is_refused_before_any_call() -> None:
    with pytest.raises(UsageError, match="tools-required forces a tool call.*extended thinking") as caught:
        spec(model="anthropic/claude-sonnet-4-5", tasks="gpsbench.distance", conditions="intrinsic,tools-required",
             thinking_budget=2048)
    assert "\n" not in str(caught.value)
    ok = spec(model="anthropic/claude-sonnet-4-5", tasks="gpsbench.distance", conditions="intrinsic,tools",
              thinking_budget=2048)
    assert ok.generation["gpsbench.distance"].sent["thinking"]["budget_tokens"] == 2048


def test_a_flag_the_model_cannot_take_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="openai/o3: --temperature 0 cannot be sent"):
        spec(model="openai/o3", tasks="gpsbench.distance", temperature=0.0)


def test_cache_key_names_what_is_sent_and_tasks_get_their_own_endpoint() -> None:
    s = spec(model="openai/gpt-4o", suite="stbench-paper", base_url="http://127.0.0.1:9/v1")
    short, long = s.generation["stbench.direction.completion"], s.generation[TRAJECTORY]
    assert cache_identity(s, 0, {}, short) != cache_identity(s, 0, {}, long)
    assert cache_identity(s, 0, {}, long)["generation"] == {"max_completion_tokens": 50, "temperature": 0.0}
    endpoint = SpecEndpointFactory(s, "http://127.0.0.1:9/v1")(0)
    assert endpoint.per_task[TRAJECTORY].model.max_tokens == 50
    assert endpoint.per_task["stbench.direction.completion"].model.max_tokens == 15


def test_unknown_price_is_a_warning_at_the_start() -> None:
    s = spec(model="openai/gpt-9-imaginary", tasks="gpsbench.distance")
    assert start_lines(s, PriceTable())[-1].startswith("warning: no price known for openai/gpt-9-imaginary")
    assert start_lines(s, PriceTable())[-2].startswith("warning: openai/gpt-9-imaginary is not in geogap's model table")
    assert not any("model table" in line for line in start_lines(spec(model="openai/gpt-5.4", tasks="gpsbench.distance"),
                                                                  PriceTable()))


def test_vllm_args_are_split_and_only_for_vllm(tmp_path) -> None:
    assert serve_args(["--max-model-len 32768", "--enforce-eager"], "vllm/Qwen/Qwen3-8B") == [
        "--max-model-len", "32768", "--enforce-eager"]
    with pytest.raises(UsageError, match="--vllm-arg applies to vllm/ models"):
        serve_args(["--enforce-eager"], "openai/gpt-4o")
    with pytest.raises(UsageError, match="not to a running server"):
        serve_args(["--enforce-eager"], "vllm/Qwen/Qwen3-8B", "http://gpu:8000/v1")
    with pytest.raises(UsageError, match="--vllm-arg: No closing quotation"):
        serve_args(["--chat-template 'x"], "vllm/Qwen/Qwen3-8B")
    config = tmp_path / "run.toml"
    config.write_text('vllm-args = ["--tensor-parallel-size", "2"]\n')
    assert load_config(config) == {"vllm_args": ["--tensor-parallel-size", "2"]}
    config.write_text('vllm-args = "--tensor-parallel-size 2"\n')
    with pytest.raises(UsageError, match="must be a list of strings"):
        load_config(config)


def test_base_url_is_never_silently_ignored() -> None:
    with pytest.raises(UsageError, match="local/ models run on the embedded server.*openai-compatible/"):
        spec(model="local/qwen2.5-coder-1.5b", tasks="gpsbench.distance", base_url="http://127.0.0.1:8080/v1")
    google = spec(model="google/gemini-2.5-flash", tasks="gpsbench.distance", base_url="http://127.0.0.1:8080")
    assert google.base_url == "http://127.0.0.1:8080"  # honoured: the recorded-reply tests call it
