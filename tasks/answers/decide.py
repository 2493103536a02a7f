"""The one decision every extractor ends in: the candidates found in the answer segment make one answer, a
hedge, or nothing; and the wrapper that finds the segment, rejects echoes and recognises refusals."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tasks.answers.emphasis import CLAUSE_END, REJECTED, emphasised, headings
from tasks.answers.reply import number_words, prepare, split_reasoning
from tasks.answers.text import (
    FINAL_RE,
    ONLY_ANSWER_WORDS,
    REASONING,
    Answer,
    final_answer_segments,
    find_answer,
    first_bare,
    first_statement,
    fold,
    is_non_answer,
    is_placeholder_echo,
    is_refusal,
    last_match,
    located,
)
from tasks.records import Parsed

T = TypeVar("T")


def distinct(candidates: Sequence[T], same: Callable[[T, T], bool] | None = None) -> list[T]:
    """``candidates`` without repeats (``same`` decides equality; default ``==``), first occurrence kept."""
    eq = same or (lambda a, b: a == b)
    out: list[T] = []
    for c in candidates:
        if not any(eq(c, o) for o in out):
            out.append(c)
    return out


def decide(raw: str, candidates: Sequence[T], *, what: str, same: Callable[[T, T], bool] | None = None,
           where: str = "answer") -> Parsed[T]:
    """One distinct candidate: answered with it; several: hedged (the candidates kept, never credited);
    none: unparsed. ``what`` names the kind of value ("option", "distance") in the reason."""
    found = distinct(candidates, same)
    if len(found) == 1:
        return Parsed.success(raw, found[0])
    if not found:
        return Parsed.failure(raw, f"no {what} in the {where}")
    shown = ", ".join(map(str, found[:6])) + (", ..." if len(found) > 6 else "")
    return Parsed.hedged(raw, f"{len(found)} different {what} values in the {where}: {shown}",
                         candidates=[_plain(c) for c in found[:20]])


def _plain(value: Any) -> Any:
    """A JSON-friendly form of a candidate (tuples become lists)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def extract(text: str, find: Callable[[str], Parsed[T]], *, prompt: str | None = None, completion: bool = False,
            locate: Callable[[str, bool], Answer | None] | None = None,
            later: Callable[[str], Parsed[T]] | None = None) -> Parsed[T]:
    """Run the extractor ``find`` on the committed answer of ``text`` (see :func:`find_answer`; ``locate``, called
    as ``locate(text, completion)``, replaces it where a family reads more than the last line of a free reply).

    A literal echo of the prompt's placeholder is unparsed; when ``find`` takes nothing and the reply declines
    ("I cannot determine ...", "Unknown"), the parse is refused. ``find`` gets the answer segment and returns a
    :class:`Parsed` whose ``raw`` is replaced by the whole reply. ``later`` reads the lines after the answer for a
    second answer where ``find`` takes any text as an answer (place names); default ``find``.
    """
    raw = text
    text = prepare(text) if isinstance(text, str) else ""
    answer = (locate or (lambda t, c: find_answer(t, completion=c)))(text, completion)
    if answer is None:
        if isinstance(raw, str) and split_reasoning(raw)[0]:
            return Parsed.failure(raw, "no answer after the reasoning (the reply ends inside its reasoning block)")
        return Parsed.failure(raw, "empty reply")
    marks = headings(raw) if isinstance(raw, str) else frozenset()
    parsed = _read(text, answer, find, prompt, later or find, marks)
    if answer.source == "commit" and parsed.status == "unparsed" and not is_refusal(text):
        answer = Answer(answer.text, "last_line", answer.end)  # a cue that commits to nothing ("so it is out")
    elif answer.source != "last_line":
        return parsed.model_copy(update={"raw": raw})
    # a free reply: no label, box or committing cue
    plain = located(text, answer) and not _remark(answer, parsed)
    unsure = (not plain or parsed.status == "unparsed" or bool(ALTERNATIVE_CUE.search(answer.text))
              or _rejecting_sentence(answer.text))
    if unsure or not _only_answer(text, answer):  # bold commits over a last line that only states
        lead = _emphasised(raw, text, find, prompt, later or find, marks)
        if lead is not None and not (plain and parsed.status == lead.status == "answered"
                                     and not agree(lead.value, parsed.value) and not _RELATIVE.search(answer.text)):
            return lead.model_copy(update={"raw": raw})  # (a last line stating another value is the later word)
    if parsed.status == "hedged" and plain:  # a whole line hedged only by comparing: its first clause commits
        got = _first(text, first_bare(text), find, prompt, later or find, marks, compares=True)
        if got is not None and got.status == "answered":
            return got.model_copy(update={"raw": raw})
    if parsed.status == "hedged" and not _remark(answer, parsed):  # a hedge stays one, wherever it stands
        return parsed.model_copy(update={"raw": raw})
    if unsure and parsed.status in ("answered", "unparsed", "hedged"):
        for first in (first_bare(text), first_statement(text)):
            got = _first(text, first, find, prompt, later or find, marks)
            if got is not None and got.status in ("answered", "hedged"):  # the answer first, the rest after
                return got.model_copy(update={"raw": raw})
        if not plain:
            return Parsed.unlocated(raw, "no answer label, box or committed sentence; the last line "
                                    f"{answer.text[:60]!r} is not a commitment")
    return parsed.model_copy(update={"raw": raw})


