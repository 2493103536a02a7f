"""The reader's agreement with the project's labelled sets, per task family, condition and model family.

Five labelled sets: the embedded models' real replies (:mod:`tests.tasks.real_replies`,
``real_replies.jsonl``), replies written by hand as model families write them in both conditions
(``styled_replies.jsonl``: GPT markdown, Claude prose with the answer first, Gemini headings, Qwen/DeepSeek
``<think>`` blocks, the tools condition's JSON echoes and tool-result restatements), the structured channel's
``final_answer`` calls (``structured_replies.jsonl``: each answer kind's schema filled as model families fill
it, several calls, no call) and the seeded written corpus (:mod:`tests.tasks.answer_corpus`, condition
``corpus``: its replies answer no run's condition) and a held-out set (``heldout_replies.jsonl``: replies in forms
the reader was not built against, labelled and committed before the reader first read them, so its first reading
estimates how the reader generalises; docs/scoring.md keeps that first figure). Every label was given by a human
grader reading the reply against its gold before the reader ran, and falls in one of four classes: *correct*
(answered, credited), *wrong* (answered, no credit), *hedge* and *no answer* (refused, cut, unparsed, unlocated,
truncated, blocked).

For each group the table gives the correct replies credited, the hedges credited, the wrong answers credited and
the replies the reader left ``unlocated``, each with its count. The targets (issue 34): correct >= 99 %, hedges and
wrong answers <= 0.5 %; the command exits 1 when the pooled figures miss them.

``--judge provider/name`` also sends every labelled reply the rules leave unlocated to the judge
(:mod:`evals.judge`) and prints how often its reading matches the human label and how often it credits a hedge or
a wrong answer; the measurement is stored for the run to print (:func:`evals.judge.store_agreement`).

    python -m tests.tasks.agreement [--sets real,styled,structured,corpus,heldout] [--judge provider/name] [--failures N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.final_answer import FINAL_ANSWER, final_answer_args
from evals.runner import ENDED
from tasks import get_task
from tasks.answer_kinds import read_structured
from tasks.records import Sample
from tests.tasks import answer_corpus, real_replies
from tests.tasks.adversarial import task_samples

HERE = Path(__file__).resolve().parent
STYLED_REPLIES = HERE / "styled_replies.jsonl"
STRUCTURED_REPLIES = HERE / "structured_replies.jsonl"
HELDOUT_REPLIES = HERE / "heldout_replies.jsonl"
SETS = ("real", "styled", "structured", "corpus", "heldout")
CREDITED_MIN = 0.99
LEAK_MAX = 0.005
CLASSES = ("correct", "wrong", "hedge", "none")


@dataclass(frozen=True)
class Labelled:
    """One labelled reply in the shape every set shares."""

    set: str
    key: str
    task: str
    condition: str  # intrinsic, tools (any tools[...] condition) or "corpus" (the written corpus: no condition)
    model_family: str
    label: str  # one of CLASSES
    text: str
    sample: Sample
    finish_reason: str | None = None
    calls: tuple[dict[str, Any], ...] | None = None
    """A structured-channel reply's ``final_answer`` arguments, in order (``text`` is its content); None: text."""

    @property
    def channel(self) -> str:
        return "text" if self.calls is None else "structured"

    @property
    def family(self) -> str:
        return self.task.split(".", 1)[0]


@dataclass(frozen=True)
class Read:
    """A labelled reply as the reader reads it (``judged``: the judge located the answer)."""

    item: Labelled
    status: str
    credited: bool
    reason: str
    judged: bool = False


def label_class(status: str, credited: bool) -> str:
    if status == "answered":
        return "correct" if credited else "wrong"
    return "hedge" if status == "hedged" else "none"


def _condition(name: str) -> str:
    return "tools" if name.startswith("tools") else name


def from_lines(set_name: str, lines: Iterable[dict[str, Any]]) -> list[Labelled]:
    """Labelled replies from JSON lines in the format of ``real_replies.jsonl``; a line with ``calls`` (and no
    ``text``) is a structured-channel reply: the arguments of its ``final_answer`` calls, in order (none: []),
    and the reply's text ``content`` (what JSON mode reads when there is no call)."""
    return [Labelled(set_name, line["key"], line["task"], _condition(line["condition"]),
                     line.get("model_family") or "unknown", label_class(line["status"], line["credited"]),
                     line["text"] if "calls" not in line else line.get("content", ""),
                     Sample.model_validate(line["sample"]), line.get("finish_reason"),
                     None if "calls" not in line else tuple(line["calls"]))
            for line in lines]


