"""The one decision every extractor ends in: the candidates found in the answer segment make one answer, a
hedge, or nothing; and the wrapper that finds the segment, rejects echoes and recognises refusals."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tasks.answers.reply import number_words, prepare, split_reasoning
from tasks.answers.text import (
    Answer,
    final_answer_segments,
    find_answer,
    first_statement,
    fold,
    is_non_answer,
    is_placeholder_echo,
    is_refusal,
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
    parsed = _read(text, answer, find, prompt, later or find)
    if parsed.status in ("answered", "unparsed") and not located(text, answer):
        first = first_statement(text) if answer.source == "last_line" else None
        lead = _read(text, first, find, prompt, later or find) if first is not None else None
        if lead is not None and lead.status == "answered":  # the answer first, the working after
            return lead.model_copy(update={"raw": raw})
        return Parsed.unlocated(raw, "no answer label, box or committed sentence; the last line "
                                f"{answer.text[:60]!r} is not a commitment")
    return parsed.model_copy(update={"raw": raw})


def _read(text: str, answer: Answer, find: Callable[[str], Parsed[T]], prompt: str | None,
          later: Callable[[str], Parsed[T]]) -> Parsed[T]:
    """:func:`extract` on a prepared reply whose committed answer was found."""
    where = {"final": "FINAL ANSWER line", "completion": "completion", "commit": "committed answer (no FINAL ANSWER "
             "line)", "last_line": "last line (no FINAL ANSWER line)",
             "first_line": "first line, the working after it (no FINAL ANSWER line)"}[answer.source]
    if prompt is not None and is_placeholder_echo(answer.text, prompt):
        return Parsed.failure(text, f"the {where} repeats the prompt's placeholder: {answer.text[:60]!r}")
    if _HEDGE_PHRASE.search(answer.text) or (answer.end >= 0 and UNCOMMITTED.search(next_line(text, answer.end))):
        return Parsed.hedged(text, f"the {where} does not commit to one answer: {answer.text[:80]!r}")
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
            other = later_alternative(text, answer, later, parsed)
        if other is not None:
            return Parsed.hedged(text, f"{other} ({where})")
    reason = f"{parsed.reason} ({where})" if parsed.reason else None
    return parsed.model_copy(update={"raw": text, "reason": reason})


_NEGATED = re.compile(r"\W*(?:it(?:'s| is) )?not\b\s*", re.IGNORECASE)
UNCOMMITTED = re.compile(
    r"\b(?:plus or minus|give or take|not (?:sure|certain) (?:of|about|whether|if|which)|unsure (?:of|about|whether|"
    r"if|which)|torn between|low confidence|could (?:easily|just as well|also|equally) be|somewhere between|"
    r"(?:not|\w+n't|never) (?:be )?(?:out of the question|ruled out|excluded|impossible|unlikely|implausible)|"
    r"(?:cannot|can't|can not|couldn't) (?:be )?(?:ruled out|excluded|dismissed))\b",
    re.IGNORECASE)
"""Words that leave the answer open ("3:42 PM, plus or minus an hour", "give or take", "N or S, I'm not sure of
the hemisphere", "low confidence, could easily be D") and a rejection negated, which keeps the alternative open
("C is not out of the question", "D can't be ruled out"): an answer with them is a hedge, whatever its value."""
_HEDGE_PHRASE = re.compile(
    r"\b(?:are|is) (?:both|equally|also) (?:plausible|possible|likely|correct)\b|\b(?:all|any) of (?:the above|them|these)\b|"
    + UNCOMMITTED.pattern, re.IGNORECASE)
_ALTERNATIVE = re.compile(
    r"\b(?:or|either|maybe|perhaps|possibly|alternatively|otherwise|if not|though|although|vs\.?|versus|actually|"
    r"correction|I mean|on second thought|(?:might|could)(?: \w+)? be|unless|in which case|but|between|torn|edit)\b|/",
    re.IGNORECASE)


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
    r"(?:I'd|I would|I might|I could) (?:also )?(?:say|go with|pick|choose|consider))\b", re.IGNORECASE)
"""Words that offer or weigh a second answer on a line after the committed one."""
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


def later_alternative(text: str, answer: Answer, find: Callable[[str], Parsed], whole: Parsed) -> str | None:
    """Why the lines after the committed answer offer a second answer, or None. A later line gives another
    value of the answer's kind and offers it (a word that offers or weighs an alternative: "second choice",
    "alternatively", "if DST applies", "could also be"), labels it an answer ("Alternative answer: ...", a
    second "Answer: ..."), or is only that value; numbers written in words count. The committed answer
    disowning its value ("..., which I believe is wrong") is no commitment either. A line that explains why
    another option is wrong is no alternative."""
    rest = text[answer.end: answer.end + AFTER_CAP]
    line_end = rest.find("\n")
    if DISOWNED.search(answer.text + " " + (rest if line_end < 0 else rest[:line_end])):
        return f"the answer disowns its value: {answer.text[:80]!r}"
    pending = False  # a line that offers an alternative without one ("### Another possibility"): read the next
    for line in [ln.strip(" \t*_>-•") for ln in rest.split("\n")[1:AFTER_LINES + 1]]:
        if not line or not any(ch.isalnum() for ch in line):
            continue
        worded = number_words(line)
        cue = ALTERNATIVE_CUE.search(worded)
        label = _ANSWER_LABEL.match(worded)
        labelled = label is not None and _LABEL_WORDS.search(label.group("label")) is not None
        bare = len(worded.split()) <= 4 and not _EXPLAINS.search(worded)
        offered, pending = bool(cue or labelled or pending), False
        if not (offered or bare):
            continue
        starts = [m.end() for m in ALTERNATIVE_CUE.finditer(worded)][:4] if cue and not labelled else [0]
        got = find(worded)
        for start in [*reversed(starts), 0]:  # the last cue first ("... another, I'd go with D"), the whole line last
            got = _read_piece(worded[start:], find)
            if got.status != "unparsed":
                break
        if got.status == "answered" and not agree(got.value, whole.value, rel=1e-4):
            return f"a later line offers another answer: {line[:80]!r}"
        if got.status == "hedged" and offered:
            return f"a later line offers other answers: {line[:80]!r}"
        pending = offered and got.status == "unparsed"
    return None