_RELATIVE = re.compile(
    r"\b(?:nearby|neighbou?ring|next to|adjacent|outskirts|just (?:north|south|east|west|outside)|"
    r"\d+(?:\.\d+)?\s?(?:km|mi|miles|m)\s+(?:to the\s+)?(?:north|south|east|west|[NSEW]{1,3}\b))", re.IGNORECASE)
"""Words that place something relative to the answer ("The nearby town of Angarsk lies about 40 km to the
north-west"): a remark on the answer's neighbourhood, not a statement of another answer."""
_COMPARES = re.compile(r"\b(?:versus|vs\.?|compared (?:with|to)|than|whereas|while)\b", re.IGNORECASE)


def _first(text: str, first: Answer | None, find: Callable[[str], Parsed[T]], prompt: str | None,
           later: Callable[[str], Parsed[T]], marks: frozenset[str], *, compares: bool = False) -> Parsed[T] | None:
    """A reply's first line or sentence read as its answer (:func:`first_bare`, :func:`first_statement`), or None
    when there is none or the rest reasons its way to another value (:func:`worked_to_another`). With
    ``compares``, only when the rest offers nothing once its comparing words ("versus", "than") are taken out."""
    if first is None:
        return None
    if compares:
        rest = _COMPARES.sub(" ", text[first.end:])
        if (_ALTERNATIVE.search(rest) or ALTERNATIVE_CUE.search(rest) or UNCOMMITTED.search(rest)
                or _HEDGE_PHRASE.search(rest)):
            return None
    got = _read(text, first, find, prompt, later, marks)
    if got.status == "answered" and worked_to_another(text, first.end, later, got):
        return None
    return got


_VERB = re.compile(r"\b(?:is|are|was|were|does|do|did|can|could|lies?|sits?|falls?|seems?|remains?|contains?|has|"
                   r"have|would|will)\b", re.IGNORECASE)
"""A verb: a line with one is a sentence, not a bare answer or a list of values."""


def _rejecting_sentence(line: str) -> bool:
    """Whether a short last line (read as only the answer for its length) is a sentence rejecting what it names
    ("Region 1 does not contain it.", "Minsk is far away."): an earlier committed line is read first (an answer
    with a rejection beside it, "C (not D)", has no verb; a longer line is read as a statement, which rejects
    nothing; without an earlier commitment the line is read as before: "The trajectory is not normal.")."""
    return len(line.split()) <= ONLY_ANSWER_WORDS and rejects(line) and bool(_VERB.search(line))


def _only_answer(text: str, answer: Answer) -> bool:
    """Whether a free reply's last line is only its answer: the reply is one line, or the line is at most
    :data:`ONLY_ANSWER_WORDS` words. (A last line that reads no answer or offers one, "Or possibly D.", is
    checked apart: the reply's first line or its bold answer is read first, and that line after it.)"""
    lines = [ln for ln in text.strip().split("\n") if ln.strip(" \t*_`#>-")]
    return len(lines) <= 1 or len(answer.text.split()) <= ONLY_ANSWER_WORDS


