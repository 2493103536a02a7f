"""A reply made ready for extraction: its reasoning taken apart, LaTeX, markdown and JSON unwrapped, thousands
separators unified, and every committing section (a FINAL ANSWER line, "Final answer", an "Answer" heading, a
JSON answer field) written as one ``FINAL ANSWER:`` line. Every function here runs in linear time.

:func:`split_reasoning` is what an evaluation calls to keep a model's reasoning in its trace; :func:`prepare` is
what every family's parser reads. Neither changes what the answer says, only how it is written.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from tasks.answers.text import shorten_digits

REASONING_TAGS = ("think", "thinking", "reasoning", "thought", "reflection", "scratchpad")
_OPEN = re.compile(r"<(" + "|".join(REASONING_TAGS) + r")(?:\s[^<>]{0,80})?>", re.IGNORECASE)
_CLOSE = {tag: re.compile(rf"</{tag}\s?>", re.IGNORECASE) for tag in REASONING_TAGS}
_ANY_CLOSE = re.compile(r"</(" + "|".join(REASONING_TAGS) + r")\s?>", re.IGNORECASE)
MAX_BLOCKS = 20
"""Reasoning blocks taken apart per reply (a reply with more keeps the rest as answer text)."""


def split_reasoning(text: str, reasoning: str | None = None) -> tuple[str, str]:
    """``(reasoning, answer_text)`` of a reply: the text of ``<think>``, ``<thinking>``, ``<reasoning>`` (and
    ``<thought>``, ``<reflection>``, ``<scratchpad>``) blocks, and the rest. A closing tag with no opening one
    (the opening tag was in the prompt's template, as DeepSeek-R1 writes) makes everything before it reasoning;
    an opening tag never closed makes everything after it reasoning (the reply ended while thinking: no answer).
    ``reasoning`` is a provider's separate reasoning content, put first. Linear in the reply's length."""
    if not isinstance(text, str):
        return (reasoning or "", "")
    parts = [reasoning] if reasoning else []
    kept: list[str] = []
    pos = 0
    first_close = _ANY_CLOSE.search(text)
    first_open = _OPEN.search(text)
    if first_close is not None and (first_open is None or first_close.start() < first_open.start()):
        parts.append(text[:first_close.start()])
        pos = first_close.end()
    for _ in range(MAX_BLOCKS):
        m = _OPEN.search(text, pos)
        if m is None:
            break
        kept.append(text[pos:m.start()])
        close = _CLOSE[m.group(1).lower()].search(text, m.end())
        if close is None:
            parts.append(text[m.end():])
            pos = len(text)
            break
        parts.append(text[m.end():close.start()])
        pos = close.end()
    kept.append(text[pos:])
    answer = "".join(kept)
    return "\n".join(p.strip() for p in parts if p.strip()), answer


# ----------------------------------------------------------------------------- LaTeX and markdown

_BRACED = re.compile(r"\\(?:boxed|fbox|text|textbf|textit|mathrm|mathbf|mathit|operatorname|mbox|emph|"
                     r"underline|displaystyle)\s?\{")
_LATEX_WORDS = (
    (re.compile(r"\^\s?\{\s?\\circ\s?\}|\^\s?\\circ|\\circ|\\degree|\^\s?\{\s?°\s?\}|\^°"), "°"),
    (re.compile(r"(?<=\d)\{,\}(?=\d{3}(?!\d))"), ""),
    (re.compile(r"\{,\}"), ","),
    (re.compile(r"\{\.\}"), "."),
    (re.compile(r"\\approx|\\simeq|\\sim(?![a-z])"), "≈"),
    (re.compile(r"\\times|\\cdot"), "×"),
    (re.compile(r"\\pm"), "±"),
    (re.compile(r"\\(?:leq|le)(?![a-z])"), "≤"),
    (re.compile(r"\\(?:geq|ge)(?![a-z])"), "≥"),
    (re.compile(r"\\%"), "%"),
    (re.compile(r"\\[,;:! ]|\\quad|\\qquad|~(?=\\)"), " "),
    (re.compile(r"\\left|\\right"), ""),
    (re.compile(r"\\\\"), "\n"),
    (re.compile(r"\\\[|\\\]|\\\(|\\\)|\$\$?"), " "),
    (re.compile(r"\^\s?\{2\}"), "^2"),
)
_FENCE = re.compile(r"(?m)^[ \t]{0,8}(?:```|~~~)[\w+-]{0,20}[ \t]*$")
_HEADING = re.compile(r"(?m)^[ \t]{0,8}#{1,6}[ \t]+")
_QUOTE = re.compile(r"(?m)^[ \t]{0,8}>[ \t]?")
_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])|(?<![\w_])_(?=[A-Za-z])|(?<=[A-Za-z.])_(?!\w)|`")
_RULE = re.compile(r"(?m)^[ \t]{0,8}(?:(?:[-*_][ \t]?){3,}|={3,}[ \t]*)$")
_EMOJI = re.compile("[\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d\U0001f000-\U0001faff]")
_TABLE_RULE = re.compile(r"(?m)^[ \t]{0,8}\|?[ \t]?:?-{3,}.*$")


def _closers(text: str) -> dict[int, int]:
    """Position of the ``}`` closing each ``{`` of ``text`` (one pass)."""
    stack: list[int] = []
    out: dict[int, int] = {}
    for k, ch in enumerate(text):
        if ch == "{":
            stack.append(k)
        elif ch == "}" and stack:
            out[stack.pop()] = k
    return out


def _unbrace(text: str) -> str:
    """``\\boxed{X}``, ``\\text{X}`` and their kin replaced by X (braces matched in one pass)."""
    if not _BRACED.search(text):
        return text
    closers = _closers(text)
    drop: set[int] = set()  # the braces of the commands taken off
    cuts: list[tuple[int, int]] = []  # spans of the command words to remove
    for m in _BRACED.finditer(text):
        close = closers.get(m.end() - 1)
        if close is not None:
            cuts.append((m.start(), m.end()))
            drop.add(close)
    out: list[str] = []
    pos = 0
    for start, end in cuts:
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    joined = "".join(out)
    if not drop:
        return joined
    # map the dropped closing braces to positions in ``joined``
    shift, k, keep = 0, 0, []
    removed = sorted(drop)
    for start, end in cuts:
        while k < len(removed) and removed[k] < start:
            keep.append(removed[k] - shift)
            k += 1
        shift += end - start
    keep += [r - shift for r in removed[k:]]
    chars = list(joined)
    for r in keep:
        chars[r] = ""
    return "".join(chars)


def unlatex(text: str) -> str:
    """LaTeX math written as plain text: ``$\\boxed{2{,}424\\,\\text{km}}$`` is ``2,424 km``, ``45^\\circ`` is
    ``45°``, ``\\approx`` is ``≈``; math delimiters dropped."""
    if "\\" not in text and "$" not in text and "{" not in text and "^" not in text:
        return text
    t = _unbrace(text)
    for rx, new in _LATEX_WORDS:
        t = rx.sub(new, t)
    return t


_TABLE_ROW = re.compile(r"(?m)^[ \t]{0,8}\|(.*)\|[ \t]*$")
_ANSWER_HEADER = re.compile(r"^(?:final\s)?answers?$|^final$", re.IGNORECASE)


def _table_answers(text: str) -> str:
    """A markdown table with an "Answer" column: its last row's cell there written as a FINAL ANSWER line."""
    if "|" not in text:
        return text
    rows = list(_TABLE_ROW.finditer(text))
    out: list[str] = []
    pos, k = 0, 0
    while k < len(rows):
        j = k  # rows k..j-1 make one table (consecutive lines)
        while j + 1 < len(rows) and rows[j + 1].start() == rows[j].end() + 1:
            j += 1
        header = [c.strip(" *_") for c in rows[k].group(1).split("|")]
        col = next((i for i, c in enumerate(header) if _ANSWER_HEADER.match(c)), None)
        body = [r for r in rows[k + 1: j + 1] if not re.fullmatch(r"[\s:|-]*", r.group(1))]
        if col is not None and body:
            cells = [c.strip() for c in body[-1].group(1).split("|")]
            if col < len(cells) and cells[col]:
                out.append(text[pos:rows[k].start()])
                out.append(f"FINAL ANSWER: {cells[col]}")
                pos = rows[j].end()
        k = j + 1
    out.append(text[pos:])
    return "".join(out)


_TICK = "✓✔✅☑🗸"
_CROSS = "✗✘❌✖❎☐"
_MARK_CELL = re.compile(r"^(?:[" + _TICK + _CROSS + r"]\ufe0f?|yes|no|true|false|\[[ xX]\])$", re.IGNORECASE)
_TICKED_CELL = re.compile(r"^(?:[" + _TICK + r"]\ufe0f?|yes|true|\[[xX]\])$", re.IGNORECASE)
_MARKED_LINE = re.compile(r"^[ \t]{0,8}(?:[-*+•][ \t]+)?(?P<label>\(?(?:[A-Z]|\d{1,2})[).:]?)[ \t]+(?P<rest>[^\n]*)$")
_SYMBOL = re.compile("[" + _TICK + _CROSS + "]")


def _cells(row: str) -> list[str]:
    return [c.strip().strip("*_` ") for c in row.strip().strip("|").split("|")]


def _row_answer(cells: list[str]) -> str:
    """A ticked row as an answer: its label and text ("A) Woodlawn, Canada"), or its text alone."""
    cells = [c for c in cells if c]
    if len(cells) > 1 and len(cells[0]) <= 3 and re.fullmatch(r"\(?[A-Za-z0-9]{1,2}[).]?", cells[0]):
        return f"{cells[0].strip('().')}) {', '.join(cells[1:])}"
    return ", ".join(cells)


def _ticked(rows: list[list[str]]) -> str | None:
    """The answer of a checklist (rows of cells, one column of marks): the one ticked row, or the ticked rows
    joined by "or" (a hedge); None when the rows are no checklist or tick nothing."""
    if len(rows) < 2:
        return None
    width = min(len(r) for r in rows)
    for col in range(width - 1, -1, -1):
        if all(_MARK_CELL.match(r[col]) for r in rows):
            ticked = [r[:col] + r[col + 1:] for r in rows if _TICKED_CELL.match(r[col])]
            return " or ".join(_row_answer(r) for r in ticked) or None
    return None


def unticked(text: str) -> str:
    """A checklist commits to the row it ticks (read before emoji are dropped, in a reply with no answer label): a
    markdown table with a column of marks (✓/✗, ✅/❌, yes/no, [x]/[ ]) in every row, or consecutive lines each
    naming an option by its label with one mark symbol ("A ✗ (heading S)", "D ✓"). One ticked row is written
    as a FINAL ANSWER line after the list; several ticked rows make a hedge; none, nothing."""
    if not _SYMBOL.search(text) and "|" not in text or re.search(r"final\s{0,5}answer\s{0,5}[:：]", text, re.I):
        return text
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        j, rows = k, []
        if _TABLE_ROW.match(lines[k]):
            while j < len(lines) and _TABLE_ROW.match(lines[j]):
                j += 1
            rows = [_cells(ln) for ln in lines[k + 1:j] if not re.fullmatch(r"[\s:|-]*", ln)]
        elif (m := _MARKED_LINE.match(lines[k])) and len(_SYMBOL.findall(m.group("rest"))) == 1:
            while (j < len(lines) and (m := _MARKED_LINE.match(lines[j]))
                   and len(_SYMBOL.findall(m.group("rest"))) == 1):
                mark = _SYMBOL.search(m.group("rest"))
                rows.append([m.group("label"), _SYMBOL.sub("", m.group("rest")).strip(" ()-—:,"),
                             mark.group(0) if mark else ""])
                j += 1
        answer = _ticked(rows) if rows else None
        if answer is None:
            out.append(lines[k])
            k += 1
            continue
        out += [*lines[k:j], f"FINAL ANSWER: {answer}"]
        k = j
    return "\n".join(out)


_ANSWER_TAG = re.compile(r"<(?P<tag>final[_ ]?answer|answer)>(?P<body>[^<]{0,2000})</(?P=tag)>", re.IGNORECASE)
_OTHER_TAG = re.compile(r"<(?P<tag>(?:alternative|second|backup|other)[\w]{0,20})>(?P<body>[^<]{0,2000})</(?P=tag)>",
                        re.IGNORECASE)


_PLACEHOLDER_WRAP = re.compile(r"<(?P<tag>[a-z][a-z _-]{0,30})>(?P<body>[^<>\n]{1,200})</(?P=tag)>")
_PLACEHOLDER_LEAD = re.compile(r"<[a-z][a-z _-]{0,30}>[ \t]{0,3}:?[ \t]{0,3}(?=[^\s<>])")


def untag(text: str) -> str:
    """``<answer>X</answer>`` written as a FINAL ANSWER line, ``<alternative>Y</alternative>`` as an
    "Alternative answer:" line; a template's placeholder kept around or before a value (``<letter>B</letter>``,
    ``<region number>: 1``, ``<bearing>50.2°``) taken off, the value kept. A placeholder alone is left: an echo."""
    if "<" not in text:
        return text
    t = _ANSWER_TAG.sub(lambda m: f"\nFINAL ANSWER: {m.group('body').strip()}\n", text)
    t = _OTHER_TAG.sub(lambda m: f"\nAlternative answer: {m.group('body').strip()}\n", t)
    t = _PLACEHOLDER_WRAP.sub(lambda m: m.group("body"), t)
    return _PLACEHOLDER_LEAD.sub("", t)


def unmarkdown(text: str) -> str:
    """Markdown taken off: code fences, tables with an answer column, headings and quote marks at line starts,
    rules and setext underlines, emphasis, ticks and emoji."""
    t = _FENCE.sub("", _table_answers(text))
    t = _EMOJI.sub("", t)
    t = _RULE.sub("", t)
    t = _TABLE_RULE.sub("", t)
    t = _HEADING.sub("", t)
    t = _QUOTE.sub("", t)
    return _EMPHASIS.sub("", t)


# ----------------------------------------------------------------------------- numbers

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_UNIT_NEXT = r"(?=[ \t]?[A-Za-z°%²]|[ \t]*[.!;]?[ \t]*$)"
_GROUPED = (
    # 1.234.567,8 and 1.234,5 (dots group, a comma after the groups is the decimal mark)
    (re.compile(r"(?m)(?<![\d.,])(\d{1,3}(?:\.\d{3})+),(\d+)(?![\d.,])" + _UNIT_NEXT), lambda m: m.group(1).replace(".", "") + "." + m.group(2)),
    # 1.234.567 (two or more dot groups: no decimal reads it)
    (re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{3}){2,})(?![\d.,]|,\d)"), lambda m: m.group(1).replace(".", "")),
    # 1 234,5 and 1 234 567,8 (space groups, decimal comma)
    (re.compile(r"(?m)(?<![\d.,])(\d{1,3}(?:[ \u202f\u2009\u00a0]\d{3})+),(\d+)(?![\d.,])" + _UNIT_NEXT),
     lambda m: re.sub(r"\D", "", m.group(1)) + "." + m.group(2)),
    # 1'234'567.8 and 1’234 (Swiss apostrophes)
    (re.compile(r"(?<![\d.,'’])(\d{1,3}(?:['’]\d{3})+)(?![\d'’\"″])"), lambda m: re.sub(r"\D", "", m.group(1))),
    # 320,3° and 12,75 km: a comma before one or two digits and a unit is a decimal comma (never a group)
    (re.compile(r"(?<![\d.,])(\d+),(\d{1,2})(?![\d.,])(?=[ \t]?(?:°|%|[A-Za-z]))"), lambda m: f"{m.group(1)}.{m.group(2)}"),
    # 5.54 ×10³, 5.54 x 10^3, 5.54·10⁶: scientific notation written as 5.54e3
    (re.compile(r"(\d(?:\.\d+)?)[ \t]?[×x·*][ \t]?10[ \t]?(?:\^[ \t]?\{?[ \t]?(-?\d{1,2})\}?|([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2}))"),
     lambda m: f"{m.group(1)}e{m.group(2) or m.group(3).translate(_SUPERSCRIPT)}"),
    # 43,567750 and -3,90279: a comma before four or more digits is a decimal comma (a thousands group has three)
    (re.compile(r"(?<![\d.,])(\d{1,3}),(\d{4,})(?![\d.,])"), lambda m: f"{m.group(1)}.{m.group(2)}"),
    # 5.3377e6, 2.424e+06, 5.54e3: scientific notation written out as a plain decimal
    (re.compile(r"(?<![\w.])(\d+(?:\.\d+)?[eE][-+]?\d{1,2})(?![\w.])"), lambda m: _plain_decimal(float(m.group(1)))),
    # 5.54k km, 2.4M m: a thousands / millions suffix on a number before a unit
    (re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)([kKM])(?=[ \t]?(?:km|m|mi|miles?|metres?|meters?|kilomet\w*)\b)"),
     lambda m: f"{float(m.group(1)) * (1e3 if m.group(2) in 'kK' else 1e6):g}"),
)


