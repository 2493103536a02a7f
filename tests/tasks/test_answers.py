"""The shared answer-extraction layer: committed answer, hedges, echoes, refusals, given parameters, bounds."""

from __future__ import annotations

import pytest

from tasks.answers import (
    LONG_NUMBER,
    coordinate_pair,
    decide,
    direction,
    extract,
    find_answer,
    is_placeholder_echo,
    numbers,
    option,
    option_labels,
    prompt_numbers,
    quantity,
    single_angle,
    yes_no,
)
from tasks.records import Parsed

DIST_PROMPT = ("Point A is at (52.5200, 13.4050) and point B is at (48.8566, 2.3522). Treat the Earth as a sphere of "
               "radius 6371 km.\nEnd your reply with the line FINAL ANSWER: X km, where X is the distance.")
OPTIONS = [["Paris"], ["London"], ["Rome"], ["Berlin"]]
LETTER_PROMPT = "Which city?\nA) Paris\nB) London\nC) Rome\nD) Berlin\nEnd your reply with the line FINAL ANSWER: <letter>."


def distance(text: str) -> Parsed:
    given = prompt_numbers(DIST_PROMPT)
    return extract(text, lambda s: quantity(s, "distance", given=given), prompt=DIST_PROMPT)


def choice(text: str, prompt: str = LETTER_PROMPT) -> Parsed:
    return extract(text, lambda s: option(s, OPTIONS), prompt=prompt)


@pytest.mark.parametrize(("text", "status", "value"), [
    ("FINAL ANSWER: 877 km", "answered", 877.0),
    ("Some work: 100 km first.\nFINAL ANSWER: **877.5 km**", "answered", 877.5),
    ("FINAL ANSWER: 877", "answered", 877.0),
    ("FINAL ANSWER: 8 610.5 km", "answered", 8610.5),
    ("FINAL ANSWER: 545 miles", "answered", pytest.approx(877.09, abs=0.01)),
    ("FINAL ANSWER: 877 km (545 miles)", "answered", 877.0),
    ("FINAL ANSWER: With R = 6371 km, the distance is 877 km", "answered", 877.0),
    ("FINAL ANSWER: d = 2 × 6371 km × 0.0689 = 877 km", "answered", 877.0),
    ("FINAL ANSWER: 877 km ± 5 km", "answered", 877.0),
    ("The Earth's radius is 6371 km.\nTherefore the distance is 877 km.", "answered", 877.0),
    ("First I get 100 km, then correcting: 877 km", "answered", 877.0),
    ("FINAL ANSWER: 877 km or 900 km", "hedged", None),
    ("FINAL ANSWER: 877 km (or 900 km)", "hedged", None),
    ("FINAL ANSWER: 850–900 km", "hedged", None),
    ("FINAL ANSWER: 850-900 km", "hedged", None),
    ("FINAL ANSWER: between 850 and 900 km", "hedged", None),
    ("FINAL ANSWER: 800 km, 850 km, 877 km, 900 km", "hedged", None),
    ("FINAL ANSWER: X km", "unparsed", None),
    ("FINAL ANSWER: d = 2R asin(sqrt(h))", "unparsed", None),
    ("I cannot compute this without tools.", "refused", None),
    ("FINAL ANSWER: I don't know", "refused", None),
    ("FINAL ANSWER: Unknown", "refused", None),
    ("", "unparsed", None),
])
def test_distance_answers(text: str, status: str, value: float | None) -> None:
    p = distance(text)
    assert p.status == status, p.reason
    assert p.raw == text
    if value is not None:
        assert p.value == value


