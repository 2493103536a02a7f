"""GPSBench proximity: gold by geopy over raw GeoNames coordinates, clear margin, option parsing."""

from __future__ import annotations

from geopy.distance import great_circle
from gps_oracles import latlon

from tasks import get_task

TASK = get_task("gpsbench.proximity")
ALL = TASK.generate(42, 60)


def test_gold_on_every_sample() -> None:
    for s in ALL:
        ref, *cands = s.payload["geonameids"]
        km = [great_circle(latlon(ref), latlon(c), radius=6371).km for c in cands]
        order = sorted(range(4), key=km.__getitem__)
        assert order[0] == s.target["index"] and km[order[0]] <= 0.95 * km[order[1]]
        every = [ref, *cands]
        for i, a in enumerate(every):
            assert all(great_circle(latlon(a), latlon(b), radius=6371).km >= 100 for b in every[i + 1:])
        assert f"closest to {s.payload['reference']}" in s.prompt


def test_parsing_by_letter_or_name() -> None:
    s = ALL[0]
    gold = s.target["index"]
    name = (s.choices or ())[gold]
    for text in (f"FINAL ANSWER: {'ABCD'[gold]}", f"FINAL ANSWER: {name}", f"FINAL ANSWER: **{'ABCD'[gold]}) {name}**"):
        assert TASK.score(TASK.parse(text, s), s).correct, text
