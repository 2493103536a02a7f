"""Tool-using reference solvers for every GPSBench task (test helper, not a test module).

Each solver is a generator: it yields ``(tool_name, args)`` calls, receives each tool's JSON result (as a dict)
and returns the final answer text. It reads only what the prompt shows (the payload fields it uses mirror the
prompt, which the task tests check) and leaves every computation or lookup to the task's own tool sets, so a
solver that scores 100 % shows that the tools condition can reach the gold. :func:`drive` runs one directly;
:func:`scripted_model` runs one through the real tool agent as a scripted chat model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agents.scripted import ScriptedChatModel
from tasks.records import Sample
from tools import get_tools

Call = tuple[str, dict[str, Any]]
Solver = Generator[Call, dict[str, Any], str]

CONTINENT_NAMES = {"AF": "Africa", "AS": "Asia", "EU": "Europe", "NA": "North America", "SA": "South America",
                   "OC": "Oceania"}
DIRECTION_NAMES = {"N": "North", "NE": "Northeast", "E": "East", "SE": "Southeast", "S": "South",
                   "SW": "Southwest", "W": "West", "NW": "Northwest"}


def _pts(sample: Sample, key: str = "points") -> list[list[float]]:
    return [list(p) for p in sample.payload[key]]


def format_conversion(s: Sample) -> Solver:
    if s.target["direction"] == "dd_to_dms":
        out = yield ("decimal_to_dms", {"lat": s.payload["lat"], "lon": s.payload["lon"]})
        return f"FINAL ANSWER: {out['dms']}"
    out = yield ("dms_to_decimal", {"text": s.payload["dms"]})
    return f"FINAL ANSWER: {out['lat']:.6f}, {out['lon']:.6f}"


def coordinate_transformation(s: Sample) -> Solver:
    d = s.target["direction"]
    if d == "wgs84_to_utm":
        out = yield ("latlon_to_utm", {"lat": s.payload["lat"], "lon": s.payload["lon"]})
        return f"FINAL ANSWER: Zone {out['zone']}{out['hemisphere']}, {out['easting_m']:.2f} E, {out['northing_m']:.2f} N"
    if d == "wgs84_to_webmercator":
        out = yield ("latlon_to_web_mercator", {"lat": s.payload["lat"], "lon": s.payload["lon"]})
        return f"FINAL ANSWER: x = {out['x_m']:.2f}, y = {out['y_m']:.2f}"
    if d == "utm_to_wgs84":
        m = re.search(r"zone (\d+)([NS]), easting ([\d.]+) m, northing ([\d.]+) m", s.prompt)
        assert m, s.prompt
        out = yield ("utm_to_latlon", {"easting_m": float(m.group(3)), "northing_m": float(m.group(4)),
                                       "zone": int(m.group(1)), "hemisphere": m.group(2)})
    else:
        m = re.search(r"x = (-?[\d.]+) m, y = (-?[\d.]+) m", s.prompt)
        assert m, s.prompt
        out = yield ("web_mercator_to_latlon", {"x_m": float(m.group(1)), "y_m": float(m.group(2))})
    return f"FINAL ANSWER: {out['lat']:.6f}, {out['lon']:.6f}"


def distance(s: Sample) -> Solver:
    (a, b) = _pts(s)
    out = yield ("distance_km", {"lat1": a[0], "lon1": a[1], "lat2": b[0], "lon2": b[1]})
    return f"FINAL ANSWER: {out['distance_km']:.1f} km"


def bearing(s: Sample) -> Solver:
    (a, b) = _pts(s)
    out = yield ("initial_bearing", {"lat1": a[0], "lon1": a[1], "lat2": b[0], "lon2": b[1]})
    return f"FINAL ANSWER: {out['bearing_deg']:.2f}° ({out['compass_8']})"


def interpolation(s: Sample) -> Solver:
    (a, b) = _pts(s)
    out = yield ("interpolate_great_circle", {"lat1": a[0], "lon1": a[1], "lat2": b[0], "lon2": b[1],
                                              "fraction": s.payload["fraction"]})
    return f"FINAL ANSWER: {out['lat']:.5f}, {out['lon']:.5f}"


def polygon_area(s: Sample) -> Solver:
    out = yield ("polygon_area_perimeter", {"vertices": _pts(s, "vertices")})
    return f"FINAL ANSWER: {out['area_km2']:,.1f} km², {out['perimeter_km']:,.1f} km"


def bounding_box(s: Sample) -> Solver:
    out = yield ("bounding_box", {"points": _pts(s)})
    q = s.target["quantity"]
    if q == "bounds":
        return f"FINAL ANSWER: {out['min_lat']}, {out['max_lat']}, {out['min_lon']}, {out['max_lon']}"
    if q == "diagonal":
        return f"FINAL ANSWER: {out['diagonal_km']:.1f} km"
    lat, lon = out[q]
    return f"FINAL ANSWER: {lat:.5f}, {lon:.5f}"


def route_geometry(s: Sample) -> Solver:
    out = yield ("simplify_path_rdp", {"points": _pts(s), "epsilon_km": s.payload["epsilon_km"]})
    return f"FINAL ANSWER: {out['kept_indices']}"


def route_geometry_mcq(s: Sample) -> Solver:
    out = yield ("simplify_path_rdp", {"points": _pts(s), "epsilon_km": s.payload["epsilon_km"]})
    return f"FINAL ANSWER: {'ABCD'[s.payload['options'].index(sorted(out['kept_indices']))]}"


def relative_position_pure(s: Sample) -> Solver:
    (a, b) = _pts(s)
    out = yield ("initial_bearing", {"lat1": a[0], "lon1": a[1], "lat2": b[0], "lon2": b[1]})
    return f"FINAL ANSWER: {DIRECTION_NAMES[out['compass_8']]}"


def place_association(s: Sample) -> Solver:
    out = yield ("nearest_cities", {"lat": s.payload["lat"], "lon": s.payload["lon"], "k": 1})
    c = out["cities"][0]
    return f"FINAL ANSWER: {c['name']}, {c['admin1'] or ''}, {c['country']}"


def name_disambiguation(s: Sample) -> Solver:
    out = yield ("nearest_cities", {"lat": s.payload["lat"], "lon": s.payload["lon"], "k": 1})
    c = out["cities"][0]
    label = ", ".join(x for x in (c["name"], c["admin1"], c["country"]) if x)
    return f"FINAL ANSWER: {label}"


def relative_position_applied(s: Sample) -> Solver:
    a, b = s.payload["cities"]
    out = yield ("lookup_cities", {"names": [b], "reference": a})
    return f"FINAL ANSWER: {DIRECTION_NAMES[out['cities'][0]['compass_8']]}"


def proximity(s: Sample) -> Solver:
    out = yield ("lookup_cities", {"names": list(s.choices or ()), "reference": s.payload["reference"]})
    km = [c["distance_km"] for c in out["cities"]]
    return f"FINAL ANSWER: {'ABCD'[km.index(min(km))]}"


def route_analysis(s: Sample) -> Solver:
    a, b, c = s.payload["cities"]
    first = yield ("lookup_cities", {"names": [b, c], "reference": a})
    second = yield ("lookup_cities", {"names": [b], "reference": c})
    ab, ac = first["cities"][0]["distance_km"], first["cities"][1]["distance_km"]
    cb = second["cities"][0]["distance_km"]
    return "FINAL ANSWER: " + ("Yes" if (ac + cb - ab) / ab < 0.10 else "No")


def spatial_patterns(s: Sample) -> Solver:
    found = yield ("lookup_cities", {"names": list(s.choices or ())})
    pts = [[c["lat"], c["lon"]] for c in found["cities"]]
    out = yield ("centroid_distances", {"points": pts})
    return f"FINAL ANSWER: {'ABCDE'[out['farthest_index']]}"


def boundary_analysis(s: Sample) -> Solver:
    found = yield ("lookup_cities", {"names": list(s.payload["cities"])})
    groups: dict[str, list[str]] = {}
    for c in found["cities"]:
        groups.setdefault(c["continent_code"], []).append(c["query"])
    body = "; ".join(f"{CONTINENT_NAMES[k]}: {', '.join(v)}" for k, v in groups.items())
    return f"FINAL ANSWER: {body}"


def terrain_classification(s: Sample) -> Solver:
    lat, lon = s.payload["lat"], s.payload["lon"]
    big = yield ("nearest_cities", {"lat": lat, "lon": lon, "k": 1, "min_population": 1_000_000})
    if big["cities"][0]["distance_km"] <= 10.0:
        return "FINAL ANSWER: Urban"
    info = yield ("point_info", {"lat": lat, "lon": lon})
    if info["within_5_km_of_sea"]:
        return "FINAL ANSWER: Coastal"
    regions = yield ("natural_region_at", {"lat": lat, "lon": lon})
    kinds = {r["kind"] for r in regions["regions"]}
    assert len(kinds) == 1, kinds
    return f"FINAL ANSWER: {kinds.pop().capitalize()}"


def missing_data(s: Sample) -> Solver:
    out = yield ("lookup_city", {"name": s.payload["city"], "country": s.payload["country"]})
    missing = s.target["missing"]
    shown = "lat" if missing == "lon" else "lon"
    known = s.payload[shown]
    best = min(out["matches"], key=lambda c: abs(c[shown] - known))
    return f"FINAL ANSWER: {best[missing]:.5f}"


SOLVERS: dict[str, Callable[[Sample], Solver]] = {
    f"gpsbench.{f.__name__}": f for f in (
        format_conversion, coordinate_transformation, distance, bearing, interpolation, polygon_area,
        bounding_box, route_geometry, relative_position_pure, place_association, name_disambiguation,
        relative_position_applied, proximity, route_analysis, spatial_patterns, boundary_analysis,
        terrain_classification, missing_data,
    )
}
SOLVERS["gpsbench.route_geometry.mcq"] = route_geometry_mcq


def drive(sample: Sample, toolsets: tuple[str, ...]) -> tuple[str, list[tuple[str, dict[str, Any], dict[str, Any]]]]:
    """Run a task's solver with direct tool invocations; returns (final text, (tool, args, result) per call)."""
    tools = {t.name: t for t in get_tools(list(toolsets))}
    gen = SOLVERS[sample.task](sample)
    calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    try:
        call = next(gen)
        while True:
            assert call[0] in tools, f"{call[0]} is not in the task's tool sets {toolsets}"
            out = json.loads(tools[call[0]].invoke(call[1]))
            calls.append((*call, out))
            call = gen.send(out)
    except StopIteration as stop:
        return str(stop.value), calls


def scripted_model(sample: Sample) -> ScriptedChatModel:
    """A chat model that plays the solver: each turn it makes the solver's next tool call, feeding it the
    ToolMessage the agent sent back, and finally answers with the solver's text."""
    gen = SOLVERS[sample.task](sample)
    state = {"started": False, "n": 0}

    def reply(messages: list[BaseMessage], tool_names: list[str]) -> AIMessage | str:
        try:
            if not state["started"]:
                state["started"] = True
                call = next(gen)
            else:
                last = messages[-1]
                assert isinstance(last, ToolMessage) and last.status != "error", last
                call = gen.send(json.loads(str(last.content)))
        except StopIteration as stop:
            return str(stop.value)
        state["n"] += 1
        return AIMessage("", tool_calls=[{"name": call[0], "args": call[1], "id": f"call{state['n']}"}])

    return ScriptedChatModel(script=reply)
