"""The reply preparation every family reads (tasks.answers.reply) and the family fixes of issue 26: reasoning
blocks taken apart, LaTeX/markdown/JSON unwrapped, thousands separators, committing labels, later-line hedges,
place association within the answer's country, the UTM zone, tz_probe's final answer. Expected values are
written by hand from what each reply says."""

from __future__ import annotations

import pytest

from tasks.answers import prepare, quantity, split_reasoning, unify_numbers, unlatex
from tasks.answers.decide import extract
from tasks.gpsbench.parsing import parse_projected
from tests.tasks.adversarial import kit_for, runner_score, task_for, task_samples


@pytest.mark.parametrize(("reply", "reasoning", "answer"), [
    ("<think>maybe B</think>\nFINAL ANSWER: C", "maybe B", "\nFINAL ANSWER: C"),
    ("<reasoning>a</reasoning>x<thinking>b</thinking>y", "a\nb", "xy"),
    ("Okay so A? </think>\n\nC", "Okay so A?", "\n\nC"),
    ("<think>never closed, FINAL ANSWER: A", "never closed, FINAL ANSWER: A", ""),
    ("no reasoning here", "", "no reasoning here"),
])
def test_split_reasoning(reply: str, reasoning: str, answer: str) -> None:
    assert split_reasoning(reply) == (reasoning, answer)


def test_split_reasoning_puts_provider_reasoning_first() -> None:
    assert split_reasoning("<think>b</think>C", "a") == ("a\nb", "C")


@pytest.mark.parametrize(("latex", "plain"), [
    (r"$\boxed{2{,}424\,\text{km}}$", "2424 km"),
    (r"3{,}5", "3,5"),  # a decimal comma in European LaTeX stays as written
    (r"\(45^\circ\)", "45°"),
    (r"\[ \boxed{\text{B}} \]", "B"),
    (r"\approx 12.5^{\circ}", "≈ 12.5°"),
])
def test_unlatex(latex: str, plain: str) -> None:
    assert " ".join(unlatex(latex).split()) == plain


@pytest.mark.parametrize(("written", "read"), [
    ("1.234,5 km", "1234.5 km"), ("1 234,5 km", "1234.5 km"), ("1'234 km", "1234 km"), ("1.234.567 m", "1234567 m"),
    ("(40.712, 74.006)", "(40.712, 74.006)"), ("1.234 km", "1.234 km"), ("40°42'46\"N", "40°42'46\"N"),
])
def test_thousands_separators(written: str, read: str) -> None:
    assert unify_numbers(written) == read


def _km(reply: str) -> float | str:
    parsed = extract(reply, lambda seg: quantity(seg, "distance"))
    return float(parsed.answer) if parsed.ok else str(parsed.status)


@pytest.mark.parametrize(("reply", "value"), [
    ("Final answer - 42.3 km", 42.3),
    ("Final answer - 42.3", 42.3),  # a dash after the label is no minus sign
    ("Final answer: -42.3", -42.3),  # a minus after the colon is one
    ("Some work: 10 km first.\n\n## Answer\n42.3 km\n\nLet me know if you need anything else!", 42.3),
    ('```json\n{"answer": "42.3 km", "confidence": 0.9}\n```', 42.3),
    ("So the distance is about 10 km.\n\n**Answer:** 42.3 km", 42.3),
    ("<think>FINAL ANSWER: 10 km</think>\nFINAL ANSWER: 42.3 km", 42.3),
    ("The final answer is: $\\boxed{1{,}242.3\\,\\text{km}}$", 1242.3),
    ("FINAL ANSWER: 42.3 km\nSecond choice: 50 km", "hedged"),
    ("FINAL ANSWER: 42.3 km, or perhaps fifty km", "hedged"),
    ("FINAL ANSWER: 42.3 km, which I believe is wrong.", "hedged"),
    ('{"answer": "42.3 km", "alternative": "50 km"}', "hedged"),
    ("**Answer:** 42.3 km\n\n**Alternative answer:** 50 km", "hedged"),
    ("FINAL ANSWER: 42.3 km\n\n### Another possibility\n50 km", "hedged"),
    ("FINAL ANSWER: 42.3 km\nThis is 26.3 miles.", 42.3),
    ("<think>still thinking", "unparsed"),
])
def test_committed_answer_and_later_hedges(reply: str, value: float | str) -> None:
    got = _km(reply)
    if isinstance(value, str):
        assert got == value, (reply, got)
    else:
        assert isinstance(got, float) and abs(got - value) < 1e-6, (reply, got)


def test_prepare_keeps_a_plain_reply() -> None:
    assert prepare("FINAL ANSWER: 3") == "FINAL ANSWER: 3"


def test_completion_second_line_that_changes_the_answer_is_a_hedge() -> None:
    name = "stbench.direction.completion"
    sample = task_samples(name)[0]
    k = kit_for(sample)
    task = task_for(name)
    assert runner_score(task, sample, f"{k.gold}\nBecause the data shows it.")[1].value == 1.0
    assert runner_score(task, sample, f"<think>maybe {k.wrong}</think>\n{k.gold}")[1].value == 1.0
    assert runner_score(task, sample, f"{k.gold}\nActually, {k.wrong}.")[0].status == "hedged"


def test_admin1_credit_stays_within_the_answers_country() -> None:
    name = "gpsbench.place_association.admin1"
    task = task_for(name)
    sample = task_samples(name)[0]
    t = sample.target
    other = "France" if t["country"] != "France" else "Japan"
    assert runner_score(task, sample, f"FINAL ANSWER: {t['name']}, {t['admin1_name']}, {t['country']}")[1].value == 1
    parsed, score = runner_score(task, sample, f"FINAL ANSWER: {t['name']}, {other}")
    assert parsed.status == "answered" and score.value == 0.0


