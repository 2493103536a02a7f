"""GPSBench Pure GPS: coordinate transformation WGS84 ⇄ UTM and WGS84 ⇄ Web Mercator (App. B.1, C.5).

A random city and a random direction. UTM uses the zone floor((lon + 180) / 6) + 1 stated in the prompt (no
Norway/Svalbard exceptions), WGS84 ellipsoid via pyproj; Web Mercator is EPSG:3857. Tolerances per axis in the
projected plane: ±10 m for UTM, ±100 m for Web Mercator. For the inverse directions the answered position is
projected back and compared with the given coordinates. The error is the larger axis difference in metres.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TypedDict

from geocore.coords import from_utm, from_web_mercator, simple_utm_zone, to_utm, to_web_mercator
from geocore.geodesy import haversine_km
from tasks.answers import PairAnswer, coordinate_pair, extract, find_angles, result_part
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.parsing import ProjectedAnswer, parse_projected
from tasks.gpsbench.sampling import sample_global
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task

DIRECTIONS = ("wgs84_to_utm", "utm_to_wgs84", "wgs84_to_webmercator", "webmercator_to_wgs84")
TOLERANCE_M = {"utm": 10.0, "webmercator": 100.0}

UTM_NOTE = ("UTM uses the WGS84 ellipsoid, zone = floor((longitude + 180) / 6) + 1 (no Norway or Svalbard "
            "exceptions), scale factor 0.9996, false easting 500,000 m and, south of the equator, false "
            "northing 10,000,000 m.")
MERC_NOTE = "Web Mercator is EPSG:3857: x = R·λ, y = R·ln(tan(π/4 + φ/2)) with R = 6,378,137 m."
TEMPLATES = {
    "wgs84_to_utm": ("Convert the WGS84 position {lat:.5f}, {lon:.5f} (latitude, longitude in decimal degrees) to "
                     "UTM. {note}\nEnd your reply with the line FINAL ANSWER: Zone <number><N or S>, <easting> E, "
                     "<northing> N (metres)."),
    "utm_to_wgs84": ("Convert the UTM coordinate zone {zone}{hem}, easting {e:.2f} m, northing {n:.2f} m to WGS84 "
                     "latitude and longitude. {note}\nEnd your reply with the line FINAL ANSWER: latitude, "
                     "longitude (decimal degrees, 6 decimals, negative for south and west)."),
    "wgs84_to_webmercator": ("Convert the WGS84 position {lat:.5f}, {lon:.5f} (latitude, longitude in decimal "
                             "degrees) to Web Mercator. {note}\nEnd your reply with the line FINAL ANSWER: "
                             "x = <metres>, y = <metres>."),
    "webmercator_to_wgs84": ("Convert the Web Mercator coordinate x = {x:.2f} m, y = {y:.2f} m to WGS84 latitude "
                             "and longitude. {note}\nEnd your reply with the line FINAL ANSWER: latitude, "
                             "longitude (decimal degrees, 6 decimals, negative for south and west)."),
}


class ProjectionTarget(TypedDict, total=False):
    """The gold of one direction: UTM zone, hemisphere, easting and northing, Web Mercator x and y, or the
    latitude and longitude they invert to."""

    direction: str
    zone: int
    hemisphere: str
    easting: float
    northing: float
    x: float
    y: float
    lat: float
    lon: float


def _pair_or_impossible(segment: str) -> Parsed[PairAnswer]:
    """The latitude and longitude of the answer; exactly two values in their place that cannot be a latitude and
    a longitude (an easting and northing copied back) are an answer, a wrong one, not a missing one."""
    parsed = coordinate_pair(segment)
    if parsed.ok or "out of range" not in (parsed.reason or ""):
        return parsed
    angles = find_angles(result_part(segment))
    if len(angles) != 2:
        return parsed
    return Parsed.success(segment, PairAnswer(lat=angles[0].value, lon=angles[1].value, dms=False, lon_first=False))


@register_task("gpsbench.coordinate_transformation")
class CoordinateTransformationTask(GpsTask[ProjectionTarget, PairAnswer | ProjectedAnswer]):
    toolsets = ("projections",)

    def draw(self, seed: int, size: int) -> Iterator[Sample[ProjectionTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            city = sample_global(rng, 1, 0.0)[0]
            direction = rng.choice(DIRECTIONS)
            lat, lon = round(city.lat, 5), round(city.lon, 5)
            zone = simple_utm_zone(lon)
            hem = "N" if lat >= 0 else "S"
            target: ProjectionTarget
            if direction == "wgs84_to_utm":
                u = to_utm(lat, lon, zone)
                prompt = TEMPLATES[direction].format(lat=lat, lon=lon, note=UTM_NOTE)
                target = {"zone": zone, "hemisphere": hem, "easting": round(u.easting, 3),
                          "northing": round(u.northing, 3)}
            elif direction == "utm_to_wgs84":
                u = to_utm(lat, lon, zone)
                e, n = round(u.easting, 2), round(u.northing, 2)
                glat, glon = from_utm(e, n, zone, hem)
                prompt = TEMPLATES[direction].format(zone=zone, hem=hem, e=e, n=n, note=UTM_NOTE)
                target = {"zone": zone, "hemisphere": hem, "easting": e, "northing": n,
                          "lat": round(glat, 7), "lon": round(glon, 7)}
            elif direction == "wgs84_to_webmercator":
                x, y = to_web_mercator(lat, lon)
                prompt = TEMPLATES[direction].format(lat=lat, lon=lon, note=MERC_NOTE)
                target = {"x": round(x, 3), "y": round(y, 3)}
            else:
                x, y = to_web_mercator(lat, lon)
                x, y = round(x, 2), round(y, 2)
                glat, glon = from_web_mercator(x, y)
                prompt = TEMPLATES[direction].format(x=x, y=y, note=MERC_NOTE)
                target = {"x": x, "y": y, "lat": round(glat, 7), "lon": round(glon, 7)}
            target["direction"] = direction
            yield self.make(i, size, prompt, target, {"lat": lat, "lon": lon, "city": city.name},
                                 place_meta(city, direction=direction))

    def example_replies(self, sample: Sample[ProjectionTarget]) -> Replies:
        return examples.projection(sample)

    def parse(self, text: str, sample: Sample[ProjectionTarget]) -> Parsed[PairAnswer | ProjectedAnswer]:
        """Zone/easting/northing, x/y or a lat/lon pair, as the direction asks, from the committed answer; two
        different answers are hedged."""
        direction = sample.target["direction"]
        if direction.endswith("_to_wgs84"):
            return extract(text, _pair_or_impossible, prompt=sample.prompt)
        kind = "utm" if direction == "wgs84_to_utm" else "webmercator"
        return extract(text, lambda seg: parse_projected(seg, kind), prompt=sample.prompt)

    def score(self, parsed: Parsed[PairAnswer | ProjectedAnswer], sample: Sample[ProjectionTarget]) -> Score:
        if not parsed.ok:
            return failed(parsed, "m")
        t, v = sample.target, parsed.answer
        direction = t["direction"]
        kind = "utm" if "utm" in direction else "webmercator"
        tol = TOLERANCE_M[kind]
        note = ""
        if direction == "wgs84_to_utm" and "first" in v:
            err = max(abs(v["first"] - t["easting"]), abs(v["second"] - t["northing"]))
            if v["zone"] is not None and v["zone"] != t["zone"]:
                note = f"; zone {v['zone']} instead of {t['zone']}"
            if v["hemisphere"] is not None and v["hemisphere"] != t["hemisphere"]:
                note += f"; hemisphere {v['hemisphere']} instead of {t['hemisphere']}"
        elif direction == "wgs84_to_webmercator" and "first" in v:
            err = max(abs(v["first"] - t["x"]), abs(v["second"] - t["y"]))
        else:
            assert "lat" in v, f"a {direction} answer is a coordinate pair"
            if abs(v["lat"]) > 90 or abs(v["lon"]) > 180:
                return graded(False, None, "m", f"({v['lat']:g}, {v['lon']:g}) is no latitude and longitude")
            err = self._inverse_error(v["lat"], v["lon"], t, kind)
        ok = err <= tol and not note
        return graded(ok, err, "m", f"error {err:.1f} m (tolerance ±{tol:.0f} m per axis){note}")

    @staticmethod
    def _inverse_error(lat: float, lon: float, t: ProjectionTarget, kind: str) -> float:
        """Largest axis difference after projecting the answer; ground distance if it cannot be projected."""
        try:
            if kind == "utm":
                u = to_utm(lat, lon, t["zone"])
                err = max(abs(u.easting - t["easting"]), abs(u.northing - t["northing"]))
                if (u.hemisphere == "N") != (t["hemisphere"] == "N"):
                    raise ValueError("other hemisphere")
            else:
                x, y = to_web_mercator(lat, lon)
                err = max(abs(x - t["x"]), abs(y - t["y"]))
            if math.isfinite(err):
                return err
        except ValueError:
            pass
        return haversine_km(lat, lon, t["lat"], t["lon"]) * 1000.0
