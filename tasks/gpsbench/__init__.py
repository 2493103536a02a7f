"""GPSBench: GPS coordinate reasoning tasks (Pure GPS and Applied tracks)."""

from tasks.gpsbench import distance  # noqa: F401  (registers its task)
