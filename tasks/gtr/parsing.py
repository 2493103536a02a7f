"""GTR answer parsing on the shared answer layer (:mod:`tasks.answers`): option letters (any number of options),
option text, camera ids, intervals, and the prediction tasks' camera + interval answers.

Policy (docs/scoring.md): the answer is the FINAL ANSWER line (else the line a free reply commits to).
An answer that names more than one option — two letters ("A or B", "A, B, C, D"), every option echoed, a letter
whose cameras or interval are another option's, "C482 or C937" — is ``hedged`` and never credited. The released
GTR-Bench scorer reads only A–D and gives 0 to an answer that repeats the option text; here any letter of the
item counts, and so do the option's text, its exact camera ids or (arrival interval) its interval.

Prediction tasks (next spot, trajectory, multi-target) follow the paper: the options name cameras only and the
model states the interval(s) itself, ``FINAL ANSWER: B; C482 [170.4, 178.5]`` (or the cameras without a letter,
``C482 from 170.4 s to 178.5 s``; or a letter with bare intervals, ``B [170.4, 178.5]``, paired with the
option's cameras in order). A camera named without an interval has no temporal answer: its segment scores
ST-IoU 0, while the camera choice still counts for MCQ accuracy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, TypedDict

from tasks.answers import answer_block, decide, distinct, extract, option_labels, option_texts, prepare
from tasks.records import Parsed, Sample

CAMERA_RE = re.compile(r"\b[Cc]\d{3}\b")
_NUM = r"(?<![\w.])[-+]?\d+(?:\.\d+)?"
_SEP = r"\s*(?:s\b|secs?\b|seconds\b)?\s*(?:-|–|—|to|,|and|until|\|)\s*(?:t\s?=\s?)?"
SEGMENT_RE = re.compile(rf"\b([Cc]\d{{3}})\b[^\d\n]{{0,40}}?({_NUM}){_SEP}({_NUM})", re.IGNORECASE)
INTERVAL_RE = re.compile(rf"({_NUM}){_SEP}({_NUM})", re.IGNORECASE)
_LEAD_LETTER = re.compile(
    r"^\s*(?:(?:the\s+)?(?:option|choice|answer)(?:\s+is)?\s*:?\s*)?[(\[]?([A-Z])[)\]]?\s*(?=$|[;.:,)\-]|\s+(?:C\d{3}|\[))")
_ALTERNATIVE = re.compile(r"\b(?:or|either|maybe|perhaps|possibly)\b", re.IGNORECASE)

FreeParser = Callable[[str, Sample], Parsed[int] | None]


class ChoiceAnswer(TypedDict):
    """A multiple-choice answer: the option's 0-based index."""

    choice: int


class ForecastAnswer(TypedDict):
    """A prediction answer: the option chosen (None when the cameras written are no option's) and the segments
    stated, ``[[camera, [from, to] or None], ...]``."""

    choice: int | None
    segments: list[list[Any]]
"""Reads an answer segment that names no option by letter or text (camera ids, an interval): the parse, or
None when the segment holds nothing of that kind."""


def camera_ids(segment: str) -> list[str]:
    """Camera ids in order of appearance, upper-cased."""
    return [c.upper() for c in CAMERA_RE.findall(segment)]


def intervals(segment: str) -> list[tuple[float, float]]:
    """Every ``a - b``, ``[a, b]``, ``from a s to b s`` pair of numbers written in ``segment``."""
    return [(float(m.group(1)), float(m.group(2))) for m in INTERVAL_RE.finditer(segment)]


def free_segments(segment: str) -> list[tuple[str, tuple[float, float] | None]]:
    """``C482 from 170.4 s to 178.5 s; C937 [220.1, 228.0]`` -> segments; cameras without a readable interval
    get None."""
    found = [(m.group(1).upper(), (float(m.group(2)), float(m.group(3))), m.start(), m.end())
             for m in SEGMENT_RE.finditer(segment)]
    covered = [(s, e) for _, _, s, e in found]
    out: list[tuple[int, tuple[str, tuple[float, float] | None]]] = [(s, (c, iv)) for c, iv, s, _ in found]
    for m in CAMERA_RE.finditer(segment):
        if not any(s <= m.start() < e for s, e in covered):
            out.append((m.start(), (m.group(0).upper(), None)))
    return [seg for _, seg in sorted(out, key=lambda t: t[0])]


def _choice(parsed: Parsed[int]) -> Parsed[ChoiceAnswer]:
    """An option index parse as the GTR value ``{"choice": index}``."""
    if not parsed.ok:
        return parsed.no_answer()
    return Parsed(raw=parsed.raw, ok=True, value=ChoiceAnswer(choice=parsed.answer), reason=parsed.reason)


