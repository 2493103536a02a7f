"""The ``shapes`` tool set: point sets on the sphere R = 6371 km (polygon area and perimeter, bounding box,
centroid distances, path simplification), thin wrappers over :mod:`geocore.pointsets` and
:mod:`geocore.polygons`."""

from __future__ import annotations

from typing import Annotated

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore import pointsets as ps
from geocore.polygons import rdp
from tools._common import make_tool, result
from tools.registry import toolset

LatLonPair = Annotated[list[float], Field(min_length=2, max_length=2,
                                          description="[lat, lon] in decimal degrees, latitude first")]


class Polygon(BaseModel):
    vertices: list[LatLonPair] = Field(min_length=3, max_length=100, description=(
        "Polygon vertices in order as [lat, lon] pairs, not closed (do not repeat the first vertex)"))


class Points(BaseModel):
    points: list[LatLonPair] = Field(min_length=1, max_length=100, description="Points as [lat, lon] pairs")


class Path(BaseModel):
    points: list[LatLonPair] = Field(min_length=2, max_length=200, description="Path points in order as [lat, lon]")
    epsilon_km: float = Field(ge=0, le=1000, description="Tolerance in kilometres (0.5 means 500 m)")


def _pair(p: tuple[float, float]) -> list[float]:
    return [round(p[0], 6), round(p[1], 6)]


def polygon_area_perimeter(vertices: list[list[float]]) -> str:
    """Area and perimeter of a simple polygon whose edges are great-circle arcs, on a sphere of radius
    6371 km (exact spherical area, also for concave polygons). Returns JSON {"area_km2", "perimeter_km"}."""
    area, perimeter = ps.polygon_area_perimeter_km(vertices)
    return result(area_km2=area, perimeter_km=perimeter)


def bounding_box(points: list[list[float]]) -> str:
    """Bounding box of points using the plain minimum and maximum of latitudes and longitudes (no wrap-around
    at ±180°). Returns JSON {"min_lat", "max_lat", "min_lon", "max_lon", "center": [lat, lon] (midpoint of the
    bounds), "centroid": [lat, lon] (arithmetic mean of the points), "diagonal_km" (haversine distance from
    (min_lat, min_lon) to (max_lat, max_lon), R = 6371 km)}."""
    b = ps.box_summary(points)
    return result(min_lat=b.min_lat, max_lat=b.max_lat, min_lon=b.min_lon, max_lon=b.max_lon,
                  center=_pair(b.center), centroid=_pair(b.centroid), diagonal_km=b.diagonal_km)


def centroid_distances(points: list[list[float]]) -> str:
    """Spherical centroid of points (normalised mean of their unit vectors) and each point's great-circle
    distance in km to it (R = 6371 km), in input order. Returns JSON {"centroid": [lat, lon],
    "distances_km": [...], "farthest_index" (0-based)}."""
    c, d = ps.centroid_distances_km(points, "spherical")
    return result(centroid=_pair(c), distances_km=[round(x, 3) for x in d], farthest_index=d.index(max(d)))


def simplify_path_rdp(points: list[list[float]], epsilon_km: float) -> str:
    """Ramer-Douglas-Peucker simplification of a path. A point's distance to a segment is its great-circle
    cross-track distance to the segment's arc, or the distance to the nearer end when its foot falls outside
    the arc (R = 6371 km); points farther than epsilon_km are kept, first and last always.
    Returns JSON {"kept_indices": [...]} (0-based, ascending)."""
    return result(kept_indices=rdp(points, epsilon_km * 1000.0))


@toolset("shapes", "Point sets on the sphere: polygon area/perimeter, bounding box, centroid distances, RDP")
def shape_tools() -> list[BaseTool]:
    """Point sets on the sphere: polygon area/perimeter, bounding box, centroid distances, RDP."""
    return [
        make_tool(polygon_area_perimeter, Polygon),
        make_tool(bounding_box, Points),
        make_tool(centroid_distances, Points),
        make_tool(simplify_path_rdp, Path),
    ]
