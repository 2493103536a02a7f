"""``python -m evals.plan``: McNemar item counts (Connor 1987) checked against published values and a simulation,
and the cost of the planned run at list, batch and flex prices."""

from __future__ import annotations

import re

import numpy as np
import pytest

from evals.plan import main, mcnemar_items, plan
from evals.pricing import Price, PriceTable
from evals.records import RunSpec, SampleResult
from evals.store import RunStore
from tasks.records import Score


def test_item_counts_match_published_calculators() -> None:
    # zarathucorp open-powersamplesize, McNemar 2-sided (Connor 1987, p. 209): p01 .45, p10 .05 -> 23 pairs
    assert mcnemar_items(0.50, 0.40) == 23
    # clinicaltrials-tools McNemar calculator (Connor 1987): discordant .45, |p10 - p01| .15 -> 155 pairs
    assert mcnemar_items(0.45, 0.15) == 155


def simulated_power(n: int, discordant: float, gap: float, reps: int = 40_000, seed: int = 7) -> float:
    """Share of simulated pilots of ``n`` pairs whose two-sided McNemar z test (no continuity correction) rejects
    at α 0.05: pairs drawn as gained (p01), lost (p10) or concordant."""
    rng = np.random.default_rng(seed)
    p01, p10 = (discordant + gap) / 2, (discordant - gap) / 2
    cells = rng.multinomial(n, [p01, p10, 1 - p01 - p10], size=reps)
    b, c = cells[:, 0].astype(float), cells[:, 1].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(b + c > 0, (b - c) / np.sqrt(b + c), 0.0)
    return float(np.mean(np.abs(z) > 1.959964))


@pytest.mark.parametrize(("discordant", "gap"), [(0.30, 0.05), (0.12, 0.05), (0.40, 0.10)])
def test_item_count_gives_80_percent_power_in_simulation(discordant: float, gap: float) -> None:
    n = mcnemar_items(discordant, gap)
    assert 0.77 <= simulated_power(n, discordant, gap) <= 0.84
    assert simulated_power(int(0.7 * n), discordant, gap) < 0.72  # fewer items: clearly short of the target


def test_fewer_discordant_pairs_than_the_gap_are_planned_at_the_gap() -> None:
    assert mcnemar_items(0.01, 0.05) == mcnemar_items(0.05, 0.05)
    with pytest.raises(ValueError):
        mcnemar_items(0.3, 5)  # a gap in points, not a share


def result(i: int, cond: str, correct: bool, *, task: str = "fam.t", calls: int = 1) -> SampleResult:
    return SampleResult(run_id="r", sample_id=f"{task}/test/{i:05d}", task=task, condition=cond,
                        model="openai/gpt-x", score=Score(correct=correct, value=float(correct)),
                        input_tokens=1_000, output_tokens=100, model_calls=calls)


def pilot() -> list[SampleResult]:
    # 20 items: intrinsic right on 0..7, tools right on 2..13: 6 gained, 2 lost -> discordant 8/20 = 0.4
    return [result(i, "intrinsic", i < 8) for i in range(20)] + \
        [result(i, "tools", 2 <= i < 14, calls=3) for i in range(20)]


PRICES = PriceTable({"openai/gpt-x": Price(input=1.0, output=10.0)})


def test_plan_reads_discordant_pairs_and_prices_each_tier() -> None:
    [p] = plan(pilot(), 0.05, prices=PRICES)
    assert (p.task, p.condition, p.pilot_pairs, p.discordant) == ("fam.t", "tools", 20, pytest.approx(0.4))
    assert p.items == mcnemar_items(0.4, 0.05) and not p.floored
    # per result: 1,000 in × $1/M + 100 out × $10/M = $0.002 on each side; openai: batch and flex at half price
    per_item = 0.002
    assert p.cost_usd["list"] == pytest.approx(p.items * 2 * per_item)
    assert p.cost_usd["batch"] == pytest.approx(p.items * (0.5 + 1) * per_item)  # tools is multi-turn: list
    assert p.cost_usd["flex"] == pytest.approx(p.items * 2 * 0.5 * per_item)
    assert p.cost_usd["batch+flex"] == pytest.approx(p.items * 2 * 0.5 * per_item)


def test_a_provider_without_flex_pays_list_price_there() -> None:
    rs = [r.model_copy(update={"model": "anthropic/claude-x"}) for r in pilot()]
    prices = PriceTable({"anthropic/claude-x": Price(input=1.0, output=10.0)})
    [p] = plan(rs, 0.05, prices=prices)
    assert p.cost_usd["flex"] == pytest.approx(p.cost_usd["list"])
    assert p.cost_usd["batch+flex"] == pytest.approx(p.cost_usd["batch"])
    assert p.cost_usd["batch"] == pytest.approx(0.75 * p.cost_usd["list"])  # the intrinsic half at half price


def test_unknown_price_gives_no_cost_and_a_missing_baseline_is_refused() -> None:
    [p] = plan(pilot(), 0.05, prices=PriceTable({}))
    assert p.items is not None and p.cost_usd["list"] is None
    with pytest.raises(ValueError, match="intrinsic"):
        plan([r for r in pilot() if r.condition == "tools"], 0.05, prices=PRICES)


def test_cli_prints_the_plan_of_a_stored_pilot(tmp_path, capsys) -> None:
    with RunStore(tmp_path) as store:
        store.write_spec("r", RunSpec(model="openai/gpt-5-mini", tasks=["fam.t"], conditions=["intrinsic", "tools"]))
        for r in pilot():
            store.add_result(r.model_copy(update={"model": "openai/gpt-5-mini"}))
    assert main([str(tmp_path), "--gap", "5"]) == 0
    out = capsys.readouterr().out
    assert "fam.t" in out and f"{mcnemar_items(0.4, 0.05):,}" in out and "40.0" in out
    assert main([str(tmp_path / "nope"), "--gap", "5"]) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_dry_run_adds_the_batch_and_flex_totals(tmp_path, capsys, monkeypatch) -> None:
    from evals.compare import main as compare_main

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    prices = tmp_path / "prices.toml"
    prices.write_text('["openai/gpt-test"]\ninput = 1.0\noutput = 4.0\n')
    argv = ["--model", "openai/gpt-test", "--tasks", "gpsbench.distance", "--limit", "4", "--max-tokens", "100",
            "--prices", str(prices), "--output", str(tmp_path / "run"), "--dry-run"]
    assert compare_main(argv) == 0
    out = capsys.readouterr().out
    usd = {row.split()[1]: float(row.split()[-2]) for row in out.split("Typical")[0].splitlines()
           if row.strip().startswith("openai/")}  # the ceiling's USD, before its wall time
    tail = " ".join(out.split()).split("at most, with --batch")[1]
    batch, flex = (float(x) for x in re.findall(r"\$([0-9.]+[0-9])", tail)[:2])
    # OpenAI: intrinsic (one call) at half price with --batch, tools at list; flex halves both
    assert batch == pytest.approx(usd["intrinsic"] / 2 + usd["tools"], abs=2e-4)
    assert flex == pytest.approx((usd["intrinsic"] + usd["tools"]) / 2, abs=2e-4)
