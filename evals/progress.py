"""Progress of a run: a running tally of results per condition, and plain progress lines for a stderr that is not a
terminal (nohup, Slurm, CI), where a live progress bar would print nothing until the end.

:class:`ProgressLines` prints ``progress 120/600 (20 %) · intrinsic 41/60 right (68.3 %) · tools ... · 2 failed ·
elapsed 1m30s · ETA 6m00s`` at least every ``interval_s`` seconds (30 by default) from a timer thread, even when
no sample finishes in that time, and once more at the end. Errors and not-applicable samples are no answers: the
running accuracy is right / answered.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from types import TracebackType

from evals.records import SampleResult

PROGRESS_INTERVAL_S = 30.0


class Tally:
    """Results so far per condition: right, wrong (answered), failed and not applicable."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        self.conditions: list[str] = []
        self.done = 0

    def add(self, r: SampleResult) -> None:
        mark = r.status if r.status != "ok" else ("right" if r.score and r.score.correct else "wrong")
        if r.condition not in self.conditions:
            self.conditions.append(r.condition)
        self.counts[(r.condition, mark)] += 1
        self.done += 1

    def describe(self, condition: str) -> str:
        """``tools 41/60 right (68.3 %), 2 failed`` (the share only once something was answered)."""
        right = self.counts[(condition, "right")]
        answered = right + self.counts[(condition, "wrong")]
        failed = self.counts[(condition, "error")]
        share = f" ({100 * right / answered:.1f} %)" if answered else ""
        return f"{condition} {right}/{answered} right{share}" + (f", {failed} failed" if failed else "")


def duration(seconds: float) -> str:
    """``45s``, ``6m05s``, ``2h03m``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class ProgressLines:
    """Plain progress lines through ``say``: on a result when ``interval_s`` has passed since the last line, from
    a timer thread when no result came for that long, and a last one when the context exits."""

    def __init__(self, total: int, say: Callable[[str], None], *, interval_s: float = PROGRESS_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.say, self.interval_s, self.clock = total, say, interval_s, clock
        self.tally = Tally()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started = self.last = clock()

    def line(self) -> str:
        """The current progress line."""
        t = self.tally
        elapsed = self.clock() - self.started
        parts = [f"progress {t.done}/{self.total} ({100 * t.done / self.total:.0f} %)" if self.total
                 else f"progress {t.done}"]
        parts += [t.describe(c) for c in t.conditions]
        parts.append(f"elapsed {duration(elapsed)}")
        if 0 < t.done < self.total:
            parts.append(f"ETA {duration(elapsed / t.done * (self.total - t.done))}")
        return " · ".join(parts)

    def update(self, r: SampleResult) -> None:
        with self._lock:
            self.tally.add(r)
        self.tick()

    def tick(self) -> None:
        """Print a line if ``interval_s`` has passed since the last one."""
        with self._lock:
            if self.clock() - self.last < self.interval_s:
                return
            self.last = self.clock()
            text = self.line()
        self.say(text)

    def _run(self) -> None:
        while not self._stop.wait(max(0.01, self.last + self.interval_s - self.clock())):
            self.tick()

    def __enter__(self) -> ProgressLines:
        self.say(self.line())
        self._thread = threading.Thread(target=self._run, name="progress-lines", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            text = self.line()
        self.say(text)
