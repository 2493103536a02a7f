"""GPSBench terrain classification: every curated site checked against the prompt's rule with independent
data (raw GeoNames populations, the land mask sampled here), splits disjoint by site, option parsing."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from global_land_mask import globe
from gps_oracles import brute_nearest

from geocore.gazetteer import continent_of_country
from geocore.terrain import natural_regions_at
from tasks import get_task
from tasks.gpsbench.terrain_classification import sites_by_split
from tasks.gpsbench.terrain_data import SITES, TERRAIN_CLASSES

TASK = get_task("gpsbench.terrain_classification")
ALL = TASK.generate(42, 60)


def sea_within_km(lat: float, lon: float, km: float) -> bool:
    """Own sampling of the 1 km mask: the point, then rings every 0.25 km with 144 bearings."""
    if not globe.is_land(lat, lon):
        return True
    r = np.arange(0.25, km + 1e-9, 0.25)[:, None] / 6371.0
    th = np.radians(np.arange(144) * 2.5)[None, :]
    p1, l1 = math.radians(lat), math.radians(lon)
    p2 = np.arcsin(np.sin(p1) * np.cos(r) + np.cos(p1) * np.sin(r) * np.cos(th))
    l2 = l1 + np.arctan2(np.sin(th) * np.sin(r) * np.cos(p1), np.cos(r) - np.sin(p1) * np.sin(p2))
    return not bool(np.all(globe.is_land(np.degrees(p2), (np.degrees(l2) + 180) % 360 - 180)))


def test_table_shape() -> None:
    counts = Counter(s.terrain for s in SITES)
    assert set(counts) == set(TERRAIN_CLASSES) and min(counts.values()) >= 20
    assert len({s.name for s in SITES}) == len(SITES) and all(len(s.provenance) > 20 for s in SITES)
    assert all(continent_of_country(s.country_code) for s in SITES)


@pytest.mark.parametrize("site", SITES, ids=lambda s: s.name)
def test_every_site_fits_the_rule_with_margins(site) -> None:  # type: ignore[no-untyped-def]
    big_km = brute_nearest(site.lat, site.lon, min_population=1_000_000)[0][1]
    if site.terrain == "urban":
        assert big_km <= 10.0
        return
    assert big_km > 12.0  # clearly outside every million-city
    if site.terrain == "coastal":
        assert sea_within_km(site.lat, site.lon, 4.0)
        return
    assert not sea_within_km(site.lat, site.lon, 6.0)  # clearly inland
    assert {r.kind for r in natural_regions_at(site.lat, site.lon)} == {site.terrain}


def test_splits_share_no_site_and_cover_every_class() -> None:
    pools = sites_by_split()
    names = {sp: {s.name for c in TERRAIN_CLASSES for s in pools[(sp, c)]} for sp in ("train", "dev", "test")}
    assert not (names["train"] & names["dev"] or names["train"] & names["test"] or names["dev"] & names["test"])
    assert sum(len(v) for v in names.values()) == len(SITES)
    assert all(pools[(sp, c)] for sp in ("train", "dev", "test") for c in TERRAIN_CLASSES)
    for s in ALL:
        assert s.payload["site"] in names[s.split]


def test_classes_cycle_and_options_parse() -> None:
    assert Counter(s.target["terrain"] for s in ALL) == dict.fromkeys(TERRAIN_CLASSES, 10)
    s = ALL[0]
    gold = s.target["index"]
    word = (s.choices or ())[gold]
    for text in (f"FINAL ANSWER: {'ABCDEF'[gold]}", f"FINAL ANSWER: {word}", f"FINAL ANSWER: {'ABCDEF'[gold]}) {word}"):
        assert TASK.score(TASK.parse(text, s), s).correct, text
    assert not TASK.parse("FINAL ANSWER: Urban or Coastal", s).ok
