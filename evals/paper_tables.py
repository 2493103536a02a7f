"""Paper-shaped tables of a suite run (:mod:`evals.suites`): one row per condition, the paired gap row(s) under
them, the hedged share and n, and, with ``--compare-paper``, the figures each paper published as extra rows.

A cell is a weighted mean over strata (one task, one task in one setting, ...), each stratum the mean of its units'
values: a unit is one answered sample (``correct``, or ``Score.value`` for ST-IoU, or ``Score.error`` in metres
for MAE) or, for GeoTemp's majority vote, one item whose three styles were all answered (1 when at least two
styles are correct: correct answers agree with the gold, so they are the majority answer; otherwise no answer
reached two styles, or the one that did is wrong). Samples ended in error are no unit; hedged, unparsed and
refused answers are units that count as wrong (and carry no MAE). With several epochs a unit is one item (sample,
or GeoTemp item for the majority vote): its value is the mean over its epochs (of those with a value), its hedged
share the mean over its epochs, so ``n`` counts items and the interval is over items, as in :mod:`evals.analysis`.
Track, Overall and Avg columns weigh their tasks equally, as the papers average per-task figures.

The gap of a cell is other − intrinsic over the units both conditions have, each stratum paired on its own, with
a stratified percentile bootstrap interval (2,000 resamples, fixed seed).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.table import Table

from evals.analysis import BASELINE_CONDITION
from evals.records import RunSpec, SampleResult
from evals.report import interval_text, pair_text
from evals.stats import stratified_bootstrap_gap
from evals.suites import GEOTEMP_TEMPLATES, GPSBENCH_APPLIED, GPSBENCH_PURE, GTR_TASKS, STBENCH_SYNTHETIC

PUBLISHED_PATH = Path(__file__).resolve().parent / "data" / "published.json"
BOOTSTRAP = 2000
STYLES = ("neutral", "short", "cot")

Metric = Literal["acc", "score", "mae"]
Units = dict[str, tuple[float | None, float]]
"""Unit key -> (value or None when the unit has no value for the metric, hedged share of its answers)."""


@dataclass(frozen=True)
class Stratum:
    """Results of one stratum: which samples, which metric, and its weight in the column."""

    select: Callable[[SampleResult], bool]
    metric: Metric = "acc"
    weight: float = 1.0
    majority: bool = False


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    strata: tuple[Stratum, ...]

    @property
    def metric(self) -> Metric:
        return self.strata[0].metric


@dataclass
class PaperTable:
    """One table: its columns, the run's rows per condition and gap, and the published rows."""

    name: str
    title: str
    columns: list[Column]
    caption: str = ""
    cells: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    gaps: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    pairwise: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Per pair of conditions neither of which is the baseline (``b vs a``, a listed first): b − a per column."""
    published: dict[str, Any] | None = None
    baseline: str = BASELINE_CONDITION


# --------------------------------------------------------------------------- units and cells


def _is(task: str, **meta: Any) -> Callable[[SampleResult], bool]:
    return lambda r: r.task == task and all(r.meta.get(k) == v for k, v in meta.items())


def _units(results: Iterable[SampleResult], stratum: Stratum) -> Units:
    """The stratum's units of one condition, epochs averaged per item (see the module docstring)."""
    by_item: dict[str, list[tuple[float | None, float]]] = defaultdict(list)
    for key, unit in _epoch_units(results, stratum).items():
        by_item[key.rpartition("#")[0]].append(unit)
    out: Units = {}
    for item, units in by_item.items():
        values = [v for v, _ in units if v is not None]
        out[item] = (sum(values) / len(values) if values else None, sum(h for _, h in units) / len(units))
    return out


