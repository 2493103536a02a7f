"""Agreement of the GeoTemp answer extractor + judge with human labels.

``python -m tasks.geotemp.agreement`` scores every answer of ``data/labelled_answers.jsonl`` with
:func:`tasks.geotemp.extract.extract_time_answer` and :func:`tasks.geotemp.judge.judge_time`, and prints the
agreement with the labels (overall, per split, per source and per task), plus precision and recall of
"correct". ``--show dev`` lists the disagreements of the dev split (``all`` for every split).
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from tasks.geotemp.extract import extract_time_answer
from tasks.geotemp.judge import judge_time


@dataclass(frozen=True)
class Verdict:
    row: dict[str, Any]
    predicted: bool
    explanation: str

    @property
    def agrees(self) -> bool:
        return self.predicted == bool(self.row["label"])


def load_labelled() -> list[dict[str, Any]]:
    """The labelled answers shipped with the package."""
    text = (importlib.resources.files("tasks.geotemp") / "data" / "labelled_answers.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def judge_row(row: dict[str, Any]) -> Verdict:
    """Extract and judge one labelled answer as the tasks do."""
    gold = row["gold"]
    found = extract_time_answer(row["response"], utc_target=gold["utc_offset"] == "UTC+0", place=row.get("place"))
    parsed = found.parsed(row["response"])
    score = judge_time(parsed, {"datetime": gold["datetime"]}, gold["start"])
    return Verdict(row, score.correct, score.explanation)


def _rate(verdicts: list[Verdict]) -> str:
    agree = sum(v.agrees for v in verdicts)
    return f"{agree}/{len(verdicts)} = {100.0 * agree / max(1, len(verdicts)):.1f} %"


def report(verdicts: list[Verdict]) -> str:
    lines = [f"agreement with labels: {_rate(verdicts)}"]
    for key in ("split", "source", "task"):
        groups: dict[str, list[Verdict]] = defaultdict(list)
        for v in verdicts:
            groups[str(v.row.get(key))].append(v)
        lines.append(f"by {key}: " + "; ".join(f"{k} {_rate(vs)}" for k, vs in sorted(groups.items())))
    tp = sum(v.predicted and v.row["label"] for v in verdicts)
    fp = sum(v.predicted and not v.row["label"] for v in verdicts)
    fn = sum(not v.predicted and v.row["label"] for v in verdicts)
    lines.append(f"precision {100.0 * tp / max(1, tp + fp):.1f} %, recall {100.0 * tp / max(1, tp + fn):.1f} % "
                 f"(labels: {sum(bool(v.row['label']) for v in verdicts)} correct of {len(verdicts)})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tasks.geotemp.agreement", description=__doc__.split("\n\n")[0])
    p.add_argument("--show", choices=["none", "dev", "test", "all"], default="none",
                   help="list disagreements of this split")
    args = p.parse_args(argv)
    verdicts = [judge_row(r) for r in load_labelled()]
    print(report(verdicts))
    for v in verdicts:
        if not v.agrees and args.show in ("all", v.row.get("split")):
            print("-" * 100)
            print(f"{v.row['id']} [{v.row['split']}, {v.row['source']}] label={v.row['label']} predicted={v.predicted}")
            print(f"gold {v.row['gold']}  |  {v.explanation}")
            print(v.row["response"][-600:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
