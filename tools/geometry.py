"""The ``geometry`` tool set: point in polygon, which region holds a point, regions a path crosses, segments."""

from __future__ import annotations

from typing import Annotated

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore import polygons as poly
from geocore import regions as reg
from tools._common import Lat, Lon, make_tool, result
from tools.registry import toolset

LatLonPair = Annotated[tuple[Lat, Lon], Field(description="[latitude, longitude] in decimal degrees")]
PolygonArg = Annotated[
    list[LatLonPair],
    Field(min_length=3, max_length=500, description="Polygon vertices as [[lat, lon], ...] in order, not closed"),
]
RegionsArg = Annotated[
    list[PolygonArg],
    Field(min_length=1, max_length=50, description="Regions as a list of polygons; region 1 is the first"),
]


class PointPolygon(BaseModel):
    lat: Lat
    lon: Lon
    polygon: PolygonArg


class PointRegions(BaseModel):
    lat: Lat
    lon: Lon
    regions: RegionsArg


class PathRegions(BaseModel):
    path: list[LatLonPair] = Field(min_length=1, max_length=1000,
                                   description="Polyline vertices as [[lat, lon], ...] in travel order")
    regions: RegionsArg


class TwoSegments(BaseModel):
    p1: LatLonPair
    p2: LatLonPair
    q1: LatLonPair
    q2: LatLonPair


def point_in_polygon(lat: float, lon: float, polygon: list[tuple[float, float]]) -> str:
    """Whether a point lies inside a polygon (planar in latitude/longitude degrees; fine for city-scale shapes).
    polygon is [[lat, lon], ...]. Returns JSON {"inside": true/false (true also on the boundary),
    "on_boundary": true/false}."""
    inside = poly.point_in_polygon(lat, lon, polygon)
    strictly = poly.point_in_polygon(lat, lon, polygon, boundary="exclude")
    return result(inside=inside, on_boundary=inside and not strictly)


def which_region(lat: float, lon: float, regions: list[list[tuple[float, float]]]) -> str:
    """Which of several regions contains a point. regions is a list of polygons, each [[lat, lon], ...];
    they are numbered 1, 2, ... in the order given. Returns JSON {"regions": [numbers of the regions containing
    the point, boundary included; empty when none], "on_boundary_of": [numbers whose boundary it lies on]}."""
    covering = reg.regions_containing(lat, lon, regions, boundary="include")
    interior = set(reg.regions_containing(lat, lon, regions, boundary="exclude"))
    return result(regions=[i + 1 for i in covering], on_boundary_of=[i + 1 for i in covering if i not in interior])


def regions_crossed_by_path(path: list[tuple[float, float]], regions: list[list[tuple[float, float]]]) -> str:
    """The regions a path passes through, in the order it enters them. path is [[lat, lon], ...] (straight
    between consecutive points); regions is a list of polygons [[lat, lon], ...] numbered 1, 2, ... in the
    order given. Only passing through a region's interior counts (touching its edge does not); immediate
    repeats are merged. Returns JSON {"regions": [region numbers in order]}."""
    return result(regions=[i + 1 for i in reg.regions_crossed(path, regions)])


def segments_intersect(
    p1: tuple[float, float], p2: tuple[float, float], q1: tuple[float, float], q2: tuple[float, float]
) -> str:
    """Whether segment p1-p2 and segment q1-q2 cross or touch (each point [lat, lon]; planar in degrees).
    Returns JSON {"intersect": true/false, "point": [lat, lon] of a shared point, or null}."""
    at = poly.segment_intersection(p1, p2, q1, q2)
    return result(intersect=at is not None, point=None if at is None else [round(at[0], 7), round(at[1], 7)])


@toolset("geometry", "Point in polygon, which region holds a point, regions a path crosses, segment intersection")
def geometry_tools() -> list[BaseTool]:
    """Point in polygon, which region holds a point, regions a path crosses, segment intersection."""
    return [
        make_tool(point_in_polygon, PointPolygon),
        make_tool(which_region, PointRegions),
        make_tool(regions_crossed_by_path, PathRegions),
        make_tool(segments_intersect, TwoSegments),
    ]
