"""Epochs are clustered by item: k epochs that answer alike give exactly the one-epoch accuracy interval, gap
interval and McNemar p; epochs that disagree enter as per-item means. Expected values are derived by hand."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage, HumanMessage

import evals.stats
from evals.analysis import compare, compare_runs, overall, summarise
from evals.paper_tables import Column, Stratum, _is, cell, gap
from evals.records import SampleResult
from evals.stats import sign_flip_p
from tasks import get_task
from tasks.records import Score

Z = 1.959964


def result(i: int, cond: str, correct: bool, epoch: int = 0, *, task: str = "fam.t", status: str = "ok",
           error: float | None = None, unit: str | None = None) -> SampleResult:
    return SampleResult(run_id="r", sample_id=f"{task}/test/{i:05d}", task=task, condition=cond, epoch=epoch,
                        model="m", status=status,
                        score=Score(correct=correct, value=float(correct), error=error, error_unit=unit))


def run(intrinsic: list[bool], tools: list[bool], epochs: int) -> list[SampleResult]:
    """The same answers in every epoch (a model at temperature 0)."""
    return [result(i, c, right, e) for e in range(epochs) for c, answers in (("intrinsic", intrinsic), ("tools", tools))
            for i, right in enumerate(answers)]


@pytest.mark.parametrize("epochs", [1, 3, 5])
def test_identical_epochs_give_the_one_epoch_figures_all_gained(epochs: int) -> None:
    # 10 items, all wrong without tools, all right with them. By hand, with c = (z²/n) / (1 + z²/n), n = 10:
    # Wilson(0, 10) = [0, c], Wilson(10, 10) = [1 − c, 1]; every pair gained, so the bootstrap has no spread and
    # Newcombe's paired interval applies: phi = 0 (an empty margin), lower = 1 − √(c² + c²) = 1 − √2·c, upper 1;
    # exact McNemar with 10 discordant pairs all one way: p = 2 · 2⁻¹⁰.
    c = (Z * Z / 10) / (1 + Z * Z / 10)
    [comp] = compare(run([False] * 10, [True] * 10, epochs), ["intrinsic", "tools"])
    i, t, g = comp.conditions["intrinsic"], comp.conditions["tools"], comp.gap["tools"]
    assert (i.n, i.items, t.n, t.items) == (10 * epochs, 10, 10 * epochs, 10)
    assert i.accuracy == 0.0 and i.ci == pytest.approx((0.0, c), abs=1e-9)
    assert t.accuracy == 1.0 and t.ci == pytest.approx((1 - c, 1.0), abs=1e-9)
    assert g["n_paired"] == 10 and g["epochs"] == epochs and g["gap"] == 1.0
    assert g["ci"] == pytest.approx([1 - math.sqrt(2) * c, 1.0], abs=1e-9)
    assert g["mcnemar_p"] == 2 / 1024 and (g["gained"], g["lost"]) == (10, 0)


# 20 items: intrinsic right on 0-4 (5/20), tools right on 1-12 (12/20): 8 gained (5-12), 1 lost (0)
INTRINSIC = [i < 5 for i in range(20)]
TOOLS = [1 <= i <= 12 for i in range(20)]


@pytest.mark.parametrize("epochs", [2, 3])
def test_identical_epochs_give_the_one_epoch_figures_mixed(epochs: int) -> None:
    one = compare(run(INTRINSIC, TOOLS, 1), ["intrinsic", "tools"])[0]
    many = compare(run(INTRINSIC, TOOLS, epochs), ["intrinsic", "tools"])[0]
    g1, gk = one.gap["tools"], many.gap["tools"]
    # Wilson(5, 20) by hand: centre (0.25 + z²/40) / (1 + z²/20) = 0.290283, half-width 0.178421
    assert many.conditions["intrinsic"].ci == pytest.approx((0.111862, 0.468704), abs=1e-5)
    assert many.conditions["intrinsic"].ci == one.conditions["intrinsic"].ci
    assert many.conditions["tools"].accuracy == 0.6 and many.conditions["tools"].ci == one.conditions["tools"].ci
    # exact McNemar, 1 lost and 8 gained: 2 · (C(9,0) + C(9,1)) / 2⁹ = 20 / 512
    assert gk["mcnemar_p"] == g1["mcnemar_p"] == 20 / 512
    assert gk["n_paired"] == 20 and gk["gap"] == pytest.approx(0.35)
    assert gk["ci"] == g1["ci"] and gk["score_ci"] == g1["score_ci"]  # the same items resampled: the same interval
    assert g1["ci"][0] < 0.35 < g1["ci"][1]
    pooled = overall(run(INTRINSIC, TOOLS, epochs), ["intrinsic", "tools"]).gap["tools"]
    assert pooled["ci"] == g1["ci"] and pooled["n_paired"] == 20


def test_epochs_that_disagree_are_averaged_per_item() -> None:
    # 3 items, 2 epochs. Item 0: intrinsic wrong twice, tools right twice (d = 1); items 1, 2: tools right in one
    # epoch of two (d = 1/2). Mean gap (1 + 1/2 + 1/2) / 3 = 2/3. Sign flips on the grid of halves: steps 2, 1, 1,
    # observed sum 4, the largest of 8 equally likely patterns with its mirror: p = 2/8.
    rs = [result(i, "intrinsic", False, e) for i in range(3) for e in range(2)]
    rs += [result(0, "tools", True, e) for e in range(2)]
    rs += [result(i, "tools", e == 0, e) for i in (1, 2) for e in range(2)]
    [comp] = compare(rs, ["intrinsic", "tools"])
    g = comp.gap["tools"]
    assert g["n_paired"] == 3 and g["gap"] == pytest.approx(2 / 3) and g["mcnemar_p"] == 0.25
    assert (g["gained"], g["lost"]) == (3, 0)
    t = comp.conditions["tools"]
    assert (t.n, t.items, t.correct) == (6, 3, 4) and t.accuracy == pytest.approx(2 / 3)


def test_an_epoch_ended_in_error_leaves_the_item_its_other_epochs() -> None:
    # item 0: tools right in epoch 0, failed in epoch 1: its tools mean is 1 (one answer), not 1/2
    rs = [result(0, "intrinsic", False, e) for e in range(2)]
    rs += [result(0, "tools", True, 0), result(0, "tools", False, 1, status="error")]
    rs += [result(1, "intrinsic", True, e) for e in range(2)] + [result(1, "tools", True, e) for e in range(2)]
    [comp] = compare(rs, ["intrinsic", "tools"])
    t = comp.conditions["tools"]
    assert (t.n, t.items, t.errors, t.accuracy) == (3, 2, 1, 1.0)
    assert comp.gap["tools"]["gap"] == pytest.approx(0.5) and comp.gap["tools"]["n_paired"] == 2


def test_sign_flip_by_hand_and_its_mcnemar_special_case() -> None:
    half = Fraction(1, 2)
    # steps on the grid of halves 1, 1, 1, 1 with signs + − + +: |sum| = 2; P(|S| ≥ 2) for 4 fair ±1 = 10/16
    assert sign_flip_p([half, -half, half, half, Fraction(0)]) == 10 / 16
    # the same differences as whole answers are McNemar's 1 lost / 3 gained: 2 · (1 + 4) / 16
    assert sign_flip_p([Fraction(1), Fraction(-1), Fraction(1), Fraction(1)]) == 10 / 16
    assert sign_flip_p([]) == 1.0 and sign_flip_p([Fraction(0)] * 3) == 1.0
    # thirds: steps 3, 1 (d = 1, 1/3), observed 4 = the maximum, 2 of 4 patterns reach |sum| ≥ 4
    assert sign_flip_p([Fraction(1), Fraction(1, 3)]) == 0.5


def test_sign_flip_monte_carlo_past_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    diffs = [Fraction(1, 2)] * 9 + [Fraction(-1, 2)]  # exactly: McNemar 1 vs 9 on halves = 2 · 11 / 1024
    monkeypatch.setattr(evals.stats, "SIGN_FLIP_MAX_CELLS", 1)
    p = sign_flip_p(diffs, resamples=20_000)
    assert p == pytest.approx(22 / 1024, abs=0.005) and p != 22 / 1024


def test_compare_runs_pairs_items_whatever_the_epochs() -> None:
    current = [result(i, "tools", True, e) for i in range(4) for e in range(3)]
    baseline = [result(i, "tools", i < 2) for i in range(4)]
    [row] = compare_runs(current, baseline)
    assert row["n_paired"] == 4 and row["gap"] == pytest.approx(0.5) and row["mcnemar_p"] == 0.5  # 2 gained: 2/4
    assert row["accuracy"] == 1.0 and row["baseline_accuracy"] == 0.5


def test_paper_table_cells_and_gaps_cluster_epochs() -> None:
    column = Column("t", "T", (Stratum(_is("fam.t")),))

    def by_condition(epochs: int) -> dict[str, list[SampleResult]]:
        rs = run(INTRINSIC, TOOLS, epochs)
        return {c: [r for r in rs if r.condition == c] for c in ("intrinsic", "tools")}

    one, three = by_condition(1), by_condition(3)
    assert cell(three, "tools", column) == cell(one, "tools", column) == {"value": 0.6, "n": 20, "hedged": 0.0}
    assert gap(three, "tools", column) == gap(one, "tools", column)
    assert gap(three, "tools", column)["n_paired"] == 20


def test_pooled_error_never_mixes_units() -> None:
    rs = [result(i, "intrinsic", False, task="a.km", error=10.0, unit="km") for i in range(3)]
    rs += [result(i, "intrinsic", False, task="b.deg", error=2.0, unit="degrees") for i in range(3)]
    pooled = overall(rs, ["intrinsic"]).conditions["intrinsic"]
    assert pooled.mean_error is None and pooled.error_summary is None and pooled.error_unit is None
    km = summarise([r for r in rs if r.task == "a.km"])
    assert km.mean_error == 10.0 and km.error_unit == "km"


GOLD = {s.prompt: s.target["km"] for s in get_task("gpsbench.distance").samples(limit=8)}
RIGHT_WITHOUT_TOOLS = sorted(GOLD)[:2]


def temperature_zero(messages: list[BaseMessage], tools: list[str]) -> str:
    """Answers alike in every epoch: right with tools on all but one item, right without on two items."""
    prompt = next(str(m.content) for m in messages if isinstance(m, HumanMessage))
    right = prompt in RIGHT_WITHOUT_TOOLS if not tools else prompt != sorted(GOLD)[-1]
    return f"FINAL ANSWER: {GOLD[prompt] if right else 1.0} km"


def test_a_cli_run_with_three_epochs_has_the_one_epoch_interval(tmp_path: Path) -> None:
    from evals.compare import main

    gaps = {}
    for epochs in (1, 3):
        out = tmp_path / f"e{epochs}"
        assert main(["--model", f"scripted/{__name__}:temperature_zero", "--tasks", "gpsbench.distance", "--limit",
                     "8", "--epochs", str(epochs), "--no-cache", "--output", str(out)]) == 0
        report = json.loads((out / "results.json").read_text())
        gaps[epochs] = report["tasks"][0]["gap"]["tools"], report["tasks"][0]["conditions"]["tools"]
    (one, acc1), (three, acc3) = gaps[1], gaps[3]
    assert three["n_paired"] == one["n_paired"] == 8 and three["epochs"] == 3
    # tools right on 7 of 8, intrinsic on 2 (both among the 7): 5 gained, 0 lost; exact McNemar 2 · 2⁻⁵
    assert three["gap"] == one["gap"] == pytest.approx(5 / 8) and three["mcnemar_p"] == one["mcnemar_p"] == 2 / 32
    assert three["ci"] == one["ci"] and one["ci"][0] < 5 / 8 < one["ci"][1]
    assert acc3["ci"] == acc1["ci"] and acc3["n"] == 24 and acc3["items"] == 8
