"""The reading principles added after the held-out round (tests/tasks/heldout_replies.jsonl, docs/scoring.md), each
tested from the principle over several tasks and phrasings, both ways: the gold committed in the form is
credited, a wrong answer committed the same way is read as that wrong answer, and a hedge written the same way
stays a hedge. Replies are built from each sample's gold (its letter, number, value or place), never from what
the reader returns."""

from __future__ import annotations

from typing import Any

import pytest

from tasks.records import Sample
from tests.tasks.adversarial import task_for, task_samples


def read(task: str, reply: str, sample: Sample[Any]) -> tuple[str, bool]:
    """(status, credited) of a reply to ``sample`` as the task reads and scores it."""
    t = task_for(task)
    parsed = t.parse(reply, sample)
    return parsed.status, parsed.status == "answered" and bool(t.score(parsed, sample).correct)


def samples(task: str) -> list[Sample[Any]]:
    return list(task_samples(task))


def labels(sample: Sample[Any]) -> list[str]:
    """The option labels the prompt shows: letters (GPSBench, GTR) or numbers from the first one (STBench)."""
    choices = sample.choices or []
    if "letter" in sample.target:
        return [chr(65 + i) for i in range(len(choices))]
    first = int(sample.target["option"]) - choices.index(sample.target["label"])
    return [str(first + i) for i in range(len(choices))]


def gold_index(sample: Sample[Any]) -> int:
    return int(sample.target["index"]) if "index" in sample.target else \
        (sample.choices or []).index(sample.target["label"])


def right_and_wrong(task: str) -> list[tuple[Sample[Any], str, str]]:
    """Each sample of an option task with its gold option's label and the next option's (a wrong answer)."""
    out = []
    for s in samples(task):
        gold = gold_index(s)
        out.append((s, labels(s)[gold], labels(s)[(gold + 1) % len(labels(s))]))
    return out


OPTION_TASKS = ["gpsbench.name_disambiguation", "gpsbench.proximity", "stbench.admin_region", "stbench.direction",
                "gtr.motion_state"]


# ----------------------------------------------------------------------------- a checklist commits to its ticked row

TABLES = {
    "emoji": ("| Option | Text | Match |\n|---|---|---|\n", "✅", "❌"),
    "yes/no": ("| # | Candidate | Fits? |\n|---|---|---|\n", "**yes**", "no"),
    "boxes": ("| Label | Option | Chosen |\n|:-:|---|:-:|\n", "[x]", "[ ]"),
}


def _table(sample: Sample[Any], ticked: set[int], form: str) -> str:
    head, tick, cross = TABLES[form]
    rows = [f"| {lab} | {text} | {tick if i in ticked else cross} |"
            for i, (lab, text) in enumerate(zip(labels(sample), sample.choices or [], strict=True))]
    return "I checked every option against the coordinates.\n\n" + head + "\n".join(rows)


def _lines(sample: Sample[Any], ticked: set[int]) -> str:
    return "\n".join(f"{lab} {'✓' if i in ticked else '✗'} ({text})"
                     for i, (lab, text) in enumerate(zip(labels(sample), sample.choices or [], strict=True)))


def _checklist(sample: Sample[Any], ticked: set[int], form: str) -> str:
    return _lines(sample, ticked) if form == "lines" else _table(sample, ticked, form)


@pytest.mark.parametrize("form", [*TABLES, "lines"])
@pytest.mark.parametrize("task", OPTION_TASKS)
def test_a_checklist_commits_to_its_one_ticked_row(task: str, form: str) -> None:
    for s in samples(task)[:2]:
        gold = gold_index(s)
        wrong = (gold + 1) % len(s.choices or [])
        assert read(task, _checklist(s, {gold}, form), s) == ("answered", True)
        assert read(task, _checklist(s, {wrong}, form), s) == ("answered", False)
        assert read(task, _checklist(s, {gold, wrong}, form), s) == ("hedged", False)


def test_a_table_of_marks_with_an_answer_label_is_read_by_its_label() -> None:
    s = samples("gpsbench.proximity")[0]
    wrong = labels(s)[(gold_index(s) + 1) % 4]
    assert read("gpsbench.proximity", _table(s, {gold_index(s)}, "emoji") + f"\n\nFINAL ANSWER: {wrong}",
                s)[1] is False


