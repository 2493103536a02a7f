"""GTR answer parsing: letters beyond D, option text, camera ids, intervals, the prediction tasks' camera +
interval answers, hedges (never credited), refusals, placeholder echoes, and a fuzz that parsers never raise."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks import get_task
from tasks.gtr.parsing import free_segments, intervals
from tasks.gtr.prompts import LETTERS
from tasks.records import Message, Sample

NAMES = ("gtr.geo_location", "gtr.arrival_interval", "gtr.motion_state", "gtr.causal_reordering", "gtr.next_spot",
         "gtr.trajectory_forecast", "gtr.multi_target")
MCQ = NAMES[:4]
FORECAST = NAMES[4:]


@cache
def sample(name: str, i: int = 0) -> Sample:
    return get_task(name, size=6).generate(seed=21, size=6)[i]


def status_of(name: str, text: str, s: Sample | None = None) -> str:
    task = get_task(name)
    s = s or sample(name)
    parsed = task.parse(text, s)
    score = task.score(parsed, s)
    if parsed.status != "answered":
        assert not score.correct and score.value == 0.0 and score.status == parsed.status
    return parsed.status


def six_option_sample() -> Sample:
    """A motion-state-like item with six options, to read letters beyond D."""
    choices = ("heading N, speed 1.0 m/s, 10 m from C101", "heading S, speed 1.0 m/s, 10 m from C101",
               "heading E, speed 1.0 m/s, 10 m from C101", "heading W, speed 1.0 m/s, 10 m from C101",
               "heading NE, speed 1.0 m/s, 10 m from C101", "heading SW, speed 1.0 m/s, 10 m from C101")
    prompt = "?\nOptions:\n" + "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(choices)) + \
        "\n\nAnswer with the letter of the correct option: FINAL ANSWER: <letter>"
    return Sample(id="gtr.motion_state/test/00000", task="gtr.motion_state",
                  messages=(Message(role="user", content=prompt),), target={"index": 4, "letter": "E"},
                  choices=choices, payload={})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("E", 4), ("F", 5), ("(E)", 4), ("E.", 4), ("Option E", 4), ("option (F)", 5), ("The answer is E", 4),
        ("E) heading NE, speed 1.0 m/s, 10 m from C101", 4), ("heading NE, speed 1.0 m/s, 10 m from C101", 4),
    ],
)
def test_letters_beyond_d_and_option_text(answer: str, expected: int) -> None:
    s = six_option_sample()
    parsed = get_task("gtr.motion_state").parse(f"FINAL ANSWER: {answer}", s)
    assert parsed.ok and parsed.value == {"choice": expected}, parsed


@pytest.mark.parametrize(
    "answer",
    ["A or B", "A, B, C, D, E or F", "A B C D E F", "E or F", "B) heading NE, speed 1.0 m/s, 10 m from C101",
     "A. heading N, speed 1.0 m/s, 10 m from C101 B. heading S, speed 1.0 m/s, 10 m from C101"],
)
def test_several_options_are_hedged(answer: str) -> None:
    s = six_option_sample()
    assert get_task("gtr.motion_state").parse(f"FINAL ANSWER: {answer}", s).status == "hedged"


@pytest.mark.parametrize(("answer", "status"), [("G", "unparsed"), ("A guess would be hard here", "unparsed"),
                                                 ("<letter>", "unparsed"), ("I cannot tell.", "refused")])
def test_no_option(answer: str, status: str) -> None:
    s = six_option_sample()
    assert get_task("gtr.motion_state").parse(f"FINAL ANSWER: {answer}", s).status == status


def test_gold_written_plainly_scores_on_mcq_tasks() -> None:
    for name in MCQ:
        task, s = get_task(name), sample(name)
        gold = int(s.target["index"])
        for text in (f"FINAL ANSWER: {LETTERS[gold]}", f"FINAL ANSWER: {s.choices[gold]}",
                     f"Reasoning.\nFINAL ANSWER: {LETTERS[gold]}. {s.choices[gold]}"):
            score = task.score(task.parse(text, s), s)
            assert score.correct and score.value == 1.0, (name, text)
        echo = " ".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(s.choices))
        assert status_of(name, f"FINAL ANSWER: {echo}") == "hedged", name
        other = LETTERS[(gold + 1) % len(s.choices)]
        assert status_of(name, f"FINAL ANSWER: {LETTERS[gold]} or {other}") == "hedged", name


def test_bare_camera_ids_for_geo_location_with_or_without_the_ends() -> None:
    task = get_task("gtr.geo_location")
    s = sample("gtr.geo_location")
    gold = s.target["cameras"]
    for text in (", ".join(gold), " ".join([s.payload["start"], *gold, s.payload["end"]]), " -> ".join(gold)):
        parsed = task.parse(f"FINAL ANSWER: {text}", s)
        assert parsed.ok and parsed.value["choice"] == s.target["index"], text
    assert not task.parse("FINAL ANSWER: C000", s).ok
    other = next(o for o in s.payload["option_cameras"] if o != gold)
    assert status_of("gtr.geo_location", f"FINAL ANSWER: {' → '.join(gold)} or {' → '.join(other)}") == "hedged"
    wrong_letter = LETTERS[(s.target["index"] + 1) % len(s.choices)]
    assert status_of("gtr.geo_location", f"FINAL ANSWER: {wrong_letter}) {' → '.join(gold)}") == "hedged"


def test_bare_camera_ids_for_causal_reordering() -> None:
    task = get_task("gtr.causal_reordering")
    s = sample("gtr.causal_reordering")
    parsed = task.parse("FINAL ANSWER: " + ", ".join(s.target["order"]), s)
    assert parsed.ok and task.score(parsed, s).correct


def test_interval_answer_for_arrival_interval() -> None:
    task = get_task("gtr.arrival_interval")
    s = sample("gtr.arrival_interval")
    lo, hi = s.target["interval"]
    assert task.score(task.parse(f"FINAL ANSWER: from {lo} s to {hi} s", s), s).correct
    assert task.parse("FINAL ANSWER: from 1.0 s to 2.0 s", s).status == "unparsed"
    other = next(iv for iv in s.payload["option_intervals"] if iv != [lo, hi])
    assert status_of("gtr.arrival_interval", f"FINAL ANSWER: [{lo}, {hi}] or [{other[0]}, {other[1]}]") == "hedged"


def gold_text(s: Sample, letter: bool = True) -> str:
    segs = "; ".join(f"{c} [{iv[0]}, {iv[1]}]" for c, iv in s.target["segments"])
    return f"{s.target['letter']}; {segs}" if letter else segs


@pytest.mark.parametrize("name", FORECAST)
def test_forecast_gold_scores_one_with_or_without_the_letter(name: str) -> None:
    task, s = get_task(name), sample(name)
    for text in (gold_text(s), gold_text(s, letter=False), f"{s.target['letter']}. " + gold_text(s, letter=False)):
        score = task.score(task.parse(f"Done.\nFINAL ANSWER: {text}", s), s)
        assert score.correct and score.value == 1.0, (text, score)
        assert "mcq_correct=True" in score.explanation and "st_iou=1.000" in score.explanation


@pytest.mark.parametrize("name", FORECAST)
def test_forecast_camera_without_interval_counts_for_mcq_only(name: str) -> None:
    task, s = get_task(name), sample(name)
    for text in (s.target["letter"], " → ".join(s.target["cameras"])):
        score = task.score(task.parse(f"FINAL ANSWER: {text}", s), s)
        assert score.status == "answered" and score.correct and score.value == 0.0, text


@pytest.mark.parametrize("name", FORECAST)
def test_forecast_huge_interval_earns_almost_nothing(name: str) -> None:
    task, s = get_task(name), sample(name)
    segs = "; ".join(f"{c} [0, 100000]" for c in s.target["cameras"])
    score = task.score(task.parse(f"FINAL ANSWER: {s.target['letter']}; {segs}", s), s)
    assert score.correct and score.value < 0.001


def test_forecast_letter_with_bare_intervals_and_partial_overlap() -> None:
    task, s = get_task("gtr.next_spot"), sample("gtr.next_spot")
    (cam, (a, b)), = s.target["segments"]
    score = task.score(task.parse(f"FINAL ANSWER: {s.target['letter']} [{a}, {b}]", s), s)
    assert score.value == 1.0
    w = b - a
    score = task.score(task.parse(f"FINAL ANSWER: {cam} [{a + w / 2:.2f}, {b + w / 2:.2f}]", s), s)
    assert score.correct and score.value == pytest.approx(1 / 3, abs=0.01)
    assert score.error == pytest.approx(w / 2, abs=0.01)


@pytest.mark.parametrize("name", FORECAST)
def test_forecast_hedges(name: str) -> None:
    s = sample(name)
    gold_i = int(s.target["index"])
    other_i = (gold_i + 1) % len(s.choices)
    cams = s.target["cameras"]
    (c0, (a, b)) = s.target["segments"][0]
    for text in (f"{LETTERS[gold_i]} or {LETTERS[other_i]}", f"{LETTERS[gold_i]}, {LETTERS[other_i]}",
                 " ".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(s.choices)),
                 f"{c0} [{a}, {b}] or [{a + 5}, {b + 5}]", f"{c0} [{a}, {b}]; {c0} [{a + 5}, {b + 5}]",
                 f"{LETTERS[gold_i]}; {' → '.join(s.payload['option_cameras'][other_i])}",
                 f"{LETTERS[gold_i]}; {gold_text(s, letter=False)}, maybe later"):
        assert status_of(name, f"FINAL ANSWER: {text}") == "hedged", text
    if len(cams) == 1:
        other = s.payload["option_cameras"][other_i][0]
        assert status_of(name, f"FINAL ANSWER: {c0} [{a}, {b}], {other} [{a}, {b}]") == "hedged"


@pytest.mark.parametrize("name", FORECAST)
def test_forecast_non_answers(name: str) -> None:
    assert status_of(name, "FINAL ANSWER: <letter>; <camera> [<from>, <to>]") == "unparsed"
    assert status_of(name, "I cannot determine where the target goes.") == "refused"
    assert status_of(name, "FINAL ANSWER: somewhere in the north") == "unparsed"


def test_free_segments_and_intervals_reader() -> None:
    assert free_segments("C482 [170.4, 178.5]; c937 from 220.1 s to 228.0 s, then C100") == [
        ("C482", (170.4, 178.5)), ("C937", (220.1, 228.0)), ("C100", None)]
    assert free_segments("C482: 170.4-178.5") == [("C482", (170.4, 178.5))]
    assert free_segments("C482 → C937 [220.1, 228.0]") == [("C482", None), ("C937", (220.1, 228.0))]
    assert free_segments("nothing here") == []
    assert intervals("C482 [170.4, 178.5] and from 1 s to 2 s") == [(170.4, 178.5), (1.0, 2.0)]


@pytest.mark.parametrize("name", NAMES)
def test_no_answer_is_a_recorded_parse_failure(name: str) -> None:
    task = get_task(name)
    s = sample(name)
    text = "This is long and I lack what I need to tell, so here is some text without any option in it at all."
    parsed = task.parse(text, s)
    assert not parsed.ok and parsed.raw == text and parsed.reason
    score = task.score(parsed, s)
    assert score.parse_failed and score.value == 0.0 and not score.correct


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200), st.sampled_from(NAMES))
def test_parse_and_score_never_raise(text: str, name: str) -> None:
    task = get_task(name)
    s = sample(name)
    for t in (text, f"FINAL ANSWER: {text}"):
        score = task.score(task.parse(t, s), s)
        assert 0.0 <= score.value <= 1.0
