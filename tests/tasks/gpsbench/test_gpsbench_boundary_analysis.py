"""GPSBench boundary analysis: continents from raw GeoNames, no transcontinental places, grouping parser."""

from __future__ import annotations

import pytest
from gps_oracles import continent_of, raw_cities

from tasks import get_task
from tasks.gpsbench.boundary_analysis import continent_claims

TASK = get_task("gpsbench.boundary_analysis")
ALL = TASK.generate(42, 60)


def test_gold_on_every_sample() -> None:
    sizes = set()
    for s in ALL:
        ids = s.payload["geonameids"]
        sizes.add(len(ids))
        for gid, name in zip(ids, s.payload["cities"], strict=True):
            row = raw_cities()[gid]
            assert row["countrycode"] not in {"RU", "TR", "EG", "KZ", "GE", "AZ", "AM", "CY"}
            assert s.target["continents"][name] == continent_of()[row["countrycode"]]
        assert all(name in s.prompt for name in s.payload["cities"])
    assert sizes == {4, 5, 6}


NAMES = ["Corroios", "Wimbledon", "Toms River", "Santa Ana"]


@pytest.mark.parametrize("text", [
    "FINAL ANSWER: Europe: Corroios, Wimbledon; North America: Toms River, Santa Ana",
    "FINAL ANSWER: EU: Corroios, Wimbledon, NA: Toms River, Santa Ana",
    "FINAL ANSWER: Europe: {Corroios, Wimbledon}, North America: {Toms River, Santa Ana}",
    "FINAL ANSWER:\n- Europe: Corroios, Wimbledon\n- North America: Toms River, Santa Ana",
    "FINAL ANSWER: Corroios - Europe; Wimbledon - Europe; Toms River - North America; Santa Ana - North America",
])
def test_grouping_formats(text: str) -> None:
    found = continent_claims(text.split("FINAL ANSWER:")[1], NAMES)
    assert found == {"Corroios": ["EU"], "Wimbledon": ["EU"], "Toms River": ["NA"], "Santa Ana": ["NA"]}


def test_scoring_counts_misplaced_places() -> None:
    s = ALL[0]
    gold = s.target["continents"]
    names = list(gold)
    right = "FINAL ANSWER: " + "; ".join(f"{g}: {', '.join(v)}" for g, v in s.target["groups"].items())
    assert TASK.score(TASK.parse(right, s), s).correct
    wrong = "FINAL ANSWER: Antarctica: " + ", ".join(names)
    sc = TASK.score(TASK.parse("FINAL ANSWER: Oceania: " + ", ".join(names), s), s)
    assert sc.error == sum(1 for k in gold.values() if k != "OC") and sc.error_unit == "places"
    assert not TASK.parse(wrong.replace("Antarctica", "Atlantis"), s).ok


def test_places_named_after_a_continent_are_left_out() -> None:
    from tasks.gpsbench.boundary_analysis import names_continent

    assert names_continent("Asia") and names_continent("South America Town") and not names_continent("Americana")
    assert not any(names_continent(n) for s in TASK.generate(7, 200) for n in s.payload["cities"])


def test_a_free_reply_is_read_from_its_committed_answer() -> None:
    s = TASK.generate(42, 3)[0]
    gold = "; ".join(f"{g}: {', '.join(v)}" for g, v in s.target["groups"].items())
    names = list(s.target["continents"])
    other = "Oceania" if s.target["continents"][names[0]] != "OC" else "Europe"
    committed = TASK.parse(f"Oh, {other}: {names[0]}? No.\nTherefore, the answer is {gold}", s)
    assert committed.status == "answered" and TASK.score(committed, s).correct
    block = TASK.parse("I placed each city.\nThe answer is:\n" + gold.replace("; ", "\n"), s)
    assert block.status == "answered" and TASK.score(block, s).correct
    assert TASK.parse(f"Thinking aloud.\n{gold}", s).status == "answered"  # the last line
    assert TASK.parse("I cannot tell where these places are.", s).status == "refused"
    assert TASK.parse("These are all nice places.", s).status == "unparsed"
    hedged = TASK.parse(f"So the answer is Europe: {names[0]} or Asia: {names[0]}", s)
    assert hedged.status == "hedged"
