"""geogap-network: the camera-network tool set of the GTR tasks, delivered as a geogap plug-in.

The package registers one tool set, ``network``, with geogap's ``@toolset`` decorator when this module is
imported; its ``pyproject.toml`` names the module in geogap's one plug-in entry-point group
(``[project.entry-points.geogap] network = "geogap_network"``), so geogap imports it on its first registry lookup.
Nothing in geogap imports this package, so removing it leaves the rest of the product working; the ``tools``
condition then reports that the ``network`` tool set is missing.

Tools are stateless: each call names the network by the id printed in the question (e.g.
``outdoor-017-4821``) and ``geocore.networks.build_network`` rebuilds the same network from that id.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore.geodesy import compass_point
from geocore.networks import build_network
from tools import make_tool, toolset

__all__ = ["network_tools"]

NetworkId = Annotated[str, Field(description="Network id from the question")]
CameraId = Annotated[str, Field(description="Camera id from the question")]
Route = Annotated[list[CameraId], Field(min_length=2, description="Camera ids in travel order (2 or more)")]


class PairArgs(BaseModel):
    network_id: NetworkId
    from_camera: CameraId
    to_camera: CameraId


class CameraArgs(BaseModel):
    network_id: NetworkId
    camera: CameraId


class RouteArgs(BaseModel):
    network_id: NetworkId
    cameras: Route


class TravelArgs(RouteArgs):
    speed_mps: float = Field(gt=0, le=100, description="Constant speed, m/s")


class WindowArgs(RouteArgs):
    depart_time_s: float = Field(description="When it passes the first camera, s (middle of its in-view interval)")
    min_speed_mps: float = Field(gt=0, le=100, description="Slowest speed, m/s")
    max_speed_mps: float = Field(gt=0, le=100, description="Fastest speed, m/s")


def _json(**values: Any) -> str:
    def fix(v: Any) -> Any:
        if isinstance(v, float):
            return round(v, 2)
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        return v

    return json.dumps({k: fix(v) for k, v in values.items()})


def shortest_path(network_id: str, from_camera: str, to_camera: str) -> str:
    """Shortest road route between two cameras. Returns JSON {"cameras": [ids, both ends included],
    "length_m"}."""
    cams, length = build_network(network_id).shortest_path(from_camera, to_camera)
    return _json(cameras=cams, length_m=length)


def path_length(network_id: str, cameras: list[str]) -> str:
    """Road length in metres of a path of cameras, each joined by a road to the next (else an error).
    Returns JSON {"length_m", "legs_m": [each road's length]}."""
    net = build_network(network_id)
    legs = [net.road_length(a, b) for a, b in zip(cameras, cameras[1:], strict=False)]
    return _json(length_m=sum(legs), legs_m=legs)


def cameras_on_path(network_id: str, cameras: list[str]) -> str:
    """Every camera on the route through the given cameras in order (a road if two are joined by one, else the
    shortest route). Returns JSON {"cameras": [{"camera", "distance_m" from the start, "heading_deg" and
    "heading" (compass) of the road leaving it, null at the end}], "length_m"}."""
    legs = build_network(network_id).legs(cameras)
    out = [{"camera": leg.camera, "distance_m": leg.distance_m, "heading_deg": leg.heading_deg,
            "heading": None if leg.heading_deg is None else compass_point(leg.heading_deg, 8)} for leg in legs]
    return _json(cameras=out, length_m=legs[-1].distance_m)


def travel_time(network_id: str, cameras: list[str], speed_mps: float) -> str:
    """Seconds to travel the route through the given cameras (as in cameras_on_path) at a constant speed.
    Returns JSON {"cameras": [every camera on the route], "length_m", "seconds"}."""
    net = build_network(network_id)
    route = net.route(cameras)
    length = net.path_length(route)
    return _json(cameras=route, length_m=length, seconds=length / speed_mps)


def arrival_window(network_id: str, cameras: list[str], depart_time_s: float, min_speed_mps: float,
                   max_speed_mps: float) -> str:
    """When a target passing the first camera at depart_time_s, at any speed from min_speed_mps to
    max_speed_mps (equal for a known speed), reaches each camera of the route (as in cameras_on_path).
    Returns JSON {"cameras": [{"camera", "distance_m", "pass_earliest_s", "pass_latest_s" (under the camera),
    "seen_from_s", "seen_until_s" (in its view)}]}."""
    net = build_network(network_id)
    wins = net.arrival_windows(cameras, depart_time_s, min_speed_mps, max_speed_mps)
    return _json(cameras=[
        {"camera": w.camera, "distance_m": w.distance_m, "pass_earliest_s": w.pass_earliest_s,
         "pass_latest_s": w.pass_latest_s, "seen_from_s": w.seen_from_s, "seen_until_s": w.seen_until_s}
        for w in wins])


def camera_neighbours(network_id: str, camera: str) -> str:
    """Cameras joined to a camera by a road. Returns JSON {"neighbours": [{"camera", "length_m",
    "bearing_deg" and "heading" (compass) from the camera toward it}]}."""
    out = [{"camera": n, "length_m": length, "bearing_deg": b, "heading": compass_point(b, 8)}
           for n, length, b in build_network(network_id).neighbours(camera)]
    return _json(neighbours=out)


@toolset("network")
def network_tools() -> list[BaseTool]:
    """Camera networks: shortest paths, path lengths, travel times, cameras on a path, arrival windows."""
    return [
        make_tool(shortest_path, PairArgs),
        make_tool(path_length, RouteArgs),
        make_tool(cameras_on_path, RouteArgs),
        make_tool(travel_time, TravelArgs),
        make_tool(arrival_window, WindowArgs),
        make_tool(camera_neighbours, CameraArgs),
    ]
