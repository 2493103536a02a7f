"""``--judge provider/name``: a model that locates the committed answer of replies the rules leave ``unlocated``.

Off by default. The runner calls it only for a reply whose status under the rules is ``unlocated`` (never where
the rules committed: answered, hedged, refused, truncated, blocked, unparsed). The judge is shown the question and
the reply and asked for the single answer the reply commits to, written as the question's ``FINAL ANSWER:``
line, or ``NONE`` (the reply commits to no answer) or ``HEDGE`` (it leaves two or more open). Its reply is read
by the task's own parser and scored by the task's own scorer, so a judge cannot widen what an answer is; a judge
reply the parser reads as a hedge or cannot read locates nothing, and a reply that itself holds words leaving its
answer open ("could easily be", "give or take", :data:`tasks.answers.UNCOMMITTED`) is never credited through a
judge. The sample records the judge's reading (:class:`evals.records.JudgeReading`); its status shares count the
answers the judge located as ``judged``.

The judge's agreement with the human labels is measured on the project's labelled sets by
``python -m tests.tasks.agreement --judge provider/name``, which stores the measurement keyed by the judge's
name in ``$GEOGAP_CACHE_DIR/judge_agreement.json``; a run with ``--judge`` prints that line, or says that the
judge was never measured.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agents.model_spec import create_chat_model
from agents.models import GenerationSettings
from evals.records import JudgeReading
from tasks.answers import UNCOMMITTED, split_reasoning
from tasks.base import Task
from tasks.records import Parsed, Sample

JUDGE_TOKENS = 200
JUDGE_SYSTEM = (
    "You grade replies to a question. Say which single answer the reply commits to. Do not solve the question "
    "yourself and do not correct the reply. Answer with exactly one line:\n"
    "FINAL ANSWER: <the reply's answer, in the form the question asks for>\n"
    "or NONE if the reply commits to no answer, or HEDGE if it leaves two or more answers open.")
_VERDICT = re.compile(r"^\W*(NONE|HEDGE)\W*$", re.IGNORECASE)
AGREEMENT_FILE = "judge_agreement.json"


def agreement_path() -> Path:
    return Path(os.environ.get("GEOGAP_CACHE_DIR") or Path.home() / ".cache" / "geogap") / AGREEMENT_FILE


@dataclass(frozen=True)
class Verdict:
    """What the judge said of one reply and what the task's parser reads in it (None: no answer located)."""

    reading: JudgeReading
    parsed: Parsed | None

    @property
    def note(self) -> str:
        return self.reading.note


def _question(sample: Sample) -> str:
    return "\n\n".join(str(m.content) for m in sample.messages if m.role != "assistant")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content or [])


class Judge:
    """A judge model, named ``provider/name``."""

    def __init__(self, name: str, model: BaseChatModel) -> None:
        self.name, self.model = name, model

    @staticmethod
    @cache
    def named(name: str) -> Judge:
        """The judge ``provider/name`` (built once per process; temperature 0, a short reply)."""
        return Judge(name, create_chat_model(name, settings=GenerationSettings(temperature=0.0,
                                                                               max_tokens=JUDGE_TOKENS)))

    async def locate(self, sample: Sample, task: Task, reply: str) -> Verdict:
        """The answer ``reply`` commits to, as the judge locates it and the task's parser reads it."""
        asked = [SystemMessage(JUDGE_SYSTEM),
                 HumanMessage(f"QUESTION:\n{_question(sample)}\n\nREPLY:\n{reply}\n\nWhich single answer does "
                              "the reply commit to? One line: FINAL ANSWER: ..., NONE or HEDGE.")]
        said = _text((await self.model.ainvoke(asked)).content).strip()
        shown = said[:300]
        if m := _VERDICT.match(said):
            hedge = m.group(1).upper() == "HEDGE"
            return Verdict(JudgeReading(model=self.name, verdict="hedge" if hedge else "none", said=shown,
                                        note=f"the judge found {'a hedge' if hedge else 'no answer'}"), None)
        parsed = task.parse(said, sample)
        if parsed.status != "answered":
            return Verdict(JudgeReading(model=self.name, verdict="unread", said=shown,
                                        note=f"the judge's reply reads as {parsed.status} under the rules"), None)
        visible = split_reasoning(reply)[1] or reply
        if UNCOMMITTED.search(visible):
            return Verdict(JudgeReading(model=self.name, verdict="hedge", said=shown,
                                        note="the reply leaves its answer open; a judge never credits it"), None)
        return Verdict(JudgeReading(model=self.name, verdict="answer", said=shown,
                                    note="answer located by the judge"), parsed)


def judged_parse(verdict: Verdict, rules: Parsed) -> Parsed:
    """The parse a sample keeps: the judge's located answer, else the rules' unlocated parse with the judge's note."""
    if verdict.parsed is not None:
        return verdict.parsed.model_copy(update={"raw": rules.raw, "reason": f"{verdict.note} ({verdict.reading.said[:80]!r})"})
    return rules.model_copy(update={"reason": f"{rules.reason}; {verdict.note}"})


# ----------------------------------------------------------------------------- agreement on the labelled sets


def store_agreement(name: str, summary: dict[str, Any]) -> Path:
    """Store a judge's measured agreement (from ``python -m tests.tasks.agreement --judge``) under its name."""
    path = agreement_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    stored[name] = {**summary, "measured": datetime.now(UTC).isoformat(timespec="seconds")}
    path.write_text(json.dumps(stored, indent=1, sort_keys=True), encoding="utf-8")
    return path


def agreement_line(name: str, summary: dict[str, Any] | None = None) -> str:
    """One line: the judge's agreement on the labelled unlocated replies, or that it was never measured."""
    if summary is None:
        path = agreement_path()
        stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        summary = stored.get(name)
    if summary is None:
        return (f"judge {name}: agreement not measured; measure it with python -m tests.tasks.agreement "
                f"--judge {name}")
    n = summary["n"]
    when = f", measured {summary['measured'][:10]}" if "measured" in summary else ""
    agree = f"{summary['agree'] / n:.1%}" if n else "–"
    return (f"judge {name}: agrees with the human label on {summary['agree']}/{n} ({agree}) labelled replies the "
            f"rules leave unlocated; correct credited {summary['correct_credited']}/{summary['correct']}, hedges "
            f"credited {summary['hedges_credited']}/{summary['hedges']}, wrong credited {summary['wrong_credited']}"
            f"{when}")