def _plain_decimal(value: float) -> str:
    """A float written in plain decimals (no exponent): 5337700, 0.0015."""
    return f"{value:.9f}".rstrip("0").rstrip(".")


_DOT_LOCALE = re.compile(
    r"(?im)^[ \t]{0,8}(?:[-*+•][ \t]+)?(?:r[ée]ponse|antwort|ergebnis|respuesta|resultado|risposta|resposta|"
    r"risultato)\b|(?<![\d.,])\d+,\d{1,2}(?![\d.,])[ \t]?(?:°|%|km\b|m\b|mi\b)")
"""A reply written in a locale that groups thousands with dots: an answer label in French, German, Spanish,
Italian or Portuguese, or a decimal comma before a unit (``320,3°``)."""
_DOT_GROUPS = re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{3})+)(?![\d.,])" + _UNIT_NEXT)


def unify_numbers(text: str) -> str:
    """Thousands separators in any notation written the one way the extractors read: ``1.234,5``, ``1 234,5``,
    ``1'234`` become ``1234.5`` / ``1234``; a comma before four or more digits is a decimal comma; scientific
    notation (``5.54 ×10³``, ``2.4e+06``, ``5.54k km``) is written out. A number's locale is read from its
    form and the reply's language: ``7.786 km`` is 7786 km in a reply answered in Spanish, German, French,
    Italian or Portuguese or one that writes decimal commas, and 7.786 km otherwise; other ambiguous forms
    (``1,5``) are left as written."""
    if _DOT_LOCALE.search(text):
        text = _DOT_GROUPS.sub(lambda m: m.group(1).replace(".", ""), text)
    for rx, fix in _GROUPED:
        t = rx.sub(fix, text)
        text = t
    return text


