"""The geometry and trajectory tool sets: registration, results, argument validation, manuals."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tools import get_toolset
from tools.registry import toolset_names

GEOMETRY = {t.name: t for t in get_toolset("geometry")}
TRAJECTORY = {t.name: t for t in get_toolset("trajectory")}
SQ = [[[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]],
      [[0.0, 1.0], [0.0, 2.0], [1.0, 2.0], [1.0, 1.0]]]
TRIP = [[34.25, 108.92, 0], [34.251, 108.92, 60], [34.252, 108.92, 120]]


def run(tools: dict, name: str, **args: object) -> dict:
    return json.loads(tools[name].invoke(args))


def test_registered_with_small_tool_lists() -> None:
    assert {"geometry", "trajectory"} <= set(toolset_names())
    assert sorted(GEOMETRY) == ["point_in_polygon", "regions_crossed_by_path", "segments_intersect", "which_region"]
    assert sorted(TRAJECTORY) == ["compare_trajectories", "count_encounters", "distance_to_path",
                                  "predict_next_point", "trajectory_stats"]


def test_manuals_state_order_units_and_shape() -> None:
    for t in [*GEOMETRY.values(), *TRAJECTORY.values()]:
        assert "Returns JSON" in t.func.__doc__ and "Returns JSON" not in t.description, t.name
        assert "lat" in t.description, t.name
    schema = GEOMETRY["which_region"].args_schema.model_json_schema()
    assert "latitude" in json.dumps(schema).lower()
    assert "metres" in TRAJECTORY["distance_to_path"].description
    assert "seconds" in TRAJECTORY["trajectory_stats"].description


def test_geometry_results() -> None:
    assert run(GEOMETRY, "point_in_polygon", lat=0.5, lon=0.5, polygon=SQ[0]) == {"inside": True, "on_boundary": False}
    assert run(GEOMETRY, "point_in_polygon", lat=0.5, lon=1.0, polygon=SQ[0]) == {"inside": True, "on_boundary": True}
    assert run(GEOMETRY, "which_region", lat=0.5, lon=1.5, regions=SQ) == {"regions": [2], "on_boundary_of": []}
    assert run(GEOMETRY, "which_region", lat=0.5, lon=1.0, regions=SQ) == {"regions": [1, 2], "on_boundary_of": [1, 2]}
    assert run(GEOMETRY, "which_region", lat=5, lon=5, regions=SQ) == {"regions": [], "on_boundary_of": []}
    assert run(GEOMETRY, "regions_crossed_by_path", path=[[0.5, 1.5], [0.5, 0.5], [0.5, 1.7]], regions=SQ) == {
        "regions": [2, 1, 2]}
    out = run(GEOMETRY, "segments_intersect", p1=[0, 0], p2=[1, 1], q1=[0, 1], q2=[1, 0])
    assert out == {"intersect": True, "point": [0.5, 0.5]}
    assert run(GEOMETRY, "segments_intersect", p1=[0, 0], p2=[1, 0], q1=[0, 1], q2=[1, 1])["point"] is None


def test_trajectory_results() -> None:
    stats = run(TRAJECTORY, "trajectory_stats", points=TRIP)
    assert stats["n_points"] == 3 and stats["duration_s"] == 120
    assert stats["length_m"] == pytest.approx(222.39, abs=0.01) and stats["mean_speed_mps"] == pytest.approx(1.853, abs=1e-3)
    assert run(TRAJECTORY, "distance_to_path", lat=34.2505, lon=108.92, path=[p[:2] for p in TRIP]) == {
        "distance_m": pytest.approx(0.0, abs=1e-6), "segment": 1}
    crossing = [[34.2505, 108.919, 30], [34.2505, 108.921, 90]]
    assert run(TRAJECTORY, "count_encounters", trajectory_a=TRIP, trajectory_b=crossing) == {"count": 1, "pairs": [[1, 1]]}
    match = run(TRAJECTORY, "compare_trajectories", sequence_a=TRIP[::2], sequence_b=TRIP)
    assert match["same_trajectory"] and match["points_compared"] == 5
    apart = run(TRAJECTORY, "compare_trajectories", sequence_a=TRIP, sequence_b=[[a + 0.01, b, t] for a, b, t in TRIP])
    assert not apart["same_trajectory"] and apart["max_deviation_m"] > 1000
    nxt = run(TRAJECTORY, "predict_next_point", points=TRIP)
    assert nxt["lat"] == pytest.approx(34.253, abs=1e-6) and nxt["lon"] == pytest.approx(108.92) and nxt["t"] == 180


@pytest.mark.parametrize(
    ("tools", "name", "args"),
    [
        (GEOMETRY, "point_in_polygon", {"lat": 95, "lon": 0, "polygon": SQ[0]}),
        (GEOMETRY, "point_in_polygon", {"lat": 0, "lon": 0, "polygon": [[0, 0], [1, 1]]}),
        (GEOMETRY, "which_region", {"lat": 0, "lon": 0, "regions": []}),
        (TRAJECTORY, "trajectory_stats", {"points": [[0, 0, 0]]}),
        (TRAJECTORY, "trajectory_stats", {"points": [[0, 0], [0, 1]]}),
        (TRAJECTORY, "compare_trajectories", {"sequence_a": TRIP, "sequence_b": TRIP, "tolerance_m": -1}),
    ],
)
def test_bad_arguments_fail_validation(tools: dict, name: str, args: dict) -> None:
    with pytest.raises(ValidationError):
        tools[name].invoke(args)


@pytest.mark.parametrize(
    ("tools", "name", "args", "needle"),
    [
        (TRAJECTORY, "trajectory_stats", {"points": [[0, 0, 10], [0, 1, 5]]}, "earlier"),
        (TRAJECTORY, "predict_next_point", {"points": [[0, 0, 5], [0, 1, 5]]}, "different times"),
    ],
)
def test_geocore_errors_reach_the_agent_as_value_errors(tools: dict, name: str, args: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        tools[name].invoke(args)


BOW_TIE = [[0, 0], [1, 1], [0, 1], [1, 0]]  # edges cross at (0.5, 0.5): two triangles, on the lon 0 and lon 1 sides
PARCEL = [[31.0330, 116.9799], [31.0318, 116.9792], [31.0328, 116.9763], [31.0353, 116.9788], [31.0340, 116.9808],
          [31.0330, 116.9799], [31.0330, 116.9799], [31.0330, 116.9799]]  # STBench point_region_3regions line 1


def test_invalid_real_world_polygons_use_the_even_odd_rule_and_never_raise() -> None:
    assert run(GEOMETRY, "point_in_polygon", lat=0.5, lon=0.2, polygon=BOW_TIE) == {"inside": True, "on_boundary": False}
    assert run(GEOMETRY, "point_in_polygon", lat=0.2, lon=0.5, polygon=BOW_TIE) == {"inside": False, "on_boundary": False}
    assert run(GEOMETRY, "point_in_polygon", lat=0.5, lon=0.5, polygon=BOW_TIE) == {"inside": True, "on_boundary": True}
    flat = [[0, 0], [0, 1], [0, 2], [0, 1]]  # no area: only its edges hold points
    assert run(GEOMETRY, "which_region", lat=0, lon=0.5, regions=[flat]) == {"regions": [1], "on_boundary_of": [1]}
    assert run(GEOMETRY, "which_region", lat=0.5, lon=0.1, regions=[flat, BOW_TIE]) == {"regions": [2],
                                                                                         "on_boundary_of": []}
    assert run(GEOMETRY, "which_region", lat=31.0331, lon=116.9796, regions=[PARCEL]) == {"regions": [1],
                                                                                           "on_boundary_of": []}
    assert run(GEOMETRY, "regions_crossed_by_path", path=[[0.5, -1], [0.5, 2]], regions=[flat, BOW_TIE]) == {
        "regions": [2]}
    assert run(GEOMETRY, "regions_crossed_by_path", path=[[0.2, -1], [0.2, 2]], regions=[BOW_TIE]) == {"regions": [1]}
    assert run(GEOMETRY, "regions_crossed_by_path", path=[[0.2, 0.4], [0.2, 0.6]], regions=[BOW_TIE]) == {"regions": []}
