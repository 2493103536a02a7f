"""The projections tool set: DMS, UTM and Web Mercator against pyproj proj-strings and own formulas."""

from __future__ import annotations

import json
import math

import pytest
from pyproj import Transformer

from tools import get_toolset

TOOLS = {t.name: t for t in get_toolset("projections")}


def call(name: str, **args: object) -> dict:
    return json.loads(TOOLS[name].invoke(args))


def test_tools_and_schemas() -> None:
    assert set(TOOLS) == {"decimal_to_dms", "dms_to_decimal", "latlon_to_utm", "utm_to_latlon",
                          "latlon_to_web_mercator", "web_mercator_to_latlon"}
    zone = TOOLS["latlon_to_utm"].args_schema.model_json_schema()["properties"]["zone"]
    assert "floor((lon + 180) / 6) + 1" in zone["description"]
    assert all("Returns JSON" in t.func.__doc__ and "Returns JSON" not in t.description for t in TOOLS.values())


def test_dms_round_trip() -> None:
    out = call("decimal_to_dms", lat=-32.0525, lon=115.8878)
    assert out["dms"].startswith("32°03'09.00\"S") and out["lon_parts"]["hemisphere"] == "E"
    back = call("dms_to_decimal", text="32°3'9.0\"S, 115°53'16.08\"E")
    assert back["lat"] == pytest.approx(-32.0525) and back["lon"] == pytest.approx(115.8878, abs=1e-6)
    assert call("dms_to_decimal", text="79°58'56\"W")["value"] == pytest.approx(-(79 + 58 / 60 + 56 / 3600))
    with pytest.raises(Exception, match="text"):
        call("dms_to_decimal", text="north-ish")


def test_utm_against_proj_string_and_back() -> None:
    lat, lon = -1.3527, 36.6699  # Ngong, Kenya (App. F.4): zone 37S
    out = call("latlon_to_utm", lat=lat, lon=lon)
    tr = Transformer.from_proj("+proj=longlat +datum=WGS84", "+proj=utm +zone=37 +south +datum=WGS84", always_xy=True)
    e, n = tr.transform(lon, lat)
    assert (out["zone"], out["hemisphere"]) == (37, "S")
    assert out["easting_m"] == pytest.approx(e, abs=0.01) and out["northing_m"] == pytest.approx(n, abs=0.01)
    back = call("utm_to_latlon", easting_m=out["easting_m"], northing_m=out["northing_m"], zone=37, hemisphere="S")
    assert back["lat"] == pytest.approx(lat, abs=1e-7) and back["lon"] == pytest.approx(lon, abs=1e-7)
    assert call("latlon_to_utm", lat=60.0, lon=5.0)["zone"] == 31  # the stated formula, no Norway exception
    with pytest.raises(Exception, match="hemisphere"):
        call("utm_to_latlon", easting_m=5e5, northing_m=1e6, zone=31, hemisphere="X")


def test_web_mercator_formula() -> None:
    lat, lon = 41.84364, -87.71255
    out = call("latlon_to_web_mercator", lat=lat, lon=lon)
    r = 6378137.0
    assert out["x_m"] == pytest.approx(r * math.radians(lon), abs=1e-3)
    assert out["y_m"] == pytest.approx(r * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)), abs=1e-3)
    back = call("web_mercator_to_latlon", x_m=out["x_m"], y_m=out["y_m"])
    assert back["lat"] == pytest.approx(lat, abs=1e-7) and back["lon"] == pytest.approx(lon, abs=1e-7)
    with pytest.raises(Exception, match="lat"):
        call("latlon_to_web_mercator", lat=89.0, lon=0.0)
