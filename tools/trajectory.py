"""The ``trajectory`` tool set: statistics, distance to a path, encounters, matching and next-point prediction."""

from __future__ import annotations

from typing import Annotated

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore import trajectories as tr
from tools._common import Lat, Lon, make_tool, result
from tools.registry import toolset

Timed = Annotated[
    tuple[Lat, Lon, float],
    Field(description="[latitude, longitude, timestamp] with the timestamp in seconds (e.g. Unix time)"),
]
TrajectoryArg = Annotated[
    list[Timed],
    Field(min_length=2, max_length=2000, description="Trajectory points [[lat, lon, t], ...] in time order"),
]
LatLonPair = Annotated[tuple[Lat, Lon], Field(description="[latitude, longitude] in decimal degrees")]


class OneTrajectory(BaseModel):
    points: TrajectoryArg


class PointPath(BaseModel):
    lat: Lat
    lon: Lon
    path: list[LatLonPair] = Field(min_length=1, max_length=2000,
                                   description="Polyline vertices [[lat, lon], ...] in order")


class TwoTrajectories(BaseModel):
    trajectory_a: TrajectoryArg
    trajectory_b: TrajectoryArg


class MatchArgs(BaseModel):
    sequence_a: TrajectoryArg
    sequence_b: TrajectoryArg
    tolerance_m: float = Field(default=250.0, gt=0, le=100_000,
                               description="Largest allowed deviation in metres for the same trajectory")


class PredictArgs(BaseModel):
    points: TrajectoryArg
    seconds_ahead: float | None = Field(default=None, ge=0, le=86_400,
                                        description="Seconds after the last point; default: the last interval")


def trajectory_stats(points: list[tuple[float, float, float]]) -> str:
    """Length, duration and speeds of a trajectory given as [[lat, lon, t], ...] (t in seconds).
    Returns JSON {"n_points", "length_m", "duration_s", "straight_line_m" (first to last point),
    "detour_ratio" (length / straight line), "max_offset_from_chord_m" (farthest point from the straight line
    through the first and last points), "offset_ratio" (that offset / straight line), "mean_speed_mps"
    (length / duration), "median_speed_mps", "max_speed_mps"} (speeds in metres per second)."""
    s = tr.trajectory_stats(points)
    return result(**s.__dict__)


def distance_to_path(lat: float, lon: float, path: list[tuple[float, float]]) -> str:
    """Shortest distance in metres from a point to a path (straight between consecutive [lat, lon] vertices).
    Returns JSON {"distance_m", "segment": number of the nearest segment, 1 = first to second vertex}."""
    d, k = tr.distance_to_path_m(lat, lon, path)
    return result(distance_m=d, segment=k + 1)


def count_encounters(
    trajectory_a: list[tuple[float, float, float]], trajectory_b: list[tuple[float, float, float]]
) -> str:
    """Count encounters of two trajectories [[lat, lon, t], ...]: pairs of segments (one between consecutive
    points of A, one of B) that cross in space while their time spans overlap. Returns JSON {"count",
    "pairs": [[i, j], ...] with 1-based segment numbers}."""
    pairs = tr.encounters(trajectory_a, trajectory_b)
    return result(count=len(pairs), pairs=[[i + 1, j + 1] for i, j in pairs])


def compare_trajectories(
    sequence_a: list[tuple[float, float, float]],
    sequence_b: list[tuple[float, float, float]],
    tolerance_m: float = 250.0,
) -> str:
    """Check whether two point sequences [[lat, lon, t], ...] could come from the same trajectory: each point
    of one sequence is compared with the other sequence's position interpolated at the same time. Returns JSON
    {"time_overlap_s", "points_compared", "max_deviation_m", "mean_deviation_m", "same_trajectory": true when
    the times overlap and every compared point is within tolerance_m}."""
    m = tr.compare_trajectories(sequence_a, sequence_b)
    return result(time_overlap_s=m.time_overlap_s, points_compared=m.n_compared, max_deviation_m=m.max_deviation_m,
                  mean_deviation_m=m.mean_deviation_m, same_trajectory=m.same(tolerance_m))


def predict_next_point(points: list[tuple[float, float, float]], seconds_ahead: float | None = None) -> str:
    """Predict where a moving object will be, assuming it keeps the velocity between its last two points.
    points is [[lat, lon, t], ...]; seconds_ahead defaults to the last sampling interval. Returns JSON
    {"lat", "lon", "t"}."""
    lat, lon, t = tr.extrapolate(points, seconds_ahead)
    return result(lat=round(lat, 7), lon=round(lon, 7), t=t)


@toolset("trajectory", "Trajectory length and speeds, distance to a path, encounters, matching, next-point prediction")
def trajectory_tools() -> list[BaseTool]:
    """Trajectory length and speeds, distance to a path, encounters, matching, next-point prediction."""
    return [
        make_tool(trajectory_stats, OneTrajectory),
        make_tool(distance_to_path, PointPath),
        make_tool(count_encounters, TwoTrajectories),
        make_tool(compare_trajectories, MatchArgs),
        make_tool(predict_next_point, PredictArgs),
    ]