def find_option(segment: str, sample: Sample, free: FreeParser | None = None) -> Parsed[int]:
    """The one option an answer segment names (value: its index): by letter, by its cameras or interval
    (``free``), or else by its text. Several options named, or a letter whose segment also gives cameras or an
    interval of no option or of another option, are hedged."""
    choices = sample.choices or ()
    labels = distinct(option_labels(segment, len(choices)))
    by_free = free(segment, sample) if free is not None else None
    if by_free is not None and by_free.status == "hedged":
        return by_free
    if by_free is not None:
        named = labels + ([by_free.answer] if by_free.ok else [])
        if labels and not by_free.ok:
            return Parsed.hedged(segment, f"the letter and the rest of the answer disagree: {segment[:80]!r}")
        return decide(segment, named, what="option") if named else by_free
    return decide(segment, labels + option_texts(segment, [[c] for c in choices]), what="option")


def parse_option(text: str, sample: Sample, free: FreeParser | None = None) -> Parsed[ChoiceAnswer]:
    """Parse an answer to a GTR multiple-choice item (value ``{"choice": index}``); ``free`` reads answers
    that give the option's cameras or interval instead of its letter."""
    return _choice(extract(text, lambda seg: find_option(seg, sample, free), prompt=sample.prompt))


def by_camera_ids(key: str = "option_cameras", strip_ends: Sequence[str] = ()) -> FreeParser:
    """A free parser picking the option whose camera list (``payload[key][i]``) equals the ids in the answer,
    ignoring the ids in ``payload[e]`` for ``e`` in ``strip_ends`` when they open or close the answer. Ids of
    no option are unparsed; two camera lists offered as alternatives ("C1 → C2 or C2 → C1") are hedged."""

    def match(ids: list[str], sample: Sample) -> list[int]:
        options = [list(o) for o in sample.payload[key]]
        trimmed = list(ids)
        ends = [sample.payload[e] for e in strip_ends]
        if len(ends) == 2:
            if trimmed and trimmed[0] == ends[0]:
                trimmed = trimmed[1:]
            if trimmed and trimmed[-1] == ends[1]:
                trimmed = trimmed[:-1]
        return [i for i, o in enumerate(options) if o in (ids, trimmed)]

    def parse(segment: str, sample: Sample) -> Parsed[int] | None:
        ids = camera_ids(segment)
        if not ids:
            return None
        parts = [camera_ids(p) for p in re.split(r"\bor\b|\(", segment, flags=re.IGNORECASE)]
        named = [i for p in parts if p for i in match(p, sample)]
        if len(distinct(named)) > 1:
            return decide(segment, named, what="option")
        hits = match(ids, sample)
        if len(hits) == 1:
            return Parsed.success(segment, hits[0])
        return Parsed.failure(segment, f"the camera ids name no option: {' '.join(ids)[:80]}")

    return parse


def by_interval(key: str = "option_intervals", tolerance_s: float = 0.05) -> FreeParser:
    """A free parser picking the option whose interval (``payload[key][i]``) the answer writes (±``tolerance_s``);
    two different intervals are hedged, an interval of no option is unparsed."""

    def parse(segment: str, sample: Sample) -> Parsed[int] | None:
        found = intervals(segment)
        if not found:
            return None
        if len(distinct(found)) > 1:  # several different intervals: a hedge
            return decide(segment, found, what="interval").no_answer()
        lo, hi = found[0]
        hits = [i for i, (s, e) in enumerate(sample.payload[key])
                if abs(s - lo) <= tolerance_s and abs(e - hi) <= tolerance_s]
        if hits:
            return Parsed.success(segment, hits[0])
        return Parsed.failure(segment, f"the interval [{lo}, {hi}] is no option's")

    return parse


