"""Finding the committed answer in a reply: the FINAL ANSWER line, a completion, or the line a free reply
commits to; text normalisation, placeholder echoes and refusals. Every function here runs in linear time."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

TAIL_CAP = 4_000
"""Characters of a reply without a FINAL ANSWER line that are searched for the answer (the last ones)."""
SEGMENT_CAP = 600
"""Characters of an answer line handed to the typed extractors (its start); longer lines are cut."""
BLOCK_CAP = 3_000
"""Characters of a multi-line answer block (everything after the marker) handed to extractors."""
LONG_NUMBER = 40
"""Digit runs at least this long are replaced by :data:`LONG_NUMBER_MARK`: no answer has 40 digits."""
LONG_NUMBER_MARK = " ‹long number› "

FINAL_RE = re.compile(r"final\s{0,5}answer\s{0,5}[:：]", re.IGNORECASE)
_LONG_DIGITS = re.compile(r"\d{" + str(LONG_NUMBER) + ",}")
_MARKDOWN = re.compile(r"\*\*|__|`|\\\(|\\\)|\\\[|\\\]|\$|\\boxed\{|\\text\{|\\mathrm\{")
_TRANSLIT = str.maketrans({"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ı": "i"})
_CHARS = str.maketrans({"−": "-", "–": "-", "—": "-", "′": "'", "’": "'", "‘": "'", "″": '"', "”": '"', "“": '"',
                        "º": "°", "˚": "°", "\u00a0": " ", "\u202f": " ", "\u2009": " ", "：": ":"})


def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last non-overlapping match of ``pattern`` in ``text`` (one linear scan), or None."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 - keeps the last one
        pass
    return found


def shorten_digits(text: str) -> str:
    """``text`` with digit runs of :data:`LONG_NUMBER` or more digits replaced by a marker."""
    return _LONG_DIGITS.sub(LONG_NUMBER_MARK, text)


def clean(text: str) -> str:
    """Markdown emphasis, code ticks and LaTeX delimiters dropped; dashes, primes, quotes and spaces normalised."""
    return _MARKDOWN.sub("", text).translate(_CHARS)


@lru_cache(maxsize=65_536)
def fold(text: str) -> str:
    """Lower-case, accent-free words separated by single spaces (punctuation becomes space)."""
    s = unicodedata.normalize("NFKD", text.casefold().translate(_TRANSLIT))
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    s = re.sub(r"['’`]", "", s)
    return " ".join(re.sub(r"[^0-9a-z]+", " ", s).split())


def contains_phrase(haystack_folded: str, phrase_folded: str) -> bool:
    """Whole-word containment of an already folded phrase in folded text."""
    return bool(phrase_folded) and f" {phrase_folded} " in f" {haystack_folded} "


def find_phrase(haystack_folded: str, phrase_folded: str) -> list[int]:
    """Start offsets (in the folded text) of every whole-word occurrence of a folded phrase."""
    if not phrase_folded:
        return []
    padded, needle, out, i = f" {haystack_folded} ", f" {phrase_folded} ", [], 0
    while (i := padded.find(needle, i)) >= 0:
        out.append(i)
        i += 1
    return out


def blank_phrase(haystack_folded: str, phrase_folded: str) -> str:
    """The folded text with every whole-word occurrence of the phrase replaced by '#' (same length)."""
    padded, needle = f" {haystack_folded} ", f" {phrase_folded} "
    while needle in padded:
        padded = padded.replace(needle, " " + "#" * len(phrase_folded) + " ")
    return padded[1:-1]


def _tidy(segment: str) -> str:
    """A segment cleaned, on one line of single spaces, without wrapping emphasis or a trailing full stop."""
    s = " ".join(clean(shorten_digits(segment)).split())
    return s.strip("* ").strip()


_LIST_ITEM = re.compile(r"^\s{0,8}(?:[-*•+]|\(?\d{1,2}[.)](?!\d))\s+")
_BULLET = re.compile(r"^\s{0,8}[-*•+]\s+")
_CONTINUES = re.compile(r"^\s{0,8}(?:or|either|maybe|perhaps|possibly|alternatively|otherwise|if not|though|"
                        r"although|actually|correction)\b", re.IGNORECASE)
_MAX_ITEMS = 12


def _answer_lines(rest: str) -> tuple[list[str], list[str]]:
    """The lines an answer after a marker spans (``rest`` starts right after it): its line, or the next
    non-empty one when the marker ends its line; a list of items (bullets, "1." numbers) that starts there; and
    following lines that offer an alternative ("or ...", "maybe ..."): (items, those lines), list markers
    removed."""
    lines = rest.split("\n")
    i = 0 if lines[0].strip(" \t*_`") else next((k for k, ln in enumerate(lines) if ln.strip(" \t*_`")), 0)
    out = [lines[i]]
    if _LIST_ITEM.match(lines[i]):
        for ln in lines[i + 1: i + _MAX_ITEMS]:
            if not _LIST_ITEM.match(ln):
                break
            out.append(ln)
        if len(out) > 1:
            out = [_LIST_ITEM.sub("", ln) for ln in out]
        elif i > 0:  # one bullet under the marker ("Final Answer:\n- 52.3, -17.2"): its dash is no minus sign
            out = [_BULLET.sub("", out[0])]
    more: list[str] = []
    for ln in lines[i + len(out): i + len(out) + 3]:
        if not _CONTINUES.match(ln):
            break
        more.append(ln)
    return out, more


def final_answer_end(text: str, start: int) -> int:
    """Where the answer after a FINAL ANSWER marker ending at ``start`` ends (see :func:`_answer_lines`)."""
    rest = text[start: start + 4 * SEGMENT_CAP]
    lines = rest.split("\n")
    first = 0 if lines[0].strip(" \t*_`") else next((k for k, ln in enumerate(lines) if ln.strip(" \t*_`")), 0)
    items, more = _answer_lines(rest)
    return min(len(text), start + sum(len(ln) + 1 for ln in lines[:first + len(items) + len(more)]) - 1)


def _segment_at(text: str, start: int) -> str:
    rest = text[start: start + 4 * SEGMENT_CAP].lstrip(" \t*_`")
    items, more = _answer_lines(rest)
    return _tidy(" ".join([" or ".join(ln.strip() for ln in items), *more])[:SEGMENT_CAP])


def final_answer_segment(text: str) -> str | None:
    """The answer after the last ``FINAL ANSWER:`` marker (its line, or the next non-empty line when the marker
    ends its line; a bulleted or numbered list there, and lines after it that offer an alternative ("or ...")
    are joined with " or ", so a listed answer reads as the hedge it is), cleaned and capped at
    :data:`SEGMENT_CAP`; None when there is no marker."""
    last = last_match(FINAL_RE, text)
    return None if last is None else _segment_at(text, last.end())


MAX_MARKERS = 10
"""FINAL ANSWER markers read per reply (the last ones) when checking that they agree."""


def final_answer_segments(text: str) -> list[str]:
    """The answer after each of the last :data:`MAX_MARKERS` ``FINAL ANSWER:`` markers, last first."""
    marks = list(FINAL_RE.finditer(text, max(0, len(text) - BLOCK_CAP * 4)))[-MAX_MARKERS:]
    return [_segment_at(text, m.end()) for m in reversed(marks)]


def answer_block(text: str) -> str | None:
    """Everything after the last FINAL ANSWER marker (several lines, capped at :data:`BLOCK_CAP`), cleaned;
    None without a marker."""
    last = last_match(FINAL_RE, text)
    return None if last is None else clean(shorten_digits(text[last.end(): last.end() + BLOCK_CAP])).strip()


def earlier_blocks(text: str) -> list[str]:
    """The multi-line answers after each FINAL ANSWER marker but the last (each up to the next marker, capped
    at :data:`BLOCK_CAP`), cleaned, latest first; at most :data:`MAX_MARKERS` - 1 of them."""
    base = max(0, len(text) - BLOCK_CAP * 4)
    marks = list(FINAL_RE.finditer(text, base))[-MAX_MARKERS:]
    return [clean(shorten_digits(text[a.end(): min(b.start(), a.end() + BLOCK_CAP)])).strip()
            for a, b in reversed(list(zip(marks, marks[1:], strict=False)))]


def last_line(text: str) -> str:
    """The last non-empty line of the reply's tail, cleaned."""
    tail = text[-TAIL_CAP:]
    for line in reversed(tail.splitlines()):
        if line.strip(" \t*_`#>-"):
            return _tidy(line[:SEGMENT_CAP])
    return ""


