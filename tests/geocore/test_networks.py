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
    parse_roads,
    shortest_route,
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
    assert (fixed.seen_from_s, fixed.seen_until_s) == pytest.approx((fixed.pass_earliest_s - r / v, fixed.pass_earliest_s + r / v))


def test_arrival_window_rejects_bad_speeds() -> None:
    net = build_network("indoor-003-0519")
    route = net.area_cameras(1)[:2]
    with pytest.raises(ValueError, match="min_speed_mps"):
        net.arrival_windows(route, 0.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="max_speed_mps"):
        net.arrival_windows(route, 0.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="depart_time_s"):
        net.arrival_windows(route, math.nan, 1.0, 2.0)


ROADS = "\n".join([  # navigation_with_weights_5.jsonl line 1 of the released STBench files
    "Road 0: (location 0, location 4, 259.42 meters)", "Road 1: (location 0, location 1, 417.61 meters)",
    "Road 2: (location 1, location 4, 674.17 meters)", "Road 3: (location 1, location 3, 590.34 meters)",
    "Road 4: (location 1, location 2, 778.27 meters)", "Road 5: (location 2, location 3, 482.70 meters)",
    "Road 6: (location 2, location 4, 524.79 meters)"])


def brute_force(edges: list[tuple[int, int, int, float | None]], a: int, b: int) -> float:
    """Shortest length over every simple path (independent of Dijkstra)."""
    best = math.inf

    def walk(u: int, seen: set[int], length: float) -> None:
        nonlocal best
        if u == b:
            best = min(best, length)
            return
        for _, x, y, w in edges:
            for p, q in ((x, y), (y, x)):
                if p == u and q not in seen:
                    walk(q, seen | {q}, length + (1.0 if w is None else w))

    walk(a, {a}, 0.0)
    return best


def test_shortest_route_on_a_stated_road_graph() -> None:
    edges = parse_roads(ROADS)
    assert edges[0] == (0, 0, 4, 259.42) and len(edges) == 7
    r = shortest_route(edges, 1, 2)
    assert r.weighted and r.length == pytest.approx(778.27) and r.edges == (4,) and r.first_edges == (4,)
    assert r.via_edge[2] == pytest.approx(674.17 + 524.79) and r.nodes == (1, 2)
    plain = [(n, a, b, None) for n, a, b, _ in edges]
    u = shortest_route(plain, 3, 4)  # 3-1-4 and 3-2-4 both take two roads: a tie
    assert not u.weighted and u.length == 2 and u.first_edges == (3, 5)
    assert isinstance(edges[0][3], float) and parse_roads("Road 2: (location 1, location 3)") == [(2, 1, 3, None)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.one_of(st.none(), st.integers(1, 50))),
                min_size=1, max_size=12), st.booleans())
def test_shortest_route_matches_brute_force(raw: list[tuple[int, int, int | None]], weighted: bool) -> None:
    edges = [(i, a, b, (float(w or 7) if weighted else None)) for i, (a, b, w) in enumerate(raw) if a != b]
    if not edges:
        return
    a, b = edges[0][1], edges[-1][2]
    best = brute_force(edges, a, b)
    if math.isinf(best):
        with pytest.raises(ValueError, match="no road route"):
            shortest_route(edges, a, b)
        return
    route = shortest_route(edges, a, b)
    assert route.length == pytest.approx(best)
    assert sum(1.0 if w is None else w for n, *_, w in edges if n in route.edges) == pytest.approx(best)


def test_shortest_route_rejects_bad_graphs() -> None:
    with pytest.raises(ValueError, match="every road has a length or none"):
        shortest_route([(0, 0, 1, 5.0), (1, 1, 2, None)], 0, 2)
    with pytest.raises(ValueError, match="start location 7"):
        shortest_route([(0, 0, 1, 5.0)], 7, 1)
    with pytest.raises(ValueError, match="no road route"):
        shortest_route([(0, 0, 1, 5.0), (1, 2, 3, 1.0)], 0, 3)
    with pytest.raises(ValueError, match="twice"):
        shortest_route([(0, 0, 1, 5.0), (0, 1, 2, 1.0)], 0, 2)