def _epoch_units(results: Iterable[SampleResult], stratum: Stratum) -> Units:
    """The stratum's units of one condition, one per item and epoch (key ``item#epoch``)."""
    rs = [r for r in results if r.status == "ok" and stratum.select(r)]
    if stratum.majority:
        items: dict[str, list[SampleResult]] = defaultdict(list)
        for r in rs:
            items[f"{r.meta.get('item', r.sample_id)}#{r.epoch}"].append(r)
        out: Units = {}
        for key, group in items.items():
            if len(group) == len(STYLES):
                right = sum(1 for r in group if r.score and r.score.correct)
                out[key] = (1.0 if 2 * right > len(group) else 0.0,
                            sum(1 for r in group if r.score and r.score.status == "hedged") / len(group))
        return out
    units: Units = {}
    for r in rs:
        hedged = 1.0 if r.score and r.score.status == "hedged" else 0.0
        if stratum.metric == "acc":
            value: float | None = float(bool(r.score and r.score.correct))
        elif stratum.metric == "score":
            value = float(r.score.value) if r.score else 0.0
        else:
            answered = r.score is not None and r.score.status == "answered" and r.score.error is not None
            value = abs(float(r.score.error)) if answered and r.score else None  # type: ignore[arg-type]
        units[f"{r.sample_id}#{r.epoch}"] = (value, hedged)
    return units


def _mean(units: Units) -> float | None:
    values = [v for v, _ in units.values() if v is not None]
    return sum(values) / len(values) if values else None


def _weighted(parts: Sequence[tuple[float, float | None]]) -> float | None:
    """Weighted mean of stratum values; None when a stratum has none (a partial average would mislead)."""
    if not parts or any(v is None for _, v in parts):
        return None
    total = sum(w for w, _ in parts)
    return sum(w * v for w, v in parts if v is not None) / total


def cell(by_condition: dict[str, list[SampleResult]], condition: str, column: Column) -> dict[str, Any]:
    """One condition's cell: value, n (units with a value), hedged share of all units."""
    unit_sets = [_units(by_condition.get(condition, []), s) for s in column.strata]
    allunits = [u for us in unit_sets for u in us.values()]
    return {
        "value": _weighted([(s.weight, _mean(us)) for s, us in zip(column.strata, unit_sets, strict=True)]),
        "n": sum(1 for v, _ in allunits if v is not None),
        "hedged": sum(h for _, h in allunits) / len(allunits) if allunits else None,
    }


def gap(by_condition: dict[str, list[SampleResult]], other: str, column: Column,
        baseline: str = BASELINE_CONDITION, iterations: int = BOOTSTRAP, seed: int = 0) -> dict[str, Any]:
    """``other`` − ``baseline`` on the paired units of every stratum, with the stratified bootstrap interval of
    :func:`evals.stats.stratified_bootstrap_gap` (the per-task tables' interval and fallback for a one-stratum
    column; none when a stratum has a single pair: resampling one pair cannot show how the gap varies)."""
    strata = []
    for s in column.strata:
        a, b = _units(by_condition.get(baseline, []), s), _units(by_condition.get(other, []), s)
        paired = [(av, bv) for k in sorted(a.keys() & b.keys())
                  if (av := a[k][0]) is not None and (bv := b[k][0]) is not None]
        strata.append((s.weight, [av for av, _ in paired], [bv for _, bv in paired]))
    n_paired = sum(len(a) for _, a, _ in strata)
    if any(not a for _, a, _ in strata):
        return {"gap": None, "ci": [None, None], "n_paired": n_paired}
    point, lo, hi = stratified_bootstrap_gap(strata, iterations, seed)
    ci = [lo, hi] if math.isfinite(lo) and math.isfinite(hi) else [None, None]
    return {"gap": point, "ci": ci, "n_paired": n_paired}


# --------------------------------------------------------------------------- the four suites' tables


def _task_column(task: str, label: str, metric: Metric = "acc", **meta: Any) -> Column:
    return Column(f"{task}" + "".join(f"/{v}" for v in meta.values()), label,
                  (Stratum(_is(task, **meta), metric),))


def _average(key: str, label: str, columns: Sequence[Column], weight: float = 1.0) -> Column:
    """Equal weight per column (each one stratum) scaled by ``weight``."""
    return Column(key, label, tuple(Stratum(c.strata[0].select, c.strata[0].metric, weight / len(columns))
                                    for c in columns))