_NAMES_SEVERAL = re.compile(r"\b(?:both|each|all (?:fit|match|work|qualify)|fits?|match(?:es)?|candidates?|equally|"
                            r"same|consistent|compatible|viable|remain\w*|qualif\w*)\b", re.IGNORECASE)


def _remark(answer: Answer, parsed: Parsed) -> bool:
    """Whether a free reply's last line is a remark naming several values, not a hedge: a sentence of more than
    :data:`ONLY_ANSWER_WORDS` words that reads as several answers and rejects them (:func:`rejects`: "Mexico, Peru
    and Costa Rica are all far from it"; a list of options echoed is no sentence), with no word that offers or
    weighs an alternative ("or", "maybe", "both", "could", "consistent"), none that leaves the answer open."""
    words = answer.text
    return (answer.source == "last_line" and parsed.status == "hedged" and len(words.split()) > ONLY_ANSWER_WORDS
            and bool(_VERB.search(words)) and rejects(words)
            and not (_ALTERNATIVE.search(words) or ALTERNATIVE_CUE.search(words) or _HEDGE_PHRASE.search(words)
                     or _NAMES_SEVERAL.search(words)))


def _emphasised(raw: object, text: str, find: Callable[[str], Parsed[T]], prompt: str | None,
                later: Callable[[str], Parsed[T]], marks: frozenset[str]) -> Parsed[T] | None:
    """The reply's emphasised answer (:func:`tasks.answers.emphasis.emphasised`) read like a committed one, when
    every emphasised span that reads as an answer gives the same one; None otherwise (several emphasised values
    commit to none of them)."""
    if not isinstance(raw, str):
        return None
    spans = [(a, got) for a in emphasised(raw, prompt) if (got := find(a.text)).status == "answered"]
    if not spans or len(distinct([got.value for _, got in spans], agree)) != 1:
        return None
    if worked_to_another(text, spans[-1][0].end, later, spans[-1][1]):
        return None
    got = _read(text, spans[-1][0], find, prompt, later, marks)
    return got if got.status in ("answered", "hedged") else None


def worked_to_another(text: str, end: int, find: Callable[[str], Parsed], whole: Parsed) -> bool:
    """Whether working after an answer that ends at ``end`` reaches another value: a later line of reasoning
    (:data:`tasks.answers.text.REASONING`: a computation, "since", "my first thought") that reads as a different
    answer and does not reject it. An answer put first and then worked away from is no commitment (the working
    may end anywhere)."""
    for line in text[end: end + AFTER_CAP].split("\n")[:AFTER_LINES + 1]:
        if not REASONING.search(line) or rejects(line):
            continue
        clauses = [c for c in CLAUSE_END.split(number_words(line)) if c.strip() and not _PARAMETER.search(c)]
        got = find(", ".join(clauses)) if clauses else Parsed.failure(line, "only parameters")
        if got.status == "unparsed":  # a sentence read clause by clause ("My first thought was A, since ...")
            got = next((g for c in clauses if not _MATH.search(c)
                        if (g := _read_piece(c, find)).status == "answered"), got)
        if got.status == "answered" and not agree(got.value, whole.value, rel=1e-4):
            return True
    return False


_MATH = re.compile(r"[=≈×÷√]")
_PARAMETER = re.compile(r"\b(?:with|using|given|assum\w*|radius|taking)\b|\bR\s?=", re.IGNORECASE)
"""A clause that gives a parameter ("with R = 6371 km", "using the mean radius"): its value is no answer reached."""