_COMMIT = re.compile(
    r"\b(?:(?:my|the)\s)?(?:final\s|correct\s|best\s)?answer\s?(?:is|would be|:|=)\s?:?"
    r"|\b(?:therefore|thus|hence|so|overall|in summary|in conclusion|actually|correcting|corrected|"
    r"correction|finally)\b,?:?|\bI(?:'d| would|'ll| will)\s(?:pick|choose|select|go with)\b"
    r"|\b(?:la\s)?respuesta(?:\s(?:correcta|final))?\s(?:es|ser[ií]a)(?:\sla)?\b"
    r"|\b(?:die\s)?(?:richtige\s|endg[üu]ltige\s)?antwort\s(?:ist|lautet)\b"
    r"|\b(?:la\s)?(?:bonne\s)?r[ée]ponse(?:\s(?:correcte|finale))?\s(?:est|serait)(?:\sla)?\b"
    r"|\b(?:la\s)?risposta(?:\s(?:corretta|finale))?\s(?:è|e)(?:\sla)?\b|(?:正确|最终)?答案(?:是|为|應為|应为)",
    re.IGNORECASE)
"""Words that commit a free reply to what follows them: "the answer is", "Therefore", "I'd pick", and the same
sentences in Spanish, German, French, Italian and Chinese ("La respuesta correcta es", "Die richtige Antwort ist",
"La bonne réponse est", "答案是")."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


@dataclass(frozen=True)
class Answer:
    """The text a reply commits to as its answer, and where it was found."""

    text: str
    source: Literal["final", "completion", "commit", "last_line", "first_line", "emphasis"]
    end: int = -1
    """Where the answer ends in the reply (what follows may offer a second answer); -1 when not known."""


def find_answer(text: str, *, completion: bool = False) -> Answer | None:
    """The committed answer of a reply, cleaned and capped; None when the reply is empty.

    1. the last ``FINAL ANSWER:`` line;
    2. in completion style (the prompt ends in a stub such as ``Answer: Option (``), the reply's first line,
       which continues the stub;
    3. otherwise the last line that commits to an answer ("the answer is ...", "Therefore ..."), from the cue
       on, within the last :data:`TAIL_CAP` characters;
    4. otherwise the last non-empty line.
    """
    last = last_match(FINAL_RE, text)
    if last is not None:
        return Answer(_segment_at(text, last.end()), "final", final_answer_end(text, last.end()))
    if completion:
        skip = len(text) - len(text.lstrip())
        head = text[skip: skip + SEGMENT_CAP * 4]
        first = head.split("\n", 1)[0]
        return Answer(_tidy(first[:SEGMENT_CAP]), "completion", skip + len(first)) if first.strip() else None
    base = max(0, len(text) - TAIL_CAP)
    tail = text[base:]
    end = len(tail)
    for line in reversed(tail.split("\n")):
        start = end - len(line)
        cue = last_match(_COMMIT, line)
        if cue is not None and line[cue.end():].strip(" .:*"):
            return Answer(_tidy(line[cue.end():][:SEGMENT_CAP]), "commit", base + end)
        end = start - 1
    line = last_line(text)
    if not line:
        return None
    return Answer(_SENTENCE.split(line)[-1] if len(line) < SEGMENT_CAP else line, "last_line", len(text))


ONLY_ANSWER_WORDS = 6
"""A last line of at most this many words, after reasoning, is only the answer ("**C**", "2,424 km")."""
_STATES = re.compile(r"\b(?:is|was|would be|will be|should be|must be|equals|comes to|comes out to|works out to|"
                     r"gives|yields|lies|sits|it's|that's|it'll be|that'll be)\b|[=≈]", re.IGNORECASE)
_REJECTS = re.compile(r"\b(?:not|no|never|wrong|incorrect|ruled? out|eliminat\w*|exclud\w*|reject\w*|unlikely|"
                      r"implausible|impossible|cannot|can't|except|unlike|rather than|instead of|because|since|if|"
                      r"assum\w*|given|radius|using|with)\b|\?$", re.IGNORECASE)


_OPTION_ITEM = re.compile(r"^[ \t]{0,8}(?:[-*•+][ \t]+)?(?:\(?[A-Z]\)|[A-Z][.:]|\(\d{1,2}\))[ \t]+\S")
"""A line that lists an option by its label ("A) heading NW", "(3) East"): the last of several such lines is one
item of a list (the options echoed), not an answer the reply commits to."""


def located(text: str, answer: Answer) -> bool:
    """Whether a free reply's last line is an answer the reply commits to (scoring policy rule 1): the reply is
    only that line, the line is only the answer (at most :data:`ONLY_ANSWER_WORDS` words), or the line states
    a value ("The distance is 2,424 km.") without rejecting, assuming or asking, and is not the last of several
    lines listing options by label (:data:`_OPTION_ITEM`). Any other last line is no commitment: the answer is
    ``unlocated``, never guessed from the last line in sight."""
    if answer.source != "last_line":
        return True
    lines = [ln for ln in text.strip().split("\n") if ln.strip(" \t*_`#>-")]
    if answer.text.rstrip().endswith("?") and len(lines) > 1:  # a question commits to nothing
        return False
    if len(lines) > 1 and all(_OPTION_ITEM.match(ln) for ln in lines[-2:]):  # the last item of a listed set
        return False
    return len(lines) <= 1 or len(answer.text.split()) <= ONLY_ANSWER_WORDS or states(answer.text)


def states(line: str) -> bool:
    """Whether a line is a sentence stating a value ("The distance is 2,424 km.") without rejecting, assuming or
    asking."""
    return (not line.rstrip().endswith("?") and bool(_STATES.search(line) or _COMMIT.match(line))
            and not _REJECTS.search(line))


def first_statement(text: str) -> Answer | None:
    """The answer of a reply written answer first, working after: its first line when that line is a sentence
    stating the answer (:func:`states`, more than :data:`ONLY_ANSWER_WORDS` words: a bare value, ``x = 1, y = 2``
    included, followed by more text is not "only the answer") and more lines follow; None otherwise. Read only where the reply has no answer label, box or committing cue and its
    last line commits to nothing (:func:`located`); what follows is then checked for a second answer like any
    text after a committed answer (``Answer.end``)."""
    body = text.lstrip()
    first, sep, _ = body.partition("\n")
    line = _tidy(first[:SEGMENT_CAP])
    if not sep or len(line.split()) <= ONLY_ANSWER_WORDS or not states(line):
        return None
    return Answer(line, "first_line", len(text) - len(body) + len(first))


COMPUTATION = re.compile(r"[=≈×÷√]|\b(?:calculat\w*|comput\w*|formula|haversine|sin|cos|tan|atan2?)\b", re.IGNORECASE)
"""Signs of working: a computation, a formula."""
REASONING = re.compile(COMPUTATION.pattern + r"|\b(?:because|since|so|therefore|thus|hence|first|then|next|step|"
                       r"initially|thought|assum\w*)\b", re.IGNORECASE)
"""Signs of reasoning: working, a because, a first thought."""


_DASH = re.compile(r"\s[—–-]\s")


def first_bare(text: str) -> Answer | None:
    """The answer of a reply whose first sentence (or its part before a spaced dash) is only the answer (at most
    :data:`ONLY_ANSWER_WORDS` words, not a question, nothing rejected or assumed: "Irkutsk, in Irkutsk Oblast,
    Russia.", "C — Guadalupe, Colombia.") and whose rest holds no working (:data:`COMPUTATION`, which may end
    anywhere): the reply commits to it unless its rest reasons its way to another value (the caller checks). None
    otherwise, and for a reply that is only that sentence (its last line reads it). What follows is still read
    for a second answer (``Answer.end``)."""
    body = text.lstrip()
    first = body.split("\n", 1)[0][:SEGMENT_CAP]
    cut = _SENTENCE.search(first)
    head = first[:cut.start()] if cut else first
    dash = _DASH.search(head)
    if dash is not None and len(head.split()) > ONLY_ANSWER_WORDS:  # "C) Guadalupe, Colombia — the point is ..."
        head = head[:dash.start()]
    rest = body[len(head):]
    line = _tidy(head).rstrip(" .")
    if (not rest.strip() or not line or len(line.split()) > ONLY_ANSWER_WORDS or line.endswith("?")
            or _REJECTS.search(line) or COMPUTATION.search(rest[:TAIL_CAP])):
        return None
    return Answer(line, "first_line", len(text) - len(body) + len(head))


def commit_block(text: str) -> str:
    """The answer of a reply without a FINAL ANSWER marker when it may span several lines (a grouping, a list of
    parts): from the last cue that commits ("the answer is", "Therefore") to the end of the reply, else the
    last line; cleaned, within the last :data:`TAIL_CAP` characters and capped at :data:`BLOCK_CAP`."""
    tail = text[-TAIL_CAP:]
    cue = last_match(_COMMIT, tail)
    if not has_commit_cue(text):
        return last_line(text)
    assert cue is not None  # has_commit_cue found it
    return clean(shorten_digits(tail[cue.end():][:BLOCK_CAP])).strip()


def has_commit_cue(text: str) -> bool:
    """Whether the reply's tail has a committing cue ("the answer is", "Therefore") with text after it: the
    block :func:`commit_block` reads from it is committed (without one it reads the last line)."""
    tail = text[-TAIL_CAP:]
    cue = last_match(_COMMIT, tail)
    return cue is not None and bool(tail[cue.end():].strip(" .:*\n\t"))


_REFUSAL = re.compile(
    r"\bI(?:'m| am)? (?:cannot|can ?not|can't|unable|not able|do not know|don't know|won't|will not|"
    r"must decline|have no way)\b|\bunable to (?:determine|answer|provide|compute|calculate|know)\b|"
    r"\b(?:cannot|can't|can not) be (?:determined|answered|computed|known)\b|\bnot possible to (?:determine|know|"
    r"answer|tell)\b|\bno way to (?:know|determine|tell)\b|\bas an AI\b|\binsufficient information\b|"
    r"\bnot enough (?:information|data|context)\b|\binsufficient (?:data|context)\b|\bI(?:'d| would) rather not\b|"
    r"\b(?:don't|do not) have (?:enough|sufficient|access)\b|\bnot in a position to\b|\bcan(?:not|'t|not) help with\b", re.IGNORECASE)
_NON_ANSWER = re.compile(r"(?:unknown|n/?a|none|none of the above|not sure|unsure|no answer|cannot determine|cannot answer|"
                         r"i don't know|undetermined|\?+)[.!]?", re.IGNORECASE)


def is_non_answer(segment: str) -> bool:
    """Whether an answer line is only a non-answer ("N/A", "Unknown", "None", "?")."""
    return bool(_NON_ANSWER.fullmatch(segment.translate(_CHARS).strip(" *`\n\t")))


def is_refusal(text: str) -> bool:
    """Whether a reply (or its answer line) declines to answer: "I cannot ...", "I don't know", "unable to
    determine", "Unknown", ... Only meaningful where no answer was extracted."""
    tail = text[-TAIL_CAP:].translate(_CHARS)
    return bool(_REFUSAL.search(tail) or _NON_ANSWER.fullmatch(tail.strip(" *`\n\t")))


_TEMPLATE = re.compile(r"FINAL ANSWER:\s?(?P<tpl>[^\n]{1,300})")
_WHERE_VAR = re.compile(r"\bwhere\s(?P<var>[A-Z])\s(?:is|are)\b")
_ANGLE_VAR = re.compile(r"<[^<>\n]{1,60}>")


def placeholders(prompt: str) -> set[str]:
    """The answer placeholders a prompt's answer instruction defines, folded: the whole template after
    ``FINAL ANSWER:``, variables defined by "where N is ...", and ``<...>`` slots."""
    out: set[str] = set()
    for m in _TEMPLATE.finditer(prompt[-TAIL_CAP:]):
        tpl = m.group("tpl")
        head = re.split(r",\s?where\s|\.\s|\(", tpl, maxsplit=1)[0]
        for piece in (tpl, head):
            key = fold(piece)
            if key:
                out.add(key)
        out.update(m.group("var").lower() for m in _WHERE_VAR.finditer(tpl))
        out.update(fold(s) for s in _ANGLE_VAR.findall(tpl) if fold(s))
    return out


def is_placeholder_echo(segment: str, prompt: str) -> bool:
    """Whether the answer line only repeats the prompt's placeholder (``FINAL ANSWER: N`` when the template
    said "N, where N is the option number", or ``<letter>``)."""
    key = fold(segment)
    return bool(key) and key in placeholders(prompt)
