"""The quick default suite: a few samples of representative tasks from every family built so far.

Sized to finish in under 10 minutes on a 2-core machine with the embedded model in both conditions.
"""

from __future__ import annotations

DEFAULT_SUITE: dict[str, int] = {
    "gpsbench.distance": 6,
    "gpsbench.bearing": 1,
    "gpsbench.place_association": 1,
    "stbench.direction": 2,
    "geotemp.time_time_place": 2,
    "gtr.next_spot": 2,
}