@pytest.mark.parametrize(("text", "status", "value"), [
    ("FINAL ANSWER: B", "answered", 1),
    ("FINAL ANSWER: (C)", "answered", 2),
    ("FINAL ANSWER: Option D", "answered", 3),
    ("FINAL ANSWER: B) London", "answered", 1),
    ("FINAL ANSWER: London", "answered", 1),
    ("FINAL ANSWER: **C**.", "answered", 2),
    ("FINAL ANSWER: C) Rome, which is farther than Paris", "answered", 2),
    ("I think the answer is B.", "answered", 1),
    ("FINAL ANSWER: A B C D", "hedged", None),
    ("FINAL ANSWER: A, B, C or D", "hedged", None),
    ("FINAL ANSWER: B or C", "hedged", None),
    ("FINAL ANSWER: B/C", "hedged", None),
    ("FINAL ANSWER: A) Paris B) London C) Rome D) Berlin", "hedged", None),
    ("FINAL ANSWER: B) Paris", "hedged", None),
    ("FINAL ANSWER: Paris or London", "hedged", None),
    ("FINAL ANSWER: A guess would be hard here", "unparsed", None),
    ("FINAL ANSWER: <letter>", "unparsed", None),
    ("FINAL ANSWER: E", "unparsed", None),
    ("I am unable to determine which city it is.", "refused", None),
])
def test_option_answers(text: str, status: str, value: int | None) -> None:
    p = choice(text)
    assert p.status == status, p.reason
    if value is not None:
        assert p.value == value


