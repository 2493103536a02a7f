"""geocore.networks: deterministic networks on real coordinates, shortest paths against brute force and an
independent Floyd–Warshall, edge lengths against pyproj, arrival windows as a property."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyproj import Geod

from geocore.networks import (
    INDOOR_PLACES,
    OUTDOOR_PLACES,
    VIEW_RADIUS_M,
    build_network,
    make_network_id,
    parse_network_id,
)

SPHERE = Geod(a=6_371_000.0, b=6_371_000.0)
IDS = ["outdoor-000-0000", "outdoor-017-4821", "outdoor-999-9999", "indoor-003-0519", "indoor-250-1234"]


def floyd(net) -> dict[tuple[str, str], float]:
    ids = [c.id for c in net.cameras]
    d = {(a, b): 0.0 if a == b else math.inf for a in ids for b in ids}
    for r in net.roads:
        d[(r.a, r.b)] = d[(r.b, r.a)] = r.length_m
    for k, i, j in itertools.product(ids, ids, ids):
        if d[(i, k)] + d[(k, j)] < d[(i, j)]:
            d[(i, j)] = d[(i, k)] + d[(k, j)]
    return d


def test_ids_round_trip_and_bad_ids_name_the_argument() -> None:
    assert parse_network_id("outdoor-017-4821") == ("outdoor", 17, 4821)
    assert make_network_id("indoor", 3, 519) == "indoor-003-0519"
    for bad in ("outdoor-17", "street-001-0001", "", "outdoor-001-12345", None):
        with pytest.raises(ValueError, match="network_id"):
            parse_network_id(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind"):
        make_network_id("sky", 1, 1)


def test_same_id_same_network_key_relabels_only() -> None:
    a = build_network("outdoor-017-4821")
    b = build_network.__wrapped__("outdoor-017-4821")  # rebuilt, not cached
    assert a.cameras == b.cameras and a.roads == b.roads
    c = build_network("outdoor-017-0001")
    assert sorted((x.lat, x.lon) for x in a.cameras) == sorted((x.lat, x.lon) for x in c.cameras)
    assert {x.id for x in a.cameras} != {x.id for x in c.cameras}
    assert sorted(r.length_m for r in a.roads) == sorted(r.length_m for r in c.roads)
    d = build_network("outdoor-018-4821")
    assert sorted((x.lat, x.lon) for x in a.cameras) != sorted((x.lat, x.lon) for x in d.cameras)


@pytest.mark.parametrize("network_id", IDS)
def test_geometry_is_on_real_ground(network_id: str) -> None:
    net = build_network(network_id)
    outdoor = net.kind == "outdoor"
    place = net.place
    assert place in (OUTDOOR_PLACES if outdoor else INDOOR_PLACES)
    assert net.view_radius_m == VIEW_RADIUS_M[net.kind]
    assert len(net.cameras) == 15 and len(net.area_cameras(1)) == 12 and len(net.area_cameras(2)) == 3
    assert len({c.id for c in net.cameras}) == 15
    for c in net.cameras:
        assert SPHERE.inv(place.lon, place.lat, c.lon, c.lat)[2] < (12_000 if outdoor else 1_500)
    by_id = {c.id: c for c in net.cameras}
    for r in net.roads:
        a, b = by_id[r.a], by_id[r.b]
        direct = SPHERE.inv(a.lon, a.lat, b.lon, b.lat)[2]
        assert direct - 1 <= r.length_m <= direct * (1.2 if outdoor else 1.1) + 1
        assert a.area == b.area
        lo, hi = (200, 700) if outdoor else (8, 60)
        assert lo <= r.length_m <= hi
    for c in net.area_cameras(1):
        assert len(net.neighbours(c)) >= 2


@pytest.mark.parametrize("network_id", IDS)
def test_shortest_paths_match_floyd_warshall_and_brute_force(network_id: str) -> None:
    net = build_network(network_id)
    d = floyd(net)
    area1 = net.area_cameras(1)
    for a, b in itertools.permutations(area1, 2):
        path, length = net.shortest_path(a, b)
        assert length == d[(a, b)] and path[0] == a and path[-1] == b
        assert net.path_length(path) == length
    for a, b in list(itertools.combinations(area1, 2))[:12]:
        every = net.simple_paths(a, b, math.inf, limit=10_000)
        lengths = sorted(length for _, length in every)
        assert lengths[0] == d[(a, b)]
        assert net.second_shortest_length(a, b) == (lengths[1] if len(lengths) > 1 else math.inf)
        assert all(net.path_length(p) == length for p, length in every)


def test_areas_are_not_connected_and_errors_name_things() -> None:
    net = build_network("indoor-003-0519")
    a, z = net.area_cameras(1)[0], net.area_cameras(2)[0]
    with pytest.raises(ValueError, match="different areas"):
        net.shortest_path(a, z)
    with pytest.raises(ValueError, match="C000.*its cameras are"):
        net.camera("C000")
    with pytest.raises(ValueError, match="not joined by a road"):
        net.path_length([a, z])
    with pytest.raises(ValueError, match="at least 2"):
        net.route([a])
    assert net.camera(a.lower()).id == a


def test_route_uses_direct_roads_and_fills_gaps_with_shortest_paths() -> None:
    net = build_network("outdoor-017-4821")
    a, b = net.area_cameras(1)[0], net.area_cameras(1)[-1]
    path, length = net.shortest_path(a, b)
    assert net.route([a, b]) == path
    n = net.neighbours(a)[0][0]
    assert net.route([a, n]) == [a, n]  # a road between them: taken even if a shorter detour existed
    legs = net.legs(path)
    assert [leg.camera for leg in legs] == path and legs[-1].distance_m == length and legs[-1].heading_deg is None
    by_id = {c.id: c for c in net.cameras}
    for leg, nxt in zip(legs, path[1:], strict=False):
        p, q = by_id[leg.camera], by_id[nxt]
        assert leg.heading_deg == round(SPHERE.inv(p.lon, p.lat, q.lon, q.lat)[0] % 360) % 360


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 999), st.floats(0, 1000), st.floats(0.5, 20), st.floats(1.0, 2.0), st.floats(0, 1))
def test_arrival_window_holds_every_speed_in_range(layout: int, t0: float, vmin: float, spread: float,
                                                   frac: float) -> None:
    net = build_network(make_network_id("outdoor", layout, 1))
    cams = net.area_cameras(1)
    route = [cams[0], cams[-1]]
    vmax = vmin * spread
    v = vmin + frac * (vmax - vmin)
    r = net.view_radius_m
    for w in net.arrival_windows(route, t0, vmin, vmax):
        t = t0 + w.distance_m / v
        assert w.pass_earliest_s - 1e-9 <= t <= w.pass_latest_s + 1e-9
        assert w.seen_from_s - 1e-9 <= t - r / v and t + r / v <= w.seen_until_s + 1e-9
    fixed = net.arrival_windows(route, t0, v, v)[-1]
    assert fixed.pass_earliest_s == pytest.approx(fixed.pass_latest_s)
    assert (fixed.seen_from_s, fixed.seen_until_s) == pytest.approx(net.seen_interval(fixed.pass_earliest_s, v))


def test_arrival_window_rejects_bad_speeds() -> None:
    net = build_network("indoor-003-0519")
    route = net.area_cameras(1)[:2]
    with pytest.raises(ValueError, match="min_speed_mps"):
        net.arrival_windows(route, 0.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="max_speed_mps"):
        net.arrival_windows(route, 0.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="depart_time_s"):
        net.arrival_windows(route, math.nan, 1.0, 2.0)
