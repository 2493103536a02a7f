"""GPSBench Applied: boundary analysis, grouping 4-6 cities by continent, by name only (App. B.2, C.6).

Globally balanced, unambiguously named cities at least 100 km apart. Gold continents come from GeoNames'
country-to-continent table; cities in countries that straddle continents (Russia, Turkey, Egypt, Kazakhstan,
the Caucasus, Cyprus) and outlying parts filed under a far continent (Hawaii, the Canaries, Ceuta, Melilla, the
Azores, Madeira, Galápagos, Easter Island) are left out, so the convention never decides the answer, and so are
places whose name contains a continent's name (a town called Asia in Peru). Correct
when every city is put under its continent; the error is the number of misplaced cities.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TypedDict

from geocore.gazetteer import CONTINENTS
from tasks.answers import (
    DISOWNED,
    UNCOMMITTED,
    answer_block,
    blank_phrase,
    clean,
    commit_block,
    contains_phrase,
    earlier_blocks,
    find_answer,
    find_phrase,
    fold,
    has_commit_cue,
    is_refusal,
    located,
    prepare,
)
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.sampling import continent_is_clear, is_unambiguous, sample_balanced
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task

CONTINENT_NAMES = {k: v for k, v in CONTINENTS.items() if k != "AN"}
_ALIASES: dict[str, str] = {
    **{fold(v): k for k, v in CONTINENT_NAMES.items()},
    "australia": "OC", "australia and oceania": "OC", "australia oceania": "OC", "oceania australia": "OC",
    "north american": "NA", "south american": "SA", "european": "EU", "asian": "AS", "african": "AF",
    "central america": "NA", "caribbean": "NA",
}
_ALIASES_BY_LENGTH = sorted(_ALIASES, key=len, reverse=True)
_CODE = re.compile(r"(?<![A-Za-z])(AF|AS|EU|NA|SA|OC)(?=\s*[:)\]-])")
TEMPLATE = (
    "Group these places by continent (Africa, Asia, Europe, North America, South America, Oceania): {names}.\n"
    "End your reply with the line FINAL ANSWER: <Continent>: <place>, <place>; <Continent>: <place>; ..."
)


def names_continent(name: str) -> bool:
    """Whether a place name contains a continent's name ("Asia" in Peru), which would make answers ambiguous."""
    key = fold(name)
    return any(contains_phrase(key, alias) for alias in _ALIASES)


def continent_claims(block: str, names: list[str]) -> dict[str, list[str]]:
    """Every continent each place name in ``block`` is put under, in order of appearance."""
    text = _CODE.sub(lambda m: " " + CONTINENT_NAMES[m.group(1)] + " ", clean(block))
    folded = fold(text)
    marks: list[tuple[int, str, str]] = []  # (position, kind, value)
    taken = folded
    for alias in _ALIASES_BY_LENGTH:
        marks += [(pos, "continent", _ALIASES[alias]) for pos in find_phrase(taken, alias)]
        taken = blank_phrase(taken, alias)
    for name in sorted(names, key=lambda n: len(fold(n)), reverse=True):
        key = fold(name)
        marks += [(pos, "place", name) for pos in find_phrase(taken, key)]
        taken = blank_phrase(taken, key)
    marks.sort()
    firsts = [k for _, k, _ in marks]
    if "continent" not in firsts or "place" not in firsts:
        return {}
    heading_style = firsts.index("continent") < firsts.index("place")
    out: dict[str, list[str]] = {}
    seq = marks if heading_style else list(reversed(marks))
    current: str | None = None
    for _, kind, value in seq:
        if kind == "continent":
            current = value
        elif current is not None and current not in out.setdefault(value, []):
            out[value].append(current)
    return out


class ContinentsTarget(TypedDict):
    continents: dict[str, str]
    groups: dict[str, list[str]]


