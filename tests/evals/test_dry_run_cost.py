"""``--dry-run`` (an estimate before anything is called, nothing written) and ``--max-cost`` (a run stops when its
spend reaches the cap, exit code 5, and ``--resume`` continues it), through the CLI with a scripted model."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage

from evals.compare import main
from evals.cost import EXIT_COST_CAP
from evals.run_reader import RunReader
from tasks.registry import get_task

TASK, LIMIT = "gpsbench.distance", 5


def answer(messages: list[BaseMessage], tools: list[str]) -> str:
    """Six words: the scripted model counts 7 output tokens for it (words + 1)."""
    return "I say: FINAL ANSWER: 1 km"


MODEL = f"scripted/{__name__}:answer"


def _prices(tmp_path: Path, output_per_million: float) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(f'["scripted/*"]\ninput = 0\noutput = {output_per_million}\n')
    return path


def _cells(out: str, condition: str) -> list[str]:
    """The ceiling table's row of ``condition``."""
    [line] = [row for row in out.split("Typical")[0].splitlines() if f" {condition} " in f" {row} " and MODEL in row]
    return line.split()


def test_dry_run_prints_the_estimate_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    prices = _prices(tmp_path, 2.0)  # USD 2 per million output tokens
    out_dir = tmp_path / "run"
    argv = ["--model", MODEL, "--tasks", TASK, "--limit", str(LIMIT), "--max-tokens", "100", "--max-steps", "3",
            "--epochs", "2", "--prices", str(prices), "--output", str(out_dir), "--dry-run"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert not out_dir.exists() and not (tmp_path / "runs").exists()
    assert "nothing was called, nothing was written" in out and "estimate, not a measurement" in " ".join(out.split())
    samples = get_task(TASK).samples(split="test", seed=42)[:LIMIT]
    prompt = [sum(math.ceil(len(m.content) / 4) for m in s.messages) for s in samples]
    intrinsic = _cells(out, "intrinsic")
    items, calls, tokens_in, tokens_out, usd = intrinsic[-6:-1]
    assert (items, calls) == (str(2 * LIMIT), str(2 * LIMIT))  # 5 samples × 2 epochs, one call each
    assert tokens_in == f"{2 * sum(prompt):,}" and tokens_out == f"{2 * LIMIT * 100:,}"
    assert usd == f"{2 * LIMIT * 100 * 2.0 / 1e6:.4f}"
    tools = _cells(out, "tools")
    assert tools[-6:-4] == [str(2 * LIMIT), str(2 * LIMIT * 3)]  # three calls each at most
    assert tools[-3] == f"{2 * LIMIT * 3 * 100:,}"
    assert int(tools[-4].replace(",", "")) > 3 * int(tokens_in.replace(",", ""))  # schemas and history re-sent


def test_dry_run_without_a_price_says_unknown_and_several_models_are_listed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = "openai-compatible/unpriced"  # scripted models are free (built-in price table); this one has no price
    assert main(["--model", f"{MODEL},{other}", "--base-url", "http://127.0.0.1:9/v1", "--tasks", TASK, "--limit",
                 "2", "--output", str(tmp_path / "p"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "price unknown" in out and "estimated cost at most: unknown" in out
    assert MODEL in out and other in out
    assert not (tmp_path / "p").exists()


def test_max_cost_needs_a_known_price(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--model", "openai-compatible/unpriced", "--base-url", "http://127.0.0.1:9/v1", "--tasks", TASK,
                 "--limit", "2", "--max-cost", "1", "--output", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --max-cost needs the price of") and "--prices" in err and "\n" not in err
    assert not (tmp_path / "run").exists()
    assert main(["--model", MODEL, "--tasks", TASK, "--max-cost", "-1", "--prices", str(_prices(tmp_path, 1)),
                 "--output", str(tmp_path / "run")]) == 2
    assert "--max-cost must be a positive number" in capsys.readouterr().err


def test_max_cost_stops_the_run_and_resume_continues_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prices = _prices(tmp_path, 1e6)  # USD 1 per output token: 7 tokens, USD 7 per answer
    run = tmp_path / "run"
    common = ["--prices", str(prices), "--max-connections", "1"]
    assert main(["--model", MODEL, "--tasks", TASK, "--limit", str(LIMIT), "--no-cache", "--output", str(run),
                 "--max-cost", "12", *common]) == EXIT_COST_CAP
    err = " ".join(capsys.readouterr().err.split())
    assert "stopped: spend $14.0000 reached --max-cost $12" in err and f"--resume {run}" in err
    results = list(RunReader(run).results(with_trace=False))
    assert [r.cost_usd for r in results] == [7.0, 7.0]  # the second answer reached the cap: stopped there
    assert not (run / "results.json").exists()  # no table for a run that stopped
    def stamps() -> dict[str, int]:  # SQLite's shared-memory index (-shm) is touched by any reader: left out
        return {f.name: f.stat().st_mtime_ns for f in run.iterdir() if not f.name.endswith("-shm")}

    before = stamps()
    assert main(["--resume", str(run), "--dry-run", *common]) == 0  # what is left: 3 intrinsic items, 5 tools
    out = capsys.readouterr().out
    assert _cells(out, "intrinsic")[-6] == str(LIMIT - 2) and _cells(out, "tools")[-6] == str(LIMIT)
    assert stamps() == before  # nothing written
    assert main(["--resume", str(run), "--max-cost", "12", *common]) == EXIT_COST_CAP  # the cap is spent
    assert "nothing was run" in capsys.readouterr().err
    assert len(list(RunReader(run).results(with_trace=False))) == 2
    assert main(["--resume", str(run), *common]) == 0  # no cap: the rest
    results = list(RunReader(run).results(with_trace=False))
    assert len(results) == 2 * LIMIT and sum(r.cost_usd or 0 for r in results) == 7.0 * 2 * LIMIT


def test_dry_run_with_a_pilot_gives_typical_figures_from_its_real_use(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pilot = tmp_path / "pilot"
    assert main(["--model", MODEL, "--tasks", TASK, "--limit", "3", "--no-cache", "--output", str(pilot)]) == 0
    real = list(RunReader(pilot).results(with_trace=False))
    capsys.readouterr()
    # the full run would be 6 items: twice the pilot's 3; the typical figure is its mean per answer × 6
    assert main(["--model", MODEL, "--tasks", TASK, "--limit", "6", "--output", str(tmp_path / "run"), "--dry-run",
                 "--pilot", str(pilot)]) == 0
    out = capsys.readouterr().out
    assert "ceiling" in out and f"Typical, from the pilot run {pilot}" in " ".join(out.split())
    for condition in ("intrinsic", "tools"):
        mine = [r for r in real if r.condition == condition]
        rows = [line.split() for line in out.split("Typical")[1].splitlines() if f" {condition} " in f" {line} "]
        items, measured, tokens_in, tokens_out = rows[0][-6:-2]
        assert (items, measured) == ("6", "6")
        assert int(tokens_in.replace(",", "")) == round(6 * sum(r.input_tokens for r in mine) / len(mine))
        assert int(tokens_out.replace(",", "")) == round(6 * sum(r.output_tokens for r in mine) / len(mine))
    assert not (tmp_path / "run").exists()
    # the real 6-item run spends within 2x of the typical figure
    assert main(["--model", MODEL, "--tasks", TASK, "--limit", "6", "--no-cache", "--output", str(tmp_path / "run")]) == 0
    full = list(RunReader(tmp_path / "run").results(with_trace=False))
    typical_in = sum(int(line.split()[-4].replace(",", "")) for line in out.split("Typical")[1].splitlines()
                     if MODEL in line)
    assert 0.5 <= sum(r.input_tokens for r in full) / typical_in <= 2.0


def test_a_pilot_that_is_not_a_run_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--model", MODEL, "--tasks", TASK, "--limit", "2", "--dry-run", "--pilot", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"error: --pilot {tmp_path}: no run store there (run.sqlite)"


def uses_the_tool(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """With tools: one distance_km call, then an answer from its result; alone: a guess."""
    from test_numbers_agree import policy

    return policy(messages, tools)


def _table(out: str, title: str) -> dict[str, list[str]]:
    """Rows of the table after ``title`` by condition (the cells after model and condition)."""
    part = out.split(title, 1)[1]
    rows = {}
    for line in part.splitlines():
        cells = line.split()
        if cells and cells[0].startswith("scripted/") and cells[1] not in rows:
            rows[cells[1]] = [c.replace(",", "") for c in cells[2:]]
        elif rows and not cells:
            break
    return rows


def test_dry_run_without_a_pilot_gives_typical_and_ceiling_figures(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    model = f"scripted/{__name__}:uses_the_tool"
    prices = _prices(tmp_path, 2.0)
    argv = ["--model", model, "--tasks", TASK, "--limit", str(LIMIT), "--max-tokens", "200", "--max-steps", "3",
            "--prices", str(prices), "--output", str(tmp_path / "run")]
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    said = " ".join(out.split())
    assert "(ceiling)" in said and "Typical, from the prompts' measured sizes (no pilot)" in said
    assert "assumed, not measured; the table above is the ceiling" in said and "wall time: " in said
    ceiling = _table(out, "(ceiling)")  # items, calls, input, output, USD, wall s
    typical = _table(out, "(no pilot)")  # items, measured, input, output, USD, wall s
    for c in ("intrinsic", "tools"):
        assert typical[c][1] == "–"  # nothing measured without a pilot
        for i, j in ((2, 2), (3, 3), (4, 4), (5, 5)):  # tokens, cost and wall time: typical at most the ceiling
            assert float(typical[c][i]) <= float(ceiling[c][j]), (c, i)
        assert float(typical[c][4]) == pytest.approx(int(typical[c][3]) * 2.0 / 1e6, abs=1e-4)  # output-priced
    # intrinsic: the same prompts; a 150-token answer where the ceiling writes 200
    assert typical["intrinsic"][2] == ceiling["intrinsic"][2] and typical["intrinsic"][3] == str(LIMIT * 150)
    # tools: the ceiling sends prompt + schemas (head) then head + 200 and head + 400 (3 steps), so the heads sum to
    # (input − LIMIT × 600) / 3; the typical run sends each head twice, plus a 50-token call and a 40-token result
    heads = (int(ceiling["tools"][2]) - LIMIT * 600) / 3
    assert int(typical["tools"][2]) == 2 * heads + LIMIT * 90 and typical["tools"][3] == str(LIMIT * 200)
    # the stand-in run reads within 2x of the typical input tokens without tools (it counts the prompt's words; it
    # is never sent tool schemas, so its tools figure is no check of the typical one); and it makes the typical
    # calls: one tool call, then the answer
    assert main([*argv, "--no-cache"]) == 0
    real = list(RunReader(tmp_path / "run").results(with_trace=False))
    spent = sum(r.input_tokens for r in real if r.condition == "intrinsic")
    assert 0.5 <= spent / int(typical["intrinsic"][2]) <= 2.0, (spent, typical["intrinsic"][2])
    assert [(r.model_calls, r.tool_calls) for r in real if r.condition == "tools"] == [(2, 1)] * LIMIT
