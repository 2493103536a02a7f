"""GPSBench: GPS coordinate reasoning tasks (Pure GPS and Applied tracks) and the missing-data probe.

Seventeen tasks and the probe, generated from GeoNames cities15000 with the paper's continent quotas
(:mod:`tasks.gpsbench.sampling`), a fixed seed and 60/10/30 splits by position; ``default_size`` is 200 per
task, ``size=3400`` (``paper_size``) gives the paper's 57,800 samples (61,200 with the probe). Each module's
docstring states its sampling rule, gold, tolerance and where it departs from the paper.

Tool sets that make every task solvable in the tools condition (each task names the minimal sets):

- ``geodesy`` (distance, bearing, destination, interpolation, midpoint): distance, bearing, interpolation,
  relative position (pure);
- ``projections`` (DMS <-> decimal, WGS84 <-> UTM, WGS84 <-> Web Mercator): format conversion, coordinate
  transformation;
- ``shapes`` (polygon area/perimeter, bounding box, centroid distances, RDP): polygon area, bounding box,
  route geometry, and with ``gazetteer`` spatial patterns;
- ``gazetteer`` (city lookup by name, several names with distance/bearing from a reference city, nearest
  cities to a point with a population floor, country/continent/sea at a point, natural regions): every
  Applied task and the probe.
"""

from tasks.gpsbench import (  # noqa: F401  (each module registers its task)
    bearing,
    boundary_analysis,
    bounding_box,
    coordinate_transformation,
    distance,
    format_conversion,
    interpolation,
    missing_data,
    name_disambiguation,
    place_association,
    polygon_area,
    proximity,
    relative_position_applied,
    relative_position_pure,
    route_analysis,
    route_geometry,
    spatial_patterns,
    terrain_classification,
)

PURE_TASKS: tuple[str, ...] = tuple(f"gpsbench.{n}" for n in (
    "format_conversion", "coordinate_transformation", "distance", "bearing", "interpolation", "polygon_area",
    "bounding_box", "route_geometry", "relative_position_pure",
))
APPLIED_TASKS: tuple[str, ...] = tuple(f"gpsbench.{n}" for n in (
    "place_association", "name_disambiguation", "relative_position_applied", "proximity", "route_analysis",
    "spatial_patterns", "boundary_analysis", "terrain_classification",
))
PROBE_TASKS: tuple[str, ...] = ("gpsbench.missing_data",)
LEVEL_TASKS: tuple[str, ...] = ("gpsbench.place_association.country", "gpsbench.place_association.admin1")
FORM_TASKS: tuple[str, ...] = ("gpsbench.route_geometry.mcq",)
"""Another answer form of a task's items: route geometry as the paper's multiple choice (the suite's form)."""
