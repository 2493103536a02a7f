"""GPSBench: GPS coordinate reasoning tasks (Pure GPS and Applied tracks) and the missing-data probe."""

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
