"""STBench answer parsers: the released parsers' bugs fixed, whole-word matching, any coordinate style."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.records import Parsed, Sample
from tasks.stbench.common import aliases_for, parse_answer
from tasks.stbench.parsing import parse_anomaly, parse_option, parse_point, parse_yes_no

DIRS = [(i + 1, d) for i, d in enumerate(("North", "Northeast", "East", "Southeast", "South", "Southwest", "West",
                                          "Northwest"))]
TWELVE = [(i, f"Category {chr(65 + i)}") for i in range(12)]  # numbered from 0, like ARD/PCR
SEQS = [(1, "[3, 2, 1, 5]"), (2, "[3, 4]"), (3, "[3, 4, 2, 3]"), (4, "[3, 2, 4, 2, 1]"), (5, "[3, 4, 5]")]
MODES = [(1, "car"), (2, "bike"), (3, "pedestrian")]
COUNTS = [(1, "2 times"), (2, "3 times"), (3, "4 times"), (4, "0 times"), (5, "1 times")]


REGIONS = [(i, f"Region {i}") for i in range(1, 6)]
PROMPT = "Which one?\nEnd your reply with the line FINAL ANSWER: <option number>."
H, U, R = "hedged", "unparsed", "refused"


@pytest.mark.parametrize(
    ("text", "options", "expected"),
    [
        ("3) East", DIRS, 3),
        (" 2) Northeast", DIRS, 2),
        ("FINAL ANSWER: 2", DIRS, 2),
        ("FINAL ANSWER: **Northeast**", DIRS, 2),
        ("FINAL ANSWER: north-east", DIRS, 2),
        ("FINAL ANSWER: North East", DIRS, 2),
        ("So B is northeast of A.\nFINAL ANSWER: (8) Northwest", DIRS, 8),
        ("B lies to the northeast of A.", DIRS, 2),  # 'north' inside 'northeast' is not North
        ("Option 8", DIRS, 8),
        ("The answer is option (5).", DIRS, 5),
        ("10", DIRS, U),  # the released parser reads its first digit: option 1
        ("45.3 degrees", DIRS, U),
        ("north or east", DIRS, H),
        ("FINAL ANSWER: 3 (Southwest)", DIRS, H),  # a number whose text is another option's
        ("11): Category L", TWELVE, 11),  # options >= 10: the released parser cannot reach them
        ("10", TWELVE, 10),
        ("FINAL ANSWER: 11", TWELVE, 11),
        ("0", TWELVE, 0),
        ("1", TWELVE, 1),
        ("5): [3, 4, 5]", SEQS, 5),
        ("[3, 4]", SEQS, 2),  # a bare region list is matched as a whole list, not as option 3
        ("FINAL ANSWER: [3, 4, 2, 3]", SEQS, 3),
        ("I think the regions are [3, 2, 1, 5].", SEQS, 1),
        ("FINAL ANSWER: [3, 4] or [3, 4, 5]", SEQS, H),
        ("FINAL ANSWER: [9, 9]", SEQS, U),
        ("2", MODES, 2),
        ("FINAL ANSWER: walking", MODES, 3),
        ("Mean speed 5 m/s, so a bicycle.", MODES, 2),
        ("car or bike", MODES, H),
        ("4) 0 times", COUNTS, 4),
        ("FINAL ANSWER: 1 time", COUNTS, 5),  # the count, not option 1
        ("FINAL ANSWER: twice", COUNTS, 1),
        ("FINAL ANSWER: 3", COUNTS, 3),
        ("FINAL ANSWER: Region 2", REGIONS, 2),
        ("FINAL ANSWER: Region 2 or 3", REGIONS, H),
        ("FINAL ANSWER: 1 2 3 4 5", REGIONS, H),
        ("FINAL ANSWER: 1, 2, 3, 4 or 5", REGIONS, H),
        ("FINAL ANSWER: (1) North, (2) Northeast, (3) East, (4) Southeast, (5) South, (6) Southwest, (7) West, "
         "(8) Northwest", DIRS, H),
        ("(1) North\n(2) Northeast\n(3) East\n(4) Southeast", DIRS, H),  # the list echoed, no answer line
        ("FINAL ANSWER: I cannot determine the direction without a map.", DIRS, R),
        ("I don't know.", DIRS, R),
        ("FINAL ANSWER: <option number>", DIRS, U),  # the prompt's placeholder echoed
        ("FINAL ANSWER: option number", DIRS, U),
    ],
)
def test_parse_option(text: str, options: list[tuple[int, str]], expected: int | str) -> None:
    parsed = parse_option(text, options, aliases_for(options), prompt=PROMPT)
    assert parsed.raw == text
    assert (parsed.value if parsed.ok else parsed.status) == expected, parsed.reason


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3) East", 3),
        ("3) ...", 3),
        ("3", 3),
        ("3). B lies east of A because the bearing is 95 degrees, not north.", 3),
        ("1) North, (2) Northeast, (3) East, (4) Southeast, (5) South, (6) Southwest, (7) West, (8) Northwest", H),
        ("1 2 3 4 5", H),
        ("1 or 3", H),
        ("3) or (5)", H),
        ("1) North\nWait, the bearing is 95 degrees, so it is East.", 1),  # a completion commits on its first line
        ("I cannot determine the direction.", R),
    ],
)
def test_completion_style_options(text: str, expected: int | str) -> None:
    parsed = parse_option(text, DIRS, aliases_for(DIRS), completion=True)
    assert (parsed.value if parsed.ok else parsed.status) == expected, parsed.reason


def _sample(options: list[tuple[int, str]], **payload: object) -> Sample:
    return Sample(id="x/test/00000", task="x", messages=(), target={"option": 1},
                  payload={"options": [list(o) for o in options], **payload})


@pytest.mark.parametrize(("text", "expected"), [("FINAL ANSWER: NE", 2), ("SW", 6), ("N", 1), ("FINAL ANSWER: ne", U),
                                              ("FINAL ANSWER: NE or E", H), ("B is at 34.2 N, 108.9 E: FINAL ANSWER: 3", 3)])
def test_compass_abbreviations_only_upper_case(text: str, expected: int | str) -> None:
    parsed = parse_answer("option", text, _sample(DIRS))
    assert (parsed.value if parsed.ok else parsed.status) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Yes". They share every point.', "yes"),
        ("No", "no"),
        ("FINAL ANSWER: No", "no"),
        ("They look different at first. FINAL ANSWER: Yes", "yes"),
        ('The answer is "No".', "no"),
        ("not the same trajectory, so no", "no"),
        ("north", U),  # "no" inside "north" is not an answer
        ("Nothing to say", U),
        ("yes and no", H),
        ("Maybe yes, maybe no.", H),
        ("FINAL ANSWER: <Yes or No>", U),  # the placeholder echoed
        ("FINAL ANSWER: Yes or No", U),
        ("I am unable to determine that.", R),
    ],
)
def test_parse_yes_no(text: str, expected: str) -> None:
    parsed = parse_yes_no(text, prompt="End your reply with the line FINAL ANSWER: <Yes or No>.")
    assert (parsed.value if parsed.ok else parsed.status) == expected, parsed.reason


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (" normal", "normal"),
        (" anomalous", "anomalous"),
        ("Abnormal", "anomalous"),  # the released parser's `==` never mapped these
        ("Anomaly.", "anomalous"),
        ("FINAL ANSWER: not anomalous", "normal"),
        ("FINAL ANSWER: abnormal", "anomalous"),
        ("It takes a clear detour in the middle.", "anomalous"),
        ("The trajectory is not normal.", "anomalous"),
        ("paranormal", U),
        (" normal, or maybe anomalous", H),
        ("FINAL ANSWER: normal (or anomalous if the detour counts)", H),
        ("There is no detour, so it is normal.", "normal"),
        ("FINAL ANSWER: <normal or anomalous>", U),
    ],
)
def test_parse_anomaly(text: str, expected: str) -> None:
    parsed = parse_anomaly(text, prompt="End your reply with the line FINAL ANSWER: <normal or anomalous>.")
    assert (parsed.value if parsed.ok else parsed.status) == expected, parsed.reason


XIAN = (34.23263, 108.92527)


@pytest.mark.parametrize(
    ("text", "order", "expected"),
    [
        (" [108.92384, 34.23327]", "lonlat", (34.23327, 108.92384)),
        ("(108.92384, 34.23327)", "lonlat", (34.23327, 108.92384)),
        ("{108.92384; 34.23327}", "lonlat", (34.23327, 108.92384)),
        ("108.92384 34.23327", "lonlat", (34.23327, 108.92384)),
        ("FINAL ANSWER: (34.23327, 108.92384)", "latlon", (34.23327, 108.92384)),
        ("FINAL ANSWER: (108.92384, 34.23327)", "latlon", (34.23327, 108.92384)),  # swapped: fixed by the reference
        ("latitude 34.23327, longitude 108.92384", "lonlat", (34.23327, 108.92384)),
        ("lon: 108.92384, lat: 34.23327", "latlon", (34.23327, 108.92384)),
        ("34.23327°N, 108.92384°E", "lonlat", (34.23327, 108.92384)),
        ("Step 1, 2. Answer: 108.92384, 34.23327", "lonlat", (34.23327, 108.92384)),
        ("I cannot predict that.", "lonlat", R),
        ("FINAL ANSWER: (34.23327, 108.92384) or (34.24, 108.93)", "latlon", H),
        ("FINAL ANSWER: (34.2301, 108.9201), (34.2311, 108.9211), (34.2321, 108.9221)", "latlon", H),
        ("FINAL ANSWER: (<latitude>, <longitude>)", "latlon", U),
    ],
)
def test_parse_point_any_bracket_style(text: str, order: str, expected: tuple[float, float] | str) -> None:
    parsed = parse_point(text, order=order, reference=XIAN,  # type: ignore[arg-type]
                         prompt="End your reply with the line FINAL ANSWER: (<latitude>, <longitude>).")
    got = (parsed.value["lat"], parsed.value["lon"]) if parsed.ok else parsed.status
    assert got == expected, parsed.reason


def test_parse_point_drops_the_given_history_while_another_pair_remains() -> None:
    history = [(34.2301, 108.9201), (34.2311, 108.9211)]
    parsed = parse_point("FINAL ANSWER: from (34.2311, 108.9211) to (34.2321, 108.9221)", given=history)
    assert parsed.value == {"lat": 34.2321, "lon": 108.9221}
    assert parse_point("FINAL ANSWER: (34.2301, 108.9201), (34.2311, 108.9211)", given=history).status == H


def test_parse_point_outside_xian_and_without_reference() -> None:
    # the released parser only accepted coordinates inside Xi'an's box
    assert parse_point("FINAL ANSWER: (-33.86, 151.21)").value == {"lat": -33.86, "lon": 151.21}
    assert parse_point("[-73.98, 40.75]", order="lonlat").value == {"lat": 40.75, "lon": -73.98}
    # 151.21 cannot be a latitude, so the order is fixed even against the stated one
    assert parse_point("(151.21, -33.86)", order="latlon").value == {"lat": -33.86, "lon": 151.21}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_parsers_never_raise(text: str) -> None:
    for parsed in (parse_option(text, DIRS, aliases_for(DIRS)), parse_option(text, SEQS), parse_yes_no(text),
                   parse_anomaly(text), parse_point(text, reference=XIAN), parse_answer("option", text, _sample(DIRS))):
        assert isinstance(parsed, Parsed) and parsed.raw == text


def test_numbered_step_of_a_free_reply_is_not_an_option() -> None:
    """A reply cut off in its reasoning ("5. **Determine the direction ...:**") names no option (seen on the
    embedded model: it was read as option 5)."""
    options = [(i + 1, d) for i, d in enumerate(
        ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest"))]
    cut = ("The bearing is negative, so add 360°:\n\\[\n\\theta = 359.786^\\circ\n\\]\n\n"
           "5. **Determine the direction using the 8-point compass:**\n   The 8-point compass covers 45° each")
    assert parse_option(cut, options).status == "unparsed"
    assert parse_option("Working it out.\n\n3. East", options).value == 3
    assert parse_option("1) North\n2) Northeast\n3) East\n4) Southeast", options).status == "hedged"