GPS_LABELS = {
    "format_conversion": "Format", "coordinate_transformation": "Coord.", "distance": "Dist.", "bearing": "Bearing",
    "interpolation": "Interp.", "polygon_area": "Area", "bounding_box": "BBox", "route_geometry.mcq": "Route",
    "relative_position_pure": "Rel. Pos.", "place_association": "Place", "name_disambiguation": "Name",
    "relative_position_applied": "Rel. Pos.", "proximity": "Prox.", "route_analysis": "Route",
    "spatial_patterns": "Spatial", "boundary_analysis": "Bound.", "terrain_classification": "Terrain",
}
TABLE5_ORDER = ("bounding_box", "format_conversion", "distance", "bearing", "relative_position_pure",
                "route_geometry.mcq", "coordinate_transformation", "interpolation", "polygon_area")
TABLE4_ORDER = ("name_disambiguation", "route_analysis", "spatial_patterns", "boundary_analysis",
                "terrain_classification", "proximity", "relative_position_applied", "place_association")
GPS_CAPTION = ("accuracy %; a numeric answer is right within its task's tolerance (distance max(5 km, 5 %), bearing "
               "±5°, ...), where GPSBench states 1 − MAPE for numerical tasks, so those cells compare loosely")


def gpsbench_tables() -> list[PaperTable]:
    pure = [_task_column(f"gpsbench.{t}", GPS_LABELS[t]) for t in GPSBENCH_PURE]
    applied = [_task_column(f"gpsbench.{t}", GPS_LABELS[t]) for t in GPSBENCH_APPLIED]
    by_key = {c.key: c for c in pure + applied}
    overall = Column("overall", "Overall", _average("p", "", pure, 0.5).strata + _average("a", "", applied, 0.5).strata)
    return [
        PaperTable("track", "GPSBench Table 3: Pure GPS / Applied / Overall",
                   [_average("pure", "Pure GPS", pure), _average("applied", "Applied", applied), overall],
                   "track = mean of its tasks' accuracies, Overall = mean of the two tracks; " + GPS_CAPTION),
        PaperTable("pure", "GPSBench Table 5: Pure GPS track per task",
                   [by_key[f"gpsbench.{t}"] for t in TABLE5_ORDER], GPS_CAPTION),
        PaperTable("applied", "GPSBench Table 4: Applied track per task",
                   [by_key[f"gpsbench.{t}"] for t in TABLE4_ORDER], GPS_CAPTION),
    ]


GEOTEMP_LABELS = {"verification": "Verification", "time_time": "TimeTime", "time_place": "TimePlace",
                  "time_time_place": "TimeTimePlace"}


def geotemp_tables() -> list[PaperTable]:
    majority = [Column(t, GEOTEMP_LABELS[t], (Stratum(_is(f"geotemp.{t}.styles"), majority=True),))
                for t in GEOTEMP_TEMPLATES]
    styles = [Column(f"{t}/{s}", f"{GEOTEMP_LABELS[t]} {s}", (Stratum(_is(f"geotemp.{t}.styles", style=s)),))
              for t in GEOTEMP_TEMPLATES for s in STYLES]
    return [
        PaperTable("majority", "GeoTemp Figure 4: majority vote over the three styles, per task", majority,
                   "% of items whose answer given by at least two of the three styles is right; an item counts "
                   "when all three styles were answered; hedged % is over the items' style answers"),
        PaperTable("styles", "GeoTemp App. C: per task and instruction style", styles, "accuracy % per style"),
    ]


STBENCH_COLUMNS = ("PCR", "PI", "URFR", "ARD", "PTRD", "PRRD", "TRRD", "TI", "DD", "NAV", "TTRA", "FP", "TAD",
                   "TC", "TP")
STBENCH_ABBREV = dict(zip(STBENCH_SYNTHETIC, ("ARD", "PTRD", "PRRD", "TRRD", "TI", "DD", "TTRA", "TAD", "TC", "TP"),
                          strict=True))


def _stbench_abbrev(r: SampleResult) -> str | None:
    if r.task == "stbench.official":
        return r.meta.get("abbrev")
    key = r.task.removeprefix("stbench.").removesuffix(".completion")
    return STBENCH_ABBREV.get(key)


def _stbench_is(abbrev: str) -> Callable[[SampleResult], bool]:
    return lambda r: _stbench_abbrev(r) == abbrev


