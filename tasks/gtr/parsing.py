"""GTR answer parsing: option letters (any number of options), exact option text, bare camera ids and free
camera + interval answers.

The released GTR-Bench scorer reads only A–D and gives 0 to an answer that repeats the option text; here a
letter is taken whole-word at the start of the answer, option text is matched after normalising arrows,
spaces and case, and camera ids pick the option that lists exactly those cameras.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from tasks.answers import final_answer_segment
from tasks.gtr.prompts import LETTERS
from tasks.records import Parsed, Sample

CAMERA_RE = re.compile(r"\b[Cc]\d{3}\b")
_NUM = r"[-+]?\d+(?:\.\d+)?"
SEGMENT_RE = re.compile(
    rf"\b([Cc]\d{{3}})\b[^\d\n]{{0,40}}?({_NUM})\s*(?:s\b|secs?\b|seconds\b)?\s*(?:-|–|—|to|,|and|until)\s*"
    rf"({_NUM})", re.IGNORECASE)
_PREFIXED_LETTER_RE = re.compile(
    r"^(?i:(?:the\s+)?(?:correct\s+)?(?:option|choice|answer)(?:\s+is)?)\s*[:(\[]?\s*([A-Za-z])\s*[)\]]?"
    r"(?=$|[\s.:,;)\]-])")
_LETTER_RE = re.compile(r"^[(\[]?\s*([A-Z])\s*[)\]]?(?=$|[\s.:,;)\]-])")
_ARROWS = re.compile(r"\s*(?:→|->|=>|⇒|—>|-->|>)\s*")

FreeParser = Callable[[str, Sample], dict[str, Any] | None]


def answer_segment(text: str) -> str | None:
    """The FINAL ANSWER line, or else the last non-empty line when it is short (≤ 120 characters)."""
    seg = final_answer_segment(text)
    if seg is not None:
        return seg
    lines = [ln.strip().strip("*").replace("**", "").strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines and len(lines[-1]) <= 120 else None


def normalise(text: str) -> str:
    """Lower case, one arrow style, single spaces, no trailing full stop or wrapping brackets/quotes."""
    t = _ARROWS.sub(" → ", text.strip().casefold())
    t = re.sub(r"\s+", " ", t).strip().strip("\"'`").rstrip(".").strip()
    return t


def match_choice(segment: str, choices: Sequence[str]) -> int | None:
    """Index of the option the segment names by exact text, by letter, or by containing one option's text."""
    seg = normalise(segment)
    norm = [normalise(c) for c in choices]
    for i, c in enumerate(norm):
        if seg in (c, f"{LETTERS[i].lower()}. {c}", f"{LETTERS[i].lower()}) {c}", f"({LETTERS[i].lower()}) {c}"):
            return i
    bare = segment.strip().strip(".)(][ ")
    if len(bare) == 1 and bare.upper() in LETTERS[:len(choices)]:
        return LETTERS.index(bare.upper())
    m = _PREFIXED_LETTER_RE.match(segment.strip()) or _LETTER_RE.match(segment.strip())
    if m and LETTERS.index(m.group(1).upper()) < len(choices):
        return LETTERS.index(m.group(1).upper())
    contained = [i for i, c in enumerate(norm) if c and c in seg]
    if contained:
        longest = max(len(norm[i]) for i in contained)
        best = [i for i in contained if len(norm[i]) == longest]
        if len(best) == 1:
            return best[0]
    return None


def camera_ids(segment: str) -> list[str]:
    """Camera ids in order of appearance, upper-cased."""
    return [c.upper() for c in CAMERA_RE.findall(segment)]


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


def parse_option(text: str, sample: Sample, free: FreeParser | None = None) -> Parsed:
    """Parse an answer to a GTR multiple-choice item; ``free`` handles answers that name no option."""
    seg = answer_segment(text)
    if seg is None or not seg.strip():
        return Parsed.failure(text, "no FINAL ANSWER line")
    idx = match_choice(seg, sample.choices or ())
    if idx is not None:
        return Parsed.success(text, {"choice": idx})
    if free is not None:
        value = free(seg, sample)
        if value is not None:
            return Parsed.success(text, value)
    return Parsed.failure(text, f"no option letter, option text or camera ids in the answer: {seg[:80]!r}")


def by_camera_ids(key: str = "option_cameras", strip_ends: Sequence[str] = ()) -> FreeParser:
    """A free parser picking the option whose camera list (``payload[key][i]``) equals the ids in the answer,
    ignoring the ids in ``payload[e]`` for ``e`` in ``strip_ends`` when they open or close the answer."""

    def parse(segment: str, sample: Sample) -> dict[str, Any] | None:
        ids = camera_ids(segment)
        if not ids:
            return None
        options = [list(o) for o in sample.payload[key]]
        trimmed = list(ids)
        ends = [sample.payload[e] for e in strip_ends]
        if len(ends) == 2:
            if trimmed and trimmed[0] == ends[0]:
                trimmed = trimmed[1:]
            if trimmed and trimmed[-1] == ends[1]:
                trimmed = trimmed[:-1]
        hits = [i for i, o in enumerate(options) if o in (ids, trimmed)]
        return {"choice": hits[0]} if len(hits) == 1 else None

    return parse
