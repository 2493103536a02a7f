"""The ``graph`` tool set: shortest routes on a road network stated in the question (numbered roads between
numbered locations, with or without lengths), a thin wrapper over :func:`geocore.networks.shortest_route`."""

from __future__ import annotations

import math
from typing import Annotated, cast

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore import networks as nw
from tools._common import make_tool, result
from tools.registry import toolset

RoadRow = Annotated[list[float], Field(min_length=3, max_length=4, description=(
    "[road_number, location_a, location_b] or [road_number, location_a, location_b, length_m]"))]


class RouteArgs(BaseModel):
    roads: str | list[str] | list[RoadRow] = Field(description=(
        "The roads: the road lines copied from the question, as one text or a list of lines, e.g. \"Road 0: "
        "(location 0, location 4, 259.42 meters)\", or a list of [road_number, location_a, location_b, "
        "length_m] (omit length_m for roads without lengths)"))
    start: int = Field(ge=0, description="The location you are at (its number)")
    goal: int = Field(ge=0, description="The location you want to reach (its number)")


def _rows(roads: str | list[str] | list[list[float]]) -> list[tuple[int, int, int, float | None]]:
    if isinstance(roads, list) and roads and all(isinstance(r, str) for r in roads):
        roads = "\n".join(cast("list[str]", roads))
    if isinstance(roads, str):
        rows = nw.parse_roads(roads)
        if not rows:
            raise ValueError("roads text holds no line like 'Road 0: (location 0, location 4, 259.42 meters)'")
        return rows
    out = []
    for row in cast("list[list[float]]", roads):  # validated as one kind of list, and not text lines
        if any(not math.isfinite(x) for x in row) or any(x != int(x) for x in row[:3]):
            raise ValueError(f"road {row} must start with whole road and location numbers")
        out.append((int(row[0]), int(row[1]), int(row[2]), float(row[3]) if len(row) == 4 else None))
    return out


def shortest_route(roads: str | list[str] | list[list[float]], start: int, goal: int) -> str:
    """Shortest route between two locations of a road network; all roads are two-way. With lengths it
    minimises total metres; without lengths it minimises the number of roads. Returns JSON {"length" (metres,
    or number of roads when the roads have no lengths), "weighted", "locations": [location numbers in order],
    "roads": [road numbers in order], "first_road" (the road to take first), "first_road_ties": [every road
    that begins some shortest route], "via_first_road": {road number: shortest length when you take that road
    first, null when it cannot reach the goal}}."""
    route = nw.shortest_route(_rows(roads), start, goal)
    via = {str(n): (None if math.isinf(x) else round(x, 6)) for n, x in sorted(route.via_edge.items())}
    return result(length=route.length, weighted=route.weighted, locations=list(route.nodes), roads=list(route.edges),
                  first_road=route.edges[0] if route.edges else None, first_road_ties=list(route.first_edges),
                  via_first_road=via)


@toolset("graph", "Shortest routes on a road network stated in the question (roads with or without lengths)")
def graph_tools() -> list[BaseTool]:
    """Shortest routes on a road network stated in the question (roads with or without lengths)."""
    return [make_tool(shortest_route, RouteArgs)]