# ----------------------------------------------------------------------------- answer words in the reply's language

DIRECTION_WORDS = {
    "Antwort:": {"N": "Norden", "NE": "Nordosten", "E": "Osten", "SE": "Südosten", "S": "Süden", "SW": "Südwesten",
                 "W": "Westen", "NW": "Nordwesten"},
    "Réponse finale :": {"N": "nord", "NE": "nord-est", "E": "est", "SE": "sud-est", "S": "sud", "SW": "sud-ouest",
                         "W": "ouest", "NW": "nord-ouest"},
    "Respuesta final:": {"N": "norte", "NE": "noreste", "E": "este", "SE": "sureste", "S": "sur", "SW": "suroeste",
                         "W": "oeste", "NW": "noroeste"},
    "答案：": {"N": "北", "NE": "东北", "E": "东", "SE": "东南", "S": "南", "SW": "西南", "W": "西", "NW": "西北"},
}
ROTATE = {"N": "E", "NE": "SE", "E": "S", "SE": "SW", "S": "W", "SW": "NW", "W": "N", "NW": "NE"}


@pytest.mark.parametrize("label", list(DIRECTION_WORDS))
@pytest.mark.parametrize("task", ["gpsbench.relative_position_pure", "gpsbench.relative_position_applied"])
def test_a_direction_is_read_in_the_language_of_the_reply(task: str, label: str) -> None:
    words = DIRECTION_WORDS[label]
    for s in samples(task):
        gold = s.target["direction"]
        assert read(task, f"Some working.\n\n{label} {words[gold]}", s) == ("answered", True)
        assert read(task, f"Some working.\n\n{label} {words[ROTATE[gold]]}", s) == ("answered", False)
        assert read(task, f"Some working.\n\n{label} {words[gold]} / {words[ROTATE[gold]]}", s)[0] == "hedged"


def test_a_word_that_names_a_direction_only_alone_is_no_direction_in_a_sentence() -> None:
    s = next(x for x in samples("gpsbench.relative_position_pure") if x.target["direction"] == "W")
    # French "est" is also "is": "la direction est ouest" names West only
    assert read("gpsbench.relative_position_pure", "Réponse finale : la direction est ouest", s) == ("answered", True)
    assert read("gpsbench.relative_position_pure", "Réponse finale : à l'est", s) == ("answered", False)


YES_NO = {"Réponse finale :": ("Oui", "Non"), "Antwort:": ("Ja", "Nein"), "Respuesta:": ("Sí", "No"),
          "Resposta final:": ("Sim", "Não"), "答案：": ("是", "否")}


@pytest.mark.parametrize("label", list(YES_NO))
@pytest.mark.parametrize("task", ["gpsbench.route_analysis", "stbench.trajectory_identification"])
def test_yes_and_no_are_read_in_the_language_of_the_reply(task: str, label: str) -> None:
    yes, no = YES_NO[label]
    for s in samples(task):
        gold = str(s.target["answer"]).lower() == "yes"
        right, wrong = (yes, no) if gold else (no, yes)
        assert read(task, f"{label} {right}", s) == ("answered", True)
        assert read(task, f"{label} {wrong}", s) == ("answered", False)
        assert read(task, f"{label} {right} / {wrong}", s)[0] == "hedged"


# ----------------------------------------------------------------------------- a number's locale is read from its form

def _dotted(value: float) -> str:
    return f"{round(value):,}".replace(",", ".")


@pytest.mark.parametrize(("label", "credited"), [
    ("Respuesta final:", True), ("Antwort:", True), ("Risposta finale:", True), ("Réponse :", True),
    ("FINAL ANSWER:", False),  # in English 13.671 km is thirteen kilometres
])
def test_dots_group_thousands_in_a_reply_answered_in_a_dot_grouping_language(label: str, credited: bool) -> None:
    for s in samples("gpsbench.distance"):
        km = s.target["km"]
        if km < 1000:
            continue
        assert read("gpsbench.distance", f"Some working.\n\n{label} {_dotted(km)} km", s) == ("answered", credited)
        assert read("gpsbench.distance", f"{label} {_dotted(km * 1.3)} km", s) == ("answered", False)


