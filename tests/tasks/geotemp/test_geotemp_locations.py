"""GeoTemp locations: every country of zone.tab, every UTC offset in use, names that resolve to their zone."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta

from geotemp_oracle import pytz_offsets

from geocore.timezones import canonical_zones, is_canonical_zone
from tasks.geotemp import build_locations
from tasks.geotemp.locations import locations, pair, pair_count


def test_locations_are_current_geographic_zones_with_unique_labels() -> None:
    locs = locations()
    assert 300 <= len(locs) <= 330
    assert all(is_canonical_zone(loc.zone) for loc in locs)  # no Etc/*, US/*, Brazil/West or backward links
    assert len({loc.zone for loc in locs}) == len(locs)
    assert len({loc.label for loc in locs}) == len(locs)
    assert all(loc.city and loc.country and "_" not in loc.city and "/" not in loc.city for loc in locs)
    assert [loc.zone for loc in locs] == sorted(loc.zone for loc in locs)


def test_every_country_and_every_offset_in_use_is_covered() -> None:
    tab = build_locations.zone_tab()
    assert {loc.country_code for loc in locations()} == {cc for cc, *_ in tab}
    in_use: set[timedelta] = set()
    for zone in canonical_zones():
        in_use |= pytz_offsets(zone, 2023)
    covered: set[timedelta] = set()
    for loc in locations():
        covered |= pytz_offsets(loc.zone, 2023)
    assert covered == in_use
    assert len(in_use) >= 38  # -11 … +14, with the :30 and :45 offsets


def test_groups_share_offsets_and_country() -> None:
    by_country = Counter(loc.country_code for loc in locations())
    assert by_country["RU"] >= 10 and by_country["US"] >= 6 and by_country["FR"] == 1
    for loc in locations()[::7]:
        ref = pytz_offsets(loc.zone, 2023)
        for other in loc.group:
            assert pytz_offsets(other, 2023) == ref


def test_shipped_groups_match_the_tz_database() -> None:
    """The grouping (the part a tzdata upgrade can change) equals a fresh one; names come from pinned
    GeoNames data. After a failure run: python -m tasks.geotemp.build_locations"""
    groups: dict[tuple[object, ...], list[str]] = {}
    for cc, zone, _, _ in build_locations.zone_tab():
        groups.setdefault((cc, build_locations.signature(zone)), []).append(zone)
    fresh = sorted(sorted(g) for g in groups.values())
    assert fresh == sorted(list(loc.group) for loc in locations())
    assert all(loc.zone in loc.group for loc in locations())
    doc = json.loads(build_locations.DATA_FILE.read_text(encoding="utf-8"))
    assert build_locations.dumps(doc) == build_locations.DATA_FILE.read_text(encoding="utf-8")


def test_pair_grid_is_every_ordered_pair_of_distinct_locations() -> None:
    n = len(locations())
    assert pair_count() == n * (n - 1)
    seen = {(a.zone, b.zone) for a, b in (pair(i) for i in range(0, pair_count(), 97))}
    assert all(a != b for a, b in seen)
    first_row = [pair(i)[1].zone for i in range(n - 1)]
    assert pair(0)[0] == locations()[0] and locations()[0].zone not in first_row and len(set(first_row)) == n - 1
