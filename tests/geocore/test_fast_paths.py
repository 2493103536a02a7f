"""The fast paths that sample generation leans on give what the plain computation gives, to the bit."""

from __future__ import annotations

import random

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point

from geocore import gazetteer as gz
from geocore.regions import (
    LocalFrame,
    boundary_distance_m,
    boundary_distances_m,
    region_polygon,
    regions_crossed,
)


def _full_scan(lat: float, lon: float, k: int, min_population: int) -> list[tuple[gz.City, float]]:
    """Every city's distance, sorted by (km, gazetteer position): what nearest_cities must return."""
    dist = gz.city_distances_km(lat, lon)
    pops = np.array([c.population for c in gz.cities()])
    idx = np.flatnonzero(pops >= min_population)
    order = idx[np.lexsort((idx, dist[idx]))][:k]
    return [(gz.cities()[i], float(dist[i])) for i in order]


def test_nearest_cities_equals_a_full_scan() -> None:
    rng = random.Random(11)
    towns = gz.cities()
    for n in range(300):
        if n % 2:
            town = towns[rng.randrange(len(towns))]
            lat, lon = town.lat, town.lon  # a city itself: distance 0 first
        else:
            lat, lon = rng.uniform(-90, 90), rng.uniform(-180, 180)  # open ocean and poles too
        k = rng.choice([1, 2, 5, 60, 700])
        floor = rng.choice([0, 0, 200_000, 5_000_000])
        assert gz.nearest_cities(lat, lon, k, floor) == _full_scan(lat, lon, k, floor), (lat, lon, k, floor)


def test_nearest_cities_when_few_cities_qualify() -> None:
    got = gz.nearest_cities(0.0, 0.0, 50, min_population=15_000_000)
    assert 0 < len(got) < 50  # every city of that size, nearest first
    assert [km for _, km in got] == sorted(km for _, km in got)
    assert gz.nearest_cities(0.0, 0.0, 5, min_population=10**10) == []


def test_frame_arrays_match_the_scalar_projection_to_the_bit() -> None:
    rng = random.Random(5)
    for _ in range(200):
        frame = LocalFrame(rng.uniform(-80, 80), rng.uniform(-179, 179))
        pts = [(frame.lat0 + rng.uniform(-0.05, 0.05), frame.lon0 + rng.uniform(-0.05, 0.05)) for _ in range(9)]
        assert frame.xy_array(pts).tolist() == [list(frame.to_xy(*p)) for p in pts]
        xy = [(rng.uniform(-4000, 4000), rng.uniform(-4000, 4000)) for _ in range(9)]
        assert frame.latlon_array(xy).tolist() == [list(frame.to_latlon(*p)) for p in xy]


def test_frame_arrays_refuse_what_the_scalar_forms_refuse() -> None:
    frame = LocalFrame(10.0, 20.0)
    with pytest.raises(ValueError, match="within"):
        frame.xy_array([(10.0, 20.0), (91.0, 20.0)])
    with pytest.raises(ValueError, match="finite"):
        frame.latlon_array([(0.0, float("nan"))])
    with pytest.raises(ValueError, match="off the globe"):
        frame.latlon_array([(0.0, 1e8)])


def test_region_polygon_reuses_a_ring_and_still_names_a_bad_one() -> None:
    ring = [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]
    first = region_polygon(ring)
    assert region_polygon([list(p) for p in ring]) is first
    assert first.area.area == pytest.approx(1.0) and not first.repaired
    for _ in range(2):  # a failure is not kept: the second call names the argument again
        with pytest.raises(ValueError, match=r"regions\[3\]"):
            region_polygon([[0.0, 0.0], [95.0, 1.0], [1.0, 1.0]], "regions[3]")


def _distance_one_vertex_at_a_time(lat: float, lon: float, polygon: list[tuple[float, float]]) -> float:
    """boundary_distance_m as first written: each vertex of the ring's edges through LocalFrame.to_xy."""
    frame = LocalFrame(lat, lon)
    coords = list(region_polygon(polygon).edges.coords)
    if len(coords) == 1:
        return float(Point(frame.to_xy(coords[0][1], coords[0][0])).distance(Point(0.0, 0.0)))
    return float(LineString([frame.to_xy(y, x) for x, y in coords]).distance(Point(0.0, 0.0)))