def test_a_reply_that_writes_decimal_commas_groups_thousands_with_dots() -> None:
    s = samples("gpsbench.polygon_area")[0]
    area, perimeter = s.target["area_km2"], s.target["perimeter_km"]
    reply = f"FINAL ANSWER: {_dotted(area)},5 km², {_dotted(perimeter)},2 km"
    assert read("gpsbench.polygon_area", reply, s) == ("answered", True)
    assert read("gpsbench.polygon_area", f"FINAL ANSWER: {_dotted(area * 2)},5 km², {_dotted(perimeter)},2 km",
                s) == ("answered", False)


def _comma(value: float, decimals: int = 5) -> str:
    return f"{value:.{decimals}f}".replace(".", ",")


@pytest.mark.parametrize(("task", "write"), [
    ("gpsbench.interpolation", lambda t, d: f"FINAL ANSWER: {_comma(t['lat'] + d)}; {_comma(t['lon'])}"),
    ("stbench.trajectory_prediction", lambda t, d: f"FINAL ANSWER: ({_comma(t['lat'] + d)}; {_comma(t['lon'])})"),
    ("gpsbench.missing_data", lambda t, d: f"FINAL ANSWER: {_comma(t['value'] + d)}"),
])
def test_a_comma_before_four_or_more_digits_is_a_decimal_comma(task: str, write: Any) -> None:
    for s in samples(task):
        assert read(task, write(s.target, 0.0), s) == ("answered", True)
        assert read(task, write(s.target, 1.0), s) == ("answered", False)


def _sci(value: float) -> str:
    mantissa, exponent = f"{value:.5e}".split("e")
    return f"{mantissa}e{int(exponent)}"


@pytest.mark.parametrize(("task", "write"), [
    ("gpsbench.distance", lambda t, f: f"FINAL ANSWER: {_sci(t['km'] * f)} km"),
    ("gpsbench.polygon_area", lambda t, f: f"FINAL ANSWER: {_sci(t['area_km2'] * f)} km², {_sci(t['perimeter_km'])} km"),
    ("gpsbench.coordinate_transformation",
     lambda t, f: f"FINAL ANSWER: x = {_sci(t['x'] * f).replace('-', '−')} m, y = {_sci(t['y']).replace('-', '−')} m"),
])
def test_scientific_notation_is_read_as_its_value(task: str, write: Any) -> None:
    found = [s for s in samples(task) if task != "gpsbench.coordinate_transformation"
             or s.target["direction"] == "wgs84_to_webmercator"]
    assert found
    for s in found:
        assert read(task, write(s.target, 1.0), s) == ("answered", True)
        assert read(task, write(s.target, 1.5), s) == ("answered", False)


# ----------------------------------------------------------------------------- no text of the answer

TOKENS = ["</s>", "<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<｜end▁of▁sentence｜>", " [/INST]"]


@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("task", ["gpsbench.proximity", "stbench.point_trajectory", "gtr.causal_reordering"])
def test_a_chat_templates_control_token_is_no_text_of_the_answer(task: str, token: str) -> None:
    for s, right, wrong in right_and_wrong(task):
        assert read(task, f"FINAL ANSWER: {right}{token}", s) == ("answered", True)
        assert read(task, f"FINAL ANSWER: {wrong}{token}", s) == ("answered", False)


@pytest.mark.parametrize("form", ["SRID=4326;POINT({lon} {lat})", "EPSG:4326 — {lat}, {lon}",
                                  "{lat}, {lon} (WGS 84, EPSG:4326)", "POINT({lon} {lat}) in CRS:84"])
@pytest.mark.parametrize("task", ["gpsbench.interpolation", "stbench.trajectory_prediction"])
def test_a_reference_system_code_names_the_notation_never_a_value(task: str, form: str) -> None:
    for s in samples(task):
        lat, lon = s.target["lat"], s.target["lon"]
        assert read(task, "FINAL ANSWER: " + form.format(lat=lat, lon=lon), s) == ("answered", True)
        assert read(task, "FINAL ANSWER: " + form.format(lat=lat + 1, lon=lon), s) == ("answered", False)


# ----------------------------------------------------------------------------- a tool record's keys give its units

