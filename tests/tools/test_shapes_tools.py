"""The shapes tool set: polygon area/perimeter, bounding box, centroid distances and RDP."""

from __future__ import annotations

import json

import pytest
from geopy.distance import great_circle
from pyproj import Geod

from tools import get_toolset

TOOLS = {t.name: t for t in get_toolset("shapes")}


def call(name: str, **args: object) -> dict:
    return json.loads(TOOLS[name].invoke(args))


def test_tools_and_schemas() -> None:
    assert set(TOOLS) == {"polygon_area_perimeter", "bounding_box", "centroid_distances", "simplify_path_rdp"}
    items = TOOLS["bounding_box"].args_schema.model_json_schema()["properties"]["points"]
    assert "lat" in json.dumps(items)
    assert all("Returns JSON" in t.func.__doc__ and "Returns JSON" not in t.description for t in TOOLS.values())


def test_polygon_area_against_pyproj_sphere() -> None:
    v = [[-2.85, 33.08], [21.15, 72.96], [29.35, 105.89]]
    out = call("polygon_area_perimeter", vertices=v)
    area, per = Geod(a=6371000, b=6371000).polygon_area_perimeter([p[1] for p in v], [p[0] for p in v])
    assert out["area_km2"] == pytest.approx(abs(area) / 1e6, rel=1e-6)
    assert out["perimeter_km"] == pytest.approx(per / 1000, rel=1e-6)
    with pytest.raises(Exception, match="vertices"):
        call("polygon_area_perimeter", vertices=[[0, 0], [1, 1]])


def test_bounding_box_and_centroid_distances() -> None:
    pts = [[10.0, 20.0], [-5.0, 40.0], [30.0, -10.0]]
    out = call("bounding_box", points=pts)
    assert (out["min_lat"], out["max_lat"], out["min_lon"], out["max_lon"]) == (-5.0, 30.0, -10.0, 40.0)
    assert out["center"] == [12.5, 15.0]
    assert out["diagonal_km"] == pytest.approx(great_circle((-5, -10), (30, 40), radius=6371).km, abs=1e-3)
    cd = call("centroid_distances", points=pts + [[-40.0, 170.0]])
    assert cd["farthest_index"] == 3 and len(cd["distances_km"]) == 4
    with pytest.raises(Exception, match="points"):
        call("bounding_box", points=[[0.0]])


def test_rdp() -> None:
    pts = [[0.0, 0.0], [0.01, 0.5], [0.0, 1.0], [0.5, 1.5]]
    assert call("simplify_path_rdp", points=pts, epsilon_km=0.5)["kept_indices"] == [0, 1, 2, 3]
    assert call("simplify_path_rdp", points=pts, epsilon_km=5.0)["kept_indices"] == [0, 2, 3]
