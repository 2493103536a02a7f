"""Camera networks on real coordinates, rebuilt deterministically from a network id.

A network is a graph whose nodes are cameras (id, lat/lon, the compass direction the camera faces) and whose
edges are two-way roads (outdoor, vehicles) or walkways (indoor/campus, pedestrians) with a length in whole
metres: the haversine distance between the cameras' printed coordinates times a detour factor. A second,
unconnected area of a few cameras lies some distance away (the source of "other area" distractors).

Network ids read ``<kind>-<layout>-<key>``, e.g. ``outdoor-017-4821``: ``kind`` and ``layout`` fix the geometry
(place, grid, roads); ``key`` fixes the camera labels (``C`` + three digits), so the same streets carry fresh,
anonymised ids in every question. Tools and task generators both call :func:`build_network` with the id
printed in a prompt and see the same network: no state is shared between them.

Motion conventions: a camera sees a target while it is within ``view_radius_m`` of it; at speed ``v`` the
target is in view during ``[t - R/v, t + R/v]`` where ``t`` is when it passes right under the camera. The
heading at a camera is the integer bearing (degrees clockwise from north) of the road the target leaves by.

Road graphs stated in a question (STBench navigation: numbered roads between numbered locations, with or
without lengths) are read by :func:`parse_roads` and solved by :func:`shortest_route`.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import random
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

from geocore import validation as check
from geocore.geodesy import compass_point, destination, haversine_km, initial_bearing

Kind = Literal["outdoor", "indoor"]
KINDS: tuple[Kind, ...] = ("outdoor", "indoor")
VIEW_RADIUS_M: dict[str, float] = {"outdoor": 40.0, "indoor": 5.0}
"""How far from a camera a target is in view, metres."""
COORD_DECIMALS: dict[str, int] = {"outdoor": 5, "indoor": 6}
NETWORK_ID_RE = re.compile(r"^(outdoor|indoor)-(\d{1,4})-(\d{4})$")


@dataclass(frozen=True)
class Place:
    name: str
    lat: float
    lon: float


OUTDOOR_PLACES: tuple[Place, ...] = (
    Place("Dubuque, Iowa, USA", 42.5006, -90.6646),
    Place("Aachen, Germany", 50.7753, 6.0839),
    Place("Kyoto, Japan", 35.0116, 135.7681),
    Place("Lyon, France", 45.7640, 4.8357),
    Place("Melbourne, Australia", -37.8136, 144.9631),
    Place("Austin, Texas, USA", 30.2672, -97.7431),
    Place("Nairobi, Kenya", -1.2921, 36.8219),
    Place("Curitiba, Brazil", -25.4284, -49.2733),
)
INDOOR_PLACES: tuple[Place, ...] = (
    Place("KAIST campus, Daejeon, South Korea", 36.3721, 127.3604),
    Place("ETH Zurich campus, Switzerland", 47.3764, 8.5481),
    Place("Tsinghua University campus, Beijing, China", 40.0000, 116.3264),
    Place("UC Berkeley campus, California, USA", 37.8719, -122.2585),
    Place("University of Cape Town campus, South Africa", -33.9577, 18.4612),
    Place("University of Melbourne campus, Australia", -37.7963, 144.9614),
)

# grid shape, spacing range (m), detour factor range, second-area offset range (m), per kind
_ROWS, _COLS = 3, 4
_SPACING = {"outdoor": (260.0, 480.0), "indoor": (14.0, 36.0)}
_DETOUR = {"outdoor": (1.0, 1.2), "indoor": (1.0, 1.1)}
_AREA2_OFFSET = {"outdoor": (3000.0, 5000.0), "indoor": (250.0, 500.0)}
_AREA2_SIZE = 3


@dataclass(frozen=True)
class Camera:
    """A camera: label, printed position, the direction it faces (8-point compass) and its area (1 or 2)."""

    id: str
    lat: float
    lon: float
    facing: str
    area: int


@dataclass(frozen=True)
class Road:
    """A two-way road or walkway between two cameras, length in metres (whole metres in built networks)."""

    a: str
    b: str
    length_m: float


@dataclass(frozen=True)
class Leg:
    """One camera of a route: cumulative distance from the route's start and the heading it leaves by."""

    camera: str
    distance_m: float
    heading_deg: int | None


@dataclass(frozen=True)
class Window:
    """When a target leaving the route's first camera at a known time can be at one camera of the route."""

    camera: str
    distance_m: float
    pass_earliest_s: float
    pass_latest_s: float
    seen_from_s: float
    seen_until_s: float