def test_boundary_distances_match_one_polygon_at_a_time_to_the_bit() -> None:
    rng = random.Random(8)
    for _ in range(300):
        lat, lon = rng.uniform(-60, 60), rng.uniform(-170, 170)
        polys = [[(lat + rng.uniform(-0.01, 0.01), lon + rng.uniform(-0.01, 0.01)) for _ in range(rng.randint(3, 7))]
                 for _ in range(rng.randint(1, 5))]
        if rng.random() < 0.2:
            polys.append([(lat, lon)] * 4)  # one distinct vertex: its edges are a point
        expected = [_distance_one_vertex_at_a_time(lat, lon, p) for p in polys]
        assert boundary_distances_m(lat, lon, polys) == [boundary_distance_m(lat, lon, p) for p in polys] == expected
    with pytest.raises(ValueError, match=r"polygons\[1\]"):
        boundary_distances_m(0.0, 0.0, [[(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)], [(0.0, 0.0), (95.0, 1.0), (1.0, 1.0)]])
    with pytest.raises(ValueError, match="empty"):
        boundary_distances_m(0.0, 0.0, [])


def _crossed_all_pairs(path: list[tuple[float, float]], regions: list[list[tuple[float, float]]]) -> list[int]:
    """regions_crossed as first written: every (segment, region) pair intersected, in array calls."""
    pts = [(float(a), float(b)) for a, b in path]
    areas = [(r, region_polygon(ring).area) for r, ring in enumerate(regions)]
    areas = [(r, a) for r, a in areas if not a.is_empty]
    moves = [k for k in range(len(pts) - 1) if pts[k] != pts[k + 1]]
    if not moves or not areas:
        return []
    lonlat = np.array(pts)[:, ::-1]
    segs = shapely.linestrings(np.stack([lonlat[moves], lonlat[[k + 1 for k in moves]]], axis=1))
    shapes = np.array([a for _, a in areas], dtype=object)
    pieces, pair = shapely.get_parts(shapely.intersection(segs[:, None], shapes[None, :]).ravel(), return_index=True)
    seg_of, shape_of = np.divmod(pair, len(areas))
    keep = ~shapely.is_empty(pieces) & (shapely.get_type_id(pieces) == shapely.GeometryType.LINESTRING)
    keep[keep] = shapely.length(pieces[keep]) != 0.0
    keep[keep] = shapely.relate_pattern(pieces[keep], shapes[shape_of[keep]], "T********")
    pieces, seg_of, shape_of = pieces[keep], seg_of[keep], shape_of[keep]
    if not pieces.size:
        return []
    coords, owner = shapely.get_coordinates(pieces, return_index=True)
    along = shapely.line_locate_point(segs[seg_of[owner]], shapely.points(coords))
    starts = np.minimum.reduceat(along, np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]))
    entries = sorted((moves[k], s, areas[j][0]) for k, s, j in zip(seg_of.tolist(), starts.tolist(),
                                                                    shape_of.tolist(), strict=True))
    out: list[int] = []
    for _, _, r in entries:
        if not out or out[-1] != r:
            out.append(r)
    return out


def test_regions_crossed_skips_only_pairs_whose_intersection_is_empty() -> None:
    rng = random.Random(9)
    grid = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    for n in range(3000):
        if n % 2:  # grid rings and paths: shared edges, touching corners, runs along boundaries
            regions = [[(rng.choice(grid), rng.choice(grid)) for _ in range(rng.randint(3, 6))]
                       for _ in range(rng.randint(1, 4))]
            path = [(rng.choice(grid) + rng.choice([0.0, 0.0, 0.25]), rng.choice(grid)) for _ in range(rng.randint(2, 5))]
        else:
            regions = [[(rng.uniform(0, 3), rng.uniform(0, 3)) for _ in range(rng.randint(3, 7))]
                       for _ in range(rng.randint(1, 5))]
            path = [(rng.uniform(-0.5, 3.5), rng.uniform(-0.5, 3.5)) for _ in range(rng.randint(2, 6))]
        if any(len({tuple(p) for p in ring}) < 3 for ring in regions):
            continue
        assert regions_crossed(path, regions) == _crossed_all_pairs(path, regions), (path, regions)
