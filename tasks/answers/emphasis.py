"""What a reply's markdown says about where its answer stands, read from the reply as written (preparing it takes
the markdown off): the answer it puts in bold, and its headings, which are structure, never answers.

An emphasised answer is a bold span in a line of prose that does not reject, assume or ask about it ("squarely in
**Irkutsk**", "makes **C) Guadalupe, Colombia** the match", "Bearing ≈ 110.7° → **East (3)**") or a bold table
row whose label names the asked quantity (``| **distance** | **13,671 km** |`` when the question asks for the
distance), or a table that is only the answer, each row labelled with an asked quantity (latitude, longitude). A bold label ("**Step 1:**") and a span in a heading are no answer. Every function here runs in linear
time.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tasks.answers.reply import prepare, split_reasoning
from tasks.answers.text import TAIL_CAP, Answer, fold

_HEADING_LINE = re.compile(r"(?m)^[ \t]{0,8}#{1,6}[ \t]+(?P<text>[^\n]{1,200}?)[ \t#]*$")
_BOLD = re.compile(r"\*\*(?=\S)(?P<a>[^*\n]{1,160}?)(?<=\S)\*\*|(?<!\w)__(?=\S)(?P<b>[^_\n]{1,160}?)(?<=\S)__(?!\w)")
_ROW = re.compile(r"^[ \t]{0,8}\|(?P<cells>.*)\|[ \t]*$")
CLAUSE_END = re.compile(r"[.;!?](?:\s|$)|,\s|\s[-–—]\s")
"""Where a clause ends: a full stop, a semicolon, a comma or a spaced dash."""
REJECTED = re.compile(
    r"\b(?:(?:could|might|may|would|can|does|do|is|are|was|were)(?:n't|\s+not)|not|never|nor|wrong|incorrect|"
    r"ruled?\s+out|(?:is|are|was|were)\s+out|eliminat\w*|exclud\w*|reject\w*|dismiss\w*|far|farther|further\s+away|away|distant|remote|"
    r"too\s+(?:far|north|south|east|west|small|large|big)|outside|unlike|rather\s+than|instead\s+of|except)\b",
    re.IGNORECASE)
"""Words by which a clause rejects what it names ("Mexico, Peru and Costa Rica are all far from it", "not **D**")."""
_SUPPOSED = re.compile(r"\b(?:assum\w*|if|suppose|supposing|instead|whether)\b|\?", re.IGNORECASE)
"""Words by which a sentence supposes or asks about what it names ("if it were 130°, **B**", "is it **B**?")."""
MAX_SPANS = 24
"""Bold spans read per reply (the last ones)."""


def headings(raw: str) -> frozenset[str]:
    """The folded text of every markdown heading of a reply (``## Summary`` is ``summary``)."""
    if "#" not in raw:
        return frozenset()
    return frozenset(f for m in _HEADING_LINE.finditer(raw[-TAIL_CAP * 2:]) if (f := fold(m.group("text"))))


_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)")


def _clause(line: str, start: int, end: int, ends: re.Pattern[str] = CLAUSE_END) -> str:
    """The clause of ``line`` around the span ``start:end`` (from the last clause end before it to the first
    after it, that end's mark included; the span itself is kept whole); with ``ends`` a sentence's ends, its
    sentence."""
    before = [m.end() for m in ends.finditer(line, 0, start)]
    after = ends.search(line, end)
    return line[before[-1] if before else 0: after.end() if after else len(line)]


def _row_answer(line: str, prompt_words: frozenset[str]) -> str | None:
    """The value cells of a table row that is all bold and whose label cell names the asked quantity, or None."""
    m = _ROW.match(line)
    if m is None or not prompt_words:
        return None
    cells = [c.strip() for c in m.group("cells").split("|") if c.strip()]
    if len(cells) < 2 or not all(_BOLD.fullmatch(c) for c in cells):
        return None
    if not _asked(cells[0], prompt_words):
        return None
    return " ".join(c.strip("*_ ") for c in cells[1:])


