"""The structured answer channel's typed answers (tasks/answer_kinds.py): every registered task declares a kind
whose schema takes its gold, rendered and read by the task's own parser and scorer; bad arguments are unlocated,
a hedging string is hedged."""

from __future__ import annotations

from typing import Any

import pytest

from tasks.answer_kinds import answer_model, read_structured, render
from tasks.records import Sample
from tasks.registry import get_task, task_names
from tests.tasks.adversarial import kit_for

TASKS = [n for n in task_names() if n != "stbench.official"]  # needs released files (text kind by default)


def gold_args(task: Any, s: Sample) -> dict[str, Any]:
    """The final_answer arguments a right answer gives, written from the sample's gold by hand per kind."""
    t = s.target
    kind = task.answer_kind
    if kind == "option":
        if "letter" in t:
            return {"option": t["letter"]}
        if "option" in t:
            return {"option": str(t["option"])}
        if "name" in t:  # relative position: the direction's name
            return {"option": t["name"]}
        words = {"yes": "Yes", "no": "No"}
        return {"option": words.get(t["answer"], t["answer"])}
    if kind == "interval":
        return {"option": t["letter"], "segments": [{"camera": c, "start": a, "end": b} for c, (a, b) in t["segments"]]}
    if kind == "quantity":
        return {"value": t["km"], "unit": "km"}
    if kind == "number":
        return {"value": t.get("bearing_deg", t.get("value"))}
    if kind == "coordinate":
        return {"latitude": t["lat"], "longitude": t["lon"]}
    if kind == "time":
        return {"working": "offset difference", "time": t["clock"]}
    return {"answer": kit_for(s).gold}


@pytest.mark.parametrize("name", TASKS)
def test_gold_through_the_schema_is_credited(name: str) -> None:
    task = get_task(name)
    for s in task.samples(limit=3):
        args = gold_args(task, s)
        answer_model(task, s).model_validate(args)  # the schema the model is offered takes the gold
        parsed = read_structured(task, s, args, "no call")
        assert parsed.status == "answered", (name, args, parsed.reason)
        assert task.score(parsed, s).correct, (name, args, parsed.value)


def test_kinds_declared_where_the_answer_is_typed() -> None:
    kinds = {n: get_task(n).answer_kind for n in ("gpsbench.distance", "gpsbench.bearing", "stbench.direction",
                                                   "geotemp.time_place", "gtr.next_spot", "gtr.geo_location",
                                                   "stbench.trajectory_prediction", "gpsbench.place_association")}
    assert kinds == {"gpsbench.distance": "quantity", "gpsbench.bearing": "number", "stbench.direction": "option",
                     "geotemp.time_place": "time", "gtr.next_spot": "interval", "gtr.geo_location": "option",
                     "stbench.trajectory_prediction": "coordinate", "gpsbench.place_association": "text"}


def test_option_enum_is_the_samples_labels() -> None:
    task = get_task("stbench.direction")
    s = task.samples(limit=1)[0]
    schema = answer_model(task, s).model_json_schema()
    assert schema["properties"]["option"]["enum"] == [str(n) for n, _ in s.payload["options"]]
    assert list(schema["properties"])[0] == "working"  # room to reason before committing


def test_coordinates_rendered_with_their_names_whatever_the_prompt_order() -> None:
    task = get_task("stbench.trajectory_prediction.completion")  # the prompt asks for [lon, lat]
    s = task.samples(limit=1)[0]
    line = render(task, answer_model(task, s).model_validate({"latitude": 12.5, "longitude": -45.25}))
    assert line == "FINAL ANSWER: latitude 12.5, longitude -45.25"
    assert task.parse(line, s).value == {"lat": 12.5, "lon": -45.25}


@pytest.mark.parametrize("args", [{"option": "Z"}, {"answer": "C"}, {}, {"option": "C", "extra": 1}])
def test_arguments_that_do_not_validate_are_unlocated(args: dict[str, Any]) -> None:
    task = get_task("gpsbench.proximity")
    s = task.samples(limit=1)[0]
    parsed = read_structured(task, s, args, "no call")
    assert parsed.status == "unlocated" and "do not validate" in (parsed.reason or "")


def test_no_call_is_unlocated_with_the_reason_given() -> None:
    task = get_task("gpsbench.distance")
    s = task.samples(limit=1)[0]
    parsed = read_structured(task, s, None, "the reply never called final_answer")
    assert parsed.status == "unlocated" and parsed.reason == "the reply never called final_answer"


def test_a_hedging_string_field_is_still_hedged() -> None:
    task = get_task("geotemp.time_place")
    s = task.samples(limit=1)[0]
    clock = s.target["clock"]
    parsed = read_structured(task, s, {"time": f"{clock} or 11:00 PM"}, "no call")
    assert parsed.status == "hedged"
    place = get_task("gpsbench.place_association")
    p = place.samples(limit=1)[0]
    assert read_structured(place, p, {"answer": f"{kit_for(p).gold} or Tokyo, Japan"}, "").status == "hedged"


def test_several_final_answer_calls_with_different_answers_are_hedged_even_when_one_is_gold() -> None:
    task = get_task("geotemp.time_place")
    s = task.samples(limit=1)[0]
    clock = s.target["clock"]
    parsed = read_structured(task, s, [{"time": clock}, {"time": "11:00 PM" if clock != "11:00 PM" else "1:00 AM"}], "")
    assert parsed.status == "hedged" and not parsed.ok
