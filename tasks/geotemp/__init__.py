"""GeoTemp: joint reasoning over time and place (time zones), after Holtermann et al. (2024)."""

from tasks.geotemp import probe, timetasks  # noqa: F401  (register the tasks)
