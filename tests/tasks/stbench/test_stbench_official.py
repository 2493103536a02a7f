"""Loader for the official STBench JSONL files, on a hand-made fixture in the released shape."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tasks import get_task
from tasks.stbench.official import (
    ENV_KIND,
    ENV_PATH,
    ENV_STYLE,
    KINDS,
    OfficialTask,
    extract_options,
    kind_of_question,
)

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def loaded() -> OfficialTask:
    task = OfficialTask(path=DATA)
    with pytest.warns(UserWarning, match="skipped 2 unreadable lines"):
        task.load()
    return task


def by_subset(task: OfficialTask) -> dict[str, list]:
    out: dict[str, list] = {}
    for s in task.samples():
        out.setdefault(s.meta["subset"], []).append(s)
    return out


def test_all_13_kinds_load_with_typed_golds(loaded: OfficialTask) -> None:
    samples = loaded.samples()
    assert {s.meta["kind"] for s in samples} == set(KINDS)
    assert len(samples) == 22 and len({s.id for s in samples}) == 22
    assert all(s.split == "test" and s.meta["source"] == "official" for s in samples)
    assert loaded.samples(split="train") == [] and loaded.samples(limit=3) == samples[:3]
    # interleaved: the first samples come from different files
    assert len({s.meta["subset"] for s in samples[:10]}) == 10
    subsets = by_subset(loaded)
    assert "navigation_with_weights_5" not in subsets  # kinds outside the paper's 13 are skipped
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
    assert loaded.skipped[0].startswith("direction_determination.jsonl:3: answer option 9")


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


def test_environment_configures_the_registered_task(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_PATH, str(DATA))
    monkeypatch.setenv(ENV_KIND, "direction_determination,point_region")
    monkeypatch.setenv(ENV_STYLE, "chat")
    task = get_task("stbench.official")
    assert task.toolsets == ("geodesy", "geometry")
    with pytest.warns(UserWarning):
        samples = task.samples()
    assert Counter(s.meta["kind"] for s in samples) == {"direction_determination": 2, "point_region": 1}
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


def test_no_path_warns_and_yields_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_PATH, raising=False)
    task = OfficialTask()
    with pytest.warns(UserWarning, match=ENV_PATH):
        assert task.samples() == []
    with pytest.raises(ValueError, match="unknown STBench kind"):
        OfficialTask(kind="teleportation")
    with pytest.raises(ValueError, match="neither"):
        OfficialTask(path=DATA / "missing.jsonl").samples()