def test_a_placeholder_echo_is_unparsed_but_the_same_letter_as_an_answer_is_not() -> None:
    prompt = "Options: 1) North ... 8) Northwest.\nEnd with FINAL ANSWER: N, where N is the option number."
    assert is_placeholder_echo("N", prompt) and not is_placeholder_echo("3", prompt)
    numbered = [[d] for d in ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest")]
    find = lambda s: option(s, numbered, letters=False, numbers=True)  # noqa: E731
    assert extract("FINAL ANSWER: N", find, prompt=prompt).status == "unparsed"
    assert extract("FINAL ANSWER: 3", find, prompt=prompt).value == 2
    assert extract("FINAL ANSWER: 1 2 3 4 5", find, prompt=prompt).status == "hedged"


def test_completion_style_reads_the_continuation_not_an_echo_of_the_options() -> None:
    find = lambda s: option(s, OPTIONS, letters=False, numbers=True)  # noqa: E731
    assert extract("3): Rome\nBecause ...", find, completion=True).value == 2
    assert extract("1) Paris (2) London (3) Rome (4) Berlin", find, completion=True).status == "hedged"
    assert find_answer("2)\nmore", completion=True).source == "completion"


@pytest.mark.parametrize(("text", "status", "value"), [
    ("FINAL ANSWER: Yes", "answered", True),
    ("FINAL ANSWER: No, it lies north of the route", "answered", False),
    ("FINAL ANSWER: Yes or No", "unparsed", None),  # the template itself
    ("FINAL ANSWER: yes/no", "hedged", None),
    ("FINAL ANSWER: Maybe", "unparsed", None),
])
def test_yes_no(text: str, status: str, value: bool | None) -> None:
    p = extract(text, yes_no, prompt="Is C on the way?\nEnd your reply with the line FINAL ANSWER: Yes or No.")
    assert p.status == status and (value is None or p.value is value)


@pytest.mark.parametrize(("text", "status", "value"), [
    ("FINAL ANSWER: NE", "answered", "NE"),
    ("FINAL ANSWER: North-East", "answered", "NE"),
    ("FINAL ANSWER: Northeast (bearing 47°)", "answered", "NE"),
    ("FINAL ANSWER: North or Northeast", "hedged", None),
    ("FINAL ANSWER: NNE", "unparsed", None),
    ("FINAL ANSWER: north-northeast", "unparsed", None),
    ("FINAL ANSWER: North East", "answered", "NE"),
    ("FINAL ANSWER: North, East", "hedged", None),
    ("FINAL ANSWER: North, Northeast, East, Southeast, South, Southwest, West, Northwest", "hedged", None),
    ("FINAL ANSWER: N, NE, E, SE, S, SW, W, NW", "hedged", None),
    ("FINAL ANSWER: North/Northeast", "hedged", None),
    ("FINAL ANSWER: NNE; NE", "hedged", None),
])
def test_directions(text: str, status: str, value: str | None) -> None:
    p = extract(text, direction)
    assert p.status == status and (value is None or p.value == value)


@pytest.mark.parametrize(("text", "status", "lat", "lon"), [
    ("FINAL ANSWER: 40.4461, -79.9822", "answered", 40.4461, -79.9822),
    ("FINAL ANSWER: 40.4461° N, 79.9822° W", "answered", 40.4461, -79.9822),
    ("FINAL ANSWER: longitude -79.9822, latitude 40.4461", "answered", 40.4461, -79.9822),
    ("FINAL ANSWER: 40°26'46\"N, 79°58'56\"W (40.4461, -79.9822)", "answered", 40.4461, -79.9822),
    ("FINAL ANSWER: midpoint = (40.4461, -79.9822)", "answered", 40.4461, -79.9822),
    ("FINAL ANSWER: (40.4461, -79.9822) or (41.0, -80.5)", "hedged", None, None),
    ("FINAL ANSWER: 40.4461", "unparsed", None, None),
    ("FINAL ANSWER: 95.0, 10.0", "unparsed", None, None),
])
def test_coordinate_pairs(text: str, status: str, lat: float | None, lon: float | None) -> None:
    p = extract(text, coordinate_pair)
    assert p.status == status, p.reason
    if lat is not None:
        assert p.value["lat"] == pytest.approx(lat, abs=1e-4) and p.value["lon"] == pytest.approx(lon, abs=1e-4)


def test_a_restated_input_point_is_not_the_answer() -> None:
    given = [(52.52, 13.405), (48.8566, 2.3522)]
    text = "FINAL ANSWER: between (52.52, 13.405) and (48.8566, 2.3522) the midpoint is (50.9, 7.6)"
    p = extract(text, lambda s: coordinate_pair(s, given=given))
    assert p.ok and (p.value["lat"], p.value["lon"]) == (50.9, 7.6)


def test_single_angle_prefers_the_labelled_axis_and_hedges_two_values() -> None:
    assert single_angle("latitude 40.1, longitude -73.2", "lon").value == -73.2
    assert single_angle("-73.2 or -74.0", "lon").status == "hedged"


def test_decide_is_the_primitive() -> None:
    assert decide("x", [3, 3], what="n").value == 3
    hedged = decide("x", [1, 2], what="n")
    assert hedged.status == "hedged" and hedged.value == [1, 2] and not hedged.ok
    assert decide("x", [], what="n").status == "unparsed"


def test_free_replies_commit_to_the_last_statement_not_the_first_number() -> None:
    assert find_answer("Step 1: 12 km.\nStep 2: 40 km.\nSo the answer is 877 km.").text == "877 km."
    assert find_answer("We start at 12.5°. The bearing is 40.5°.").text == "The bearing is 40.5°."


@pytest.mark.parametrize("text", [
    "1" * 100_000,
    "FINAL ANSWER: " + "1" * 100_000 + " km",
    "FINAL ANSWER: " + "1 " * 50_000,
    "FINAL ANSWER: " + "1," * 50_000,
    "FINAL ANSWER: " + "40.1, " * 20_000,
    " " * 100_000 + "FINAL ANSWER:",
])
def test_huge_replies_get_a_status(text: str) -> None:
    """Speed is measured in benchmarks/bench_answers.py; here every extractor must return a status."""
    for find in (lambda s: quantity(s, "distance"), coordinate_pair, lambda s: option(s, OPTIONS), yes_no):
        assert extract(text, find).status in ("answered", "hedged", "unparsed", "refused")


def test_digit_runs_are_not_numbers() -> None:
    assert distance("FINAL ANSWER: " + "9" * LONG_NUMBER + " km").status == "unparsed"


@pytest.mark.parametrize(("segment", "labels"), [
    ("(34.5)", []),
    ("Paris (48.5, 2.3)", []),
    ("near (40.1, -3)", []),
    ("The point (12.5, 3) is option 2", [1]),
    ("Option 2 (34.5)", [1]),
    ("2) at (34.5)", [1]),
    ("1) Paris, 2) London", [0, 1]),
    ("(3)", [2]),
    ("(3.5)", []),
    ("2.5", []),
    ("3. Rome", [2]),
    ("1 or 3", [0, 2]),
])
def test_a_number_closing_a_bracket_is_not_an_option_label(segment: str, labels: list[int]) -> None:
    assert list(dict.fromkeys(option_labels(segment, 6, letters=False, numbers=True))) == labels


def test_an_exponent_beyond_float_range_is_inf_not_an_error() -> None:
    assert [n.value for n in numbers("0E310 5e400 1.5e3")] == [0.0, float("inf"), 1500.0]