def _read(text: str, answer: Answer, find: Callable[[str], Parsed[T]], prompt: str | None,
          later: Callable[[str], Parsed[T]], marks: frozenset[str] = frozenset()) -> Parsed[T]:
    """:func:`extract` on a prepared reply whose committed answer was found."""
    where = {"final": "FINAL ANSWER line", "completion": "completion", "commit": "committed answer (no FINAL ANSWER "
             "line)", "last_line": "last line (no FINAL ANSWER line)",
             "first_line": "first line, the working after it (no FINAL ANSWER line)",
             "emphasis": "answer in bold (no FINAL ANSWER line)"}[answer.source]
    if prompt is not None and is_placeholder_echo(answer.text, prompt):
        return Parsed.failure(text, f"the {where} repeats the prompt's placeholder: {answer.text[:60]!r}")
    if _HEDGE_PHRASE.search(answer.text) or (answer.end >= 0 and UNCOMMITTED.search(next_line(text, answer.end))):
        return Parsed.hedged(text, f"the {where} does not commit to one answer: {answer.text[:80]!r}")
    if answer.source == "final" and (lead := _leading_hedge(text, answer, find)):
        return Parsed.hedged(text, f"the line before the {where} leaves it open: {lead[:80]!r}")
    if is_non_answer(answer.text):
        return Parsed.refused(text, f"the reply declines to answer: {answer.text[:80]!r}")
    parsed = find(answer.text)
    if parsed.status == "unparsed" and (worded := number_words(answer.text)) != answer.text:
        parsed = find(worded)  # "option two", "forty-two kilometres"
    negated = _NEGATED.match(answer.text)
    if negated and parsed.status == "answered":  # "Not 1200 km" read as 1200 km: the extractor ignored "not"
        # (a two-way extractor that reads "not anomalous" as normal gives another value and is kept)
        plain = find(answer.text[negated.end():])
        kept_not = " not " in f" {fold(str(parsed.value))} "  # "Not Cumberland" kept as a name part
        if plain.status == "answered" and (kept_not or agree(plain.value, parsed.value)):
            return Parsed.failure(text, f"the {where} only says what the answer is not: {answer.text[:60]!r}")
    if parsed.status == "unparsed" and (is_refusal(answer.text) or (answer.source != "final" and is_refusal(text))):
        return Parsed.refused(text, f"the reply declines to answer: {answer.text[:80]!r}")
    if parsed.status != "hedged":
        other = _alternative(answer.text, later, parsed)
        if other is None and answer.source == "final" and parsed.status == "answered":
            other = _other_final(text, find, parsed)
        if other is None and parsed.status == "answered" and answer.end >= 0:
            other = later_alternative(text, answer, later, parsed, headings=marks)
        if other is not None:
            return Parsed.hedged(text, f"{other} ({where})")
    reason = f"{parsed.reason} ({where})" if parsed.reason else None
    return parsed.model_copy(update={"raw": text, "reason": reason})


def _leading_hedge(text: str, answer: Answer, find: Callable[[str], Parsed[T]]) -> str | None:
    """The line that introduces a FINAL ANSWER line, when it states that answer (or offers it beside another) and
    leaves it open (:data:`UNCOMMITTED`: "117.3° E (plus or minus half a degree)", "I'll say 4, but 5 is nearly as
    likely"); None otherwise, and for doubt about another value only ("A first pass gave 163°, give or take").
    The sentence that gives the answer carries its hedge to the answer line."""
    start = last_match(FINAL_RE, text[:answer.end]) if answer.end >= 0 else None
    if start is None:
        return None
    head = text[:start.start()].rstrip(" \t\n*_>#-")
    line = head[head.rfind("\n") + 1:] if head.strip() else ""
    if not line.strip() or not UNCOMMITTED.search(line):
        return None
    got, mine = find(line), find(answer.text)
    if got.status == "hedged" or (got.status == "answered" and mine.status == "answered"
                                  and agree(got.value, mine.value)):
        return line.strip()
    if mine.status == "answered":  # the answer offered beside another: "I'll say 4, but 5 is nearly as likely"
        values = [g.value for p in _ALTERNATIVE.split(line)[:9] if (g := _read_piece(p, find)).status == "answered"]
        if any(agree(v, mine.value) for v in values) and any(not agree(v, mine.value) for v in values):
            return line.strip()
    return None


