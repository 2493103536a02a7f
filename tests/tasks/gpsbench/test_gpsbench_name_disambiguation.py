"""GPSBench name disambiguation: same-named options, jittered answer point, letter/text parsing."""

from __future__ import annotations

import pytest
from geopy.distance import great_circle
from gps_oracles import latlon, raw_cities

from tasks import get_task
from tasks.answers import fold
from tasks.records import Parsed

TASK = get_task("gpsbench.name_disambiguation")
ALL = TASK.generate(42, 60)


def test_gold_on_every_sample() -> None:
    for s in ALL:
        ids = s.payload["geonameids"]
        names = {fold(raw_cities()[i]["name"]) for i in ids}
        assert len(ids) == 4 and len(names) == 1 and len({fold(c) for c in s.choices or ()}) == 4
        point = (s.payload["lat"], s.payload["lon"])
        dist = [great_circle(point, latlon(i), radius=6371).m for i in ids]
        assert dist.index(min(dist)) == s.target["index"] and 100 - 0.5 <= min(dist) <= 500 + 0.5
        for i, a in enumerate(ids):
            assert all(great_circle(latlon(a), latlon(b), radius=6371).km >= 20 for b in ids[i + 1:])
        assert s.target["letter"] == "ABCD"[s.target["index"]]


def test_letters_text_and_ambiguity() -> None:
    s = ALL[0]
    gold, label = s.target["index"], s.target["label"]
    other = (gold + 1) % 4
    assert TASK.parse(f"FINAL ANSWER: {'ABCD'[gold]}", s).value == gold
    assert TASK.parse(f"FINAL ANSWER: ({'ABCD'[gold]}) {label}", s).value == gold
    assert TASK.parse(f"It must be this one.\nFINAL ANSWER: {label}", s).value == gold
    bad = TASK.parse(f"FINAL ANSWER: {'ABCD'[other]}) {label}", s)
    assert bad.status == "hedged"  # the letter names one option, the text another
    both = TASK.parse(f"FINAL ANSWER: {label} or {(s.choices or ())[other]}", s)
    assert both.status == "hedged"
    assert TASK.score(Parsed.success("x", gold), s).correct and not TASK.score(Parsed.success("x", other), s).correct


@pytest.mark.parametrize("answer", ["FINAL ANSWER: E", "FINAL ANSWER: none of them"])
def test_out_of_range_letters_fail(answer: str) -> None:
    assert not TASK.parse(answer, ALL[0]).ok
