"""Where a free reply commits (issue 34, "no guessing"), each principle tested over several tasks and phrasings,
both ways: the gold committed that way is credited, a wrong option committed the same way is read as that wrong
option (answered, not credited), and an alternative left open the same way stays a hedge.

1. Options named in a sentence that rejects them ("are all far from it", "are thousands of kilometres away", an
   "Other options" section that dismisses them) are no alternatives: the committed answer stands.
2. A reply whose first line (or first sentence) is only the answer, followed by a remark and no working, commits
   to it.
3. A markdown heading ("## Summary") is no answer.
4. A bold row of a table whose label names the asked quantity is the answer.
5. An answer in bold in a line of prose (an arrow to it included) commits, over a last line that only remarks;
   working after it that reaches another value takes the commitment back.
"""

from __future__ import annotations

import pytest

from tasks import get_task
from tasks.records import Sample
from tests.tasks.adversarial import runner_score
from tests.tasks.real_replies import load

NAME = "gpsbench.name_disambiguation/test/00003"  # gold C) Guadalupe, Colombia (A Mexico, B Peru, D Costa Rica)
PLACE = "gpsbench.place_association/test/00000"  # gold Irkutsk, Russia
DISTANCE = "gpsbench.distance/test/00004"  # gold 13,670.9 km
NEAREST = "gpsbench.proximity/test/00004"  # gold B) Oshawa (A Minsk, C Bhelai, D Straubing)
DIRECTION = "stbench.direction/test/00005"  # gold (3) East, bearing 110.7°
ARRIVAL = "gtr.arrival_interval/test/00007"  # gold B [203.3, 211.2]


def _read(sample_id: str, text: str) -> tuple[str, bool]:
    line = next(x for x in load() if x["sample"]["id"] == sample_id)
    parsed, score = runner_score(get_task(line["task"]), Sample.model_validate(line["sample"]), text)
    return parsed.status, bool(score.correct)


# ----------------------------------------------------------------------------- 1. a rejection names no alternative

REJECTED_OTHERS = [
    (NAME, "{ans} — the point is in Huila. Mexico, Peru and Costa Rica are all far from it."),
    (NAME, "FINAL ANSWER: {ans}\n\nThe Mexican and Peruvian towns are thousands of kilometres away."),
    (NAME, "{ans}\n\n## Other options\n\nThe towns in Mexico, Peru and Costa Rica are far too distant."),
    (NEAREST, "**{ans}** is the nearest of the four.\n\nMinsk and Straubing lie far away in Europe, Bhelai in India."),
    (ARRIVAL, "FINAL ANSWER: {ans}\n\n### Other options\n\nA and D are not reachable at that speed."),
]
GOLD = {NAME: "C) Guadalupe, Colombia", NEAREST: "Oshawa", ARRIVAL: "B"}
WRONG = {NAME: "B) Guadalupe, Peru", NEAREST: "Minsk", ARRIVAL: "C"}


@pytest.mark.parametrize(("where", "form"), REJECTED_OTHERS)
def test_options_named_in_a_rejection_are_no_alternatives(where: str, form: str) -> None:
    assert _read(where, form.format(ans=GOLD[where])) == ("answered", True)


@pytest.mark.parametrize(("where", "form"), REJECTED_OTHERS)
def test_a_wrong_option_committed_before_a_rejection_is_read_as_that_option(where: str, form: str) -> None:
    assert _read(where, form.format(ans=WRONG[where])) == ("answered", False)


@pytest.mark.parametrize(("where", "text"), [
    (NAME, "C — Guadalupe, Colombia. Could easily be D, though; Costa Rica is not that far."),
    (NAME, "C) Guadalupe, Colombia\n\nMaybe it's D? Mexico and Peru are far away."),
    (NAME, "FINAL ANSWER: C\n\nI'm torn between C and D; Mexico and Peru are ruled out."),
    (NEAREST, "**Oshawa** is nearest.\n\nMinsk is far away, but it could also be Straubing."),
    (ARRIVAL, "FINAL ANSWER: B\n\n## Other options\n\nA is too early, though C is possible too."),
])
def test_an_uncommitted_alternative_beside_a_rejection_stays_a_hedge(where: str, text: str) -> None:
    assert _read(where, text) == ("hedged", False)