_NEGATED = re.compile(r"\W*(?:it(?:'s| is) )?not\b\s*", re.IGNORECASE)
UNCOMMITTED = re.compile(
    r"\b(?:plus or minus|give or take|not (?:sure|certain) (?:of|about|whether|if|which)|unsure (?:of|about|whether|"
    r"if|which)|torn between|low confidence|could (?:easily|just as well|also|equally) be|somewhere between|"
    r"(?:not|\w+n't|never) (?:be )?(?:out of the question|ruled out|excluded|impossible|unlikely|implausible)|"
    r"(?:cannot|can't|can not|couldn't) (?:be )?(?:ruled out|excluded|dismissed)|"
    r"(?:hard|difficult|impossible|too early) to (?:rule out|exclude|dismiss)|"
    r"(?:nearly|almost|just|equally|about) as (?:likely|plausible|probable|possible)|a close second|"
    r"(?:I'd|I would|I) lean(?:ing)?|leaning (?:towards?|to)|"
    r"(?:not|\w+n't) (?:sure|certain)(?=\s?(?:[),.;:!?]|$))|unsure(?=\s?(?:[),.;:!?]|$)))\b"
    r"|\b\w+ or \w+\?|(?<![\d/.])[5-9][05] ?/ ?[1-5][05](?![\d/.])",
    re.IGNORECASE)
"""Words that leave the answer open ("3:42 PM, plus or minus an hour", "give or take", "N or S, I'm not sure of
the hemisphere", "low confidence, could easily be D"), a rejection negated, which keeps the alternative open
("C is not out of the question", "D can't be ruled out", "D is hard to exclude"), another candidate weighed
against it ("5 is nearly as likely", "B is a close second"), a stated confidence short of commitment ("I'd lean
anomalous", "60/40") and doubt written into the answer ("Zone 18 (north or south? not certain)"): an answer with
them is a hedge, whatever its value."""
_HEDGE_PHRASE = re.compile(
    r"\b(?:are|is) (?:both|equally|also) (?:plausible|possible|likely|correct)\b|\b(?:all|any) of (?:the above|them|these)\b|"
    + UNCOMMITTED.pattern, re.IGNORECASE)
_FOREIGN_OFFERS = r"oder|ou|mais|aber|vielleicht|peut[- ]être|quizás?|tal vez|forse|oppure|sinon|sonst"
"""Words that offer an alternative in the languages answers are read in (German, French, Spanish, Italian)."""
_ALTERNATIVE = re.compile(
    r"\b(?:or|either|maybe|perhaps|possibly|alternatively|otherwise|if not|though|although|vs\.?|versus|actually|"
    r"correction|I mean|on second thought|(?:might|could)(?: \w+)? be|unless|in which case|but|between|torn|edit|"
    + _FOREIGN_OFFERS + r")\b|/", re.IGNORECASE)


def next_line(text: str, end: int) -> str:
    """The rest of the line where an answer ends and the next non-empty line (where a hedge of it stands)."""
    rest = text[end: end + AFTER_CAP].split("\n")
    after = next((ln for ln in rest[1:AFTER_LINES] if ln.strip()), "")
    return f"{rest[0]} {after}"


def agree(a: Any, b: Any, rel: float = 0.01) -> bool:
    """Whether two extracted values are the same answer: numbers within ``rel``, sequences and mappings item by
    item (a None item matches anything), anything else by equality."""
    if a is None or b is None:
        return True
    if isinstance(a, (bool, int)) and isinstance(b, (bool, int)):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if not (math.isfinite(a) and math.isfinite(b)):
            return a == b
        return abs(a - b) <= max(1e-9, rel * max(abs(a), abs(b)))
    if isinstance(a, dict) and isinstance(b, dict):
        return all(agree(a[k], b[k], rel) for k in a.keys() & b.keys() if k not in ("snippet", "source"))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(agree(x, y, rel) for x, y in zip(a, b, strict=True))
    if hasattr(a, "model_dump") and hasattr(b, "model_dump"):
        return agree(a.model_dump(), b.model_dump(), rel)
    return bool(a == b)


def _alternative(segment: str, find: Callable[[str], Parsed], whole: Parsed) -> str | None:
    """Why ``segment`` offers a second answer next to the first, or None: pieces split at words that offer an
    alternative ("or possibly D", "C (maybe D)", "C. Actually, D.", "B/C") each read alone give different
    answers. A piece without an answer ("is also possible") counts for nothing."""
    cuts = list(_ALTERNATIVE.finditer(segment))[:8]
    if not cuts:
        return None
    bounds = [0, *(p for m in cuts for p in (m.start(), m.end())), len(segment)]
    values = [whole.value] if whole.status == "answered" else []
    for a, b in zip(bounds[::2], bounds[1::2], strict=True):
        piece = segment[a:b].strip(" ,;:.()[]-\t")
        if not piece:
            continue
        got = _read_piece(piece, find)
        if got.status == "hedged":
            return f"the answer offers alternatives: {segment[:80]!r}"
        if got.status == "answered":
            values.append(got.value)
    if any(not agree(v, values[0]) for v in values[1:]):
        return f"the answer offers alternatives: {segment[:80]!r}"
    return None


