"""The gazetteer tool set: schemas the model reads, results against references, errors naming arguments."""

from __future__ import annotations

import json

import pytest
from geopy.distance import great_circle

from tools import get_toolset, toolset_names
from tools.registry import describe_toolsets

TOOLS = {t.name: t for t in get_toolset("gazetteer")}


def call(tool: str, **args: object) -> dict:
    return json.loads(TOOLS[tool].invoke(args))


def test_registered_with_small_documented_tools() -> None:
    assert "gazetteer" in toolset_names() and describe_toolsets()["gazetteer"]
    assert set(TOOLS) == {"lookup_city", "lookup_cities", "nearest_cities", "point_info", "natural_region_at"}
    for t in TOOLS.values():
        assert "Returns JSON" in t.func.__doc__ and "Returns JSON" not in t.description
    lat = TOOLS["nearest_cities"].args_schema.model_json_schema()["properties"]["lat"]
    assert lat["minimum"] == -90 and "degrees" in lat["description"]


def test_lookup_city_lists_namesakes_most_populous_first() -> None:
    out = call("lookup_city", name="Springfield", country="United States")
    assert out["count"] >= 5 and {m["country_code"] for m in out["matches"]} == {"US"}
    pops = [m["population"] for m in out["matches"]]
    assert pops == sorted(pops, reverse=True) and all(m["admin1"] for m in out["matches"])
    assert call("lookup_city", name="munchen")["matches"][0]["name"] == "Munich"
    assert call("lookup_city", name="Qwxyzzy")["count"] == 0


def test_lookup_cities_with_reference_gives_distance_and_bearing() -> None:
    out = call("lookup_cities", names=["Lyon", "Qwxyzzy"], reference="Paris")
    lyon = out["cities"][0]
    assert out["reference"]["name"] == "Paris" and out["cities"][1] == {"query": "Qwxyzzy", "found": False}
    ref = great_circle((out["reference"]["lat"], out["reference"]["lon"]), (lyon["lat"], lyon["lon"]), radius=6371).km
    assert lyon["distance_km"] == pytest.approx(ref, abs=0.01) and lyon["compass_8"] == "SE"
    assert 140 < lyon["bearing_deg"] < 160
    with pytest.raises(Exception, match="reference"):
        call("lookup_cities", names=["Lyon"], reference="Qwxyzzy")


def test_nearest_cities_and_population_filter() -> None:
    out = call("nearest_cities", lat=48.85, lon=2.35, k=3)["cities"]
    assert out[0]["name"] == "Paris" and out[0]["distance_km"] < 1 and len(out) == 3
    big = call("nearest_cities", lat=48.2, lon=1.7, k=1, min_population=1_000_000)["cities"][0]
    assert big["name"] == "Paris" and big["population"] >= 1_000_000
    with pytest.raises(Exception, match="k"):
        call("nearest_cities", lat=0, lon=0, k=0)


def test_point_info_and_natural_regions() -> None:
    toulon = call("point_info", lat=43.1244, lon=5.9284)  # on the harbour front: borders miss it
    assert toulon["country_code"] == "FR" and toulon["country_source"] == "nearest_city"
    assert toulon["continent"] == "Europe" and toulon["within_5_km_of_sea"]
    assert call("point_info", lat=43.14, lon=5.93)["country_source"] == "borders"
    sea = call("point_info", lat=0.0, lon=-30.0)
    assert sea["country"] is None and sea["is_land"] is False and sea["distance_to_sea_km"] == 0.0
    inland = call("point_info", lat=48.8534, lon=2.3488)
    assert inland["distance_to_sea_km"] is None and not inland["within_5_km_of_sea"]
    assert call("natural_region_at", lat=27.9881, lon=86.925)["regions"] == [
        {"name": "Himalaya and Karakoram", "kind": "mountain"}]
    assert call("natural_region_at", lat=0.0, lon=-30.0)["regions"] == []
    with pytest.raises(Exception, match="lon"):
        call("point_info", lat=0, lon=200)
