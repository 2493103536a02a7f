"""Tool-set registry and the geodesy tool set's contract with the model."""

from __future__ import annotations

import json

import pytest
from geopy.distance import great_circle

from tools import UnknownToolsetError, get_tools, get_toolset, toolset_names
from tools.registry import describe_toolsets


def test_geodesy_registered_with_description() -> None:
    assert "geodesy" in toolset_names()
    assert describe_toolsets()["geodesy"]


def test_unknown_toolset_message_lists_available() -> None:
    with pytest.raises(UnknownToolsetError, match="available: .*geodesy"):
        get_toolset("warp-drive")


def test_schemas_state_units_and_ranges() -> None:
    tools = {t.name: t for t in get_toolset("geodesy")}
    assert {"distance_km", "initial_bearing", "destination_point", "interpolate_great_circle"} <= set(tools)
    schema = tools["distance_km"].args_schema.model_json_schema()
    lat = schema["properties"]["lat1"]
    assert lat["minimum"] == -90 and lat["maximum"] == 90 and "degrees" in lat["description"]
    assert "km" in tools["distance_km"].description and "6371" in tools["distance_km"].description


def test_results_agree_with_reference() -> None:
    tools = {t.name: t for t in get_tools(["geodesy"])}
    out = json.loads(tools["distance_km"].invoke({"lat1": 48.8566, "lon1": 2.3522, "lat2": 51.5074, "lon2": -0.1278}))
    assert out["distance_km"] == pytest.approx(great_circle((48.8566, 2.3522), (51.5074, -0.1278), radius=6371).km,
                                               abs=1e-3)
    b = json.loads(tools["initial_bearing"].invoke({"lat1": 0, "lon1": 0, "lat2": 0, "lon2": 10}))
    assert b["bearing_deg"] == pytest.approx(90.0) and b["compass_8"] == "E"
    mid = json.loads(tools["interpolate_great_circle"].invoke({"lat1": 0, "lon1": 0, "lat2": 0, "lon2": 90,
                                                               "fraction": 0.5}))
    assert mid["lat"] == pytest.approx(0.0, abs=1e-9) and mid["lon"] == pytest.approx(45.0)


def test_out_of_range_arguments_raise_with_the_argument_name() -> None:
    tool = {t.name: t for t in get_toolset("geodesy")}["distance_km"]
    with pytest.raises(Exception, match="lat1"):
        tool.invoke({"lat1": 91, "lon1": 0, "lat2": 0, "lon2": 0})
    with pytest.raises(Exception, match="lon2"):
        tool.invoke({"lat1": 0, "lon1": 0, "lat2": 0, "lon2": float("nan")})
