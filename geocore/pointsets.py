"""Point sets on GPSBench's sphere (R = 6371 km) as the shapes tools and tasks report them: polygon area with
perimeter, bounding-box summary, distances from a centroid. Points are (lat, lon) degrees; the formulas are
those of :mod:`geocore.polygons` and :mod:`geocore.sphere`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from geocore import validation as check
from geocore.polygons import (
    bounds,
    centroid,
    spherical_centroid,
    spherical_perimeter_km,
    spherical_polygon_area_km2,
)
from geocore.sphere import EARTH_RADIUS_KM, central_angle

LatLon = tuple[float, float]


def polygon_area_perimeter_km(vertices: Sequence[Sequence[float]]) -> tuple[float, float]:
    """(area km², perimeter km) of a simple polygon on the sphere R = 6371 km: the signed L'Huilier fan (true
    area of any simple polygon, concave ones included) and the sum of the great-circle edges."""
    return spherical_polygon_area_km2(vertices, signed=True), spherical_perimeter_km(vertices)


@dataclass(frozen=True)
class BoxSummary:
    """GPSBench's bounding box of a point set: plain min/max (no antimeridian wrap), centre, centroid, diagonal."""

    min_lat: float
    max_lat: float
    min_lon: float
    max_lon: float
    center: LatLon
    centroid: LatLon
    diagonal_km: float


def box_summary(points: Sequence[Sequence[float]]) -> BoxSummary:
    """Bounds, centre (midpoint of the bounds), centroid (arithmetic mean) and the haversine length of the
    diagonal from (min_lat, min_lon) to (max_lat, max_lon) (GPSBench App. B.1)."""
    pts = check.points(points)
    lo_lat, hi_lat, lo_lon, hi_lon = bounds(pts)
    diagonal = EARTH_RADIUS_KM * central_angle(lo_lat, lo_lon, hi_lat, hi_lon)
    return BoxSummary(lo_lat, hi_lat, lo_lon, hi_lon, ((lo_lat + hi_lat) / 2, (lo_lon + hi_lon) / 2), centroid(pts),
                      diagonal)


def centroid_distances_km(
    points: Sequence[Sequence[float]], method: Literal["spherical", "arithmetic"] = "spherical"
) -> tuple[LatLon, list[float]]:
    """(centroid, haversine km from the centroid to each point in order). ``spherical`` = normalised mean of the
    unit vectors (antimeridian-safe), ``arithmetic`` = mean latitude and mean longitude."""
    pts = check.points(points)
    if method not in ("spherical", "arithmetic"):
        raise ValueError(f"method must be 'spherical' or 'arithmetic', got {method!r}")
    c = spherical_centroid(pts) if method == "spherical" else centroid(pts)
    return c, [EARTH_RADIUS_KM * central_angle(c[0], c[1], lat, lon) for lat, lon in pts]
