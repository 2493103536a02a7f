"""Loader for the released STBench JSONL files (``{"Question": ..., "Answer": ...}`` per line), all 17 kinds.

Registered as ``stbench.official``. The data and the kinds come from the constructor, which the compare CLI
fills from ``--dataset PATH`` and ``--dataset-kind K1,K2``:

- ``path``: one ``.jsonl`` file, or a directory searched recursively (a ``basic/`` sub-directory, as in the
  released ``datasets/``, is used alone so the ICL/CoT/SFT copies are not mixed in);
- ``kind``: optional kinds to keep, by name (``direction_determination``) or by the README's abbreviation
  (``DD``, ``NAV``, ``PRRD``, ...); the ``tools`` condition offers the union of their tool sets;
- ``style``: ``completion`` (default: the question as released, with the paper's instruction to continue the
  text) or ``chat`` (guidance stub removed, a ``FINAL ANSWER:`` line asked for).

A file's kind comes from its name (``navigation_without_weights_9.jsonl`` → navigation) or, for a name we do not
know, from each question's text. Options are read in every released style: "(1) North, (2) ...",
"(0): Eaton, TN (1): ..." inside the ``"options"`` string, "(1) Major roads (2) Minor roads", "1) 6 times,
2) ...", "Region 1: [...]"; golds from the answer in any released shape ("1", 2, "4): [3, 5]", "3) 2 times.",
"Yes", "anomalous", [108.92024, 34.25927]). Nothing is dropped silently: :attr:`OfficialTask.load_report`
states per file how many lines were read, loaded, filtered out by kind and skipped, with the reasons.
All samples are in the ``test`` split, interleaved across files so ``--limit`` samples every file.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from geocore.networks import parse_roads
from geocore.regions import regions_containing, regions_crossed
from tasks.examples import Replies
from tasks.records import Message, Parsed, Sample, Score, Split
from tasks.registry import register_task
from tasks.scorers import Breakdowns
from tasks.stbench import examples
from tasks.stbench.common import SYSTEM_MESSAGES, AnswerKind, parse_answer, score_answer
from tasks.stbench.parsing import parse_anomaly, parse_option, parse_point, parse_yes_no
from tasks.stbench.prompts import (
    ANOMALY_INSTRUCTION,
    OPTION_INSTRUCTION,
    YES_NO_INSTRUCTION,
    Style,
)


@dataclass(frozen=True)
class Kind:
    answer: AnswerKind
    toolsets: tuple[str, ...]
    abbrev: str | None = None


KINDS: dict[str, Kind] = {
    "poi_category_recognition": Kind("option", (), "PCR"),
    "poi_identification": Kind("yesno", ("geodesy",), "PI"),
    "urban_region_function_recognition": Kind("option", ("geometry",), "URFR"),
    "administrative_region_determination": Kind("option", ("gazetteer",), "ARD"),
    "point_trajectory": Kind("option", ("trajectory",), "PTRD"),
    "point_region": Kind("option", ("geometry",), "PRRD"),
    "trajectory_region": Kind("option", ("geometry",), "TRRD"),
    "trajectory_identification": Kind("yesno", ("trajectory",), "TI"),
    "direction_determination": Kind("option", ("geodesy",), "DD"),
    "navigation": Kind("option", ("graph",), "NAV"),
    "trajectory_trajectory": Kind("option", ("trajectory",), "TTRA"),
    "trajectory_anomaly_detection": Kind("anomaly", ("trajectory",), "TAD"),
    "trajectory_classification": Kind("option", ("trajectory",), "TC"),
    "trajectory_prediction": Kind("point", ("trajectory",), "TP"),
    "road_level_judgment": Kind("option", ("trajectory",)),
    "rush_hour_detection": Kind("yesno", ()),
    "taxi_occupancy_detection": Kind("yesno", ("trajectory",)),
}
FILE_PREFIXES: dict[str, str] = {
    **{k: k for k in KINDS},
    "navigation_with_weights": "navigation",
    "navigation_without_weights": "navigation",
}
"""Released file-name prefixes (the part before ``_<variant>``) and the kind each names."""
ABBREVIATIONS: dict[str, str] = {k.abbrev: name for name, k in KINDS.items() if k.abbrev}

_TEXT_HINTS: tuple[tuple[str, str], ...] = (
    (r"shortest path to location", "navigation"),
    (r"road level", "road_level_judgment"),
    (r"rush hour", "rush_hour_detection"),
    (r"occupancy|empty to occupied|occupied to empty", "taxi_occupancy_detection"),
    (r"predict the longitude and latitude", "trajectory_prediction"),
    (r"\banomalous\b.*\bnormal\b|\bdetour\b", "trajectory_anomaly_detection"),
    (r"same trajectory", "trajectory_identification"),
    (r"two trajectories", "trajectory_trajectory"),
    (r"\bazimuth\b|\bdirection\b|\(\)\s+(?:of|from)\s+A\b", "direction_determination"),
    (r"passes through.*\bPoint\b", "point_trajectory"),
    (r"Region\s*\d+\s*:.*trajector", "trajectory_region"),
    (r"Region\s*\d+\s*:", "point_region"),
    (r"\bcar\b.*\bbike\b.*\bpedestrian\b", "trajectory_classification"),
    (r"POI\s*1|same place|same POI", "poi_identification"),
    (r"\"region\".*\"pois\"", "urban_region_function_recognition"),
    (r"comment1", "poi_category_recognition"),
    (r"\"options\"", "administrative_region_determination"),
)
_LEAD = r"(?:(?<=^)|(?<=[\s\"'{,;:]))"
_MARK = re.compile(_LEAD + r"\((\d+)\)\s*:?\s*")
_BARE_MARK = re.compile(_LEAD + r"(\d+)\)\s*:?\s*")
_WORDS = r"(?:Please|Answer|Note|Give|Choose|Which)\b"
_END = re.compile(rf";|\"|}}|\n|\.(?=\s*(?:$|\n|{_WORDS}))|\s+{_WORDS}")
_NUM = r"[-+−]?\d+(?:\.\d+)?"
_PAIR = re.compile(rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*\)")
_TRIPLE = re.compile(rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*\)")


def _f(token: str) -> float:
    return float(token.replace("−", "-"))


def resolve_kinds(kinds: str | list[str] | None) -> list[str] | None:
    """Kind names from names or README abbreviations (comma-separated or a list); ValueError on unknown ones."""
    if kinds is None:
        return None
    items = [k.strip() for k in kinds.split(",")] if isinstance(kinds, str) else [k.strip() for k in kinds]
    out = [ABBREVIATIONS.get(k.upper(), k) if k not in KINDS else k for k in items if k]
    unknown = [k for k in out if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown STBench kind(s) {', '.join(unknown)}; valid: {', '.join(KINDS)} "
                         f"(or {', '.join(ABBREVIATIONS)})")
    return list(dict.fromkeys(out)) or None


def kind_of_file(path: Path) -> str | None:
    """The task kind named by a released file name (longest matching prefix), or None."""
    stem = path.stem.lower()
    matches = [p for p in FILE_PREFIXES if stem == p or stem.startswith(p + "_")]
    return FILE_PREFIXES[max(matches, key=len)] if matches else None


def kind_of_question(question: str) -> str | None:
    """A best guess of the task kind from the question text."""
    for pattern, kind in _TEXT_HINTS:
        if re.search(pattern, question, re.IGNORECASE | re.DOTALL):
            return kind
    return None


def _longest_run(marks: list[re.Match[str]]) -> list[re.Match[str]]:
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
    return best


def extract_options(question: str, kind: str | None = None) -> list[tuple[int, str]]:
    """Numbered options of a released question, in order; [] when it has none.

    Finds "(n)" markers (with or without a colon), or else bare "n)" markers, keeps the longest run numbered
    consecutively from 0 or 1, and cuts the last label at the end of its clause (a period ends it only before
    an instruction word, a line break or the end, so "St. Louis" stays whole). Inside an ``"options"`` string the
    string's end is the label's end. Point-region questions list "Region n: [...]" instead.
    """
    if kind == "point_region":
        nums = sorted({int(n) for n in re.findall(r"Region\s*(\d+)\s*:", question)})
        return [(n, f"Region {n}") for n in nums]
    text, quoted = question, False
    m = re.search(r"\"options\"\s*:\s*\"", text)
    if m:
        end = text.find('"', m.end())
        text, quoted = text[m.end():end if end > 0 else len(text)], True
    best = _longest_run(list(_MARK.finditer(text)))
    if len(best) < 2:
        bare = _longest_run(list(_BARE_MARK.finditer(text)))
        best = bare if len(bare) > len(best) else best
    out = []
    for k, mk in enumerate(best):
        label = text[mk.end():best[k + 1].start() if k + 1 < len(best) else len(text)]
        if k + 1 == len(best) and not quoted:
            cut = _END.search(label)
            label = label[:cut.start()] if cut else label
        out.append((int(mk.group(1)), label.strip().rstrip(",;").strip()))
    return out


def history_of(question: str) -> list[list[float]]:
    """(lat, lon, t) of every "(lon, lat, t)" triple in a released question."""
    out = []
    for lon, lat, t in _TRIPLE.findall(question):
        lo, la = _f(lon), _f(lat)
        if -90 <= la <= 90 and -180 <= lo <= 180:
            out.append([la, lo, _f(t)])
    return out


def _pairs(text: str) -> list[list[float]]:
    """[lat, lon] of every "(lon, lat)" pair in ``text``."""
    return [[_f(lat), _f(lon)] for lon, lat in _PAIR.findall(text)]


def regions_of(question: str) -> list[list[list[float]]]:
    """The "Region n: [(lon, lat), ...]" polygons of a question as [[lat, lon], ...], region 1 first."""
    found = {int(n): _pairs(body) for n, body in re.findall(r"Region\s*(\d+)\s*:\s*\[([^\]]*)\]", question)}
    return [found[n] for n in sorted(found)]


def payload_of(kind: str, question: str) -> dict[str, Any]:
    """The structured inputs of a released question (coordinates as [lat, lon]), for tools and breakdowns."""
    out: dict[str, Any] = {}
    if kind == "direction_determination":
        m = re.search(rf"A has a longitude of ({_NUM}) and a latitude of ({_NUM}).*?B has a longitude of ({_NUM}) "
                      rf"and a latitude of ({_NUM})", question, re.DOTALL)
        if m:
            out["a"], out["b"] = [_f(m.group(2)), _f(m.group(1))], [_f(m.group(4)), _f(m.group(3))]
    elif kind == "navigation":
        roads = [list(r) for r in parse_roads(question)]
        m = re.search(r"you are at location (\d+) and want to take the shortest path to location (\d+)", question)
        if roads:
            out["roads"] = roads
            out["weighted"] = all(r[3] is not None for r in roads)
        if m:
            out["start"], out["goal"] = int(m.group(1)), int(m.group(2))
    elif kind in ("point_region", "trajectory_region"):
        out["regions"] = regions_of(question)
        m = re.search(rf"point with longitude ({_NUM}) and latitude ({_NUM})", question)
        if m:
            out["point"] = [_f(m.group(2)), _f(m.group(1))]
        m = re.search(r"trajectory presented in the form of a list of \(longitude, latitude\):\s*\[([^\]]*)\]", question)
        if m:
            out["path"] = _pairs(m.group(1))
    elif kind == "administrative_region_determination":
        lat = re.search(rf"\"latitude\"\s*:\s*({_NUM})", question)
        lon = re.search(rf"\"longitude\"\s*:\s*({_NUM})", question)
        if lat and lon:
            out["point"] = [_f(lat.group(1)), _f(lon.group(1))]
    elif kind == "trajectory_identification":
        seqs = re.findall(r"Sequence\s*\d\s*:\s*\[([^\]]*)\]", question)
        if len(seqs) == 2:
            out["sequence_1"], out["sequence_2"] = history_of(seqs[0]), history_of(seqs[1])
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
            if m:
                n = int(m.group(1))
            else:
                chosen = parse_option(text, options)
                if not chosen.ok:
                    raise ValueError(f"option answer {answer!r} names no option")
                n = int(chosen.answer)
        labels = dict(options)
        if options and n not in labels:
            raise ValueError(f"answer option {n} is not among the question's options {sorted(labels)}")
        return {"option": n, "label": labels.get(n)}
    if spec.answer in ("yesno", "anomaly"):
        verdict = parse_yes_no(text) if spec.answer == "yesno" else parse_anomaly(text)
        if not verdict.ok:
            raise ValueError(f"unreadable {spec.answer} answer {answer!r}")
        return {"answer": verdict.answer}
    if isinstance(answer, (list, tuple)) and len(answer) == 2:
        lon, lat = float(answer[0]), float(answer[1])
        return {"lat": lat, "lon": lon}
    ref = (history[-1][0], history[-1][1]) if history else None
    point = parse_point(text, order="lonlat", reference=ref, prefer="first")
    if not point.ok:
        raise ValueError(f"unreadable coordinate answer {answer!r}")
    return dict(point.answer)


def _seq(regions: list[int]) -> str:
    return "[" + ", ".join(str(r + 1) for r in regions) + "]"


def sampled_regions(path: list[list[float]], regions: list[list[list[float]]]) -> list[int]:
    """0-based regions holding the path's sample points (boundary included), in order, repeats merged: the rule
    the released trajectory-region gold follows (it ignores what the path crosses between two samples)."""
    out: list[int] = []
    for lat, lon in path:
        for r in regions_containing(lat, lon, regions):
            if not out or out[-1] != r:
                out.append(r)
    return out


def check_trajectory_region(payload: dict[str, Any], gold_label: str | None) -> dict[str, Any]:
    """Meta flags comparing the released gold with exact geometry (continuous path) and with sampled points."""
    try:
        exact = _seq(regions_crossed(payload["path"], payload["regions"]))
        sampled = _seq(sampled_regions(payload["path"], payload["regions"]))
    except (KeyError, ValueError) as exc:
        return {"gold_vs_geometry": f"unchecked: {exc}"}
    return {"gold_vs_geometry": "agrees" if exact == gold_label else "differs", "exact_regions": exact,
            "gold_vs_sampled_points": "agrees" if sampled == gold_label else "differs"}


_INSTRUCTIONS: dict[AnswerKind, str] = {
    "option": OPTION_INSTRUCTION,
    "yesno": YES_NO_INSTRUCTION,
    "anomaly": ANOMALY_INSTRUCTION,
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
        raise ValueError(f"STBench dataset {str(path)!r} is neither a .jsonl file nor a directory")
    root = path / "basic" if (path / "basic").is_dir() else path
    files = sorted(root.rglob("*.jsonl"))
    if not files:
        raise ValueError(f"STBench dataset directory {str(root)!r} holds no .jsonl files")
    return files


@dataclass
class FileReport:
    """What loading one file did: lines read, loaded, left out by the kind filter, skipped (with reasons)."""

    file: str
    kind: str | None
    lines: int = 0
    loaded: int = 0
    filtered: int = 0
    skipped: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    flags: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        """One line for the console."""
        text = f"{self.file} ({self.kind or 'kind from text'}): {self.loaded}/{self.lines} loaded"
        if self.filtered:
            text += f", {self.filtered} not of the kinds asked for"
        if self.skipped:
            why = "; ".join(f"{n} × {r}" for r, n in sorted(self.reasons.items(), key=lambda t: -t[1]))
            text += f", {self.skipped} SKIPPED ({why})"
        if self.flags:
            text += ", " + ", ".join(f"{n} {k}" for k, n in sorted(self.flags.items()))
        return text


def _reason(exc: Exception) -> str:
    """The reason of a skipped line without its line-specific values (so reasons can be counted)."""
    text = str(exc)
    text = re.sub(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]|\d+", "…", text)
    return text[:120]


@register_task("stbench.official")
class OfficialTask:
    """The released STBench questions, in the paper's completion style or in chat style."""

    name: ClassVar[str]
    """Set by :func:`tasks.registry.register_task`."""
    family = "stbench"
    breakdowns: ClassVar[Breakdowns] = {"style": ("style",)}
    """What results break down by, as :attr:`tasks.base.GeneratedTask.breakdowns`."""
    version: ClassVar[str] = "1"
    """Part of a run's identity, as :attr:`tasks.base.GeneratedTask.version`."""
    dataset_option = True
    """The compare CLI passes ``--dataset`` and ``--dataset-kind`` to this task's constructor."""
    dataset_kinds = tuple(f"{k} ({v.abbrev})" if v.abbrev else k for k, v in KINDS.items())

    def __init__(self, path: str | os.PathLike[str] | None = None, kind: str | list[str] | None = None,
                 style: Style | None = None, size: int | None = None) -> None:
        self.path = Path(path).expanduser() if path else None
        self.kinds: list[str] | None = resolve_kinds(kind)
        chosen = style or "completion"
        if chosen not in ("completion", "chat"):
            raise ValueError(f"style must be 'completion' or 'chat', got {chosen!r}")
        self.style: Style = chosen  # type: ignore[assignment]
        self.size = size
        self.reports: list[FileReport] = []
        self._loaded: list[Sample] | None = None

    @property
    def toolsets(self) -> tuple[str, ...]:
        """The union of the tool sets of the kinds selected (all kinds when no filter is set)."""
        kinds = self.kinds or list(KINDS)
        return tuple(dict.fromkeys(t for k in kinds for t in KINDS[k].toolsets))

    @property
    def skipped(self) -> list[str]:
        """Examples of skipped lines ("file:line: reason"), all files together."""
        return [e for r in self.reports for e in r.examples]

    @property
    def load_report(self) -> dict[str, Any]:
        """Per-file accounting of the last load, as data (for results.json)."""
        files = [asdict(r) for r in self.reports]
        return {"dataset": str(self.path) if self.path else None, "kinds": self.kinds,
                "lines": sum(r.lines for r in self.reports), "loaded": sum(r.loaded for r in self.reports),
                "filtered": sum(r.filtered for r in self.reports), "skipped": sum(r.skipped for r in self.reports),
                "files": files}

    def load_summary(self) -> list[str]:
        """Console lines: a total, then one line per file."""
        rep = self.load_report
        head = (f"{self.name}: {len(self.reports)} files, {rep['lines']} lines, {rep['loaded']} loaded, "
                f"{rep['filtered']} not of the kinds asked for, {rep['skipped']} skipped")
        return [head, *("  " + r.line() for r in self.reports)]

    def load(self) -> list[Sample]:
        """All samples of the configured dataset (cached), interleaved across files."""
        if self._loaded is not None:
            return self._loaded
        if self.path is None:
            raise ValueError(f"{self.name} needs the released STBench files: pass --dataset PATH (a .jsonl file or "
                             "a datasets/ or basic/ folder)")
        per_file: list[list[Sample]] = []
        self.reports = []
        root = self.path if self.path.is_dir() else self.path.parent
        for file in _files(self.path):
            report = FileReport(str(file.relative_to(root)), kind_of_file(file))
            self.reports.append(report)
            rows = self._read(file, report)
            if rows:
                per_file.append(rows)
        out: list[Sample] = []
        for i in range(max((len(r) for r in per_file), default=0)):
            out += [rows[i] for rows in per_file if i < len(rows)]
        for r in self.reports:
            if r.skipped:
                warnings.warn(f"{self.name}: {r.line()}", stacklevel=2)
        self._loaded = out[: self.size] if self.size else out
        return self._loaded

    def _read(self, file: Path, report: FileReport) -> list[Sample]:
        out = []
        reasons: Counter[str] = Counter()
        with file.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                report.lines += 1
                try:
                    sample = self._sample(file, lineno, json.loads(line), report.kind)
                except (ValueError, KeyError, TypeError) as exc:
                    report.skipped += 1
                    reasons[_reason(exc)] += 1
                    if len(report.examples) < 3:
                        report.examples.append(f"{file.name}:{lineno}: {exc}")
                    continue
                if sample is None:
                    report.filtered += 1
                    continue
                report.loaded += 1
                for flag, on in (("gold differs from exact geometry", sample.meta.get("gold_vs_geometry") == "differs"),
                                 ("gold label differs from its option", sample.meta.get("gold_label_mismatch"))):
                    if on:
                        report.flags[flag] = report.flags.get(flag, 0) + 1
                out.append(sample)
        report.reasons = dict(reasons)
        return out

    def _sample(self, file: Path, lineno: int, row: dict[str, Any], file_kind: str | None) -> Sample | None:
        if not isinstance(row, dict):
            raise ValueError("the line is not a JSON object")
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
        history = history_of(question) if spec.answer in ("point", "anomaly") else []
        target = gold_of(kind, row["Answer"], options, history)
        chat = self.style == "chat"
        payload: dict[str, Any] = {"question": question, "answer": row["Answer"], "file": file.name,
                                   "kind": kind, "answer_order": "lonlat", **payload_of(kind, question)}
        if options:
            payload["options"] = [[n, label] for n, label in options]
        if history:
            payload["history"] = history
        meta: dict[str, Any] = {"kind": kind, "abbrev": spec.abbrev or kind, "subset": file.stem,
                                "style": self.style, "source": "official"}
        if kind == "navigation":
            meta["weighted"] = bool(payload.get("weighted"))
        if spec.answer == "option" and isinstance(row["Answer"], str):
            said = re.match(r"\s*\(?\s*\d+\s*\)?\s*:?\s*(.*?)[\s.]*$", row["Answer"], re.DOTALL)
            if said and said.group(1) and said.group(1) != target["label"]:
                meta["gold_label_mismatch"] = True
        if kind == "trajectory_region":
            meta.update(check_trajectory_region(payload, target.get("label")))
        return Sample(
            id=f"{self.name}/{file.stem}/{lineno:05d}",
            task=self.name,
            split="test",
            messages=(SYSTEM_MESSAGES[self.style],
                      Message(role="user", content=chat_prompt(question, kind) if chat else question)),
            target=target,
            choices=tuple(label for _, label in options) if options else None,
            payload=payload,
            meta=meta,
        )

    def samples(self, *, split: Split = "test", limit: int | None = None, seed: int = 42) -> list[Sample]:
        """The loaded samples (all in ``test``; ``seed`` is ignored: the files are fixed)."""
        if split not in ("train", "dev", "test"):
            raise ValueError(f"split must be one of train, dev, test, got {split!r}")
        items = self.load() if split == "test" else []
        return items if limit is None else items[:limit]

    def example_replies(self, sample: Sample) -> Replies:
        return examples.replies(sample)

    def parse(self, text: str, sample: Sample) -> Parsed:
        return parse_answer(KINDS[sample.meta["kind"]].answer, text, sample)

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        return score_answer(KINDS[sample.meta["kind"]].answer, parsed, sample)