def _other_final(text: str, find: Callable[[str], Parsed], last: Parsed) -> str | None:
    """Why the reply's FINAL ANSWER lines disagree (an earlier one gives a different answer), or None."""
    for seg in final_answer_segments(text)[1:]:
        got = find(seg)
        if got.status == "answered" and not agree(got.value, last.value, rel=1e-4):
            return f"FINAL ANSWER lines with different answers: {seg[:40]!r} and {last.value!r}"
    return None


AFTER_CAP = 1_500
"""Characters after the committed answer read for a second answer (its next lines)."""
AFTER_LINES = 12
ALTERNATIVE_CUE = re.compile(
    r"\b(?:or|either|alternative(?:ly|s)?|second|backup|other(?:wise)?|if not|could|might|may|possibly|perhaps|maybe|"
    r"probably|likely|also|another|else|instead|actually|correction|rather|on second thought|though|although|however|"
    r"unless|depending|daylight|DST|summer|winter|standard time|in case|runner[- ]up|fallback|guess|that said|"
    r"having said that|ruled? out|possib\w*|plausib\w*|close second|contender|"
    r"(?:I'd|I would|I might|I could) (?:also )?(?:say|go with|pick|choose|consider)|" + _FOREIGN_OFFERS
    + r")\b|\bif\b[^,\n]{1,80},", re.IGNORECASE)
"""Words that offer or weigh a second answer on a line after the committed one, and a condition ("If the gaps hide
stops, 2 becomes the better fit"): a value given under it is another candidate."""
_ANSWER_LABEL = re.compile(
    r"^[ \t]{0,8}(?:[-*•][ \t]*)?(?P<label>[A-Za-z][A-Za-z' -]{0,40}?)[ \t]*[:=][ \t]*\S")
_LABEL_WORDS = re.compile(r"\b(?:answers?|choice|option|guess|pick|estimate|alternative|backup|second|candidate|"
                          r"result|final|conclusion)\b", re.IGNORECASE)
_EXPLAINS = re.compile(r"\b(?:is|are|was|were|not|no|because|since|than|wrong|incorrect|unlike|except|rule[sd]?|"
                       r"eliminat\w*|exclud\w*|given|from|between|of)\b", re.IGNORECASE)
_HEAD = re.compile(r"[(\[]?[\w.+-]+[)\]]?")
_NEGATION = re.compile(r"\b(?:not|no|never|except|rather than|instead of|nor|excluding|wrong|incorrect)\b",
                       re.IGNORECASE)
_TAIL = re.compile(r"[(\[]?[\w.+-]+[)\]]?\W*$")
_LOWER_LEAD = re.compile(r"^(?:[a-z']+\s+){1,6}")
DISOWNED = re.compile(
    r"\b(?:which|this|that|it|but|though|although|however)\b[^.\n]{0,40}?\b(?:wrong|incorrect|not (?:right|correct|"
    r"accurate|reliable)|mistaken|inaccurate)\b", re.IGNORECASE)
"""An answer that disowns its value: "..., which I believe is wrong", "but this is probably incorrect"."""


def _read_piece(text: str, find: Callable[[str], Parsed]) -> Parsed:
    """``find`` on a piece of an answer line cut at a word that offers an alternative; when it reads nothing, on the
    piece with its numbers in words as digits, without its leading lower-case words ("also be D, though": D),
    then on its first and last tokens ("D is also plausible", "I'd go with D")."""
    piece = text.strip(" ,;:.()[]-\t")
    got = find(piece) if piece else Parsed.failure(text, "empty piece")
    if _NEGATION.search(piece):  # "but not A": what the answer is not is no alternative
        return got
    head, tail = _HEAD.match(piece), _TAIL.search(piece)
    for retry in (number_words(piece), _LOWER_LEAD.sub("", piece), head.group(0) if head else "",
                  tail.group(0).strip(" .,;:!?") if tail else ""):
        if got.status != "unparsed":
            break
        if retry and retry != piece:
            got = find(retry)
    return got


