"""GPSBench place association: noise and difficulty design, gold vs raw GeoNames, three-level scoring."""

from __future__ import annotations

from collections import Counter

from geopy.distance import great_circle
from gps_oracles import brute_nearest, raw_cities

from tasks import get_task

TASK = get_task("gpsbench.place_association")
ALL = TASK.generate(42, 72)


def test_noise_and_difficulty_cycle_evenly() -> None:
    cells = Counter((s.meta["difficulty"], s.meta["noise_m"]) for s in ALL)
    assert len(cells) == 18 and set(cells.values()) == {4}


def test_gold_against_raw_geonames_on_every_sample() -> None:
    for s in ALL:
        row = raw_cities()[s.target["geonameid"]]
        assert row["name"] == s.target["name"] and row["countrycode"] == s.target["country_code"]
        pop = int(row["population"])
        assert s.meta["difficulty"] == ("easy" if pop >= 500_000 else "medium" if pop >= 100_000 else "hard")
        lat, lon = s.payload["lat"], s.payload["lon"]
        assert f"{lat:.6f}, {lon:.6f}" in s.prompt
        offset_m = great_circle((lat, lon), (float(row["latitude"]), float(row["longitude"])), radius=6371).m
        assert offset_m <= 6 * s.meta["noise_m"] + 0.2  # 6 sigma, plus printing to 6 decimals
        nearest = brute_nearest(lat, lon)
        assert nearest[0][0] == s.target["geonameid"] and nearest[1][1] - nearest[0][1] >= 0.5 - 1e-6


def test_levels_city_region_country() -> None:
    s = next(x for x in ALL if x.target["country_code"] == "US") if any(
        x.target["country_code"] == "US" for x in ALL) else ALL[0]
    t = s.target
    right = TASK.levels(TASK.parse(f"FINAL ANSWER: {t['name']}, {t['admin1_name'] or 'x'}, {t['country']}", s), s)
    assert right == {"city": True, "admin1": True, "country": True}
    alt = next((n for n in t["names"] if n != t["name"]), t["name"])
    assert TASK.score(TASK.parse(f"FINAL ANSWER: {alt}, {t['country']}", s), s).correct
    wrong_country = TASK.levels(TASK.parse(f"FINAL ANSWER: {t['name']}, Atlantis, Mongolia", s), s)
    assert wrong_country["city"] is False and wrong_country["country"] is False
    substituted = TASK.score(TASK.parse(f"FINAL ANSWER: Somewhere Else, {t['country']}", s), s)
    assert not substituted.correct and "country yes" in substituted.explanation and "city no" in substituted.explanation


def test_paper_example_state_capital_substitution() -> None:
    """App. F.4: Emure-Ekiti answered as Akure (Ondo State): wrong city, right country and state."""
    s = ALL[0].model_copy(update={"target": {
        "name": "Emure-Ekiti", "names": ["Emure-Ekiti", "Emure"], "country": "Nigeria", "country_code": "NG",
        "admin1_code": "48", "admin1_name": None, "geonameid": 0, "lat": 7.44, "lon": 5.46}})
    lv = TASK.levels(TASK.parse("The point is in Nigeria.\nFINAL ANSWER: Akure, Ondo State, Nigeria", s), s)
    assert lv["city"] is False and lv["country"] is True
    # Akure lies in GeoNames admin1 48 (Ondo): the named state counts at the admin-1 level
    assert lv["admin1"] is True
    assert TASK.levels(TASK.parse("FINAL ANSWER: Emure, Ekiti, Nigeria", s), s)["city"] is True


def test_a_bracketed_or_listed_alternative_is_a_hedge_at_every_level() -> None:
    s = ALL[0]
    t = s.target
    gold = f"{t['name']}, {t['admin1_name'] or 'x'}, {t['country']}"
    tasks = [get_task(n) for n in ("gpsbench.place_association", "gpsbench.place_association.country",
                                    "gpsbench.place_association.admin1")]
    for alt in (f"{gold} (or Paris, Île-de-France, France)", f"{gold} [or Paris, France]",
                f"{t['name']} (possibly Lyon), {t['country']}", f"{gold} or Paris, Île-de-France, France"):
        parsed = TASK.parse(f"FINAL ANSWER: {alt}", s)
        assert parsed.status == "hedged", alt
        assert not any(task.score(parsed, s).correct for task in tasks)
    plain = TASK.parse(f"FINAL ANSWER: {t['name']} ({t['admin1_name'] or 'x'}), {t['country']}", s)
    assert plain.status == "answered" and TASK.score(plain, s).correct
