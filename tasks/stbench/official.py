"""Loader for the official STBench JSONL files (``{"Question": ..., "Answer": ...}`` per line), all 13 tasks.

Registered as ``stbench.official``. Where the data is comes from the constructor (``path=``) or the
environment, because the compare CLI instantiates tasks without arguments:

- ``GEOGAP_STBENCH_PATH``: one ``.jsonl`` file, or a directory (searched recursively; a ``basic/``
  sub-directory, as in the released ``datasets/``, is used alone so the ICL/CoT/SFT copies are not mixed in);
- ``GEOGAP_STBENCH_KIND``: optional comma-separated task kinds to keep (names as in the released code, e.g.
  ``direction_determination,point_region``); the ``tools`` condition offers the union of their tool sets;
- ``GEOGAP_STBENCH_STYLE``: ``completion`` (default: the question as released, with the paper's instruction to
  continue the text) or ``chat`` (guidance stub removed, a ``FINAL ANSWER:`` line asked for).

A file's kind comes from its name (``point_region_3regions.jsonl`` → point_region) or, failing that, from the
question text. Options are read from the question ("(1) North, (2) ...", "(0): Eaton, TN (1): ...",
"Region 1: [...]"); golds from the answer in any released shape ("1", 2, "4): [3, 5]", "(3) pedestrian.",
"Yes", "anomalous", [108.92024, 34.25927]). All samples are in the ``test`` split, interleaved across files
so ``--limit`` samples every file. Unreadable lines are skipped and counted in ``skipped``.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tasks.records import Message, Parsed, Sample, Score, Split
from tasks.registry import register_task
from tasks.stbench.common import AnswerKind, parse_answer, score_answer
from tasks.stbench.parsing import parse_anomaly, parse_option, parse_point, parse_yes_no
from tasks.stbench.prompts import CHAT_SYSTEM, COMPLETION_SYSTEM, OPTION_INSTRUCTION, Style

ENV_PATH, ENV_KIND, ENV_STYLE = "GEOGAP_STBENCH_PATH", "GEOGAP_STBENCH_KIND", "GEOGAP_STBENCH_STYLE"


@dataclass(frozen=True)
class Kind:
    answer: AnswerKind
    toolsets: tuple[str, ...]


KINDS: dict[str, Kind] = {
    "poi_category_recognition": Kind("option", ()),
    "poi_identification": Kind("yesno", ("geodesy",)),
    "urban_region_function_recognition": Kind("option", ("geometry",)),
    "administrative_region_determination": Kind("option", ("gazetteer",)),
    "point_trajectory": Kind("option", ("trajectory",)),
    "point_region": Kind("option", ("geometry",)),
    "trajectory_region": Kind("option", ("geometry",)),
    "trajectory_identification": Kind("yesno", ("trajectory",)),
    "trajectory_trajectory": Kind("option", ("trajectory",)),
    "direction_determination": Kind("option", ("geodesy",)),
    "trajectory_anomaly_detection": Kind("anomaly", ("trajectory",)),
    "trajectory_classification": Kind("option", ("trajectory",)),
    "trajectory_prediction": Kind("point", ("trajectory",)),
}

_TEXT_HINTS: tuple[tuple[str, str], ...] = (
    (r"predict the longitude and latitude", "trajectory_prediction"),
    (r"\banomalous\b.*\bnormal\b|\bdetour\b", "trajectory_anomaly_detection"),
    (r"same trajectory", "trajectory_identification"),
    (r"two trajectories", "trajectory_trajectory"),
    (r"azimuth|direction|\(\)\s+(?:of|from)\s+A", "direction_determination"),
    (r"passes through.*\bPoint\b", "point_trajectory"),
    (r"Region\s*\d+\s*:.*trajector", "trajectory_region"),
    (r"Region\s*\d+\s*:", "point_region"),
    (r"\bcar\b.*\bbike\b.*\bpedestrian\b", "trajectory_classification"),
    (r"POI\s*1|same place|same POI", "poi_identification"),
    (r"\"region\".*\"pois\"", "urban_region_function_recognition"),
    (r"comment1", "poi_category_recognition"),
    (r"\"options\"", "administrative_region_determination"),
)
_MARK = re.compile(r"(?:(?<=^)|(?<=[\s\"'{,;:]))\((\d+)\)\s*:?\s*")
_END = re.compile(r";|\"|}|\n|\.(?:\s|$)|\s+(?:Please|Answer|Note|Give|Choose|Which)\b")
_NUM = r"[-+−]?\d+(?:\.\d+)?"
_TRIPLE = re.compile(rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*\)")


def kind_of_file(path: Path) -> str | None:
    """The task kind named by a released file name (longest matching prefix), or None."""
    stem = path.stem.lower()
    matches = [k for k in KINDS if stem == k or stem.startswith(k + "_")]
    return max(matches, key=len) if matches else None


def kind_of_question(question: str) -> str | None:
    """A best guess of the task kind from the question text."""
    for pattern, kind in _TEXT_HINTS:
        if re.search(pattern, question, re.IGNORECASE | re.DOTALL):
            return kind
    return None


def extract_options(question: str, kind: str | None = None) -> list[tuple[int, str]]:
    """Numbered options of a released question, in order; [] when it has none.

    Finds "(n)" markers (with or without a colon), keeps the longest run numbered consecutively from 0 or 1,
    and cuts the last label at the end of its clause. Point-region questions list "Region n: [...]" instead.
    """
    if kind == "point_region":
        nums = sorted({int(n) for n in re.findall(r"Region\s*(\d+)\s*:", question)})
        return [(n, f"Region {n}") for n in nums]
    text = question
    m = re.search(r"\"options\"\s*:\s*\"", text)
    if m:
        end = text.find('"', m.end())
        text = text[m.end():end if end > 0 else len(text)]
    marks = list(_MARK.finditer(text))
    best: list[re.Match[str]] = []
    for i, mk in enumerate(marks):
        if int(mk.group(1)) not in (0, 1):
            continue
        run, want = [mk], int(mk.group(1)) + 1
        for later in marks[i + 1:]:
            if int(later.group(1)) == want:
                run.append(later)
                want += 1
        if len(run) > len(best):
            best = run
    out = []
    for k, mk in enumerate(best):
        label = text[mk.end():best[k + 1].start() if k + 1 < len(best) else len(text)]
        if k + 1 == len(best):
            cut = _END.search(label)
            label = label[:cut.start()] if cut else label
        out.append((int(mk.group(1)), label.strip().rstrip(",;").strip()))
    return out


def history_of(question: str) -> list[list[float]]:
    """(lat, lon, t) of every "(lon, lat, t)" triple in a released question."""
    out = []
    for lon, lat, t in _TRIPLE.findall(question):
        lo, la = float(lon.replace("−", "-")), float(lat.replace("−", "-"))
        if -90 <= la <= 90 and -180 <= lo <= 180:
            out.append([la, lo, float(t)])
    return out


def gold_of(kind: str, answer: Any, options: list[tuple[int, str]], history: list[list[float]]) -> dict[str, Any]:
    """The typed gold of a released answer; ValueError when it cannot be read."""
    spec = KINDS[kind]
    text = answer if isinstance(answer, str) else json.dumps(answer)
    if spec.answer == "option":
        if isinstance(answer, int) and not isinstance(answer, bool):
            n = answer
        else:
            m = re.match(r"\s*\(?\s*(\d+)(?!\.\d)", text)
            parsed = parse_option(text, options) if not m else None
            if not m and not (parsed and parsed.ok):
                raise ValueError(f"option answer {answer!r} names no option")
            n = int(m.group(1)) if m else int(parsed.value)  # type: ignore[union-attr]
        labels = dict(options)
        if options and n not in labels:
            raise ValueError(f"answer option {n} is not among the question's options {sorted(labels)}")
        return {"option": n, "label": labels.get(n)}
    if spec.answer in ("yesno", "anomaly"):
        parsed = parse_yes_no(text) if spec.answer == "yesno" else parse_anomaly(text)
        if not parsed.ok:
            raise ValueError(f"unreadable {spec.answer} answer {answer!r}")
        return {"answer": parsed.value}
    if isinstance(answer, (list, tuple)) and len(answer) == 2:
        lon, lat = float(answer[0]), float(answer[1])
        return {"lat": lat, "lon": lon}
    ref = (history[-1][0], history[-1][1]) if history else None
    parsed = parse_point(text, order="lonlat", reference=ref, prefer="first")
    if not parsed.ok:
        raise ValueError(f"unreadable coordinate answer {answer!r}")
    return dict(parsed.value)


_INSTRUCTIONS: dict[AnswerKind, str] = {
    "option": OPTION_INSTRUCTION,
    "yesno": "End your reply with the line FINAL ANSWER: Yes or FINAL ANSWER: No.",
    "anomaly": "End your reply with the line FINAL ANSWER: normal or FINAL ANSWER: anomalous.",
    "point": "End your reply with the line FINAL ANSWER: [longitude, latitude].",
}


def chat_prompt(question: str, kind: str) -> str:
    """The released question without its guidance stub (from the last "Answer:") plus a FINAL ANSWER request."""
    idx = question.rfind("Answer:")
    body = question[:idx].rstrip() if idx > 0 else question.rstrip()
    body = re.sub(r"^Question:\s*", "", body)
    extra = " (the region number)" if kind == "point_region" else ""
    return f"{body}\n{_INSTRUCTIONS[KINDS[kind].answer]}{extra}"


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ValueError(f"STBench path {str(path)!r} is neither a .jsonl file nor a directory")
    root = path / "basic" if (path / "basic").is_dir() else path
    return sorted(root.rglob("*.jsonl"))


@register_task("stbench.official")
class OfficialTask:
    """The released STBench questions, in the paper's completion style or in chat style."""

    name = "stbench.official"
    family = "stbench"

    def __init__(self, path: str | os.PathLike[str] | None = None, kind: str | list[str] | None = None,
                 style: Style | None = None, size: int | None = None) -> None:
        raw = path if path is not None else os.environ.get(ENV_PATH)
        self.path = Path(raw).expanduser() if raw else None
        kinds = kind if kind is not None else os.environ.get(ENV_KIND)
        if isinstance(kinds, str):
            kinds = [k.strip() for k in kinds.split(",") if k.strip()]
        unknown = [k for k in kinds or [] if k not in KINDS]
        if unknown:
            raise ValueError(f"unknown STBench kind(s) {unknown}; valid: {', '.join(KINDS)}")
        self.kinds: list[str] | None = list(kinds) if kinds else None
        chosen = style or os.environ.get(ENV_STYLE) or "completion"
        if chosen not in ("completion", "chat"):
            raise ValueError(f"style must be 'completion' or 'chat', got {chosen!r}")
        self.style: Style = chosen  # type: ignore[assignment]
        self.size = size
        self.skipped: list[str] = []
        self._loaded: list[Sample] | None = None

    @property
    def toolsets(self) -> tuple[str, ...]:
        """The union of the tool sets of the kinds selected (all kinds when no filter is set)."""
        kinds = self.kinds or list(KINDS)
        return tuple(dict.fromkeys(t for k in kinds for t in KINDS[k].toolsets))

    def load(self) -> list[Sample]:
        """All samples of the configured path (cached), interleaved across files."""
        if self._loaded is not None:
            return self._loaded
        if self.path is None:
            warnings.warn(f"stbench.official has no data: set {ENV_PATH} to an STBench .jsonl file or dataset "
                          "directory (or pass path=)", stacklevel=2)
            self._loaded = []
            return self._loaded
        per_file: list[list[Sample]] = []
        for file in _files(self.path):
            kind = kind_of_file(file)
            if kind is None and self.path.is_dir():
                continue
            rows = self._read(file, kind)
            if rows:
                per_file.append(rows)
        out: list[Sample] = []
        for i in range(max((len(r) for r in per_file), default=0)):
            out += [rows[i] for rows in per_file if i < len(rows)]
        if self.skipped:
            warnings.warn(f"stbench.official skipped {len(self.skipped)} unreadable lines, e.g. {self.skipped[0]}",
                          stacklevel=2)
        self._loaded = out[: self.size] if self.size else out
        return self._loaded

    def _read(self, file: Path, file_kind: str | None) -> list[Sample]:
        out = []
        with file.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    sample = self._sample(file, lineno, json.loads(line), file_kind)
                except (ValueError, KeyError, TypeError) as exc:
                    self.skipped.append(f"{file.name}:{lineno}: {exc}")
                    continue
                if sample is not None:
                    out.append(sample)
        return out

    def _sample(self, file: Path, lineno: int, row: dict[str, Any], file_kind: str | None) -> Sample | None:
        question = row["Question"]
        if not isinstance(question, str):
            raise ValueError("Question is not a string")
        kind = file_kind or kind_of_question(question)
        if kind is None:
            raise ValueError("cannot tell the task kind from the file name or the question")
        if self.kinds and kind not in self.kinds:
            return None
        spec = KINDS[kind]
        options = extract_options(question, kind) if spec.answer == "option" else []
        if spec.answer == "option" and not options:
            raise ValueError("no options found in the question")
        history = history_of(question) if spec.answer == "point" else []
        target = gold_of(kind, row["Answer"], options, history)
        chat = self.style == "chat"
        payload: dict[str, Any] = {"question": question, "answer": row["Answer"], "file": file.name,
                                   "kind": kind, "answer_order": "lonlat"}
        if options:
            payload["options"] = [[n, label] for n, label in options]
        if history:
            payload["history"] = history
        return Sample(
            id=f"{self.name}/{file.stem}/{lineno:05d}",
            task=self.name,
            split="test",
            messages=(Message(role="system", content=CHAT_SYSTEM if chat else COMPLETION_SYSTEM),
                      Message(role="user", content=chat_prompt(question, kind) if chat else question)),
            target=target,
            choices=tuple(label for _, label in options) if options else None,
            payload=payload,
            meta={"kind": kind, "subset": file.stem, "style": self.style, "source": "official"},
        )

    def samples(self, *, split: Split = "test", limit: int | None = None, seed: int = 42) -> list[Sample]:
        """The loaded samples (all in ``test``; ``seed`` is ignored: the files are fixed)."""
        if split not in ("train", "dev", "test"):
            raise ValueError(f"split must be one of train, dev, test, got {split!r}")
        items = self.load() if split == "test" else []
        return items if limit is None else items[:limit]

    def parse(self, text: str, sample: Sample) -> Parsed:
        return parse_answer(KINDS[sample.meta["kind"]].answer, text, sample)

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        return score_answer(KINDS[sample.meta["kind"]].answer, parsed, sample)
