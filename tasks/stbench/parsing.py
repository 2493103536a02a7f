"""Answer parsers for STBench, fixing the released ones (``code/result_parser.py``).

The released parsers take the first digit of the reply as the option (so "10" reads as option 1 and any
option ≥ 10 is unreachable), assign with ``==`` in the anomaly parser (so "Abnormal"/"Anomaly" never map to
"Anomalous"), and crash in trajectory prediction on a tuple assignment after a failed first pass; they also
only accept coordinates inside Xi'an's box. Here:

- options: whole numbers (any number of digits), whole-word labels and aliases, bracketed region lists;
- a ``FINAL ANSWER:`` line wins when present; otherwise the start of the reply (a completion continues the
  guidance stub, e.g. ``3) North``), then explicit "option N" phrases, then a single mentioned label;
- yes/no and normal/anomalous as whole words, with synonyms and simple negation;
- coordinate pairs in any bracket style or none, labelled (lat/lon, N/S/E/W) or in the expected order, the
  order checked against a reference point when both readings are valid.

Every parser returns a :class:`~tasks.records.Parsed` and never raises.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Literal

from tasks.parsing import final_answer_segment
from tasks.records import Parsed

Options = Sequence[tuple[int, str]]

_NUM = r"[-+−]?\d+(?:\.\d+)?"
_LEAD_WORDS = r"(?:(?:the|my|correct|final|best)\s+)*(?:answer|option|choice|region|point|number|no\.)"
_JUNK = r"[\s\"'“”‘’>:\-–—]*"
_LEAD = re.compile(
    rf"^{_JUNK}(?:{_LEAD_WORDS}\s*(?:is|would be|:|#|=)?\s*)*\(?\s*(\d+)\s*(?=$|[)\]:;,\s\"'*]|\.(?!\d))",
    re.IGNORECASE,
)
_PHRASE = re.compile(
    rf"(?:{_LEAD_WORDS}|answer\s+is)\s*(?:is|would be|:|#|=)?\s*\(?\s*(\d+)\b(?!\.\d)|\((\d+)\)", re.IGNORECASE
)
_LIST = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
_STRIP = re.compile(r"[*`_]+")


def _clean(text: str) -> str:
    return _STRIP.sub("", text).strip()


def _label_regex(label: str) -> re.Pattern[str] | None:
    tokens = re.findall(r"\w+|[^\w\s]", label)
    if not tokens:
        return None
    body = r"\s*".join(re.escape(t) for t in tokens)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def _digits(label: str) -> tuple[int, ...] | None:
    m = _LIST.search(label)
    return tuple(int(x) for x in re.findall(r"\d+", m.group(0))) if m else None


class _OptionParser:
    def __init__(self, options: Options, aliases: Mapping[int, Sequence[str]] | None) -> None:
        self.valid = {int(n) for n, _ in options}
        self.patterns: list[tuple[int, re.Pattern[str]]] = []
        for n, label in options:
            for text in (label, *(aliases or {}).get(int(n), ())):
                pat = _label_regex(str(text))
                if pat is not None:
                    self.patterns.append((int(n), pat))
        self.lists = {d: int(n) for n, label in options if (d := _digits(str(label))) is not None}

    def label_at_start(self, chunk: str) -> int | None:
        body = re.sub(rf"^{_JUNK}(?:{_LEAD_WORDS}\s*(?:is|:|#|=)?\s*)?", "", chunk, flags=re.IGNORECASE)
        best: tuple[int, int] | None = None
        for n, pat in self.patterns:
            m = pat.match(body)
            if m and (best is None or m.end() > best[1]):
                best = (n, m.end())
        if best is None:
            return None
        clause = re.split(r"[.;\n](?!\d)", body[best[1]:], maxsplit=1)[0]
        return None if self.mentioned(clause) - {best[0]} else best[0]  # "car or bike" names two

    def leading_number(self, chunk: str) -> int | None:
        m = _LEAD.match(chunk)
        return int(m.group(1)) if m and int(m.group(1)) in self.valid else None

    def bracket_list(self, chunk: str, first_only: bool = True) -> int | None:
        found = [tuple(int(x) for x in re.findall(r"\d+", m.group(0))) for m in _LIST.finditer(chunk)]
        for lst in found[:1] if first_only else reversed(found):
            if lst in self.lists:
                return self.lists[lst]
        return None

    def phrase(self, chunk: str, last: bool) -> int | None:
        hits = [int(m.group(1) or m.group(2)) for m in _PHRASE.finditer(chunk)]
        hits = [h for h in hits if h in self.valid]
        return (hits[-1] if last else hits[0]) if hits else None

    def mentioned(self, chunk: str) -> set[int]:
        spans: list[tuple[int, int, int]] = []
        for n, pat in self.patterns:
            spans += [(m.start(), m.end(), n) for m in pat.finditer(chunk)]
        spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        kept: list[tuple[int, int, int]] = []
        for s in spans:
            if not any(s[0] < k[1] and k[0] < s[1] for k in kept):
                kept.append(s)
        return {n for _, _, n in kept}


def parse_option(text: str, options: Options, aliases: Mapping[int, Sequence[str]] | None = None) -> Parsed:
    """The chosen option number (int): see the module docstring for the order of the rules."""
    try:
        return _parse_option(text, options, aliases)
    except Exception as exc:  # pragma: no cover - defensive: a parser must never take a run down
        return Parsed.failure(text, f"parser error: {exc!r}")


def _parse_option(text: str, options: Options, aliases: Mapping[int, Sequence[str]] | None) -> Parsed:
    if not isinstance(text, str) or not text.strip():
        return Parsed.failure(text if isinstance(text, str) else "", "empty reply")
    p = _OptionParser(options, aliases)
    segment = final_answer_segment(text)
    strict = segment is not None
    chunk = _clean(segment if strict else text)
    for rule in (p.label_at_start, p.leading_number, p.bracket_list):
        n = rule(chunk)
        if n is not None:
            return Parsed.success(text, n)
    n = p.phrase(chunk, last=not strict)
    if n is not None:
        return Parsed.success(text, n)
    if not strict:
        n = p.bracket_list(chunk, first_only=False)
        if n is not None:
            return Parsed.success(text, n)
    named = p.mentioned(chunk)
    if len(named) == 1:
        return Parsed.success(text, named.pop())
    where = "on the FINAL ANSWER line" if strict else "in the reply"
    if len(named) > 1:
        return Parsed.failure(text, f"several options named {where}: {sorted(named)}")
    return Parsed.failure(text, f"no option number or option label {where}")


# ----------------------------------------------------------------------------- two-way answers

def _two_way(
    text: str,
    words: Mapping[str, str],
    negated: Mapping[str, str],
    what: str,
) -> Parsed:
    if not isinstance(text, str) or not text.strip():
        return Parsed.failure(text if isinstance(text, str) else "", "empty reply")
    alt = "|".join(sorted(words, key=len, reverse=True))
    word_re = re.compile(rf"(?<!\w)(not\s+(?:an?\s+)?|isn't\s+(?:an?\s+)?)?({alt})(?!\w)", re.IGNORECASE)

    def label(m: re.Match[str]) -> str:
        value = words[m.group(2).lower()]
        return negated[value] if m.group(1) else value

    segment = final_answer_segment(text)
    if segment is not None:
        m = word_re.search(_clean(segment))
        if m:
            return Parsed.success(text, label(m))
        return Parsed.failure(text, f"no {what} on the FINAL ANSWER line")
    chunk = _clean(text)
    m = re.match(rf"^[\W]*{word_re.pattern}", chunk, re.IGNORECASE)
    if m:
        return Parsed.success(text, label(word_re.search(chunk)))  # type: ignore[arg-type]
    found = {label(m) for m in word_re.finditer(chunk)}
    if len(found) == 1:
        return Parsed.success(text, found.pop())
    if found:
        last = list(re.finditer(rf"(?:answer\s+is|trajectory\s+is|they\s+are)\s*\W*{word_re.pattern}", chunk,
                                re.IGNORECASE))
        if last:
            return Parsed.success(text, label(word_re.search(last[-1].group(0))))  # type: ignore[arg-type]
        return Parsed.failure(text, f"both answers appear and none is marked as final ({what})")
    return Parsed.failure(text, f"no {what} in the reply")


_YES_NO = {"yes": "yes", "no": "no", "true": "yes", "false": "no"}
_ANOMALY = {
    "anomalous": "anomalous", "anomaly": "anomalous", "abnormal": "anomalous", "anomalously": "anomalous",
    "detour": "anomalous", "normal": "normal",
}
_FLIP = {"yes": "no", "no": "yes", "anomalous": "normal", "normal": "anomalous"}


def parse_yes_no(text: str) -> Parsed:
    """"yes" or "no" (whole words; "true"/"false" accepted)."""
    try:
        return _two_way(text, _YES_NO, _FLIP, "Yes/No")
    except Exception as exc:  # pragma: no cover - defensive
        return Parsed.failure(text, f"parser error: {exc!r}")


def parse_anomaly(text: str) -> Parsed:
    """"anomalous" (also anomaly, abnormal, detour) or "normal"; "not anomalous" is normal and vice versa."""
    try:
        return _two_way(text, _ANOMALY, _FLIP, "normal/anomalous verdict")
    except Exception as exc:  # pragma: no cover - defensive
        return Parsed.failure(text, f"parser error: {exc!r}")


# ----------------------------------------------------------------------------- coordinates

_LAT_LABEL = re.compile(rf"\blat(?:itude)?\b\s*(?:is|[:=])?\s*({_NUM})", re.IGNORECASE)
_LON_LABEL = re.compile(rf"\b(?:lon|lng|long|longitude)\b\s*(?:is|[:=])?\s*({_NUM})", re.IGNORECASE)
_HEMI = re.compile(rf"({_NUM})\s*°?\s*([NSEW])\b")
_PAIR = re.compile(rf"(?<![\w.])({_NUM})\s*(?:[,;/]\s*|\s+)({_NUM})(?![\w.])")


def _f(token: str) -> float:
    return float(token.replace("−", "-"))


def _valid(lat: float, lon: float) -> bool:
    return math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180


def _km(a: tuple[float, float], b: tuple[float, float]) -> float:
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[1] - a[1]) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(min(1.0, h)))


def _reading(a: float, b: float, order: str, ref: tuple[float, float] | None) -> tuple[float, float] | None:
    first = (b, a) if order == "lonlat" else (a, b)
    second = (first[1], first[0])
    readings = [r for r in (first, second) if _valid(*r)]
    if not readings:
        return None
    if ref is not None and len(readings) == 2:
        return min(readings, key=lambda r: _km(r, ref))
    return readings[0]


def _point_in(chunk: str, order: str, ref: tuple[float, float] | None, prefer: str) -> tuple[float, float] | None:
    lat_m, lon_m = _LAT_LABEL.search(chunk), _LON_LABEL.search(chunk)
    if lat_m and lon_m and _valid(_f(lat_m.group(1)), _f(lon_m.group(1))):
        return (_f(lat_m.group(1)), _f(lon_m.group(1)))
    hemi = _HEMI.findall(chunk)
    lats = [(-1 if h == "S" else 1) * abs(_f(v)) for v, h in hemi if h in "NS"]
    lons = [(-1 if h == "W" else 1) * abs(_f(v)) for v, h in hemi if h in "EW"]
    if lats and lons and _valid(lats[0], lons[0]):
        return (lats[0], lons[0])
    pairs = [(m.group(1), m.group(2)) for m in _PAIR.finditer(chunk)]
    pairs = [(a, b) for a, b in pairs if "." in a or "." in b]
    readings = [r for a, b in pairs if (r := _reading(_f(a), _f(b), order, ref)) is not None]
    if ref is not None and any(_km(r, ref) <= 100.0 for r in readings):
        readings = [r for r in readings if _km(r, ref) <= 100.0]
    if not readings:
        return None
    return readings[0] if prefer == "first" else readings[-1]


def parse_point(
    text: str,
    order: Literal["latlon", "lonlat"] = "latlon",
    reference: tuple[float, float] | None = None,
    prefer: Literal["first", "last"] = "last",
) -> Parsed:
    """A point as {"lat", "lon"}: from the FINAL ANSWER line if any, else the first/last pair in the reply.

    ``order`` is the order the prompt asked for; when both readings of a pair are valid coordinates, the one
    nearer ``reference`` (e.g. the last known point) wins. Pairs need a decimal point in at least one number.
    """
    try:
        if not isinstance(text, str) or not text.strip():
            return Parsed.failure(text if isinstance(text, str) else "", "empty reply")
        segment = final_answer_segment(text)
        chunk = _clean(segment) if segment is not None else _clean(text)
        found = _point_in(chunk, order, reference, "first" if segment is not None else prefer)
        if found is None:
            where = "on the FINAL ANSWER line" if segment is not None else "in the reply"
            return Parsed.failure(text, f"no coordinate pair {where}")
        return Parsed.success(text, {"lat": found[0], "lon": found[1]})
    except Exception as exc:  # pragma: no cover - defensive
        return Parsed.failure(text, f"parser error: {exc!r}")