_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join([*_UNITS, *_TENS, *_SCALES]) + r")(?:[- ](?:and[- ])?(?:"
                          + "|".join([*_UNITS, *_TENS, *_SCALES]) + r"))*\b(?:\s?point(?:\s(?:"
                          + "|".join(list(_UNITS)[:10]) + r"))+)?", re.IGNORECASE)


def _words_value(words: str) -> str:
    tokens = [w for w in re.split(r"[- ]", words.lower()) if w and w != "and"]
    total, current, decimals = 0, 0, ""
    if "point" in tokens:
        k = tokens.index("point")
        decimals = "".join(str(_UNITS[w]) for w in tokens[k + 1:])
        tokens = tokens[:k]
    for w in tokens:
        if w in _UNITS:
            current += _UNITS[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _SCALES[w]
            current = 0
    value = str(total + current)
    return f"{value}.{decimals}" if decimals else value


def number_words(text: str) -> str:
    """Numbers written in words as digits: "forty-two point five km" is "42.5 km", "option two" "option 2"."""
    return _NUMBER_WORD.sub(lambda m: _words_value(m.group(0)), text)


# ----------------------------------------------------------------------------- committing sections and JSON

_LABEL = re.compile(
    r"(?im)^(?P<lead>[ \t]{0,8}(?:[-*+•][ \t]+)?(?:\d{1,2}[.)][ \t]+)?)"
    r"(?P<label>(?:(?:my|the|our)[ \t]+)?(?:final|correct|best|definitive)[ \t]+(?:answer|response|choice)s?|"
    r"(?:(?:my|the|our)[ \t]+)?answer|(?:(?:my|the|our)[ \t]+)?final|"
    r"r[ée]ponse(?:[ \t]+finale)?|(?:endg[üu]ltige[ \t]+)?antwort|respuesta(?:[ \t]+final)?|"
    r"risposta(?:[ \t]+finale)?|最终答案|答案)"
    r"[ \t]*(?:\([^()\n]{0,40}\))?[ \t]*"
    r"(?P<sep>[:：=]|→|⇒|=>|->|➜|[-–—](?=[ \t])|\bis\b[ \t]*:?|\bwould[ \t]+be\b[ \t]*:?|$)[ \t]*")
"""A label that commits: "Final answer:", "Answer -", "The final answer is", an "Answer" heading alone on its
line (markdown already removed), at a line start."""
_JSON_START = re.compile(r"(?m)^[ \t]{0,8}\{|\{\s*\"")
_ANSWER_KEYS = re.compile(r"^(?:final[_ ]?)?(?:answer|response|choice|option|prediction|result|value)s?$|^final$",
                          re.IGNORECASE)
_OTHER_KEYS = re.compile(r"alternative|second|backup|other|runner|fallback|also", re.IGNORECASE)
MAX_JSON = 8


def _json_value(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_json_value(v)}" for k, v in value.items())
    return json.dumps(value, ensure_ascii=False)


_NUM = r"(-?\d{1,3}(?:\.\d+)?)"
_WKT_POINT = re.compile(rf"\bPOINT[ \t]?Z?[ \t]?\([ \t]?{_NUM}[ \t]+{_NUM}(?:[ \t]+-?[\d.]+)?[ \t]?\)", re.IGNORECASE)
_GEOJSON_POINT = re.compile(rf"\{{[^{{}}]{{0,200}}\"coordinates\"[ \t]?:[ \t]?\[[ \t]?{_NUM}[ \t]?,[ \t]?{_NUM}"
                            r"(?:[ \t]?,[ \t]?-?[\d.]+)?[ \t]?\][^{}]{0,200}\}")


_CRS_CODE = re.compile(r"\b(?:SRID|EPSG|CRS)[ \t]?[:=][ \t]?\d{2,6}(?:[ \t]?;|[ \t]*[—–:-](?=[ \t]))?", re.IGNORECASE)
_DATUM = re.compile(r"\b(WGS|NAD|ETRS)[ \t-](?=\d{2}\b)", re.IGNORECASE)


def ungeo(text: str) -> str:
    """A coordinate notation read in its own axis order: WKT ``POINT(lon lat)`` (EWKT's ``SRID=4326;`` prefix
    included) and a GeoJSON point (``"coordinates": [lon, lat]``, a Feature's geometry too) written as
    "latitude LAT, longitude LON" (labels fix the order). A reference system's code (``SRID=4326``,
    ``EPSG:4326``, the 84 of ``WGS 84``) names the notation, never a value: it is taken off."""
    t = _DATUM.sub(r"\1", _CRS_CODE.sub("", text))
    if "POINT" not in t.upper() and "coordinates" not in t:
        return t
    t = _WKT_POINT.sub(lambda m: f"latitude {m.group(2)}, longitude {m.group(1)}", t)
    return _GEOJSON_POINT.sub(lambda m: f"latitude {m.group(2)}, longitude {m.group(1)}", t)


_PLACE_KEYS = (("name", "city", "town"), ("region", "admin1", "state", "province"), ("country",))


def _place_of(obj: dict[str, object]) -> list[object]:
    """A place written as a JSON record (``{"name": "Irkutsk", "country": "Russia", "lat": ...}``, as the tools
    condition echoes a gazetteer hit) as its answer "Irkutsk, Russia"; a tool call (``"arguments"``) is none."""
    keys = {str(k).strip().lower(): v for k, v in obj.items()}
    if any(k in keys for k in ("arguments", "parameters", "time", "date")) or not any(k in keys for k in _PLACE_KEYS[0]):
        return []
    parts = [next((keys[k] for k in group if isinstance(keys.get(k), str) and keys[k]), None) for group in _PLACE_KEYS]
    return [", ".join(p for p in parts if isinstance(p, str))] if parts[0] else []


_RECORD_LINE = re.compile(r"^[ \t]{0,8}(?:[-*+•][ \t]+)?(?P<key>city|town|name|place|region|state|province|admin1|"
                          r"country)[ \t]*[:=][ \t]*(?P<value>[^\n:]{1,80}?)[ \t.]*$", re.IGNORECASE)


def unrecord(text: str) -> str:
    """A place written as labelled lines, one part a line ("City: Irkutsk", "Region: Irkutsk Oblast", "Country:
    Russia", bulleted or not), written as its FINAL ANSWER line, as the same record in JSON is (:func:`unjson`);
    a name alone is no record."""
    if ":" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        j = k
        while j < len(lines) and _RECORD_LINE.match(lines[j]):
            j += 1
        record = {m.group("key").lower(): m.group("value") for ln in lines[k:j] if (m := _RECORD_LINE.match(ln))}
        place = _place_of(dict(record)) if len(record) >= 2 else []
        if place:
            out.append(f"FINAL ANSWER: {place[0]}")
            k = j
        else:
            out.append(lines[k])
            k += 1
    return "\n".join(out)


_KEY_UNIT = re.compile(r"^(?P<name>.*?)[ _-]?(?P<unit>km2|sq_?km|km|metres|meters|m|mi|miles|deg|degrees|s|sec|"
                       r"seconds|mps|m_s|h|hours)$", re.IGNORECASE)
_UNIT_WORD = {"km2": " km²", "sqkm": " km²", "sq_km": " km²", "km": " km", "metres": " m", "meters": " m", "m": " m",
              "mi": " mi", "miles": " mi", "deg": "°", "degrees": "°", "s": " s", "sec": " s", "seconds": " s",
              "mps": " m/s", "m_s": " m/s", "h": " h", "hours": " h"}
_ANGLE_KEY = re.compile(r"bearing|azimuth|heading|course", re.IGNORECASE)


def _measured(obj: dict[str, object]) -> str | None:
    """A flat JSON record of measured values (a tool's result echoed, ``{"initial_bearing": 319.15, "compass":
    "NW"}``, ``{"distance_km": 7785.7}``) as text whose units come from the keys: "initial bearing: 319.15°,
    compass: NW". None for a record with no unit in its keys, or with nested values (a tool call)."""
    if not obj or any(isinstance(v, (dict, list)) for v in obj.values()):
        return None
    parts, units = [], 0
    for key, value in obj.items():
        k = str(key).strip()
        m = _KEY_UNIT.match(k) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        unit = _UNIT_WORD.get(m.group("unit").lower(), "") if m and m.group("name") else ""
        unit = unit or ("°" if isinstance(value, (int, float)) and _ANGLE_KEY.search(k) else "")
        name = (m.group("name") if m and unit and m.group("name") else k).replace("_", " ")
        units += bool(unit)
        parts.append(f"{name}: {_json_value(value)}{unit}")
    return ", ".join(parts) if units else None


def unjson(text: str) -> str:
    """JSON objects with an answer field (``{"answer": ...}``, ``{"final_answer": ...}``) written as a FINAL
    ANSWER line, and a field offering another answer (``"alternative"``, ``"second_choice"``) as a line after
    it; other fields (confidence, reasoning) are dropped. A record of measured values whose keys name their
    units is written as text with the units (:func:`_measured`). Objects that are no valid JSON are left as
    written."""
    if "{" not in text:
        return text
    decoder = json.JSONDecoder()
    out: list[str] = []
    pos = 0
    for n, m in enumerate(_JSON_START.finditer(text)):
        if n >= MAX_JSON:
            break
        start = text.index("{", m.start())
        if start < pos:
            continue
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        main = [v for k, v in obj.items() if _ANSWER_KEYS.match(str(k).strip())] or _place_of(obj)
        others = [v for k, v in obj.items() if _OTHER_KEYS.search(str(k)) and not _ANSWER_KEYS.match(str(k))]
        if not main and (measured := _measured(obj)):
            out += [text[pos:start], measured]
            pos = end
            continue
        if not main:
            continue
        lines = [f"FINAL ANSWER: {_json_value(main[-1])}"]
        lines += [f"Alternative answer: {_json_value(v)}" for v in others if v not in (None, "", [])]
        out.append(text[pos:start])
        out.append("\n" + "\n".join(lines) + "\n")
        pos = end
    out.append(text[pos:])
    return "".join(out)


_WEAK_LABEL = re.compile(
    r"(?im)^(?P<lead>[ \t]{0,8}(?:[-*+•][ \t]+)?)(?:(?:my|the|our)[ \t]+)?(?:result|conclusion|verdict|choice|"
    r"selection|prediction|selected option|pick|solution)[ \t]*[:：=-][ \t]*(?=\S)")
_IS_THE_ANSWER = re.compile(
    r"^(?P<lead>(?:(?:based on|according to|after|from|given|so|thus|therefore|hence|overall|in conclusion|"
    r"in summary|all in all|putting)[^,:;\n]{0,100}[,:;][ \t]*)?)(?P<value>[^:;\n]{1,200}?)[ \t]+"
    r"(?:is|would be|should be)[ \t]+"
    r"(?:the|my)[ \t]+(?:final[ \t]+|correct[ \t]+|best[ \t]+|right[ \t]+)?answer\b[^\n]{0,80}$", re.IGNORECASE)
"""A last line that names its answer first: "Based on my calculations, C is the answer." """
WEAK_LINES = 3
"""Last lines of a reply without a FINAL ANSWER line where "Result:", "Conclusion:" and their kin commit."""


def _weak_labels(text: str) -> str:
    """Without any FINAL ANSWER line, a "Result:" or "Conclusion:" label on one of the reply's last
    :data:`WEAK_LINES` non-empty lines commits too (earlier, such labels are steps of the working)."""
    if re.search(r"final\s{0,5}answer\s{0,5}[:：]", text, re.IGNORECASE):
        return text
    lines = text.rstrip().split("\n")
    filled = [k for k, ln in enumerate(lines) if ln.strip()][-WEAK_LINES:]
    for k in reversed(filled):
        new = _WEAK_LABEL.sub(lambda m: m.group("lead") + "FINAL ANSWER: ", lines[k], count=1)
        if new == lines[k] and (m := _IS_THE_ANSWER.match(lines[k])):
            new = f"{m.group('lead')}\nFINAL ANSWER: {m.group('value')}"
        if new != lines[k]:
            lines[k] = new
            return "\n".join(lines)
    return text


_BOXED = re.compile(r"\\(?:boxed|fbox)\s{0,3}\{")
_ANY_FINAL = re.compile(r"final\s{0,5}answer", re.IGNORECASE)
MAX_BOXES = 8
"""``\\boxed{}`` answers marked per reply (a reply with more leaves the rest as text)."""


def mark_boxed(text: str) -> str:
    """Without any "final answer" label, boxed answers commit: a ``FINAL ANSWER:`` line follows each line that
    holds ``\\boxed{X}``, with X, or with the span from its first box to its last when it holds several
    (``\\boxed{Yes} or \\boxed{No}`` stays one line, read as a whole). Math-tuned models box their answer and
    write no label; boxes on different lines with different values stay two candidates, a hedge."""
    if "box" not in text or _ANY_FINAL.search(text) or not _BOXED.search(text):
        return text
    closers = _closers(text)
    spans: dict[int, tuple[int, int]] = {}  # end of a line holding boxes -> (first box start, last box end)
    boxes = 0
    for m in _BOXED.finditer(text):
        close = closers.get(m.end() - 1)
        if close is None:
            continue
        eol = text.find("\n", close)
        eol = len(text) if eol < 0 else eol
        first, last = spans.get(eol, (m.start(), close + 1))
        spans[eol] = (first, max(last, close + 1))
        boxes += 1
        if boxes >= MAX_BOXES:
            break
    out, pos = [], 0
    for eol, (start, end) in sorted(spans.items()):
        out.append(text[pos:eol] + "\nFINAL ANSWER: " + text[start:end].replace("\n", " "))
        pos = eol
    out.append(text[pos:])
    return "".join(out)


def mark_answers(text: str) -> str:
    """Each committing label at a line start written as ``FINAL ANSWER:`` ("Final answer - 42.3" is 42.3, not
    -42.3; "**Answer:** B", "The final answer is $\\boxed{B}$", an "Answer" heading with the answer below)."""
    def fix(m: re.Match[str]) -> str:
        sep, label = m.group("sep").lower(), m.group("label").lower()
        if (not sep and label == "final") or (sep[:1] in ("i", "w") and "final" not in label):
            return m.group(0)  # "Final" alone, "The answer is ..." (a sentence: the committing cue reads it)
        return m.group("lead") + "FINAL ANSWER: "
    return _LABEL.sub(fix, text)


_PLEASANTRY = re.compile(
    r"(?im)^[ \t]{0,8}[^\n]{0,40}\b(?:let me know|feel free|hope (?:this|that|it) helps|happy to help|glad to help|"
    r"if you (?:have|need|want)|any (?:other|more|further) questions|good luck|cheers|anything else)\b[^\n]{0,200}$")


def trim_pleasantries(text: str) -> str:
    """Closing courtesy lines ("Let me know if you need anything else!") taken off the end of the reply."""
    tail = text.rstrip()
    for _ in range(4):
        cut = tail.rfind("\n")
        last = tail[cut + 1:]
        if cut < 0 or not _PLEASANTRY.fullmatch(last) or any(ch.isdigit() for ch in last):
            break
        tail = tail[:cut].rstrip()
    return tail


_CORRECTED = re.compile(
    r"(?im)^(?P<lead>[ \t]{0,8}(?:[-*+•][ \t]+)?)(?:(?:my|the|our)[ \t]+)?(?:corrected|revised|updated|amended|"
    r"fixed)[ \t]+(?:final[ \t]+)?(?:answer|choice)s?[ \t]*[:：=][ \t]*|^(?P<lead2>[ \t]{0,8})correction[ \t]*[:：][ \t]*")
_SUPERSEDED = "Superseded: "


def supersede(text: str) -> str:
    """A labelled correction replaces the answer: the last "Corrected answer:" (or "Revised answer:",
    "Correction:") line becomes the FINAL ANSWER line and the FINAL ANSWER lines before it are marked superseded
    (no second candidate). A correction followed by a later FINAL ANSWER line changes nothing."""
    last = None
    for last in _CORRECTED.finditer(text):  # noqa: B007 - keeps the last one
        pass
    if last is None or re.search(r"final\s{0,5}answer\s{0,5}[:：]", text[last.end():], re.IGNORECASE):
        return text
    head = re.sub(r"(?i)final\s{0,5}answer\s{0,5}[:：]\s?", _SUPERSEDED, text[:last.start()])
    lead = last.group("lead") or last.group("lead2") or ""
    return head + lead + "FINAL ANSWER: " + text[last.end():]


_SPECIAL_TOKEN = re.compile(r"<\|[A-Za-z_]{1,30}\|>|<｜[^｜<>\n]{1,40}｜>|</?s>|<(?:eos|bos|pad|end_of_turn|start_of_turn)>|"
                            r"\[/?INST\]")
"""A chat template's control token (``<|return|>``, ``<|eot_id|>``, ``</s>``, ``<end_of_turn>``, DeepSeek's
``<｜end▁of▁sentence｜>``, ``[/INST]``): no text of the answer."""


PREPARE_CAP = 8_000
"""Characters of the answer text prepared at each end of a longer reply (the rest is never read)."""


@lru_cache(maxsize=8_192)
def prepare(text: str) -> str:
    """The answer text of a reply, ready for extraction (see the module docstring): reasoning taken apart,
    JSON answers and place records, LaTeX and markdown unwrapped, thousands separators unified, committing labels written as
    ``FINAL ANSWER:`` lines and closing pleasantries dropped. A reply that is all reasoning gives ``""``."""
    if not isinstance(text, str):
        return ""
    _, answer = split_reasoning(text)
    answer = _SPECIAL_TOKEN.sub(" ", shorten_digits(answer))  # chat-template tokens ("C<|return|>")
    if len(answer) > 2 * PREPARE_CAP:  # the answer is at the end (a completion's at the start)
        answer = answer[:PREPARE_CAP] + "\n\n" + answer[-PREPARE_CAP:]
    t = untag(unjson(ungeo(unticked(answer))))
    t = unlatex(mark_boxed(t))
    t = unrecord(unmarkdown(t))
    t = unify_numbers(t)
    t = trim_pleasantries(supersede(mark_answers(t)))
    return _weak_labels(t)
