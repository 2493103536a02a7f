"""The reading principles of the scoring policy (docs/scoring.md), each tested on several forms written from the
principle, not from one string: no guessing from the last line, an uncommitted alternative is a hedge, a labelled
correction replaces the answer, option spellings, a coordinate notation fixes its axis order, a number's locale
and scale are read from its form, ISO 8601 offsets, answer labels in other languages, and place records in JSON."""

from __future__ import annotations

import pytest

from tasks import get_task
from tasks.answers import coordinate_pair, extract, option, quantity
from tasks.geotemp.extract import extract_time_answer

ALIASES = [["Paris"], ["London"], ["Berlin"], ["Rome"]]


def read_option(text: str) -> tuple[str, int | None]:
    got = extract(text, lambda seg: option(seg, ALIASES))
    return got.status, got.value if got.ok else None


# ----------------------------------------------------------------------------- no guessing

@pytest.mark.parametrize("text", [
    # the answer first, then working that ends on another option
    "**C**\n\nI went through each city in turn.\nMy first thought was A, since the map was unclear.",
    # a last line that asks instead of stating
    "I compared the four cities at length.\nCould it be Berlin?",
    # a last line that assumes
    "The question is about capitals.\nAssuming the map is current, Rome fits as well.",
])
def test_a_last_line_that_commits_to_nothing_is_unlocated_never_guessed(text: str) -> None:
    status, value = read_option(text)
    assert (status, value) == ("unlocated", None)


@pytest.mark.parametrize(("text", "expected"), [
    ("C", 2),  # a reply that is only the answer
    ("I weighed the four cities.\n**C**", 2),  # a last line that is only the answer
    ("I weighed the four cities.\nThe city on the Seine is Paris.", 0),  # a stating sentence
    ("Some working.\nTherefore, the answer is D.", 3),  # a committing cue
    # a committed option in bold mid-paragraph, then a sentence that rejects the other options (the options it
    # names are no alternatives: the bold answer stands; it was read "unlocated" before the rejection principle)
    ("Looking at the map, **B) London** is my pick.\nOptions A, C and D are ruled out because they are inland.", 1),
])
def test_a_reply_that_commits_is_read(text: str, expected: int) -> None:
    assert read_option(text) == ("answered", expected)


# ----------------------------------------------------------------------------- hedges and corrections

@pytest.mark.parametrize("text", [
    "FINAL ANSWER: C (low confidence, could easily be D)",
    "FINAL ANSWER: C\nLow confidence: it could easily be D.",
    "FINAL ANSWER: somewhere between options C and D",
    "FINAL ANSWER: C\nmaybe it's D?",
    "FINAL ANSWER: C\n*Edit:* D",
    "FINAL ANSWER: C, though I'm torn between C and D",
    "FINAL ANSWER: C, give or take",
])
def test_an_answer_followed_by_an_uncommitted_alternative_is_a_hedge(text: str) -> None:
    assert read_option(text)[0] == "hedged"


@pytest.mark.parametrize("text", [
    "FINAL ANSWER: 3:42 PM, plus or minus an hour",
    "FINAL ANSWER: 15:42\n(give or take an hour)",
    "The local time in Paris is 3:42 PM, give or take an hour.",
    "FINAL ANSWER: 15:42 (I'm not sure of the daylight-saving rule)",
])
def test_a_time_left_open_is_a_hedge(text: str) -> None:
    assert extract_time_answer(text).status == "hedged"


@pytest.mark.parametrize(("text", "expected"), [
    ("**Answer:** A\n\nWait, I misread the map.\n\n**Corrected answer:** C", 2),
    ("FINAL ANSWER: B\nOn reflection the river rules it out.\nRevised answer: D", 3),
    ("Answer: D\nCorrection: A", 0),
    ("**Corrected answer:** B\nFINAL ANSWER: C", 2),  # a FINAL ANSWER after the correction is the last word
])
def test_a_labelled_correction_replaces_the_answer(text: str, expected: int) -> None:
    assert read_option(text) == ("answered", expected)


# ----------------------------------------------------------------------------- option spellings

@pytest.mark.parametrize(("text", "expected"), [
    ("FINAL ANSWER: c", 2),
    ("FINAL ANSWER: (d)", 3),
    ("FINAL ANSWER: Option (b)", 1),
    ("FINAL ANSWER: option b", 1),
    ("C is correct.", 2),
    ("B is the right answer", 1),
    ("FINAL ANSWER: → C", 2),
    ("FINAL ANSWER: => A", 0),
    ("FINAL ANSWER: Option #2", 1),
    ("FINAL ANSWER: choice no. 4", 3),
    ("FINAL ANSWER: C<|return|>", 2),
    ("D<|end|>", 3),
])
def test_option_spellings(text: str, expected: int) -> None:
    assert read_option(text) == ("answered", expected)


def test_a_lower_case_word_is_no_option() -> None:
    assert read_option("FINAL ANSWER: a guess")[0] == "unparsed"


# ----------------------------------------------------------------------------- notations

