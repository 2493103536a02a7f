"""The example replies of GPSBench's own answer shapes (:mod:`tasks.examples`), one writer per task that has one."""

from __future__ import annotations

from typing import Any

from tasks.examples import Example, Replies, moved, pair_replies, two_way_replies
from tasks.records import Sample

DIRECTIONS = ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest")
ABBREV = {"N": 0, "NE": 1, "E": 2, "SE": 3, "S": 4, "SW": 5, "W": 6, "NW": 7}
CONTINENTS = ("Africa", "Asia", "Europe", "North America", "South America", "Oceania")


def compass(deg: float) -> str:
    return ("N", "NE", "E", "SE", "S", "SW", "W", "NW")[int(((deg + 22.5) % 360) // 45)]


def dms(lat: float, lon: float) -> str:
    def one(v: float, pos: str, neg: str) -> str:
        a = abs(v)
        d = int(a)
        m = int((a - d) * 60)
        s = (a - d - m / 60) * 3600
        return f"{d}°{m:02d}'{s:04.1f}\"{pos if v >= 0 else neg}"
    return f"{one(lat, 'N', 'S')}, {one(lon, 'E', 'W')}"


def direction(sample: Sample[Any]) -> Replies:
    g = ABBREV[sample.target["direction"]]
    return Replies(DIRECTIONS[g], DIRECTIONS[(g + 4) % 8], list(DIRECTIONS), seps=(", ", " or "))


def yes_no(sample: Sample[Any]) -> Replies:
    answer = sample.target["answer"]
    return two_way_replies(answer, "No" if answer == "Yes" else "Yes")


def bearing(sample: Sample[Any]) -> Replies:
    t = sample.target
    g = float(t["bearing_deg"])
    w = (g + 90) % 360
    return Replies(f"{g:.1f}° ({t['compass']})", f"{w:.1f}° ({compass(w)})",
                   [f"{v:.1f}°" for v in (g, (g + 120) % 360, (g + 240) % 360)])


def bounds(sample: Sample[Any]) -> Replies:
    b = [float(x) for x in sample.target["bounds"]]
    wb = [b[0] - 5, b[1] + 5, b[2] - 5, b[3] + 5]
    return Replies(", ".join(f"{x:.4f}" for x in b), ", ".join(f"{x:.4f}" for x in wb),
                   ["(" + ", ".join(f"{x:.4f}" for x in b) + ")", "(" + ", ".join(f"{x:.4f}" for x in wb) + ")"],
                   seps=(" or ",))


def format_conversion(sample: Sample[Any]) -> Replies:
    t = sample.target
    if t["direction"] != "dd_to_dms":
        return pair_replies(sample)
    wrong = dms(*moved(float(t["lat"]), float(t["lon"]), 1))
    return Replies(str(t["dms"]), wrong, [str(t["dms"]), wrong], seps=(" or ",))


def projection(sample: Sample[Any]) -> Replies:
    t = sample.target
    if t["direction"] == "wgs84_to_webmercator":
        x, y = float(t["x"]), float(t["y"])
        return Replies(f"x = {x:.2f}, y = {y:.2f}", f"x = {x + 90000:.2f}, y = {y - 90000:.2f}",
                       [f"(x = {x:.2f}, y = {y:.2f})", f"(x = {x + 90000:.2f}, y = {y - 90000:.2f})"], seps=(" or ",))
    if t["direction"] == "wgs84_to_utm":
        e, n = float(t["easting"]), float(t["northing"])
        z = f"Zone {t['zone']}{t['hemisphere']}"
        return Replies(f"{z}, {e:.2f} E, {n:.2f} N", f"{z}, {e + 5000:.2f} E, {n + 5000:.2f} N",
                       [f"{z}, {e:.2f} E, {n:.2f} N", f"{z}, {e + 5000:.2f} E, {n + 5000:.2f} N"], seps=(" or ",))
    return pair_replies(sample)


def missing_value(sample: Sample[Any]) -> Replies:
    g = float(sample.target["value"])
    w = g - 7 if g > 0 else g + 7
    return Replies(f"{g:.5f}", f"{w:.5f}", [f"{v:.5f}" for v in (g, w, (g + w) / 2 - 3)], seps=(", ", " or "))


def area(sample: Sample[Any]) -> Replies:
    a, p = float(sample.target["area_km2"]), float(sample.target["perimeter_km"])
    return Replies(f"{a:.1f} km², {p:.1f} km", f"{a * 1.5 + 1000:.1f} km², {p * 1.5:.1f} km",
                   [f"{v:.1f} km²" for v in (a, a * 1.5 + 1000, a * 2 + 3000)], seps=(", ", " or "), extra=[
        Example("area_only", f"FINAL ANSWER: {a:.1f} km²", "answered", True),
        Example("area_or", f"FINAL ANSWER: {a:.1f} km² or {a * 1.5 + 1000:.1f} km²", "hedged", False),
    ])


def kept_points(sample: Sample[Any]) -> Replies:
    kept = [int(i) for i in sample.target["kept"]]
    wrong = kept[:1] + kept[-1:] if len(kept) > 2 else [*kept, kept[-1] + 1]
    return Replies(str(kept), str(wrong), [str(kept), str(wrong)], seps=(" or ",))


def continents(sample: Sample[Any]) -> Replies:
    groups: dict[str, list[str]] = sample.target["groups"]
    gold = "; ".join(f"{c}: {', '.join(ps)}" for c, ps in groups.items())
    places = [p for ps in groups.values() for p in ps]
    wrong_cont = next(c for c in CONTINENTS if c not in groups)
    every = "; ".join(f"{c}: {', '.join(places)}" for c in CONTINENTS)
    return Replies(gold, f"{wrong_cont}: {', '.join(places)}", [], seps=(), free_text=True, extra=[
        Example("every_place_everywhere", f"FINAL ANSWER: {every}", "hedged", False)])


def place(sample: Sample[Any]) -> Replies:
    t = sample.target
    region = t.get("admin1_name")
    gold = f"{t['name']}, {region}, {t['country']}" if region else f"{t['name']}, {t['country']}"
    decoys = [("Paris", "Île-de-France", "France"), ("Tokyo", "Tokyo", "Japan"), ("Lima", "Lima", "Peru"),
              ("Nairobi", "Nairobi", "Kenya")]
    decoys = [d for d in decoys if d[2] != t["country"] and d[0] != t["name"]]
    return Replies(gold, ", ".join(decoys[0]), [gold, *(", ".join(d) for d in decoys[:3])], seps=(" or ", "; "),
                   free_text=True, extra=[
        Example("cities_listed", f"FINAL ANSWER: {t['name']} or {decoys[0][0]}, {t['country']}", "hedged", False),
    ])

