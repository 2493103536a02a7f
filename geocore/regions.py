"""Regions: a local metric frame, point-in-region lookup and the ordered regions a polyline crosses.

A region is a ring of (lat, lon) vertices (not closed; a closing duplicate is dropped), read under the even-odd
rule of :func:`geocore.polygons.planar_region`, so real-world rings that cross themselves still work. As in
:mod:`geocore.polygons`, topology is planar in the (lon, lat) degree plane, which is exact for the
city-block scales these functions serve. :class:`LocalFrame` maps degrees to metres east/north of an origin
by an equirectangular projection: a linear map of that plane, so it keeps every containment and crossing
relation while giving distances in metres.

Boundary convention (documented once, used everywhere): a point on an edge or vertex is *in* a region under
``boundary="include"`` and not under ``"exclude"``; a polyline *crosses* a region only where a piece of it
of positive length runs through the region's interior; touching or running along the boundary does not count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import shapely
from shapely.geometry import LineString, Point

from geocore import validation as check
from geocore.polygons import PlanarRegion, planar_region
from geocore.sphere import EARTH_RADIUS_KM

LatLon = tuple[float, float]
_R_M = EARTH_RADIUS_KM * 1000.0

__all__ = [
    "LocalFrame",
    "boundary_distance_m",
    "region_polygon",
    "regions_containing",
    "regions_crossed",
]


@dataclass(frozen=True)
class LocalFrame:
    """Equirectangular metres around ``(lat0, lon0)``: x east, y north, on a sphere of R = 6371 km.

    Accurate to well under 0.1 % within a few km of the origin; not for spans that cross the antimeridian.
    """

    lat0: float
    lon0: float

    def __post_init__(self) -> None:
        check.lat(self.lat0, "lat0")
        check.lon(self.lon0, "lon0")
        if abs(self.lat0) > 85.0:
            raise ValueError(f"lat0 must be within [-85, 85]: local metric frames are not used near the poles "
                             f"(got latitude {self.lat0})")

    @property
    def _kx(self) -> float:
        return _R_M * math.cos(math.radians(self.lat0)) * math.pi / 180.0

    def to_xy(self, lat: float, lon: float) -> tuple[float, float]:
        """(x, y) metres of a point given in degrees."""
        dlon = (check.lon(lon, "lon") - self.lon0 + 540.0) % 360.0 - 180.0
        return (dlon * self._kx, (check.lat(lat, "lat") - self.lat0) * _R_M * math.pi / 180.0)

    def to_latlon(self, x: float, y: float) -> LatLon:
        """(lat, lon) degrees of a point given in metres; ValueError when it falls off the globe."""
        lat = self.lat0 + check.finite(y, "y") / (_R_M * math.pi / 180.0)
        lon = self.lon0 + check.finite(x, "x") / self._kx
        return (check.lat(lat, "y (as latitude)"), check.lon((lon + 540.0) % 360.0 - 180.0, "x (as longitude)"))


def region_polygon(vertices: Sequence[Sequence[float]], name: str = "region") -> PlanarRegion:
    """The region of a ring of (lat, lon) vertices under the even-odd rule (:func:`geocore.polygons.planar_region`):
    self-crossing, repeated-vertex and zero-area rings are accepted; ValueError only for fewer than 3 vertices
    or bad coordinates."""
    return planar_region(vertices, name)


def _regions(regions: Sequence[Sequence[Sequence[float]]]) -> list[PlanarRegion]:
    if regions is None or len(regions) == 0:
        raise ValueError("regions must not be empty")
    return [region_polygon(r, f"regions[{i}]") for i, r in enumerate(regions)]


def regions_containing(
    lat: float,
    lon: float,
    regions: Sequence[Sequence[Sequence[float]]],
    *,
    boundary: Literal["include", "exclude"] = "include",
) -> list[int]:
    """0-based indices of the regions that contain (lat, lon), in input order (see the boundary convention)."""
    if boundary not in ("include", "exclude"):
        raise ValueError(f"boundary must be 'include' or 'exclude', got {boundary!r}")
    pt = Point(check.lon(lon, "lon"), check.lat(lat, "lat"))
    return [i for i, reg in enumerate(_regions(regions))
            if (reg.covers(pt) if boundary == "include" else reg.holds_inside(pt))]


def regions_crossed(path: Sequence[Sequence[float]], regions: Sequence[Sequence[Sequence[float]]]) -> list[int]:
    """0-based indices of the regions whose interior the polyline ``path`` runs through, in order of entry.

    The path is straight between consecutive (lat, lon) vertices in the (lon, lat) plane. Each maximal piece
    of a segment inside a region's closed polygon counts when it meets the region's interior; pieces are
    ordered by segment and position along it, and consecutive repeats are merged (so a path that leaves a
    region only into uncovered ground and comes back lists it once). A single point lists the regions whose
    interior holds it.
    """
    pts = check.points(path, "path")
    polys = _regions(regions)
    if len(pts) == 1:
        return regions_containing(pts[0][0], pts[0][1], regions, boundary="exclude")
    entries: list[tuple[int, float, int]] = []
    for k, (a, b) in enumerate(zip(pts[:-1], pts[1:], strict=True)):
        if a == b:
            continue
        seg = LineString([(a[1], a[0]), (b[1], b[0])])
        for r, reg in enumerate(polys):
            poly = reg.area
            if poly.is_empty:
                continue
            inter = seg.intersection(poly)
            for piece in getattr(inter, "geoms", [inter]):
                if piece.is_empty or piece.geom_type != "LineString" or piece.length == 0.0:
                    continue
                if not shapely.relate_pattern(piece, poly, "T********"):
                    continue  # runs along the boundary only
                start = min(seg.project(Point(c)) for c in piece.coords)
                entries.append((k, start, r))
    entries.sort()
    out: list[int] = []
    for _, _, r in entries:
        if not out or out[-1] != r:
            out.append(r)
    return out


def boundary_distance_m(lat: float, lon: float, polygon: Sequence[Sequence[float]]) -> float:
    """Distance in metres from (lat, lon) to the polygon's boundary (local frame at the point)."""
    frame = LocalFrame(check.lat(lat, "lat"), check.lon(lon, "lon"))
    ring = region_polygon(polygon, "polygon").edges
    coords = list(ring.coords)
    xy = LineString([frame.to_xy(y, x) for x, y in coords]) if len(coords) > 1 else Point(frame.to_xy(*coords[0][::-1]))
    return float(xy.distance(Point(0.0, 0.0)))
