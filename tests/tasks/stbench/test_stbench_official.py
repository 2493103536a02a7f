"""Loader for the official STBench JSONL files, on a hand-made fixture in the released shape."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tasks import get_task
from tasks.stbench.official import (
    KINDS,
    OfficialTask,
    extract_options,
    kind_of_file,
    kind_of_question,
)

DATA = Path(__file__).parent / "data"
RELEASED = Path(__file__).parent / "released"  # first 10 lines of each released datasets/basic/ file (MIT)
BASIC_KINDS = {"direction_determination", "navigation", "trajectory_anomaly_detection", "trajectory_prediction",
               "administrative_region_determination", "road_level_judgment", "rush_hour_detection",
               "taxi_occupancy_detection", "point_region", "trajectory_identification", "trajectory_region"}


@pytest.fixture(scope="module")
def loaded() -> OfficialTask:
    task = OfficialTask(path=DATA)
    task.load()
    return task


@pytest.fixture(scope="module")
def released() -> OfficialTask:
    task = OfficialTask(path=RELEASED)
    task.load()
    return task


def by_subset(task: OfficialTask) -> dict[str, list]:
    out: dict[str, list] = {}
    for s in task.samples():
        out.setdefault(s.meta["subset"], []).append(s)
    return out


def test_all_13_kinds_load_with_typed_golds(loaded: OfficialTask) -> None:
    samples = loaded.samples()
    assert {s.meta["kind"] for s in samples} == set(KINDS) - {"road_level_judgment", "rush_hour_detection",
                                                              "taxi_occupancy_detection"}
    assert len(samples) == 23 and len({s.id for s in samples}) == 23
    assert loaded.load_report["skipped"] == 0
    assert all(s.split == "test" and s.meta["source"] == "official" for s in samples)
    assert loaded.samples(split="train") == [] and loaded.samples(limit=3) == samples[:3]
    # interleaved: the first samples come from different files
    assert len({s.meta["subset"] for s in samples[:10]}) == 10
    subsets = by_subset(loaded)
    assert subsets["navigation_with_weights_5"][0].target == {"option": 1, "label": "road 4"}
    assert [s.target for s in subsets["administrative_region_determination"]] == [
        {"option": 1, "label": "Nashville, TN"}, {"option": 3, "label": "Philadelphia, PA"}]
    assert [s.target["option"] for s in subsets["direction_determination"]] == [1, 6]
    assert subsets["trajectory_region_length4"][0].target == {"option": 4, "label": "[3, 4, 5]"}
    assert subsets["trajectory_trajectory"][0].target == {"option": 5, "label": "1 times"}
    assert [s.target["option"] for s in subsets["trajectory_classification"]] == [2, 3]  # 2 and "(3) pedestrian."
    assert [s.target for s in subsets["trajectory_anomaly_detection_abnormal"]] == [{"answer": "anomalous"}] * 2
    assert subsets["trajectory_identification_temporal_offset"][0].target == {"answer": "no"}
    assert [(s.target["lat"], s.target["lon"]) for s in subsets["trajectory_prediction"]] == [
        (34.25927, 108.92024), (34.24362, 108.93007), (40.76021, -73.98355)]
    assert subsets["point_region_3regions"][0].choices == ("Region 1", "Region 2", "Region 3")


def test_options_with_ten_or_more_and_parentheses_in_comments(loaded: OfficialTask) -> None:
    pcr = by_subset(loaded)["poi_category_recognition"][0]
    assert len(pcr.choices) == 12 and pcr.target["option"] == 11  # "(1)" inside a comment is not an option
    assert pcr.choices[11] == "Ice Cream & Frozen Yogurt, Desserts, Food"
    for reply, ok in [("11", True), ("11): Ice Cream", True), ("1", False), ("FINAL ANSWER: 11", True)]:
        assert loaded.score(loaded.parse(reply, pcr), pcr).correct is ok


def test_option_extraction_shapes() -> None:
    assert extract_options("... (1) North, (2) Northeast, (3) East. Please answer.") == [
        (1, "North"), (2, "Northeast"), (3, "East")]
    assert extract_options('"options": "(0): Eaton, TN (1): Nashville, TN" } Please') == [
        (0, "Eaton, TN"), (1, "Nashville, TN")]
    assert extract_options("points: (1) Point 1 (108.9, 34.2); (2) Point 2 (108.8, 34.1); Please answer")[1] == (
        2, "Point 2 (108.8, 34.1)")
    assert extract_options("Region 1: [(1, 2)] Region 2: [(3, 4)] point", "point_region") == [
        (1, "Region 1"), (2, "Region 2")]


@pytest.mark.parametrize(
    ("subset", "reply", "correct"),
    [
        ("direction_determination", "1) North", True),
        ("direction_determination", "10", False),
        ("trajectory_region_length4", "4): [3, 4, 5]", True),
        ("trajectory_region_length4", "[3, 4, 5]", True),
        ("trajectory_anomaly_detection_abnormal", " abnormal", True),
        ("trajectory_anomaly_detection_abnormal", " Anomaly", True),
        ("trajectory_anomaly_detection_normal", " normal", True),
        ("trajectory_identification_downsampling", 'Yes"', True),
        ("poi_identification", "No", False),
        ("trajectory_classification", "bike", True),
        ("point_trajectory", "4", True),
        ("point_region_3regions", " 2", True),
        ("trajectory_prediction", " (108.92024, 34.25927)", True),
        ("trajectory_prediction", " 34.25927, 108.92024", True),
        ("trajectory_prediction", " {108.9210, 34.2593}", False),
    ],
)
def test_loaded_samples_parse_and_score(loaded: OfficialTask, subset: str, reply: str, correct: bool) -> None:
    s = by_subset(loaded)[subset][0]
    score = loaded.score(loaded.parse(reply, s), s)
    assert score.correct is correct, score.explanation
    if subset == "trajectory_prediction":
        assert score.error_unit == "m" and score.error is not None


def test_prediction_failure_does_not_crash(loaded: OfficialTask) -> None:
    s = by_subset(loaded)["trajectory_prediction"][0]
    parsed = loaded.parse("The next point is unknown.", s)  # the released parser crashed here
    assert not parsed.ok and loaded.score(parsed, s).parse_failed


def test_constructor_configures_path_kinds_and_style() -> None:
    task = get_task("stbench.official", path=str(DATA), kind="DD,point_region")  # abbreviations too
    task.style = "chat"
    assert task.kinds == ["direction_determination", "point_region"] and task.toolsets == ("geodesy", "geometry")
    samples = task.samples()
    assert Counter(s.meta["kind"] for s in samples) == {"direction_determination": 2, "point_region": 1}
    assert task.load_report["filtered"] == 23 - 3
    s = next(x for x in samples if x.meta["kind"] == "point_region")
    assert s.meta["style"] == "chat" and "Answer:" not in s.prompt and s.prompt.endswith("(the region number)")
    assert "FINAL ANSWER" in s.prompt and not s.prompt.startswith("Question:")
    assert task.score(task.parse("Region 1 is west of it.\nFINAL ANSWER: 2", s), s).correct


def test_completion_style_keeps_the_released_text(loaded: OfficialTask) -> None:
    s = by_subset(loaded)["direction_determination"][0]
    row = json.loads((DATA / "direction_determination.jsonl").read_text().splitlines()[0])
    assert s.prompt == row["Question"] and s.messages[0].role == "system" and "continue" in s.messages[0].content.lower()


def test_single_file_with_unknown_name_infers_the_kind(tmp_path: Path) -> None:
    row = json.loads((DATA / "trajectory_prediction.jsonl").read_text().splitlines()[0])
    (tmp_path / "mine.jsonl").write_text(json.dumps(row) + "\n")
    samples = OfficialTask(path=tmp_path / "mine.jsonl").samples()
    assert [s.meta["kind"] for s in samples] == ["trajectory_prediction"]
    assert kind_of_question("Please answer whether these two sequences are sampled from the same trajectory.") == (
        "trajectory_identification")


def test_no_path_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="--dataset PATH"):
        OfficialTask().samples()
    with pytest.raises(ValueError, match="unknown STBench kind"):
        OfficialTask(kind="teleportation")
    with pytest.raises(ValueError, match="neither"):
        OfficialTask(path=DATA / "missing.jsonl").samples()


# ------------------------------------------------------------------ the released files (real sample)

def test_every_line_of_every_released_file_loads(released: OfficialTask) -> None:
    report = released.load_report
    assert len(report["files"]) == 29 and report["lines"] == 290
    assert report["loaded"] == 290 and report["skipped"] == 0 and report["filtered"] == 0
    assert all(f["loaded"] == f["lines"] == 10 for f in report["files"])
    assert {s.meta["kind"] for s in released.samples()} == BASIC_KINDS
    assert released.load_summary()[0].startswith("stbench.official: 29 files, 290 lines, 290 loaded")


@pytest.mark.parametrize("file", sorted(RELEASED.rglob("*.jsonl")), ids=lambda p: p.stem)
def test_each_released_file_alone_and_renamed(file: Path, tmp_path: Path) -> None:
    kind = kind_of_file(file)
    assert kind in BASIC_KINDS
    alone = OfficialTask(path=file).samples()
    assert len(alone) == 10 and {s.meta["kind"] for s in alone} == {kind}
    renamed = tmp_path / "mine.jsonl"  # an unknown name: the kind comes from each question
    renamed.write_text(file.read_text())
    assert [s.meta["kind"] for s in OfficialTask(path=renamed).samples()] == [kind] * 10
    assert [s.target for s in OfficialTask(path=renamed).samples()] == [s.target for s in alone]


def test_navigation_files_are_navigation_with_and_without_weights(released: OfficialTask) -> None:
    nav = [s for s in released.samples() if s.meta["kind"] == "navigation"]
    assert len(nav) == 80 and Counter(s.meta["weighted"] for s in nav) == {True: 40, False: 40}
    assert kind_of_question(nav[0].payload["question"]) == "navigation"  # "bidirectional" is not a direction
    weighted = next(s for s in nav if s.meta["subset"] == "navigation_with_weights_5")
    assert weighted.payload["roads"][0] == [0, 0, 4, 259.42] and (weighted.payload["start"], weighted.payload["goal"]) == (1, 2)
    assert weighted.choices == ("road 4", "road 3", "road 2", "road 1")
    plain = next(s for s in nav if s.meta["subset"] == "navigation_without_weights_8")
    assert plain.payload["roads"][0] == [0, 0, 1, None]


def test_semantic_reasoning_kinds(released: OfficialTask) -> None:
    by_kind = {k: [s for s in released.samples() if s.meta["kind"] == k]
               for k in ("road_level_judgment", "rush_hour_detection", "taxi_occupancy_detection")}
    assert by_kind["road_level_judgment"][0].choices == ("Major roads", "Minor roads", "Very small roads")
    assert by_kind["road_level_judgment"][0].target == {"option": 2, "label": "Minor roads"}
    assert by_kind["rush_hour_detection"][0].target == {"answer": "yes"}
    assert by_kind["taxi_occupancy_detection"][0].target == {"answer": "no"}


def test_released_option_styles() -> None:
    tt = ("Please calculate the number of times these two trajectories intersect, and choose your answer from "
          "following options: 1) 3 times, 2) 6 times, 3) 2 times, 4) 9 times, 5) 5 times. Note that two "
          "trajectories intersect if and only if they pass through the same point at the same timestamp.")
    assert extract_options(tt) == [(1, "3 times"), (2, "6 times"), (3, "2 times"), (4, "9 times"), (5, "5 times")]
    ard = ('{\n "latitude": 38.6, "longitude": -90.2,\n "options": "(0): Kansas City, MO (1): St. Louis, MO '
           '(2): St. Charles, MO"\n}\nPlease answer which area.')
    assert extract_options(ard) == [(0, "Kansas City, MO"), (1, "St. Louis, MO"), (2, "St. Charles, MO")]
    assert extract_options("Options: (1) Ft. Worth, (2) St. Louis. Please answer.") == [
        (1, "Ft. Worth"), (2, "St. Louis")]
    assert extract_options("Options: (1) road 4, (2) road 1.\nAnswer: The answer is (") == [
        (1, "road 4"), (2, "road 1")]


def test_trajectory_region_gold_is_checked_against_exact_geometry(released: OfficialTask) -> None:
    tr = [s for s in released.samples() if s.meta["kind"] == "trajectory_region"]
    assert {s.meta["gold_vs_geometry"] for s in tr} == {"agrees", "differs"}
    differs = [s for s in tr if s.meta["gold_vs_geometry"] == "differs"]
    assert all(s.meta["exact_regions"] != s.target["label"] for s in differs)
    files = released.load_report["files"]
    flagged = sum(f["flags"].get("gold differs from exact geometry", 0) for f in files)
    assert flagged == len(differs) > 0


def test_a_broken_line_is_accounted_for_never_silent(tmp_path: Path) -> None:
    good = (RELEASED / "basic" / "accurate_calculation" / "direction_determination.jsonl").read_text().splitlines()[0]
    bad = json.dumps({"Question": json.loads(good)["Question"], "Answer": "9) Nowhere"})
    (tmp_path / "direction_determination.jsonl").write_text("\n".join([good, bad, "not json"]) + "\n")
    task = OfficialTask(path=tmp_path)
    with pytest.warns(UserWarning, match=r"1/3 loaded, 2 SKIPPED"):
        assert len(task.samples()) == 1
    (entry,) = task.load_report["files"]
    assert entry["skipped"] == 2 and sum(entry["reasons"].values()) == 2
    assert any("answer option 9" in e for e in entry["examples"])
