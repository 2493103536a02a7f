"""The one decision every extractor ends in: the candidates found in the answer segment make one answer, a
hedge, or nothing; and the wrapper that finds the segment, rejects echoes and recognises refusals."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tasks.answers.text import Answer, find_answer, is_placeholder_echo, is_refusal
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
           where: str = "answer") -> Parsed:
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


def extract(text: str, find: Callable[[str], Parsed], *, prompt: str | None = None, completion: bool = False,
            locate: Callable[[str, bool], Answer | None] | None = None) -> Parsed:
    """Run the extractor ``find`` on the committed answer of ``text`` (see :func:`find_answer`; ``locate``, called
    as ``locate(text, completion)``, replaces it where a family reads more than the last line of a free reply).

    A literal echo of the prompt's placeholder is unparsed; when ``find`` takes nothing and the reply declines
    ("I cannot determine ...", "Unknown"), the parse is refused. ``find`` gets the answer segment and returns a
    :class:`Parsed` whose ``raw`` is replaced by the whole reply.
    """
    answer = (locate or (lambda t, c: find_answer(t, completion=c)))(text, completion)
    if answer is None:
        return Parsed.failure(text, "empty reply")
    where = {"final": "FINAL ANSWER line", "completion": "completion", "commit": "committed answer (no FINAL ANSWER "
             "line)", "last_line": "last line (no FINAL ANSWER line)"}[answer.source]
    if prompt is not None and is_placeholder_echo(answer.text, prompt):
        return Parsed.failure(text, f"the {where} repeats the prompt's placeholder: {answer.text[:60]!r}")
    parsed = find(answer.text)
    if parsed.status == "unparsed" and (is_refusal(answer.text) or (answer.source != "final" and is_refusal(text))):
        return Parsed.refused(text, f"the reply declines to answer: {answer.text[:80]!r}")
    reason = f"{parsed.reason} ({where})" if parsed.reason else None
    return parsed.model_copy(update={"raw": text, "reason": reason})