def stbench_tables() -> list[PaperTable]:
    columns = [Column(a, a, (Stratum(_stbench_is(a), "mae" if a in ("TP", "FP") else "acc"),))
               for a in STBENCH_COLUMNS]
    return [PaperTable("main", "STBench: accuracy per task, MAE (m) for trajectory prediction (README column set)",
                       columns, "accuracy % (STBench publishes fractions; shown ×100); TP: mean absolute error in "
                       "metres over answered predictions (lower is better; its gap in metres); – : not in this "
                       "run (PCR, PI, URFR and NAV need the released files: --dataset; FP is not implemented)")]


GTR_LABELS = {"geo_location": "GL", "arrival_interval": "ATI", "motion_state": "MS", "causal_reordering": "CR",
              "next_spot": "NSF", "trajectory_forecast": "TF", "multi_target": "MTTF"}
GTR_PREDICTION = ("next_spot", "trajectory_forecast", "multi_target")
SETTINGS = {"outdoor": "Out", "indoor": "In"}


GTR_PREDICTION_METRICS: tuple[tuple[str, str, Metric], ...] = (("mcq", "MCQ", "acc"), ("st_iou", "ST-IoU", "score"))
"""The two scores of a GTR prediction answer: its camera choice and its ST-IoU."""


def gtr_tables() -> list[PaperTable]:
    main = [_task_column(f"gtr.{t}", f"{GTR_LABELS[t]} {short}", "score" if t in GTR_PREDICTION else "acc",
                         setting=setting)
            for t in GTR_TASKS for setting, short in SETTINGS.items()]
    prediction = [Column(f"gtr.{t}/{setting}/{m}", f"{GTR_LABELS[t]} {label} ({short})",
                         (Stratum(_is(f"gtr.{t}", setting=setting), metric),))
                  for t in GTR_PREDICTION for setting, short in SETTINGS.items()
                  for m, label, metric in GTR_PREDICTION_METRICS]
    return [
        PaperTable("main", "GTR-Bench main results: MCQ accuracy (GL, ATI, MS, CR) / ST-IoU (NSF, TF, MTTF)",
                   [*main, _average("avg", "Avg", main)], "% per task and setting (Out = outdoor, In = indoor); "
                   "Avg = mean of the 14 cells"),
        PaperTable("prediction", "GTR-Bench: MCQ accuracy vs ST-IoU on the prediction tasks", prediction,
                   "MCQ: the camera choice; ST-IoU: camera hit × temporal IoU, in %"),
    ]


TABLES: dict[str, Callable[[], list[PaperTable]]] = {
    "gpsbench-paper": gpsbench_tables, "geotemp-paper": geotemp_tables, "stbench-paper": stbench_tables,
    "gtr-paper": gtr_tables,
}


# --------------------------------------------------------------------------- building, published rows, rendering


def load_published(path: Path = PUBLISHED_PATH) -> dict[str, Any]:
    """The published figures: suite -> table -> {source, columns, units, rows: model -> values (None: '-')}."""
    return json.loads(path.read_text())


def build_tables(suite: str, results: Sequence[SampleResult], conditions: Sequence[str],
                 compare_paper: bool = False, baseline: str = BASELINE_CONDITION) -> list[PaperTable]:
    """The suite's tables filled from ``results``, a gap row for every other condition against ``baseline`` and
    one for every two of those conditions (b − a); with ``compare_paper`` the published rows added."""
    by_condition: dict[str, list[SampleResult]] = defaultdict(list)
    for r in results:
        if r.status != "not_applicable":
            by_condition[r.condition].append(r)
    published = load_published().get(suite, {}) if compare_paper else {}
    tables = TABLES[suite]()
    others = [c for c in conditions if c != baseline] if baseline in conditions else []
    for t in tables:
        t.baseline = baseline
        t.cells = {c: {col.key: cell(by_condition, c, col) for col in t.columns} for c in conditions}
        t.gaps = {o: {col.key: gap(by_condition, o, col, baseline) for col in t.columns} for o in others}
        t.pairwise = {f"{b} vs {a}": {col.key: gap(by_condition, b, col, a) for col in t.columns}
                      for i, a in enumerate(others) for b in others[i + 1:]}
        t.published = published.get(t.name)
    return tables


def _display(value: float | None, metric: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.1f}" if metric == "mae" else f"{100 * value:.1f}"


