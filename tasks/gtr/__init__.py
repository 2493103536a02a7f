"""GTR: geo-temporal reasoning over camera networks, in text (GTR-Bench without the pixels).

Seven tasks: three basic ones scored by MCQ accuracy (geo-location, arrival interval, motion state), causal
reordering (MCQ), and three forecasting ones scored by ST-IoU with MCQ accuracy beside it (next spot,
trajectory, two-target meeting). Items alternate outdoor road networks and indoor/campus walkways and cycle
through long/medium/short complexity tiers.
"""

from tasks.gtr import (  # noqa: F401  (each module registers its task)
    arrival_interval,
    causal_reordering,
    geo_location,
    motion_state,
    multi_target,
    next_spot,
    trajectory_forecast,
)
