"""Suites: the quick default suite and each paper's protocol as a named suite (``--suite NAME``).

The quick default suite (no ``--tasks``, no ``--suite``) takes a few samples of representative tasks from every
family, sized to finish in under 10 minutes on a 2-core machine with the embedded model in both conditions.

A paper suite fixes the paper's tasks, instruction styles, size and split (``test``); ``--limit`` still caps the
samples per task (items for GeoTemp, whose items are asked in three styles) and ``--size`` overrides the size.
Its results get a paper-shaped table (:mod:`evals.paper_tables`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_SUITE: dict[str, int] = {
    "gpsbench.distance": 2,
    "gpsbench.bearing": 1,
    "gpsbench.place_association": 1,
    "geotemp.time_time_place": 1,
    "stbench.direction": 1,
    "gtr.next_spot": 1,
}

GPSBENCH_PURE = ("format_conversion", "coordinate_transformation", "distance", "bearing", "interpolation",
                 "polygon_area", "bounding_box", "route_geometry.mcq", "relative_position_pure")
GPSBENCH_APPLIED = ("place_association", "name_disambiguation", "relative_position_applied", "proximity",
                    "route_analysis", "spatial_patterns", "boundary_analysis", "terrain_classification")
GEOTEMP_TEMPLATES = ("verification", "time_time", "time_place", "time_time_place")
STBENCH_SYNTHETIC = ("admin_region", "point_trajectory", "point_region", "trajectory_region",
                     "trajectory_identification", "direction", "trajectory_trajectory", "anomaly_detection",
                     "trajectory_classification", "trajectory_prediction")
GTR_TASKS = ("geo_location", "arrival_interval", "motion_state", "causal_reordering", "next_spot",
             "trajectory_forecast", "multi_target")


@dataclass(frozen=True)
class Suite:
    """One paper's protocol: its tasks, the items generated per task, and where it departs from the paper."""

    name: str
    paper: str
    tasks: tuple[str, ...]
    size: int | str | None
    protocol: str
    dataset_tasks: tuple[str, ...] = field(default=())
    """Used instead of ``tasks`` when ``--dataset`` names the paper's released files."""


SUITES: dict[str, Suite] = {s.name: s for s in (
    Suite("gpsbench-paper", "GPSBench", tuple(f"gpsbench.{t}" for t in GPSBENCH_PURE + GPSBENCH_APPLIED), "paper",
          "9 Pure GPS + 8 Applied tasks, 3,400 items each, test split (1,020 each); route geometry as multiple "
          "choice; Pure / Applied = mean of the track's task accuracies, Overall = mean of the two (Table 3)"),
    Suite("geotemp-paper", "GeoTemp", tuple(f"geotemp.{t}.styles" for t in GEOTEMP_TEMPLATES), "paper",
          "the 4 templates on the full l1 x l2 grid (83,232 items each), test split, every item in the neutral, "
          "short and cot styles; headline = per-item majority vote (an answer given by >= 2 styles, §5)"),
    Suite("stbench-paper", "STBench", tuple(f"stbench.{t}.completion" for t in STBENCH_SYNTHETIC), "paper",
          "the 10 synthesised tasks in the paper's completion style at its sizes, test split; with --dataset the "
          "released files (stbench.official) instead; accuracy, and MAE in metres for trajectory prediction",
          dataset_tasks=("stbench.official",)),
    Suite("gtr-paper", "GTR-Bench", tuple(f"gtr.{t}" for t in GTR_TASKS), 200,
          "the 3 basic + 4 combinatorial tasks, 200 items each so the test split holds about 60 per task (the "
          "paper's 60 QAs, outdoor and indoor); MCQ accuracy, ST-IoU for NSF / TF / MTTF, per setting"),
)}


class UnknownSuiteError(KeyError):
    """A suite name that is not defined; the message lists the valid ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def get_suite(name: str) -> Suite:
    if name not in SUITES:
        raise UnknownSuiteError(f"unknown suite {name!r}; valid suites: {', '.join(SUITES)}")
    return SUITES[name]


def suite_tasks(name: str, dataset: str | None) -> tuple[str, ...]:
    """The tasks a suite runs: its released-file tasks when ``dataset`` is given and it has some."""
    suite = get_suite(name)
    return suite.dataset_tasks if dataset and suite.dataset_tasks else suite.tasks


def describe_suites() -> dict[str, str]:
    """Suite name -> one line for ``--list``."""
    return {"quick (default)": f"{sum(DEFAULT_SUITE.values())} samples over {len(DEFAULT_SUITE)} tasks of every "
                               "family, under 10 minutes on the embedded model",
            **{s.name: f"{s.paper}: {s.protocol}" for s in SUITES.values()}}
