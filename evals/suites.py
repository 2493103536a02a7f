"""The quick default suite: a few samples of representative tasks from every family built so far.

Sized to finish in under 10 minutes on a 2-core machine with the embedded model in both conditions
(one pure-computation and one knowledge task from GPSBench, one task from each other family).
"""

from __future__ import annotations

DEFAULT_SUITE: dict[str, int] = {
    "gpsbench.distance": 2,
    "gpsbench.bearing": 1,
    "gpsbench.place_association": 1,
    "geotemp.time_time_place": 1,
    "stbench.direction": 1,
    "gtr.next_spot": 1,
}
