"""Shared machinery of the GTR tasks: the item loop (kind, tier, retries), options, parse and score."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

from geocore.networks import KINDS, CameraNetwork, Kind
from tasks.base import GeneratedTask, TargetT, ValueT, stable_seed
from tasks.examples import Replies
from tasks.gtr.examples import forecast_replies
from tasks.gtr.parsing import ChoiceAnswer, ForecastAnswer, FreeParser, parse_forecast, parse_option
from tasks.gtr.prompts import FORECAST_INSTRUCTION, LETTERS, MCQ_INSTRUCTION, SYSTEM_PROMPT, user_prompt
from tasks.gtr.routes import arrow
from tasks.gtr.scenes import TIERS, Tier, pick_network, tier_of
from tasks.gtr.scoring import ChoiceGold, ForecastGold, score_forecast, score_mcq
from tasks.records import Message, Parsed, Sample, Score

_SYSTEM = Message(role="system", content=SYSTEM_PROMPT)

MAX_TRIES = 1500
"""Tries per item to hit its (setting, tier) cell; indoor long trajectories are rare (about 1 build in 200)."""
TRIES_PER_NETWORK = 8


@dataclass
class Option:
    """One answer option: its text and the structured data it stands for (cameras, segments, ...)."""

    text: str
    data: Any = None
    kind: str = "gold"


def camera_option(cameras: list[str], kind: str) -> Option:
    """A prediction-task option: camera ids only (``C482`` or ``C482 → C937``), never an interval."""
    return Option(arrow(cameras), list(cameras), kind)


@dataclass
class Item:
    """What a task's builder returns: the question, the gold option first, then the distractors."""

    question: str
    options: list[Option]
    target: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] = field(default_factory=dict)
    track_m: float = 0.0
    track_s: float = 0.0


class GTRBase(GeneratedTask[TargetT, ValueT]):
    """Base of the GTR tasks (:class:`GTRTask`, :class:`ForecastTask`): items alternate outdoor/indoor and cycle
    long/medium/short tiers."""

    family = "gtr"
    breakdowns = {"difficulty": ("tier",)}
    toolsets = ("network",)
    default_size = 60
    independent_items = True
    paper_size = 60  # 420 QAs over 7 tasks: 30 outdoor + 30 indoor each
    option_key: ClassVar[str] = "option_data"
    instruction: ClassVar[str] = MCQ_INSTRUCTION

    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def sample_at(self, seed: int, index: int, size: int) -> Sample[TargetT]:
        kind: Kind = KINDS[index % 2]
        want: Tier = TIERS[(index // 2) % len(TIERS)]
        rng = random.Random(stable_seed(self.item_key, seed, index))  # a variant draws its base's items
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
                tier: Tier) -> Sample[TargetT]:
        order = list(range(len(item.options)))
        rng.shuffle(order)
        options = [item.options[i] for i in order]
        gold = order.index(0)
        choices = tuple(o.text for o in options)
        split = self.split_of(index)
        # the gold keys the scorers read (ChoiceGold), then the item's own
        target = cast(TargetT, {"index": gold, "letter": LETTERS[gold], "answer": choices[gold], **item.target})
        return Sample.unchecked(
            id=self.sample_id(split, index),
            task=self.name,
            split=split,
            messages=(_SYSTEM, Message.unchecked("user", user_prompt(net, item.question, choices, self.instruction))),
            target=target,
            choices=choices,
            payload={"network_id": net.id, self.option_key: [o.data for o in options],
                     "option_kinds": [o.kind for o in options], **item.payload},
            meta={"setting": net.kind, "tier": tier, "place": net.place.name,
                  "track_m": round(item.track_m, 1), "track_s": round(item.track_s, 1), "seed": seed},
        )


class GTRTask(GTRBase[ChoiceGold, ChoiceAnswer]):
    """A GTR multiple-choice task: the option by letter, or by what ``free_parser`` reads."""

    answer_kind = "option"

    def free_parser(self) -> FreeParser | None:
        return None

    scorer = score_mcq

    def parse(self, text: str, sample: Sample[ChoiceGold]) -> Parsed[ChoiceAnswer]:
        return parse_option(text, sample, self.free_parser())


class ForecastTask(GTRBase[ForecastGold, ForecastAnswer]):
    """A GTR prediction task in the paper's form: the options name cameras only; the model chooses one and
    states the in-view interval(s) itself. ``Score.correct`` is the camera choice (MCQ accuracy) and
    ``Score.value`` the ST-IoU (camera hit × temporal IoU); see :func:`tasks.gtr.scoring.score_forecast`."""

    option_key = "option_cameras"
    answer_kind = "interval"
    instruction = FORECAST_INSTRUCTION

    def parse(self, text: str, sample: Sample[ForecastGold]) -> Parsed[ForecastAnswer]:
        return parse_forecast(text, sample)

    def example_replies(self, sample: Sample[ForecastGold]) -> Replies:
        return forecast_replies(sample)

    def score(self, parsed: Parsed[ForecastAnswer], sample: Sample[ForecastGold]) -> Score:
        return score_forecast(parsed, sample)
