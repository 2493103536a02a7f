"""The lean form of a tool the model reads: description without the result doc, bare coordinates, bounds only where
the words do not state them; calls still validated against the full argument model."""

from __future__ import annotations

import json

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ValidationError

from tools import get_tools, get_toolset, toolset_names
from tools._common import COORDINATES_NOTE


def _tool(name: str):  # type: ignore[no-untyped-def]
    return {t.name: t for t in get_tools(toolset_names())}[name]


def test_distance_tool_as_the_model_reads_it() -> None:
    fn = convert_to_openai_tool(_tool("distance_km"))["function"]
    assert fn == {
        "name": "distance_km",
        "description": "Great-circle (haversine) distance between two points on a sphere of radius 6371 km. "
                       "Coordinates in decimal degrees (south and west negative).",
        "parameters": {"type": "object",
                       "properties": {"lat1": {"type": "number"}, "lon1": {"type": "number"},
                                      "lat2": {"type": "number"}, "lon2": {"type": "number"}},
                       "required": ["lat1", "lon1", "lat2", "lon2"]},
    }


def test_bounds_stay_where_the_description_does_not_state_them() -> None:
    speed = convert_to_openai_tool(_tool("travel_time"))["function"]["parameters"]["properties"]["speed_mps"]
    assert speed == {"type": "number", "description": "Constant speed, m/s", "exclusiveMinimum": 0, "maximum": 100}
    hours = convert_to_openai_tool(_tool("add_duration"))["function"]["parameters"]["properties"]["hours"]
    assert hours == {"type": "number", "description": "Elapsed hours, -87600 to 87600 (negative goes back)"}


def test_optional_argument_is_its_type_and_not_required() -> None:
    params = convert_to_openai_tool(_tool("lookup_city"))["function"]["parameters"]
    assert params["properties"]["country"]["type"] == "string" and "anyOf" not in params["properties"]["country"]
    assert params["required"] == ["name"]


def test_pairs_are_arrays_of_numbers_described_once() -> None:
    poly = convert_to_openai_tool(_tool("point_in_polygon"))["function"]["parameters"]["properties"]["polygon"]
    assert poly == {"type": "array", "description": "Polygon vertices as [[lat, lon], ...] in order, not closed",
                    "items": {"type": "array", "items": {"type": "number"}}}


def test_no_tool_sends_titles_defaults_or_result_docs() -> None:
    for tool in get_tools(toolset_names()):
        if (tool.metadata or {}).get("mcp_server"):  # an MCP server's tool set registered by another test
            continue
        fn = convert_to_openai_tool(tool)["function"]
        text = json.dumps(fn["parameters"])
        assert '"title"' not in text and '"default"' not in text and "$defs" not in text, tool.name
        assert "Returns JSON" not in fn["description"], tool.name
        # every tool documents its JSON result, but the python tool, whose result is what the code prints
        assert ("Returns JSON" in (tool.func.__doc__ or "")) == (tool.name != "python"), tool.name
        takes_coordinates = "x-coordinate" in json.dumps(tool.args_schema.model_json_schema())
        assert fn["description"].endswith(COORDINATES_NOTE) == takes_coordinates, tool.name


def test_calls_are_validated_against_the_full_model() -> None:
    tool = {t.name: t for t in get_toolset("geodesy")}["distance_km"]
    with pytest.raises(ValidationError, match="less than or equal to 90"):
        tool.invoke({"lat1": 91, "lon1": 0, "lat2": 0, "lon2": 0})
    assert json.loads(tool.invoke({"lat1": 0, "lon1": 0, "lat2": 0, "lon2": 1}))["distance_km"] == pytest.approx(111.195, abs=1e-3)


def test_optional_coordinate_is_a_bare_number() -> None:
    from pydantic import BaseModel

    from tools import Lat
    from tools._common import prompt_schema

    class Args(BaseModel):
        lat: Lat | None = None

    assert prompt_schema(Args) == {"type": "object", "properties": {"lat": {"type": "number"}}, "required": []}
