"""CLI options: TOML config, prices, exports (CSV, Parquet), --baseline, --list; run-dir contents."""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, completion, user_prompt

from evals.compare import main
from evals.export import ExportError, write_parquet
from evals.export import main as export_main
from evals.pricing import PriceError, PriceTable
from tasks import get_task


def test_price_table_lookup_cost_and_override(tmp_path: Path) -> None:
    table = PriceTable()
    assert table.cost("local/qwen2.5-coder-1.5b", 1000, 1000) == 0.0
    assert table.cost("openai/gpt-4o", 1_000_000, 1_000_000, cached_tokens=400_000) == pytest.approx(
        0.6 * 2.5 + 0.4 * 1.25 + 10.0)
    assert table.cost("openai-compatible/unknown", 10, 10) is None
    path = tmp_path / "p.toml"
    path.write_text('["openai/gpt-4o"]\ninput = 1\noutput = 2\n\n["vllm/*"]\ninput = 0.5\noutput = 0.5\n')
    custom = PriceTable.load(path)
    assert custom.cost("openai/gpt-4o", 1_000_000, 0) == 1.0 and custom.cost("vllm/Qwen/Q", 2_000_000, 0) == 1.0
    assert custom.cost("openai/gpt-4o-mini", 1_000_000, 0) == 0.15  # built-ins kept
    path.write_text('["openai/gpt-4o"]\ninput = -1\noutput = 2\n')
    with pytest.raises(PriceError, match="bad price for 'openai/gpt-4o'"):
        PriceTable.load(path)


@pytest.mark.parametrize(("model", "family"), [
    ("anthropic/claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5"),
    ("anthropic/claude-3-7-sonnet-latest", "anthropic/claude-3-7-sonnet"),
    ("anthropic/claude-sonnet-4-0", "anthropic/claude-sonnet-4"),
    ("anthropic/claude-opus-4-1-20250805", "anthropic/claude-opus-4-1"),
    ("openai/gpt-4o-2024-08-06", "openai/gpt-4o"),
    ("openai/o3-mini-2025-01-31", "openai/o3-mini"),
    ("openai/gpt-5-2025-08-07", "openai/gpt-5"),
    ("google/gemini-2.0-flash-001", "google/gemini-2.0-flash"),
])
def test_dated_ids_take_their_familys_price(model: str, family: str) -> None:
    table = PriceTable()
    assert table.price(family) is not None and table.price(model) == table.price(family)


def test_current_models_are_priced() -> None:
    table = PriceTable()
    current = ["openai/gpt-5", "openai/gpt-5-mini", "openai/gpt-5-nano", "openai/gpt-4.1", "openai/gpt-4.1-mini",
               "openai/gpt-4.1-nano", "openai/gpt-4o", "openai/gpt-4o-mini", "openai/o1", "openai/o3",
               "openai/o3-mini", "openai/o4-mini", "anthropic/claude-opus-4-5", "anthropic/claude-sonnet-4-5",
               "anthropic/claude-haiku-4-5", "anthropic/claude-opus-4-1", "anthropic/claude-sonnet-4",
               "anthropic/claude-3-7-sonnet-20250219", "anthropic/claude-3-5-haiku-20241022",
               "google/gemini-2.5-pro", "google/gemini-2.5-flash", "google/gemini-2.5-flash-lite",
               "google/gemini-3-pro-preview"]
    assert [m for m in current if table.price(m) is None] == []
    # list prices as published (USD per 1M tokens; evals/data/prices.toml names the pages)
    assert table.cost("openai/gpt-5-mini", 1_000_000, 1_000_000) == pytest.approx(0.25 + 2.00)
    assert table.cost("anthropic/claude-haiku-4-5", 1_000_000, 1_000_000) == pytest.approx(1.00 + 5.00)
    assert table.cost("google/gemini-2.5-pro", 1_000_000, 1_000_000) == pytest.approx(1.25 + 10.00)
    assert table.price("openai/gpt-7") is None