@register_task("gpsbench.boundary_analysis")
class BoundaryAnalysisTask(GpsTask[ContinentsTarget, dict[str, str]]):
    track = "applied"
    toolsets = ("gazetteer",)

    def draw(self, seed: int, size: int) -> Iterator[Sample[ContinentsTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            while True:
                group = sample_balanced(rng, rng.randint(4, 6), 100.0,
                                        lambda c: continent_is_clear(c) and is_unambiguous(c) and not names_continent(c.name))
                keys = [fold(c.name) for c in group]
                if len(set(keys)) == len(keys) and not any(
                        a != b and f" {a} " in f" {b} " for a in keys for b in keys):
                    break
            names = [c.name for c in group]
            yield self.make(
                i, size, TEMPLATE.format(names=", ".join(names)),
                {"continents": {c.name: c.continent for c in group},
                 "groups": {CONTINENT_NAMES[k]: [c.name for c in group if c.continent == k]
                            for k in CONTINENT_NAMES if any(c.continent == k for c in group)}},
                {"cities": names, "geonameids": [c.geonameid for c in group]},
                place_meta(group[0], n_places=len(group), n_continents=len({c.continent for c in group})),
            )

    def example_replies(self, sample: Sample[ContinentsTarget]) -> Replies:
        return examples.continents(sample)

    def parse(self, text: str, sample: Sample[ContinentsTarget]) -> Parsed[dict[str, str]]:
        """Continent of each place named after the FINAL ANSWER marker (all lines after it) or, without one,
        after the reply's last committing cue ("Therefore, the answer is ...", else its last line); a place put
        under two continents is a hedge."""
        raw, text = text, prepare(text)
        block = answer_block(text)
        final = block is not None
        if block is None:
            block = commit_block(text)
        if UNCOMMITTED.search(block):
            return Parsed.hedged(raw, f"the answer does not commit to one grouping: {block[:80]!r}")
        claims = continent_claims(block, list(sample.target["continents"]))
        answer = None if final or has_commit_cue(text) else find_answer(text)
        if (answer is not None and not located(text, answer) and not is_refusal(text)
                and not (set(claims) == set(sample.target["continents"])  # a last line that is only the grouping
                         and fold(answer.text).startswith(tuple(fold(n) for n in CONTINENT_NAMES.values())))):
            return Parsed.unlocated(raw, f"no FINAL ANSWER line and no committed last line: {answer.text[:60]!r}")
        if not claims:
            if is_refusal(block) or (not final and is_refusal(text)):
                return Parsed.refused(raw)
            where = "after FINAL ANSWER" if final else "in the committed answer (no FINAL ANSWER line)"
            return Parsed.failure(raw, f"no place put under a continent {where}")
        if final and any(continent_claims(earlier, list(sample.target["continents"])) not in ({}, claims)
                         for earlier in earlier_blocks(text)):
            return Parsed.hedged(raw, "FINAL ANSWER blocks that group the places differently")
        if DISOWNED.search(block):
            return Parsed.hedged(raw, f"the answer disowns its grouping: {block[:80]!r}")
        several = {n: c for n, c in claims.items() if len(c) > 1}
        if several:
            return Parsed.hedged(raw, "places put under several continents: " + "; ".join(
                f"{n}: {', '.join(c)}" for n, c in several.items()), candidates=several)
        return Parsed.success(raw, {n: c[0] for n, c in claims.items()})

    def score(self, parsed: Parsed[dict[str, str]], sample: Sample[ContinentsTarget]) -> Score:
        if not parsed.ok:
            return failed(parsed, "places")
        gold: dict[str, str] = sample.target["continents"]
        wrong = [n for n, k in gold.items() if parsed.answer.get(n) != k]
        detail = "; ".join(f"{n}: {CONTINENT_NAMES.get(parsed.answer.get(n, ''), 'missing')} (gold "
                           f"{CONTINENT_NAMES[gold[n]]})" for n in wrong)
        return graded(not wrong, float(len(wrong)), "places", f"{len(gold) - len(wrong)}/{len(gold)} placed right"
                                                             + (f"; {detail}" if detail else ""))