def corpus_items(every: int = 1) -> list[Labelled]:
    """The written corpus (every ``every``-th reply), each reply with its sample."""
    samples: dict[str, dict[str, Sample]] = {}
    out = []
    for r in answer_corpus.build()[::every]:
        by_id = samples.setdefault(r.task, {s.id: s for s in task_samples(r.task)})
        status, credited = r.expected
        out.append(Labelled("corpus", f"{r.task}/{r.sample_id}/{r.family}/{r.form}", r.task, "corpus", r.family,
                            label_class(status, credited), r.text, by_id[r.sample_id]))
    return out


def load_sets(names: Sequence[str] = SETS, *, corpus_every: int = 1) -> list[Labelled]:
    out: list[Labelled] = []
    if "real" in names:
        out += from_lines("real", real_replies.load())
    if "styled" in names:
        out += from_lines("styled", real_replies.load(STYLED_REPLIES))
    if "structured" in names:
        out += from_lines("structured", real_replies.load(STRUCTURED_REPLIES))
    if "corpus" in names:
        out += corpus_items(corpus_every)
    if "heldout" in names:
        out += from_lines("heldout", real_replies.load(HELDOUT_REPLIES))
    return out


def read(item: Labelled) -> Read:
    """The reply read as the runner reads it (the finish reason included; a structured reply's arguments through
    :func:`tasks.answer_kinds.read_structured`)."""
    if item.calls is not None:
        if item.finish_reason in ENDED:  # the way the call ended decides, as in the text channel
            status, why = ENDED[item.finish_reason]
            return Read(item, status, False, why)
        task = get_task(item.task)
        args, why = final_answer_args(({"name": FINAL_ANSWER, "args": a} for a in item.calls), (), item.text)
        parsed = read_structured(task, item.sample, args, why)
        score = task.score(parsed, item.sample)
        return Read(item, parsed.status, bool(score.correct), parsed.reason or "")
    got = real_replies.read({"task": item.task, "sample": item.sample.model_dump(mode="json"), "text": item.text,
                             "finish_reason": item.finish_reason})
    return Read(item, got.status, got.credited, got.reason)


@dataclass
class Figures:
    """Counts of one group: replies per label class, those credited, those left unlocated."""

    n: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    credited: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    unlocated: int = 0
    total: int = 0

    def add(self, r: Read) -> None:
        self.total += 1
        self.n[r.item.label] += 1
        self.credited[r.item.label] += r.credited
        self.unlocated += r.status == "unlocated"

    def share(self, label: str) -> float | None:
        return self.credited[label] / self.n[label] if self.n[label] else None

    @property
    def meets(self) -> bool:
        correct, hedge, wrong = self.share("correct"), self.share("hedge"), self.share("wrong")
        return ((correct is None or correct >= CREDITED_MIN) and (hedge is None or hedge <= LEAK_MAX)
                and (wrong is None or wrong <= LEAK_MAX))


def groups(reads: Sequence[Read]) -> list[tuple[str, Figures]]:
    """Figures per set, task family, condition, model family, (family, condition) and pooled."""
    keys: list[tuple[str, Callable[[Read], str]]] = [
        ("set", lambda r: r.item.set), ("channel", lambda r: r.item.channel), ("family", lambda r: r.item.family),
        ("condition", lambda r: r.item.condition), ("model family", lambda r: r.item.model_family),
        ("family × condition", lambda r: f"{r.item.family} {r.item.condition}")]
    out: list[tuple[str, Figures]] = []
    for name, key in keys:
        by: dict[str, Figures] = defaultdict(Figures)
        for r in reads:
            by[key(r)].add(r)
        out += [(f"{name} {k}", v) for k, v in sorted(by.items())]
    pooled = Figures()
    for r in reads:
        pooled.add(r)
    return [*out, ("all", pooled)]