def _signed(value: float | None, metric: str) -> str:
    if value is None:
        return "–"
    return f"{value:+.1f}" if metric == "mae" else f"{100 * value:+.1f}"


def _published_value(value: float | None, unit: str) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.1f}" if unit == "fraction" else f"{value:.1f}"


def grid(table: PaperTable) -> tuple[list[str], list[list[str]], list[str]]:
    """Headers, rows of text and row kinds (condition, gap, pairwise: b − a between two compared conditions,
    hedged, n, published) of a table."""
    headers = [""] + [c.label + (" (m)" if c.metric == "mae" else "") for c in table.columns]
    rows: list[list[str]] = []
    kinds: list[str] = []
    conditions = list(table.cells)
    for c in conditions:
        rows.append([c] + [_display(table.cells[c][col.key]["value"], col.metric)
                                                        for col in table.columns])
        kinds.append("condition")
    between = [(pair_text(key), gaps, "pairwise") for key, gaps in table.pairwise.items()]
    for name, gaps, kind in [(f"{o} − {table.baseline}", g, "gap") for o, g in table.gaps.items()] + between:
        line = [f"gap {name} [95% CI]"]
        for col in table.columns:
            g = gaps[col.key]
            line.append("–" if g["gap"] is None else interval_text(
                g["gap"], *g["ci"], fmt=lambda x, m=col.metric: _signed(x, m)))  # type: ignore[misc]
        rows.append(line)
        kinds.append(kind)
    rows.append(["hedged % (" + " / ".join(conditions) + ")"] + [
        " / ".join("–" if table.cells[c][col.key]["hedged"] is None else f"{100 * table.cells[c][col.key]['hedged']:.0f}"
                   for c in conditions) for col in table.columns])
    kinds.append("hedged")
    rows.append(["n (" + " / ".join(conditions) + ")"] + [
        " / ".join(str(table.cells[c][col.key]["n"]) for c in conditions) for col in table.columns])
    kinds.append("n")
    if table.published:
        pub = table.published
        index = {k: i for i, k in enumerate(pub["columns"])}
        for name, values in pub["rows"].items():
            rows.append([f"{name} (published)"] + [
                _published_value(values[index[col.key]], pub["units"][index[col.key]]) if col.key in index else "–"
                for col in table.columns])
            kinds.append("published")
    return headers, rows, kinds


def render_rich(table: PaperTable, model: str = "") -> Table:
    headers, rows, kinds = grid(table)
    caption = table.caption + (f" · published: {table.published['source']}" if table.published else "")
    out = Table(title=table.title + (f" · {model}" if model else ""), caption=caption)
    out.add_column(headers[0])
    for h in headers[1:]:
        out.add_column(h, justify="right")
    for i, (row, kind) in enumerate(zip(rows, kinds, strict=True)):
        if i and kind != kinds[i - 1] and kind in ("gap", "published"):
            out.add_section()
        out.add_row(*row)
    return out


def to_json(table: PaperTable) -> dict[str, Any]:
    """A table for results.json: columns, cells per condition, gaps, published rows, and its text grid."""
    headers, rows, kinds = grid(table)
    return {
        "name": table.name, "title": table.title, "caption": table.caption,
        "columns": [{"key": c.key, "label": c.label, "metric": c.metric} for c in table.columns],
        "cells": table.cells, "gaps": table.gaps, "pairwise": table.pairwise, "published": table.published, "baseline": table.baseline,
        "grid": {"headers": headers, "rows": rows, "kinds": kinds},
    }


def add_paper_tables(report: dict[str, Any], results: Sequence[SampleResult], spec: RunSpec, console: Console,
                     *, compare_paper: bool = False, baseline: str = BASELINE_CONDITION) -> list[PaperTable]:
    """Print the suite's tables and put them in ``report`` (``paper_tables``) for results.json and report.html."""
    assert spec.suite is not None
    tables = build_tables(spec.suite, results, spec.conditions, compare_paper, baseline)
    for t in tables:
        console.print(render_rich(t, spec.model))
    report["paper_tables"] = {"suite": spec.suite, "compare_paper": compare_paper,
                              "tables": [to_json(t) for t in tables]}
    return tables
