"""Shared machinery of the GTR tasks: the item loop (kind, tier, retries), options, parse and score."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from geocore.networks import KINDS, CameraNetwork, Kind
from tasks.base import GeneratedTask, stable_seed
from tasks.gtr.parsing import FreeParser, free_segments, parse_option
from tasks.gtr.prompts import LETTERS, SYSTEM_PROMPT, segments_text, user_prompt
from tasks.gtr.scenes import TIERS, Tier, pick_network, tier_of
from tasks.gtr.scoring import as_segments, score_forecast, score_mcq, st_iou
from tasks.records import Message, Parsed, Sample, Score

MAX_TRIES = 400
MAX_DISTRACTOR_ST_IOU = 0.85
"""A forecast distractor closer than this to the gold could be mistaken for it after rounding: dropped."""
TRIES_PER_NETWORK = 8


@dataclass
class Option:
    """One answer option: its text and the structured data it stands for (cameras, segments, ...)."""

    text: str
    data: Any = None
    kind: str = "gold"


def segment_option(segs: list[tuple[str, tuple[float, float]]], kind: str) -> Option:
    """An option that stands for camera segments: ``C482 [170.4, 178.5]; ...`` with ``[[cam, [t0, t1]], ...]``."""
    return Option(segments_text(segs), [[c, list(iv)] for c, iv in segs], kind)


@dataclass
class Item:
    """What a task's builder returns: the question, the gold option first, then the distractors."""

    question: str
    options: list[Option]
    target: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] = field(default_factory=dict)
    track_m: float = 0.0
    track_s: float = 0.0


class GTRTask(GeneratedTask):
    """Base of the GTR tasks: items alternate outdoor/indoor and cycle long/medium/short tiers."""

    family = "gtr"
    toolsets = ("network",)
    default_size = 60
    paper_size = 60  # 420 QAs over 7 tasks: 30 outdoor + 30 indoor each
    option_key: ClassVar[str] = "option_data"

    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def generate(self, seed: int, size: int) -> list[Sample]:
        return [self._make(seed, i, size) for i in range(size)]

    def _make(self, seed: int, index: int, size: int) -> Sample:
        kind: Kind = KINDS[index % 2]
        want: Tier = TIERS[(index // 2) % len(TIERS)]
        rng = random.Random(stable_seed(self.name, seed, index))
        fallback: tuple[CameraNetwork, Item, Tier] | None = None
        for attempt in range(MAX_TRIES):
            if attempt % TRIES_PER_NETWORK == 0:
                net = pick_network(rng, kind)
            item = self.build(rng, net)
            if item is None:
                continue
            tier = tier_of(kind, item.track_m, item.track_s)
            if tier == want:
                return self._sample(rng, seed, index, size, net, item, tier)
            fallback = fallback or (net, item, tier)
        if fallback is None:
            raise RuntimeError(f"{self.name}: could not build item {index} in {MAX_TRIES} tries")
        return self._sample(rng, seed, index, size, *fallback)

    def _sample(self, rng: random.Random, seed: int, index: int, size: int, net: CameraNetwork, item: Item,
                tier: Tier) -> Sample:
        order = list(range(len(item.options)))
        rng.shuffle(order)
        options = [item.options[i] for i in order]
        gold = order.index(0)
        choices = tuple(o.text for o in options)
        split = self.split_of(index)
        return Sample(
            id=self.sample_id(split, index),
            task=self.name,
            split=split,
            messages=(Message(role="system", content=SYSTEM_PROMPT),
                      Message(role="user", content=user_prompt(net, item.question, choices))),
            target={"index": gold, "letter": LETTERS[gold], "answer": choices[gold], **item.target},
            choices=choices,
            payload={"network_id": net.id, self.option_key: [o.data for o in options],
                     "option_kinds": [o.kind for o in options], **item.payload},
            meta={"setting": net.kind, "tier": tier, "place": net.place.name,
                  "track_m": round(item.track_m, 1), "track_s": round(item.track_s, 1), "seed": seed},
        )

    def free_parser(self) -> FreeParser | None:
        return None

    def parse(self, text: str, sample: Sample) -> Parsed:
        return parse_option(text, sample, self.free_parser())

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        return score_mcq(parsed, sample)


class ForecastTask(GTRTask):
    """A GTR prediction task: options are (camera, interval) segments, scored by ST-IoU and MCQ accuracy."""

    option_key = "option_segments"

    def parse(self, text: str, sample: Sample) -> Parsed:
        """An option (letter, text, or camera ids that only one option lists) or free camera + interval
        segments; the value always carries the predicted ``segments``."""
        parsed = parse_option(text, sample, _free_forecast)
        if parsed.ok and parsed.value.get("choice") is not None and "segments" not in parsed.value:
            segs = sample.payload["option_segments"][parsed.value["choice"]]
            return Parsed.success(text, {"choice": parsed.value["choice"], "segments": segs})
        return parsed

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        return score_forecast(parsed, sample)


def _free_forecast(segment: str, sample: Sample) -> dict[str, Any] | None:
    segs = free_segments(segment)
    if not segs:
        return None
    cams = [c for c, _ in segs]
    options = [[s[0] for s in o] for o in sample.payload["option_segments"]]
    if all(iv is None for _, iv in segs):
        hits = [i for i, o in enumerate(options) if o == cams]
        if len(hits) == 1:
            return {"choice": hits[0]}
    return {"choice": None, "segments": [[c, list(iv) if iv else None] for c, iv in segs]}


def distinct_segments(gold: Option, pool: list[Option]) -> list[Option]:
    """Forecast distractors with a new text and an ST-IoU against the gold of at most 0.85, first of each text."""
    gold_segs = as_segments(gold.data)
    out: dict[str, Option] = {}
    for o in pool:
        if o.text != gold.text and o.text not in out and st_iou(as_segments(o.data), gold_segs) <= MAX_DISTRACTOR_ST_IOU:
            out[o.text] = o
    return list(out.values())