# ----------------------------------------------------------------------------- 2. a bare first line

@pytest.mark.parametrize(("where", "first", "credited"), [
    (PLACE, "Irkutsk, in Irkutsk Oblast, Russia.", True),
    (PLACE, "Irkutsk (Russia)", True),
    (PLACE, "Angarsk, Russia.", False),
    (NAME, "C) Guadalupe, Colombia", True),
    (NAME, "A — Guadalupe, Mexico.", False),
    (DISTANCE, "About 13,671 km.", True),
    (DISTANCE, "About 9,120 km.", False),
])
def test_a_bare_first_line_followed_by_a_remark_commits(where: str, first: str, credited: bool) -> None:
    remark = "\n\nChecked against the map: the point falls in the south of the region, near the river."
    assert _read(where, first + remark) == ("answered", credited)


@pytest.mark.parametrize(("where", "text"), [
    (PLACE, "Irkutsk, Russia.\n\nIt could also be Angarsk, just to the north-west."),
    (NAME, "C) Guadalupe, Colombia\n\nOr possibly D."),
    (DISTANCE, "About 13,671 km.\n\nMaybe 12,900 km."),
])
def test_a_bare_first_line_followed_by_an_alternative_is_a_hedge(where: str, text: str) -> None:
    assert _read(where, text) == ("hedged", False)


@pytest.mark.parametrize(("where", "text", "read"), [
    # working that reaches no stated answer: nothing located
    (NAME, "C\n\nFirst I compared the four towns; the working then gives A, since Mexico fits the map.", "unlocated"),
    # working that ends on a stated value: that value is the answer, not the bare first line
    (DISTANCE, "13,671 km\n\nWorking: d = 6371 × 1.431 ≈ 9,120 km.", "answered"),
])
def test_a_bare_first_line_followed_by_working_is_not_the_answer(where: str, text: str, read: str) -> None:
    assert _read(where, text) == (read, False)


# ----------------------------------------------------------------------------- 3. a heading is no answer

@pytest.mark.parametrize(("where", "head", "credited"), [
    (PLACE, '```json\n{"name": "Irkutsk", "country": "Russia"}\n```', True),
    (PLACE, '```json\n{"name": "Angarsk", "country": "Russia"}\n```', False),
    (NAME, "FINAL ANSWER: C", True),
    (NAME, "FINAL ANSWER: A", False),
    (DISTANCE, "FINAL ANSWER: 13,671 km", True),
])
@pytest.mark.parametrize("heading", ["## Summary", "### Explanation", "#### Notes", "# Method"])
def test_a_heading_after_the_answer_is_no_second_answer(where: str, head: str, credited: bool, heading: str) -> None:
    assert _read(where, f"{head}\n\n{heading}\n\nThe tool result above was used as given.") == ("answered", credited)


def test_a_heading_that_announces_another_answer_still_reads_what_it_announces() -> None:
    assert _read(NAME, "FINAL ANSWER: C\n\n### Another possibility\n\nD") == ("hedged", False)


# ----------------------------------------------------------------------------- 4. a bold table row

TABLE = "| Step | Value |\n|---|---|\n| Δλ | 153.33° |\n| central angle | 2.1458 rad |\n{row}\n\n{after}"


@pytest.mark.parametrize(("row", "credited"), [
    ("| **distance** | **13,671 km** |", True),
    ("| **Great-circle distance** | **13,671 km** |", True),
    ("| **Distance** | **≈ 13,670.9 km** |", True),
    ("| **distance** | **9,120 km** |", False),
])
@pytest.mark.parametrize("after", ["The haversine formula was used with R = 6371 km.", "Rounded to the nearest km."])
def test_a_bold_row_labelled_with_the_asked_quantity_is_the_answer(row: str, credited: bool, after: str) -> None:
    assert _read(DISTANCE, TABLE.format(row=row, after=after)) == ("answered", credited)


@pytest.mark.parametrize("row", [
    "| **central angle** | **2.1458 rad** |",  # bold, but not the asked quantity
    "| distance | 13,671 km |",  # the asked quantity, but not emphasised
    "| **distance** | **13,671 km** |\n| **great-circle distance** | **12,900 km** |",  # two bold answers
])
def test_a_table_row_that_is_not_a_bold_row_of_the_asked_quantity_commits_to_nothing(row: str) -> None:
    status, credited = _read(DISTANCE, TABLE.format(row=row, after="The haversine formula was used."))
    assert status in ("unlocated", "unparsed") and not credited