def test_config_file_exports_and_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    gold = {s.prompt: s.target["km"] for s in get_task("gpsbench.distance").samples(limit=4)}
    first = next(iter(gold))

    def right(body: dict, headers: dict, n: int) -> Reply:
        return completion(f"FINAL ANSWER: {gold[user_prompt(body)]} km")

    def worse(body: dict, headers: dict, n: int) -> Reply:  # loses the first item
        return completion("no idea") if user_prompt(body) == first else right(body, headers, n)

    with FaultServer(right) as a, FaultServer(worse) as b:
        config = tmp_path / "run.toml"
        config.write_text(f'model = "openai-compatible/a"\nbase-url = "{a.url}"\ntasks = ["gpsbench.dist*"]\n'
                          'limit = 4\ncondition = ["intrinsic"]\nexport = ["jsonl", "csv", "parquet"]\n'
                          'max_connections = 2\n')
        assert main(["--config", str(config), "--output", str(tmp_path / "a")]) == 0
        assert len(a.requests) == 4
        assert main(["--config", str(config), "--model", "openai-compatible/b", "--base-url", b.url,
                     "--output", str(tmp_path / "b"), "--baseline", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "This run − the baseline run" in out
    assert re.search(r"gpsbench\.distance +intrinsic +4 +100\.0 +75\.0 +-25\.0", out)
    run = tmp_path / "b"
    for name in ("run.sqlite", "results.json", "report.html", "results.jsonl", "results.csv", "results.parquet"):
        assert (run / name).exists(), name
    data = json.loads((run / "results.json").read_text())
    assert data["meta"]["spec"]["model"] == "openai-compatible/b" and data["meta"]["spec"]["max_connections"] == 2
    [row] = data["baseline_run"]
    assert row["n_paired"] == 4 and row["right_to_wrong"] == 1 and row["wrong_to_right"] == 0
    assert row["baseline_accuracy"] == 1.0 and row["accuracy"] == 0.75 and row["gap"] == -0.25
    assert data["meta"]["spec"]["versions"]["python"] and data["meta"]["spec"]["dataset_hash"]
    sent = data["meta"]["spec"]["generation"]["gpsbench.distance"]["sent"]  # what every call sent, recorded
    assert sent == {"max_completion_tokens": 512, "max_tokens": 512, "temperature": 0.0}
    assert data["meta"]["cost"] == "unknown" and "cost unknown (no price for openai-compatible/b)" in out
    with open(run / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 and {r["condition"] for r in rows} == {"intrinsic"}
    assert sum(r["parse_failed"] == "True" for r in rows) == 1
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(run / "results.parquet")
    assert table.num_rows == 4 and "score_value" in table.column_names
    assert export_main([str(run), "--format", "csv", "--output", str(tmp_path / "x")]) == 0
    assert (tmp_path / "x" / "results.csv").exists()


def test_parquet_without_pyarrow_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ExportError, match=r"pip install 'geogap\[parquet\]'"):
        write_parquet([], tmp_path / "r.parquet")


@pytest.mark.parametrize(("text", "needle"), [
    ('modell = "x"', "unknown option 'modell'"),
    ("limit = 'ten'", "option 'limit'"),
    ("cache = 1", "option 'cache'"),
    ("model = [", "cannot read config"),
])
def test_bad_config_is_a_one_line_error(tmp_path: Path, text: str, needle: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text(text)
    assert main(["--config", str(config), "--output", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and needle in err and "\n" not in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("argv", "needle"), [
    (["--export", "xml"], "unknown export format 'xml'"),
    (["--prices", "/nonexistent/p.toml"], "cannot read prices"),
    (["--baseline", "/nonexistent/run"], "--baseline"),
    (["--resume", "/nonexistent/run"], "--resume"),
    (["--epochs", "0"], "--epochs"),
    (["--condition", "tools[all,geodesy]"], "cannot be combined"),
])
def test_more_bad_values(argv: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--output", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err
    assert not (tmp_path / "run").exists()


def test_list_shows_conditions_and_models(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    for needle in ("tools[all]", "inject-tz", "replace-city", "local/qwen2.5-coder-1.5b", "openai/gpt-4o",
                   "geotemp:", "gpsbench:"):
        assert needle in out


def _spec(run_dir: Path) -> dict:
    spec = json.loads((run_dir / "results.json").read_text())["meta"]["spec"]
    return {k: v for k, v in spec.items() if k not in ("versions", "git_revision")}


SCRIPTED = "scripted/test_compare_cli:tool_then_answer"
OPTIONS_AS_FLAGS = ["--model", SCRIPTED, "--tasks", "gpsbench.distance", "--limit", "2", "--condition", "intrinsic",
                    "--max-tokens", "64", "--sample-timeout", "30", "--retry-delay", "0", "--max-connections", "3",
                    "--seed", "5", "--no-cache"]
OPTIONS_AS_KEYS = (f'model = "{SCRIPTED}"\ntasks = ["gpsbench.distance"]\nlimit = 2\nconditions = "intrinsic"\n'
                   "max-tokens = 64\nsample_timeout = 30\nretry-delay = 0\nmax_connections = 3\nseed = 5\n"
                   "no-cache = true\n")


def test_a_config_key_is_its_flag(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text(OPTIONS_AS_KEYS)
    assert main([*OPTIONS_AS_FLAGS, "--output", str(tmp_path / "flags")]) == 0
    assert main(["--config", str(config), "--output", str(tmp_path / "keys")]) == 0
    by_flags, by_keys = _spec(tmp_path / "flags"), _spec(tmp_path / "keys")
    assert by_flags == by_keys
    assert (by_keys["max_tokens"], by_keys["sample_timeout_s"], by_keys["retry_base_delay_s"]) == (64, 30.0, 0.0)
    assert (by_keys["max_connections"], by_keys["seed"], by_keys["cache"]) == (3, 5, False)


@pytest.mark.parametrize(("argv", "accepted"), [
    (["--sample-timeout", "31"], False),  # identity: the results depend on it
    (["--max-tokens", "65"], False),
    (["--call-timeout", "31", "--max-connections", "1", "--retry-delay", "2"], True),  # operational
])
def test_resume_refuses_a_changed_identity_option(argv: list[str], accepted: bool, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main([*OPTIONS_AS_FLAGS, "--output", str(run)]) == 0
    capsys.readouterr()
    assert main(["--resume", str(run), *argv]) == (0 if accepted else 2)
    err = capsys.readouterr().err
    assert accepted or f"{argv[0]} differs from the run being resumed" in err
