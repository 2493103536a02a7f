"""GPSBench relative position (applied): same continent, distance bands, names only, gold vs raw GeoNames."""

from __future__ import annotations

from collections import Counter

from geopy.distance import great_circle
from gps_oracles import bearing, continent_of, latlon, raw_cities, sector

from geocore.gazetteer import find_city
from tasks import get_task

TASK = get_task("gpsbench.relative_position_applied")
ALL = TASK.generate(42, 60)
BANDS = {"200-500 km": (200, 500), "500-1000 km": (500, 1000), "1000-2000 km": (1000, 2000),
         "2000-3000 km": (2000, 3000)}


def test_gold_on_every_sample() -> None:
    assert Counter(s.meta["distance_band"] for s in ALL) == dict.fromkeys(BANDS, 15)
    for s in ALL:
        a, b = s.payload["geonameids"]
        ra, rb = raw_cities()[a], raw_cities()[b]
        assert continent_of()[ra["countrycode"]] == continent_of()[rb["countrycode"]]
        lo, hi = BANDS[s.meta["distance_band"]]
        assert lo <= great_circle(latlon(a), latlon(b), radius=6371).km <= hi
        deg = bearing(latlon(a), latlon(b))
        assert sector(deg) == s.target["direction"]
        assert f"is {rb['name']} from {ra['name']}?" in s.prompt
        # the names alone identify the cities (most populous namesake, at least twice any other)
        for gid, name in ((a, ra["name"]), (b, rb["name"])):
            found = find_city(name)
            assert found[0].geonameid == gid and (len(found) == 1 or found[1].population * 2 <= found[0].population)