@pytest.mark.parametrize("other", ["| **alternative** | **12,900 km** |", "| or possibly | 12,900 km |"])
def test_a_bold_row_followed_by_an_offered_other_value_is_a_hedge(other: str) -> None:
    row = "| **distance** | **13,671 km** |\n" + other
    assert _read(DISTANCE, TABLE.format(row=row, after="Rounded to the nearest km.")) == ("hedged", False)


# ----------------------------------------------------------------------------- 5. an emphasised answer

@pytest.mark.parametrize(("where", "form"), [
    (PLACE, "Looking at the coordinates, I'd place this squarely in **{ans}**, on the Angara.\n\n"
            "The nearby town of Angarsk lies about 40 km to the north-west."),
    (PLACE, "The point sits in **{ans}**.\n\nThe Angara River runs through the city."),
    (NAME, "The coordinates fall in the Huila department, which makes **{ans}** the match.\n\n"
           "The other towns share the name only."),
    (NEAREST, "Ives Estates is nearest to **{ans}** among these, about 2,000 km away.\n\nThe rest are in Europe or Asia."),
    (DIRECTION, "Bearing ≈ 110.7° → **{ans}**.\n\nThe sector runs from 67.5° to 112.5°."),
    (DIRECTION, "Initial bearing 110.7° ⇒ __{ans}__\n\nEach sector spans 45°."),
])
def test_an_emphasised_answer_commits(where: str, form: str) -> None:
    gold = {PLACE: "Irkutsk", NAME: "C) Guadalupe, Colombia", NEAREST: "Oshawa", DIRECTION: "East (3)"}[where]
    wrong = {PLACE: "Angarsk", NAME: "D) Guadalupe, Costa Rica", NEAREST: "Straubing", DIRECTION: "Southeast (4)"}[where]
    assert _read(where, form.format(ans=gold)) == ("answered", True)
    assert _read(where, form.format(ans=wrong)) == ("answered", False)


@pytest.mark.parametrize(("where", "text"), [
    (DIRECTION, "Bearing ≈ 110.7° → **East (3)**, though it could easily be Southeast.\n\nThe sectors are 45° wide."),
    (PLACE, "I'd place this in **Irkutsk**.\n\nIt might also be Angarsk, 40 km away."),
    (NAME, "This makes **C) Guadalupe, Colombia** the match.\n\nMaybe D, though."),
])
def test_an_emphasised_answer_followed_by_an_open_alternative_is_a_hedge(where: str, text: str) -> None:
    assert _read(where, text) == ("hedged", False)


@pytest.mark.parametrize(("where", "text"), [
    (NAME, "Both **B) Guadalupe, Peru** and **C) Guadalupe, Colombia** lie near the equator.\n\nThe map is unclear."),
    (NAME, "Not **A) Guadalupe, Mexico**: it is far north.\n\nThe map is unclear."),
    (NAME, "**C**\n\nI first compared the towns, and computing the distances gives D."),
    (DIRECTION, "→ **East (3)**?\n\nThe sector runs from 67.5° to 112.5°."),  # asked, not stated
    (DIRECTION, "If the bearing were 110°, → **East (3)**.\n\nThe sector tables are standard."),  # supposed
])
def test_emphasis_on_several_values_a_rejected_asked_or_supposed_value_or_one_worked_away_from_commits_to_nothing(
        where: str, text: str) -> None:
    assert _read(where, text)[1] is False and _read(where, text)[0] != "answered"


# ----------------------------------------------------------------------------- forms the second round showed

INTERVAL = "gtr.arrival_interval/test/00007"  # gold B
REGION = "stbench.point_region/test/00000"  # gold Region 2 (of 1 and 2)
CONVERT = "gpsbench.format_conversion/test/00003"  # gold 40.790639, -73.201778