_OFFERS = re.compile(
    r"\b(?:or|either|maybe|perhaps|possibly|could|might|may|alternative(?:ly|s)?|second|backup|fallback|runner[- ]up|"
    r"guess|probably|likely|torn|edit|actually|correction|on second thought|unless|depending|in case|if not|also|"
    r"plausib\w*|possib\w*|(?:I'd|I would|I might|I could) (?:also )?(?:say|go with|pick|choose|consider))\b",
    re.IGNORECASE)
"""Words that offer an alternative even beside a rejection ("D is far, but it could easily be D")."""


def rejects(line: str) -> bool:
    """Whether a line only rejects what it names ("Mexico, Peru and Costa Rica are all far from it", "The others
    are thousands of kilometres away", "Not D"): a rejecting word (:data:`REJECTED`), and, once the rejecting words
    are taken out, no word that offers an alternative nor one that leaves the answer open."""
    return (bool(REJECTED.search(line)) and not UNCOMMITTED.search(line)
            and not _OFFERS.search(REJECTED.sub(" ", line)))


def later_alternative(text: str, answer: Answer, find: Callable[[str], Parsed], whole: Parsed, *,
                      headings: frozenset[str] = frozenset()) -> str | None:
    """Why the lines after the committed answer offer a second answer, or None. A later line gives another
    value of the answer's kind and offers it (a word that offers or weighs an alternative: "second choice",
    "alternatively", "if DST applies", "could also be"), labels it an answer ("Alternative answer: ...", a
    second "Answer: ..."), or is only that value; numbers written in words count. The committed answer
    disowning its value ("..., which I believe is wrong") is no commitment either. A line that only rejects what
    it names (:func:`rejects`: "C is ruled out", "The others are far away") is no alternative, even under a
    heading that announces other options; a markdown heading (``headings``, folded) is never a value by itself.
    The rest of the answer's own line is read first (an answer that ends mid-line: its first sentence, its bold
    span), for an offered value only (its words continue the answer's sentence)."""
    rest = text[answer.end: answer.end + AFTER_CAP]
    line_end = rest.find("\n")
    if DISOWNED.search(answer.text + " " + (rest if line_end < 0 else rest[:line_end])):
        return f"the answer disowns its value: {answer.text[:80]!r}"
    pending = False  # a line that offers an alternative without one ("### Another possibility"): read the next
    for k, line in enumerate([ln.strip(" \t*_>-•") for ln in rest.split("\n")[:AFTER_LINES + 1]]):
        if not line or not any(ch.isalnum() for ch in line):
            continue
        worded = number_words(line)
        if rejects(worded):
            pending = False
            continue
        cue = ALTERNATIVE_CUE.search(worded)
        label = _ANSWER_LABEL.match(worded)
        labelled = label is not None and _LABEL_WORDS.search(label.group("label")) is not None
        bare = k > 0 and len(worded.split()) <= 4 and not _EXPLAINS.search(worded) and fold(line) not in headings
        offered, pending = bool(cue or labelled or pending), False
        if not (offered or bare):
            continue
        starts = [m.end() for m in ALTERNATIVE_CUE.finditer(worded)][:4] if cue and not labelled else [0]
        got = find(worded)
        for start in [*reversed(starts), 0]:  # the last cue first ("... another, I'd go with D"), the whole line last
            got = _read_piece(worded[start:], find)
            if got.status != "unparsed":
                break
        if got.status == "unparsed" and cue and not labelled:  # the value before its cue: "P.S. C might also work"
            got = _read_piece(worded[:cue.start()], find)
        if got.status == "answered" and not agree(got.value, whole.value, rel=1e-4):
            return f"a later line offers another answer: {line[:80]!r}"
        if got.status == "hedged" and offered:
            return f"a later line offers other answers: {line[:80]!r}"
        pending = offered and got.status == "unparsed"
    return None