@pytest.mark.parametrize(("text", "lat", "lon"), [
    ("FINAL ANSWER: POINT(104.3 52.3)", 52.3, 104.3),  # WKT: lon lat
    ("FINAL ANSWER: POINT (-73.9 40.7)", 40.7, -73.9),
    ('FINAL ANSWER: {"type": "Point", "coordinates": [104.3, 52.3]}', 52.3, 104.3),  # GeoJSON: [lon, lat]
    ('{"type": "Point", "coordinates": [-73.9, 40.7, 10]}', 40.7, -73.9),
    ("FINAL ANSWER: 52.3, 104.3", 52.3, 104.3),  # plain: the asked order (lat, lon)
])
def test_a_coordinate_notation_fixes_its_axis_order(text: str, lat: float, lon: float) -> None:
    got = extract(text, coordinate_pair)
    assert got.ok and (got.answer["lat"], got.answer["lon"]) == (lat, lon)


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("FINAL ANSWER: 5.54k km", "distance", 5540.0),
    ("FINAL ANSWER: 5.54 ×10³ km", "distance", 5540.0),
    ("FINAL ANSWER: 5.54 x 10^3 km", "distance", 5540.0),
    ("FINAL ANSWER: 2.424e+06 m", "distance", 2424.0),
    ("FINAL ANSWER: 320,3°", "angle", 320.3),  # a decimal comma: one or two digits after it, then the unit
    ("FINAL ANSWER: 12,75 km", "distance", 12.75),
    ("FINAL ANSWER: 1,234 km", "distance", 1234.0),  # three digits: a thousands group
    ("FINAL ANSWER: 1.234,5 km", "distance", 1234.5),
])
def test_a_numbers_scale_and_locale_are_read_from_its_form(text: str, kind: str, value: float) -> None:
    got = extract(text, lambda seg: quantity(seg, kind))
    assert got.ok and got.answer == pytest.approx(value)


@pytest.mark.parametrize(("text", "hour", "minute"), [
    ("FINAL ANSWER: 2023-06-19T14:30:00-05:00", 14, 30),
    ("FINAL ANSWER: 2023-06-19T09:05-03:30", 9, 5),
    ("The local time is 2023-06-19T14:30+02:00.", 14, 30),
    ("FINAL ANSWER: 14:30:00-05:00", 14, 30),
])
def test_an_iso_time_with_an_offset_is_one_time_not_a_range(text: str, hour: int, minute: int) -> None:
    got = extract_time_answer(text)
    assert got.answer is not None and (got.answer.hour, got.answer.minute) == (hour, minute)


def test_a_clock_range_stays_a_range() -> None:
    assert extract_time_answer("FINAL ANSWER: 14:30-15:30").status == "hedged"


@pytest.mark.parametrize("text", ["Réponse finale : C", "Antwort: C", "Endgültige Antwort: C", "Respuesta: C",
                                  "Respuesta final: C", "答案：C", "最终答案: C", "Risposta finale: C"])
def test_answer_labels_in_other_languages(text: str) -> None:
    assert read_option("Some working first.\n" + text) == ("answered", 2)


# ----------------------------------------------------------------------------- the tools condition's JSON

@pytest.mark.parametrize(("reply", "credited"), [
    ('{"name": "Irkutsk", "country": "Russia", "lat": 52.29, "lon": 104.29}', True),
    ('The nearest city is:\n{"city": "Irkutsk", "admin1": "Irkutsk Oblast", "country": "Russia"}', True),
    ('{"name": "Moscow", "country": "Russia"}', False),
    ("FINAL ANSWER: Irkutsk, Russia", True),
])
def test_a_place_record_in_json_reads_like_its_answer_line(reply: str, credited: bool) -> None:
    task = get_task("gpsbench.place_association")
    sample = next(s for s in task.samples(split="test", limit=20) if s.target["name"] == "Irkutsk")
    parsed = task.parse(reply, sample)
    assert parsed.status == "answered" and task.score(parsed, sample).correct is credited


# ----------------------------------------------------------------------------- GTR intervals in any notation

@pytest.mark.parametrize("form", [
    "FINAL ANSWER: {letter}; {cam} from t = {a} to t = {b}",
    "FINAL ANSWER: {letter}; {cam} from t={a} s to t={b} s",
    'FINAL ANSWER: {{"option": "{letter}", "camera": "{cam}", "interval": [{a}, {b}]}}',
    '{{"answer": "{letter}", "camera": "{cam}", "from": {a}, "to": {b}}}',
    "FINAL ANSWER: {letter}\n\n| camera | from (s) | to (s) |\n|---|---|---|\n| {cam} | {a} | {b} |",
])
def test_a_gtr_interval_is_read_in_any_notation(form: str) -> None:
    task = get_task("gtr.multi_target")
    sample = task.samples(split="test", limit=1)[0]
    (cam, (a, b)), letter = sample.target["segments"][0], sample.target["letter"]
    parsed = task.parse(form.format(letter=letter, cam=cam, a=a, b=b), sample)
    score = task.score(parsed, sample)
    assert parsed.status == "answered" and score.correct and score.value == pytest.approx(1.0)