def test_place_labels_and_lead_ins_are_stripped() -> None:
    name = "gpsbench.place_association"
    task = task_for(name)
    sample = task_samples(name)[0]
    t = sample.target
    for reply in (f"FINAL ANSWER: City: {t['name']}, Region: {t['admin1_name']}, Country: {t['country']}",
                  f"FINAL ANSWER: The nearest city is {t['name']}, {t['country']}"):
        assert runner_score(task, sample, reply)[1].value == 1.0, reply
    assert runner_score(task, sample, f"FINAL ANSWER: {t['name']}, {t['country']}\nThis is likely correct.")[1].value == 1
    assert runner_score(task, sample, f"FINAL ANSWER: {t['name']}, {t['country']}\nIt could also be Lyon, France."
                        )[0].status == "hedged"


def test_utm_zone_is_no_northing() -> None:
    parsed = parse_projected("UTM 33T 500000 mE 4649776 mN", "utm")
    assert parsed.ok and parsed.answer["zone"] == 33 and parsed.answer["second"] == 4649776


def test_tz_probe_reads_the_final_answer_not_a_quoted_restatement() -> None:
    name = "geotemp.tz_probe"
    task = task_for(name)
    sample = task_samples(name)[0]
    k = kit_for(sample)
    city = k.gold.split(":")[0]
    reply = f'You asked for the form "{k.wrong}".\n\n**Answer:** {k.gold}'
    assert runner_score(task, sample, reply)[1].value == 1.0
    assert runner_score(task, sample, f"FINAL ANSWER: {k.gold}\nAlternatively {k.wrong} in summer.")[0].status == "hedged"
    assert city


@pytest.mark.parametrize("form", [
    "FINAL ANSWER: {g}, or {alt} if DST applies",
    "FINAL ANSWER: {g}\n(One hour later if daylight saving time is in effect.)",
    "FINAL ANSWER: {g}\n\nAlternative answer: {alt}",
])
def test_geotemp_conditional_alternatives_are_hedges(form: str) -> None:
    name = "geotemp.time_place"
    task = task_for(name)
    sample = task_samples(name)[0]
    k = kit_for(sample)
    alt = k.others[1].split(",")[0]
    assert runner_score(task, sample, form.format(g=k.gold, alt=alt))[0].status == "hedged"
    assert runner_score(task, sample, f"<think>{alt}?</think>\n## Answer\n{k.gold}")[1].value == 1.0


@pytest.mark.parametrize(("reply", "status", "credited"), [
    # a real reply of the embedded 1.5B model (tests/tasks/real_replies.jsonl), gold option 3
    ("...closest to 337.5°, which is North.\n\nTherefore, the direction from point A to point B is "
     "\\(\\boxed{3}\\).", "answered", True),
    ("Therefore B lies to the $\\boxed{1}$ of A.", "answered", False),
    ("\\[\n\\boxed{3} \\text{ or } \\boxed{4}\n\\]", "hedged", False),  # one line, two boxes: read as a whole
    ("First \\boxed{3}.\nOn reflection \\boxed{4}.", "hedged", False),  # two committed boxes
    ("Maybe \\boxed{4} at first.\nFINAL ANSWER: 3", "answered", True),  # a labelled answer: boxes don't commit
])
def test_a_boxed_answer_commits_when_no_final_answer_is_labelled(reply: str, status: str, credited: bool) -> None:
    task = task_for("stbench.direction")
    sample = next(s for s in task_samples("stbench.direction") if s.target["option"] == 3)
    parsed, score = runner_score(task, sample, reply)
    assert (parsed.status, bool(score.correct)) == (status, credited), parsed


@pytest.mark.parametrize(("name", "reply", "status", "credited"), [
    # real replies of the embedded 1.5B model (tests/tasks/real_replies.jsonl), echoing the template's placeholder
    ("gpsbench.proximity", "<letter>{gold}</letter>", "answered", True),
    ("gpsbench.proximity", "FINAL ANSWER: <letter>", "unparsed", False),  # the placeholder alone: an echo
    ("stbench.point_region", "<region number>: {gold}", "answered", True),
    ("stbench.point_region", "<region number>: {other}", "answered", False),
])
def test_a_placeholder_around_or_before_a_value_is_taken_off(name: str, reply: str, status: str,
                                                             credited: bool) -> None:
    task, sample = task_for(name), task_samples(name)[0]
    kit = kit_for(sample)
    parsed, score = runner_score(task, sample, reply.format(gold=kit.gold, other=kit.wrong))
    assert (parsed.status, bool(score.correct)) == (status, credited), parsed


def test_seconds_right_after_the_minutes_mark_need_no_mark() -> None:
    # a real 0.5B reply wrote DMS with unmarked seconds; read as two angles, not four (no hedge)
    from tasks.answers import find_angles
    assert [round(a.value, 6) for a in find_angles("50°13'49.7, 14°05'12.9")] == [50.230472, 14.086917]
    assert [round(a.value, 6) for a in find_angles("50°13' 49.7")] == [50.216667, 49.7]  # spaced: a new number


def test_an_impossible_latitude_is_a_wrong_answer_not_a_missing_one() -> None:
    # real 0.5B replies gave the longitude they were shown (-112.10161, 141.55056) as the latitude
    name = "gpsbench.missing_data"
    task = task_for(name)
    sample = next(s for s in task_samples(name) if s.target["missing"] == "lat")
    for value in ("-112.10161", "141.55056"):
        parsed, score = runner_score(task, sample, f"FINAL ANSWER: {value}")
        assert parsed.status == "answered" and parsed.answer == float(value) and not score.correct, parsed
