"""Progress lines when stderr is not a terminal: counts, running accuracy and ETA, at least every interval, driven
by a fake clock (no timed assertion)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from evals.progress import ProgressLines, duration
from evals.records import SampleResult
from tasks.records import Score


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def result(cond: str, correct: bool, status: str = "ok") -> SampleResult:
    return SampleResult(run_id="r", sample_id="s", task="t", condition=cond, model="m", status=status,
                        score=Score(correct=correct, value=float(correct)))


def test_lines_every_interval_with_counts_accuracy_and_eta() -> None:
    clock, lines = FakeClock(), []
    p = ProgressLines(10, lines.append, interval_s=30, clock=clock)
    clock.now += 10
    p.update(result("intrinsic", True))
    assert lines == []  # 10 s since the start: not yet
    clock.now += 20
    p.update(result("intrinsic", False))  # 30 s: a line
    assert lines == ["progress 2/10 (20 %) · intrinsic 1/2 right (50.0 %) · elapsed 30s · ETA 2m00s"]
    clock.now += 45
    p.update(result("tools", False, status="error"))  # a failed sample is no answer
    p.update(result("tools", True))
    assert lines[1:] == ["progress 3/10 (30 %) · intrinsic 1/2 right (50.0 %) · tools 0/0 right, 1 failed · "
                         "elapsed 1m15s · ETA 2m55s"]


def test_the_timer_prints_when_no_result_comes() -> None:
    clock, lines = FakeClock(), []
    p = ProgressLines(4, lines.append, interval_s=30, clock=clock)
    p.update(result("tools", True))
    p.tick()
    assert lines == []
    clock.now += 31  # a slow sample: nothing finished for 31 s
    p.tick()
    assert lines == ["progress 1/4 (25 %) · tools 1/1 right (100.0 %) · elapsed 31s · ETA 1m33s"]
    p.tick()
    assert len(lines) == 1  # not again until another interval has passed


def test_the_context_starts_a_timer_thread_and_prints_a_last_line() -> None:
    lines: list[str] = []
    three = threading.Event()

    def say(line: str) -> None:
        lines.append(line)
        if len(lines) >= 3:
            three.set()

    with ProgressLines(2, say, interval_s=0.01) as p:
        p.update(result("intrinsic", True))
        assert three.wait(60)  # the timer thread printed with no further result
    assert lines[0].startswith("progress 0/2 (0 %)") and lines[-1].startswith("progress 1/2 (50 %)")


@pytest.mark.parametrize(("seconds", "text"), [(0.4, "0s"), (59, "59s"), (60, "1m00s"), (3725, "1h02m")])
def test_duration(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_a_run_with_stderr_not_a_terminal_prints_progress_lines(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from evals.compare import main

    argv = ["--model", "scripted/tests.evals.test_compare_cli:tool_then_answer", "--tasks", "gpsbench.distance",
            "--limit", "2", "--no-cache", "--output", str(tmp_path / "run")]
    assert main(argv) == 0
    err = capsys.readouterr().err
    progress = [line for line in err.splitlines() if line.startswith("progress ")]
    assert progress[0].startswith("progress 0/4 (0 %)")
    assert progress[-1].startswith("progress 4/4 (100 %) · intrinsic ") and " right (" in progress[-1]