@pytest.mark.parametrize(("record", "credited"), [
    ("* **City:** Irkutsk\n* **Region:** Irkutsk Oblast\n* **Country:** Russia", True),
    ("City: Irkutsk\nCountry: Russia", True),
    ("- Town: Angarsk\n- Country: Russia", False),
])
def test_a_place_written_as_labelled_lines_reads_like_its_json_record(record: str, credited: bool) -> None:
    text = f"Based on the reverse geocoding result:\n\n{record}\n\nThe coordinates are within the city limits."
    assert _read(PLACE, text) == ("answered", credited)


@pytest.mark.parametrize(("where", "text", "credited"), [
    (REGION, "The tool says the point is inside Region 2.\n\nRegion 1 does not contain it.", True),
    (REGION, "The tool says the point is inside Region 1.\n\nRegion 2 does not contain it.", False),
    (NEAREST, "The nearest of the four is Oshawa, at about 2,000 km.\n\nMinsk is far away.", True),
])
def test_a_short_last_sentence_that_rejects_is_no_answer(where: str, text: str, credited: bool) -> None:
    assert _read(where, text) == ("answered", credited)


@pytest.mark.parametrize(("text", "read"), [
    ("Oshawa (B) is closest — about 2,000 km away, versus 8,000+ km for Minsk and Straubing.", ("answered", True)),
    ("Minsk (A) is closest — about 2,000 km away, compared with 8,000 km for Oshawa.", ("answered", False)),
    ("Oshawa (B) is closest — though Straubing (D) could be as close.", ("hedged", False)),
    ("Oshawa (B) or Minsk (A) — both are about 2,000 km away.", ("hedged", False)),
])
def test_a_first_clause_followed_by_a_comparison_commits(text: str, read: tuple[str, bool]) -> None:
    assert _read(NEAREST, text) == read


@pytest.mark.parametrize("text", [
    "C) Guadalupe, Colombia — though honestly D) Costa Rica is hard to exclude with this little precision.",
    "FINAL ANSWER: C\nD is difficult to rule out at this precision.",
])
def test_a_rejection_called_hard_keeps_the_alternative_open(text: str) -> None:
    assert _read(NAME, text) == ("hedged", False)


@pytest.mark.parametrize(("first", "credited"), [("Option B: [203.3, 211.2].", True), ("Option C: [225.9, 234.1].", False)])
def test_a_committing_cue_that_names_nothing_is_no_location(first: str, credited: bool) -> None:
    text = f"{first} Option A would need a speed above 1.45 m/s, so it is out."
    assert _read(INTERVAL, text) == ("answered", credited)


@pytest.mark.parametrize(("rows", "credited"), [
    ("| Latitude | 40.790639 |\n| Longitude | -73.201778 |", True),
    ("| latitude | 40.790639 |\n| longitude | -74.201778 |", False),
])
def test_a_table_that_is_only_the_asked_values_is_the_answer(rows: str, credited: bool) -> None:
    text = f"## Conversion\n\n| | Decimal |\n|---|---|\n{rows}\n\n## Note\n\nWest longitudes are negative."
    assert _read(CONVERT, text) == ("answered", credited)


def test_a_table_with_a_row_not_asked_is_not_the_answer() -> None:
    text = "| | Decimal |\n|---|---|\n| Latitude | 40.790639 |\n| Longitude | -73.201778 |\n| Zone | 18T |\n\nDone."
    status, credited = _read(CONVERT, text)
    assert status != "answered" and not credited


@pytest.mark.parametrize(("bold", "stated", "credited"), [
    ("A) Guadalupe, Mexico", "C) Guadalupe, Colombia", True),
    ("C) Guadalupe, Colombia", "D) Guadalupe, Costa Rica", False),
])
def test_a_last_line_stating_another_value_is_the_later_word_over_the_bold(bold: str, stated: str, credited: bool) -> None:
    text = f"**{bold}** looked right at first.\n\nAfter checking the department, the match is {stated}."
    assert _read(NAME, text) == ("answered", credited)


@pytest.mark.parametrize("remark", ["The nearby town of Angarsk lies about 40 km to the north-west.",
                                    "Angarsk is just north of it, on the same river."])
def test_a_last_line_placing_a_neighbour_is_no_second_answer(remark: str) -> None:
    assert _read(PLACE, f"I'd place this in **Irkutsk** (Russia).\n\n{remark}") == ("answered", True)
