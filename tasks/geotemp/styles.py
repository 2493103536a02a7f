"""GeoTemp's protocol (§4.1, §5): every item asked in all three instruction styles.

``geotemp.<template>.styles`` (verification, time_time, time_place, time_time_place) asks each item of the base
task in the neutral, short and cot styles: three samples per item, ids ``<name>[<style>]/<split>/<index>`` with
``meta["item"]`` (``<name>/<split>/<index>``, shared by the three) and ``meta["style"]``. The items, their split and their gold
are those of the base task for the same seed and size. ``limit`` counts items (each gives three samples), so a
limited run always holds whole items, as the per-item majority vote (:mod:`evals.paper_tables`) needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tasks.records import SPLITS, Sample, Split
from tasks.registry import Variant

if TYPE_CHECKING:
    from datetime import datetime

    from tasks.geotemp.locations import Location
    from tasks.geotemp.timetasks import GeoTempTimeTask

ALL_STYLES = Variant("styles", {"all_styles": True}, "Each item in all three instruction styles (the paper's protocol).")
"""The ``.styles`` variant of a time template."""


def styled(task: GeoTempTimeTask, i: int, size: int, l1: Location, l2: Location, start: datetime,
           hours: int | None) -> list[Sample]:
    """Item ``i`` in each of the task's styles, ids ``<name>[<style>]/<split>/<index>``."""
    return task.samples_of(i, size, l1, l2, start, hours, task.styles, styled_ids=True)


def all_styles_generate(task: GeoTempTimeTask, seed: int, size: int) -> list[Sample]:
    """Every item in every style."""
    return [s for i, l1, l2, start, hours in task.items(seed, size) for s in styled(task, i, size, l1, l2, start, hours)]


def all_styles_samples(task: GeoTempTimeTask, split: Split, limit: int | None, seed: int) -> list[Sample]:
    """The split's samples, all styles of each item; ``limit`` is a number of items. Only the items returned
    are rendered (drawing stops after the last), so a limited run at paper size starts at once."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    out: list[Sample] = []
    taken = 0
    for i, l1, l2, start, hours in task.items(seed, task.size):
        if limit is not None and taken >= limit:
            break
        if task.split_of(i) == split:
            out += styled(task, i, task.size, l1, l2, start, hours)
            taken += 1
    return out
