"""GeoTemp's protocol (§4.1, §5): every item asked in all three instruction styles.

``geotemp.<template>.styles`` (verification, time_time, time_place, time_time_place) asks each item of the base
task in the neutral, short and cot styles: three samples per item, ids ``<name>[<style>]/<split>/<index>`` with
``meta["item"]`` (``<name>/<split>/<index>``, shared by the three) and ``meta["style"]``. The items, their split
and their gold are those of the base task for the same seed and size (drawn once, :meth:`GeoTempTimeTask.items`;
rendered by :meth:`GeoTempTimeTask.samples_of`). ``limit`` counts items (each gives three samples), so a
limited run always holds whole items, as the per-item majority vote (:mod:`evals.paper_tables`) needs.
"""

from __future__ import annotations

from tasks.registry import Variant

ALL_STYLES = Variant("styles", {"all_styles": True}, "Each item in all three instruction styles (the paper's protocol).")
"""The ``.styles`` variant of a time template."""