def _cell(f: Figures, label: str) -> str:
    share = f.share(label)
    return f"{'–':>7} {0:>5}" if share is None else f"{share:7.1%} {f.n[label]:5d}"


def report(reads: Sequence[Read], *, failures: int = 0) -> str:
    """The agreement table, then up to ``failures`` replies whose credit disagrees with their label."""
    head = (f"{'group':40} {'n':>6} {'correct credited':>17} {'hedges credited':>17} {'wrong credited':>17} "
            f"{'unlocated':>15}")
    lines = [head]
    for name, f in groups(reads):
        lines.append(f"{name:40} {f.total:6d} {_cell(f, 'correct'):>17} {_cell(f, 'hedge'):>17} "
                     f"{_cell(f, 'wrong'):>17} {f.unlocated / f.total:9.1%} {f.unlocated:5d}")
    bad = [r for r in reads if r.credited != (r.item.label == "correct")]
    for r in bad[:failures]:
        lines.append(f"  [{r.item.set}] {r.item.key}: label {r.item.label}, read {r.status}"
                     f"{'/credited' if r.credited else ''} ({r.reason[:80]}) "
                     f"{(r.item.text if r.item.calls is None else json.dumps(r.item.calls))[-160:]!r}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the judge on the labelled sets


def judge_reads(reads: Sequence[Read], judge_model: str) -> list[Read]:
    """The replies the rules left unlocated, read by ``judge_model`` (:func:`evals.judge.locate`)."""
    from evals.judge import Judge  # the judge needs the evals layer; the plain agreement does not

    judge = Judge.named(judge_model)

    async def one(r: Read) -> Read:
        task = get_task(r.item.task)
        verdict = await judge.locate(r.item.sample, task, r.item.text)
        if verdict.parsed is None or verdict.parsed.status != "answered":
            return Read(r.item, "unlocated", False, verdict.note, judged=False)
        score = task.score(verdict.parsed, r.item.sample)
        return Read(r.item, "answered", bool(score.correct), verdict.note, judged=True)

    async def every() -> list[Read]:
        return [await one(r) for r in reads if r.status == "unlocated"]

    return asyncio.run(every())


def judge_summary(judged: Sequence[Read]) -> dict[str, Any]:
    """How the judge's readings of the unlocated replies compare with the human labels."""
    def agrees(r: Read) -> bool:
        if r.item.label in ("correct", "wrong"):
            return r.judged and r.credited == (r.item.label == "correct")
        return not r.judged  # a hedge or a non-answer: the judge must not locate an answer
    n = len(judged)
    return {"n": n, "agree": sum(agrees(r) for r in judged),
            "hedges": sum(r.item.label == "hedge" for r in judged),
            "hedges_credited": sum(r.item.label == "hedge" and r.credited for r in judged),
            "wrong_credited": sum(r.item.label == "wrong" and r.credited for r in judged),
            "none_located": sum(r.item.label == "none" and r.judged for r in judged),
            "correct": sum(r.item.label == "correct" for r in judged),
            "correct_credited": sum(r.item.label == "correct" and r.credited for r in judged)}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.tasks.agreement", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated labelled sets ({', '.join(SETS)})")
    ap.add_argument("--corpus-every", type=int, default=1, help="read every N-th reply of the written corpus")
    ap.add_argument("--judge", metavar="provider/name", help="also measure this judge on the unlocated replies")
    ap.add_argument("--failures", type=int, default=20, help="list this many replies whose credit disagrees")
    args = ap.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    if unknown := sorted(set(names) - set(SETS)):
        print(f"error: unknown labelled set(s) {', '.join(unknown)} (choose from {', '.join(SETS)})", file=sys.stderr)
        return 2
    reads = [read(item) for item in load_sets(names, corpus_every=args.corpus_every)]
    print(report(reads, failures=args.failures))
    pooled = groups(reads)[-1][1]
    if args.judge:
        from evals.judge import agreement_line, store_agreement

        summary = judge_summary(judge_reads(reads, args.judge))
        path = store_agreement(args.judge, summary)
        print(agreement_line(args.judge, summary))
        print(f"(stored in {path}; runs with --judge {args.judge} print it)")
        print(json.dumps(summary))
    return 0 if pooled.meets else 1


if __name__ == "__main__":
    raise SystemExit(main())
