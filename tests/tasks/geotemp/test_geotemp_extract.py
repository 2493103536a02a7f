"""The GeoTemp answer extractor and judge: notations, the concluding time, day binding, agreement with labels."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.geotemp.agreement import judge_row, load_labelled, report
from tasks.geotemp.extract import TimeAnswer, extract_time_answer
from tasks.geotemp.judge import judge_time
from tasks.records import Parsed


def ans(text: str, **kw: bool | str) -> TimeAnswer:
    found = extract_time_answer(text, **kw)
    assert found.answer is not None, found.reason
    return found.answer


@pytest.mark.parametrize(
    ("text", "hm"),
    [
        ("10:34 AM", (10, 34)), ("10:34 pm", (22, 34)), ("It is 10.34 p.m. there", (22, 34)),
        ("22:34", (22, 34)), ("22h34", (22, 34)), ("10:34:00", (10, 34)), ("7 PM", (19, 0)), ("7pm", (19, 0)),
        ("12:05 AM", (0, 5)), ("12:05 PM", (12, 5)), ("00:34 AM", (0, 34)), ("13:52 PM", (13, 52)),
        ("1949 hours", (19, 49)), ("It will be noon.", (12, 0)), ("It will be midnight", (0, 0)),
        ("12 noon", (12, 0)), ("12:00 midnight", (0, 0)), ("7:15 in the evening", (19, 15)),
        ("9:05 in the morning", (9, 5)), ("10:34\u202fAM", (10, 34)), ("**10:34 AM**", (10, 34)),
        ("It is 11:00 hrs on Monday", (11, 0)), ("10:34 AM CEST", (10, 34)),
    ],
)
def test_clock_notations(text: str, hm: tuple[int, int]) -> None:
    a = ans(text)
    assert (a.hour, a.minute) == hm


@pytest.mark.parametrize(
    ("text", "hm"),
    [
        ("Current time: 02:32 PM. 02:32 PM + 7 hours = 09:32 PM", (21, 32)),  # operand skipped
        ("It will be 11:47 PM in Tbilisi, 4 hours from 07:47 PM in Rothera.", (23, 47)),  # reference skipped
        ("The time in Paris is 10:34 AM (08:34 UTC).", (10, 34)),
        ("It is 08:34 UTC, which is 10:34 AM in Paris.", (10, 34)),
        ("The time difference is 5:30 hours, so it is 4:15 PM.", (16, 15)),
        ("UTC+05:30 applies; the local time is 3:10 PM.", (15, 10)),
        ("In Athens: 03:42 (UTC 01:42).", (3, 42)),  # a UTC restatement is no second candidate
        ("FINAL ANSWER: 03:42 AM, Tuesday, March 7, 2023 (01:42 UTC)", (3, 42)),
        ("Since it's 11:00 AM in Oslo, it is 7:00 PM in Tokyo.", (19, 0)),
    ],
)
def test_the_concluding_time_is_chosen(text: str, hm: tuple[int, int]) -> None:
    a = ans(text)
    assert (a.hour, a.minute) == hm


def test_a_time_placed_at_another_city_is_no_alternative() -> None:
    a = ans("So it's 01:56 PM. (If you meant Ponta Delgada time instead, it would be 03:56 PM.)",
            place="Lisbon, Portugal")
    assert (a.hour, a.minute) == (13, 56)
    b = ans("In Athens it is 03:42 AM (01:42 AM in London).", place="Athens, Greece")
    assert (b.hour, b.minute) == (3, 42)


@pytest.mark.parametrize(
    ("text", "hm"),
    [
        ("It will be eleven eleven at night.", (23, 11)), ("7 o'clock in the morning", (7, 0)),
        ("It is half past seven.", (7, 30)), ("half past seven in the evening", (19, 30)),
        ("It is a quarter to one.", (12, 45)), ("ten past nine PM", (21, 10)), ("It is seven thirty.", (7, 30)),
        ("FINAL ANSWER: seven thirty PM, Monday", (19, 30)), ("It's twenty-five to six in the evening", (17, 35)),
        ("The answer is eleven o'clock.", (11, 0)), ("noon", (12, 0)), ("FINAL ANSWER: midnight", (0, 0)),
        ("six oh five AM", (6, 5)),
    ],
)
def test_word_times(text: str, hm: tuple[int, int]) -> None:
    a = ans(text)
    assert (a.hour, a.minute) == hm


@pytest.mark.parametrize(
    "text",
    ["It takes seven hours to get there.", "one of the two cities", "Add five hours and thirty minutes.",
     "We cross midnight on the way."],
)
def test_number_words_that_are_not_times(text: str) -> None:
    assert extract_time_answer(text).answer is None


@pytest.mark.parametrize(
    "text",
    [
        "03:42 AM, 04:42 AM or 05:42 AM", "FINAL ANSWER: 03:42 AM, 04:42 AM or 05:42 AM",
        "FINAL ANSWER: 03:42 AM (or 04:42 AM if DST applies)", "It is 03:42 AM (or 04:42 AM if DST applies).",
        "Either 03:42 AM or 04:42 AM, depending on DST.", "FINAL ANSWER: between 03:00 AM and 04:00 AM",
        "FINAL ANSWER: 03:42-04:42 AM", "FINAL ANSWER: 10:00 AM - 11:00 AM", "FINAL ANSWER: 10:00 AM to 11:00 AM",
        "FINAL ANSWER: 03:42 AM EET or 04:42 AM EEST", "FINAL ANSWER: 03:42 AM, 04:42 AM",
        "FINAL ANSWER: 12:00 PM (or 01:00 PM if Greece is on summer time)",
        "FINAL ANSWER: 08:45 PM, Tuesday, March 7, 2023; 09:45 PM, Tuesday, March 7, 2023",
    ],
)
def test_several_candidate_times_are_hedged(text: str) -> None:
    found = extract_time_answer(text, place="Athens, Greece")
    assert found.answer is None and found.status == "hedged", found
    parsed = found.parsed(text)
    assert parsed.status == "hedged" and not parsed.ok


def test_the_same_time_twice_is_one_answer() -> None:
    assert ans("FINAL ANSWER: 10:34 PM (22:34)").hour == 22
    assert ans("It is 10:34 PM, or 22:34 in 24-hour time.").hour == 22


def test_refusal_and_unparsed_statuses() -> None:
    assert extract_time_answer("I cannot know the current time in Athens.").status == "refused"
    assert extract_time_answer("FINAL ANSWER: Unknown").status == "refused"
    assert extract_time_answer("Athens is a lovely city.").status == "unparsed"
    assert extract_time_answer("FINAL ANSWER: 10:34 AM").status == "answered"


def test_a_long_reply_parses_fast() -> None:
    import time
    text = "1" * 100_000 + "\nFINAL ANSWER: 10:34 AM"
    start = time.perf_counter()
    found = extract_time_answer(text)
    assert time.perf_counter() - start < 0.05
    assert found.answer is not None and found.answer.hour == 10


def test_utc_time_is_kept_when_the_asked_zone_is_utc() -> None:
    assert (ans("It is 3:00 PM in Lisbon, that is 14:00 GMT.", utc_target=True).hour) == 14
    assert (ans("It is 3:00 PM in Lisbon, that is 14:00 GMT.").hour) == 15


def test_final_answer_line_wins_and_falls_back_to_text() -> None:
    a = ans("Steps: 08:00 AM + 2 h = 10:00 AM ... wait, DST.\nFINAL ANSWER: 11:00 AM, Monday, June 19, 2023")
    assert (a.hour, a.dates, a.weekday, a.source) == (11, ((2023, 6, 19),), 0, "final_answer")
    b = ans("FINAL ANSWER: hh:mm AM/PM, Weekday, Month Day, Year\nFINAL ANSWER: 09:15 PM, Friday, May 5, 2023")
    assert (b.hour, b.minute) == (21, 15)
    c = ans("It will be 6:40 AM tomorrow.\nFINAL ANSWER: see above")
    assert (c.hour, c.day_shift, c.source) == (6, 1, "text")
    d = ans("FINAL ANSWER:\n10:34 AM on Monday, June 19th, 2023")
    assert (d.hour, d.dates[0][1:]) == (10, (6, 19))


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("10:34 AM on June 19th, 2023", ((2023, 6, 19),)),
        ("Monday, June 19, 10:34 AM", ((None, 6, 19),)),
        ("10:34 on 19 June 2023", ((2023, 6, 19),)),
        ("10:34 AM, the 19th of June", ((None, 6, 19),)),
        ("2023-06-19 10:34", ((2023, 6, 19),)),
        ("10:34 on 19.06.2023", ((2023, 6, 19),)),
        ("10:34 AM on 06/19/2023", ((2023, 6, 19),)),
        ("10:34 AM on 06/07/2023", ((2023, 6, 7), (2023, 7, 6))),
        ("Sep. 3rd at 10:34 AM", ((None, 9, 3),)),
        ("June 18th at 09:34 PM in 2023", ((None, 6, 18),)),
    ],
)
def test_dates_beside_the_time(text: str, dates: tuple[tuple[int | None, int, int], ...]) -> None:
    assert ans(text).dates == dates


def test_day_information_binds_to_the_answer_sentence() -> None:
    a = ans("Today is Monday, June 19th in Lima. In Tokyo it will be 03:00 AM the next day.")
    assert a.dates == () and a.day_shift == 1 and a.weekday is None
    b = ans("It is 10:00 PM on Friday, June 23rd in Chicago. So in Berlin it is 05:00 AM on Saturday, June 24th.")
    assert b.dates == ((None, 6, 24),) and b.weekday == 5
    c = ans("The answer is 07:10 AM.\nDate: Wednesday, December 20, 2023")
    assert c.dates == ((2023, 12, 20),)
    d = ans("You may 5 times check: it is 10:00 AM.")
    assert d.dates == ()


@pytest.mark.parametrize(
    "text",
    ["", "   ", "I cannot know the current time.", "It is 3 hours ahead.", ":04 PM on Thursday",
     "It could be 3:00 PM or 4:00 PM.", "FINAL ANSWER: 10:00 AM or 11:00 AM", "UTC+5:30"],
)
def test_no_single_answer_is_a_failure_with_a_reason(text: str) -> None:
    found = extract_time_answer(text)
    assert found.answer is None and found.reason


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_never_raises_on_random_text(text: str) -> None:
    found = extract_time_answer(text)
    if found.answer is not None:
        assert 0 <= found.answer.hour <= 23 and 0 <= found.answer.minute <= 59


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["10:34", " AM", " PM", " on", " June", " 19th", ",", " 2023", " UTC", "+", "-",
                                 " 5", " hours", "(", ")", " FINAL ANSWER:", "\n", " noon", " midnight", ".", "/",
                                 "12", " or", " next day", " Monday", " from", " is", " 0", "3"]), max_size=30))
def test_never_raises_on_time_like_text(parts: list[str]) -> None:
    found = extract_time_answer("".join(parts))
    assert found.answer is not None or found.reason


def _judge(text: str, gold: str, start: str) -> bool:
    found = extract_time_answer(text)
    parsed = (Parsed.success(text, found.answer.model_dump()) if found.answer else Parsed.failure(text, found.reason))
    return judge_time(parsed, {"datetime": gold}, start).correct


def test_judge_day_rules() -> None:
    gold, start = "2023-06-20T03:00", "2023-06-19T20:00"
    assert _judge("03:00 AM", gold, start)  # no day stated: time decides
    assert _judge("03:00 AM on June 20th", gold, start)
    assert not _judge("03:00 AM on June 19th", gold, start)
    assert not _judge("03:00 AM on June 20th, 2024", gold, start)
    assert _judge("03:00 AM the next day", gold, start)
    assert not _judge("03:00 AM the same day", gold, start)
    assert _judge("Tuesday at 03:00 AM", gold, start)
    assert not _judge("Monday at 03:00 AM", gold, start)
    assert _judge("Monday, June 20th at 03:00 AM", gold, start)  # wrong weekday beside the right date tolerated
    assert not _judge("03:00 PM on June 20th", gold, start)
    assert not _judge("3:00 on June 20th", "2023-06-20T15:00", start)  # no AM/PM: read as 24-hour


def test_judge_error_minutes() -> None:
    found = extract_time_answer("04:10 AM on June 21st")
    parsed = Parsed.success("x", found.answer.model_dump())
    score = judge_time(parsed, {"datetime": "2023-06-20T03:00"}, "2023-06-19T20:00")
    assert not score.correct and score.error == 24 * 60 + 70 and score.error_unit == "minutes"
    clock_only = judge_time(Parsed.success("x", ans("11:30 PM").model_dump()), {"datetime": "2023-06-20T00:30"},
                            "2023-06-19T20:00")
    assert clock_only.error == 60.0
    failed = judge_time(Parsed.failure("x", "none"), {"datetime": "2023-06-20T00:30"}, "2023-06-19T20:00")
    assert failed.parse_failed and not failed.correct


def test_labelled_set_is_large_varied_and_agrees_with_the_extractor() -> None:
    rows = load_labelled()
    assert len(rows) >= 300
    assert len({r["id"] for r in rows}) == len(rows)
    assert {r["task"] for r in rows} == {"verification", "time_time", "time_place", "time_time_place"}
    sources = {r["source"].split(":")[0] for r in rows}
    assert sources == {"handwritten", "paper", "model"}
    positives = sum(bool(r["label"]) for r in rows)
    assert 0.3 < positives / len(rows) < 0.8
    verdicts = [judge_row(r) for r in rows]
    agreement = sum(v.agrees for v in verdicts) / len(verdicts)
    assert agreement >= 0.99, report(verdicts)


TIME_TASKS = ("geotemp.verification", "geotemp.time_time", "geotemp.time_place", "geotemp.time_time_place",
              "geotemp.time_time_place.inject_tz", "geotemp.time_time_place.replace_city")


@pytest.mark.parametrize("name", TIME_TASKS)
def test_gold_scores_and_hedges_never_do_on_every_time_task(name: str) -> None:
    from datetime import datetime

    from tasks import get_task

    task = get_task(name, size=20)
    for s in task.generate(seed=3, size=20):
        gold = datetime.fromisoformat(s.target["datetime"])
        plain = f"FINAL ANSWER: {gold:%I:%M %p}, {gold:%A}, {gold:%B} {gold.day}, {gold.year}"
        assert task.score(task.parse(plain, s), s).correct, plain
        later = f"{(gold.hour + 1) % 24:02d}:{gold.minute:02d}"
        dense = ", ".join(f"{h:02d}:{gold.minute:02d}" for h in range(24))
        for reply in (f"FINAL ANSWER: {gold:%H:%M} or {later}", f"FINAL ANSWER: {gold:%H:%M} (or {later} with DST)",
                      dense, f"FINAL ANSWER: {dense}", f"It is between {gold:%H:%M} and {later}."):
            score = task.score(task.parse(reply, s), s)
            assert score.status == "hedged" and not score.correct and score.value == 0.0, reply