def find_forecast(segment: str, sample: Sample) -> Parsed[ForecastAnswer]:
    """A prediction answer: value ``{"choice": index or None, "segments": [[camera, [from, to] or None], ...]}``.

    With a letter, the segments are the option's cameras in order, each with the interval written beside it
    (or the bare intervals in order); without one, the cameras and intervals written, and the choice is the
    option listing exactly those cameras (None when none does). Hedged: two letters, "or"/"maybe" between
    candidates, cameras of another option beside a letter, several cameras where every option has one, a
    camera with two different intervals, or more intervals than cameras.
    """
    options = [list(o) for o in sample.payload["option_cameras"]]
    lead = _LEAD_LETTER.match(segment)
    letter = ord(lead.group(1)) - 65 if lead and ord(lead.group(1)) - 65 < len(options) else None
    rest = segment[lead.end():] if letter is not None and lead else segment
    offers = _ALTERNATIVE.search(segment) and (letter is not None or CAMERA_RE.search(segment) or intervals(segment))
    if offers or len(distinct(option_labels(segment, len(options)))) > 1:  # a declining sentence's "or" is none
        return Parsed.hedged(segment, f"the answer offers alternatives: {segment[:80]!r}")
    segs = free_segments(rest)
    cams = [c for c, _ in segs]
    found = intervals(rest)
    if len(found) > sum(iv is not None for _, iv in segs) and cams:
        return Parsed.hedged(segment, f"more intervals than cameras: {segment[:80]!r}")
    by_cam: dict[str, set[tuple[float, float]]] = {}
    for c, iv in segs:
        if iv is not None:
            by_cam.setdefault(c, set()).add(iv)
    if any(len(v) > 1 for v in by_cam.values()):
        return Parsed.hedged(segment, f"a camera with two different intervals: {segment[:80]!r}")
    if letter is not None and lead is not None:
        want = options[letter]
        if any(c not in want for c in cams):
            return Parsed.hedged(segment, f"option {lead.group(1)} and other cameras: {segment[:80]!r}")
        if cams:
            pred = [[c, list(next(iter(by_cam[c])))] if c in by_cam else [c, None] for c in want]
        else:
            if len(found) > len(want):
                return Parsed.hedged(segment, f"more intervals than the option's cameras: {segment[:80]!r}")
            pred = [[c, list(found[i]) if i < len(found) else None] for i, c in enumerate(want)]
        return Parsed.success(segment, ForecastAnswer(choice=letter, segments=pred))
    if not cams:
        return Parsed.failure(segment, f"no option letter or camera id in the answer: {segment[:80]!r}")
    if all(len(o) == 1 for o in options) and len(set(cams)) > 1:
        return Parsed.hedged(segment, f"several cameras where one is asked for: {' '.join(cams)[:80]}")
    segs = distinct(segs)  # the same camera and interval written twice is one segment
    cams = [c for c, _ in segs]
    hits = [i for i, o in enumerate(options) if o == cams]
    return Parsed.success(segment, ForecastAnswer(choice=hits[0] if hits else None,
                                                  segments=[[c, list(iv) if iv else None] for c, iv in segs]))


def parse_forecast(text: str, sample: Sample) -> Parsed[ForecastAnswer]:
    """Parse an answer to a GTR prediction item (see :func:`find_forecast`). Intervals written as JSON
    (``{"option": "B", "camera": "C482", "interval": [170.4, 178.5]}``, or ``"from"``/``"to"``) or in a table
    under a FINAL ANSWER line that holds only the letter are read like ``B; C482 [170.4, 178.5]``."""
    if not isinstance(text, str):
        return extract(text, lambda seg: find_forecast(seg, sample), prompt=sample.prompt)
    parsed = extract(_unjson_forecast(text), lambda seg: find_forecast(seg, sample), prompt=sample.prompt)
    if not parsed.ok or any(iv is not None for _, iv in parsed.answer["segments"]):
        return parsed.model_copy(update={"raw": text})
    block = answer_block(prepare(text))
    if block and "|" in block:  # "FINAL ANSWER: B" and a table of cameras and times under it
        rows = " ; ".join(" ".join(ln.replace("|", " | ").split()) for ln in block.split("\n")[1:] if "|" in ln)
        first = block.split("\n")[0]
        table = find_forecast(f"{first}; {rows}", sample)
        if table.ok and table.answer["choice"] == parsed.answer["choice"]:
            return table.model_copy(update={"raw": text})
    return parsed.model_copy(update={"raw": text})


_JSON_OBJECT = re.compile(r"\{[^{}]{0,400}\}")
_CAMERA_KEYS = ("camera", "camera_id", "cam")
_OPTION_KEYS = ("option", "letter", "answer", "choice")


def _unjson_forecast(text: str) -> str:
    """A JSON object naming a camera and its in-view interval written as ``FINAL ANSWER: B; C482 [a, b]``."""
    if "{" not in text:
        return text

    def rewrite(m: re.Match[str]) -> str:
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            return m.group(0)
        keys = {str(k).lower(): v for k, v in obj.items()} if isinstance(obj, dict) else {}
        camera = next((keys[k] for k in _CAMERA_KEYS if isinstance(keys.get(k), str)), None)
        span = keys.get("interval") or keys.get("in_view") or [keys.get("from", keys.get("start")),
                                                                 keys.get("to", keys.get("end"))]
        if camera is None or not isinstance(span, list) or len(span) != 2 or not all(
                isinstance(x, (int, float)) for x in span):
            return m.group(0)
        letter = next((keys[k] for k in _OPTION_KEYS if isinstance(keys.get(k), str)), "")
        return f"\nFINAL ANSWER: {letter + '; ' if letter else ''}{camera} [{span[0]}, {span[1]}]\n"
    return _JSON_OBJECT.sub(rewrite, text)
