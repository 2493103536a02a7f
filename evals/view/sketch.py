"""A small SVG sketch of the geometry a sample is about: points, paths and polygons from its payload, the
great circle between two points, and the gold and answered points when they are coordinates. No map tiles:
an equirectangular projection around the shapes with a light graticule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evals.view.markup import Safe, esc, h, join

POINT_KEYS = {"point", "points", "location", "locations", "start", "end", "origin", "destination", "query",
              "center", "centre", "stops", "waypoints", "coords", "coordinates"}
PATH_KEYS = {"path", "paths", "trajectory", "trajectories", "track", "tracks", "route", "routes", "history",
             "line", "polyline"}
POLYGON_KEYS = {"polygon", "polygons", "ring", "region", "regions", "boundary", "area", "zone"}
LABEL_KEYS = ("cities", "names", "labels", "places")
STEPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45, 60, 90)
LatLon = tuple[float, float]


@dataclass
class Shapes:
    points: list[tuple[LatLon, str]] = field(default_factory=list)
    paths: list[list[LatLon]] = field(default_factory=list)
    polygons: list[list[LatLon]] = field(default_factory=list)
    marks: list[tuple[LatLon, str, str]] = field(default_factory=list)  # (point, label, css colour)

    def empty(self) -> bool:
        return not (self.points or self.paths or self.polygons or self.marks)


def as_point(v: Any) -> LatLon | None:
    """``[lat, lon]`` or ``{"lat": .., "lon": ..}`` (also lng/latitude/longitude) within range, else None."""
    if isinstance(v, Mapping):
        lat = next((v[k] for k in ("lat", "latitude") if k in v), None)
        lon = next((v[k] for k in ("lon", "lng", "longitude") if k in v), None)
        v = [lat, lon]
    if isinstance(v, list | tuple) and len(v) == 2 and all(isinstance(x, int | float) and not isinstance(x, bool)
                                                             for x in v):
        lat, lon = float(v[0]), float(v[1])
        if -90 <= lat <= 90 and -180 <= lon <= 360 and math.isfinite(lat) and math.isfinite(lon):
            return lat, lon
    return None


def as_line(v: Any) -> list[LatLon] | None:
    if isinstance(v, list | tuple) and len(v) >= 2:
        pts = [as_point(p) for p in v]
        if all(p is not None for p in pts):
            return pts  # type: ignore[return-value]
    return None


def _lines(v: Any) -> list[list[LatLon]]:
    """One line, a list of lines, or polygons with holes (list of rings), flattened to lines."""
    line = as_line(v)
    if line is not None:
        return [line]
    if isinstance(v, list | tuple):
        return [ln for item in v for ln in _lines(item)]
    if isinstance(v, Mapping):
        return [ln for k in ("coordinates", "points", "ring", "exterior", "path") if k in v for ln in _lines(v[k])]
    return []


def extract(payload: Mapping[str, Any], target: Any = None, answers: Mapping[str, Any] | None = None) -> Shapes:
    """The shapes found under recognised keys of ``payload`` (nested one level), plus gold and answer marks."""
    shapes = Shapes()

    def walk(d: Mapping[str, Any], depth: int) -> None:
        labels: list[Any] = next((d[k] for k in LABEL_KEYS if isinstance(d.get(k), list)), [])
        for key, v in d.items():
            k = str(key).lower()
            if k in POINT_KEYS:
                p = as_point(v)
                if p is not None:
                    shapes.points.append((p, str(key)))
                elif (line := as_line(v)) is not None:
                    names = labels if len(labels) == len(line) else [chr(65 + i) if i < 26 else str(i + 1)
                                                                     for i in range(len(line))]
                    shapes.points += [(p, str(n)) for p, n in zip(line, names, strict=True)]
            elif k in PATH_KEYS:
                shapes.paths += _lines(v)
            elif k in POLYGON_KEYS:
                shapes.polygons += _lines(v)
            elif isinstance(v, Mapping) and depth < 2:
                walk(v, depth + 1)

    walk(payload, 0)
    gold = as_point(target) or (as_point(target.get("point")) if isinstance(target, Mapping) else None)
    if gold is not None:
        shapes.marks.append((gold, "gold", "#1a7f37"))
    for i, (cond, value) in enumerate((answers or {}).items()):
        p = as_point(value)
        if p is not None:
            shapes.marks.append((p, cond, ("#0969da", "#bc4c00", "#8250df")[i % 3]))
    return shapes


def great_circle(a: LatLon, b: LatLon, n: int = 48) -> list[LatLon]:
    """Points along the shorter great-circle arc from ``a`` to ``b``."""
    def vec(p: LatLon) -> tuple[float, float, float]:
        la, lo = math.radians(p[0]), math.radians(p[1])
        return math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)

    u, v = vec(a), vec(b)
    omega = math.acos(max(-1.0, min(1.0, sum(x * y for x, y in zip(u, v, strict=True)))))
    if omega < 1e-9 or abs(omega - math.pi) < 1e-9:
        return [a, b]
    out = []
    for i in range(n + 1):
        t = i / n
        s1, s2 = math.sin((1 - t) * omega) / math.sin(omega), math.sin(t * omega) / math.sin(omega)
        x, y, z = (s1 * p + s2 * q for p, q in zip(u, v, strict=True))
        out.append((math.degrees(math.atan2(z, math.hypot(x, y))), math.degrees(math.atan2(y, x))))
    return out


def _unwrap(line: list[LatLon]) -> list[LatLon]:
    """Longitudes made continuous along a line (no jump of more than 180° between neighbours)."""
    out = [line[0]]
    for lat, lon in line[1:]:
        prev = out[-1][1]
        while lon - prev > 180:
            lon -= 360
        while lon - prev < -180:
            lon += 360
        out.append((lat, lon))
    return out


def _step(span: float) -> float:
    return next((s for s in STEPS if span / s <= 6), 90)


def _deg(value: float, pos: str, neg: str) -> str:
    v = (value + 180) % 360 - 180 if pos == "E" else value
    text = f"{abs(v):g}°"
    return text + (pos if v > 0 else neg if v < 0 else "")


def render(shapes: Shapes, width: int = 360, max_height: int = 300) -> Safe:
    """The sketch as inline SVG, or an empty string when there is nothing to draw."""
    if shapes.empty():
        return Safe("")
    arc: list[LatLon] = []
    if len(shapes.points) == 2 and not shapes.paths and not shapes.polygons:
        arc = _unwrap(great_circle(shapes.points[0][0], shapes.points[1][0]))
    lines = [_unwrap(p) for p in shapes.paths] + [_unwrap(p) for p in shapes.polygons]
    everything = [p for p, _ in shapes.points] + [p for p, _, _ in shapes.marks] + arc + [p for ln in lines for p in ln]
    lons = [lo for _, lo in everything]
    shift = 360.0 if max(lons) - min(lons) > 180 and any(lo >= 90 for lo in lons) else 0.0

    def norm(p: LatLon) -> LatLon:
        return (p[0], p[1] + shift if p[1] < 0 and shift else p[1])

    def norm_line(ln: list[LatLon]) -> list[LatLon]:
        first = norm(ln[0])
        return [(la, lo + (first[1] - ln[0][1])) for la, lo in ln]

    pts_all = [norm(p) for p in everything]
    lat0, lat1 = min(p[0] for p in pts_all), max(p[0] for p in pts_all)
    lon0, lon1 = min(p[1] for p in pts_all), max(p[1] for p in pts_all)
    kx = max(0.2, math.cos(math.radians((lat0 + lat1) / 2)))
    span_x, span_y = max((lon1 - lon0) * kx, 0.02), max(lat1 - lat0, 0.02)
    pad = 26
    scale = min((width - 2 * pad) / span_x, (max_height - 2 * pad) / span_y)
    height = int(min(max_height, max(150, span_y * scale + 2 * pad)))
    cx, cy = (lon0 + lon1) / 2, (lat0 + lat1) / 2

    def xy(p: LatLon) -> tuple[float, float]:
        return width / 2 + (p[1] - cx) * kx * scale, height / 2 - (p[0] - cy) * scale

    def coords(ln: list[LatLon]) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in map(xy, ln))

    parts: list[Safe] = [h('<rect x="0" y="0" width="{w}" height="{h}" fill="#fbfdff"/>', w=width, h=height)]
    half_w, half_h = width / 2 / (kx * scale), height / 2 / scale
    step = _step(max(2 * half_w, 2 * half_h))
    lo = math.floor((cx - half_w) / step) * step
    while lo <= cx + half_w:
        x = xy((cy, lo))[0]
        if not 4 <= x <= width - 30:
            lo += step
            continue
        parts.append(h('<line x1="{x}" y1="0" x2="{x}" y2="{h}" stroke="#e3e8ee"/>'
                       '<text x="{tx}" y="{ty}" font-size="9" fill="#8c959f">{t}</text>',
                       x=f"{x:.1f}", h=height, tx=f"{x + 2:.1f}", ty=height - 3, t=_deg(round(lo, 6), "E", "W")))
        lo += step
    la = math.floor((cy - half_h) / step) * step
    while la <= cy + half_h:
        y = xy((la, cx))[1]
        if -90 <= la <= 90 and 12 <= y <= height - 14:
            parts.append(h('<line x1="0" y1="{y}" x2="{w}" y2="{y}" stroke="#e3e8ee"/>'
                           '<text x="2" y="{ty}" font-size="9" fill="#8c959f">{t}</text>',
                           y=f"{y:.1f}", w=width, ty=f"{y - 2:.1f}", t=_deg(round(la, 6), "N", "S")))
        la += step
    for poly in shapes.polygons:
        parts.append(h('<polygon points="{p}" fill="#0969da" fill-opacity="0.12" stroke="#0969da" stroke-width="1.5"/>',
                       p=coords(norm_line(_unwrap(poly)))))
    for path in shapes.paths:
        ln = norm_line(_unwrap(path))
        parts.append(h('<polyline points="{p}" fill="none" stroke="#bc4c00" stroke-width="1.8" '
                       'stroke-linejoin="round"/>', p=coords(ln)))
        parts += [h('<circle cx="{x}" cy="{y}" r="2" fill="#bc4c00"/>', x=f"{x:.1f}", y=f"{y:.1f}")
                  for x, y in map(xy, ln)]
    if arc:
        parts.append(h('<polyline points="{p}" fill="none" stroke="#57606a" stroke-width="1.5" '
                       'stroke-dasharray="5 4"/>', p=coords(norm_line(arc))))
    for p, label in shapes.points:
        x, y = xy(norm(p))
        anchor = "end" if x > width - 90 else "start"
        dx = -7 if anchor == "end" else 7
        parts.append(h('<circle cx="{x}" cy="{y}" r="4.5" fill="#0969da" stroke="#fff" stroke-width="1.5"/>'
                       '<text x="{tx}" y="{ty}" font-size="11" fill="#1f2328" text-anchor="{a}">{t}</text>',
                       x=f"{x:.1f}", y=f"{y:.1f}", tx=f"{x + dx:.1f}", ty=f"{y - 6:.1f}", a=anchor, t=label[:40]))
    for p, label, colour in shapes.marks:
        x, y = xy(norm(p))
        parts.append(h('<path d="M{x0},{y} L{x},{y0} L{x1},{y} L{x},{y1} Z" fill="{c}" stroke="#fff"/>'
                       '<text x="{tx}" y="{ty}" font-size="10" fill="{c}">{t}</text>',
                       x0=f"{x - 5:.1f}", x1=f"{x + 5:.1f}", y0=f"{y - 5:.1f}", y1=f"{y + 5:.1f}", x=f"{x:.1f}",
                       y=f"{y:.1f}", c=colour, tx=f"{x + 7:.1f}", ty=f"{y + 12:.1f}", t=label[:30]))
    label = f"sketch of {len(shapes.points)} points, {len(shapes.paths)} paths, {len(shapes.polygons)} polygons"
    return h('<svg class="sketch" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{l}">'
             '{body}</svg>', w=width, h=height, l=label, body=join(parts))


def sketch(payload: Mapping[str, Any], target: Any = None, answers: Mapping[str, Any] | None = None) -> Safe:
    return render(extract(payload, target, answers)) if isinstance(payload, Mapping) else esc("")