def _asked(cell: str, prompt_words: frozenset[str]) -> bool:
    """Whether a table's label cell names the asked quantity: each of its words is a word of the question."""
    label = [w for w in fold(cell).split() if w.isalpha() and len(w) > 2]
    return bool(label) and all(w in prompt_words for w in label)


def _asked_tables(lines: list[str], prompt_words: frozenset[str]) -> dict[int, str]:
    """Tables that are only the answer, each row labelled with an asked quantity ("| Latitude | 40.79 |",
    "| Longitude | -73.20 |" when the question asks for latitude and longitude): the index of each one's last row
    and its rows written as "label value, label value"."""
    out: dict[int, str] = {}
    k = 0
    while k < len(lines):
        j = k
        while j < len(lines) and _ROW.match(lines[j]):
            j += 1
        cells = [[c.strip(" *_") for c in m.group("cells").split("|")] for ln in lines[k:j] if (m := _ROW.match(ln))]
        body = cells[2:] if len(cells) > 1 and all(re.fullmatch(r":?-{3,}:?|", c) for c in cells[1]) else cells
        rows = [[c for c in row if c] for row in body]
        if rows and all(len(r) == 2 and _asked(r[0], prompt_words) for r in rows):
            out[j - 1] = ", ".join(f"{r[0]} {r[1]}" for r in rows)
        k = max(j, k + 1)
    return out


@lru_cache(maxsize=2_048)
def emphasised(raw: str, prompt: str | None = None) -> tuple[Answer, ...]:
    """The emphasised answers of a reply, in order: each bold span of a prose line whose clause does not
    reject, assume or ask (:data:`REJECTED`), each bold table row labelled with words of the question, each table
    whose every row is; each as
    an :class:`Answer` of source ``"emphasis"`` that ends where its span ends in the prepared reply (what follows,
    the rest of its line included, is read for a second answer). Headings, bold labels ("**Note:**", "**Step 1**: ...") and lines the prepared
    reply does not hold are skipped."""
    if "**" not in raw and "__" not in raw and "|" not in raw:
        return ()
    _, body = split_reasoning(raw)
    body = body[-TAIL_CAP * 2:]
    text = prepare(raw)
    words = frozenset(fold(prompt).split()) if prompt else frozenset()
    out: list[Answer] = []
    pos = 0  # where the previous found line ended in the prepared reply
    lines = body.split("\n")
    tables = _asked_tables(lines, words) if words and "|" in body else {}
    for k, line in enumerate(lines):
        if k not in tables and (_HEADING_LINE.match(line) or ("**" not in line and "__" not in line)):
            continue
        spans: list[str] = []
        if k in tables:
            spans.append(tables[k])
        elif _ROW.match(line):
            if (value := _row_answer(line, words)) is not None:
                spans.append(value)
        else:
            for m in _BOLD.finditer(line):
                span = (m.group("a") or m.group("b") or "").strip()
                if span.endswith(":") or line[m.end():].lstrip().startswith(":"):
                    continue  # a bold label
                clause = _clause(line, m.start(), m.end()).replace(m.group(0), " ")
                sentence = _clause(line, m.start(), m.end(), _SENTENCE_END).replace(m.group(0), " ")
                if REJECTED.search(clause) or _SUPPOSED.search(sentence):  # "if it were 130°, → **SE**"
                    continue
                spans.append(span)
        needle = prepare(line).strip()
        at = text.find(needle, pos) if needle else -1
        if at < 0:
            continue
        pos = at + len(needle)
        for span in spans:
            value = prepare(span).strip()
            inside = needle.find(value)  # the answer ends where its span ends: the rest of its line may hedge it
            end = at + inside + len(value) if inside >= 0 and value else pos
            out.append(Answer(" ".join(value.split()).strip(" .,;"), "emphasis", end))
        if len(out) >= MAX_SPANS:
            break
    return tuple(out[-MAX_SPANS:])