def _seed(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def parse_network_id(network_id: str) -> tuple[Kind, int, int]:
    """``outdoor-017-4821`` -> ("outdoor", 17, 4821); ValueError naming network_id otherwise."""
    m = NETWORK_ID_RE.match(network_id.strip()) if isinstance(network_id, str) else None
    if not m:
        raise ValueError(f"network_id must look like 'outdoor-017-4821' or 'indoor-003-0519', got {network_id!r}")
    return m.group(1), int(m.group(2)), int(m.group(3))  # type: ignore[return-value]


def make_network_id(kind: str, layout: int, key: int) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if not (0 <= layout <= 9999 and 0 <= key <= 9999):
        raise ValueError(f"layout and key must be within [0, 9999], got {layout}, {key}")
    return f"{kind}-{layout:03d}-{key:04d}"


class CameraNetwork:
    """A camera graph with shortest paths, route expansion and arrival windows. Immutable."""

    def __init__(self, network_id: str, kind: Kind, place: Place, cameras: tuple[Camera, ...],
                 roads: tuple[Road, ...]) -> None:
        self.id = network_id
        self.kind: Kind = kind
        self.place = place
        self.cameras = cameras
        self.roads = roads
        self.view_radius_m = VIEW_RADIUS_M[kind]
        self._by_id = {c.id: c for c in cameras}
        self._adj: dict[str, dict[str, float]] = {c.id: {} for c in cameras}
        for r in roads:
            self._adj[r.a][r.b] = r.length_m
            self._adj[r.b][r.a] = r.length_m
        self._sorted_adj = {c: sorted(n.items()) for c, n in self._adj.items()}
        self._trees: dict[str, tuple[dict[str, float], dict[str, str]]] = {}
        self._second: dict[tuple[str, str], float] = {}
        self._bearings: dict[tuple[str, str], int] = {}

    # ------------------------------------------------------------------ lookups

    def camera(self, camera_id: str, name: str = "camera") -> Camera:
        """The camera with this id (case and spaces ignored); ValueError naming ``name`` otherwise."""
        key = camera_id.strip().upper() if isinstance(camera_id, str) else camera_id
        if key not in self._by_id:
            raise ValueError(f"{name} {camera_id!r} is not a camera of network {self.id}; its cameras are "
                             f"{', '.join(sorted(self._by_id))}")
        return self._by_id[key]

    def has_camera(self, camera_id: str) -> bool:
        return camera_id in self._by_id

    def area_cameras(self, area: int) -> list[str]:
        return sorted(c.id for c in self.cameras if c.area == area)

    def bearing_deg(self, a: str, b: str) -> int:
        """Initial bearing from camera a to camera b, whole degrees in [0, 360)."""
        ca, cb = self.camera(a, "from_camera"), self.camera(b, "to_camera")
        key = (ca.id, cb.id)
        if key not in self._bearings:
            self._bearings[key] = round(initial_bearing(ca.lat, ca.lon, cb.lat, cb.lon)) % 360
        return self._bearings[key]

    def neighbours(self, camera_id: str) -> list[tuple[str, float, int]]:
        """(neighbour, road length m, bearing deg) for every road leaving the camera, by bearing."""
        c = self.camera(camera_id).id
        return sorted(((n, length, self.bearing_deg(c, n)) for n, length in self._adj[c].items()),
                      key=lambda t: (t[2], t[0]))

    def road_length(self, a: str, b: str) -> float:
        ca, cb = self.camera(a).id, self.camera(b).id
        if cb not in self._adj[ca]:
            raise ValueError(f"cameras {ca} and {cb} are not joined by a road in network {self.id}")
        return self._adj[ca][cb]

    # ------------------------------------------------------------------ paths

    def path_length(self, cameras: list[str]) -> float:
        """Length of a path whose consecutive cameras are joined by roads; ValueError otherwise."""
        if len(cameras) < 2:
            raise ValueError(f"cameras must list at least 2 cameras, got {len(cameras)}")
        return sum(self.road_length(a, b) for a, b in zip(cameras, cameras[1:], strict=False))

    def _dijkstra(self, source: str, banned: frozenset[tuple[str, str]] = frozenset()) -> tuple[dict[str, float],
                                                                                                 dict[str, str]]:
        dist: dict[str, float] = {source: 0}
        prev: dict[str, str] = {}
        heap: list[tuple[float, str]] = [(0, source)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            for v, w in self._sorted_adj[u]:
                if banned and ((u, v) in banned or (v, u) in banned):
                    continue
                nd = d + w
                if nd < dist.get(v, math.inf):
                    dist[v], prev[v] = nd, u
                    heapq.heappush(heap, (nd, v))
        return dist, prev

    def shortest_path(self, a: str, b: str) -> tuple[list[str], float]:
        """Cameras of the shortest path from a to b (both included) and its length in metres."""
        return self._shortest(self.camera(a, "from_camera").id, self.camera(b, "to_camera").id)

    def _shortest(self, a: str, b: str, banned: frozenset[tuple[str, str]] = frozenset()) -> tuple[list[str], float]:
        if banned:
            dist, prev = self._dijkstra(a, banned)
        else:
            if a not in self._trees:
                self._trees[a] = self._dijkstra(a)
            dist, prev = self._trees[a]
        if b not in dist:
            raise ValueError(f"no road connects {a} and {b} in network {self.id} (they are in different areas)")
        path = [b]
        while path[-1] != a:
            path.append(prev[path[-1]])
        return path[::-1], dist[b]

    def distances_from(self, a: str) -> dict[str, float]:
        """Shortest road distance from camera a to every camera it can reach."""
        a = self.camera(a).id
        if a not in self._trees:
            self._trees[a] = self._dijkstra(a)
        return dict(self._trees[a][0])

    def second_shortest_length(self, a: str, b: str) -> float:
        """Length of the shortest simple path from a to b that differs from the shortest one (inf if none)."""
        path, _ = self.shortest_path(a, b)
        key = (path[0], path[-1])
        if key not in self._second:
            best = math.inf
            for u, v in zip(path, path[1:], strict=False):
                try:
                    best = min(best, self._shortest(path[0], path[-1], frozenset({(u, v)}))[1])
                except ValueError:
                    continue
            self._second[key] = best
        return self._second[key]

    def route(self, waypoints: list[str]) -> list[str]:
        """All cameras of the route visiting ``waypoints`` in order: consecutive cameras joined by a road are
        linked by that road, others by the shortest path between them."""
        if len(waypoints) < 2:
            raise ValueError(f"cameras must list at least 2 cameras, got {len(waypoints)}")
        ids = [self.camera(w, f"cameras[{i}]").id for i, w in enumerate(waypoints)]
        out = [ids[0]]
        for a, b in zip(ids, ids[1:], strict=False):
            if a == b:
                raise ValueError(f"consecutive cameras must differ, got {a} twice")
            out.extend([b] if b in self._adj[a] else self._shortest(a, b)[0][1:])
        return out

    def legs(self, waypoints: list[str]) -> list[Leg]:
        """Each camera of :meth:`route` with its distance from the start and the heading it is left by."""
        cams = self.route(waypoints)
        out: list[Leg] = []
        d: float = 0
        for i, c in enumerate(cams):
            if i:
                d += self._adj[cams[i - 1]][c]
            out.append(Leg(c, d, self.bearing_deg(c, cams[i + 1]) if i + 1 < len(cams) else None))
        return out

    def simple_paths(self, a: str, b: str, max_length_m: float, limit: int = 200) -> list[tuple[list[str], float]]:
        """Simple paths from a to b no longer than ``max_length_m``, shortest first (at most ``limit``)."""
        a, b = self.camera(a).id, self.camera(b).id
        to_b = self.distances_from(b)
        found: list[tuple[list[str], float]] = []

        def walk(path: list[str], length: float) -> None:
            if len(found) >= limit:
                return
            u = path[-1]
            if u == b:
                found.append((list(path), length))
                return
            for v, w in self._sorted_adj[u]:
                if v not in path and v in to_b and length + w + to_b[v] <= max_length_m:
                    path.append(v)
                    walk(path, length + w)
                    path.pop()

        if a in to_b:
            walk([a], 0)
        return sorted(found, key=lambda t: (t[1], t[0]))

    # ------------------------------------------------------------------ time

    def arrival_windows(self, waypoints: list[str], depart_time_s: float, min_speed_mps: float,
                        max_speed_mps: float) -> list[Window]:
        """For each camera of the route, when a target passing the first camera at ``depart_time_s`` and moving
        at any speed within [min, max] passes under it and when it can be in view."""
        t0 = check.finite(depart_time_s, "depart_time_s")
        vmin = check.positive(min_speed_mps, "min_speed_mps")
        vmax = check.positive(max_speed_mps, "max_speed_mps")
        if vmin > vmax:
            raise ValueError(f"min_speed_mps must be <= max_speed_mps, got {vmin} > {vmax}")
        r = self.view_radius_m
        out = []
        for leg in self.legs(waypoints):
            d = leg.distance_m
            early, late = t0 + d / vmax, t0 + d / vmin
            # in view from t0 + (d - R) / v to t0 + (d + R) / v: the start is earliest at vmax unless d < R
            first = t0 + (d - r) / (vmax if d >= r else vmin)
            out.append(Window(leg.camera, d, early, late, first, t0 + (d + r) / vmin))
        return out

    @cached_property
    def junctions(self) -> list[str]:
        """Cameras with three or more roads."""
        return sorted(c for c, n in self._adj.items() if len(n) >= 3)


# ---------------------------------------------------------------------------- construction

def _connected(nodes: int, edges: set[tuple[int, int]]) -> bool:
    adj: dict[int, set[int]] = {i: set() for i in range(nodes)}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    seen, stack = {0}, [0]
    while stack:
        for v in adj[stack.pop()] - seen:
            seen.add(v)
            stack.append(v)
    return len(seen) == nodes


def _grid_edges(rng: random.Random) -> set[tuple[int, int]]:
    def idx(r: int, c: int) -> int:
        return r * _COLS + c

    edges = {(idx(r, c), idx(r, c + 1)) for r in range(_ROWS) for c in range(_COLS - 1)}
    edges |= {(idx(r, c), idx(r + 1, c)) for r in range(_ROWS - 1) for c in range(_COLS)}
    removed = 0
    for e in rng.sample(sorted(edges), len(edges)):
        if removed == 2:
            break
        trial = edges - {e}
        degree = [sum(1 for x in trial if i in x) for i in range(_ROWS * _COLS)]
        if min(degree) >= 2 and _connected(_ROWS * _COLS, trial):
            edges, removed = trial, removed + 1
    r, c = rng.randrange(_ROWS - 1), rng.randrange(_COLS - 1)
    edges.add((idx(r, c), idx(r + 1, c + 1)) if rng.random() < 0.5 else (idx(r, c + 1), idx(r + 1, c)))
    return edges


def _place_point(lat0: float, lon0: float, east_m: float, north_m: float, decimals: int) -> tuple[float, float]:
    dist_km = math.hypot(east_m, north_m) / 1000.0
    lat, lon = destination(lat0, lon0, math.degrees(math.atan2(east_m, north_m)) % 360.0, dist_km)
    return round(lat, decimals), round(lon, decimals)


@lru_cache(maxsize=512)
def build_network(network_id: str) -> CameraNetwork:
    """The network named by ``network_id`` (same id, same network, in any process)."""
    kind, layout, key = parse_network_id(network_id)
    geo = random.Random(_seed("geometry", kind, layout))
    places = OUTDOOR_PLACES if kind == "outdoor" else INDOOR_PLACES
    base = places[layout % len(places)]
    lo, hi = _SPACING[kind]
    shift = 10 * hi
    lat0, lon0 = _place_point(base.lat, base.lon, geo.uniform(-shift, shift), geo.uniform(-shift, shift), 6)
    sx, sy = geo.uniform(lo, hi), geo.uniform(lo, hi)
    theta = math.radians(geo.uniform(0.0, 90.0))
    dec = COORD_DECIMALS[kind]
    points: list[tuple[float, float]] = []
    for r in range(_ROWS):
        for c in range(_COLS):
            x = (c - (_COLS - 1) / 2) * sx + geo.uniform(-0.15, 0.15) * sx
            y = (r - (_ROWS - 1) / 2) * sy + geo.uniform(-0.15, 0.15) * sy
            e, n = x * math.cos(theta) - y * math.sin(theta), x * math.sin(theta) + y * math.cos(theta)
            points.append(_place_point(lat0, lon0, e, n, dec))
    edges = _grid_edges(geo)
    # the second area: a short chain of cameras some way off, not connected to the first
    off = geo.uniform(*_AREA2_OFFSET[kind])
    ang = geo.uniform(0.0, 2 * math.pi)
    ex, ny = off * math.sin(ang), off * math.cos(ang)
    step_ang = geo.uniform(0.0, 2 * math.pi)
    first2 = len(points)
    for k in range(_AREA2_SIZE):
        bend = step_ang + (k // 2) * math.pi / 2
        step = geo.uniform(lo, hi)
        ex, ny = (ex, ny) if k == 0 else (ex + step * math.sin(bend), ny + step * math.cos(bend))
        points.append(_place_point(lat0, lon0, ex, ny, dec))
    edges |= {(first2 + k, first2 + k + 1) for k in range(_AREA2_SIZE - 1)}
    detour = _DETOUR[kind]
    lengths = {
        (a, b): max(1, round(1000.0 * haversine_km(*points[a], *points[b]) * geo.uniform(*detour)))
        for a, b in sorted(edges)
    }
    labels = [f"C{n:03d}" for n in random.Random(_seed("labels", kind, layout, key)).sample(range(100, 1000),
                                                                                        len(points))]
    adj: dict[int, list[int]] = {i: [] for i in range(len(points))}
    for a, b in sorted(edges):
        adj[a].append(b)
        adj[b].append(a)
    cameras = []
    for i, (la, lo_) in enumerate(points):
        toward = points[geo.choice(adj[i])]
        facing = compass_point(initial_bearing(la, lo_, *toward), 8)
        cameras.append(Camera(labels[i], la, lo_, facing, 1 if i < first2 else 2))
    roads = tuple(sorted((Road(min(labels[a], labels[b]), max(labels[a], labels[b]), length)
                          for (a, b), length in lengths.items()),
                         key=lambda r: (r.a, r.b)))
    return CameraNetwork(network_id, kind, base, tuple(sorted(cameras, key=lambda c: c.id)), roads)


# ---------------------------------------------------------------------------- road graphs stated in a question

_ROAD_LINE = re.compile(r"Road\s+(\d+)\s*:\s*\(\s*location\s+(\d+)\s*,\s*location\s+(\d+)\s*"
                        r"(?:,\s*(\d+(?:\.\d+)?)\s*(?:meters?|metres?|m)?)?\s*\)", re.IGNORECASE)


def parse_roads(text: str) -> list[tuple[int, int, int, float | None]]:
    """(road number, location a, location b, length in metres or None) of every line like
    ``Road 3: (location 1, location 4, 590.34 meters)`` or ``Road 3: (location 1, location 4)``."""
    return [(int(n), int(a), int(b), float(w) if w else None) for n, a, b, w in _ROAD_LINE.findall(text)]


@dataclass(frozen=True)
class GraphRoute:
    """A shortest route between two nodes of an undirected graph whose edges are numbered.

    ``length`` is in the edges' unit (the number of edges when unweighted); ``first_edges`` lists every edge
    leaving the source that begins some shortest route (ties within 1e-9 relative); ``via_edge`` gives, for
    each edge leaving the source, the shortest length of a route that takes it first (inf when it leads nowhere).
    """

    length: float
    weighted: bool
    nodes: tuple[int, ...]
    edges: tuple[int, ...]
    first_edges: tuple[int, ...]
    via_edge: dict[int, float]


def shortest_route(edges: list[tuple[int, int, int, float | None]], source: int, target: int) -> GraphRoute:
    """Shortest route from ``source`` to ``target`` over two-way edges ``(number, a, b, length)``.

    All lengths given: Dijkstra on them; all None: each edge counts 1 (fewest edges). ValueError on a mix, a
    negative or non-finite length, a repeated edge number, an unknown node or no route.
    """
    if not edges:
        raise ValueError("roads must list at least one road")
    numbers = [e[0] for e in edges]
    if len(set(numbers)) != len(numbers):
        raise ValueError("roads lists a road number twice")
    given = [e[3] is not None for e in edges]
    if any(given) and not all(given):
        raise ValueError("either every road has a length or none has")
    weighted = all(given)
    adj: dict[int, list[tuple[float, int, int]]] = {}
    for n, a, b, w in edges:
        length = 1.0 if w is None else check.non_negative(w, f"length of road {n}")
        adj.setdefault(a, []).append((length, n, b))
        adj.setdefault(b, []).append((length, n, a))
    for name, node in (("start", source), ("goal", target)):
        if node not in adj:
            raise ValueError(f"{name} location {node} is on no road; locations: {', '.join(map(str, sorted(adj)))}")
    dist: dict[int, float] = {target: 0.0}
    heap: list[tuple[float, int]] = [(0.0, target)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for w, _, v in adj[u]:
            if d + w < dist.get(v, math.inf):
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    if source not in dist:
        raise ValueError(f"no road route joins location {source} and location {target}")
    best = dist[source]

    def tight(x: float) -> bool:
        return abs(x - best) <= 1e-9 * max(1.0, best)

    via = {n: w + dist.get(v, math.inf) for w, n, v in adj[source]} if source != target else {}
    firsts = tuple(sorted(n for n, x in via.items() if tight(x)))
    nodes, route, u = [source], [], source
    while u != target:
        w, n, v = min((w, n, v) for w, n, v in adj[u] if v not in nodes
                      and abs(w + dist.get(v, math.inf) - dist[u]) <= 1e-9 * max(1.0, dist[u]))
        nodes.append(v)
        route.append(n)
        u = v
    return GraphRoute(best, weighted, tuple(nodes), tuple(route), firsts, via)
