"""GTR generation: registration, determinism, splits, settings and tiers, anonymised ids, distractor kinds."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from geocore.networks import build_network
from tasks import get_task
from tasks.gtr.scenes import tier_of
from tasks.registry import resolve_tasks

NAMES = ["gtr.arrival_interval", "gtr.causal_reordering", "gtr.geo_location", "gtr.motion_state",
         "gtr.multi_target", "gtr.next_spot", "gtr.trajectory_forecast"]
SIZE = 12


def test_family_registers_seven_tasks() -> None:
    assert resolve_tasks(["gtr.*"]) == NAMES
    for name in NAMES:
        task = get_task(name)
        assert task.family == "gtr" and task.toolsets == ("network",)
        assert task.paper_size == 60 and task.size == 60  # 420 QAs / 7 tasks, half outdoor, half indoor


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_split_and_balanced(name: str) -> None:
    task = get_task(name, size=SIZE)
    a, b = task.generate(seed=4, size=SIZE), task.generate(seed=4, size=SIZE)
    assert [s.model_dump() for s in a] == [s.model_dump() for s in b]
    assert [s.prompt for s in task.generate(seed=5, size=SIZE)] != [s.prompt for s in a]
    splits = Counter(s.split for s in a)  # split by item identity: the first block of 10 is 6/1/3
    assert splits["train"] >= 6 and splits["dev"] >= 1 and splits["test"] >= 3 and sum(splits.values()) == SIZE
    assert len({s.id for s in a}) == SIZE and all(s.id.startswith(f"{name}/{s.split}/") for s in a)
    assert Counter((s.meta["setting"], s.meta["tier"]) for s in a) == {
        (k, t): 2 for k in ("outdoor", "indoor") for t in ("long", "medium", "short")}
    for s in a:
        assert tier_of(s.meta["setting"], s.meta["track_m"], s.meta["track_s"]) == s.meta["tier"]
        assert len(s.choices) == 4
        assert len(set(s.choices)) == len(s.choices)
        assert s.choices[s.target["index"]] == s.target["answer"]
        assert f"Network id: {s.payload['network_id']}" in s.prompt and "FINAL ANSWER: <letter>" in s.prompt
        assert len(s.prompt) < 2400  # ~700 tokens: the embedded model reads it at ~84 tokens/s
    assert len({s.target["index"] for s in task.generate(seed=4, size=SIZE)}) > 1


def test_camera_ids_are_anonymised_per_item() -> None:
    samples = get_task("gtr.next_spot", size=SIZE).generate(seed=1, size=SIZE)
    ids = [s.payload["network_id"] for s in samples]
    assert len(set(ids)) == SIZE
    for s in samples:
        net = build_network(s.payload["network_id"])
        in_prompt = set(re.findall(r"\bC\d{3}\b", s.prompt.split("\n\n", 1)[0]))
        assert in_prompt == {c.id for c in net.cameras}


def test_distractor_kinds_follow_the_paper() -> None:
    kinds = Counter(k for s in get_task("gtr.geo_location", size=24).generate(seed=2, size=24)
                    for k in s.payload["option_kinds"])
    assert {"gold", "other_route", "shuffled", "other_area", "phantom"} <= set(kinds)
    kinds = Counter(k for s in get_task("gtr.next_spot", size=SIZE).generate(seed=2, size=SIZE)
                    for k in s.payload["option_kinds"])
    assert {"wrong_neighbour", "other_area", "phantom"} <= set(kinds)
    kinds = Counter(k for s in get_task("gtr.trajectory_forecast", size=SIZE).generate(seed=2, size=SIZE)
                    for k in s.payload["option_kinds"])
    assert {"other_route", "stops_short", "other_area", "phantom"} <= set(kinds)


@pytest.mark.parametrize("name", ["gtr.next_spot", "gtr.trajectory_forecast", "gtr.multi_target"])
def test_prediction_options_name_cameras_only(name: str) -> None:
    """The paper's form: options never carry the interval; the gold interval is in the target only."""
    for s in get_task(name, size=SIZE).generate(seed=6, size=SIZE):
        block = s.prompt.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
        assert not re.search(r"\d+\.\d", block), block
        assert all(re.fullmatch(r"C\d{3}(?: → C\d{3})*", c) for c in s.choices)
        assert s.choices[s.target["index"]] == " → ".join(s.target["cameras"])
        assert [c for c, _ in s.target["segments"]] == s.target["cameras"]
        assert "state the interval" in s.prompt and "[<from>, <to>]" in s.prompt
        assert len(set(s.choices)) == len(s.choices)


@pytest.mark.parametrize(
    ("kind", "dist", "dur", "tier"),
    [("outdoor", 500, 50, "short"), ("outdoor", 500, 100, "medium"), ("outdoor", 1500, 150, "long"),
     ("outdoor", 1500, 100, "medium"), ("indoor", 40, 30, "short"), ("indoor", 100, 80, "long"),
     ("indoor", 100, 30, "medium")],
)
def test_tiers_use_per_setting_thresholds(kind: str, dist: float, dur: float, tier: str) -> None:
    assert tier_of(kind, dist, dur) == tier
