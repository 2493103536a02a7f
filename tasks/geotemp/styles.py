"""GeoTemp's protocol (§4.1, §5): every item asked in all three instruction styles.

``geotemp.<template>.styles`` (verification, time_time, time_place, time_time_place) asks each item of the base
task in the neutral, short and cot styles: three samples per item, ids ``<name>[<style>]/<split>/<index>`` with
``meta["item"]`` (``<name>/<split>/<index>``, shared by the three) and ``meta["style"]``. The items, their split and their gold
are those of the base task for the same seed and size. ``limit`` counts items (each gives three samples), so a
limited run always holds whole items, as the per-item majority vote (:mod:`evals.paper_tables`) needs.
"""

from __future__ import annotations

from typing import Any

from tasks.geotemp.timetasks import (
    GeoTempTimeTask,
    TimePlaceTask,
    TimeTimePlaceTask,
    TimeTimeTask,
    VerificationTask,
)
from tasks.records import SPLITS, Sample, Split
from tasks.registry import register_task

STYLE_SUFFIX = ".styles"


class AllStylesMixin:
    """Turns a GeoTemp time task into its all-styles form (mixed in before the base class)."""

    def _styled(self: GeoTempTimeTask, i: int, size: int, *item: Any) -> list[Sample]:  # type: ignore[misc]
        out = []
        for style in self.styles:
            s = self._sample(i, size, *item, style)
            styled = f"{self.name}[{style}]/{s.id.removeprefix(self.name + '/')}"
            out.append(s.model_copy(update={"id": styled, "meta": {**s.meta, "item": s.id}}))
        return out

    def generate(self: GeoTempTimeTask, seed: int, size: int) -> list[Sample]:  # type: ignore[misc]
        return [s for i, *item in self.items(seed, size) for s in self._styled(i, size, *item)]  # type: ignore[attr-defined]

    def samples(self: GeoTempTimeTask, *, split: Split = "test", limit: int | None = None,  # type: ignore[misc]
                seed: int = 42) -> list[Sample]:
        """The split's samples, all styles of each item; ``limit`` is a number of items. Only the items returned
        are rendered (drawing stops after the last), so a limited run at paper size starts at once."""
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        out: list[Sample] = []
        taken = 0
        for i, *item in self.items(seed, self.size):
            if limit is not None and taken >= limit:
                break
            if self.split_of(i) == split:
                out += self._styled(i, self.size, *item)  # type: ignore[attr-defined]
                taken += 1
        return out


def _all_styles(base: type[GeoTempTimeTask]) -> type[GeoTempTimeTask]:
    name = base.name + STYLE_SUFFIX
    cls = type(base.__name__ + "AllStyles", (AllStylesMixin, base), {
        "name": name, "split_key": base.split_key or base.name, "__module__": __name__,
        "__doc__": f"{base.__doc__} Each item in all three instruction styles (the paper's protocol).",
    })
    register_task(name)(cls)
    return cls


ALL_STYLES_TASKS: dict[str, type[GeoTempTimeTask]] = {
    base.name: _all_styles(base) for base in (VerificationTask, TimeTimeTask, TimePlaceTask, TimeTimePlaceTask)
}
"""Base task name -> its all-styles class."""
