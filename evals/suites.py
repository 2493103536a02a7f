"""Suites: the quick default suite and each paper's protocol as a named suite (``--suite NAME``).

The quick default suite (no ``--tasks``, no ``--suite``) takes a few samples from every family, most of them from
tasks where a built-in tool computes the answer: under 4 minutes on a quiet 2-core machine with the embedded
model in both conditions (199-226 s measured, docs/first-run.md), with ``--max-steps`` :data:`QUICK_MAX_STEPS`
unless given.

A paper suite fixes the paper's tasks, instruction styles, size and split (``test``); ``--limit`` still caps the
samples per task (items for GeoTemp, whose items are asked in three styles) and ``--size`` overrides the size.
It also carries the paper's generation settings (:attr:`Suite.generation`, per task where the paper sets them per
task): the run sends them unless a flag (``--max-tokens``, ``--temperature``, ...) overrides them, and says so.
Its results get a paper-shaped table (:mod:`evals.paper_tables`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from agents.protocol import Asked

DEFAULT_SUITE: dict[str, int] = {
    # Built to show the gap in few tokens (issue 36; docs/first-run.md has the table of why each task is here).
    # Most items are STBench direction in its paper's completion style: alone a 2-token reply, with tools one
    # initial_bearing call (tools 25/32, alone 0/32 in four quiet runs on 2026-12-06). gpsbench.bearing keeps one
    # item: alone the 1.5B model writes a ~390-token derivation that has never scored (0/4 in those runs; with
    # tools 4/4), and that reply, not the prompts, sets the tool-free half's length (three items: 76 s of a 232 s
    # job; one: 50-57 s of 199-226 s). GeoTemp and GTR-Bench keep one item each so that every family is in the
    # sample: there the tools agent called no tool, and more of them would cost prompt tokens (a GTR prompt is
    # about 2,100 tokens with tools) and say nothing about tools. Left out: gpsbench.distance (9 of 9 real 1.5B
    # replies ran past 512 tokens), gpsbench.relative_position_pure (2 of 3 tool-free replies were 450-token
    # derivations), stbench.point_region (the tools agent lost both items), geotemp.time_place and gtr.next_spot
    # (no tool called), geotemp.time_time_place (malformed tool calls). Asking gpsbench.bearing for the answer
    # line only made its tool-free reply 13 tokens, but the tools agent then answered without its tool (4 of 4),
    # so the plain style stays.
    "gpsbench.bearing": 1,
    "stbench.direction.completion": 8,
    "geotemp.tz_probe": 1,
    "gtr.geo_location": 1,
}

QUICK_MAX_STEPS = 2
"""The quick suite's ``--max-steps`` unless given: one round of tool calls, then the answer. Its tasks need one
call (``initial_bearing``, a time-zone or network look-up); later rounds re-sent the prompt to repeat or vary it
(STBench direction made 4-5 calls a sample at the default of 6)."""

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
    generation: Asked = field(default=Asked())
    """The paper's generation settings (``source`` cites where the paper states them)."""
    task_tokens: dict[str, int] = field(default_factory=dict)
    """Answer budgets the paper sets for single tasks, overriding ``generation.max_tokens`` for them."""

    def generation_for(self, task: str) -> Asked:
        """The paper's settings for one task."""
        if task in self.task_tokens:
            return replace(self.generation, max_tokens=self.task_tokens[task])
        return self.generation


SUITES: dict[str, Suite] = {s.name: s for s in (
    Suite("gpsbench-paper", "GPSBench", tuple(f"gpsbench.{t}" for t in GPSBENCH_PURE + GPSBENCH_APPLIED), "paper",
          "9 Pure GPS + 8 Applied tasks, 3,400 items each, test split (1,020 each); route geometry as multiple "
          "choice; Pure / Applied = mean of the track's task accuracies, Overall = mean of the two (Table 3)",
          # App. D "Inference settings" and "Reasoning vs. non-reasoning"; effort low applies to OpenAI reasoning
          # models (the paper's GPT-5.x), thinking budget 0 to Gemini 2.5 Flash (not Pro, which must think)
          generation=Asked(max_tokens=8192, temperature=0.0, reasoning_effort="low", thinking_budget=0,
                           source="GPSBench App. D: temperature 0, up to 8,192 output tokens, reasoning_effort low "
                                  "for GPT-5.x, thinking_budget 0 for Gemini Flash")),
    Suite("geotemp-paper", "GeoTemp", tuple(f"geotemp.{t}.styles" for t in GEOTEMP_TEMPLATES), "paper",
          "the 4 templates on the full l1 x l2 grid (83,232 items each), test split, every item in the neutral, "
          "short and cot styles; headline = per-item majority vote (an answer given by >= 2 styles, §5)",
          generation=Asked(max_tokens=256, temperature=0.0,
                           source="GeoTemp §4.1: maximum length 256, temperature 0")),
    Suite("stbench-paper", "STBench", tuple(f"stbench.{t}.completion" for t in STBENCH_SYNTHETIC), "paper",
          "the 10 synthesised tasks in the paper's completion style at its sizes, test split; with --dataset the "
          "released files (stbench.official) instead; accuracy, and MAE in metres for trajectory prediction",
          dataset_tasks=("stbench.official",),
          # §5.1 "Experimental details": max_new_tokens 15 (50 for trajectory prediction), model defaults otherwise
          # (the released files mix kinds in one task, so stbench.official gets 50 for all of them)
          generation=Asked(max_tokens=15, source="STBench §5.1: max_new_tokens 15 (50 for trajectory prediction); "
                                                 "no temperature stated, geogap's 0"),
          task_tokens={"stbench.trajectory_prediction.completion": 50, "stbench.official": 50}),
    Suite("gtr-paper", "GTR-Bench", tuple(f"gtr.{t}" for t in GTR_TASKS), 200,
          "the 3 basic + 4 combinatorial tasks, 200 items each so the test split holds about 60 per task (the "
          "paper's 60 QAs, outdoor and indoor); MCQ accuracy, ST-IoU for NSF / TF / MTTF, per setting",
          generation=Asked(max_tokens=16_384, temperature=0.1,
                           source="GTR-Bench Evaluation Setup: temperature 0.1, max_new_token 16,384")),
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


def suite_generation(name: str | None, task: str) -> Asked:
    """The generation settings a run's suite sets for ``task`` (none outside a paper suite)."""
    return get_suite(name).generation_for(task) if name else Asked(source="geogap's defaults")


def describe_suites() -> dict[str, str]:
    """Suite name -> one line for ``--list``."""
    return {"quick (default)": f"{sum(DEFAULT_SUITE.values())} samples over {len(DEFAULT_SUITE)} tasks of every "
                               "family, under 4 minutes on the embedded model on 2 quiet cores",
            **{s.name: f"{s.paper}: {s.protocol}" for s in SUITES.values()}}
