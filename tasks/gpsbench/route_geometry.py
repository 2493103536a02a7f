"""GPSBench Pure GPS: route simplification with Ramer-Douglas-Peucker (App. B.1).

A path of 8-15 waypoints runs 20-120 km from a quota-drawn city (points along a great circle, pushed sideways by
random offsets of a few km); epsilon is drawn from 0.5-2.0 km (0.1 km steps). Gold is the sorted list of kept
indices by RDP with the spherical cross-track distance to each arc (the definition of
:func:`geocore.polygons.rdp`, computed by :func:`geocore.polygons.rdp_with_margin`). Paths where some RDP
comparison lies within 3 % of epsilon (the result would change if epsilon moved by 3 %), or where RDP keeps only
the endpoints or every point, are redrawn. Exact set match; the error is the number of wrong indices.

``gpsbench.route_geometry.mcq`` is the paper's form (App. E: "Gold Answer: A (points kept: [...])"): the same
paths, and four options A-D, each a list of kept indices: the gold and three distractors drawn from RDP at half
and at twice epsilon, the gold less one kept interior point, plus one dropped point, or with one kept point
moved to its neighbour. Options always keep both endpoints and are all different. The answer is one letter (or
one option's exact list); two options are hedged.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import ClassVar, NotRequired, TypedDict, cast

from geocore.gazetteer import City
from geocore.polygons import rdp_with_margin
from geocore.sphere import EARTH_RADIUS_KM, destination
from tasks.answers import extract, option
from tasks.base import shared_stream, stable_seed
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import (
    LETTERS,
    ChoiceTarget,
    GpsTask,
    failed,
    graded,
    options_block,
    place_meta,
    score_choice,
)
from tasks.gpsbench.parsing import parse_index_list
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.sampling import sample_global
from tasks.records import Parsed, Sample, Score
from tasks.registry import Variant, register_task

ROBUSTNESS = 0.03
TEMPLATE = (
    "Simplify this path with the Ramer-Douglas-Peucker algorithm using epsilon = {eps:.1f} km. Points are "
    "numbered from 0 (latitude, longitude in decimal degrees):\n{points}\n"
    "The distance of a point to a segment is its great-circle cross-track distance to the segment's arc (or the "
    "distance to the nearer end when the perpendicular falls outside the arc), on a sphere of radius 6371 km. "
    "Points farther than epsilon are kept; the first and last points are always kept.\n"
    "End your reply with the line FINAL ANSWER: [indices of the kept points, ascending]."
)


def _move(lat: float, lon: float, bearing: float, km: float) -> tuple[float, float]:
    """Destination after ``km`` along a great circle (sphere R = 6371 km); negative km go backwards."""
    lat2, lon2 = destination(lat, lon, bearing, km / EARTH_RADIUS_KM)
    return lat2, (lon2 + 540.0) % 360.0 - 180.0


def make_path(rng: random.Random, start_lat: float, start_lon: float) -> list[tuple[float, float]]:
    """8-15 points along a random bearing with random sideways offsets (km), rounded as printed."""
    n = rng.randint(8, 15)
    length = rng.uniform(20.0, 120.0)
    bearing = rng.uniform(0.0, 360.0)
    spread = rng.uniform(0.4, 2.5)
    pts = []
    along = [0.0] + sorted(rng.uniform(0.0, length) for _ in range(n - 2)) + [length]
    for k in range(n):
        offset = 0.0 if k in (0, n - 1) else rng.gauss(0.0, spread)
        base = _move(start_lat, start_lon, bearing, along[k])
        lat, lon = _move(base[0], base[1], bearing + 90.0, offset)
        pts.append(rounded(lat, lon))
    return pts


class RouteGeometryTarget(TypedDict):
    """The kept indices; in the ``mcq`` form also the gold option (letter, index)."""

    kept: list[int]
    letter: NotRequired[str]
    index: NotRequired[int]


@register_task("gpsbench.route_geometry", variants=(
    Variant("mcq", {"form": "mcq", "answer_kind": "option"}, "The paper's multiple-choice form: which of four index lists RDP keeps."),
))
class RouteGeometryTask(GpsTask[RouteGeometryTarget, list[int] | int]):
    """The exact-list form: the model lists the kept indices; exact set match."""

    toolsets = ("shapes",)
    form: ClassVar[str] = "list"
    """``list`` (the indices) or ``mcq`` (one of four lists, :func:`mcq_samples`); both draw the same paths."""

    def paths(self, seed: int, size: int) -> Iterator[tuple[City, list[tuple[float, float]], float, list[int]]]:
        """Per item: the start city, the path, epsilon (km) and the RDP-kept indices. Drawn once per process
        and shared by both forms (:func:`tasks.base.shared_stream`)."""
        return shared_stream((self.item_key, seed, size)).replay(lambda: self._draw_paths(seed, size))

    def _draw_paths(self, seed: int, size: int) -> Iterator[tuple[City, list[tuple[float, float]], float, list[int]]]:
        rng = self.rng(seed)
        for _ in range(size):
            while True:
                city = sample_global(rng, 1, 0.0)[0]
                pts = make_path(rng, city.lat, city.lon)
                eps = round(rng.uniform(0.5, 2.0), 1)
                kept, margin = rdp_with_margin(pts, eps * 1000.0)
                if margin > ROBUSTNESS and 2 < len(kept) < len(pts):
                    break
            yield city, pts, eps, kept

    def draw(self, seed: int, size: int) -> Iterator[Sample[RouteGeometryTarget]]:
        if self.form == "mcq":
            yield from mcq_samples(self, seed, size)
            return
        for i, (city, pts, eps, kept) in enumerate(self.paths(seed, size)):
            listing = "\n".join(f"{k}: {fmt_point(*p)}" for k, p in enumerate(pts))
            yield self.make(
                i, size, TEMPLATE.format(eps=eps, points=listing), {"kept": kept},
                {"points": [list(p) for p in pts], "epsilon_km": eps, "start_city": city.name},
                place_meta(city, n_points=len(pts)),
            )

    def example_replies(self, sample: Sample[RouteGeometryTarget]) -> Replies:
        if sample.choices:
            return score_choice.replies(sample)
        return examples.kept_points(sample)

    def parse(self, text: str, sample: Sample[RouteGeometryTarget]) -> Parsed[list[int] | int]:
        """The integer list of the committed answer; two different lists are hedged. In the ``mcq`` form one
        option letter (or one option's exact list); two options are hedged."""
        if self.form == "mcq":
            return extract(text, lambda seg: _option_list(seg, sample.payload["options"]), prompt=sample.prompt)
        return extract(text, parse_index_list, prompt=sample.prompt)

    def score(self, parsed: Parsed[list[int] | int], sample: Sample[RouteGeometryTarget]) -> Score:
        if self.form == "mcq":  # an option index scored against the gold option
            return score_choice(cast("Parsed[int]", parsed), cast("Sample[ChoiceTarget]", sample))
        if not parsed.ok:
            return failed(parsed, "indices")
        answer = parsed.answer
        assert isinstance(answer, list), "the list form parses an index list"
        gold, got = set(sample.target["kept"]), set(answer)
        wrong = len(gold ^ got)
        return graded(wrong == 0, float(wrong), "indices", f"answer {sorted(got)}, gold {sorted(gold)}")


def distractors(rng: random.Random, pts: list[tuple[float, float]], eps_km: float, kept: list[int],
                k: int = 3) -> list[list[int]]:
    """``k`` different wrong index lists for a path, each keeping both endpoints (see the module docstring)."""
    n, gold = len(pts), sorted(kept)
    interior_kept = [j for j in gold if 0 < j < n - 1]
    dropped = [j for j in range(1, n - 1) if j not in gold]
    pool: list[list[int]] = [rdp_with_margin(pts, eps_km * 500.0)[0], rdp_with_margin(pts, eps_km * 2000.0)[0]]
    if interior_kept:
        pool.append([j for j in gold if j != rng.choice(interior_kept)])
    if dropped:
        pool.append(sorted([*gold, rng.choice(dropped)]))
    moves = [(j, m) for j in interior_kept for m in (j - 1, j + 1) if 0 < m < n - 1 and m not in gold]
    if moves:
        j, m = rng.choice(moves)
        pool.append(sorted([*(x for x in gold if x != j), m]))
    rng.shuffle(pool)
    out: list[list[int]] = []
    for cand in [sorted(c) for c in pool]:
        if cand != gold and cand not in out:
            out.append(cand)
    while len(out) < k:  # short paths: random subsets with both endpoints
        cand = sorted({0, n - 1, *rng.sample(range(1, n - 1), rng.randint(1, n - 2))})
        if cand != gold and cand not in out:
            out.append(cand)
    return out[:k]


def list_text(indices: list[int]) -> str:
    return "[" + ", ".join(map(str, indices)) + "]"


MCQ_TEMPLATE = (
    "Simplify this path with the Ramer-Douglas-Peucker algorithm using epsilon = {eps:.1f} km. Points are "
    "numbered from 0 (latitude, longitude in decimal degrees):\n{points}\n"
    "The distance of a point to a segment is its great-circle cross-track distance to the segment's arc (or the "
    "distance to the nearer end when the perpendicular falls outside the arc), on a sphere of radius 6371 km. "
    "Points farther than epsilon are kept; the first and last points are always kept.\n"
    "Which points are kept?\n{options}\n"
    "End your reply with the line FINAL ANSWER: <letter>."
)


def _option_list(segment: str, options: list[list[int]]) -> Parsed:
    """One option by letter; else an index list equal to one option's list; a letter whose list is another
    option's (``C) [0, 4, 7]`` when that is A) is hedged."""
    by_letter = option(segment, [[] for _ in options], texts=False)
    listed = parse_index_list(segment)
    if by_letter.ok and listed.ok and listed.value in options and options.index(listed.value) != by_letter.value:
        return Parsed.hedged(segment, "the letter and the list name different options",
                             [by_letter.value, options.index(listed.value)])
    if by_letter.ok or by_letter.status == "hedged":
        return by_letter
    if not listed.ok:
        return listed
    if listed.value in options:
        return Parsed.success(segment, options.index(listed.value))
    return Parsed.failure(segment, f"the list {listed.value} is none of the options")


def mcq_samples(task: RouteGeometryTask, seed: int, size: int) -> Iterator[Sample]:
    """The ``mcq`` form's samples: each path with four options, the gold list and three distractors."""
    for i, (city, pts, eps, kept) in enumerate(task.paths(seed, size)):
        rng = random.Random(stable_seed(task.name, seed, i))
        options = [sorted(kept), *distractors(rng, pts, eps, kept)]
        rng.shuffle(options)
        gold = options.index(sorted(kept))
        texts = [list_text(o) for o in options]
        listing = "\n".join(f"{k}: {fmt_point(*p)}" for k, p in enumerate(pts))
        yield task.make(
            i, size, MCQ_TEMPLATE.format(eps=eps, points=listing, options=options_block(texts)),
            {"letter": LETTERS[gold], "index": gold, "kept": sorted(kept)},
            {"points": [list(p) for p in pts], "epsilon_km": eps, "start_city": city.name, "options": options},
            place_meta(city, n_points=len(pts)), choices=texts,
        )
