"""Tool ceiling: for every synthesised STBench task, real calls to the task's own tools reach the gold."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache

import pytest
from langchain_core.tools import BaseTool

from tasks import get_task
from tasks.records import Sample
from tools import get_toolset

N = 16


@cache
def tool(name: str) -> BaseTool:
    for toolset in ("geometry", "trajectory", "geodesy", "gazetteer"):
        for t in get_toolset(toolset):
            if t.name == name:
                return t
    raise KeyError(name)


def call(name: str, **args: object) -> dict:
    return json.loads(tool(name).invoke(args))


def latlon(points: list[list[float]]) -> list[list[float]]:
    return [[p[0], p[1]] for p in points]


def option_with(sample: Sample, label: str) -> int:
    return next(n for n, lab in sample.payload["options"] if lab == label)


def admin_region(s: Sample) -> int:
    lat, lon = s.payload["point"]
    nearest = call("nearest_cities", lat=lat, lon=lon, k=1)["cities"][0]["name"]
    return next(n for n, lab in s.payload["options"] if lab.startswith(nearest + ","))


def point_trajectory(s: Sample) -> int:
    path = latlon(s.payload["trajectory"])
    dists = [call("distance_to_path", lat=c[0], lon=c[1], path=path)["distance_m"] for c in s.payload["candidates"]]
    assert sorted(dists)[0] < 5.0 < sorted(dists)[1]
    return dists.index(min(dists)) + 1


def point_region(s: Sample) -> int:
    lat, lon = s.payload["point"]
    out = call("which_region", lat=lat, lon=lon, regions=s.payload["regions"])
    assert len(out["regions"]) == 1 and out["on_boundary_of"] == []
    return out["regions"][0]


def trajectory_region(s: Sample) -> int:
    seq = call("regions_crossed_by_path", path=s.payload["path"], regions=s.payload["regions"])["regions"]
    return option_with(s, "[" + ", ".join(map(str, seq)) + "]")


def trajectory_identification(s: Sample) -> str:
    out = call("compare_trajectories", sequence_a=s.payload["sequence_1"], sequence_b=s.payload["sequence_2"])
    return "Yes" if out["same_trajectory"] else "No"


def direction(s: Sample) -> int:
    (la1, lo1), (la2, lo2) = s.payload["a"], s.payload["b"]
    abbrev = call("initial_bearing", lat1=la1, lon1=lo1, lat2=la2, lon2=lo2)["compass_8"]
    names = {"N": "North", "NE": "Northeast", "E": "East", "SE": "Southeast", "S": "South", "SW": "Southwest",
             "W": "West", "NW": "Northwest"}
    return option_with(s, names[abbrev])


def trajectory_trajectory(s: Sample) -> int:
    count = call("count_encounters", trajectory_a=s.payload["trajectory_a"],
                 trajectory_b=s.payload["trajectory_b"])["count"]
    return option_with(s, f"{count} times")


def anomaly(s: Sample) -> str:
    return "anomalous" if call("trajectory_stats", points=s.payload["trajectory"])["offset_ratio"] > 0.13 else "normal"


def classification(s: Sample) -> int:
    v = call("trajectory_stats", points=s.payload["trajectory"])["mean_speed_mps"]
    return option_with(s, "pedestrian" if v < 2.5 else "bike" if v < 7.5 else "car")


def prediction(s: Sample) -> tuple[float, float]:
    out = call("predict_next_point", points=s.payload["history"])
    return out["lat"], out["lon"]


SOLVERS: dict[str, tuple[Callable[[Sample], object], str]] = {
    "stbench.admin_region": (admin_region, "gazetteer"),
    "stbench.point_trajectory": (point_trajectory, "trajectory"),
    "stbench.point_region": (point_region, "geometry"),
    "stbench.trajectory_region": (trajectory_region, "geometry"),
    "stbench.trajectory_identification": (trajectory_identification, "trajectory"),
    "stbench.direction": (direction, "geodesy"),
    "stbench.trajectory_trajectory": (trajectory_trajectory, "trajectory"),
    "stbench.anomaly_detection": (anomaly, "trajectory"),
    "stbench.trajectory_classification": (classification, "trajectory"),
    "stbench.trajectory_prediction": (prediction, "trajectory"),
}


def replies(task_name: str, s: Sample, answer: object) -> str:
    """How a chat model (FINAL ANSWER line) or a completion model (continuing the stub) would say it."""
    if isinstance(answer, tuple):
        lat, lon = answer
        return f"FINAL ANSWER: ({lat}, {lon})" if s.meta["style"] == "chat" else f" [{lon}, {lat}]"
    if isinstance(answer, str):
        return f"FINAL ANSWER: {answer}" if s.meta["style"] == "chat" else f"{answer}\""
    label = dict((n, lab) for n, lab in s.payload["options"])[answer]
    return f"I used the tools.\nFINAL ANSWER: {answer}" if s.meta["style"] == "chat" else f"{answer}) {label}"


@pytest.mark.parametrize("name", sorted(SOLVERS))
@pytest.mark.parametrize("style", ["chat", "completion"])
def test_tool_calls_reach_the_gold(name: str, style: str) -> None:
    solve, toolset = SOLVERS[name]
    task = get_task(name if style == "chat" else f"{name}.completion", size=N)
    assert toolset in task.toolsets
    samples = task.generate(3, N)
    for s in samples:
        text = replies(name, s, solve(s))
        score = task.score(task.parse(text, s), s)
        assert score.correct, (s.id, text, s.target, score.explanation)
    assert len(samples) == N
