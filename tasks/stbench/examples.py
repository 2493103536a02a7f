"""The example replies of STBench's answers (:mod:`tasks.examples`), synthetic and official alike: a numbered
option, a two-way verdict or a predicted point, in chat or completion style."""

from __future__ import annotations

from typing import Any

from tasks.examples import Replies, numbered_replies, point_replies, two_way_replies
from tasks.records import Sample

YES_NO_KINDS = ("trajectory_identification", "poi_identification")


def replies(sample: Sample[Any]) -> Replies:
    """The replies of the sample's answer kind, read from its gold (official items carry their kind in meta)."""
    completion = sample.meta.get("style") == "completion"
    t = sample.target
    if "option" in t:
        return numbered_replies(sample, int(t["option"]))
    if t.get("answer") in ("yes", "no") or sample.meta.get("kind") in YES_NO_KINDS:
        gold = "Yes" if t["answer"] == "yes" else "No"
        return two_way_replies(gold, "No" if gold == "Yes" else "Yes", completion)
    if t.get("answer") in ("normal", "anomalous"):
        return two_way_replies(t["answer"], "normal" if t["answer"] == "anomalous" else "anomalous", completion)
    lonlat = sample.payload.get("answer_order") == "lonlat" or (completion and "answer_order" not in sample.payload)
    return point_replies(sample, lonlat, completion)
