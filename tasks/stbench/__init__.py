"""STBench: spatio-temporal analysis tasks, synthesised offline (10 tasks in two prompt styles) and loaded
from the official JSONL files (``stbench.official``, all 13 tasks)."""

from tasks.stbench import (  # noqa: F401  (each module registers its tasks)
    admin_region,
    anomaly,
    classification,
    direction,
    official,
    point_region,
    point_trajectory,
    prediction,
    trajectory_identification,
    trajectory_region,
    trajectory_trajectory,
)
