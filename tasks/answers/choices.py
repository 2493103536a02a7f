"""Choosing among options (by letter, number, text or id), yes/no and compass directions.

A bare capital counts as an option letter only where it reads as one: ``(B)``, ``B)``, ``option B``, the whole
answer ``B``, ``B.``/``B:``/``B -`` before the option's text, or a list made only of letters (``A, B, C or D``,
which is a hedge). ``A guess would be hard here`` names no option. Option numbers read the same way, but a
number inside a decimal, or one closing a bracket opened before it (``(34.5)``, ``(12.5, 3)``), is no label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tasks.answers.decide import decide, distinct
from tasks.answers.text import blank_phrase, clean, contains_phrase, fold
from tasks.records import Parsed

_LABEL = r"(?:[A-Z]|[0-9]{1,2})"
_MARKED = re.compile(rf"(?<![A-Za-z0-9])\(({_LABEL})\)|(?<![A-Za-z0-9(.])({_LABEL})\)")
_NAMED = re.compile(rf"\b(?:options?|answer|choice|letter)\s?(?:is\s|:\s?|=\s?)?\(?(?-i:({_LABEL}))\)?(?![A-Za-z0-9])",
                    re.IGNORECASE)
_NAMED_LOWER = re.compile(r"\b(?:options?|choice|letter)\s?(?:is\s|:\s?)?(?:\(([a-z])\)|([a-z])(?=\s?[).:,;]?\s?$))",
                          re.IGNORECASE)
"""A lower-case letter named as an option: "Option (b)", "option b" ending the answer."""
_ORDINAL = re.compile(r"\b(?:options?|choice|answer)\s?(?:no\.?\s?|number\s|#)(\d{1,2})\b|#(\d{1,2})\b", re.IGNORECASE)
"""An option by its number: "Option #2", "option number 2", "#2": the second option where options are lettered,
the option labelled 2 where they are numbered (labels may start at 0)."""
_START = re.compile(rf"^\(?({_LABEL})\)?(?:$|\s?[:)\-,;]|\s?\.(?!\d)|\s-|\s\(|"
                    r"\s(?:is|would be|should be)\s(?:the\s)?(?:correct|right|best|answer)\b)")
_ARROW = re.compile(r"^\s?(?:→|⇒|=>|->|➜|➡)\s?")
_LOWER_ALONE = re.compile(r"\(?([a-j])\)?[.)]?")
_CONNECTORS = re.compile(
    r"\b(?:or|and|either|both|options?|answers?|choices?|letters?|is|are|also|maybe|perhaps|possibly|probably|"
    r"plausible|possible|likely|equally|vs|versus|though|although|alternatively|otherwise|if\s+not)\b"
    r"|(?:[,/&;()\s]|\.(?!\d))+", re.IGNORECASE)


def _label_index(label: str, n: int, letters: bool, numbers: bool, first_number: int) -> int | None:
    if label.isascii() and label.isdigit():
        k = int(label) - first_number
        return k if numbers and 0 <= k < n else None
    if not (letters and len(label) == 1 and "A" <= label <= "Z"):
        return None
    k = ord(label) - 65
    return k if k < n else None


def _closing_brackets(s: str) -> set[int]:
    """Positions of the ``)`` in ``s`` that close an open ``(`` (one pass)."""
    depth, out = 0, set()
    for i, ch in enumerate(s):
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            out.add(i)
    return out


def option_labels(segment: str, n: int, *, letters: bool = True, numbers: bool = False,
                  first_number: int = 1) -> list[int]:
    """Indices of the options ``segment`` names by label (letter A.. or number from ``first_number``), in order."""
    s = _ARROW.sub("", clean(segment).strip())
    idx = lambda lab: _label_index(lab, n, letters, numbers, first_number)  # noqa: E731
    if letters and (alone := _LOWER_ALONE.fullmatch(s)) and idx(alone.group(1).upper()) is not None:
        return [idx(alone.group(1).upper())]  # type: ignore[list-item]  # "c": the whole answer, lower case
    tokens = [t for t in _CONNECTORS.split(s) if t]
    if tokens and all(idx(t) is not None for t in tokens):  # "A", "A B C D", "A, B, C or D", "(1) or (2)"
        return [idx(t) for t in tokens]  # type: ignore[misc]
    found: list[tuple[int, int]] = []
    m = _START.match(s)
    if m and idx(m.group(1)) is not None:
        found.append((m.start(1), idx(m.group(1))))  # type: ignore[arg-type]
    closing = _closing_brackets(s)
    for rx in (_MARKED, _NAMED):
        for m in rx.finditer(s):
            if rx is _MARKED and m.group(2) and m.end() - 1 in closing:  # "(12.5, 3)": 3) closes a bracket
                continue
            lab = next(g for g in m.groups() if g)
            k = idx(lab)
            if k is not None:
                found.append((m.start(), k))
    if letters:
        for m in _NAMED_LOWER.finditer(s):
            k = idx((m.group(1) or m.group(2)).upper())
            if k is not None and all(p != m.start() for p, _ in found):
                found.append((m.start(), k))
    for m in _ORDINAL.finditer(s):  # numbered options: "option no. 2" names label 2; lettered: the second
        num = m.group(1) or m.group(2)
        k = idx(num) if numbers else int(num) - 1
        k = -1 if k is None else k
        if 0 <= k < n and all(p != m.start() for p, _ in found):
            found.append((m.start(), k))
    found = list({p: (p, k) for p, k in found}.values())
    return [k for _, k in sorted(found)]


def option_texts(segment: str, aliases: Sequence[Sequence[str]]) -> list[int]:
    """Indices of options whose text (or an alias) occurs as whole words; longer phrases are matched first and
    consumed, so "Springfield, Illinois" is not also counted as "Springfield"."""
    text = fold(segment)
    phrases = sorted(((fold(a), i) for i, names in enumerate(aliases) for a in names if fold(a)),
                     key=lambda p: -len(p[0]))
    found: list[int] = []
    for phrase, i in phrases:
        if contains_phrase(text, phrase):
            if i not in found:
                found.append(i)
            text = blank_phrase(text, phrase)
    return found


def option(segment: str, aliases: Sequence[Sequence[str]], *, letters: bool = True, numbers: bool = False,
           first_number: int = 1, texts: bool = True) -> Parsed[int]:
    """The one option ``segment`` names (0-based index), by label and/or text.

    Several labels ("A or B", every option echoed) are hedged; a label whose option text is contradicted by
    another option's text ("B) Paris" when Paris is C) is hedged; a label with its own text, possibly with other
    option names mentioned after it, is that option; without a label, exactly one option text must be named.
    """
    n = len(aliases)
    by_label = list(dict.fromkeys(option_labels(segment, n, letters=letters, numbers=numbers,
                                                first_number=first_number)))
    by_text = option_texts(segment, aliases) if texts else []
    if len(by_label) > 1:
        return decide(segment, by_label + [i for i in by_text if i not in by_label], what="option")
    if by_label:
        if by_text and by_label[0] not in by_text:
            return decide(segment, by_label + by_text, what="option")
        return Parsed.success(segment, by_label[0])
    return decide(segment, by_text, what="option")


_YES_NO = {"yes": True, "no": False, "true": True, "false": False, "oui": True, "non": False, "ja": True,
           "nein": False, "sim": True, "nao": False}
_YES_NO_FIRST = {"si": True}
"""Words that say yes or no only as the answer's first word ("Sí", but "si" is also "if")."""
_CJK = "\u3400-\u9fff"
_CJK_YES_NO = re.compile(rf"(?<![{_CJK}])(不是|是的|是|否)(?![{_CJK}])")


def yes_no_values(segment: str) -> list[bool]:
    """Every whole-word yes (True) and no (False) in ``segment``, in English (also true/false), French, German,
    Spanish, Italian, Portuguese or Chinese (oui/non, ja/nein, sí/no, sim/não, 是/否); "no" is not in "north"."""
    words = fold(segment).split()
    found = [_YES_NO[w] for w in words if w in _YES_NO]
    if words and words[0] in _YES_NO_FIRST:
        found.insert(0, _YES_NO_FIRST[words[0]])
    return found + [m.group(1) in ("是", "是的") for m in _CJK_YES_NO.finditer(segment)]


def yes_no(segment: str) -> Parsed[bool]:
    """True for a whole-word yes, False for a whole-word no (:func:`yes_no_values`); both are hedged."""
    return decide(segment, yes_no_values(segment), what="yes/no")


DIRECTIONS_8: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DIRECTION_NAMES: dict[str, str] = {
    "N": "North", "NE": "Northeast", "E": "East", "SE": "Southeast",
    "S": "South", "SW": "Southwest", "W": "West", "NW": "Northwest",
}
_WORD_DIR = {"north": "N", "south": "S", "east": "E", "west": "W",
             "northeast": "NE", "northwest": "NW", "southeast": "SE", "southwest": "SW"}
_DIAGONALS = ("northeast", "northwest", "southeast", "southwest")
_ABBREV = re.compile(r"(?<![\w°'\".])(NNE|ENE|ESE|SSE|SSW|WSW|WNW|NNW|NE|NW|SE|SW|N|E|S|W)(?![\w'])")


_LIST_SEP = re.compile(r"[,;/|()\[\]&+]|\s(?:or|and)\s", re.IGNORECASE)


_FOREIGN_DIR = {
    # German, Spanish, Portuguese, Italian and French words whose meaning is unambiguous
    "norden": "north", "nord": "north", "suden": "south", "sud": "south", "osten": "east", "ost": "east",
    "westen": "west", "nordosten": "northeast", "nordost": "northeast", "nordwesten": "northwest",
    "nordwest": "northwest", "sudosten": "southeast", "sudost": "southeast", "sudwesten": "southwest",
    "sudwest": "southwest", "norte": "north", "oeste": "west", "noreste": "northeast", "nordeste": "northeast",
    "noroeste": "northwest", "sureste": "southeast", "sudeste": "southeast", "suroeste": "southwest",
    "sudoeste": "southwest", "leste": "east", "ovest": "west", "ouest": "west", "nordest": "northeast",
    "nordovest": "northwest", "sudest": "southeast", "sudovest": "southwest"}
_FOREIGN_BARE = {"est": "east", "este": "east", "sur": "south"}
"""Words that name a direction only after nord/sud ("nord-est") or as the whole answer ("Est", "al este"): "est"
is also French "is", "este" Spanish "this", "sur" French "on"."""
_GLUE = frozenset({"a", "al", "el", "l", "le", "la", "de", "du", "del", "the", "to", "direction", "direccion"})
_CJK_DIR = re.compile(r"(?<![\u3400-\u9fff])正?(东北|西北|东南|西南|東北|東南|东|東|西|南|北)(?:方向|方|边|面|部)?"
                      r"(?![\u3400-\u9fff])")
_CJK_WORD = {"东北": "northeast", "西北": "northwest", "东南": "southeast", "西南": "southwest", "東北": "northeast",
             "東南": "southeast", "东": "east", "東": "east", "西": "west", "南": "south", "北": "north"}


def _english(words: list[str]) -> list[str]:
    """Direction words of other languages as English ones (:data:`_FOREIGN_DIR`, :data:`_FOREIGN_BARE`)."""
    out = [_FOREIGN_DIR.get(w, w) for w in words]
    for i, w in enumerate(words):
        if w in _FOREIGN_BARE and ((i and words[i - 1] in ("nord", "sud")) or all(
                v in _GLUE for j, v in enumerate(words) if j != i)):
            out[i] = _FOREIGN_BARE[w]
    return out


def _chunk_directions(chunk: str) -> list[str]:
    """The directions named in one list item, 16-point ones as their abbreviation ("north-northeast" is NNE), in
    English, German, French, Spanish, Portuguese, Italian or Chinese ("Südosten", "nord-ouest", "noreste", "西")."""
    chunk = _CJK_DIR.sub(lambda m: f" {_CJK_WORD[m.group(1)]} ", chunk)
    words = _english(fold(re.sub(r"['’]", " ", chunk)).split())  # "l'est": the article apart
    found: list[str] = []
    i = 0
    while i < len(words):
        w, nxt = words[i], words[i + 1] if i + 1 < len(words) else ""
        if w in ("north", "south") and nxt in ("east", "west"):
            d, i = _WORD_DIR[w + nxt], i + 2
        elif w in _WORD_DIR:
            d, i = _WORD_DIR[w], i + 1
        else:
            i += 1
            continue
        rest = words[i:i + 2]
        if len(d) == 1 and rest and rest[0] in _DIAGONALS:
            d, i = d + _WORD_DIR[rest[0]], i + 1
        elif len(d) == 1 and len(rest) == 2 and rest[0] in ("north", "south") and rest[1] in ("east", "west"):
            d, i = d + _WORD_DIR[rest[0] + rest[1]], i + 2
        found.append(d)
    return found + _ABBREV.findall(clean(chunk))


def direction(segment: str) -> Parsed[str]:
    """One of the 8 compass directions (``"N"`` ... ``"NW"``) named in ``segment``, words or abbreviations.

    "north-east", "North East", "northeast" and "NE" are NE; "north" inside "northeast" does not count as N.
    List items (split at commas, slashes, brackets, "or", "and") are read apart, so "North, East" is two
    directions. Two different directions are hedged; one 16-point direction (NNE, north-northeast) is unparsed.
    """
    found = distinct([d for chunk in _LIST_SEP.split(segment) for d in _chunk_directions(chunk)])
    if len(found) == 1 and len(found[0]) == 3:
        return Parsed.failure(segment, "a 16-point direction was given; the question asks for one of 8")
    return decide(segment, found, what="compass direction")
