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
from functools import cached_property, lru_cache
from typing import Literal, TypeVar

import numpy as np
import shapely
from numpy.typing import ArrayLike
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from geocore import validation as check
from geocore.polygons import PlanarRegion, planar_region
from geocore.sphere import EARTH_RADIUS_KM, FloatArray

LatLon = tuple[float, float]
_F = TypeVar("_F", float, FloatArray)
_R_M = EARTH_RADIUS_KM * 1000.0
_LAT_LON_LIMITS = np.array([90.0, 180.0])
_ORIGIN = Point(0.0, 0.0)

__all__ = [
    "LocalFrame",
    "boundary_distance_m",
    "boundary_distances_m",
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

    @cached_property
    def _kx(self) -> float:
        """Metres per degree of longitude at ``lat0`` (computed once per frame)."""
        return _R_M * math.cos(math.radians(self.lat0)) * math.pi / 180.0

    def to_xy(self, lat: float, lon: float) -> tuple[float, float]:
        """(x, y) metres of a point given in degrees."""
        return self._xy(check.lat(lat, "lat"), check.lon(lon, "lon"))

    def to_latlon(self, x: float, y: float) -> LatLon:
        """(lat, lon) degrees of a point given in metres; ValueError when it falls off the globe."""
        lat, lon = self._latlon(check.finite(x, "x"), check.finite(y, "y"))
        return (check.lat(lat, "y (as latitude)"), check.lon(lon, "x (as longitude)"))

    def xy_array(self, points: ArrayLike) -> FloatArray:
        """:meth:`to_xy` of n (lat, lon) points at once: an (n, 2) array of (x, y) metres."""
        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        if not (np.abs(pts) <= _LAT_LON_LIMITS).all():  # false for NaN and infinities too
            raise ValueError("points must be finite (lat, lon) pairs within [-90, 90] and [-180, 180] degrees")
        out = np.empty((len(pts), 2))
        out[:, 0], out[:, 1] = self._xy(pts[:, 0], pts[:, 1])
        return out

    def latlon_array(self, points: ArrayLike) -> FloatArray:
        """:meth:`to_latlon` of n (x, y) points at once: an (n, 2) array of (lat, lon) degrees."""
        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        if not np.isfinite(pts).all():
            raise ValueError("points must be finite (x, y) metres")
        out = np.empty((len(pts), 2))
        out[:, 0], out[:, 1] = self._latlon(pts[:, 0], pts[:, 1])
        if not (np.abs(out[:, 0]) <= 90.0).all():
            raise ValueError("points fall off the globe (latitude beyond ±90°)")
        return out

    def _xy(self, lat: _F, lon: _F) -> tuple[_F, _F]:
        """The projection, on floats or arrays alike (the same operations in the same order, so equal bits)."""
        dlon = (lon - self.lon0 + 540.0) % 360.0 - 180.0
        return (dlon * self._kx, (lat - self.lat0) * _R_M * math.pi / 180.0)

    def _latlon(self, x: _F, y: _F) -> tuple[_F, _F]:
        """The inverse of :meth:`_xy`, longitude wrapped into [-180, 180)."""
        lon = self.lon0 + x / self._kx
        return (self.lat0 + y / (_R_M * math.pi / 180.0), (lon + 540.0) % 360.0 - 180.0)


def region_polygon(vertices: Sequence[Sequence[float]], name: str = "region") -> PlanarRegion:
    """The region of a ring of (lat, lon) vertices under the even-odd rule (:func:`geocore.polygons.planar_region`):
    self-crossing, repeated-vertex and zero-area rings are accepted; ValueError only for fewer than 3 vertices
    or bad coordinates. The last 256 rings built are kept, so a ring asked about again is not rebuilt."""
    try:
        key = tuple(tuple(p) for p in vertices)
        return _region_of(key)
    except (TypeError, ValueError):  # not hashable, or not a region: build it here, naming the argument
        return planar_region(vertices, name)


@lru_cache(maxsize=256)
def _region_of(vertices: tuple[tuple[float, ...], ...]) -> PlanarRegion:
    return planar_region(vertices)


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
    moves = [k for k in range(len(pts) - 1) if pts[k] != pts[k + 1]]
    areas = [(r, reg.area) for r, reg in enumerate(polys) if not reg.area.is_empty]
    if not moves or not areas:
        return []
    # Each (segment, region) pair whose envelopes meet is intersected; GEOS gives the others an empty
    # intersection without overlaying them. Scalar GEOS calls: cheaper than array calls for so few pairs.
    lonlat = [(lon, lat) for lat, lon in pts]
    segs = shapely.linestrings(np.array([(lonlat[k], lonlat[k + 1]) for k in moves])).tolist()
    shapes = np.array([area for _, area in areas], dtype=object)
    boxes = list(zip(areas, shapely.bounds(shapes).tolist(), strict=True))
    pieces: list[BaseGeometry] = []
    found: list[tuple[int, int]] = []  # (index in moves, region) of each piece
    for m, (k, seg) in enumerate(zip(moves, segs, strict=True)):
        (ax, ay), (bx, by) = lonlat[k], lonlat[k + 1]
        for (r, area), (x0, y0, x1, y1) in boxes:
            if x0 > max(ax, bx) or x1 < min(ax, bx) or y0 > max(ay, by) or y1 < min(ay, by):
                continue
            cut = seg.intersection(area)
            for piece in getattr(cut, "geoms", (cut,)):  # shapely.get_parts of one geometry
                if (not piece.is_empty and piece.geom_type == "LineString" and piece.length != 0.0
                        and piece.relate_pattern(area, "T********")):  # not on the boundary only
                    pieces.append(piece)
                    found.append((m, r))
    if not pieces:
        return []
    # Where each piece starts along its segment: the least position of its vertices.
    coords, owner = shapely.get_coordinates(np.array(pieces, dtype=object), return_index=True)
    seg_of = np.array([m for m, _ in found])
    along = shapely.line_locate_point(np.array(segs, dtype=object)[seg_of[owner]], shapely.points(coords))
    starts = np.minimum.reduceat(along, np.flatnonzero(np.diff(owner, prepend=-1))).tolist()
    entries = [(moves[m], start, r) for (m, r), start in zip(found, starts, strict=True)]
    entries.sort()
    out: list[int] = []
    for _, _, r in entries:
        if not out or out[-1] != r:
            out.append(r)
    return out


def boundary_distance_m(lat: float, lon: float, polygon: Sequence[Sequence[float]]) -> float:
    """Distance in metres from (lat, lon) to the polygon's boundary (local frame at the point)."""
    frame = LocalFrame(check.lat(lat, "lat"), check.lon(lon, "lon"))
    return _distances_m(frame, [region_polygon(polygon, "polygon").edges])[0]


def boundary_distances_m(lat: float, lon: float, polygons: Sequence[Sequence[Sequence[float]]]) -> list[float]:
    """:func:`boundary_distance_m` from (lat, lon) to each polygon, to the bit, in one pass."""
    frame = LocalFrame(check.lat(lat, "lat"), check.lon(lon, "lon"))
    if polygons is None or len(polygons) == 0:
        raise ValueError("polygons must not be empty")
    return _distances_m(frame, [region_polygon(p, f"polygons[{i}]").edges for i, p in enumerate(polygons)])


def _distances_m(frame: LocalFrame, edges: list[BaseGeometry]) -> list[float]:
    """Distance in metres from the frame's origin to each of ``edges`` (closed (lon, lat) lines, or points)."""
    coords, owner = shapely.get_coordinates(edges, return_index=True)
    xy = frame.xy_array(coords[:, ::-1])  # to_xy on each vertex, to the bit
    counts = np.bincount(owner, minlength=len(edges))
    if (counts > 1).all():
        shapes = shapely.linestrings(xy, indices=owner)
    else:  # a ring of one distinct vertex has a point for its edges
        ends = np.cumsum(counts)
        shapes = np.array([shapely.linestrings(xy[end - n:end]) if n > 1 else shapely.points(xy[end - 1])
                           for n, end in zip(counts.tolist(), ends.tolist(), strict=True)], dtype=object)
    out: list[float] = shapely.distance(shapes, _ORIGIN).tolist()
    return out
