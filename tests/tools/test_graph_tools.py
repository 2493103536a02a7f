"""The graph tool set: shortest routes on a road network copied from a question or given as rows."""

from __future__ import annotations

import json

import pytest

from tools import get_toolset

TOOL = {t.name: t for t in get_toolset("graph")}["shortest_route"]
TEXT = ("Road 0: (location 0, location 1, 10.5 meters)\nRoad 1: (location 1, location 2, 10.25 meters)\n"
        "Road 2: (location 0, location 2, 30 meters)")


def run(**args: object) -> dict:
    return json.loads(TOOL.invoke(args))


def test_text_and_rows_give_the_same_route() -> None:
    out = run(roads=TEXT, start=0, goal=2)
    assert out == {"length": 20.75, "weighted": True, "locations": [0, 1, 2], "roads": [0, 1], "first_road": 0,
                   "first_road_ties": [0], "via_first_road": {"0": 20.75, "2": 30.0}}
    assert run(roads=[[0, 0, 1, 10.5], [1, 1, 2, 10.25], [2, 0, 2, 30]], start=0, goal=2) == out
    hops = run(roads=[[0, 0, 1], [1, 1, 2], [2, 0, 2]], start=0, goal=2)  # no lengths: fewest roads
    assert hops["length"] == 1 and hops["roads"] == [2] and not hops["weighted"]
    assert "Returns JSON" in TOOL.func.__doc__ and "Returns JSON" not in TOOL.description and "two-way" in TOOL.description


@pytest.mark.parametrize(("args", "needle"), [
    ({"roads": "no roads here", "start": 0, "goal": 1}, "holds no line"),
    ({"roads": [[0, 0.5, 1]], "start": 0, "goal": 1}, "whole road and location numbers"),
    ({"roads": TEXT, "start": 0, "goal": 9}, "goal location 9"),
])
def test_bad_roads_are_value_errors_the_agent_can_read(args: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        TOOL.invoke(args)


def test_a_list_of_copied_road_lines_is_read_like_the_text() -> None:
    """What the embedded model sent on the released navigation items (rejected before: 'valid string')."""
    lines = TEXT.split("\n")
    assert run(roads=lines, start=0, goal=2) == run(roads=TEXT, start=0, goal=2)
    with pytest.raises(ValueError, match="holds no line"):
        TOOL.invoke({"roads": ["no roads", "here"], "start": 0, "goal": 1})
