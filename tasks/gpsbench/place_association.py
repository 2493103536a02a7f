"""GPSBench Applied: place association, the city at noisy coordinates (App. A.4, B.2, C.6, F.6-F.7).

Difficulty cycles easy (population >= 500k) / medium (100k-500k) / hard (< 100k) and the noise σ cycles over
{0, 10, 50, 100, 500, 1000} m, so every (difficulty, σ) cell gets the same share. The city is drawn from a
quota-weighted continent within its difficulty band; Gaussian noise is added per the paper (σ/111,000 degrees
of latitude, σ/(111,000·cos φ) of longitude) and printed with 6 decimals. A draw is kept only if the city is
still the nearest gazetteer place to the noisy point, with the runner-up at least 0.5 km farther, so the gold is
recoverable from the coordinates.

The score is city-level: the city the answer names — its first comma-separated part, or the whole answer — equal
to the GeoNames name or an alternate spelling, with no other country named last. A later part naming the city
("Bremerhaven, Bremen, Germany" for Bremen) is a region, not the city. Naming more than one place ("Bremen or
Bremerhaven", "Bremen / Hamburg", "Bremen (or Hamburg)", two countries) is a hedge. :meth:`PlaceAssociationTask.levels` also scores the paper's coarser levels (Table 8):
country (a part naming the gold country) and first-level division (a part naming the division where its name
is known offline, or naming a gazetteer place of the gold country that lies in the gold division); a right
city implies the coarser levels. The explanation lists all three. The same items scored at those levels are
registered as ``gpsbench.place_association.country`` and ``gpsbench.place_association.admin1``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from functools import cache
from typing import ClassVar, TypedDict

from geocore.gazetteer import City, admin1_name, admin1_names, country_code, find_city
from tasks.answers import decide, extract, fold, is_refusal
from tasks.base import shared_stream
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.sampling import cities_by_continent, city_grid, pick_continent
from tasks.records import GoldCall, Parsed, Sample, Score
from tasks.registry import Variant, register_task

SIGMAS_M: tuple[int, ...] = (0, 10, 50, 100, 500, 1000)
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
RUNNER_UP_MARGIN_KM = 0.5
TEMPLATE = (
    "Which city is at the coordinates {lat:.6f}, {lon:.6f} (latitude, longitude in decimal degrees)? Name the "
    "city, its first-level administrative region (state, province, ...) and its country.\n"
    "End your reply with the line FINAL ANSWER: City, Region, Country."
)
_REGION_WORDS = re.compile(
    r"\b(state|province|region|district|prefecture|oblast|governorate|county|department|municipality|division|"
    r"territory|city of|metropolitan|capital|autonomous|republic|krai|voivodeship|canton|emirate)\b")


def difficulty_of(population: int) -> str:
    if population >= 500_000:
        return "easy"
    return "medium" if population >= 100_000 else "hard"


@cache
def _bands() -> dict[tuple[str, str], tuple[City, ...]]:
    out: dict[tuple[str, str], list[City]] = {}
    for cont, group in cities_by_continent().items():
        for c in group:
            out.setdefault((cont, difficulty_of(c.population)), []).append(c)
    return {k: tuple(v) for k, v in out.items()}


def accepted_names(city: City) -> list[str]:
    """The GeoNames name, its ASCII form and alternate spellings (codes such as "PAR" and digits left out)."""
    names = [city.name, city.ascii_name]
    for alt in city.alternate_names:
        if any(ch.isdigit() for ch in alt) or (alt.isupper() and len(alt) <= 4) or len(alt) < 2:
            continue
        names.append(alt)
    return list(dict.fromkeys(n for n in names if n))


_ALTERNATIVE = re.compile(r"\s(?:or|OR|Or)\s|/|;|\n")
_BRACKETED_ALTERNATIVE = re.compile(r"[(\[]\s*(?:or|alternatively|otherwise|possibly|perhaps|maybe)\b",
                                    re.IGNORECASE)


_FIELD_LABEL = re.compile(
    r"\b(?:city|town|village|place|municipality|(?:first[- ]level\s)?(?:admin(?:istrative)?\s?)?(?:region|division|"
    r"area|unit)|admin1|state|province|prefecture|county|country|nation)\s?[:=]\s?", re.IGNORECASE)
_LEAD_IN = re.compile(
    r"^(?:the|it|this|these|that|those|located|nearest|closest|i|my|coordinates|based|place|city|answer|point|"
    r"location|they|which)\b[^,]{0,80}?\b(?:is|are|was|be|lies|lie|to|near|called|named|in|at|of|as|think|believe)"
    r"\s+(?:the\s+)?(?=(?-i:[A-Z]))", re.IGNORECASE)


def _unlabel(segment: str) -> str:
    """A place answer without field labels ("City: Lyon, Country: France") or a lead-in ("The nearest city
    is Lyon, France")."""
    s = _FIELD_LABEL.sub("", segment).strip(" .")
    s = _LEAD_IN.sub("", s, count=1)
    return " ".join(s.split())


def parse_place(segment: str) -> Parsed[list[str]]:
    """The parts of a "City, Region, Country" answer, field labels and a lead-in taken off; several alternatives
    naming different places ("X or Y", "X / Y", "X (or Y)") are hedged (the same place written twice is one);
    "I cannot tell" is a refusal. Any other bracket is read as a part ("Paris (Île-de-France), France")."""
    if is_refusal(segment):
        return Parsed.refused(segment)
    alternatives = []
    unbracketed = re.sub(r"[()\[\]]", ",", _BRACKETED_ALTERNATIVE.sub(" or ", _unlabel(segment)))
    for alt in _ALTERNATIVE.split(unbracketed):
        parts = tuple(p.strip(" .;:") for p in alt.split(",") if p.strip(" .;:"))
        if parts:
            alternatives.append(parts)
    if not alternatives:
        return Parsed.failure(segment, "empty answer")
    if len(alternatives) > 1:
        parsed = decide(segment, [tuple(fold(p) for p in a) for a in alternatives], what="place")
        if not parsed.ok:
            return parsed.no_answer()
    return Parsed.success(segment, list(alternatives[0]))


_SENTENCE_START = re.compile(r"^(?:(?:It|This|That|These|Those|I|We|They|There|Here|Perhaps|Maybe|Or|But|However|"
                             r"Also|Alternatively|Otherwise|Possibly|Actually|P\.?S\.?)\b[\s,.:]*)+")


def parse_named_place(segment: str) -> Parsed[list[str]]:
    """:func:`parse_place` on the capitalised name in a sentence ("could also be Lyon, France" is Lyon, France;
    "this is likely correct" names no place): how a line after the answer is read for a second place."""
    name = re.sub(r"^[^A-Z]*", "", _SENTENCE_START.sub("", _unlabel(segment)))
    return parse_place(name) if name else Parsed.failure(segment, "no place name")


class PlaceTarget(TypedDict):
    name: str
    names: list[str]
    country: str
    country_code: str
    admin1_code: str
    admin1_name: str | None
    geonameid: int
    lat: float
    lon: float


@register_task("gpsbench.place_association", variants=(
    Variant("country", {"level": "country"}, "Scored at the country level (Table 8)."),
    Variant("admin1", {"level": "admin1"}, "Scored at the first-level division (Table 8)."),
))
class PlaceAssociationTask(GpsTask[PlaceTarget, list[str]]):
    """The place at noisy coordinates; scored at the city level, or coarser in the ``country`` and ``admin1``
    variants (the same items, the paper's Table 8)."""

    track = "applied"
    toolsets = ("gazetteer",)
    level: ClassVar[str] = "city"

    def draw(self, seed: int, size: int) -> Iterator[Sample[PlaceTarget]]:
        for i, city, lat, lon, sigma, offset_km in self.places(seed, size):
            a1 = admin1_name(city.country_code, city.admin1_code)
            target: PlaceTarget = {"name": city.name, "names": accepted_names(city), "country": city.country,
                      "country_code": city.country_code, "admin1_code": city.admin1_code, "admin1_name": a1,
                      "geonameid": city.geonameid, "lat": city.lat, "lon": city.lon}
            yield self.make(
                i, size, TEMPLATE.format(lat=lat, lon=lon), target,
                {"lat": lat, "lon": lon, "noise_m": sigma, "offset_km": offset_km},
                place_meta(city, difficulty=DIFFICULTIES[i % 3], noise_m=sigma, population=city.population),
            )

    def gold_call(self, sample: Sample[PlaceTarget]) -> GoldCall:
        """``nearest_cities`` at the printed point: the generator kept only points whose nearest place is the city."""
        return GoldCall(tools=("nearest_cities",), args={"lat": sample.payload["lat"], "lon": sample.payload["lon"]},
                        result_key="cities.0.name", gold=str(sample.target["name"]), generic=("python",))

    def places(self, seed: int, size: int) -> Iterator[tuple[int, City, float, float, float, float]]:
        """Per item: its index, the city, the noisy (lat, lon) shown, the noise σ (m) and the km from the city
        to the point. Drawn once per process and shared by the scoring levels (:func:`tasks.base.shared_stream`)."""
        return shared_stream((self.item_key, seed, size)).replay(lambda: self._draw_places(seed, size))

    def _draw_places(self, seed: int, size: int) -> Iterator[tuple[int, City, float, float, float, float]]:
        rng = self.rng(seed)
        bands, grid = _bands(), city_grid()
        for i in range(size):
            difficulty = DIFFICULTIES[i % 3]
            sigma = SIGMAS_M[(i // 3) % len(SIGMAS_M)]
            while True:
                cont = pick_continent(rng)
                pool = bands.get((cont, difficulty))
                if not pool:
                    continue
                city = rng.choice(pool)
                lat = city.lat + rng.gauss(0.0, sigma / 111_000.0)
                lon = city.lon + rng.gauss(0.0, sigma / (111_000.0 * max(math.cos(math.radians(city.lat)), 0.01)))
                lat, lon = round(max(-90.0, min(90.0, lat)), 6), round((lon + 540.0) % 360.0 - 180.0, 6)
                near = grid.near(lat, lon, 5.0 + 6.0 * sigma / 1000.0)
                if near and near[0][0].geonameid == city.geonameid and (
                        len(near) == 1 or near[1][1] - near[0][1] >= RUNNER_UP_MARGIN_KM):
                    break
            yield i, city, lat, lon, sigma, round(near[0][1], 4)

    def example_replies(self, sample: Sample[PlaceTarget]) -> Replies:
        return examples.place(sample)

    def parse(self, text: str, sample: Sample[PlaceTarget]) -> Parsed[list[str]]:
        """The comma-separated parts of the committed answer (brackets read as parts); alternatives joined by
        "or", "/" or ";" that name different places are hedged."""
        return extract(text, parse_place, prompt=sample.prompt, later=parse_named_place)

    def levels(self, parsed: Parsed[list[str]], sample: Sample[PlaceTarget]) -> dict[str, bool]:
        """City, first-level division and country correctness of a parsed answer (Table 8's granularity)."""
        if not parsed.ok:
            return {"city": False, "admin1": False, "country": False}
        t = sample.target
        parts = list(parsed.answer)
        countries: dict[int, str] = {}
        for k, p in enumerate(parts):
            try:
                countries[k] = country_code(p)
            except ValueError:
                pass
        last = len(parts) - 1
        # the answer format puts the country last; an earlier part that reads as a country ("Georgia", "Bo")
        # is taken as a place name
        names = {fold(n) for n in t["names"]}
        place_parts = [p for k, p in enumerate(parts) if not (k == last and last > 0 and k in countries)]
        other_country = last > 0 and last in countries and countries[last] != t["country_code"]
        city_ok = fold(parts[0]) in names and not other_country
        country_ok = city_ok or t["country_code"] in countries.values()
        # the division is read within the answer's own country: a same-named place elsewhere is no credit
        # a right city name put in another division of the country is another place at the division level
        admin1_ok = not self._other_admin1(place_parts[1:], t) and (
            city_ok or (not other_country and self._admin1_named(place_parts, t)))
        return {"city": city_ok, "admin1": admin1_ok, "country": country_ok}

    @staticmethod
    def _other_admin1(parts: list[str], t: PlaceTarget) -> bool:
        """Whether a part of the answer after the city names a first-level division of the gold's country other
        than the gold's ("Cumberland, Maryland" for Cumberland, Rhode Island); only where divisions are named."""
        wanted = fold(t["admin1_name"]) if t.get("admin1_name") else None
        if not wanted:
            return False
        others = {fold(n) for n in admin1_names(t["country_code"])} - {wanted}
        return any(fold(p) in others for p in parts)

    @staticmethod
    def _admin1_named(parts: list[str], t: PlaceTarget) -> bool:
        wanted = fold(t["admin1_name"]) if t.get("admin1_name") else None
        for p in parts:
            core = " ".join(_REGION_WORDS.sub(" ", fold(p)).split())
            if not core:
                continue
            if wanted and core in (wanted, " ".join(_REGION_WORDS.sub(" ", wanted).split())):
                return True
            if t["admin1_code"] and any(c.admin1_code == t["admin1_code"] for c in find_city(core, t["country_code"])):
                return True
        return False

    def score(self, parsed: Parsed[list[str]], sample: Sample[PlaceTarget]) -> Score:
        if not parsed.ok:
            return failed(parsed)
        lv = self.levels(parsed, sample)
        if self.level != "city":
            return graded(lv[self.level], None, None, f"{self.level}-level: answer {', '.join(parsed.answer)!r}; "
                                                      f"gold {sample.target['name']}, {sample.target['country']}")
        marks = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in lv.items())
        return graded(lv["city"], None, None, f"answer {', '.join(parsed.answer)!r}; gold {sample.target['name']}, "
                                            f"{sample.target['country']}; levels: {marks}")
