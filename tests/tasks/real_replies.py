"""Replies the embedded models gave in real runs, labelled by hand, and the parsers' agreement with the labels.

``tests/tasks/real_replies.jsonl`` holds one reply a line: where it came from (model, task, condition, the run),
the sample it answered (its full record, so the set does not depend on today's generators), the final text, the
finish reason of its last model call, and the hand label: the answer status a human grader gives it and whether
the grader credits it, with a one-line reason where it is not obvious. The labels were written by reading each
reply against its question and gold, never from the parser's output.

``python -m tests.tasks.answer_corpus`` prints the agreement on this set after the written corpus;
``python -m tests.tasks.real_replies --collect RUN_DIR... --out FILE`` writes the unlabelled lines of runs (the
grader then adds ``status``, ``credited`` and ``why``), and ``--show FILE`` prints them for reading.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.runner import ENDED
from tasks import get_task
from tasks.records import Sample
from tests.tasks.adversarial import runner_score

HERE = Path(__file__).resolve().parent
REAL_REPLIES = HERE / "real_replies.jsonl"
STATUSES = ("answered", "unlocated", "unparsed", "hedged", "refused", "truncated", "blocked")


@dataclass(frozen=True)
class RealOutcome:
    """One labelled real reply against the runner's reading of it."""

    line: dict[str, Any]
    status: str
    credited: bool
    reason: str

    @property
    def agrees(self) -> bool:
        return self.status == self.line["status"] and self.credited == self.line["credited"]


def load(path: Path = REAL_REPLIES) -> list[dict[str, Any]]:
    """The labelled lines of ``path``; raises ValueError on a line without a valid label."""
    lines = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]
    for i, line in enumerate(lines, 1):
        if line.get("status") not in STATUSES or not isinstance(line.get("credited"), bool):
            raise ValueError(f"{path.name}:{i}: no hand label (status one of {', '.join(STATUSES)}, credited)")
        if line["credited"] and line["status"] != "answered":
            raise ValueError(f"{path.name}:{i}: only an answered reply can be credited")
    return lines


def read(line: dict[str, Any]) -> RealOutcome:
    """Parse and score one reply as ``evals.runner.answer_sample`` does, the finish reason included."""
    if line.get("finish_reason") in ENDED:  # the way the call ended decides, whatever the text parses to
        status, why = ENDED[line["finish_reason"]]
        return RealOutcome(line, status, False, why)
    parsed, score = runner_score(get_task(line["task"]), Sample.model_validate(line["sample"]), line["text"])
    return RealOutcome(line, parsed.status, bool(score.correct), parsed.reason or "")


def judge(lines: Iterable[dict[str, Any]]) -> list[RealOutcome]:
    return [read(line) for line in lines]


def family(task: str) -> str:
    return task.split(".", 1)[0]


def report(outcomes: Sequence[RealOutcome], *, failures: int = 0) -> str:
    """Agreement per model, family, condition and hand label, overall, then the disagreements."""
    rows: list[tuple[str, list[RealOutcome]]] = []
    for key, name in ((lambda o: o.line["model"], "model"), (lambda o: family(o.line["task"]), "family"),
                      (lambda o: o.line["condition"], "condition"),
                      (lambda o: o.line["status"] + ("/credited" if o.line["credited"] else ""), "label")):
        groups: dict[str, list[RealOutcome]] = {}
        for o in outcomes:
            groups.setdefault(key(o), []).append(o)
        rows += [(f"{name} {k}", v) for k, v in sorted(groups.items())]
    rows.append(("overall", list(outcomes)))
    lines = [f"{'real embedded-model replies, hand-labelled':58} {'n':>5} {'agree':>7}"]
    for label, group in rows:
        agree = sum(o.agrees for o in group)
        lines.append(f"{label:58} {len(group):5d} {agree / len(group):7.1%}")
    for o in [o for o in outcomes if not o.agrees][:failures]:
        lab = o.line["status"] + ("/credited" if o.line["credited"] else "")
        got = o.status + ("/credited" if o.credited else "")
        lines.append(f"  {o.line['key']}: label {lab}, read {got} ({o.reason[:80]}) {o.line['text'][-160:]!r}")
    return "\n".join(lines)


def agreement(outcomes: Sequence[RealOutcome]) -> float:
    return sum(o.agrees for o in outcomes) / len(outcomes) if outcomes else 0.0


# ----------------------------------------------------------------------------- collecting and showing


def collect(run_dir: Path) -> list[dict[str, Any]]:
    """The replies of one run directory that have a final text (errors and timeouts have none), unlabelled."""
    out = []
    with sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True) as con:
        samples = {sid: json.loads(rec) for sid, rec in con.execute("SELECT sample_id, record FROM samples")}
        finish: dict[tuple[str, str, int], str | None] = {}
        for sid, cond, epoch, rec in con.execute(
                "SELECT sample_id, condition, epoch, record FROM events WHERE kind = 'model_call' ORDER BY seq"):
            finish[(sid, cond, epoch)] = json.loads(rec).get("finish_reason")  # the last call's, by seq order
        for sid, cond, epoch, rec in con.execute(
                "SELECT sample_id, condition, epoch, record FROM results ORDER BY task, sample_id, condition"):
            r = json.loads(rec)
            if r["status"] != "ok" or r.get("final_text") is None:
                continue
            out.append({"key": f"{run_dir.name}/{sid}/{cond}/{epoch}", "model": r["model"], "task": r["task"],
                        "condition": cond, "finish_reason": finish.get((sid, cond, epoch)),
                        "text": r["final_text"], "sample": samples[sid]})
    return out


def show(lines: Iterable[dict[str, Any]]) -> str:
    """Each reply with its question's end, gold and choices, for a grader to read."""
    parts = []
    for i, line in enumerate(lines):
        s = line["sample"]
        prompt = next(m["content"] for m in reversed(s["messages"]) if m["role"] == "user")
        parts.append(f"### {i} {line['key']} [{line['condition']}, finish {line.get('finish_reason')}]\n"
                     f"Q: …{prompt[-400:]}\nGOLD: {json.dumps(s['target'])[:300]}"
                     + (f"\nCHOICES: {s['choices']}" if s.get("choices") else "")
                     + f"\nREPLY:\n{line['text'][-1500:]}\n")
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.tasks.real_replies", description=__doc__.split("\n\n")[0])
    ap.add_argument("--collect", nargs="*", type=Path, help="run directories to take replies from")
    ap.add_argument("--out", type=Path, help="with --collect: the JSON-lines file to write")
    ap.add_argument("--show", type=Path, help="print a JSON-lines file's replies for reading")
    ap.add_argument("--failures", type=int, default=20, help="list this many disagreements")
    args = ap.parse_args(argv)
    if args.collect:
        lines = [line for d in args.collect for line in collect(d)]
        text = "".join(json.dumps(line) + "\n" for line in lines)
        if args.out:
            args.out.write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    if args.show:
        print(show(json.loads(t) for t in args.show.read_text(encoding="utf-8").splitlines() if t.strip()))
        return 0
    outcomes = judge(load())
    print(report(outcomes, failures=args.failures))
    return 0 if agreement(outcomes) >= 0.99 else 1


if __name__ == "__main__":
    raise SystemExit(main())