@pytest.mark.parametrize(("task", "key", "field"), [
    ("gpsbench.bearing", "initial_bearing", "bearing_deg"), ("gpsbench.bearing", "azimuth_deg", "bearing_deg"),
    ("gpsbench.distance", "great_circle_km", "km"), ("gpsbench.distance", "distance_mi", "miles"),
])
def test_a_json_record_of_measured_values_reads_with_the_units_its_keys_name(task: str, key: str, field: str) -> None:
    for s in samples(task):
        value = s.target[field]
        assert read(task, f'{{"{key}": {value}, "source": "tool"}}', s) == ("answered", True)
        assert read(task, f'{{"{key}": {value * 1.4 + 7}, "source": "tool"}}', s) == ("answered", False)


# ----------------------------------------------------------------------------- doubt and stated confidence are hedges

@pytest.mark.parametrize("doubt", [
    "{a} (north or south? not certain)", "{a} — I'd lean this way, 60/40", "{a}, though I'm not sure.",
    "{a} (or is it {b}?)", "{a}; {b} is a close second",
])
@pytest.mark.parametrize("task", ["gpsbench.proximity", "stbench.direction", "gtr.geo_location"])
def test_doubt_written_into_the_answer_leaves_it_open(task: str, doubt: str) -> None:
    for s, right, wrong in right_and_wrong(task):
        assert read(task, "FINAL ANSWER: " + doubt.format(a=right, b=wrong), s) == ("hedged", False)
        assert read(task, f"FINAL ANSWER: {right}\n\nWhy not {wrong}? It is farther away.", s) == ("answered", True)
        assert read(task, f"FINAL ANSWER: {wrong}\n\nI'm sure of it.", s) == ("answered", False)


@pytest.mark.parametrize("task", ["stbench.anomaly_detection", "gpsbench.route_analysis"])
def test_a_lean_is_no_commitment(task: str) -> None:
    for s in samples(task):
        gold = str(s.target["answer"])
        assert read(task, f"The data is ambiguous. I'd lean {gold}, 60/40.", s) == ("hedged", False)
        assert read(task, f"The data is clear.\n\nFINAL ANSWER: {gold}", s) == ("answered", True)


# ----------------------------------------------------------------------------- the line before the answer

@pytest.mark.parametrize("task", ["gpsbench.proximity", "stbench.point_trajectory", "gtr.arrival_interval"])
def test_the_sentence_that_gives_the_answer_carries_its_hedge(task: str) -> None:
    for s, right, wrong in right_and_wrong(task):
        hedged = f"I'll say {right}, but {wrong} is nearly as likely.\n\nFINAL ANSWER: {right}"
        assert read(task, hedged, s) == ("hedged", False)
        assert read(task, f"I'll say {right}: the others are too far.\n\nFINAL ANSWER: {right}", s) == ("answered",
                                                                                                       True)
        # doubt about a draft that was given up is no doubt about the answer
        assert read(task, f"My first draft, {wrong}, was not certain.\n\nFINAL ANSWER: {right}", s) == ("answered",
                                                                                                       True)


@pytest.mark.parametrize(("task", "value", "unit"), [
    ("gpsbench.missing_data", "value", "°"), ("gpsbench.distance", "km", " km")])
def test_an_error_band_on_the_stated_value_leaves_the_answer_line_open(task: str, value: str, unit: str) -> None:
    for s in samples(task):
        v = round(float(s.target[value]), 3)
        assert read(task, f"It comes to about {v}{unit} (plus or minus 2 %).\n\nFINAL ANSWER: {v}{unit}",
                    s) == ("hedged", False)
        assert read(task, f"It comes to about {v}{unit}.\n\nFINAL ANSWER: {v}{unit}", s) == ("answered", True)
        assert read(task, f"A first pass gave {v * 2}{unit}, give or take.\n\nFINAL ANSWER: {v}{unit}",
                    s) == ("answered", True)


@pytest.mark.parametrize("task", ["stbench.trajectory_classification", "gpsbench.proximity", "gtr.motion_state"])
def test_another_value_offered_under_a_condition_is_a_hedge(task: str) -> None:
    for s, right, wrong in right_and_wrong(task):
        offered = f"FINAL ANSWER: {right}\n\n(If the sampling gaps hide stops, {wrong} becomes the better fit.)"
        assert read(task, offered, s) == ("hedged", False)
        remark = f"FINAL ANSWER: {right}\n\n(If the sampling gaps hid stops, the average would be lower.)"
        assert read(task, remark, s) == ("answered", True)


