"""A GTR prompt read back without the task's code (test helper): the camera map, roads and options parsed with
regular expressions, bearings from pyproj on a sphere, shortest paths from a plain Dijkstra written here."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pyproj import Geod

from tasks.records import Sample

SPHERE = Geod(a=6_371_000.0, b=6_371_000.0)
CAM_RE = re.compile(r"^(C\d{3}): (-?\d+\.\d+), (-?\d+\.\d+), faces ([NESW]{1,2})$", re.M)
ROAD_RE = re.compile(r"(C\d{3})-(C\d{3}) (\d+)")
OPTION_RE = re.compile(r"^([A-Z])\. (.+)$", re.M)


@dataclass
class Scene:
    radius: float
    pos: dict[str, tuple[float, float]]
    area: dict[str, int]
    adj: dict[str, dict[str, int]]
    options: list[str]
    text: str

    def bearing(self, a: str, b: str) -> int:
        (la1, lo1), (la2, lo2) = self.pos[a], self.pos[b]
        return round(SPHERE.inv(lo1, la1, lo2, la2)[0] % 360) % 360

    def dijkstra(self, a: str) -> tuple[dict[str, float], dict[str, str]]:
        dist, prev, todo = {c: math.inf for c in self.adj}, {}, set(self.adj)
        dist[a] = 0
        while todo:
            u = min(todo, key=lambda c: (dist[c], c))
            todo.remove(u)
            for v, w in self.adj[u].items():
                if dist[u] + w < dist[v]:
                    dist[v], prev[v] = dist[u] + w, u
        return dist, prev

    def shortest(self, a: str, b: str) -> list[str]:
        _, prev = self.dijkstra(a)
        path = [b]
        while path[-1] != a:
            path.append(prev[path[-1]])
        return path[::-1]

    def expand(self, waypoints: list[str]) -> list[str]:
        out = [waypoints[0]]
        for a, b in zip(waypoints, waypoints[1:], strict=False):
            out += [b] if b in self.adj[a] else self.shortest(a, b)[1:]
        return out

    def length(self, path: list[str]) -> int:
        return sum(self.adj[a][b] for a, b in zip(path, path[1:], strict=False))

    def is_path(self, path: list[str]) -> bool:
        return all(c in self.adj for c in path) and all(
            b in self.adj[a] for a, b in zip(path, path[1:], strict=False))


def read(s: Sample) -> Scene:
    text = s.prompt
    pos, area, current = {}, {}, 1
    for line in text.splitlines():
        if line.startswith("Area 2"):
            current = 2
        m = CAM_RE.match(line)
        if m:
            pos[m.group(1)] = (float(m.group(2)), float(m.group(3)))
            area[m.group(1)] = current
    adj: dict[str, dict[str, int]] = {c: {} for c in pos}
    for a, b, length in ROAD_RE.findall(text):
        adj[a][b] = adj[b][a] = int(length)
    radius = float(re.search(r"sees (\d+(?:\.\d+)?) m around it", text).group(1))
    block = text.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
    return Scene(radius, pos, area, adj, [m.group(2) for m in OPTION_RE.finditer(block)], text)
