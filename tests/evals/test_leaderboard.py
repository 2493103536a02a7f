"""The leaderboard's pieces on hand-made results: per-item gaps over epochs, the paired difference of two models'
gaps, statuses read generically, cost unknown when a price is."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.leaderboard import Entry, build_leaderboard, gap_difference, item_gaps, status_shares
from evals.records import SampleResult
from tasks.records import Score


def result(sid: str, condition: str, correct: bool, epoch: int = 0, *, status: str = "answered",
           cost: float | None = 0.0, task: str = "t.a") -> SampleResult:
    score = Score(correct=correct, value=float(correct)) if status == "answered" else \
        Score.model_construct(correct=False, value=0.0, status=status, parse_failed=True)  # any later status
    return SampleResult(run_id="r", sample_id=sid, task=task, condition=condition, epoch=epoch, model="m",
                        score=score, cost_usd=cost)


def model(pattern: list[tuple[bool, bool]], epochs: int = 1) -> list[SampleResult]:
    """Per item (intrinsic right, tools right), repeated identically over ``epochs``."""
    return [result(f"t.a/test/{i}", c, right, e) for e in range(epochs) for i, (ri, rt) in enumerate(pattern)
            for c, right in (("intrinsic", ri), ("tools", rt))]


A = [(False, True)] * 6 + [(True, True)] * 3 + [(True, False)] * 1  # gains 6, loses 1
B = [(False, False)] * 8 + [(False, True)] * 2  # gains 2


def test_item_gaps_average_epochs_and_need_both_conditions() -> None:
    rs = [result("x", "intrinsic", False, 0), result("x", "tools", True, 0), result("x", "intrinsic", False, 1),
          result("x", "tools", False, 1), result("y", "intrinsic", True, 0)]
    assert item_gaps(rs, "intrinsic", "tools") == {("t.a", "x"): 0.5}  # y has no tools answer: not an item


def test_the_difference_of_gaps_is_paired_over_items_and_epochs_do_not_narrow_it() -> None:
    one = gap_difference(item_gaps(model(A), "intrinsic", "tools"), item_gaps(model(B), "intrinsic", "tools"))
    assert one["n_items"] == 10 and one["difference"] == pytest.approx(0.5 - 0.2)
    lo, hi = one["ci"]
    assert lo < 0.3 < hi
    three = gap_difference(item_gaps(model(A, 3), "intrinsic", "tools"), item_gaps(model(B, 3), "intrinsic", "tools"))
    assert three == one  # three identical epochs: the same items, the same interval


def test_statuses_are_read_generically_and_unknown_cost_stays_unknown(tmp_path: Path) -> None:
    rs = [result("a", "tools", False, status="truncated"), result("b", "tools", False, status="hedged"),
          result("c", "tools", True), result("d", "tools", True)]
    failed = SampleResult(run_id="r", sample_id="e", task="t.a", condition="tools", model="m", status="error")
    assert status_shares([*rs, failed]) == {"answered": 0.5, "hedged": 0.25, "truncated": 0.25}
    priced = Entry("A", "m", tmp_path / "a", ["intrinsic", "tools"], model(A), True)
    unpriced = Entry("B", "m", tmp_path / "b", ["intrinsic", "tools"], [*model(B)[:-1], result(
        "t.a/test/9", "tools", True, cost=None)], True)
    board = build_leaderboard([priced, unpriced])
    costs = {m["label"]: m["cost_usd"] for m in board["models"]}
    assert costs == {"A": 0.0, "B": None}
    [d] = board["differences"]
    assert (d["a"], d["b"], d["task"]) == ("A", "B", "t.a") and d["difference"] == pytest.approx(0.3)


def test_the_unlocated_share_is_shown_beside_truncated_and_hedged(tmp_path: Path) -> None:
    from rich.console import Console

    from evals.leaderboard import HEADERS, print_leaderboard, row_cells

    tools = [result(f"t.a/test/{i}", "tools", False, status=s) for i, s in enumerate(["unlocated", "hedged"])]
    tools += [result(f"t.a/test/{i}", "tools", True) for i in (2, 3)]
    rs = [*(result(f"t.a/test/{i}", "intrinsic", False) for i in range(4)), *tools]
    board = build_leaderboard([Entry("A", "m", tmp_path / "a", ["intrinsic", "tools"], rs, True),
                               Entry("B", "m", tmp_path / "b", ["intrinsic", "tools"], model(B), True)])
    row = next(r for r in board["rows"] if r["model"] == "A")
    assert row_cells(row, "intrinsic", "tools")[4:7] == ["0.0/0.0", "0.0/25.0", "0.0/25.0"]  # trunc, hedged, unloc
    assert HEADERS[4:7] == ["trunc % b/c", "hedged % b/c", "unloc % b/c"]
    out = Console(record=True, width=80)
    print_leaderboard(board, out)
    text = out.export_text()
    assert "unloc %" in text and "0/25/25" in text and "+50.0 [" in text  # the gap is never cut at 80 columns