# ----------------------------------------------------------------------------- options named by number

@pytest.mark.parametrize("task", ["stbench.admin_region", "stbench.direction", "stbench.point_trajectory"])
def test_a_number_names_a_numbered_options_label_not_its_position(task: str) -> None:
    for s, right, wrong in right_and_wrong(task):
        for form in ("It is option no. {n}.", "FINAL ANSWER: option #{n}", "FINAL ANSWER: option number {n}"):
            assert read(task, form.format(n=right), s) == ("answered", True)
            assert read(task, form.format(n=wrong), s) == ("answered", False)


def test_a_number_names_a_lettered_options_position() -> None:
    s = samples("gpsbench.proximity")[0]
    assert read("gpsbench.proximity", f"FINAL ANSWER: option no. {gold_index(s) + 1}", s) == ("answered", True)


# ----------------------------------------------------------------------------- a list of options is no answer

@pytest.mark.parametrize("task", ["gtr.motion_state", "gpsbench.proximity", "stbench.direction"])
def test_the_last_item_of_the_options_listed_is_no_answer(task: str) -> None:
    for s in samples(task):
        listed = "\n".join(f"{lab}) {text}" if "letter" in s.target else f"({lab}) {text}"
                           for lab, text in zip(labels(s), s.choices or [], strict=True))
        assert read(task, "Let me list the options first:\n" + listed, s)[1] is False
        gold = labels(s)[gold_index(s)]
        wrong = labels(s)[(gold_index(s) + 1) % len(labels(s))]
        assert read(task, f"Let me list the options first:\n{listed}\n\n**{gold}**", s) == ("answered", True)
        assert read(task, f"I compared them all.\n\n**{wrong}**", s) == ("answered", False)


# ----------------------------------------------------------------------------- a division named is the division

def test_a_right_city_put_in_another_division_is_wrong_at_the_division_level() -> None:
    task = "gpsbench.place_association.admin1"
    s = next(x for x in samples(task) if x.target["country_code"] == "US")
    name, region = s.target["name"], s.target["admin1_name"]
    other = "Maryland" if region != "Maryland" else "Ohio"
    assert read(task, f"FINAL ANSWER: {name}, {region}, United States", s) == ("answered", True)
    assert read(task, f"FINAL ANSWER: {name}, {other}, United States", s) == ("answered", False)
    assert read(task, f"FINAL ANSWER: {name}, United States", s) == ("answered", True)


# ----------------------------------------------------------------------------- committing and offering in other words

@pytest.mark.parametrize("form", [
    "La respuesta correcta es la {a}.", "Die richtige Antwort ist {a}.", "La bonne réponse est la {a}.",
    "正确答案是 {a}", "Some working.\nI would pick {a}.", "Answer ⇒ {a}", "Answer -> {a}",
])
@pytest.mark.parametrize("task", ["gpsbench.proximity", "stbench.direction", "gtr.motion_state"])
def test_a_committing_sentence_or_arrow_label_in_any_of_the_read_languages_commits(task: str, form: str) -> None:
    for s, right, wrong in right_and_wrong(task):
        assert read(task, form.format(a=right), s) == ("answered", True)
        assert read(task, form.format(a=wrong), s) == ("answered", False)


@pytest.mark.parametrize("form", [
    "Réponse : {a}, mais {b} est possible.", "Antwort: {a} (vielleicht {b})", "Antwort: {a} oder {b}",
    "Respuesta: {a}, quizás {b}", "Answer: {a}\n\nP.S. {b} might also work.", "FINAL ANSWER: {a}\n\n{b} could also fit.",
])
@pytest.mark.parametrize("task", ["gpsbench.proximity", "stbench.direction", "gtr.motion_state"])
def test_an_alternative_offered_in_any_of_the_read_languages_or_before_its_cue_is_a_hedge(task: str,
                                                                                         form: str) -> None:
    for s, right, wrong in right_and_wrong(task):
        assert read(task, form.format(a=right, b=wrong), s) == ("hedged", False)
        assert read(task, f"Answer: {right}\n\nP.S. the distance might also differ slightly.", s) == ("answered", True)
